"""Choosing recipes for a piece of text: BM25 over recipe metadata plus keyword phrases."""

from __future__ import annotations

import re
from typing import Any

from ..text import STOPWORDS, mask_negated, stem, words
from .model import Recipe, library_of

__all__ = ["match_recipes", "wants_manifest", "recipe_search_text", "tokenize"]

# Words that ask for a manifest but name no recipe.
_REQUEST_WORDS = frozenset({
    "please", "give", "need", "want", "yaml", "manifest", "example", "sample", "create", "make",
    "write", "generate", "show", "per", "x",
})


_MODIFIER = re.compile(r"\b(?:in|on|into|onto|to|from|under|behind)\s+(?:the\s+|a\s+|an\s+|our\s+|my\s+)?"
                       r"(?:[\w.-]+\s+)?$", re.I)
_MODIFIER_WEIGHT = 0.4
_LATE_DISCOUNT = 0.5  # a phrase at the very end of a request weighs half


def tokenize(text: str) -> list[str]:
    """Recipe-matching tokens: the shared word tokens and stemmer (:mod:`gpukb.text`)."""
    return [stem(w) for w in words(text) if w not in STOPWORDS and w not in _REQUEST_WORDS]


def recipe_search_text(recipe: Recipe) -> str:
    """Title, description, keywords, kinds and example requests, for search indexes."""
    parts = [recipe.title, recipe.description, " ".join(recipe.keywords), " ".join(recipe.kinds)]
    parts += [str(e.get("request", "")) for e in recipe.examples if e.get("request")]
    return "\n".join(p for p in parts if p)


class _Index:
    def __init__(self, recipes: list[Recipe]):
        import bm25s

        self.recipes = recipes
        corpus = []
        for r in recipes:
            toks = tokenize(recipe_search_text(r)) + tokenize(r.title) + tokenize(" ".join(r.keywords))
            corpus.append(toks or ["_"])
        self.vocab = {t for doc in corpus for t in doc}
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus, show_progress=False)
        self.phrases: list[list[tuple[re.Pattern, float]]] = []
        for r in recipes:
            pats = []
            for kw in r.keywords:
                words = re.split(r"[\s-]+", kw.strip().lower())
                body = r"[\s-]?".join(re.escape(w) + ("s?" if re.match(r"^[a-z]+$", w) else "") for w in words)
                pats.append((re.compile(rf"(?<![\w]){body}(?![\w])", re.I), 1.0 + 0.5 * (len(words) - 1)))
            self.phrases.append(pats)

    def scores(self, text: str) -> list[float]:
        q = [t for t in tokenize(text) if t in self.vocab]
        base = list(self.bm25.get_scores(q)) if q else [0.0] * len(self.recipes)
        out = []
        for i, pats in enumerate(self.phrases):
            bonus = 0.0
            for rx, w in pats:
                m = rx.search(text)
                if m:
                    # "... in the prod queue": a phrase after a preposition names where or
                    # with what, not the object asked for. The object is usually named
                    # first; later mentions are more often details of it.
                    where = _MODIFIER_WEIGHT if _MODIFIER.search(text, 0, m.start()) else 1.0
                    bonus += w * where * (1.0 - _LATE_DISCOUNT * m.start() / max(1, len(text)))
            out.append(float(base[i]) + 1.5 * min(bonus, 6.0))
        return out


def _index_for(recipes: list[Recipe]) -> _Index:
    lib = library_of(recipes)
    return lib.built("match-index", _Index) if lib is not None else _Index(recipes)


def match_recipes(text: str, recipes: list[Recipe] | None = None, k: int = 3) -> list[tuple[Recipe, float]]:
    """The ``k`` best recipes for ``text`` with their scores, best first; only those that match at all."""
    if recipes is None:
        from .model import load_recipes

        recipes = load_recipes()
    if not recipes or not text.strip():
        return []
    from .extract import normalise_text

    text = mask_negated(normalise_text(text))
    idx = _index_for(recipes)
    scores = idx.scores(text)
    ranked = sorted(range(len(recipes)), key=lambda i: (-scores[i], recipes[i].id))
    return [(recipes[i], round(scores[i], 4)) for i in ranked[:k] if scores[i] > 0.0]


# Asking for a manifest is an intent, read from the shape of the request rather
# than from any one word: (1) it names the artifact (YAML, a manifest, a
# template...), (2) it asks gpukb to produce something (write, generate,
# render...), (3) it asks to be handed something (give me, show us), or (4) it is
# an imperative whose object is a thing ("make a karpenter pool for g5").
# "can I give a pod half a GPU" or "I want one replica per node" state a goal
# about the cluster and ask how, not for a file; "our old claim manifests ..."
# is about the user's own files. Needs and wants without a question ("need a
# volcano job, 4 workers x 8 GPUs") are specs: the engine attaches a manifest
# when the recipe finds details in them.
_ARTIFACT = re.compile(r"\b(?:ya?ml|manifests?|templates?|skeleton|boilerplate|snippet|"
                       r"spec(?:ification)?\s+for|(?<!for\s)examples?\s+(?:of\s+)?(?:an?\s+)?[\w-]+\s+(?:for|with)|"
                       r"(?:an?|the)\s+(?:sample|example)\s+[\w-]+)\b", re.I)
_PRODUCE = re.compile(r"\b(?:(?:write|create|draft|produce)\s+(?:me\s+|us\s+)?(?:an?|the|some|one|my)\b|"
                      r"(?:generate|render|scaffold)\b)", re.I)
_HAND_OVER = re.compile(r"\b(?:give|show|send|paste|share)\s+(?:me|us)\b", re.I)
# An imperative opens the request, after greetings, politeness or "can you".
_IMPERATIVE = re.compile(r"^\W*(?:(?:hey|hi|hello|ok|okay|so|pls|plz|please|quick one)\W+)*"
                         r"(?:(?:can|could|would|will)\s+(?:you|u|someone)\s+|i\s+(?:need|want|would like)\s+you\s+to\s+)?"
                         r"(?:pls\s+|please\s+)?(?:make|build)\s+(?:me\s+|us\s+)?(?:an?|the|some|one)\b", re.I)
_ASKS_HOW = re.compile(r"\?|\b(?:how|why|which|what|whats|where|when|is\s+there|can\s+i|can\s+we|do\s+i|do\s+we)\b",
                       re.I)
# The user's own files: "our Workload manifests", "my old yaml".
_THEIRS = re.compile(r"\b(?:our|my|their|existing|old|current)\s+(?:[\w.-]+\s+){0,3}?(?:ya?ml|manifests?|templates?)\b",
                     re.I)
_EXPLAIN = re.compile(r"^\s*(?:why|what\s+(?:is|are|does|happens)|when\s+should|explain|is\s+it|does)\b", re.I)


def wants_manifest(text: str) -> bool:
    """Does the text ask for a manifest (rather than an explanation)?"""
    if not text or not text.strip():
        return False
    text = _THEIRS.sub(" ", mask_negated(text))
    if _EXPLAIN.search(text) and not re.search(r"\b(?:ya?ml|manifest)\b", text, re.I):
        return False
    return bool(_ARTIFACT.search(text) or _PRODUCE.search(text) or _HAND_OVER.search(text)
                or (_IMPERATIVE.search(text) and not _ASKS_HOW.search(text)))


def _debug(text: str, recipes: list[Recipe]) -> list[dict[str, Any]]:  # pragma: no cover - dev aid
    idx = _index_for(recipes)
    return sorted(({"id": r.id, "score": s} for r, s in zip(recipes, idx.scores(text))), key=lambda d: -d["score"])
