"""Retrieval over a published index generation.

Three modes share one index:

* ``hybrid`` (default): a llama-index vector retriever over the Chroma
  collection and a llama-index BM25 retriever, fused by llama-index's
  ``QueryFusionRetriever``; chunks of one section collapse into one hit. The
  fusion mode and weights come from ``ingest/config.yaml`` (``retrieval``):
  ``dist_based_score`` with equal weights measured best on the dev set;
  ``reciprocal_rerank`` (RRF) and ``relative_score`` are the alternatives.
  The fused top sections are then re-ordered with a boost for question terms
  that the section's heading path names (``heading_weight``).
* ``vector``: the vector retriever alone.
* ``bm25``: the keyword retriever alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .backends.base import Evidence
from .index import IndexHandle
from .text import keyword_query, stemmer, terms

MODES = ("hybrid", "vector", "bm25")

@dataclass
class Retrieved:
    evidence: list[Evidence]
    top_vector: float  # best cosine similarity of any chunk (refusal signal)


def _recording(inner):
    from llama_index.core.retrievers import BaseRetriever

    class RecordingRetriever(BaseRetriever):
        """Passes through to ``inner`` and keeps the last raw results."""

        def __init__(self):
            super().__init__()
            self.inner = inner
            self.last: list = []

        def _retrieve(self, query_bundle):
            hits = self.inner.retrieve(query_bundle)
            # Fusion rewrites scores in place: keep the raw ones.
            self.last = [(h.node.metadata, float(h.score or 0.0)) for h in hits]
            return hits

    return RecordingRetriever()


class Retriever:
    def __init__(self, index: IndexHandle, embedder: Any, candidates: int = 20,
                 fusion: str = "dist_based_score", weights: tuple[float, float] = (0.5, 0.5),
                 heading_weight: float = 0.0, rerank_depth: int = 10):
        from llama_index.core import VectorStoreIndex
        from llama_index.core.llms import MockLLM
        from llama_index.core.retrievers import QueryFusionRetriever
        from llama_index.retrievers.bm25 import BM25Retriever

        self.index = index
        self.embedder = embedder
        # A doc whose introduction is only a title is represented by its first section.
        self._stand_in: dict[str, str] = {}
        first: dict[str, str] = {}
        for key, sec in index.sections.items():
            if sec["text"].strip() and sec["doc_id"] not in first:
                first[sec["doc_id"]] = key
        for key, sec in index.sections.items():
            if not sec["text"].strip() and sec["doc_id"] in first:
                self._stand_in[key] = first[sec["doc_id"]]
        self.heading_weight = float(heading_weight)
        self.rerank_depth = int(rerank_depth)
        self.candidates = candidates
        if embedder.dim != index.dim:
            from .errors import IndexMismatchError

            raise IndexMismatchError(
                f"index at {index.settings.home} has {index.dim}-dimensional vectors, the embedding model "
                f"gives {embedder.dim}; run `gpukb ingest --rebuild`")
        self.vector_index = VectorStoreIndex.from_vector_store(
            index.store.llama_vector_store(), embed_model=embedder.llama, transformations=[])
        self.vector = _recording(self.vector_index.as_retriever(similarity_top_k=candidates))
        self.bm25_inner = BM25Retriever.from_persist_dir(str(index.dir / "bm25"))
        self.bm25_inner.stemmer = stemmer()  # the stemmer the corpus was tokenized with
        self.bm25_inner.similarity_top_k = min(candidates, index.manifest.get("chunks", candidates)) or 1
        self.bm25 = _recording(self.bm25_inner)
        self.fusion = QueryFusionRetriever(
            [self.vector, self.bm25], llm=MockLLM(), mode=fusion, num_queries=1, use_async=False,
            similarity_top_k=candidates * 2, retriever_weights=list(weights))

    def _heading_rerank(self, question: str, evidence: list[Evidence]) -> list[Evidence]:
        """Field boost: sections whose heading path names the question's terms
        move up. Headings are written to carry the exact names users ask for."""
        q = set(terms(question))
        if not q or not evidence:
            return evidence
        top = max(e.score for e in evidence) or 1.0

        def boosted(e: Evidence) -> float:
            head = set(terms(f"{e.title} {e.section}"))
            return e.score / top + self.heading_weight * len(q & head) / len(q)

        return sorted(evidence, key=boosted, reverse=True)

    def retrieve(self, question: str, k: int = 5, area: str | None = None, mode: str = "hybrid") -> Retrieved:
        from llama_index.core.schema import QueryBundle

        # The vector retriever uses the embedding of the full question; the
        # query string only reaches BM25.
        qb = QueryBundle(query_str=keyword_query(question), embedding=self.embedder.embed_query(question))
        self.vector.last, self.bm25.last = [], []
        if mode == "hybrid":
            hits = self.fusion.retrieve(qb)
        elif mode == "vector":
            hits = self.vector.retrieve(qb)
        elif mode == "bm25":
            hits = self.bm25.retrieve(qb)
        else:
            raise ValueError(mode)
        vec_scores: dict[str, float] = {}
        for md, score in self.vector.last:
            key = _key(md)
            vec_scores[key] = max(vec_scores.get(key, -1.0), score)
        sections = self.index.sections
        out: list[Evidence] = []
        seen: set[str] = set()
        for h in hits:
            md = h.node.metadata
            if area and md.get("area") != area:
                continue
            key = _key(md)
            key = self._stand_in.get(key, key)
            if key in seen or key not in sections:
                continue
            seen.add(key)
            s = sections[key]
            out.append(Evidence(
                key=key, doc_id=s["doc_id"], title=s["title"], section=s["section"], anchor=s["anchor"],
                path=s["path"], area=s["area"], source_urls=list(s["source_urls"]), text=s["text"],
                score=float(h.score or 0.0), vector_score=vec_scores.get(key), rank=len(out)))
            if len(out) >= max(k, self.rerank_depth if mode == "hybrid" else k):
                break
        if mode == "hybrid" and self.heading_weight:
            out = self._heading_rerank(question, out)
        out = out[:k]
        for i, e in enumerate(out):
            e.rank = i
        top_vec = max((score for _, score in self.vector.last), default=0.0)
        return Retrieved(out, top_vec)


def _key(md: dict[str, Any]) -> str:
    return f"{md.get('doc_id')}#{md.get('anchor', '')}"
