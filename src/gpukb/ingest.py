"""``gpukb ingest``: KB docs -> chunks -> embeddings -> a new index generation.

Incremental by content hash: a chunk whose embedded text is unchanged keeps
its stored embedding, so editing one doc re-embeds only that doc's changed
sections. A no-op ingest (nothing changed) returns before loading the model.
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
from .index import (
    FORMAT,
    collection_name,
    embedding_identity,
    ingest_lock,
    new_generation_id,
    publish,
    read_manifest,
    vocabulary,
    write_json_atomic,
)
from .knowledge import KbDoc, corpus_hash
from .sources import load_knowledge

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
    sources: dict[str, int] = field(default_factory=dict)  # docs indexed per knowledge source
    warnings: list[str] = field(default_factory=list)  # team docs left out of the index
    overrides: list[str] = field(default_factory=list)  # team docs that replace or extend bundled ones
    collected: list[str] = field(default_factory=list)  # superseded generations removed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _corpus(settings: Settings, docs: list[KbDoc]) -> str:
    from .chunking import chunker_settings
    from .text import TERMS_VERSION

    items = [(_doc_key(d), d.sha) for d in docs]
    items += [(_doc_key(x), x.sha) for d in docs for x in d.extensions]
    items.append(("__settings__", json.dumps(
        [chunker_settings(settings.chunking), embedding_identity(settings), settings.chroma_url or "",
         {"terms": TERMS_VERSION, "sources": 1}],
        sort_keys=True)))
    return corpus_hash(items)


def _doc_key(d: KbDoc) -> str:
    return d.path if d.source == "bundled" else f"{d.source}:{d.path}"


def _doc_sha(d: KbDoc) -> str:
    """A doc's sha, or one over the doc and the team docs extending it."""
    if not d.extensions:
        return d.sha
    return corpus_hash([(d.path, d.sha), *((_doc_key(x), x.sha) for x in d.extensions)])


def _collect(settings: Settings, keep: set[str]) -> list[str]:
    """Superseded generations no replica uses (see :mod:`gpukb.leases`)."""
    from .leases import collect_generations

    try:
        return collect_generations(settings, keep=keep)
    except Exception as exc:  # cleanup must never fail an ingest
        log.warning("generation cleanup skipped: %s", exc)
        return []


def index_status(settings: Settings) -> dict[str, Any]:
    """Is the index missing, stale or current? Cheap: never loads the model."""
    manifest = read_manifest(settings.home)
    if manifest is None:
        return {"state": "missing", "home": str(settings.home)}
    docs = load_knowledge(settings).docs
    state = "current" if manifest.get("corpus_hash") == _corpus(settings, docs) else "stale"
    return {"state": state, "home": str(settings.home), "generation": manifest.get("generation"),
            "docs": len(docs), "chunks": manifest.get("chunks")}


