"""Text normalisation shared by retrieval, BM25, the KB vocabulary, answers and
recipe matching: one tokenizer, one stemmer, one stopword list.

* :func:`words` splits text into lowercase word tokens (the pattern BM25 uses).
* :func:`terms` gives content terms: word tokens without stopwords, stemmed
  with the Snowball English stemmer (PyStemmer, the stemmer bm25s uses), plus
  compound names such as ``nvidia.com/gpu`` or ``scale-down-delay-after-add``
  kept whole, so a question that names one matches it exactly.
* :func:`keyword_query` drops chat filler ("hey, can someone tell me...")
  before a question reaches the keyword retriever.

``TERMS_VERSION`` is stored with every index vocabulary; bump it whenever
:func:`terms` changes so stored vocabularies are recomputed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

__all__ = [
    "PROBLEM",
    "STOPWORDS", "CHAT_FILLER", "TERMS_VERSION", "WORD_PATTERN",
    "words", "stem", "terms", "keyword_query", "stemmer", "bm25_stopwords", "mask_negated",
    "POINTS_BELOW", "POINTS_ABOVE", "OTHER_LANGUAGES", "other_language_words", "english_only_words",
]

TERMS_VERSION = 5

# Function words and words that carry no topic in a platform question.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both but by
can could did do does doing down during each few for from further had has have having he her here hers how i if in into
is it its itself just me more most my no nor not now of off on once only or other our out over own same she should so
some such than that the their them then there these they this those through to too under until up very was we were what
when where which while who whom why will with would you your yours im ive dont doesnt cant whats hows pls please thanks
get got use using want need make one two k8s kubernetes
aren isn wasn weren didn hasn haven hadn couldn shouldn wouldn mustn needn
""".split())

# Languages a question may mix in with English ("Wie kann ich die Pods nur auf A100 nodes schedulen?"): their
# function words, from the stopword lists llama-index ships (NLTK's corpus), tell a question written partly in
# another language from one about another system.
OTHER_LANGUAGES = ("german", "spanish", "french", "italian", "portuguese", "dutch")


def other_language_words() -> frozenset[str]:
    """The function words of :data:`OTHER_LANGUAGES` that are no English function word (empty when the
    stopword lists are not installed)."""
    return _function_words()[0]


def english_only_words() -> frozenset[str]:
    """English function words that no language of :data:`OTHER_LANGUAGES` writes as one of its own ("the",
    "which", "should"; not "in", "no", "die")."""
    return _function_words()[1]


@lru_cache(maxsize=1)
def _function_words() -> tuple[frozenset[str], frozenset[str]]:
    import importlib.util
    from pathlib import Path

    # (the top-level package's spec, so that nothing is imported: "llama_index.core" would import its parent)
    try:
        spec = importlib.util.find_spec("llama_index")
    except (ImportError, ValueError):
        spec = None
    found: set[str] = set()
    for root in (spec.submodule_search_locations or []) if spec else []:
        for lang in OTHER_LANGUAGES:
            path = Path(root) / "core" / "_static" / "nltk_cache" / "corpora" / "stopwords" / lang
            if path.is_file():
                found.update(w for w in path.read_text(encoding="utf-8").split() if len(w) >= 2)
    return frozenset(found - STOPWORDS), frozenset(STOPWORDS - found)


# Chat filler: words that name no topic in a chat question ("how do I give a
# pod one GPU"). BM25 would weight them as rare terms; the vector side keeps
# the full question.
CHAT_FILLER = frozenset("""
give gives giving one ones make makes let lets want wants need needs use using used get gets getting got put set
run runs running way ways best thing things stuff work works working help know like just also really actually ok
okay eg etc any anything able possible please pls plz thanks thx hi hey guys someone somebody correct right proper
properly tell explain mean means doing done go going
""".split())

# Word tokens, as bm25s and llama-index's BM25Retriever split text.
# "below" and "above" point at other text ("see below", "the table above", "described above.")
# unless a quantity or a thing compared follows ("is below `--threshold`", "usage above its quota",
# "Kubernetes below 1.25"): these patterns match the pointing use only.
_COMPARED = (r"(?!\s*(?:[\d`$~<>*]|(?:its|their|our|your|his|her|a|an|zero|one|two|what|which|that|this|those|"
             r"these|the\s+(?:threshold|limit|value|quota|request|capacity|nominal|deserved|default|minimum|"
             r"maximum|target|node's|pod's))\b))")
POINTS_BELOW = r"below" + _COMPARED
POINTS_ABOVE = r"above" + _COMPARED

WORD_PATTERN = r"(?u)\b\w\w+\b"
_WORD = re.compile(WORD_PATTERN)
# Tokens that may be compound names: nvidia.com/gpu, mig-1g.10gb, max_replicas.
_TOKEN = re.compile(r"[a-z0-9][a-z0-9./_-]*[a-z0-9]|[a-z0-9]")
_PARTS = re.compile(r"[./_-]+")


