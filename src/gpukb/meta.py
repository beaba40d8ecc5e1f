"""Index metadata in one SQLite file per generation (``meta.sqlite``).

It holds what answering reads a little of at a time, and what the next ingest
reuses, so neither loads the whole corpus into memory:

* ``sections``: citable sections by key (``doc_id#anchor``), read lazily
  through :class:`Sections` (a read-only ``Mapping``);
* ``terms``: the KB vocabulary (normalised terms and how many docs use each),
  read through :class:`Vocabulary` (``term in vocab``);
* ``chunks``: each chunk's id, doc, order and text hash, so an ingest knows
  what an edited doc replaces;
* ``bm25_rows`` / ``bm25_vocab``: each distinct chunk text's term counts (by
  text hash) and a grow-only term numbering, from which :mod:`gpukb.bm25`
  writes the keyword index without re-tokenizing unchanged text.

A new generation starts as a copy of the previous one's file (SQLite's online
backup, a consistent snapshot even while the app reads it), then the docs that
changed are removed and re-added, so the work follows the change.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Iterable, Sequence

__all__ = ["META_FILE", "MetaWriter", "Sections", "Vocabulary", "text_signature", "copy_meta"]

META_FILE = "meta.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sections(
    key TEXT PRIMARY KEY, doc_id TEXT NOT NULL, path TEXT NOT NULL, seq INTEGER NOT NULL,
    stand_in TEXT, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sections_doc ON sections(doc_id);
CREATE TABLE IF NOT EXISTS chunks(
    id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, path TEXT NOT NULL, seq INTEGER NOT NULL,
    sha TEXT NOT NULL, meta TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE INDEX IF NOT EXISTS chunks_order ON chunks(path, seq);
CREATE INDEX IF NOT EXISTS chunks_sha ON chunks(sha);
CREATE TABLE IF NOT EXISTS terms(term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bm25_vocab(term TEXT PRIMARY KEY, id INTEGER NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS bm25_rows(sha TEXT PRIMARY KEY, terms BLOB NOT NULL, counts BLOB NOT NULL) WITHOUT ROWID;
"""


def text_signature() -> str:
    """Identifies the text layer that computed ``terms`` and ``bm25_rows``: a
    copy made by another text layer is not reused."""
    from .text import TERMS_VERSION, WORD_PATTERN, bm25_stopwords

    raw = json.dumps([TERMS_VERSION, WORD_PATTERN, bm25_stopwords(), "snowball-english+acronym-plurals"])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def copy_meta(src: Path, dst: Path) -> None:
    """A consistent copy of ``src`` at ``dst`` (SQLite's online backup)."""
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(str(dst))
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()


def _doc_terms(sections: Iterable[dict[str, Any]]) -> set[str]:
    from .text import terms

    out: set[str] = set()
    for s in sections:
        out.update(terms(f"{s['heading']} {s['text']}"))
    return out