def ingest(
    settings: Settings,
    *,
    rebuild: bool = False,
    progress: bool | None = None,
    embedder: Any = None,
    _after_embed: Callable[[], None] | None = None,
) -> IngestSummary:
    """Build or update the index. Raises :class:`KnowledgeErrors` on bad docs
    (the published index is left untouched)."""
    from .backends import embedder_for, get_vector_store
    from .backends.base import StoredChunk
    from .chunking import chunk_docs, chunker_settings

    t0 = time.perf_counter()
    home = settings.home
    progress = sys.stderr.isatty() if progress is None else progress
    with ingest_lock(home):
        known = load_knowledge(settings)  # raises before anything is written
        docs = known.docs
        for line in known.skipped_lines():
            log.warning("%s", line)
        per_source = {r.name: r.docs for r in known.reports}
        chash = _corpus(settings, docs)
        old = read_manifest(home)
        old_docs: dict[str, Any] = (old or {}).get("docs", {})
        if old and not rebuild and old.get("corpus_hash") == chash and old.get("format") == FORMAT:
            return IngestSummary(
                docs=len(docs), chunks=int(old.get("chunks", 0)), embedded=0, skipped=int(old.get("chunks", 0)),
                removed=0, seconds=round(time.perf_counter() - t0, 3), generation=old["generation"], noop=True,
                sections=int(old.get("sections", 0)), home=str(home), sources=per_source,
                warnings=known.skipped_lines(), overrides=known.override_lines(),
                collected=_collect(settings, {old["generation"]}))

        if embedder is None:
            embedder = embedder_for(settings)
        chunker = chunker_settings(settings.chunking)
        sections, chunks = chunk_docs(docs, settings.chunking, embedder.token_counter())

        # Reuse embeddings of unchanged chunks from the published generation.
        reuse: dict[str, list[float]] = {}
        ident = {**embedding_identity(settings), "dim": embedder.dim}
        if old and not rebuild:
            # An embedding depends only on the model and the chunk text (its sha),
            # so it survives chunker and format changes.
            if old.get("embedding") == {**ident, "model_id": embedder.model_id}:
                try:
                    gen_dir = home / "generations" / old["generation"]
                    vs = old["vector_store"]
                    prev = get_vector_store(vs.get("backend", "chroma"), collection_name=vs["collection"],
                                            path=None if vs.get("url") else gen_dir / "chroma", url=vs.get("url"))
                    for c in prev.get_all(include_embeddings=True):
                        sha = c.metadata.get("sha")
                        if sha and c.embedding is not None:
                            reuse[sha] = c.embedding
                except Exception as exc:  # any backend failure: the previous index is only a cache here
                    log.warning("previous index unreadable, embedding everything: %s", exc)
                    reuse = {}

        # Each distinct text is embedded once, even if several chunks share it.
        todo = list({c.sha: c for c in chunks if c.sha not in reuse}.values())
        fresh: dict[str, list[float]] = {}
        if todo:
            vectors = embedder.embed_documents([c.embed_text for c in todo], progress=bool(progress))
            for c, vec in zip(todo, vectors):
                fresh[c.sha] = vec
        if _after_embed:
            _after_embed()

        gen = new_generation_id()
        gen_dir = home / "generations" / gen
        gen_dir.mkdir(parents=True, exist_ok=False)
        coll = collection_name(gen)
        store = get_vector_store("chroma", collection_name=coll,
                                 path=None if settings.chroma_url else gen_dir / "chroma",
                                 url=settings.chroma_url, create=True)
        stored = [StoredChunk(id=c.id, text=c.embed_text, metadata={**c.metadata, "sha": c.sha},
                              embedding=fresh.get(c.sha) or reuse[c.sha]) for c in chunks]
        store.add(stored)
        del store
        write_json_atomic(gen_dir / "sections.json", sections)
        write_json_atomic(gen_dir / "vocab.json", vocabulary(sections))
        _write_bm25(gen_dir / "bm25", stored)

        per_doc: dict[str, dict[str, Any]] = {
            d.id: {"path": d.path, "sha": _doc_sha(d), "chunks": 0, "source": d.source,
                   **({"overrides": d.overrides} if d.overrides else {}),
                   **({"extended_by": [x.path for x in d.extensions]} if d.extensions else {})}
            for d in docs}
        for c in chunks:
            per_doc[c.doc_id]["chunks"] += 1
        removed_docs = sorted(set(old_docs) - set(per_doc))
        manifest = {
            "format": FORMAT, "generation": gen,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "embedding": {**ident, "model_id": embedder.model_id},
            "chunker": chunker, "corpus_hash": chash,
            "docs": per_doc, "chunks": len(chunks), "sections": len(sections),
            "vector_store": {"backend": "chroma", "collection": coll, "url": settings.chroma_url or None},
            "bm25": {"backend": "llama-index BM25Retriever (bm25s)", "path": "bm25"},
        }
        write_json_atomic(gen_dir / "manifest.json", manifest)
        publish(home, gen)
        # Superseded generations go once no serving replica holds a lease on
        # them (the previous one is kept by default: see ServingConfig).
        collected = _collect(settings, {gen})
        return IngestSummary(
            docs=len(docs), chunks=len(chunks), embedded=len(todo), skipped=len(chunks) - len(todo),
            removed=len(removed_docs), seconds=round(time.perf_counter() - t0, 3), generation=gen,
            sections=len(sections), home=str(home),
            added_docs=sorted(set(per_doc) - set(old_docs)),
            changed_docs=sorted(k for k in per_doc if k in old_docs and old_docs[k].get("sha") != per_doc[k]["sha"]),
            removed_docs=removed_docs, sources=per_source, warnings=known.skipped_lines(),
            overrides=known.override_lines(), collected=collected,
        )


def _write_bm25(path: Path, stored) -> None:
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    from .text import bm25_stopwords, stemmer

    nodes = [TextNode(id_=c.id, text=c.text, metadata={k: c.metadata[k] for k in ("doc_id", "anchor", "area", "kind")})
             for c in stored]
    retriever = BM25Retriever.from_defaults(nodes=list[Any](nodes), similarity_top_k=min(20, len(nodes)) or 1,
                                           stemmer=stemmer(),  # type: ignore[arg-type]
                                           language=bm25_stopwords())  # type: ignore[arg-type]  # bm25s takes a list
    retriever.persist(str(path), show_progress=False)