# Snowball keeps a final "s" after "u" (status, corpus), which would leave
# "GPUs" apart from "GPU". Plural accelerator acronyms are singular first.
_ACRONYM_PLURALS = {"gpus": "gpu", "cpus": "cpu", "tpus": "tpu", "npus": "npu", "dpus": "dpu", "vcpus": "vcpu",
                    "hcas": "hca", "nics": "nic"}


_MODEL_PLURAL = re.compile(r"^[a-z]{1,3}\d+[a-z]?s$")


class Stemmer:
    """The Snowball English stemmer (PyStemmer) with the acronym plurals above.

    It has PyStemmer's ``stemWord``/``stemWords`` interface, so bm25s and
    llama-index's BM25 retriever use it as they would PyStemmer itself."""

    def __init__(self) -> None:
        import Stemmer as _pystemmer

        self._snowball = _pystemmer.Stemmer("english")

    def stemWord(self, word: str) -> str:  # noqa: N802 (PyStemmer's name)
        word = _ACRONYM_PLURALS.get(word, word)
        if _MODEL_PLURAL.match(word):  # "a100s", "h100s", "t4s": GPU model names in the plural
            return word[:-1]
        return self._snowball.stemWord(word)

    def stemWords(self, words: list[str]) -> list[str]:  # noqa: N802
        return [self.stemWord(w) for w in words]


@lru_cache(maxsize=1)
def stemmer() -> Stemmer:
    """The one stemmer, shared by terms() and BM25."""
    return Stemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return stemmer().stemWord(word)


def bm25_stopwords() -> list[str]:
    """The stopword list handed to bm25s when it tokenizes the corpus."""
    return sorted(STOPWORDS)


def words(text: str) -> list[str]:
    """Lowercase word tokens (letters, digits, underscore; two or more)."""
    return _WORD.findall(text.lower())


# A message about a problem: a symptom, an error, something that does not happen.
PROBLEM = re.compile(r"\b(?:stuck|fail\w*|error\w*|never|not|no|doesn'?t|don'?t|didn'?t|won'?t|wont|can'?t|cant|"
                     r"cannot|isn'?t|pending|crash\w*|killed|evicted|hangs?|hanging|slow|rejected|denied|wrong|"
                     r"broken|keeps?|forever|deadlock\w*|oom\w*|unschedulable|timed?\s*out|timeout)\b", re.I)


def terms(text: str) -> list[str]:
    """Normalised content terms.

    Plain words are stemmed; a compound name such as
    ``scale-down-gpu-utilization-threshold`` or ``nvidia.com/gpu.memory``
    counts as itself (unstemmed) and as its stemmed parts; a two-word
    hyphenated compound (``pre-installed``, ``time-slicing``) also as the
    stemmed joined word, the way people often write it.
    """
    out: list[str] = []
    for t in _TOKEN.findall(text.lower()):
        if t in STOPWORDS:
            continue
        if _PARTS.search(t):
            out.append(t)
            parts = _PARTS.split(t)
            out.extend(stem(p) for p in parts if len(p) >= 2 and p not in STOPWORDS)
            if len(parts) == 2 and "-" in t and all(p.isalpha() for p in parts):
                out.append(stem("".join(parts)))  # "pre-installed" also meets "preinstalled"
        elif len(t) >= 2:
            out.append(stem(t))
    return out


_SPACE = re.compile(r"\S+")
_NEGATED = re.compile(r"\b(?:without|not|no|never|instead of|rather than|except|other than|non)\s+"
                      # "we do not run volcano": the verb between is not what is ruled out, its object is
                      r"(?:(?:run|use|want|need|have|install|deploy|get)\s+)?"
                      r"(?:the\s+|a\s+|an\s+|any\s+|using\s+)?([\w./-]+)", re.I)


# "KEDA isn't installed on that cluster", "we don't have volcano": what is ruled out, named first or
# after a negated verb with its contraction
_RULED_OUT = re.compile(r"(?<![\w./-])([\w./-]+)(?:\s+(?:itself|here|there))?\s+(?:is|are)(?:\s+not|n['\u2019]t)\s+"
                        r"(?:even\s+|yet\s+)?(?:installed|available|an\s+option|allowed|supported|present|deployed|enabled|"
                        r"running|there)\b"
                        r"|\b(?:don|doesn|didn|can|won)['\u2019]t\s+(?:run|use|want|need|have|install|deploy|get)\s+"
                        r"(?:the\s+|a\s+|an\s+|any\s+)?([\w./-]+)", re.I)


