"""The answering engine: retrieve, decide whether the KB covers the question,
compose a cited answer, and attach recipes and a manifest when asked for.

An :class:`Engine` loads the embedding model and opens the index once; ``ask``
can then be called many times (the CLI's JSON Lines mode, the app, the bot).
``ask_stream`` yields the answer text as a streaming generator (a language
model) writes it, then the final :class:`Answer`.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator

from .config import Settings, load_settings

__all__ = ["Engine", "Answer", "Citation"]

log = logging.getLogger(__name__)

# a question about Kubernetes itself (its objects and tools), not only about another system
_ABOUT_KUBERNETES = re.compile(r"\b(?:kubernetes|k8s|kubectl|pods?|kueue|volcano|pytorchjobs?|mpijobs?|jobsets?|indexed\s+jobs?|"
                               r"helm|namespaces?|crds?|karpenter|deployments?|manifests?|yaml|kubeflow|operator|"
                               # "moving from Slurm, what replaces sbatch --gres": a question about leaving it
                               r"(?:moving|migrating|coming|switching|porting)\s+(?:over\s+|away\s+)?from|"
                               r"equivalents?|replaces?|replacement|counterpart)\b", re.I)


# a question that sets Kubernetes aside ("on plain VMs without kubernetes", "docker only, no k8s", "on my
# laptop, no cluster"): the word negated stands alone, not as a noun's qualifier ("without kubernetes
# admin rights", "without a cluster autoscaler"); "from outside the cluster" is still about Kubernetes,
# and so is "on-prem, not on EKS" (another distribution set aside, not Kubernetes)
_ALONE = r"(?=\s*(?:$|[,.;:!?)\u2014\u2013-]|\s+(?:at\s+all|involved|anywhere|here|there)\b))"
_NOT_KUBERNETES = re.compile(r"\b(?:no|without|not\s+(?:on|in|using|with|via|through)|outside(?:\s+of)?|instead\s+of|"
                             r"rather\s+than)\s+(?:a\s+|any\s+)?(?:kubernetes|k8s)\b" + _ALONE +
                             r"|\b(?:no|without)\s+(?:a\s+|any\s+)?cluster\b" + _ALONE, re.I)


def _about_kubernetes(question: str) -> bool:
    from .text import mask_negated

    return bool(_ABOUT_KUBERNETES.search(mask_negated(question)))


# a sentence that sends the reader on for the rest of the answer: "See the next section", "The fix is in
# [Fix for Insufficient nvidia.com/gpu](#fix-...)" (a link into the same doc)
_NEXT_SECTION = re.compile(r"\b(?:the\s+)?next\s+section\b", re.I)
_SENDS_ON = re.compile(r"^\W*(?:see\b|for\s+(?:the\s+)?(?:fix|details|steps|how)\b|the\s+fix\s+is\s+in\b|fix(?:es)?\s+in\b)|"
                       + _NEXT_SECTION.pattern, re.I)
_LINK_TARGET = re.compile(r"\]\(((?![a-z][a-z0-9+.-]*:)[^)\s]*)\)", re.I)

SCOPE_NOTE = "gpukb writes Kubernetes manifests, not"  # how an answer to another tool's code request opens
REFUSAL = "I don't know: the gpukb knowledge base does not cover this."
# a later question of a message gets its own best section among this many of the first
SUB_QUESTION_DEPTH = 3
# ... and only when the KB answers that question on its own this far above the refusal threshold
SUB_QUESTION_MARGIN = 0.1
# a question asked among unrelated notes is answered on its own when it names at least this many terms
# and the KB covers it this far above the refusal threshold (Engine._asked_alone)
FOCUS_MIN_TERMS = 8
FOCUS_MARGIN = 0.1
# function words of another language (:func:`gpukb.text.other_language_words`), and of English alone, that make
# a question one that mixes the two
OTHER_LANGUAGE_MIN = 3


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
    generator: str = ""  # what wrote the answer: "extractive", "openai:MODEL", "extractive (fallback)"
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


def _asks_for_manifest(rmod, question: str, top_score: float) -> str | None:
    """``explicit`` for a request ("give me a ... yaml"), ``spec`` for a bare spec
    such as "volcano job, 4 workers x 8 GPUs, queue research" that matches a
    recipe well (it must then carry details, checked after extraction), else None."""
    if rmod.wants_manifest(question):
        return "explicit"
    if top_score >= 3.0 and not _QUESTION.search(question) and not _PASTED.search(question) \
            and not _STATEMENT.search(question):
        return "spec"
    return None


# A spec is a noun phrase of details; a clause about what the cluster does or
# did ("the toolkit cant find the config", "leader finishes but workers run
# forever", "LowerPriority vs LowerOrNewerEqualPriority") describes a situation
# or asks for a comparison; "so a node dying only kills one" gives a purpose.
_STATEMENT = re.compile(
    r"\b(?:is|are|was|were|isn'?t|aren'?t|doesn'?t|don'?t|didn'?t|can'?t|cannot|can not|won'?t|wont|never|"
    r"keeps?|stays?|still|but|vs\.?|versus|i|we|it|they|has|have|had|got|gets|says?|shows?|works?|"
    r"changed|stopped|started|finishes|finished|burns|happily|instead|so|"
    # what goes wrong: a symptom reported ("kube-prometheus-stack ignores the dcgm servicemonitor")
    r"ignores|ignored|fails|failed|crashes|crashed|hangs|hung|breaks|broke|misses|missed|drops|dropped|rejects|"
    r"rejected|evicts|evicted|restarts|loops|errors|refuses|refused|times\s+out|timed\s+out)\b", re.I)


def _near_known(word: str, vocab: Any) -> bool:
    """Is ``word`` one edit (a letter dropped, added, changed or two swapped)
    from a KB term? Words under five letters are left alone."""
    from .text import stem

    if len(word) < 5 or not word.isalpha():
        return False
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    cands = {a + b[1:] for a, b in splits if b}
    cands |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    cands |= {a + c + b[1:] for a, b in splits if b for c in letters}
    cands |= {a + c + b for a, b in splits for c in letters}
    return any(stem(c) in vocab for c in cands if c != word)


_REVIEWED = re.compile(r"^reviewed:\s*[\"']?(\d{4}-\d{2}-\d{2})", re.M)

# a ticket key as trackers write it: a project's capitals, a dash, a number ("MLPLAT-1423")
_TICKET_KEY = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]{1,11}-\d+(?![\w-])")

# Pasted cluster output is a symptom, never a spec.
_PASTED = re.compile(r"\b(?:insufficient|failedscheduling|nodes are available|untolerated|error|warning|"
                     r"backoff|crashloop|evicted|unschedulable|denied|forbidden|timeout|timed out)\b", re.I)

# Infrastructure-as-code tools gpukb does not write.
_OTHER_TOOLS = re.compile(
    r"\b(terraform|pulumi|cloudformation|aws cdk|cdk|ansible|bicep|arm template|crossplane composition|"
    r"opentofu|chef|puppet|salt ?stack)\b", re.I)
_WRITE = re.compile(r"\b(write|generate|give|create|make|need|want|module|program|playbook|stack|template|"
                    r"code|script|resource|provision)\b", re.I)


# a list in a message: "(jupyter, ollama, comfyui)", "llama.cpp, whisper.cpp and a comfyui pod" (a first word,
# then items of a word or two)
_ITEM = r"(?:an?\s+)?[\w.-]+(?:\s+(?!(?:and|or)\b)[\w.-]+)?"
_LIST = re.compile(rf"(?<![\w.-])(?!(?:and|or)\b)[\w.-]+(?:\s*,\s*(?:(?:and|or)\s+)?{_ITEM})+(?:\s*,?\s+(?:and|or)\s+{_ITEM})?"
                   rf"|(?<=\()\s*{_ITEM}\s+(?:and|or)\s+{_ITEM}(?=\s*\))", re.I)
_SEPARATOR = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.I)


def without_own_names(question: str, vocab: Any) -> str:
    """``question`` with the words the KB does not know blanked out of the names it gives the user's own
    things: the one-word items of a list of three or more, or of two in brackets ("(jupyter, ollama,
    comfyui)", "llama.cpp, whisper.cpp and a comfyui pod"). Such a name says what runs, not what is
    asked; a lone name ("keycloak-operator realms") may be what the question is about, and a list of
    phrases ("urgent retraining, scheduled research jobs") describes the work, so both stay."""
    from .text import STOPWORDS, asked_words, stem

    spans: list[tuple[int, int]] = []
    prose = asked_words(question)
    for m in _LIST.finditer(question):
        if re.search(r"[\"'`\[\]{}:=<>]", question[max(0, m.start() - 1):m.end() + 1]) or m.group(0) not in prose:
            continue  # a list in a pasted manifest, log or code: values, not names of the user's things
        parts, at = [], m.start()
        for sep in [*_SEPARATOR.finditer(question, m.start(), m.end()), None]:
            end = sep.start() if sep else m.end()
            item = re.match(r"\s*(?:an?\s+)?", question[at:end])
            parts.append((at + (item.end() if item else 0), end))
            at = sep.end() if sep else end
        # names are single tokens ("jupyter", "open-webui"); "urgent retraining" describes a kind of work
        single = [(a, b) for a, b in parts if len(question[a:b].split()) == 1]
        if len(single) >= 2 and (len(parts) >= 3 or "(" in question[max(0, m.start() - 2):m.start()]):
            spans += single
    out = question
    for a, b in spans:
        for w in re.finditer(r"\w\w+", question[a:b]):
            low = w.group(0).lower()
            if low not in STOPWORDS and stem(low) not in vocab:
                out = out[:a + w.start()] + " " * len(low) + out[a + w.end():]
    return out


# a lone zero in prose ("the node group is at 0", "scaled to 0"), not a ratio, a version or a size
_LONE_ZERO = re.compile(r"(?i:(?<=\bat )|(?<=\bto )|(?<=\bfrom )|(?<=\bsize )|(?<=\bis )|(?<=\bstays )|(?<=\bof ))"
                        r"0(?![\w/:%=-]|\.\d)")


def in_kb_words(question: str, vocab: Any, pairs: Any = frozenset()) -> str:
    """``question`` written in the words the KB uses for the same things: a word it runs together that the
    KB writes as two (``pairs``: "nodegroup", "nodepool": node group, node pool) is split, and a lone 0 is "zero"
    (what the KB says of node groups and replicas: "at 0", "scaled to 0", "min size 0", not "gpu: 0"). A
    retriever matches words; these are the same words. What a change left behind ("after moving from
    time-slicing to MIG") is left out: the question is about where it went."""
    from .text import stem

    def split(m: re.Match) -> str:
        word = m.group(0)
        low = word.lower()
        if stem(low) in vocab:
            return word
        cuts = [(min(i, len(low) - i), i) for i in range(3, len(low) - 2) if (low[:i], low[i:]) in pairs]
        if not cuts:
            return word
        i = max(cuts)[1]
        return f"{word[:i]} {word[i:]}"

    out = re.sub(r"(?<![\w./-])[A-Za-z]{7,}(?![\w./-])", split, question)
    out = _MOVED_FROM.sub(r"\1", out)
    return _LONE_ZERO.sub("zero", lay_words(out))


def lay_words(question: str) -> str:
    """``question`` with the KB's words beside the lay ones that mean the same ("my notebook can't see the
    graphics card": the KB says GPU; "the job keeps getting kicked off": preempted, evicted)."""
    for rx, kb in _LAY_TERMS:
        question = rx.sub(rf"\g<0> ({kb})", question)
    return question


# what people who do not work on clusters call the things the KB names, with the KB's words for them (added
# beside the user's, never in their place)
_LAY_TERMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(rx, re.I), kb) for rx, kb in (
    (r"\b(?:graphics|video)\s+cards?\b", "GPU"),
    (r"\b(?:kick(?:ed|s|ing)?|boot(?:ed|s)?|bump(?:ed|s)?|thrown|throw(?:s|n)?)\s+(?:off|out)\b", "preempted evicted"),
    (r"\b(?:won'?t|doesn'?t|never|do(?:es)?\s+not)\s+(?:even\s+)?start(?:s|ing)?\b|\bstuck\s+waiting\b|"
     r"\bsits?\s+(?:there\s+)?waiting\b", "Pending"),
    (r"\b(?:copies|instances)\s+of\s+(?:the\s+|my\s+|our\s+)?(?:model|server|service|api|app)\b", "replicas"),
    (r"\b(?:my|our|the\s+team'?s|our\s+team'?s)\s+(?:own\s+)?(?:space|area|corner)\s+(?:on|in)\s+the\s+cluster\b", "namespace"),
    (r"\bhog(?:s|ging|ged)?\b", "quota"),
    (r"\b(?:scratch\s+(?:space|disk)|local\s+disk)\b", "ephemeral storage"),
    (r"\bshared\s+(?:drive|folder|disk)\b", "ReadWriteMany volume"),
))


