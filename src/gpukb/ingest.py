"""``gpukb ingest``: KB docs -> chunks -> embeddings -> a new index generation.

Incremental by content hash, and proportional to the change:

* KB files whose bytes are unchanged since the published generation are
  hashed, not parsed or chunked again (their sections and chunks are in the
  generation's ``meta.sqlite``);
* a chunk whose embedded text is unchanged keeps its stored embedding, so
  editing one doc re-embeds only that doc's changed sections;
* the new generation starts as a copy of the published one (``meta.sqlite``
  and the embedded Chroma folder by byte copy) and only the replaced docs'
  rows and vectors are deleted and re-added;
* the row-aligned files (``vectors.npy``, the keyword index's corpus and term
  counts) are spliced: unchanged docs' rows are copied from the published
  generation in runs of bytes, only the changed docs' rows are made
  (:mod:`gpukb.rows`); the BM25 scores are recomputed from the stored term
  counts without tokenizing (:mod:`gpukb.bm25`);
* the manifest's checksums are taken while files are written, or carried
  over for files copied unchanged; only files edited in place are read again.

Knowledge sources (``ingest/sources.yaml``): the bundled ``kb/`` and any
team folders of Markdown (:mod:`gpukb.sources`). With team sources every doc
is read (overrides and extensions need the whole set); embeddings are still
reused by text hash, so only changed text is embedded.

Superseded generations are removed once no serving replica holds a lease on
them (:mod:`gpukb.leases`).

A no-op ingest (nothing changed) returns before loading the model. ``--rebuild``
(or a format, chunker, model or text-layer change) builds from scratch.

Every ingest first removes what a killed ingest left behind, and verifies the
published generation: a damaged one (a file missing, truncated or changed) is
rebuilt rather than reported up to date or used as a base.
"""

from __future__ import annotations

import logging

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from .config import Settings
from .errors import BackendError
from .index import (
    FORMAT,
    check_index,
    collection_name,
    FileSums,
    data_files,
    embedding_identity,
    ingest_lock,
    new_generation_id,
    publish,
    reader_copy,
    remove_partial_generations,
    write_json_atomic,
)
from .knowledge import KbDoc, KbScan, corpus_hash, scan_kb

log = logging.getLogger(__name__)

__all__ = ["ingest", "IngestSummary", "index_status"]


@dataclass
class IngestSummary:
    docs: int
    chunks: int
    embedded: int
    skipped: int
    removed: int
    seconds: float
    generation: str
    noop: bool = False
    sections: int = 0
    home: str = ""
    added_docs: list[str] = field(default_factory=list)
    changed_docs: list[str] = field(default_factory=list)
    removed_docs: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)  # what was wrong with the index this ingest replaced
    sources: dict[str, int] = field(default_factory=dict)  # docs indexed per knowledge source
    warnings: list[str] = field(default_factory=list)  # team docs left out of the index
    overrides: list[str] = field(default_factory=list)  # team docs that replace or extend bundled ones
    collected: list[str] = field(default_factory=list)  # superseded generations removed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _corpus(settings: Settings, items: list[tuple[str, str]]) -> str:
    from .chunking import chunker_settings
    from .text import TERMS_VERSION

    items = list(items)
    items.append(("__settings__", json.dumps(
        [chunker_settings(settings.chunking), embedding_identity(settings), settings.chroma_url or "",
         {"terms": TERMS_VERSION}],
        sort_keys=True)))
    return corpus_hash(items)


def _doc_key(d: KbDoc) -> str:
    return d.path if d.source == "bundled" else f"{d.source}:{d.path}"


def _doc_sha(d: KbDoc) -> str:
    """A doc's sha, or one over the doc and the team docs extending it."""
    if not d.extensions:
        return d.sha
    return corpus_hash([(d.path, d.sha), *((_doc_key(x), x.sha) for x in d.extensions)])


@dataclass
class _Knowledge:
    """What an ingest indexes: the scan (parsed and unchanged docs), the corpus
    hash items, and per-source reports."""

    scan: KbScan
    items: list[tuple[str, str]]
    sources: dict[str, int]
    warnings: list[str] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)


