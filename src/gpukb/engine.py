"""The answering engine: retrieve, decide whether the KB covers the question,
compose a cited answer, and attach recipes and a manifest when asked for.

An :class:`Engine` loads the embedding model and opens the index once; ``ask``
can then be called many times (the CLI's JSON Lines mode, the app, the bot).
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from .config import Settings, load_settings

__all__ = ["Engine", "Answer", "Citation"]

log = logging.getLogger(__name__)

REFUSAL = "I don't know: the gpukb knowledge base does not cover this."


@dataclass
class Citation:
    n: int
    doc_id: str
    title: str
    section: str
    path: str
    source_urls: list[str]
    anchor: str = ""
    area: str = ""
    source: str = ""  # the knowledge source the cited section came from (ingest/sources.yaml)


@dataclass
class Answer:
    question: str
    answer: str
    refused: bool
    citations: list[Citation] = field(default_factory=list)
    recipes: list[dict[str, str]] = field(default_factory=list)
    manifest: dict[str, Any] | None = None
    body: str = ""  # the answer without the sources list
    closest: list[str] = field(default_factory=list)
    confidence: float = 0.0
    retrieved: list[str] = field(default_factory=list)  # doc ids in rank order (for evals)
    seconds: float = 0.0
    notices: list[str] = field(default_factory=list)  # e.g. a broken recipe file that kept recipes out
    generation: str = ""  # the index generation every part of this answer came from

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sources_block(citations: list[Citation]) -> str:
    lines = ["Sources:"]
    for c in citations:
        where = f"{c.path}#{c.anchor}" if c.anchor else c.path
        lines.append(f"[{c.n}] {c.title} — {c.section} ({where})")
    return "\n".join(lines)


_QUESTION = re.compile(
    r"\?\s*$|\b(how|why|what|whats|when|where|which|who|can i|can we|could|should|does|do i|do we|is it|"
    r"are there|pending|error|fail\w*|stuck|crash\w*|evicted|slow|faster|deadlock\w*)\b", re.I)


def _asks_for_manifest(rmod, question: str, top_score: float) -> bool:
    """An explicit request ("give me a ... yaml"), or a bare spec such as
    "volcano job, 4 workers x 8 GPUs, queue research" that matches a recipe well."""
    if rmod.wants_manifest(question):
        return True
    return top_score >= 3.0 and not _QUESTION.search(question)


def _stamped(ask):
    """Record on each answer the generation it came from and the source of each citation."""

    @functools.wraps(ask)
    def wrapper(self: "Engine", *args: Any, **kwargs: Any) -> Answer:
        return self.stamp(ask(self, *args, **kwargs))

    return wrapper


class Engine:
    """Loads the model and the published index once; answers many questions.

    An engine serves one index generation for its whole life; :meth:`reopen`
    gives an engine on a newer one that shares the loaded model (see
    :class:`gpukb.live.LiveEngine` for replicas that follow re-ingests)."""

    def __init__(self, settings: Settings | None = None, *, embedder: Any = None, generator: Any = None):
        from .backends import embedder_for, get_generator
        from .index import open_index
        from .retrieval import Retriever

        self.settings = settings or load_settings()
        self.index = open_index(self.settings)
        if embedder is None:
            embedder = embedder_for(self.settings)
        if self.index.manifest["embedding"].get("model_id") != embedder.model_id:
            from .errors import IndexMismatchError

            raise IndexMismatchError(
                f"index at {self.settings.home} was built with {self.index.manifest['embedding'].get('model_id')!r}, "
                f"the loaded model is {embedder.model_id!r}; run `gpukb ingest --rebuild`")
        self.embedder = embedder
        r = self.settings.retrieval
        self.k = r.k
        self.retriever = Retriever(self.index, embedder, candidates=r.candidates, fusion=r.fusion,
                                   weights=r.weights, heading_weight=r.heading_weight, rerank_depth=r.rerank_depth)
        a = self.settings.answer
        self.refuse_below = a.refuse_below
        self.oov_weight = a.oov_weight
        self.generator = generator or get_generator(a.generator, max_words=a.max_words)

    # -- generations -------------------------------------------------------
    @property
    def generation(self) -> str:
        """The index generation this engine answers from."""
        return self.index.generation

    def reopen(self) -> "Engine":
        """A fully opened engine on the generation published now, sharing this
        engine's model and answer generator (nothing is reloaded)."""
        return type(self)(self.settings, embedder=self.embedder, generator=self.generator)

    def stamp(self, ans: Answer) -> Answer:
        """Record the generation and each citation's knowledge source on ``ans``."""
        ans.generation = self.index.generation
        sections = self.index.sections
        for c in ans.citations:
            if not c.source:
                c.source = str(sections.get(f"{c.doc_id}#{c.anchor}", {}).get("source", ""))
        return ans

    # -- recipes -----------------------------------------------------------
    def recipes(self) -> tuple[list[Any], str | None]:
        """The current recipes (reloaded when a file changes) and, if a recipe
        file is broken, the one-line error that kept them out."""
        from . import recipes as rmod
        from .errors import RecipeError

        try:
            return rmod.load_recipes(self.settings.recipes_dir), None
        except RecipeError as exc:
            log.warning("recipes unavailable: %s", exc)
            return [], f"recipes unavailable: {exc}"

    def _attach_recipes(self, ans: Answer, question: str, with_manifest: bool) -> None:
        from . import recipes as rmod
        from .errors import GpukbError

        recipes, problem = self.recipes()
        if problem:
            ans.notices.append(problem)
        if not recipes:
            return
        matches = rmod.match_recipes(question, recipes, k=5)
        # Recipes that the best-matching KB sections explain rank first.
        top_docs = set(list(dict.fromkeys(ans.retrieved))[:3])
        ranked = sorted(matches, key=lambda m: -(m[1] * (1.5 if top_docs & set(m[0].docs) else 1.0)))[:3]
        ans.recipes = [{"id": r.id, "title": r.title} for r, _ in ranked]
        if not (with_manifest and ranked and _asks_for_manifest(rmod, question, ranked[0][1])):
            return
        try:
            g = rmod.generate(question, [r for r, _ in ranked])
        except GpukbError as exc:  # e.g. a value in the question the recipe's schema rejects
            log.info("no manifest for %r: %s", question[:80], exc)
            ans.notices.append(f"no manifest: {exc}")
            return
        ans.manifest = {"recipe": g.recipe, "params": g.params, "yaml": g.yaml, "valid": g.valid,
                        "issues": list(g.issues)}

    # -- answering ---------------------------------------------------------
    def confidence(self, question: str, top_vector: float) -> float:
        """Evidence strength: the best chunk's cosine similarity, lowered by the
        share of the question's terms that appear nowhere in the KB."""
        from .text import terms

        qt = set(terms(question))
        vocab = self.index.vocabulary
        oov = (sum(1 for t in qt if t not in vocab) / len(qt)) if qt and vocab else 0.0
        return top_vector - self.oov_weight * oov

    @_stamped
    def ask(self, question: str, *, k: int | None = None, area: str | None = None,
            mode: str = "hybrid", with_manifest: bool = True, sources: list[str] | None = None) -> Answer:
        import time

        from .errors import UsageError

        t0 = time.perf_counter()
        q = (question or "").strip()
        if not q:
            raise UsageError("the question is empty")
        if len(q) > 4000:
            q = q[:4000]
        k = int(k or self.k)
        if k < 1 or k > 50:
            raise UsageError("--k must be between 1 and 50")
        got = self.retriever.retrieve(q, k=k, area=area, mode=mode, sources=sources)
        confidence = self.confidence(q, got.top_vector)
        ans = Answer(question=q, answer="", refused=False, confidence=round(confidence, 4),
                     retrieved=[e.doc_id for e in got.evidence])
        if not got.evidence or confidence < self.refuse_below:
            ans.refused = True
            seen: list[str] = []
            for e in got.evidence:
                if e.title not in seen:
                    seen.append(e.title)
            ans.closest = seen[:3]
            ans.body = REFUSAL
            ans.answer = REFUSAL + (f"\nClosest topics: {'; '.join(ans.closest)}." if ans.closest else "")
            ans.seconds = round(time.perf_counter() - t0, 4)
            return ans
        composed = self.generator.compose(q, got.evidence)
        cites = []
        for n, idx in enumerate(composed.cited, start=1):
            e = got.evidence[idx]
            cites.append(Citation(n=n, doc_id=e.doc_id, title=e.title, section=e.section, path=e.path,
                                  source_urls=e.source_urls, anchor=e.anchor, area=e.area))
        ans.citations = cites
        ans.body = composed.text
        ans.answer = composed.text + ("\n\n" + sources_block(cites) if cites else "")
        self._attach_recipes(ans, q, with_manifest)
        ans.seconds = round(time.perf_counter() - t0, 4)
        return ans