# "after moving from time-slicing to MIG", "we migrated from cluster-autoscaler over to Karpenter": what a
# change left behind (the words after "from") is no subject of the question; where it went is
_MOVED_FROM = re.compile(r"(?i)(\b(?:moving|moved|move|migrating|migrated|migrate|switching|switched|switch|going|went|"
                         r"transitioning|transitioned|porting|ported|upgrading|upgraded|changing|changed)\s+)"
                         r"from\s+(?:[^\s,.;:?!]+\s+){1,5}?(?=(?:to|onto|over\s+to)\s)")


def _collapse(text: str) -> str:
    """Blanked text tidied: no runs of spaces, no punctuation left alone between them."""
    text = re.sub(r"(?<!\S)[-.,_/]+(?!\S)", " ", text)
    text = re.sub(r"[ \t]+", " ", text)
    return re.sub(r"\(\s*[,\s]*\)", "", text).strip()


def other_tool(question: str) -> str | None:
    """The infrastructure-as-code tool a question asks gpukb to write for, if any."""
    m = _OTHER_TOOLS.search(question)
    if m and _WRITE.search(question):
        names = {"cdk": "AWS CDK", "aws cdk": "AWS CDK", "cloudformation": "CloudFormation", "opentofu": "OpenTofu"}
        return names.get(m.group(1).lower(), m.group(1).capitalize())
    return None


