"""Retrieval over a published index generation.

Three modes over the same chunks:

* ``hybrid`` (default): vector search (full question) and BM25 (question
  without chat filler). ``dist_based_full`` (the default) fuses the union of
  both candidate lists with every candidate scored by both retrievers: a chunk
  that only one of them ranked still gets its real score from the other, where
  llama-index's ``QueryFusionRetriever`` modes (``dist_based_score``,
  ``relative_score``, ``reciprocal_rerank``, also available) count it as zero
  there; weights from ``ingest/config.yaml``;
* ``vector``: the vector search alone;
* ``bm25``: the keyword search alone.

Chunk hits then become sections: :func:`collapse` (chunks of one section are
one hit, the unit gpukb cites, optionally one area only) and, in hybrid mode,
:func:`heading_rerank` (a field boost for question terms that the section's
heading path names).

The query path reads memory-mapped arrays and imports neither llama-index nor
Chroma, so a cold ``gpukb ask`` pays for neither:

* vectors: ``vectors.npy`` (one L2-normalised row per chunk; exact cosine
  search; scores are ``exp(-(1 - cos))``, the similarity llama-index's Chroma
  store reports for Chroma's cosine distance). An index built into a Chroma
  server is searched on that server instead (:class:`ServerVectorSearch`);
* keywords: the bm25s index under ``bm25/`` (:mod:`gpukb.bm25`), scored and
  cut to top k as ``bm25s.BM25.retrieve`` does, the query tokenized as
  llama-index's ``BM25Retriever`` tokenizes it.

The same retrieval is available on llama-index's seams: :meth:`Retriever.for_mode`
returns a llama-index ``BaseRetriever`` per mode and :meth:`Retriever.postprocessors`
the two steps as node postprocessors; ``tests/test_retrieval.py`` checks that
they rank exactly as the direct path, and that the direct path matches
llama-index's own BM25 and Chroma-backed vector retrievers.
"""

from __future__ import annotations

import json
import math
import mmap
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .backends.base import Evidence
from .index import IndexHandle
from .text import PROBLEM, asked_words, keyword_query, stemmer, terms

MODES = ("hybrid", "vector", "bm25")

# Fused sections re-ordered by the heading boost when rerank_depth is not given.
DEFAULT_RERANK_DEPTH = 10
# llama-index's reciprocal rank fusion constant.
RRF_K = 60.0
# The KB area of sections about things going wrong (symptoms, error messages and their fixes).
TROUBLESHOOTING = "troubleshooting"


@dataclass
class Retrieved:
    evidence: list[Evidence]
    top_vector: float  # best cosine similarity of any chunk (refusal signal)
    query_vector: list[float] | None = None  # the question's embedding (None in BM25 mode)


@dataclass
class Hit:
    """A chunk hit: its metadata (doc_id, anchor, area, kind, chunk) and score."""

    meta: dict[str, Any]
    score: float
    source: str = ""  # "vector" or "bm25"


@dataclass
class SectionHit:
    key: str  # doc_id#anchor
    score: float


def _key(md: Mapping[str, Any]) -> str:
    return f"{md.get('doc_id')}#{md.get('anchor', '')}"


# -- the index files ---------------------------------------------------------


class ChunkRows:
    """Row number -> chunk metadata, from ``bm25/corpus.jsonl`` (memory-mapped)."""

    def __init__(self, bm25_dir: Path):
        import numpy as np

        self._fh = open(bm25_dir / "corpus.jsonl", "rb")
        size = Path(bm25_dir / "corpus.jsonl").stat().st_size
        self._mm = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        offsets = bm25_dir / "corpus.offsets.npy"
        if offsets.is_file():
            self._offsets = np.load(offsets, mmap_mode="r")
        else:  # bm25s' own line index
            self._offsets = np.asarray(json.loads((bm25_dir / "corpus.mmindex.json").read_text()), dtype=np.int64)
        self._size = size

    def __len__(self) -> int:
        return len(self._offsets)

    def meta(self, row: int) -> dict[str, Any]:
        assert self._mm is not None
        start = int(self._offsets[row])
        end = int(self._offsets[row + 1]) if row + 1 < len(self._offsets) else self._size
        line = json.loads(self._mm[start:end])
        out = {k: line[k] for k in ("doc_id", "anchor", "area", "kind", "chunk") if k in line}
        out["node_id"] = line.get("node_id")
        return out


