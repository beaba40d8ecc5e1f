"""Retrieval over a published index generation, built on llama-index's seams.

Three retrievers, all llama-index ``BaseRetriever`` s over the same index, so
evals and the bench compare them through one interface (:meth:`Retriever.for_mode`):

* ``hybrid`` (default): a vector retriever over the Chroma collection and a
  BM25 retriever, fused by llama-index's ``QueryFusionRetriever``. The fusion
  mode and weights come from ``ingest/config.yaml`` (``retrieval``).
* ``vector``: the vector retriever alone.
* ``bm25``: the keyword retriever alone (it sees the question without chat filler).

Chunk hits then pass through two llama-index node postprocessors:

* :class:`SectionCollapse`: chunks of one section become one hit (the unit
  gpukb cites), optionally limited to one area;
* :class:`HeadingRerank`: a field boost for question terms that the section's
  heading path names (``heading_weight``; headings carry the exact names users
  ask for).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .backends.base import Evidence
from .index import IndexHandle
from .text import keyword_query, stemmer, terms

MODES = ("hybrid", "vector", "bm25")

# Fused sections re-ordered by the heading boost when rerank_depth is not given.
DEFAULT_RERANK_DEPTH = 10


@dataclass
class Retrieved:
    evidence: list[Evidence]
    top_vector: float  # best cosine similarity of any chunk (refusal signal)


def _key(md: dict[str, Any]) -> str:
    return f"{md.get('doc_id')}#{md.get('anchor', '')}"


def _classes():
    """llama-index subclasses, defined on first use so importing gpukb stays light."""
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, TextNode

    class RecordingRetriever(BaseRetriever):
        """Passes through to ``inner`` and keeps the last raw results (fusion
        rewrites scores in place; the refusal signal needs raw cosines)."""

        def __init__(self, inner: Any):
            super().__init__()
            self.inner = inner
            self.last: list[tuple[dict[str, Any], float]] = []

        def _retrieve(self, query_bundle):
            hits = self.inner.retrieve(query_bundle)
            self.last = [(h.node.metadata, float(h.score or 0.0)) for h in hits]
            return hits

    class SectionCollapse(BaseNodePostprocessor):
        """Chunk hits -> one hit per citable section, in rank order.

        A doc whose introduction is only a title is represented by its first
        section. ``area`` keeps one area only; ``limit`` stops early."""

        sections: dict = Field(default_factory=dict)
        stand_in: dict = Field(default_factory=dict)
        area: str | None = None
        sources: list | None = None
        limit: int = 50

        @classmethod
        def class_name(cls) -> str:
            return "GpukbSectionCollapse"

        def _postprocess_nodes(self, nodes, query_bundle=None):
            out: list = []
            seen: set[str] = set()
            for h in nodes:
                md = h.node.metadata
                if self.area and md.get("area") != self.area:
                    continue
                key = _key(md)
                key = self.stand_in.get(key, key)
                if key in seen or key not in self.sections:
                    continue
                if self.sources and self.sections[key].get("source", "bundled") not in self.sources:
                    continue
                seen.add(key)
                s = self.sections[key]
                node = TextNode(id_=key, text=s["text"], metadata={"key": key})
                out.append(NodeWithScore(node=node, score=float(h.score or 0.0)))
                if len(out) >= self.limit:
                    break
            return out

    class HeadingRerank(BaseNodePostprocessor):
        """Field boost: sections whose heading path names the question's terms move up."""

        sections: dict = Field(default_factory=dict)
        weight: float = 0.4
        _question: str = PrivateAttr(default="")

        @classmethod
        def class_name(cls) -> str:
            return "GpukbHeadingRerank"

        def _postprocess_nodes(self, nodes, query_bundle=None):
            question = getattr(query_bundle, "custom_embedding_strs", None)
            q = set(terms(question[0] if question else (query_bundle.query_str if query_bundle else "")))
            if not q or not nodes or not self.weight:
                return nodes
            top = max(float(n.score or 0.0) for n in nodes) or 1.0

            def boosted(n) -> float:
                s = self.sections[n.node.metadata["key"]]
                head = set(terms(f"{s['title']} {s['section']}"))
                return float(n.score or 0.0) / top + self.weight * len(q & head) / len(q)

            return sorted(nodes, key=boosted, reverse=True)

    return RecordingRetriever, SectionCollapse, HeadingRerank


