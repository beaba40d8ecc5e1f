"""Index metadata in one SQLite file per generation (``meta.sqlite``).

It holds what answering reads a little of at a time, and what the next ingest
reuses, so neither loads the whole corpus into memory:

* ``sections``: citable sections by key (``doc_id#anchor``), read lazily
  through :class:`Sections` (a read-only ``Mapping``);
* ``terms``: the KB vocabulary (normalised terms and how many docs use each),
  read through :class:`Vocabulary` (``term in vocab``);
* ``docs``: each doc's path and how many chunks it has, in index order (by
  path, then doc id): the layout of every row-aligned file of the generation
  (``vectors.npy``, ``bm25/``), so an ingest knows which rows a doc owns;
* ``chunks``: each chunk's id, doc, position, text hash and the metadata
  retrieval reads, in columns;
* ``bm25_vocab``: a grow-only term numbering for the keyword index (the term
  counts themselves are row-aligned arrays under ``bm25/``, see
  :mod:`gpukb.bm25`).

A new generation starts as a byte copy of the previous one's file (published
files are never written, so a plain copy is consistent), then the docs that
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
CREATE TABLE IF NOT EXISTS docs(doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, chunks INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(
    id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, seq INTEGER NOT NULL, sha TEXT NOT NULL,
    anchor TEXT, area TEXT, kind TEXT, chunk INTEGER);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, seq);
CREATE INDEX IF NOT EXISTS chunks_sha ON chunks(sha);
CREATE TABLE IF NOT EXISTS terms(term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bm25_vocab(term TEXT PRIMARY KEY, id INTEGER NOT NULL UNIQUE);
"""


def text_signature() -> str:
    """Identifies the text layer that computed ``terms`` and the term counts: a
    copy made by another text layer is not reused."""
    from .text import TERMS_VERSION, WORD_PATTERN, bm25_stopwords

    raw = json.dumps([TERMS_VERSION, WORD_PATTERN, bm25_stopwords(), "snowball-english+acronym-plurals"])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def copy_meta(src: Path, dst: Path) -> None:
    """A copy of a published ``meta.sqlite`` at ``dst``: a byte copy (the
    kernel's), consistent because a published file is complete (written with
    no journal, committed and fsync'd before publishing) and never written again."""
    import shutil

    shutil.copyfile(src, dst)


def _doc_terms(sections: Iterable[dict[str, Any]]) -> set[str]:
    from .text import terms

    out: set[str] = set()
    for s in sections:
        # a doc's passing terms ("gres" in a Slurm-to-Kubernetes map) are no sign the KB covers them
        out.update(set(terms(f"{s['heading']} {s['text']}")) - set(terms(" ".join(s.get("passing_terms") or []))))
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

    def doc_chunks(self, doc_id: str) -> list[tuple[str, str]]:
        """(chunk id, text hash) of a doc's chunks, in order."""
        return self.db.execute("SELECT id, sha FROM chunks WHERE doc_id=? ORDER BY seq", (doc_id,)).fetchall()

    def chunks_with_text(self, shas: Iterable[str], docs: Mapping[str, Any]) -> dict[str, tuple[str, int]]:
        """text hash -> (doc id, position) of a chunk of one of ``docs`` with that text."""
        out: dict[str, tuple[str, int]] = {}
        for sha in shas:
            for doc_id, seq in self.db.execute("SELECT doc_id, seq FROM chunks WHERE sha=?", (sha,)):
                if doc_id in docs:
                    out[sha] = (doc_id, int(seq))
                    break
        return out

    def layout(self) -> list[tuple[str, str, int]]:
        """(doc id, path, chunks) of every doc in index order: by path, then doc id."""
        return sorted(self.db.execute("SELECT doc_id, path, chunks FROM docs"), key=lambda r: (r[1], r[0]))

    def remove_docs(self, doc_ids: Iterable[str]) -> None:
        db = self.db
        for d in doc_ids:
            secs = [json.loads(r[0]) for r in db.execute("SELECT data FROM sections WHERE doc_id=?", (d,))]
            gone = _doc_terms(secs)
            db.executemany("UPDATE terms SET docs = docs - 1 WHERE term=?", [(t,) for t in gone])
            db.execute("DELETE FROM sections WHERE doc_id=?", (d,))
            db.execute("DELETE FROM chunks WHERE doc_id=?", (d,))
            db.execute("DELETE FROM docs WHERE doc_id=?", (d,))
        db.execute("DELETE FROM terms WHERE docs <= 0")

    def add_doc(self, doc_id: str, path: str, sections: Sequence[tuple[str, dict[str, Any]]],
                chunks: Sequence[Any]) -> None:
        """One doc's sections (key, section) and chunks (:class:`~gpukb.chunking.Chunk`), in doc order."""
        db = self.db
        first = next((k for k, s in sections if s["text"].strip()), None)
        db.execute("INSERT INTO docs(doc_id, path, chunks) VALUES (?,?,?)", (doc_id, path, len(chunks)))
        db.executemany(
            "INSERT INTO sections(key, doc_id, path, seq, stand_in, data) VALUES (?,?,?,?,?,?)",
            [(k, doc_id, path, i, first if (first and not s["text"].strip()) else None,
              json.dumps(s, ensure_ascii=False)) for i, (k, s) in enumerate(sections)])
        db.executemany(
            "INSERT INTO chunks(id, doc_id, seq, sha, anchor, area, kind, chunk) VALUES (?,?,?,?,?,?,?,?)",
            [(c.id, doc_id, i, c.sha, *(c.metadata.get(k) for k in ("anchor", "area", "kind", "chunk")))
             for i, c in enumerate(chunks)])
        db.executemany("INSERT INTO terms(term, docs) VALUES (?, 1) ON CONFLICT(term) DO UPDATE SET docs = docs + 1",
                       [(t,) for t in _doc_terms(s for _, s in sections)])

    # -- keyword index -------------------------------------------------------
    def term_ids(self, terms: Iterable[str]) -> dict[str, int]:
        """term -> its number in the keyword index; terms never seen get the next free numbers."""
        db = self.db
        out: dict[str, int] = {}
        new: list[str] = []
        for t in dict.fromkeys(terms):
            row = db.execute("SELECT id FROM bm25_vocab WHERE term=?", (t,)).fetchone()
            if row is None:
                new.append(t)
            else:
                out[t] = int(row[0])
        if new:
            (top,) = db.execute("SELECT coalesce(max(id), -1) FROM bm25_vocab").fetchone()
            add = [(t, int(top) + 1 + i) for i, t in enumerate(new)]
            db.executemany("INSERT INTO bm25_vocab(term, id) VALUES (?, ?)", add)
            out.update(add)
        return out

    def vocab(self) -> dict[str, int]:
        """Every term number in use or retired (the keyword index's vocabulary)."""
        return dict(self.db.execute("SELECT term, id FROM bm25_vocab"))

    def counts(self) -> tuple[int, int]:
        (secs,) = self.db.execute("SELECT count(*) FROM sections").fetchone()
        (chunks,) = self.db.execute("SELECT coalesce(sum(chunks), 0) FROM docs").fetchone()
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