class VectorSearch:
    """Exact cosine search over ``vectors.npy`` (memory-mapped)."""

    def __init__(self, path: Path):
        import numpy as np

        self._np = np
        self.matrix = np.load(path, mmap_mode="r")

    def search(self, query: Sequence[float], k: int) -> list[tuple[int, float]]:
        np = self._np
        n = self.matrix.shape[0]
        if not n or k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        norm = float(np.linalg.norm(q)) or 1.0
        sims = self.matrix @ (q / norm)
        k = min(k, n)
        top = np.argpartition(-sims, k - 1)[:k] if k < n else np.arange(n)
        top = top[np.argsort(-sims[top], kind="stable")]
        # Chroma's cosine distance is 1 - cos; llama-index reports exp(-distance).
        return [(int(i), math.exp(-(1.0 - float(np.float32(sims[i]))))) for i in top]

    def score_rows(self, query: Sequence[float], rows: Sequence[int]) -> list[float]:
        """The scores :meth:`search` would give these rows."""
        np = self._np
        if not len(rows):
            return []
        q = np.asarray(query, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        sims = self.matrix[np.asarray(rows, dtype=np.int64)] @ q
        return [math.exp(-(1.0 - float(np.float32(x)))) for x in sims]


class ServerVectorSearch:
    """Vector search answered by the Chroma server an index was built into
    (a team deployment): the same scores as :class:`VectorSearch`, from
    Chroma's approximate (HNSW) cosine search."""

    def __init__(self, store: Any, rows_file: Path):
        self.store = store
        self._ids = rows_file.read_text(encoding="utf-8").split("\n")
        self._row = {cid: i for i, cid in enumerate(self._ids) if cid}

    def search(self, query: Sequence[float], k: int) -> list[tuple[int, float]]:
        if k <= 0 or not self._row:
            return []
        out = []
        for cid, cos in self.store.query([float(x) for x in query], min(k, len(self._row))):
            row = self._row.get(cid)
            if row is not None:
                out.append((row, math.exp(-(1.0 - cos))))
        return out

    def score_rows(self, query: Sequence[float], rows: Sequence[int]) -> list[float]:
        """The scores :meth:`search` would give these rows (their vectors read from the server)."""
        ids = [self._ids[r] for r in rows]
        got = self.store.embeddings(ids)
        qn = math.sqrt(sum(float(x) * float(x) for x in query)) or 1.0
        out = []
        for cid in ids:
            v = got.get(cid)
            if v is None:
                out.append(0.0)
                continue
            vn = math.sqrt(sum(float(x) * float(x) for x in v)) or 1.0
            cos = sum(float(a) * float(b) for a, b in zip(query, v)) / (qn * vn)
            out.append(math.exp(-(1.0 - cos)))
        return out


class KeywordSearch:
    """BM25 over the bm25s index files, as ``bm25s.BM25.retrieve`` scores it."""

    def __init__(self, bm25_dir: Path):
        import numpy as np

        self._np = np
        self.data = np.load(bm25_dir / "data.csc.index.npy", mmap_mode="r")
        self.indices = np.load(bm25_dir / "indices.csc.index.npy", mmap_mode="r")
        self.indptr = np.load(bm25_dir / "indptr.csc.index.npy", mmap_mode="r")
        params = json.loads((bm25_dir / "params.index.json").read_text())
        self.num_docs = int(params["num_docs"])
        self.dtype = np.dtype(params.get("dtype", "float32"))
        self.vocab: dict[str, int] = json.loads((bm25_dir / "vocab.index.json").read_text(encoding="utf-8"))
        stop = bm25_dir / "query_stopwords.json"
        self.stopwords = frozenset(json.loads(stop.read_text()) if stop.is_file() else _bm25s_english_stopwords())
        self._split = re.compile(r"(?u)\b\w\w+\b").findall

    def query_tokens(self, query: str) -> list[str]:
        """``bm25s.tokenize(query, stemmer=...)`` as llama-index's BM25Retriever calls it."""
        stem = stemmer().stemWord
        return [stem(w) for w in self._split(query.lower()) if w not in self.stopwords]

    def scores(self, query: str):
        np = self._np
        ids = [self.vocab[t] for t in self.query_tokens(query) if t in self.vocab]
        scores = np.zeros(self.num_docs, dtype=self.dtype)
        for tid in ids:  # repeated query terms count again, as in bm25s
            start, end = int(self.indptr[tid]), int(self.indptr[tid + 1])
            np.add.at(scores, self.indices[start:end], self.data[start:end])
        return scores

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        return self.top(self.scores(query), k) if self.num_docs else []

    def top(self, scores, k: int) -> list[tuple[int, float]]:
        """The ``k`` best rows of ``scores`` as bm25s ranks them."""
        np = self._np
        k = max(1, min(k, self.num_docs))
        # bm25s' numpy top-k, step by step (ties fall the same way).
        part = np.argpartition(scores, -k)
        part = part.take(indices=range(-k, 0))
        part_scores = np.take(scores, part)
        order = np.flip(np.argsort(part_scores))
        return [(int(i), float(s)) for i, s in zip(part[order], part_scores[order])]


def _bm25s_english_stopwords() -> tuple[str, ...]:
    from bm25s.stopwords import STOPWORDS_EN

    return tuple(STOPWORDS_EN)


# -- fusion and postprocessing ----------------------------------------------


def fuse(results: Sequence[list[Hit]], weights: Sequence[float], mode: str, top_k: int) -> list[Hit]:
    """llama-index ``QueryFusionRetriever`` fusion of one query's result lists
    (one per retriever, in retriever order); hits are distinct across lists.
    Scores of the given hits are rewritten, as llama-index rewrites them."""
    if mode == "reciprocal_rerank":
        fused: list[Hit] = []
        for hits in results:
            for rank, h in enumerate(sorted(hits, key=lambda x: x.score or 0.0, reverse=True)):
                h.score = 1.0 / (rank + RRF_K)
                fused.append(h)
        return sorted(fused, key=lambda x: x.score, reverse=True)[:top_k]
    if mode not in ("dist_based_score", "relative_score"):
        raise ValueError(f"unknown fusion mode {mode!r}")
    out: list[Hit] = []
    for idx, hits in enumerate(results):
        for h, v in zip(hits, _scaled([h.score or 0.0 for h in hits], mode)):
            h.score = v * weights[idx]
            out.append(h)
    return sorted(out, key=lambda x: x.score or 0.0, reverse=True)[:top_k]


def _scaled(scores: Sequence[float], mode: str = "dist_based_score") -> list[float]:
    """One retriever's scores scaled as llama-index scales them: by their mean
    +- 3 standard deviations (``dist_based_score``) or their range (``relative_score``)."""
    if not scores:
        return []
    if mode == "dist_based_score":
        mean = sum(scores) / len(scores)
        std = (sum((x - mean) ** 2 for x in scores) / len(scores)) ** 0.5
        lo, hi = mean - 3 * std, mean + 3 * std
    else:
        lo, hi = min(scores), max(scores)
    return [(x - lo) / (hi - lo) if hi != lo else (1.0 if hi > 0 else 0.0) for x in scores]


def fuse_full(candidates: Sequence[int], scores: Sequence[Sequence[float]], weights: Sequence[float],
              top_k: int) -> list[tuple[int, float]]:
    """``dist_based_score`` over one candidate set that every retriever scored:
    each retriever's scores are scaled by their mean +- 3 standard deviations,
    weighted and summed per candidate."""
    fused = [0.0] * len(candidates)
    for w, col in zip(weights, scores):
        for i, v in enumerate(_scaled(col)):
            fused[i] += w * v
    order = sorted(range(len(candidates)), key=lambda i: (-fused[i], i))
    return [(candidates[i], fused[i]) for i in order[:top_k]]


def collapse(hits: Sequence[Any], sections: Mapping[str, Any], stand_in: Mapping[str, str],
             area: str | None, limit: int, meta: Callable[[Any], Mapping[str, Any]] = lambda h: h.meta,
             score: Callable[[Any], float] = lambda h: h.score,
             sources: Sequence[str] | None = None) -> list[SectionHit]:
    """Chunk hits -> one hit per citable section, in rank order. A doc whose
    introduction is only a title is represented by its first section. With
    ``sources``, only sections of those knowledge sources."""
    out: list[SectionHit] = []
    seen: set[str] = set()
    for h in hits:
        md = meta(h)
        if area and md.get("area") != area:
            continue
        key = _key(md)
        key = stand_in.get(key, key)
        if key in seen or key not in sections:
            continue
        if sources and sections[key].get("source", "bundled") not in sources:
            continue
        seen.add(key)
        out.append(SectionHit(key, float(score(h) or 0.0)))
        if len(out) >= limit:
            break
    return out


# A section heading that quotes a line pasted into the question ("GPU has fallen off the bus", "node(s)
# had untolerated taint") names what is asked more surely than one that shares scattered terms: a run
# of PHRASE_MIN or more words in the same order adds PHRASE_WEIGHT, full at PHRASE_FULL words.
PHRASE_MIN = 4
PHRASE_FULL = 8
PHRASE_WEIGHT = 0.5
_PHRASE_TOKEN = re.compile(r"[a-z0-9]+(?:[./'][a-z0-9]+)*")


def _phrase_run(question: list[str], heading: list[str]) -> int:
    """The longest run of words the heading shares with the question in the same order."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, question, heading, autojunk=False).find_longest_match(
        0, len(question), 0, len(heading)).size


# A message quoted in a one-line question ("says \"Failed to initialize NVML: Unknown Error\" after ...")
# is pasted output too: QUOTED_MIN_WORDS or more words between quote marks.
QUOTED_MIN_WORDS = 3
_QUOTED = re.compile(r"\"([^\"\n]{6,400})\"|\u201c([^\u201d\n]{6,400})\u201d|(?<![\w])'([^'\n]{6,400})'(?![\w])")


def _pasted_tokens(question: str) -> list[str]:
    """The words of what the question pastes: the whole question when it runs over lines or has code
    marks, else the spans it quotes (a message or log line in quote marks); none for plain prose,
    whose scattered words a heading shares by chance."""
    if "\n" in question.strip() or "`" in question:
        return _PHRASE_TOKEN.findall(question.lower()[:4000])
    out: list[str] = []
    for m in _QUOTED.finditer(question[:4000]):
        span = _PHRASE_TOKEN.findall(next(g for g in m.groups() if g).lower())
        if len(span) >= QUOTED_MIN_WORDS:
            out += [*span, "\x00"]  # a stop between spans: a run never joins two quotes
    return out


def heading_rerank(hits: list[SectionHit], question: str, sections: Mapping[str, Any],
                   weight: float, extra: Callable[[SectionHit], float] | None = None) -> list[SectionHit]:
    """Field boost: sections whose heading path names the question's terms move up, and more so
    those whose heading quotes a phrase of the question (a pasted error or log line). ``extra``
    adds a further score per section (the sentence match, :meth:`Retriever.sentence_scores`)."""
    q = set(terms(question))
    if not hits or (extra is None and (not q or not weight)):
        return hits
    if not q or not weight:
        return sorted(hits, key=lambda h: h.score + extra(h), reverse=True)  # type: ignore[misc]
    top = max(h.score for h in hits) or 1.0
    q_tokens = _pasted_tokens(question)

    def boosted(h: SectionHit) -> float:
        s = sections[h.key]
        head = set(terms(f"{s['title']} {s['section']}"))
        run = _phrase_run(q_tokens, _PHRASE_TOKEN.findall(str(s["section"]).lower())) if q_tokens else 0
        phrase = PHRASE_WEIGHT * min(run, PHRASE_FULL) / PHRASE_FULL if run >= PHRASE_MIN else 0.0
        return h.score / top + weight * len(q & head) / len(q) + phrase + (extra(h) if extra else 0.0)

    return sorted(hits, key=boosted, reverse=True)


# -- asked parts ----------------------------------------------------------------

# Where a message asks a second thing: a new sentence, or a clause joined by "also" or by "and" before
# a question word or a want ("..., and make sure it doesn't keep idle nodes").
_PART_SPLIT = re.compile(
    r"(?<=[?!])\s+|(?<=[a-z0-9)\]`'\"][.])\s+(?=\S)|;\s+|\s+(?:and\s+)?also[,:]?\s+|"
    r",?\s+(?:and|but)\s+(?=(?:how|what|why|which|where|when|can|could|should|do|does|is|are|will|would|"
    r"make\s+sure|ensure|i\s+(?:also\s+)?(?:want|need)|we\s+(?:also\s+)?(?:want|need))\b)", re.I)
# An asked part, not context: a question, or a want.
_ASKING = re.compile(
    r"\?\s*$|^\W*(?:how|what|why|which|where|when|can|could|should|do|does|is|are|will|would|make\s+sure|"
    r"ensure|i\s+(?:also\s+)?(?:want|need)|we\s+(?:also\s+)?(?:want|need)|any\s+way|is\s+there)\b", re.I)
PART_MIN_TERMS = 3
_LEAD_ALSO = re.compile(r"^(?:and\s+)?also[,:]?\s+", re.I)


def question_parts(question: str) -> list[str]:
    """The things a message asks, each on its own: its questions and wants, not its context or a
    pasted log (a message over several lines is one paste-bearing question)."""
    q = question.strip()
    if "\n" in q or "`" in q or len(q) > 600:
        return []
    parts = [_LEAD_ALSO.sub("", p.strip(" ,.;:")) for p in _PART_SPLIT.split(q) if p and p.strip(" ,.;:")]
    asked = [p for p in parts if _ASKING.search(p) and len(set(terms(p))) >= PART_MIN_TERMS]
    if len(asked) < 2:
        return []
    # context ("We use Karpenter on EKS.") goes with every part: it says what "it" is
    context = " ".join(p for p in parts if p not in asked)
    return [f"{p} {context}".strip() for p in asked]


# A long message (context about the cluster, maybe a pasted log, then the ask) reads like the sections
# its context words match; from LONG_QUESTION_WORDS words on, the sentences that ask (a question, a want)
# are its focus (:func:`asked_focus`), and a section with a sentence that answers them moves up.
LONG_QUESTION_WORDS = 18
_SENTENCE_SPLIT = re.compile(r"(?<=[?!])\s+|(?<=[a-z0-9)\]`'\"][.])\s+(?=\S)|;\s+|\n+")


def asked_focus(question: str, min_words: int = LONG_QUESTION_WORDS) -> str:
    """What a long message asks, in its own words: its asking sentences (questions and wants, not its
    context or a pasted log); an ask too short to say what it is about ("why won't it go there?") with
    the sentence before it. Empty for a short message, or when every sentence asks."""
    if len(question.split()) < min_words:
        return ""
    sentences = [s.strip() for s in _SENTENCE_SPLIT.split(asked_words(question)) if s and s.strip(" ,.;:")]
    picked: list[int] = []
    for i, s in enumerate(sentences):
        if not _ASKING.search(s):
            continue
        if len(set(terms(s))) < PART_MIN_TERMS and i > 0 and i - 1 not in picked:
            picked.append(i - 1)
        picked.append(i)
    if not picked or len(picked) == len(sentences):
        return ""
    focus = " ".join(sentences[i] for i in sorted(set(picked)))
    return focus if len(set(terms(focus))) >= PART_MIN_TERMS else ""


# "mig??", "what is gang scheduling?", "explain time-slicing", "what does GFD do": a question that only
# names a thing asks what it is, and is answered by the section that defines that very thing, its "What
# MIG is" section or the opening of the doc whose title names it; retrieval alone ranks the sections that
# mention it most ("What MIG Manager does", "Limits of gang scheduling") first.
_DEFINE = re.compile(
    r"^(?:(?:hey|hi|hello|yo|ok|okay|so|sorry|um+|uh+|quick\s+q(?:uestion)?|noob\s+q(?:uestion)?|question)[\s,:!.-]+)*"
    r"(?:(?:can|could)\s+(?:someone|anyone|you)\s+)?"
    r"(?:(?:explain|define|describe)(?:\s+what)?\s+|tell\s+me\s+about\s+|eli5:?\s+|"
    r"what(?:'s|\u2019s|\s+is|\s+are|\s+exactly\s+is|\s+even\s+is)\s+|what\s+does\s+(?=.+\s+do\s*[?!.]*$))?"
    r"(?:an?\s+|the\s+)?(?P<x>[a-z0-9][\w.+/-]*(?:[ -][\w.+/-]+){0,3}?)"
    r"(?:\s+(?:is|are|does|do))?(?:\s+(?:exactly|anyway|again|about))?(?:\s+(?:pls|please))?\s*[?!.]*$", re.I)
# the heading of a section that defines its subject: "What MIG is: ...", "What GPU Feature Discovery
# does", "What is DRA and how is it different ...", "What a LeaderWorkerSet is (vs a StatefulSet)"
_DEFINING_HEADING = re.compile(
    r"^what\s+(?:is\s+(?:an?\s+|the\s+)?(?P<a>.+?)(?=\s+and\b|\s*[?:(]|$)|"
    r"(?:an?\s+|the\s+)?(?P<b>.+?)\s+(?:is|are|does|do)\b)", re.I)
# what a doc's title names before its details: "Multi-Instance GPU (MIG) in Kubernetes - profiles ..."
_TITLE_HEAD = re.compile(r"^(?P<h>.+?)(?:\s+-\s+|:\s|$)")
_TITLE_TAIL = re.compile(r"\s+(?:in|on|for|with|and|to|from)\s+.*$", re.I)
_TITLE_ABBREVIATION = re.compile(r"\(([A-Za-z][\w-]*)\)")
# words that say where a thing lives, not what it is: "GPU time-slicing" defines time-slicing
_PLACE_WORDS = frozenset(terms("gpu gpus nvidia kubernetes k8s"))


def _subject_terms(text: str) -> frozenset[str]:
    """A subject's terms, "time-slicing" and "time slicing" alike."""
    return frozenset(terms(text.replace("-", " "))) - _PLACE_WORDS


def defined_subject(question: str) -> frozenset[str]:
    """The terms of the thing a "what is it" question names ("mig??", "what's a PodGroup", "explain
    time-slicing"), or an empty set for any other question."""
    q = re.sub(r"[^\w\s.,:;!?'\u2019+/-]", " ", question).strip()
    m = _DEFINE.match(" ".join(q.split()))
    if not m:
        return frozenset()
    return _subject_terms(m.group("x"))


def _heading_subject(heading: str) -> frozenset[str]:
    m = _DEFINING_HEADING.match(heading.strip())
    if not m:
        return frozenset()
    return _subject_terms(m.group("a") or m.group("b") or "")


def _title_subjects(title: str) -> list[frozenset[str]]:
    m = _TITLE_HEAD.match(title.strip())
    head = m.group("h") if m else title
    out = [_subject_terms(a) for a in _TITLE_ABBREVIATION.findall(head)]
    out.append(_subject_terms(_TITLE_TAIL.sub("", _TITLE_ABBREVIATION.sub(" ", head))))
    return [s for s in out if s]


# -- the retriever -------------------------------------------------------------


class Retriever:
    """Vector, keyword and hybrid retrieval over one index generation."""

    def __init__(self, index: IndexHandle, embedder: Any, candidates: int = 20,
                 fusion: str = "dist_based_full", weights: tuple[float, float] = (0.5, 0.5),
                 heading_weight: float = 0.0, rerank_depth: int = DEFAULT_RERANK_DEPTH,
                 part_slots: int = 0, sentence_weight: float = 0.0, ask_weight: float = 0.0,
                 symptom_weight: float = 0.0):
        from .errors import IndexMismatchError

        self.index = index
        self.embedder = embedder
        self.heading_weight = float(heading_weight)
        self.part_slots = int(part_slots)
        self.sentence_weight = float(sentence_weight)
        self.ask_weight = float(ask_weight)
        self.symptom_weight = float(symptom_weight)
        self._focus_cache: tuple[str, str, Any] | None = None  # (question, focus, focus embedding)
        self._sentences: Any = None  # the sentence vectors (gpukb.sentences.SentenceVectors), read on first use
        self.rerank_depth = int(rerank_depth)
        self.candidates = candidates
        self.fusion_mode = fusion
        self.weights = list(weights)
        if embedder.dim != index.dim:
            raise IndexMismatchError(
                f"index at {index.settings.home} has {index.dim}-dimensional vectors, the embedding model "
                f"gives {embedder.dim}; run `gpukb ingest --rebuild`")
        self.rows = ChunkRows(index.dir / "bm25")
        if index.manifest.get("vector_store", {}).get("url"):
            self.vectors: VectorSearch | ServerVectorSearch = ServerVectorSearch(
                index.store, index.dir / "bm25" / "rows.txt")
        else:
            self.vectors = VectorSearch(index.dir / "vectors.npy")
        self.keywords = KeywordSearch(index.dir / "bm25")
        sections = index.sections
        self._stand_in = sections.stand_ins() if hasattr(sections, "stand_ins") else self._stand_ins(sections)
        self._llama: dict[str, Any] = {}
        self._subjects: list[tuple[str, frozenset[str] | None, list[frozenset[str]]]] | None = None

    @staticmethod
    def _stand_ins(sections: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
        first: dict[str, str] = {}
        for key, sec in sections.items():
            if sec["text"].strip() and sec["doc_id"] not in first:
                first[sec["doc_id"]] = key
        return {key: first[sec["doc_id"]] for key, sec in sections.items()
                if not sec["text"].strip() and sec["doc_id"] in first}

    # chunk-level search ---------------------------------------------------
    def vector_hits(self, embedding: Sequence[float]) -> list[Hit]:
        return [Hit(self.rows.meta(r), s, "vector") for r, s in self.vectors.search(embedding, self.candidates)]

    def keyword_hits(self, query: str) -> list[Hit]:
        return [Hit(self.rows.meta(r), s, "bm25") for r, s in self.keywords.search(query, self._keyword_k())]

    def _keyword_k(self) -> int:
        return min(self.candidates, self.index.manifest.get("chunks", self.candidates)) or 1

    def _full_hits(self, embedding: Sequence[float], query: str) -> tuple[list[Hit], list[Hit]]:
        """Hybrid hits fused with ``dist_based_full`` (see the module doc)."""
        vec = self.vectors.search(embedding, self.candidates)
        all_kw = self.keywords.scores(query)
        kw = self.keywords.top(all_kw, self._keyword_k()) if len(all_kw) else []
        rows = list(dict.fromkeys([r for r, _ in vec] + [r for r, s in kw if s > 0]))
        fused = fuse_full(rows, [self.vectors.score_rows(embedding, rows), [float(all_kw[r]) for r in rows]],
                          self.weights, self.candidates * 2)
        raw = [Hit(self.rows.meta(r), s, "vector") for r, s in vec]
        return [Hit(self.rows.meta(r), s, "fused") for r, s in fused], raw

    def chunk_hits(self, question: str, mode: str = "hybrid", embedding: Sequence[float] | None = None
                   ) -> tuple[list[Hit], list[Hit]]:
        """(ranked chunk hits of ``mode``, raw vector hits); the vector side sees
        the full question, BM25 the question without chat filler."""
        if mode not in MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}; one of {', '.join(MODES)}")
        if mode == "hybrid" and self.fusion_mode == "dist_based_full":
            return self._full_hits(embedding if embedding is not None else self.embedder.embed_query(question),
                                   keyword_query(question))
        vec: list[Hit] = []
        if mode in ("hybrid", "vector"):
            vec = self.vector_hits(embedding if embedding is not None else self.embedder.embed_query(question))
        raw = [Hit(h.meta, h.score, h.source) for h in vec]
        if mode == "vector":
            return vec, raw
        kw = self.keyword_hits(keyword_query(question))
        if mode == "bm25":
            return kw, raw
        return fuse([vec, kw], self.weights, self.fusion_mode, self.candidates * 2), raw

    # sections -------------------------------------------------------------
    def retrieve(self, question: str, k: int = 5, area: str | None = None, mode: str = "hybrid",
                 sources: Sequence[str] | None = None) -> Retrieved:
        embedding = self.embedder.embed_query(question) if mode in ("hybrid", "vector") else None
        hits, raw = self.chunk_hits(question, mode, embedding=embedding)
        vec_scores: dict[str, float] = {}
        for h in raw:
            key = self._stand_in.get(_key(h.meta), _key(h.meta))
            vec_scores[key] = max(vec_scores.get(key, -1.0), h.score)
        sections = self.index.sections
        rerank = mode == "hybrid" and bool(self.heading_weight)
        depth = max(k, self.rerank_depth) if rerank else k
        found: list[SectionHit] = collapse(hits, sections, self._stand_in, area, depth, sources=sources)
        if rerank:
            found = self.rerank(found, question, embedding)
        if mode == "hybrid" and self.part_slots:
            found = self._with_parts(found, question, area, sources, depth)
        if rerank:
            found = self._defining_first(found, question, area, sources)
        out: list[Evidence] = []
        for rank, sh in enumerate(found[:k]):
            out.append(Evidence.from_section(sh.key, sections[sh.key], score=sh.score,
                                             vector_score=vec_scores.get(sh.key), rank=rank))
        top_vec = max((h.score for h in raw), default=0.0)
        return Retrieved(out, top_vec, list(embedding) if embedding is not None else None)

    def rerank(self, found: list[SectionHit], question: str, embedding: Sequence[float] | None) -> list[SectionHit]:
        """The heading boost (:func:`heading_rerank`) plus ``sentence_weight`` x the best cosine
        similarity between the question and one of the section's sentences or its heading path."""
        sections = self.index.sections
        # a question that names no symptom (no error, nothing failing or stuck) is seldom answered by a
        # troubleshooting section, however closely its heading matches ("H100 MIG, max slices?")
        aside = self.symptom_weight if self.symptom_weight and not PROBLEM.search(question) else 0.0

        def penalty(h: SectionHit) -> float:
            return aside if sections[h.key].get("area") == TROUBLESHOOTING else 0.0

        if not self.sentence_weight or embedding is None or not found:
            return heading_rerank(found, question, sections, self.heading_weight,
                                  extra=(lambda h: -penalty(h)) if aside else None)
        keys = [h.key for h in found[: self.rerank_depth]]
        best = self.sentence_scores(embedding, keys)
        asked = " ".join(asked_words(question).split())
        if asked != " ".join(question.split()) and len(set(terms(asked))) >= PART_MIN_TERMS:
            # a question around a pasted log or manifest: its own words say what it asks, so a
            # section's sentence matched by them alone counts as well
            own = self.sentence_scores(self.embedder.embed_query(asked), keys)
            best = {k: max(v, own.get(k, 0.0)) for k, v in best.items()}
        focus = self.focus_embedding(question)
        if focus is not None:  # a long message: a sentence that answers what it asks counts as well
            own = self.sentence_scores(focus, keys)
            best = {k: max(v, self.ask_weight * own.get(k, 0.0)) for k, v in best.items()}
        w = self.sentence_weight
        return heading_rerank(found, question, sections, self.heading_weight,
                              extra=lambda h: w * best.get(h.key, 0.0) - penalty(h))

    def focus_embedding(self, question: str) -> Any:
        """The embedding of what a long message asks (:func:`asked_focus`), or None (a short message,
        one that only asks, or ``ask_weight`` 0). The last one is kept: one message is reranked more than once."""
        if not self.ask_weight:
            return None
        cached = self._focus_cache
        if cached is None or cached[0] != question:
            focus = asked_focus(question)
            cached = (question, focus, self.embedder.embed_query(focus) if focus else None)
            self._focus_cache = cached
        return cached[2]

    def sentence_scores(self, embedding: Sequence[float], keys: Sequence[str]) -> dict[str, float]:
        """Per section, the best cosine similarity between ``embedding`` and its heading path or
        one of its first sentences (:mod:`gpukb.sentences`: written at ingest, read once)."""
        return self._sentence_vectors().scores(embedding, keys)

    def unit_similarities(self, embedding: Sequence[float], keys: Sequence[str]) -> dict[str, tuple[float, ...]]:
        """Per section, the cosine similarity between ``embedding`` and each of its first sentences
        and list items, in order (the heading path left out): what the answer generator weighs
        beside the words a sentence shares with the question."""
        return {k: tuple(round(float(x), 4) for x in v[1:])
                for k, v in self._sentence_vectors().similarities(embedding, keys).items()}

    def _sentence_vectors(self) -> Any:
        if self._sentences is None:
            from .sentences import SentenceVectors

            self._sentences = SentenceVectors(self.index.dir, self.index.sections, self.embedder)
        return self._sentences

    def _with_parts(self, found: list[SectionHit], question: str, area: str | None,
                    sources: Sequence[str] | None, depth: int) -> list[SectionHit]:
        """A question that asks two things ("How do I make a GPU NodePool, and make sure idle nodes go
        away?", "... Also, should requests equal limits?") is answered from the sections of both:
        each asked part is retrieved on its own, and its best section, when the whole question's
        leading sections lack it, follows the lead (at most ``part_slots`` parts)."""
        parts = question_parts(question)
        if len(parts) < 2 or not found:
            return found
        lead_keys = {h.key for h in found[: self.part_slots + 1]}
        extra: list[SectionHit] = []
        for part in parts:
            query = f"{part} {question}"
            embedding = self.embedder.embed_query(query)
            hits, _ = self.chunk_hits(query, "hybrid", embedding=embedding)
            got = collapse(hits, self.index.sections, self._stand_in, area, depth, sources=sources)
            if self.heading_weight:
                got = self.rerank(got, part, embedding)
            if got and got[0].key not in lead_keys and all(got[0].key != h.key for h in extra):
                extra.append(got[0])
            if len(extra) >= self.part_slots:
                break
        if not extra:
            return found
        keys = {h.key for h in extra}
        rest = [h for h in found[1:] if h.key not in keys]
        return [found[0], *extra, *rest]

    def _defining_first(self, found: list[SectionHit], question: str, area: str | None,
                        sources: Sequence[str] | None) -> list[SectionHit]:
        """A question that only names a thing (:func:`defined_subject`) leads with the section that
        defines exactly that thing: a "What X is" heading, else the opening of the doc whose title
        names X ("Multi-Instance GPU (MIG) in Kubernetes"), else a heading that defines X with one
        word more ("What MPS sharing is"); the one retrieval ranks higher, or the first in the KB
        when retrieval found none."""
        subject = defined_subject(question)
        if not subject or not found:
            return found
        sections = self.index.sections
        rank = {h.key: i for i, h in enumerate(found)}
        headed: list[str] = []
        titled: list[str] = []
        near: list[str] = []  # "What MPS sharing is" for "what is MPS": one word more
        for key, named, title_named in self._section_subjects():
            md = sections[key]
            if (area and md.get("area") != area) or (sources and md.get("source", "bundled") not in sources):
                continue
            if named is not None:
                if named == subject:
                    headed.append(key)
                elif subject < named and len(named - subject) == 1:
                    near.append(key)
            elif subject in title_named:
                titled.append(self._stand_in.get(key, key))
        for group in (headed, titled, near):
            group = [k for k in group if k in sections]
            if group:
                best = min(group, key=lambda k: rank.get(k, len(found)))
                if best == found[0].key:
                    return found
                hit = found[rank[best]] if best in rank else SectionHit(best, found[0].score)
                return [hit, *[h for h in found if h.key != best]]
        return found

    def _section_subjects(self) -> list[tuple[str, frozenset[str] | None, list[frozenset[str]]]]:
        """Per section, what its heading defines (None for a doc's opening) and what its doc's title
        names: read once, for every "what is it" question after."""
        if self._subjects is None:
            self._subjects = [
                (key, _heading_subject(str(md.get("section", ""))), []) if md.get("anchor")
                else (key, None, _title_subjects(str(md.get("title", ""))))
                for key, md in self.index.sections.items()]
        return self._subjects

    # llama-index seams ----------------------------------------------------
    def for_mode(self, mode: str):
        """The llama-index ``BaseRetriever`` of a mode (chunk hits, before postprocessing).

        Its query bundle carries the keyword query as ``query_str`` and the full
        question in ``custom_embedding_strs`` (as :meth:`query_bundle` builds it)."""
        if mode not in MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}; one of {', '.join(MODES)}")
        if mode not in self._llama:
            self._llama[mode] = _llama_classes()[0](self, mode)
        return self._llama[mode]

    def query_bundle(self, question: str):
        from llama_index.core.schema import QueryBundle

        return QueryBundle(query_str=keyword_query(question), custom_embedding_strs=[question],
                           embedding=self.embedder.embed_query(question))

    def postprocessors(self, mode: str, k: int, area: str | None = None, sources: Sequence[str] | None = None) -> list:
        """Section collapse (and, in hybrid mode, the heading rerank) as llama-index node postprocessors."""
        _, collapse_cls, heading_cls, parts_cls, defining_cls = _llama_classes()
        rerank = mode == "hybrid" and bool(self.heading_weight)
        depth = max(k, self.rerank_depth) if rerank else k
        out = [collapse_cls(sections=self.index.sections, stand_in=self._stand_in, area=area,
                            sources=list(sources) if sources else None, limit=depth)]
        if rerank:
            out.append(heading_cls(sections=self.index.sections, weight=self.heading_weight, owner=self))
        if mode == "hybrid" and self.part_slots:
            out.append(parts_cls(owner=self, area=area, sources=list(sources) if sources else None, depth=depth))
        if rerank:
            out.append(defining_cls(owner=self, area=area, sources=list(sources) if sources else None))
        return out