def _manifest_sentence(g: Any) -> str:
    """One sentence describing the attached manifest from its rendered parameters."""
    import json

    given = ", ".join(f"{k}={json.dumps(g.params.get(k))}" for k in g.used) or "the recipe defaults"
    extra = " Not understood: " + "; ".join(f'"{u}"' for u in g.unused) + "." if g.unused else ""
    return f"The attached manifest renders the `{g.recipe}` recipe ({g.title}) with {given}.{extra}"


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
        from .backends import embedder_for, generator_for
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
                                   weights=r.weights, heading_weight=r.heading_weight, rerank_depth=r.rerank_depth,
                                   part_slots=r.part_slots, sentence_weight=r.sentence_weight,
                                   ask_weight=r.ask_weight, symptom_weight=r.symptom_weight)
        a = self.settings.answer
        self.refuse_below = a.refuse_below
        self.oov_weight = a.oov_weight
        self.coverage_weight = a.coverage_weight
        self.common_oov_weight = a.oov_weight if a.common_oov_weight is None else a.common_oov_weight
        self.out_of_scope = list(a.out_of_scope)
        self.out_of_scope_margin = a.out_of_scope_margin
        self._outside: Any = None  # the out-of-scope topics' unit vectors, embedded on first use
        self._common_words: set[str] | None = None
        self._all_passing: set[str] | None = None
        self._word_pairs: frozenset[tuple[str, str]] | None = None
        self.generator = generator or generator_for(self.settings)
        self.today: Any = None  # the date staleness is judged on (None: today)
        self._reviewed_cache: dict[str, tuple[float, Any]] = {}

    @property
    def streams(self) -> bool:
        """Does the answer generator stream (see :meth:`ask_stream`)?"""
        return callable(getattr(self.generator, "stream", None))

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

    def _attach_recipes(self, ans: Answer, question: str, with_manifest: bool) -> Any:
        """Related recipes, and the generated manifest when the question asks for one."""
        from . import recipes as rmod
        from .errors import GpukbError

        recipes, problem = self.recipes()
        if problem:
            ans.notices.append(problem)
        if not recipes:
            return None
        matches = rmod.match_recipes(question, recipes, k=5)
        # Recipes that the best-matching KB sections explain rank first.
        top_docs = set(list(dict.fromkeys(ans.retrieved))[:3])
        ranked = sorted(matches, key=lambda m: -(m[1] * (1.5 if top_docs & set(m[0].docs) else 1.0)))[:3]
        ans.recipes = [{"id": r.id, "title": r.title} for r, _ in ranked]
        asked = _asks_for_manifest(rmod, question, ranked[0][1]) if ranked else None
        if not (with_manifest and asked):
            return None
        try:
            g = rmod.generate(question, [r for r, _ in ranked])
        except GpukbError as exc:  # e.g. a value in the question the recipe's schema rejects
            log.info("no manifest for %r: %s", question[:80], exc)
            if asked == "explicit":
                ans.notices.append(f"no manifest: {exc}")
            return None
        if asked == "spec" and (not g.used or len(g.unused) > 1):
            return None  # a bare phrase that carries no details is a question, not a spec
        ans.manifest = {"recipe": g.recipe, "params": g.params, "yaml": g.yaml, "valid": g.valid,
                        "issues": list(g.issues), "used": g.used, "unused": g.unused, "missing": g.missing}
        return g

    # -- answering ---------------------------------------------------------
    def confidence(self, question: str, top_vector: float, best: Any = None) -> float:
        """Evidence strength: the best chunk's cosine similarity, lowered by the
        share of the question's terms that appear nowhere in the KB and raised
        by the share that the best section (``best``, its text and headings)
        names. Similarity alone is fooled both ways: a Slack question with
        context words reads far from a section that covers it term by term, and
        an off-topic question on a neighbouring subject (Slurm, Jenkins) reads
        close to a section that names none of its topic words."""
        from .questions import FOREIGN_SHARE_REFUSE, NO_EVIDENCE, foreign_share
        from .text import terms

        if foreign_share(question) > FOREIGN_SHARE_REFUSE:
            return NO_EVIDENCE  # mostly another script: the KB is English, any match is on a few shared terms
        if _NOT_KUBERNETES.search(question):
            return NO_EVIDENCE  # a question about GPUs with Kubernetes set aside is outside a Kubernetes KB
        vocab = self.index.vocabulary
        # a tracker's ticket key ("MLPLAT-1423", "OPS-88") files the question; it is no word of its topic
        question = _TICKET_KEY.sub(" ", question)
        if vocab:
            question = without_own_names(question, vocab)
        qt = set(terms(question))
        rare, common = self._unknown_terms(question, vocab) if qt and vocab else (0, 0)
        oov = (self.oov_weight * rare + self.common_oov_weight * common) / len(qt) if qt else 0.0
        covered = 0.0
        if best is not None and qt and self.coverage_weight:
            named = set(terms(f"{best.title} {best.section} {best.text}"))
            # the words a doc only uses to name another system's concepts cover nothing ("gres" in a
            # Slurm-to-Kubernetes map does not answer how to write gres.conf), unless the question is
            # about Kubernetes too ("moving from Slurm, what replaces sbatch --gres")
            if not _about_kubernetes(question):
                named -= set(terms(" ".join(self._section_passing_terms(best))))
            covered = sum(1 for t in qt if t in named) / len(qt)
        return top_vector - oov + self.coverage_weight * covered

    def outside_scope(self, query_vector: Any, top_vector: float) -> bool:
        """Is the question nearer one of the configured out-of-scope topics (``answer.out_of_scope``:
        writing CUDA kernels, cloud billing, Ingress TLS ...) than to any chunk of the KB? A question
        next to the KB's subject reads close to it, and to a topic it is really about closer still."""
        if query_vector is None or not self.out_of_scope:
            return False
        import numpy as np

        if self._outside is None:
            m = np.asarray([self.embedder.embed_query(t) for t in self.out_of_scope], dtype=np.float32)
            self._outside = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        v = np.asarray(query_vector, dtype=np.float32)
        v = v / max(float(np.linalg.norm(v)), 1e-12)
        return float((self._outside @ v).max()) > top_vector + self.out_of_scope_margin

    def word_pairs(self) -> frozenset[tuple[str, str]]:
        """The pairs of words the KB writes next to each other ("node group"), read once from its sections."""
        if self._word_pairs is None:
            pairs: set[tuple[str, str]] = set()
            try:
                for sec in self.index.sections.values():
                    words = re.findall(r"[a-z]+", str(sec.get("text", "")).lower())
                    pairs.update(zip(words, words[1:]))
            except Exception as exc:  # an index without sections: no pairs
                log.info("no word pairs: %s", exc)
            self._word_pairs = frozenset(pairs)
        return self._word_pairs

    def passing_terms(self) -> set[str]:
        """Every doc's passing terms, normalised (read once)."""
        if self._all_passing is None:
            from .text import terms

            found: set[str] = set()
            try:
                for key in self.index.sections:
                    found.update(terms(" ".join(self.index.sections[key].get("passing_terms") or [])))
            except Exception as exc:  # an index without sections: no passing terms
                log.info("no passing terms: %s", exc)
            self._all_passing = found
        return self._all_passing

    def _section_passing_terms(self, best: Any) -> list[str]:
        """The passing terms of the doc the section ``best`` belongs to."""
        try:
            sec = self.index.sections.get(f"{best.doc_id}#{getattr(best, 'anchor', '')}")
        except Exception:  # an index without sections: nothing to leave out
            return []
        return list((sec or {}).get("passing_terms") or [])

    def common_words(self) -> set[str]:
        """Everyday words: the whole-word entries of the embedding model's
        vocabulary (empty when the model has no tokenizer file)."""
        if self._common_words is None:
            words: set[str] = set()
            path = getattr(self.embedder, "tokenizer_path", None)
            if path:
                try:
                    from tokenizers import Tokenizer

                    words = {w for w in Tokenizer.from_file(path).get_vocab()
                             if w.isalpha() and w.islower() and len(w) >= 2}
                except Exception as exc:  # an unreadable tokenizer: every unknown word counts as rare
                    log.info("no common-word list: %s", exc)
            self._common_words = words
        return self._common_words

    def _unknown_terms(self, question: str, vocab: Any) -> tuple[int, int]:
        """Question words the KB never uses: (rare, common). A word the KB lacks
        is a sign the question is about something else when it is a rare or
        technical word (slurm, hcsshim, pgbouncer), much less when it is
        everyday English (outage, everything), a misspelling of a KB word, or
        a word with digits in it."""
        from .text import STOPWORDS, english_only_words, other_language_words, stem, words

        common_words = self.common_words()
        # a question that mixes English with another language ("Wie stelle ich sicher that only GPU pods land
        # on die GPU-Knoten?"): its words the KB lacks are that language's, no sign of another topic; they weigh
        # as everyday words, and its function words not at all. (One written in another language alone, its
        # English only the names of things, is refused: the KB is English.)
        other, english = other_language_words(), english_only_words()
        said = words(question)
        mixed = sum(1 for w in said if w in other and stem(w) not in vocab) >= OTHER_LANGUAGE_MIN and \
            sum(1 for w in said if w in english) >= OTHER_LANGUAGE_MIN
        # a word the KB only names in passing ("gres" in a Slurm-to-Kubernetes map) is known when the
        # question is about Kubernetes too ("the k8s equivalent of --gres"); about that system alone
        # ("how do I write gres.conf") it weighs as two rare words: it names the other system's own topic
        passing = self.passing_terms()
        about_kubernetes = _about_kubernetes(question)
        rare = common = 0
        for w in set(words(question)):
            if w in STOPWORDS or stem(w) in vocab or (mixed and w in other):
                continue
            if stem(w) in passing or w in passing:
                rare += 0 if about_kubernetes else 2
                continue
            # A word with digits is a quantity, a size or a model number (140gb,
            # mi300x, team2): unknown to the KB says little about the topic.
            if mixed or w in common_words or any(ch.isdigit() for ch in w) or _near_known(w, vocab):
                common += 1
            else:
                rare += 1
        return rare, common

    def _retrieve(self, question: str, k: int | None, area: str | None, mode: str,
                  sources: list[str] | None = None) -> tuple[Answer, list[Any], float]:
        """Retrieve evidence (from ``sources`` only, when given); the answer is
        already a refusal when the KB does not cover the question."""
        import time

        from .errors import UsageError
        from .questions import check_question

        t0 = time.perf_counter()
        q = check_question(question)
        k = int(k or self.k)
        if k < 1 or k > 50:
            raise UsageError("--k must be between 1 and 50")
        vocab = self.index.vocabulary
        # retrieved without the names of the user's own things the KB does not know ("(jupyter, ollama,
        # comfyui)"): they pull the question's vector towards nothing the KB says
        plain = without_own_names(q, vocab) if vocab else q
        plain = _collapse(plain) if plain != q else q
        plain = in_kb_words(plain, vocab, self.word_pairs()) if vocab else plain
        got = self.retriever.retrieve(plain or q, k=k, area=area, mode=mode, sources=sources)
        # (the KB's words beside a lay one count as the question's: "kicked off" is covered where "preempted" is)
        confidence = self.confidence(lay_words(q), got.top_vector, got.evidence[0] if got.evidence else None)
        if confidence < self.refuse_below:
            got, confidence = self._asked_alone(q, got, confidence, k, area, mode, sources)
        got.evidence = self._with_sub_questions(plain or q, got.evidence, area, mode, sources)
        got.evidence = self._with_unit_similarity(got.evidence, got.query_vector)
        ans = Answer(question=q, answer="", refused=False, confidence=round(confidence, 4),
                     retrieved=[e.doc_id for e in got.evidence])
        if not got.evidence or confidence < self.refuse_below or self.outside_scope(got.query_vector, got.top_vector):
            self._refuse(ans, got.evidence)
            ans.seconds = round(time.perf_counter() - t0, 4)
        return ans, list(got.evidence), t0

    def _asked_alone(self, question: str, got: Any, confidence: float, k: int, area: str | None, mode: str,
                     sources: list[str] | None) -> tuple[Any, float]:
        """A long message that asks one thing among others ("Sprint notes: ... Oh, while I remember: is
        there a way to let prod inference preempt research pods? Anyway, retro is at 3pm"): its unrelated
        words dilute the match and count as words the KB lacks. When its asking sentences alone
        (:func:`gpukb.retrieval.asked_focus`) name their subject (``FOCUS_MIN_TERMS`` terms), are covered
        ``FOCUS_MARGIN`` above the refusal threshold and are nearer the KB than any out-of-scope topic, they
        are what is answered; otherwise the message's own retrieval stands."""
        from .questions import NO_EVIDENCE
        from .retrieval import asked_focus
        from .text import terms

        focus = asked_focus(question)
        # only a question that says on its own what it is about ("how do I roll the driver back?" leans on
        # the Windows laptop of its context), in a message that is no other system's (the context of
        # "no Kubernetes, just Docker Compose" or of a gaming PC puts it outside the KB)
        if not focus or len(set(terms(focus))) < FOCUS_MIN_TERMS or confidence <= NO_EVIDENCE or \
                self.outside_scope(got.query_vector, got.top_vector):
            return got, confidence
        vocab = self.index.vocabulary
        plain = without_own_names(focus, vocab) if vocab else focus
        alone = self.retriever.retrieve(plain or focus, k=k, area=area, mode=mode, sources=sources)
        if not alone.evidence:
            return got, confidence
        sure = self.confidence(focus, alone.top_vector, alone.evidence[0])
        if sure < self.refuse_below + FOCUS_MARGIN or self.outside_scope(alone.query_vector, alone.top_vector):
            return got, confidence
        return alone, sure

    def _with_unit_similarity(self, evidence: list[Any], query_vector: Any) -> list[Any]:
        """Each section's sentences scored by meaning against the question (``Evidence.unit_similarity``),
        so the answer generator can pick the sentence that answers it even when it shares few words."""
        import dataclasses

        similar = getattr(self.retriever, "unit_similarities", None)
        if query_vector is None or not evidence or not callable(similar):
            return evidence
        sims = similar(query_vector, [e.key for e in evidence])
        return [dataclasses.replace(e, unit_similarity=sims.get(e.key, ())) for e in evidence]

    def _with_sub_questions(self, question: str, evidence: list[Any], area: str | None, mode: str,
                            sources: list[str] | None) -> list[Any]:
        """Two questions in one message ("Time-slicing or MPS for this? And can a quota count the
        slices?"): the best section for each later question joins the first ones, since retrieval
        for the whole message favours whichever part has more words."""
        from .text import listed_questions, sub_questions

        if not evidence:
            return evidence
        lead_in, items = listed_questions(question)
        if items:
            return self._with_listed(lead_in, items, evidence, area, mode, sources)
        subs = sub_questions(question)
        if len(subs) < 2:
            return evidence
        out = list(evidence)
        for n, sub in enumerate(subs[1:], start=1):
            got = self.retriever.retrieve(sub, k=1, area=area, mode=mode, sources=sources)
            best = got.evidence
            # only a question the KB answers clearly on its own ("and how are driver upgrades rolled out?");
            # one that leans on the first ("is it worth running both?") finds nothing of its own
            if not best or self.confidence(sub, got.top_vector, best[0]) < self.refuse_below + SUB_QUESTION_MARGIN:
                continue
            if best[0].key not in {e.key for e in out[:SUB_QUESTION_DEPTH]}:
                out = [e for e in out if e.key != best[0].key]
                out.insert(min(n, len(out)), best[0])
        return out

    def _with_listed(self, lead_in: str, items: list[str], evidence: list[Any], area: str | None, mode: str,
                     sources: list[str] | None) -> list[Any]:
        """A message that lists its questions ("1) ... ? 2) ... ?"): the best section for each item, in the
        list's order, ahead of the rest. An item that leans on the list's topic ("can I cap memory with
        it?") is retrieved with the words before the list ("three quick MPS questions:")."""
        import dataclasses
        import re

        from .text import terms

        firsts: dict[str, Any] = {}
        for n, item in enumerate(items, start=1):
            query = item
            if lead_in and (len(set(terms(item))) < 4 or re.search(r"\b(?:it|its|this|that|these|those|them|they)\b",
                                                                  item, re.I)):
                query = f"{lead_in} {item}"
            got = self.retriever.retrieve(query, k=1, area=area, mode=mode, sources=sources)
            # (an item the KB does not answer on its own is left to the message's own retrieval)
            if got.evidence and self.confidence(query, got.top_vector, got.evidence[0]) >= self.refuse_below:
                best = firsts.get(got.evidence[0].key, got.evidence[0])
                firsts[best.key] = dataclasses.replace(best, answers=best.answers + (n,))
        return list(firsts.values()) + [e for e in evidence if e.key not in firsts]

    @staticmethod
    def _refuse(ans: Answer, evidence: list[Any]) -> None:
        ans.refused = True
        seen: list[str] = []
        for e in evidence:
            if e.title not in seen:
                seen.append(e.title)
        ans.closest = seen[:3]
        ans.citations = []
        ans.body = REFUSAL
        ans.answer = REFUSAL + (f"\nClosest topics: {'; '.join(ans.closest)}." if ans.closest else "")

    def _finish(self, ans: Answer, evidence: list[Any], composed: Any, with_manifest: bool, t0: float,
                tool: str | None = None, g: Any = None) -> Answer:
        import time

        ans.notices.extend(getattr(composed, "notices", None) or [])
        ans.generator = getattr(composed, "generator", "") or getattr(self.generator, "label", "") \
            or getattr(self.generator, "name", "")
        if getattr(composed, "refused", False):
            self._refuse(ans, evidence)
            ans.seconds = round(time.perf_counter() - t0, 4)
            return ans
        cites = []
        for n, idx in enumerate(composed.cited, start=1):
            e = evidence[idx]
            cites.append(Citation(n=n, doc_id=e.doc_id, title=e.title, section=e.section, path=e.path,
                                  source_urls=e.source_urls, anchor=e.anchor, area=e.area))
        ans.citations = cites
        body = composed.text
        if tool:
            if not ans.recipes:
                self._attach_recipes(ans, ans.question, with_manifest=False)
            closest = f" The closest manifest recipe is `{ans.recipes[0]['id']}` ({ans.recipes[0]['title']}), " \
                      f"which you can render with `gpukb recipe render {ans.recipes[0]['id']}`." if ans.recipes else ""
            body = f"{SCOPE_NOTE} {tool} code.{closest}\n\n{body}"
        elif g is not None:
            body = _manifest_sentence(g) + "\n\n" + body
        stale = self._stale_note(cites)
        if stale:
            body += "\n\n" + stale
        ans.body = body
        ans.answer = body + ("\n\n" + sources_block(cites) if cites else "")
        ans.seconds = round(time.perf_counter() - t0, 4)
        return ans

    def _reviewed(self, path: str) -> Any:
        """The ``reviewed`` date of the KB doc at ``path`` (relative to the
        project root), read from its front matter; None when it has none."""
        import datetime as dt
        import os

        full = self.settings.root / path
        try:
            mtime = os.stat(full).st_mtime
            hit = self._reviewed_cache.get(path)
            if hit and hit[0] == mtime:
                return hit[1]
            with open(full, encoding="utf-8", errors="replace") as fh:
                head = fh.read(4096)
        except OSError:
            return None
        m = _REVIEWED.search(head.split("\n---", 1)[0])
        try:
            when = dt.date.fromisoformat(m.group(1)) if m else None
        except ValueError:
            when = None
        self._reviewed_cache[path] = (mtime, when)
        return when

    def _stale_note(self, cites: list[Citation]) -> str:
        """One line naming cited docs last reviewed longer ago than ``kb.stale_after_days``."""
        import datetime as dt

        limit = self.settings.config.kb.stale_after_days
        today = self.today or dt.date.today()
        old: dict[str, tuple[list[int], Any]] = {}
        for c in cites:
            when = self._reviewed(c.path)
            if when is not None and (today - when).days > limit:
                old.setdefault(c.doc_id, ([], when))[0].append(c.n)
        if not old:
            return ""
        parts = [f"{''.join(f'[{n}]' for n in ns)} on {when.isoformat()}" for ns, when in old.values()]
        return (f"Possibly out of date: last reviewed {', '.join(parts)}, more than {limit} days ago; "
                f"check the linked upstream sources.")

    @_stamped
    def ask(self, question: str, *, k: int | None = None, area: str | None = None,
            mode: str = "hybrid", with_manifest: bool = True, sources: list[str] | None = None) -> Answer:
        ans, evidence, t0 = self._retrieve(question, k, area, mode, sources)
        if ans.refused:
            return ans
        tool, g = self._prepare(ans, with_manifest)
        evidence = self._with_pointed(self._manifest_docs_first(evidence, g))
        composed = self._compose(ans.question, evidence, g)
        return self._finish(ans, evidence, composed, with_manifest, t0, tool, g)

    def _with_pointed(self, evidence: list[Any]) -> list[Any]:
        """The section the lead section sends its reader on to ("The fix is gang scheduling ... See
        the next section", "see [the fix](#anchor)") follows the lead, marked as pointed at: the
        answer goes on where its author said it does."""
        import dataclasses

        if not evidence:
            return evidence
        lead = evidence[0]
        key = self._pointed_key(lead)
        if not key or key == lead.key:
            return evidence
        known = next((e for e in evidence if e.key == key), None)
        if known is not None:
            pointed = dataclasses.replace(known, pointed_from=lead.key)
        else:
            try:
                s = self.index.sections[key]
            except KeyError:
                return evidence
            if not str(s.get("text", "")).strip():
                return evidence
            from .backends.base import Evidence

            pointed = Evidence.from_section(key, s, score=lead.score, pointed_from=lead.key)
        ordered = [lead, pointed, *(e for e in evidence[1:] if e.key != key)]
        return [dataclasses.replace(e, rank=i) for i, e in enumerate(ordered)]

    def _pointed_key(self, lead: Any) -> str | None:
        """Where a sentence of ``lead`` that sends the reader on points: the next section of its doc,
        or the section of its doc its link names."""
        for sentence in re.split(r"(?<=[.!?])\s+", lead.text):
            if not _SENDS_ON.search(sentence):
                continue
            if _NEXT_SECTION.search(sentence):
                order = self._doc_order.get(lead.doc_id, [])
                at = order.index(lead.key) if lead.key in order else -1
                return order[at + 1] if 0 <= at < len(order) - 1 else None
            for target in _LINK_TARGET.findall(sentence):
                where, _, anchor = target.partition("#")
                if not where and anchor:  # a section of the same doc: the answer goes on there
                    return f"{lead.doc_id}#{anchor}"
            return None  # another doc's link is further reading (a Related link), not the rest of the answer
        return None

    @functools.cached_property
    def _doc_order(self) -> dict[str, list[str]]:
        """Each doc's section keys in document order."""
        order: dict[str, list[str]] = {}
        for key in self.index.sections:
            order.setdefault(key.split("#", 1)[0], []).append(key)
        return order

    def _prepare(self, ans: Answer, with_manifest: bool) -> tuple[str | None, Any]:
        """Before composing: is this a request for another tool's code, and is a
        manifest asked for (then the text must describe that manifest)?"""
        tool = other_tool(ans.question)
        g = None if tool else self._attach_recipes(ans, ans.question, with_manifest)
        return tool, g

    def _manifest_docs_first(self, evidence: list[Any], g: Any) -> list[Any]:
        """With a manifest attached, the text explains that manifest: sections of
        the docs its recipe names lead (in the recipe's order, then retrieval
        order), then the rest."""
        import dataclasses

        if g is None:
            return evidence
        recipes, _ = self.recipes()
        docs = list(next((r.docs for r in recipes if r.id == g.recipe), ()))
        # the recipe lists its docs main one first
        lead = sorted((e for e in evidence if e.doc_id in docs), key=lambda e: docs.index(e.doc_id))
        ordered = lead + [e for e in evidence if e.doc_id not in docs]
        if not lead or ordered == evidence:
            return evidence
        return [dataclasses.replace(e, rank=i) for i, e in enumerate(ordered)]

    def _compose(self, question: str, evidence: list[Any], g: Any) -> Any:
        if g is not None and getattr(self.generator, "name", "") == "extractive":
            return self.generator.compose(question, evidence, manifest_params=g.params)
        return self.generator.compose(question, evidence)

    def ask_stream(self, question: str, *, k: int | None = None, area: str | None = None,
                   mode: str = "hybrid", with_manifest: bool = True,
                   sources: list[str] | None = None) -> Iterator[str | Answer]:
        """Like :meth:`ask`, but yields text deltas while the generator writes
        (only a streaming generator does), then the final, checked
        :class:`Answer` last. The streamed text is provisional: show the final
        answer's ``body`` in its place."""
        ans, evidence, t0 = self._retrieve(question, k, area, mode, sources)
        if ans.refused:
            yield self.stamp(ans)
            return
        tool, g = self._prepare(ans, with_manifest)
        evidence = self._with_pointed(self._manifest_docs_first(evidence, g))
        composed = None
        stream = getattr(self.generator, "stream", None)
        if callable(stream):
            for item in stream(ans.question, evidence):
                if isinstance(item, str):
                    if item:
                        yield item
                else:
                    composed = item
        if composed is None:
            composed = self._compose(ans.question, evidence, g)
        yield self.stamp(self._finish(ans, evidence, composed, with_manifest, t0, tool, g))