def mask_negated(text: str) -> str:
    """``text`` with the word each negation governs blanked out ("gang scheduling
    without volcano" -> "gang scheduling without        ", "KEDA isn't installed"),
    so that word does not count as something asked for. Offsets are preserved."""
    def blank(m: re.Match[str]) -> str:
        g = 1 if m.group(1) else 2
        a, b = m.start(g) - m.start(0), m.end(g) - m.start(0)
        return m.group(0)[:a] + " " * (b - a) + m.group(0)[b:]

    text = _RULED_OUT.sub(blank, text)
    return _NEGATED.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + " " * len(m.group(1)), text)


def keyword_query(question: str) -> str:
    """The question without chat filler, for the keyword retriever."""
    kept = [w for w in _SPACE.findall(question) if w.lower().strip(".,;:!?()[]'\"") not in CHAT_FILLER]
    return " ".join(kept) or question


# a line pasted from a terminal, a log or a manifest: indented, a log record, or a table of kubectl
# output (columns apart by runs of spaces)
_PASTED_LINE = re.compile(r"^(?:[ \t]+\S|\S*\s*(?:\d{4}-\d\d-\d\d|[IEWF]\d{4}\s)|[^\n]*\S\s{3,}\S)")


def sub_questions(question: str, min_terms: int = 3) -> list[str]:
    """The separate questions of one message ("Volcano or Kueue for gang scheduling? And is it worth
    running both?"): its own words split after each question mark, keeping the questions (the parts
    that end with one; "... at once? ideally one node at a time" asks one thing) with at least
    ``min_terms`` terms. One part (or none) for a single question."""
    parts = [p.strip() for p in re.split(r"(?<=\?)\s+", asked_words(question)) if p.strip()]
    return [p for p in parts if p.endswith("?") and len(set(terms(p))) >= min_terms]


# A list item's marker: "1)", "(2)", "3.", "b)", "(c)", "Q4:" at a line's start or after a space.
_ITEM_MARK = re.compile(r"(?:^|(?<=\s))(?:\((\d{1,2}|[a-h])\)|(\d{1,2}|[a-h])\)|(\d{1,2})\.(?!\d)|Q(\d{1,2})[:.)])\s+",
                        re.I | re.M)
# What a question opens with when it has no question mark ("1) how do I size /dev/shm").
_ASKING = re.compile(r"^\W*(?:how|what|whats|why|which|where|when|who|can|could|should|shall|is|are|does|do|did|"
                     r"will|would|any|explain|tell|must|has|have)\b", re.I)


# A fenced block (``` ... ```, or to the end when it is never closed).
_FENCE = re.compile(r"```.*?(?:```|$)", re.S)


def fence_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` has fenced blocks."""
    return [m.span() for m in _FENCE.finditer(text)]


def counting_run(marks: list[re.Match[str]], label: Callable[[re.Match[str]], str],
                 min_len: int = 2) -> list[re.Match[str]]:
    """The markers of a list that count up 1, 2, 3 ... (or a, b, c ...), by each marker's ``label``: the
    first run of at least ``min_len`` (a later "1" starts again while the run is shorter)."""
    run: list[re.Match[str]] = []
    for m in marks:
        k = label(m).lower()
        n = int(k) if k.isdigit() else ord(k) - ord("a") + 1
        if n == len(run) + 1:
            run.append(m)
        elif n == 1:
            run = [m] if len(run) < min_len else run
    return run


def listed_questions(question: str, min_items: int = 2) -> tuple[str, list[str]]:
    """The questions a message lists ("three quick MPS questions: 1) can it run on MIG? 2) can I cap
    memory per pod? 3) does something run on the node for it?"): what comes before the list (its
    topic, which later items lean on: "it") and each item that asks something (ends with a question
    mark or opens like a question), when the markers count up from 1 (or a). A list of options
    ("(a) plain quotas (b) Kueue") asks nothing of its own and gives no items."""
    prose = asked_words(question)
    run = counting_run(list(_ITEM_MARK.finditer(prose)), lambda m: next(g for g in m.groups() if g), min_items)
    if len(run) < min_items:
        return "", []
    items = []
    for i, m in enumerate(run):
        end = run[i + 1].start() if i + 1 < len(run) else len(prose)
        text = prose[m.end():end].strip()
        if i + 1 == len(run):
            # the last item ends at its question mark or its line; what follows is the message's own
            q = re.search(r"\?", text)
            text = text[:q.end()] if q else text.split("\n", 1)[0]
        text = " ".join(text.split())
        if text.endswith("?") or _ASKING.match(text):
            items.append(text)
    if len(items) < min_items or len(items) * 2 < len(run) + 1:
        return "", []
    lead_in = " ".join(prose[:run[0].start()].split())
    return lead_in, items


def asked_words(question: str) -> str:
    """The question without what it pastes (fenced blocks, indented or log-shaped lines)."""
    text = _FENCE.sub(" ", question)
    return "\n".join(ln for ln in text.splitlines() if not _PASTED_LINE.match(ln))