_CLASSES: tuple | None = None


def _bundle_question(query_bundle: Any) -> str:
    """The full question a query bundle carries (:meth:`Retriever.query_bundle` puts it in
    ``custom_embedding_strs``; ``query_str`` is the keyword query)."""
    strs = getattr(query_bundle, "custom_embedding_strs", None)
    return strs[0] if strs else (query_bundle.query_str if query_bundle else "")


def _llama_classes():
    """llama-index adapters, defined on first use so the query path stays light."""
    global _CLASSES
    if _CLASSES is not None:
        return _CLASSES
    from llama_index.core.bridge.pydantic import Field
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, TextNode

    class GpukbRetriever(BaseRetriever):
        """One retrieval mode of :class:`Retriever` as a llama-index retriever."""

        def __init__(self, owner: Retriever, mode: str):
            super().__init__()
            self.owner = owner
            self.mode = mode

        def _retrieve(self, query_bundle):
            hits, _ = self.owner.chunk_hits(_bundle_question(query_bundle), self.mode, embedding=query_bundle.embedding)
            return [NodeWithScore(node=TextNode(id_=h.meta.get("node_id") or _key(h.meta), text="",
                                                metadata={k: v for k, v in h.meta.items() if k != "node_id"}),
                                  score=h.score) for h in hits]

    class SectionCollapse(BaseNodePostprocessor):
        """Chunk hits -> one hit per citable section (see :func:`collapse`)."""

        sections: Any = Field(default_factory=dict)  # a Mapping; the index's is lazy (never copied)
        stand_in: dict = Field(default_factory=dict)
        area: str | None = None
        sources: list | None = None
        limit: int = 50

        @classmethod
        def class_name(cls) -> str:
            return "GpukbSectionCollapse"

        def _postprocess_nodes(self, nodes, query_bundle=None):
            found = collapse(nodes, self.sections, self.stand_in, self.area, self.limit,
                             meta=lambda n: n.node.metadata, score=lambda n: n.score, sources=self.sources)
            return [NodeWithScore(node=TextNode(id_=h.key, text=self.sections[h.key]["text"],
                                                metadata={"key": h.key}), score=h.score) for h in found]

    class HeadingRerank(BaseNodePostprocessor):
        """Field boost for question terms in heading paths (see :func:`heading_rerank`)."""

        sections: Any = Field(default_factory=dict)
        weight: float = 0.4
        owner: Any = None  # the Retriever: its sentence match joins the heading boost

        @classmethod
        def class_name(cls) -> str:
            return "GpukbHeadingRerank"

        def _postprocess_nodes(self, nodes, query_bundle=None):
            question = _bundle_question(query_bundle)
            by_key = {n.node.metadata["key"]: n for n in nodes}
            hits = [SectionHit(n.node.metadata["key"], float(n.score or 0.0)) for n in nodes]
            if self.owner is not None:
                ranked = self.owner.rerank(hits, question, getattr(query_bundle, "embedding", None))
            else:
                ranked = heading_rerank(hits, question, self.sections, self.weight)
            return [by_key[h.key] for h in ranked]

    def _reordered(owner: Retriever, nodes, rank: Callable[[list[SectionHit]], list[SectionHit]]):
        """Section nodes in the order ``rank`` gives their hits; a section it adds becomes a node of its own."""
        by_key = {n.node.metadata["key"]: n for n in nodes}
        ranked = rank([SectionHit(k, float(n.score or 0.0)) for k, n in by_key.items()])
        sections = owner.index.sections
        return [by_key.get(h.key) or NodeWithScore(node=TextNode(id_=h.key, text=sections[h.key]["text"],
                                                                 metadata={"key": h.key}), score=h.score)
                for h in ranked]

    class AskedParts(BaseNodePostprocessor):
        """The best section of each further asked part follows the lead (see :meth:`Retriever._with_parts`)."""

        owner: Any = None
        area: str | None = None
        sources: list | None = None
        depth: int = 10

        @classmethod
        def class_name(cls) -> str:
            return "GpukbAskedParts"

        def _postprocess_nodes(self, nodes, query_bundle=None):
            return _reordered(self.owner, nodes, lambda hits: self.owner._with_parts(
                hits, _bundle_question(query_bundle), self.area, self.sources, self.depth))

    class DefiningFirst(BaseNodePostprocessor):
        """A question that only names a thing leads with the section that defines it (see
        :meth:`Retriever._defining_first`)."""

        owner: Any = None
        area: str | None = None
        sources: list | None = None

        @classmethod
        def class_name(cls) -> str:
            return "GpukbDefiningFirst"

        def _postprocess_nodes(self, nodes, query_bundle=None):
            return _reordered(self.owner, nodes, lambda hits: self.owner._defining_first(
                hits, _bundle_question(query_bundle), self.area, self.sources))

    _CLASSES = (GpukbRetriever, SectionCollapse, HeadingRerank, AskedParts, DefiningFirst)
    return _CLASSES