class MetaWriter:
    """Builds one generation's ``meta.sqlite`` (fresh, or from a copy)."""

    def __init__(self, path: Path):
        self.path = path
        self.db = sqlite3.connect(str(path))
        self.db.execute("PRAGMA journal_mode=OFF")  # a generation is published whole or not at all
        self.db.execute("PRAGMA synchronous=OFF")  # fsync'd once, before publishing
        self.db.executescript(_SCHEMA)
        self.db.execute("INSERT OR REPLACE INTO info VALUES ('text_signature', ?)", (text_signature(),))

    def info(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM info WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def chunk_shas(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """chunk id -> text hash, for these docs."""
        out: dict[str, str] = {}
        for d in doc_ids:
            out.update(self.db.execute("SELECT id, sha FROM chunks WHERE doc_id=?", (d,)).fetchall())
        return out

    def remove_docs(self, doc_ids: Iterable[str]) -> None:
        db = self.db
        for d in doc_ids:
            secs = [json.loads(r[0]) for r in db.execute("SELECT data FROM sections WHERE doc_id=?", (d,))]
            gone = _doc_terms(secs)
            db.executemany("UPDATE terms SET docs = docs - 1 WHERE term=?", [(t,) for t in gone])
            db.execute("DELETE FROM sections WHERE doc_id=?", (d,))
            db.execute("DELETE FROM chunks WHERE doc_id=?", (d,))
        db.execute("DELETE FROM terms WHERE docs <= 0")

    def add_doc(self, doc_id: str, path: str, sections: Sequence[tuple[str, dict[str, Any]]],
                chunks: Sequence[Any]) -> None:
        """One doc's sections (key, section) and chunks (:class:`~gpukb.chunking.Chunk`), in doc order."""
        db = self.db
        first = next((k for k, s in sections if s["text"].strip()), None)
        db.executemany(
            "INSERT INTO sections(key, doc_id, path, seq, stand_in, data) VALUES (?,?,?,?,?,?)",
            [(k, doc_id, path, i, first if (first and not s["text"].strip()) else None,
              json.dumps(s, ensure_ascii=False)) for i, (k, s) in enumerate(sections)])
        db.executemany(
            "INSERT INTO chunks(id, doc_id, path, seq, sha, meta) VALUES (?,?,?,?,?,?)",
            [(c.id, doc_id, path, i, c.sha, json.dumps(c.metadata, ensure_ascii=False)) for i, c in enumerate(chunks)])
        db.executemany("INSERT INTO terms(term, docs) VALUES (?, 1) ON CONFLICT(term) DO UPDATE SET docs = docs + 1",
                       [(t,) for t in _doc_terms(s for _, s in sections)])

    # -- keyword index -------------------------------------------------------
    def tokenize_missing(self, texts: Mapping[str, str]) -> int:
        """Term counts for each text hash not yet stored; returns how many were tokenized."""
        import numpy as np

        from .bm25 import term_counts

        db = self.db
        have = {r[0] for r in db.execute("SELECT sha FROM bm25_rows")}
        todo = [(sha, t) for sha, t in texts.items() if sha not in have]
        if not todo:
            return 0
        vocab = dict(db.execute("SELECT term, id FROM bm25_vocab"))
        new_terms: list[tuple[str, int]] = []
        rows = []
        for sha, text in todo:
            counts = term_counts(text)
            ids = []
            for term in counts:
                tid = vocab.get(term)
                if tid is None:
                    tid = vocab[term] = len(vocab)
                    new_terms.append((term, tid))
                ids.append(tid)
            rows.append((sha, np.asarray(ids, dtype=np.int32).tobytes(),
                         np.asarray(list(counts.values()), dtype=np.int32).tobytes()))
        db.executemany("INSERT INTO bm25_vocab(term, id) VALUES (?, ?)", new_terms)
        db.executemany("INSERT INTO bm25_rows(sha, terms, counts) VALUES (?, ?, ?)", rows)
        return len(todo)

    def prune(self) -> None:
        """Drop term counts no chunk uses any more."""
        self.db.execute("DELETE FROM bm25_rows WHERE sha NOT IN (SELECT sha FROM chunks)")

    def bm25_input(self) -> tuple[list[tuple[str, dict[str, Any], str]], Any, Any, Any, dict[str, int]]:
        """Every chunk in index order (path, then position in the doc) as
        (id, metadata, text hash), its term counts as CSR arrays, and the term numbering."""
        import numpy as np

        from .bm25 import CORPUS_KEYS

        rows: list[tuple[str, dict[str, Any], str]] = []
        terms_parts, counts_parts = [], []
        lengths = []
        frombuffer = np.frombuffer
        for cid, meta, sha, t, c in self.db.execute(
                "SELECT c.id, c.meta, c.sha, r.terms, r.counts FROM chunks c JOIN bm25_rows r ON r.sha = c.sha "
                "ORDER BY c.path, c.seq"):
            md = json.loads(meta)
            rows.append((cid, {k: md.get(k) for k in CORPUS_KEYS}, sha))
            ids = frombuffer(t, dtype=np.int32)
            terms_parts.append(ids)
            counts_parts.append(frombuffer(c, dtype=np.int32))
            lengths.append(len(ids))
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        term_ids = np.concatenate(terms_parts) if terms_parts else np.zeros(0, np.int32)
        counts = np.concatenate(counts_parts) if counts_parts else np.zeros(0, np.int32)
        vocab = {t: i for t, i in self.db.execute("SELECT term, id FROM bm25_vocab")}
        return rows, term_ids, counts, indptr, vocab

    def counts(self) -> tuple[int, int]:
        (secs,) = self.db.execute("SELECT count(*) FROM sections").fetchone()
        (chunks,) = self.db.execute("SELECT count(*) FROM chunks").fetchone()
        return int(secs), int(chunks)

    def close(self) -> None:
        self.db.commit()
        self.db.close()
        import os

        with open(self.path, "rb") as fh:
            os.fsync(fh.fileno())


class _Reader:
    """One read-only connection per thread (the app answers from several)."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()

    def db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            # immutable: a published generation never changes, so SQLite skips locking.
            db = sqlite3.connect(f"file:{self.path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            self._local.db = db
        return db


class Sections(Mapping):
    """``doc_id#anchor`` -> section dict, read from ``meta.sqlite`` on access."""

    def __init__(self, path: Path, cache_size: int = 512):
        self._r = _Reader(path)
        self._cache: dict[str, dict[str, Any]] = {}
        self._cache_size = cache_size
        self._len: int | None = None

    def __getitem__(self, key: str) -> dict[str, Any]:
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        row = self._r.db().execute("SELECT data FROM sections WHERE key=?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        value = json.loads(row[0])
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[key] = value
        return value

    def __contains__(self, key: object) -> bool:
        if key in self._cache:
            return True
        return self._r.db().execute("SELECT 1 FROM sections WHERE key=?", (key,)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        return (r[0] for r in self._r.db().execute("SELECT key FROM sections ORDER BY path, seq").fetchall())

    def __len__(self) -> int:
        if self._len is None:
            self._len = int(self._r.db().execute("SELECT count(*) FROM sections").fetchone()[0])
        return self._len

    def stand_ins(self) -> dict[str, str]:
        """Title-only introductions -> their doc's first section with text."""
        return dict(self._r.db().execute("SELECT key, stand_in FROM sections WHERE stand_in IS NOT NULL"))


class Vocabulary:
    """The KB's normalised terms: ``term in vocab`` reads ``meta.sqlite``."""

    def __init__(self, path: Path):
        self._r = _Reader(path)
        self._len: int | None = None

    def __contains__(self, term: object) -> bool:
        return self._r.db().execute("SELECT 1 FROM terms WHERE term=?", (term,)).fetchone() is not None

    def __len__(self) -> int:
        if self._len is None:
            self._len = int(self._r.db().execute("SELECT count(*) FROM terms").fetchone()[0])
        return self._len

    def __iter__(self) -> Iterator[str]:
        return (r[0] for r in self._r.db().execute("SELECT term FROM terms").fetchall())