class Retriever:
    """The retrievers and postprocessors over one index generation."""

    def __init__(self, index: IndexHandle, embedder: Any, candidates: int = 20,
                 fusion: str = "dist_based_score", weights: tuple[float, float] = (0.5, 0.5),
                 heading_weight: float = 0.0, rerank_depth: int = DEFAULT_RERANK_DEPTH):
        from llama_index.core import VectorStoreIndex
        from llama_index.core.llms import MockLLM
        from llama_index.core.retrievers import QueryFusionRetriever
        from llama_index.retrievers.bm25 import BM25Retriever

        from .errors import IndexMismatchError

        recording, self._collapse_cls, heading_cls = _classes()
        self.index = index
        self.embedder = embedder
        self.heading_weight = float(heading_weight)
        self.rerank_depth = int(rerank_depth)
        self.candidates = candidates
        if embedder.dim != index.dim:
            raise IndexMismatchError(
                f"index at {index.settings.home} has {index.dim}-dimensional vectors, the embedding model "
                f"gives {embedder.dim}; run `gpukb ingest --rebuild`")
        self._stand_in = self._stand_ins(index.sections)
        self.vector_index = VectorStoreIndex.from_vector_store(
            index.store.llama_vector_store(), embed_model=embedder.llama, transformations=[])
        self.vector = recording(self.vector_index.as_retriever(similarity_top_k=candidates))
        bm25 = BM25Retriever.from_persist_dir(str(index.dir / "bm25"))
        bm25.stemmer = stemmer()  # the stemmer the corpus was tokenized with
        bm25.similarity_top_k = min(candidates, index.manifest.get("chunks", candidates)) or 1
        self.bm25 = recording(bm25)
        self.fusion = QueryFusionRetriever(
            [self.vector, self.bm25], llm=MockLLM(), mode=fusion,  # type: ignore[arg-type]
            num_queries=1, use_async=False, similarity_top_k=candidates * 2, retriever_weights=list(weights))
        self.heading_rerank = heading_cls(sections=index.sections, weight=self.heading_weight)

    @staticmethod
    def _stand_ins(sections: dict[str, dict[str, Any]]) -> dict[str, str]:
        first: dict[str, str] = {}
        for key, sec in sections.items():
            if sec["text"].strip() and sec["doc_id"] not in first:
                first[sec["doc_id"]] = key
        return {key: first[sec["doc_id"]] for key, sec in sections.items()
                if not sec["text"].strip() and sec["doc_id"] in first}

    def for_mode(self, mode: str):
        """The llama-index retriever of a mode (chunk hits, before postprocessing)."""
        try:
            return {"hybrid": self.fusion, "vector": self.vector, "bm25": self.bm25}[mode]
        except KeyError:
            raise ValueError(f"unknown retrieval mode {mode!r}; one of {', '.join(MODES)}") from None

    def postprocessors(self, mode: str, k: int, area: str | None = None, sources: list[str] | None = None) -> list:
        depth = max(k, self.rerank_depth) if mode == "hybrid" and self.heading_weight else k
        out = [self._collapse_cls(sections=self.index.sections, stand_in=self._stand_in, area=area,
                                  sources=list(sources) if sources else None, limit=depth)]
        if mode == "hybrid" and self.heading_weight:
            out.append(self.heading_rerank)
        return out

    def retrieve(self, question: str, k: int = 5, area: str | None = None, mode: str = "hybrid",
                 sources: list[str] | None = None) -> Retrieved:
        from llama_index.core.schema import QueryBundle

        # The vector retriever uses the embedding of the full question; the
        # query string (question without chat filler) only reaches BM25.
        qb = QueryBundle(query_str=keyword_query(question), custom_embedding_strs=[question],
                         embedding=self.embedder.embed_query(question))
        self.vector.last, self.bm25.last = [], []
        nodes = self.for_mode(mode).retrieve(qb)
        vec_scores: dict[str, float] = {}
        for md, score in self.vector.last:
            key = self._stand_in.get(_key(md), _key(md))
            vec_scores[key] = max(vec_scores.get(key, -1.0), score)
        for post in self.postprocessors(mode, k, area, sources):
            nodes = post.postprocess_nodes(nodes, qb)
        sections = self.index.sections
        out: list[Evidence] = []
        for rank, n in enumerate(nodes[:k]):
            key = n.node.metadata["key"]
            s = sections[key]
            out.append(Evidence(
                key=key, doc_id=s["doc_id"], title=s["title"], section=s["section"], anchor=s["anchor"],
                path=s["path"], area=s["area"], source_urls=list(s["source_urls"]), text=s["text"],
                score=float(n.score or 0.0), vector_score=vec_scores.get(key), rank=rank))
        top_vec = max((score for _, score in self.vector.last), default=0.0)
        return Retrieved(out, top_vec)