def _read_knowledge(settings: Settings, base: dict[str, Any] | None) -> _Knowledge:
    """The bundled KB alone: files unchanged since ``base`` are hashed, not
    parsed. With team sources: every doc of every source (raises on a bad
    bundled doc; a bad team doc is left out with a warning)."""
    bundled = settings.sources[0].name if settings.sources else "bundled"
    if not settings.team_sources:
        scan = scan_kb(settings.kb_dir, _known(base))
        for d in scan.parsed:
            d.source = bundled
        return _Knowledge(scan, scan.items(), {bundled: len(scan.parsed) + len(scan.unchanged)})
    from .sources import load_knowledge

    known = load_knowledge(settings)
    return _Knowledge(KbScan(parsed=known.docs, unchanged={}), [(_doc_key(d), _doc_sha(d)) for d in known.docs],
                      {r.name: r.docs for r in known.reports}, known.skipped_lines(), known.override_lines())


def _collect(settings: Settings, keep: set[str], drop: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Superseded generations no replica uses (see :mod:`gpukb.leases`); ``drop``
    (a damaged generation) goes regardless."""
    from .leases import collect_generations

    try:
        return collect_generations(settings, keep=keep, drop=drop)
    except Exception as exc:  # cleanup must never fail an ingest
        log.warning("generation cleanup skipped: %s", exc)
        return []


def _known(manifest: dict[str, Any] | None) -> dict[str, tuple[str, str]]:
    """path -> (sha, doc id) of the docs an index was built from."""
    docs = (manifest or {}).get("docs", {})
    return {d["path"]: (d["sha"], doc_id) for doc_id, d in docs.items() if "path" in d and "sha" in d}


def index_status(settings: Settings, *, deep: bool = False) -> dict[str, Any]:
    """Is the index missing, damaged, stale or current? Cheap: hashes the KB
    files (parses none of them), never loads the model, and verifies the
    published files' sizes (and sha256 with ``deep``)."""
    check = check_index(settings.home, deep=deep)
    if check.state == "missing":
        return {"state": "missing", "home": str(settings.home)}
    if check.state == "damaged":
        return {"state": "damaged", "home": str(settings.home), "generation": check.generation,
                "problems": check.problems}
    manifest = check.manifest or {}
    kn = _read_knowledge(settings, manifest if manifest.get("format") == FORMAT else None)
    current = manifest.get("format") == FORMAT and manifest.get("corpus_hash") == _corpus(settings, kn.items)
    return {"state": "current" if current else "stale", "home": str(settings.home),
            "generation": manifest.get("generation"), "docs": len(kn.scan.parsed) + len(kn.scan.unchanged),
            "chunks": manifest.get("chunks")}


def _incremental_base(settings: Settings, old: dict[str, Any] | None, rebuild: bool) -> dict[str, Any] | None:
    """The published generation's manifest if the new one can start as a copy of it."""
    from .chunking import chunker_settings
    from .meta import META_FILE, text_signature

    if rebuild or not old or old.get("format") != FORMAT:
        return None
    if old.get("chunker") != chunker_settings(settings.chunking):
        return None
    if {k: old.get("embedding", {}).get(k) for k in embedding_identity(settings)} != embedding_identity(settings):
        return None
    if (old.get("vector_store", {}).get("url") or None) != (settings.chroma_url or None):
        return None
    if old.get("text_signature") != text_signature():
        return None
    gen_dir = settings.home / "generations" / old["generation"]
    if not all((gen_dir / f).is_file() for f in (META_FILE, "vectors.npy", "bm25/rows.txt")):
        return None
    # The row-aligned files must hold the rows the manifest counts.
    from .rows import BaseRows

    if BaseRows.open(gen_dir, int(old.get("chunks", -1))) is None:
        return None
    return old


def ingest(
    settings: Settings,
    *,
    rebuild: bool = False,
    progress: bool | None = None,
    embedder: Any = None,
    wait: bool = False,
    verify: bool = False,
    _after_embed: Callable[[], None] | None = None,
) -> IngestSummary:
    """Build or update the index. Raises :class:`KnowledgeErrors` on bad docs
    (the published index is left untouched). Another ingest running on the
    same home is an error, or with ``wait`` is waited for.

    A published generation with a file missing or of the wrong size is rebuilt,
    never used as the base; with ``verify`` every file's sha256 is checked too
    (a file changed in place), at the cost of reading the whole index."""
    from .backends import embedder_for, get_vector_store
    from .chunking import chunk_docs, chunker_settings
    from .meta import META_FILE, MetaWriter, copy_meta, text_signature
    from .rows import BaseRows, RowPlan, write_rows

    t0 = time.perf_counter()
    home = settings.home
    progress = sys.stderr.isatty() if progress is None else progress
    timings: dict[str, float] = {}

    def lap(name: str, since: list[float] = [t0]) -> None:  # noqa: B006 (a running clock)
        now = time.perf_counter()
        timings[name] = round(now - since[0], 3)
        since[0] = now

    with ingest_lock(home, wait=wait):
        remove_partial_generations(home, settings.chroma_url)
        check = check_index(home, deep=verify)
        old = check.manifest if check.generation else None
        repaired = list(check.problems) if check.state == "damaged" else []
        if repaired:
            log.info("the published index is damaged and is rebuilt: %s", check.summary())
        # A damaged generation is never the base of the next one.
        base = None if repaired else _incremental_base(settings, old, rebuild)
        # Files unchanged since the published generation are hashed, not parsed.
        kn = _read_knowledge(settings, base)  # raises before anything is written
        scan = kn.scan
        for line in kn.warnings:
            log.warning("%s", line)
        chash = _corpus(settings, kn.items)
        old_docs: dict[str, Any] = (old or {}).get("docs", {})
        if base and base.get("corpus_hash") == chash:
            n = int(base.get("chunks", 0))
            return IngestSummary(
                docs=len(scan.unchanged) + len(scan.parsed), chunks=n, embedded=0, skipped=n, removed=0,
                seconds=round(time.perf_counter() - t0, 3), generation=base["generation"], noop=True,
                sections=int(base.get("sections", 0)), home=str(home), sources=kn.sources,
                warnings=kn.warnings, overrides=kn.overrides, collected=_collect(settings, {base["generation"]}))
        lap("scan")

        chunker = chunker_settings(settings.chunking)
        sections: dict[str, dict[str, Any]] = {}
        chunks: list[Any] = []
        if scan.parsed:
            if embedder is None:
                embedder = embedder_for(settings)
            sections, chunks = chunk_docs(scan.parsed, settings.chunking, embedder.token_counter())
        lap("chunk")

        gen = new_generation_id()
        gen_dir = home / "generations" / gen
        gen_dir.mkdir(parents=True, exist_ok=False)
        sums = FileSums(gen_dir)  # checksums known without reading the files again
        base_dir = home / "generations" / base["generation"] if base else None
        # Docs of the base generation that this one drops or replaces.
        replaced = sorted(set((base or {}).get("docs", {})) - set(scan.unchanged))
        if base_dir is not None:
            copy_meta(base_dir / META_FILE, gen_dir / META_FILE)
        meta = MetaWriter(gen_dir / META_FILE)
        base_layout = meta.layout()  # the base generation's rows (none on a first build)
        old_chunks = {d: meta.doc_chunks(d) for d in replaced}
        meta.remove_docs(replaced)
        by_doc_sections: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for key, sec in sections.items():
            by_doc_sections.setdefault(sec["doc_id"], []).append((key, sec))
        by_doc_chunks: dict[str, list[Any]] = {}
        for c in chunks:
            by_doc_chunks.setdefault(c.doc_id, []).append(c)
        for d in scan.parsed:
            meta.add_doc(d.id, d.path, by_doc_sections.get(d.id, []), by_doc_chunks.get(d.id, []))
        try:
            plan = RowPlan.make(base_layout, meta.layout(), {d.id for d in scan.parsed})
        except ValueError as exc:
            raise BackendError(f"generation {base['generation']}: {exc}; run `gpukb ingest --rebuild`") from None  # type: ignore[index]
        lap("metadata")

        # Embeddings to reuse, by text hash: rows of the base generation's
        # vectors.npy (the replaced docs' chunks, then any unchanged chunk with
        # the same text), or an older index's vector store (another format or
        # chunker), read whole.
        base_rows = BaseRows.open(base_dir, plan.base_total) if base_dir is not None else None
        if base_dir is not None and base_rows is None:
            raise BackendError(f"the rows of generation {base['generation']} do not match its metadata; "  # type: ignore[index]
                               "run `gpukb ingest --rebuild`")
        reuse_rows: dict[str, int] = {}
        for doc_id, cs in old_chunks.items():
            lo = plan.base_start.get(doc_id)
            if lo is not None:
                for i, (_, sha) in enumerate(cs):
                    reuse_rows.setdefault(sha, lo + i)
        reuse: dict[str, Any] = {}
        if base_rows is not None:
            missing = {c.sha for c in chunks if c.sha not in reuse_rows}
            for sha, (doc_id, seq) in meta.chunks_with_text(missing, plan.kept).items():
                reuse_rows[sha] = plan.kept[doc_id] + seq
        elif (old and not rebuild and embedder is not None and _same_vectors(old, settings, embedder)
              and not any(p.startswith("chroma/") for p in repaired)):
            # Damaged vectors are not reused; other damage leaves them a good cache.
            reuse = _stored_embeddings(home, old)

        # Each distinct text is embedded once, even if several chunks share it.
        todo = list({c.sha: c for c in chunks if c.sha not in reuse_rows and c.sha not in reuse}.values())
        fresh: dict[str, Any] = {}
        if todo:
            vectors = embedder.embed_documents([c.embed_text for c in todo], progress=bool(progress))
            for c, vec in zip(todo, vectors):
                fresh[c.sha] = vec
        lap("embed")
        if _after_embed:
            _after_embed()

        # The row-aligned files (vectors.npy and the keyword index share one
        # row order): unchanged docs' rows are copied from the base generation
        # in runs, only the new docs' rows are made.
        dim = int(embedder.dim) if embedder is not None else int(base["embedding"]["dim"])  # type: ignore[index]
        new_vecs = _new_vectors(chunks, dim, fresh, reuse, reuse_rows, base_rows)
        write_rows(gen_dir, plan, by_doc_chunks, new_vecs, meta, base_rows, dim, sums,
                   similarity_top_k=settings.retrieval.candidates, base_row=reuse_rows)
        n_sections, n_chunks = meta.counts()
        meta.close()
        lap("keyword index and vectors")

        # Each section's heading path and first sentences, embedded for the sentence match
        # (unchanged text keeps the base generation's vectors).
        from . import sentences
        from .meta import Sections

        def model() -> Any:
            return embedder if embedder is not None else embedder_for(settings)

        sentences.write(gen_dir, Sections(gen_dir / META_FILE), model, base_dir)
        lap("sentence vectors")

        # The vector store of record (Chroma). Embedded: the new generation
        # starts as a copy of the published collection; the replaced docs'
        # chunks are deleted and the new ones added. A Chroma server (or a
        # first build): a new collection with every chunk.
        vs_base = (base or {}).get("vector_store", {})
        copy_store = base_dir is not None and not settings.chroma_url and (base_dir / "chroma").is_dir()
        if copy_store:
            from .backends.chroma import copy_embedded

            copied = copy_embedded(base_dir / "chroma", gen_dir / "chroma")  # type: ignore[operator]
            coll = vs_base["collection"]
            store = get_vector_store("chroma", collection_name=coll, path=gen_dir / "chroma")
            gone = sorted(cid for cs in old_chunks.values() for cid, _ in cs)
            if gone:
                store.delete(gone)
            _add_to_store(store, ((c, new_vecs[c.id]) for d in scan.parsed for c in by_doc_chunks.get(d.id, [])))
        else:
            copied = {}
            coll = collection_name(gen)
            store = get_vector_store("chroma", collection_name=coll,
                                     path=None if settings.chroma_url else gen_dir / "chroma",
                                     url=settings.chroma_url, create=True)
            _add_all_to_store(store, gen_dir, gen_dir / META_FILE)
        n_vectors = store.count()
        if hasattr(store, "close"):
            store.close()  # the folder is complete and never written again
        del store
        # Files of the copied collection that Chroma left as they were keep the
        # checksums the base generation recorded.
        base_files = (base or {}).get("files", {})
        for rel, before in copied.items():
            copy = gen_dir / "chroma" / rel
            try:
                st = copy.stat()
            except OSError:
                continue
            if (st.st_size, st.st_mtime_ns, st.st_ino) == before:
                sums.carry(copy, base_files.get(f"chroma/{rel}"))
        lap("vector store")
        if n_vectors != n_chunks:
            raise BackendError(f"vector store holds {n_vectors} chunks, the index lists {n_chunks}; "
                               "run `gpukb ingest --rebuild`")

        per_doc: dict[str, dict[str, Any]] = {}
        for doc_id, (path, sha) in scan.unchanged.items():
            per_doc[doc_id] = {**old_docs[doc_id]}
        for d in scan.parsed:
            per_doc[d.id] = {"path": d.path, "sha": _doc_sha(d), "chunks": len(by_doc_chunks.get(d.id, [])),
                             "source": d.source, **({"overrides": d.overrides} if d.overrides else {}),
                             **({"extended_by": [x.path for x in d.extensions]} if d.extensions else {})}
        per_doc = dict(sorted(per_doc.items(), key=lambda kv: kv[1]["path"]))
        removed_docs = sorted(set(old_docs) - set(per_doc))
        emb_record = {**embedding_identity(settings), "dim": dim, "model_id": getattr(embedder, "model_id", None),
                      "backend": getattr(embedder, "backend", settings.embedding.backend)}
        if embedder is None:  # nothing embedded: the base generation's model stands
            emb_record = dict((base or {}).get("embedding", emb_record))
        elif hasattr(embedder, "artifact"):
            emb_record.update(embedder.artifact(home))
        manifest = {
            "format": FORMAT, "generation": gen,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "embedding": emb_record,
            "chunker": chunker, "corpus_hash": chash, "text_signature": text_signature(),
            "docs": per_doc, "chunks": n_chunks, "sections": n_sections,
            "vector_store": {"backend": "chroma", "collection": coll, "url": settings.chroma_url or None},
            "bm25": {"backend": "bm25s (llama-index BM25Retriever, memory-mapped)", "path": "bm25"},
            "built_from": base["generation"] if base else None,
            "timings_s": timings,
            "files": data_files(gen_dir, sums.known),
        }
        write_json_atomic(gen_dir / "manifest.json", manifest)
        publish(home, gen)
        # Superseded generations go once no serving replica holds a lease on
        # them (the previous one is kept by default: see ServingConfig); a
        # damaged one goes now.
        collected = _collect(settings, {gen}, {old["generation"]} if old and repaired else set())
        return IngestSummary(
            docs=len(per_doc), chunks=n_chunks, embedded=len(todo), skipped=n_chunks - len(todo),
            removed=len(removed_docs), seconds=round(time.perf_counter() - t0, 3), generation=gen,
            sections=n_sections, home=str(home),
            added_docs=sorted(set(per_doc) - set(old_docs)),
            changed_docs=sorted(k for k in per_doc if k in old_docs and old_docs[k].get("sha") != per_doc[k]["sha"]),
            removed_docs=removed_docs, repaired=repaired, sources=kn.sources, warnings=kn.warnings,
            overrides=kn.overrides, collected=collected,
        )


def _same_vectors(old: dict[str, Any], settings: Settings, embedder: Any) -> bool:
    """Do the published embeddings come from the model the embedder runs?
    (An embedding depends only on the model and the chunk text, so it survives
    chunker, format and backend changes.)"""
    have = old.get("embedding", {})
    return (have.get("model") == settings.embedding.model and have.get("model_id") == embedder.model_id
            and have.get("dim") == embedder.dim)


def _vector_metadata(md: dict[str, Any], sha: str) -> dict[str, Any]:
    """What the vector store keeps per chunk: what retrieval filters and
    collapses on, and the text hash (texts and sections live in meta.sqlite)."""
    return {**{k: md[k] for k in ("doc_id", "anchor", "area", "kind", "chunk") if md.get(k) is not None}, "sha": sha}


def _new_vectors(chunks: list[Any], dim: int, fresh: dict[str, Any], reuse: dict[str, Any],
                 reuse_rows: dict[str, int], base_rows: Any) -> dict[str, Any]:
    """chunk id -> its L2-normalised float32 vector, for the chunks of the docs
    this ingest (re)indexes: embedded now or read from an older index's store
    (normalised here), or a row of the base generation (stored normalised)."""
    import numpy as np

    out: dict[str, Any] = {}
    for c in chunks:
        v = fresh.get(c.sha)
        if v is None:
            v = reuse.get(c.sha)
        if v is not None:
            v = np.asarray(v, dtype=np.float32)
            v = v / (float(np.linalg.norm(v)) or 1.0)
        elif c.sha in reuse_rows and base_rows is not None:
            v = np.array(base_rows.vectors[reuse_rows[c.sha]], dtype=np.float32)
        else:
            raise BackendError(f"no embedding for chunk {c.id}; run `gpukb ingest --rebuild`")
        if v.shape != (dim,):
            raise BackendError(f"chunk {c.id} has a vector of shape {v.shape}, the index {dim} dimensions; "
                               "run `gpukb ingest --rebuild`")
        out[c.id] = v
    return out


def _add_to_store(store: Any, items: Any, batch: int = 1000) -> None:
    """Add (chunk, vector) pairs to the vector store, a batch at a time."""
    from .backends.base import StoredChunk

    part: list[Any] = []
    for c, vec in items:
        part.append(StoredChunk(id=c.id, text="", metadata=_vector_metadata(c.metadata, c.sha),
                                embedding=vec.tolist()))
        if len(part) >= batch:
            store.add(part)
            part = []
    if part:
        store.add(part)


def _add_all_to_store(store: Any, gen_dir: Path, meta_path: Path, batch: int = 500) -> None:
    """Every row of a generation into a new collection: vectors from its
    ``vectors.npy``, metadata from its ``meta.sqlite`` (``batch`` ids per
    query: under SQLite's oldest limit of 999 variables)."""
    import sqlite3

    import numpy as np

    from .backends.base import StoredChunk

    vecs = np.load(gen_dir / "vectors.npy", mmap_mode="r")
    ids = (gen_dir / "bm25" / "rows.txt").read_text(encoding="utf-8").split("\n") if len(vecs) else []
    db = sqlite3.connect(f"file:{meta_path}?mode=ro", uri=True)
    try:
        for start in range(0, len(ids), batch):
            part = ids[start:start + batch]
            rows = {r[0]: r[1:] for r in db.execute(
                f"SELECT id, doc_id, anchor, area, kind, chunk, sha FROM chunks WHERE id IN ({','.join('?' * len(part))})",
                part)}
            block = np.asarray(vecs[start:start + len(part)])
            out = []
            for i, cid in enumerate(part):
                doc_id, anchor, area, kind, chunk, sha = rows[cid]
                md = {"doc_id": doc_id, "anchor": anchor, "area": area, "kind": kind, "chunk": chunk}
                out.append(StoredChunk(id=cid, text="", metadata=_vector_metadata(md, sha),
                                       embedding=block[i].tolist()))
            store.add(out)
    finally:
        db.close()


def _stored_embeddings(home: Path, old: dict[str, Any]) -> dict[str, Any]:
    """sha -> embedding from an older index's vector store (any failure: none)."""
    from .backends import get_vector_store

    out: dict[str, Any] = {}
    try:
        vs = old["vector_store"]
        # Opening embedded Chroma writes to it: read a copy, never the published files.
        path = None if vs.get("url") else reader_copy(home, old["generation"])
        prev = get_vector_store(vs.get("backend", "chroma"), collection_name=vs["collection"],
                                path=path, url=vs.get("url"))
        for c in prev.get_all(include_embeddings=True):
            sha = c.metadata.get("sha")
            if sha and c.embedding is not None:
                out[sha] = c.embedding
    except Exception as exc:  # any backend failure: the previous index is only a cache here
        log.warning("previous index unreadable, embedding everything: %s", exc)
        return {}
    return out
