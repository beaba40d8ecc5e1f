"""Choosing recipes for a piece of text: BM25 over recipe metadata plus keyword phrases."""

from __future__ import annotations

import re
from typing import Any

from ..text import STOPWORDS, WORD_PATTERN, mask_negated, stem, words
from .extract import _FENCE, _GPU_MODELS, _singular, fence_pastes, is_field_name
from .foreign import load_yaml
from .model import Recipe, library_of

__all__ = ["match_recipes", "wants_manifest", "recipe_search_text", "tokenize"]

# Words that ask for a manifest but name no recipe.
_REQUEST_WORDS = frozenset({
    "please", "give", "need", "want", "yaml", "manifest", "example", "sample", "create", "make",
    "write", "generate", "show", "per", "x",
})


# ("to" before a verb marks an infinitive, not a place: "we'd like to try Kueue")
_MODIFIER = re.compile(r"\b(?:in|on|into|onto|to(?!\s+(?:try|use|set|run|get|have|make|create|deploy|add|enable|"
                       r"configure|install|put|give|keep|limit|cap|restrict|move|switch|migrate|adopt|start|build|"
                       r"write|define|spin)\b)|from|under|behind)\s+(?:the\s+|a\s+|an\s+|our\s+|my\s+)?"
                       r"(?:[\w.-]+\s+)?$"
                       # "through the Kueue queue" is a path; "through DRA", "via MPS" (no article) the means asked for
                       r"|\b(?:through|via)\s+(?:the|a|an|our|my|their)\s+(?:[\w.-]+\s+)?$", re.I)
# "scale my vllm deployment", "reads our existing configmap": an object the user already has is
# what the asked-for object works on, not the object asked for
_REFERENCE = re.compile(r"\b(?:(?:my|our|your|their|existing)\s+(?:own\s+|existing\s+)?|"
                        # "autoscale deployment llama-chat": what a scaling verb scales is the target
                        r"(?:auto-?)?scal(?:e|es|ing)\s+(?:up\s+|out\s+)?(?:the\s+|a\s+|an\s+)?)(?:[\w.-]+\s+)?$", re.I)
# "cluster policy where the MIG manager reads ...": a relative clause describes the object named before it
_RELATIVE = re.compile(r"\b(?:where|which|whose|so\s+that)\b[^,;:.()]*$", re.I)
# "fine-tune ... with NVLink topology awareness": the words describing a feature after "with"; the
# first word stays whole ("with vllm", "with an HPA" name the tool) and so does a count ("with one gpu")
_WITH = re.compile(r"\bwith\s+(?:(?:the|an?|some)\s+)?(?!(?:the|an?|some)\s|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten)\b)"
                   r"[\w.-]+\s+(?:[\w.-]+\s+)?$", re.I)
# "pytorchjob ... (gang scheduled through volcano)": an aside in brackets qualifies what precedes it
_ASIDE = re.compile(r"\([^()]*$")
# "... name tgi-falcon. also add a HorizontalPodAutoscaler": an extra object after the spec of the main one
_ALSO = re.compile(r"\b(?:also|plus|additionally|as\s+well\s+as|on\s+top)\s*,?\s+(?:(?:add|include|create|want|need|"
                   r"throw\s+in|give\s+me|with)\s+)?(?:an?\s+|the\s+|some\s+)?(?:[\w.-]+\s+)?$", re.I)
# "three workers, each pod with 4 H100s": what each member gets describes the members already named
_EACH = re.compile(r"\b(?:each|every|per)\s+$", re.I)
# "Prometheus for us lives at http://...": a thing the user already runs, described, not asked for
_EXISTING_AFTER = re.compile(r"(?:\s+(?:for\s+us|for\s+me|here|already|itself))?\s+(?:lives|runs|sits|is\s+(?:running|deployed|"
                             r"installed|already|at|in|on|reachable)|are\s+(?:running|deployed|installed|already))\b", re.I)
# a name the user gives is a value, never a recipe's keyword: "job name ddp-spread", "called 'vllm-a'"
_GIVEN_NAME = re.compile(r"(\b(?:named|called|name)\b\s*[:=]?\s*)[\"'`]?[A-Za-z0-9][\w./-]*|[\"'`][^\"'`\s]+[\"'`]", re.I)
_MODIFIER_WEIGHT = 0.4
_WORD_RX = re.compile(WORD_PATTERN)
_LATE_DISCOUNT = 0.5  # a phrase at the very end of a request weighs half
_HEAD_BONUS = 3.0  # the object asked for is usually named first: "HPA for the triton deployment"
# a request opening with the object's name alone, then a colon or a dash: "ClusterPolicy - ...", "mig: ..."
# (or a relative clause: "cluster policy where the MIG manager reads ..."); a generic last word
# ("timeslicing config:") is part of the head
_BOUND_HEAD = re.compile(r"^\W*(?:an?\s+|the\s+)?([\w./-]+(?:\s+[\w./-]+){0,2}?)"
                         r"(?:\s+(?:config|configuration|setup|spec|yaml|manifest|object|resource))?"
                         r"\s*(?::|\s-\s|\s+(?:where|whose|in\s+which)\b)")
_BOUND_BONUS = 10.0
# the opening of a request before its object: greetings, a verb of making or wanting, an article
_OPENING = re.compile(r"^\W*(?:(?:summary|title|subject)\s*:\s*)?(?:(?:hey|hi|hello|ok|okay|so|pls|plz|please)\W+)*"
                      r"(?:(?:can|could|would|will)\s+(?:you|u|someone)\s+)?(?:pls\s+|please\s+)?"
                      r"(?:(?:i|we)\s+(?:need|want|would\s+like)\s+|(?:need|want)\s+|"
                      r"(?:create|make|write|generate|build|draft|produce|set\s+up|configure|deploy|define|add|"
                      r"render|give|show)\s+(?:me\s+|us\s+)?)?"
                      r"(?:an?\s+|the\s+|one\s+|some\s+|new\s+)*", re.I)
_OBJECT_BONUS = 2.0
_NAMED_KIND_BONUS = 10.0
# after a kind's noun: its name given ("Deployment name x", "deployment named x", "Job: x")
_KIND_NAMED = re.compile(r"(?:\s+(?:name[ds]?|called)\b(?:\s*(?:is|=|:))?|[ \t]*:[ \t]*(?=[a-z0-9][\w.-]*[ \t]*(?:$|[,;\n])))",
                         re.I | re.M)
_TARGET_BONUS = 10.0  # "move to MPS": what the request changes to, over what it describes from before
_ASKED_KIND = re.compile(r"\b(?:give|write|create|generate|produce|make|render|draft|build|need|want|"
                         r"(?:translate|convert|port|turn|change|rewrite)\s+(?:it|this|that|them|these)\s+(?:in)?to|"
                         r"(?:as|into)(?=\s+(?:an?|the)\s))\s+(?:me\s+|us\s+)?(?:the|a|an|its|our|one)\s+"
                         r"(?:(?:equivalent|same|matching|corresponding|new|gpukb|kubernetes|k8s|proper)\s+)*", re.I)
# ... when its keyword is the whole noun: what follows starts a description of it, not a longer noun
_NOUN_END = re.compile(r"\s*(?:$|[,:;(]|\s-\s|(?:with|that|which|where|whose|for|in|on|using)\b)", re.I)


def tokenize(text: str) -> list[str]:
    """Recipe-matching tokens: the shared word tokens and stemmer (:mod:`gpukb.text`)."""
    return [stem(w) for w in words(text) if w not in STOPWORDS and w not in _REQUEST_WORDS]


def recipe_search_text(recipe: Recipe) -> str:
    """Title, description, keywords, kinds and example requests, for search indexes."""
    parts = [recipe.title, recipe.description, " ".join(recipe.keywords), " ".join(recipe.kinds)]
    parts += [str(e.get("request", "")) for e in recipe.examples if e.get("request")]
    return "\n".join(p for p in parts if p)


_COUNT_BEFORE = re.compile(r"(?:\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen|several|many)"
                           r"\s+(?:[a-z][\w-]*\s+)?)$", re.I)


def _dicts(obj: Any):
    """Every mapping inside a nested structure of mappings and lists."""
    stack = [obj]
    while stack:
        t = stack.pop()
        if isinstance(t, dict):
            yield t
            stack.extend(t.values())
        elif isinstance(t, list):
            stack.extend(t)


def _fields(templates: Any) -> set[str]:
    """The camelCase field names (eight letters or more) a recipe's templates render."""
    return {k for t in _dicts(templates) for k in t if isinstance(k, str) and is_field_name(k)}


# "forbid LoadBalancer services": what a request forbids is not what it asks for
_FORBIDDEN = re.compile(r"\b(?:forbid|disallow|prohibit|ban|block|deny|prevent)(?:s|ed)?\s+(?:the\s+|any\s+|all\s+)?"
                        r"([\w./-]+(?:\s+(?!and\b|or\b|from\b|to\b)[\w./-]+)?)", re.I)
# a tool the request turns away from: "the review rejected time-slicing", "moving away from volcano",
# "time-slicing isn't giving us isolation", "MIG didn't work for us": what it was, not what it asks for
_REJECTED = re.compile(r"\b(?:rejected|ruled\s+out|abandon(?:ed|ing)?|ditch(?:ed|ing)?|got\s+rid\s+of|"
                       r"(?:moving|move|moved|migrating|migrate)\s+(?:away\s+)?(?:off|away\s+from)|retir(?:e|ed|ing)|"
                       # "I'd prefer MPS over time-slicing", "MPS rather than time-slicing": what is passed over
                       r"prefer(?:s|red|ring)?\s+[\w./-]+\s+(?:over|to)|rather\s+than|instead\s+of)\s+"
                       r"(?:the\s+|our\s+|plain\s+)?([\w./-]+)"
                       r"|\b([\w./-]+)\s+(?:(?:is|was|has)\s*n['\u2019]?t|(?:is|was|does|did|has)\s+not|(?:does|did)n['\u2019]t)\s+"
                       r"(?:been\s+)?(?:giving|give|working|work|cutting\s+it|enough|good\s+enough|an\s+option|acceptable|"
                       r"isolat\w*|help\w*|fit\w*|scal\w*)\b"
                       # "time-slicing gives no memory isolation": what a tool lacks is why it is not asked for
                       r"|\b([\w./-]+)\s+(?:gives|offers|provides|has)\s+(?:no|zero)\b", re.I)


def _blank_object(rx: re.Pattern[str], text: str) -> str:
    """``text`` with the word each match of ``rx`` governs (its first group that matched) blanked
    out, offsets kept: what is forbidden or turned away from is not asked for."""
    def blank(m: re.Match[str]) -> str:
        g = next(i for i in range(1, (rx.groups or 0) + 1) if m.group(i) is not None)
        a, b = m.start(g) - m.start(0), m.end(g) - m.start(0)
        return m.group(0)[:a] + " " * (b - a) + m.group(0)[b:]
    return rx.sub(blank, text)


_PASTED_WEIGHT = 6.0
_PASTED_KIND_BONUS = 3.0
_YAML_LINE = re.compile(r"^\s*(?:-\s+)?[\w./-]+:(?:\s|$)")


def _pasted_manifest(text: str) -> tuple[str | None, set[str]] | None:
    """The kind and field names of a manifest pasted into a request (a fenced block, or three
    or more lines that read as YAML), or None. A Pod spec without its kind ("spec: containers:")
    is read as a Pod."""
    import yaml

    blocks = _FENCE.findall(text)
    if not blocks:
        lines = [ln for ln in text.splitlines() if _YAML_LINE.match(ln)]
        blocks = ["\n".join(lines)] if len(lines) >= 3 else []
    # a manifest, not a ticket's "Summary:" and "- queue: x" lines
    if not any(re.search(r"^\s*(?:apiVersion|kind|metadata|spec)\s*:", b, re.M) for b in blocks):
        return None
    keys: set[str] = set()
    kind = None
    for block in blocks[:4]:
        try:
            docs = [d for d in load_yaml(block, many=True) if isinstance(d, dict)]
        except yaml.YAMLError:
            continue
        for d in docs:
            keys.update(k for t in _dicts(d) for k in t if isinstance(k, str))
            if kind is None:
                spec = d.get("spec")
                kind = d.get("kind") if isinstance(d.get("kind"), str) else (
                    "Pod" if isinstance(spec, dict) and "containers" in spec else None)
    return (kind, keys) if keys else None


def _template_keys(templates: Any) -> set[str]:
    """Every field name a recipe's templates render (template directives left out)."""
    out: set[str] = set()
    for t in _dicts(templates):
        out.update(k for k in t if isinstance(k, str) and not k.startswith("$"))
        # a key computed by $object ("nvidia.com/gpu" or "nvidia.com/mig-<profile>") is a field too
        for item in t["$object"] if isinstance(t.get("$object"), list) else []:
            keys: list[Any] = [item.get("key")] if isinstance(item, dict) else []
            while keys:
                k = keys.pop()
                if isinstance(k, str):
                    out.add(k)
                elif isinstance(k, dict):
                    keys.extend(v for kk, v in k.items() if kk in ("then", "else"))
    return out


# "one-GPU pod", "8-gpu", "multi-node": a count or a prefix joined by a hyphen leaves the keyword whole
_JOINED_PREFIX = re.compile(r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|single|multi|dual|non|sub|half|full)-$",
                            re.I)


# ("as a Kubernetes pod", "into a plain Deployment": words that say which world the kind is of)
_KIND_QUALIFIER = re.compile(r"(?:(?:kubernetes|k8s|plain|regular|simple|normal|vanilla|native|standard)\s+)+", re.I)
_INTO_AT = re.compile(r"\b(?:to|into|as|onto|over\s+to)\s+(?:an?\s+|the\s+|our\s+|using\s+)?", re.I)
# (a change told in the past, "we moved to Karpenter last year. Now ...", leads only in the last sentence)
_CHANGE = re.compile(r"\b(?:move|moving|migrate|migrating|switch|switching|port|porting|translate|translating|"
                     r"convert|converting|turn|turning|rewrite|rewriting)\b|\bmoved\b(?![^.!?]*[.!?]\s)|"
                     # "do the same thing on k8s as a Deployment", "what's the Kubernetes equivalent, as a PyTorchJob?"
                     r"\bsame\s+thing\b|\bequivalent\b(?=\s*,?\s*(?:as|in)\s)",
                     re.I)
_INSTEAD = re.compile(r"\s(?:instead\s+of|rather\s+than|in\s+place\s+of)\s", re.I)
_CHOSE = re.compile(r"\b(?:(?:went|go|going|gone)\s+with|(?:decided|settled)\s+on|opted\s+for|chose|picked)\s+"
                    r"(?:the\s+|a\s+|an\s+)?", re.I)
_PREPOSITIONS = frozenset("across over on per in into between onto".split())
_MIG_PROFILE = re.compile(r"(?<![\w.])[1-7]g\.\d{1,3}gb(?![\w.])", re.I)
_MIG_BONUS = 3.0
# "cut every H100 into two 3g.40gb halves", "two 3g.40gb per GPU", "instances per GPU: three": with a MIG
# profile, a GPU divided is a partition layout, not a pod asking for a slice
_DIVIDE = re.compile(r"\b(?:cut|cutting|split|splitting|chop|chopping|carve|carving|divide|dividing|partition|partitioning)\s+(?:up\s+)?(?:(?:each|every|all|one|an?)"
                     r"\s+(?:of\s+)?)?(?:(?:the|our|their)\s+)?(?:[\w-]+\s+){0,2}?(?:gpus?|cards?|[ah]\d{2,3}s?|devices?)\b|"
                     r"\b(?:halves|in\s+half|(?:instances?|slices?|partitions?)?\s*per\s+(?:gpu|card)|layout)\b|"
                     # "can each card be cut into seven of the smallest pieces (1g.10gb)": the GPU said before
                     r"\b(?:cut|split|carved|divided|chopped|partitioned|sliced)\s+(?:up\s+)?into\b", re.I)
_DIVIDE_BONUS = 10.0


def _divides_gpu(text: str) -> bool:
    """Does ``text`` divide a GPU by a MIG profile (a partition layout is asked for)?"""
    return bool(_MIG_PROFILE.search(text) and _DIVIDE.search(text))
_SAME_WITH = re.compile(r"\b(?:the\s+)?same\s+(?:thing|one|setup|config(?:uration)?|again)?\s*,?\s*(?:but\s+)?"
                        r"(?:with|in|using|as|via)\s+(?:an?\s+|the\s+)?", re.I)
# "autoscale my deployment with KEDA", "share the cards using MPS", "slice them via MIG": after a verb
# that acts on what the user has (scaling, sharing, slicing), the tool named after "with"/"using"/"via"
# is the object asked for
_MEANS_VERB = re.compile(r"\b(?:auto-?scal\w*|scal(?:e|es|ing)|shar(?:e|es|ing)|split\w*|partition\w*|slic(?:e|es|ing)|"
                         r"monitor\w*|scrap(?:e|es|ing))\b[^.!?,;]{0,80}?\b(?:with|using|via)\s+(?:an?\s+|the\s+)?",
                         re.I)


def _keyword_at(rx: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of a keyword that is not the tail of a hyphenated name ("the ml-team namespace"
    names a namespace, it is no "team namespace")."""
    for m in rx.finditer(text):
        a = m.start()
        if a > 0 and text[a - 1] == "-" and a > 1 and text[a - 2].isalnum() and not _JOINED_PREFIX.search(text, 0, a):
            continue
        return m
    return None


def _several_kinds(templates: Any) -> set[str]:
    """Kinds the templates render more than once, or inside a ``$for`` loop."""
    seen: dict[str, int] = {}

    def walk(t: Any, looped: bool) -> None:
        if isinstance(t, dict):
            if isinstance(t.get("kind"), str) and "metadata" in t:
                seen[t["kind"].lower()] = seen.get(t["kind"].lower(), 0) + (2 if looped else 1)
            for v in t.values():
                walk(v, looped or "$for" in t)
        elif isinstance(t, list):
            for v in t:
                walk(v, looped)

    walk(templates, False)
    return {k for k, n in seen.items() if n > 1}


class _Index:
    def __init__(self, recipes: list[Recipe]):
        from ..bm25 import MemoryBM25

        self.recipes = recipes
        corpus = []
        for r in recipes:
            toks = tokenize(recipe_search_text(r)) + tokenize(r.title) + tokenize(" ".join(r.keywords))
            corpus.append(toks or ["_"])
        self.vocab = {t for doc in corpus for t in doc}
        self.bm25 = MemoryBM25(corpus)  # scores as bm25s.BM25 does, without importing it
        self.phrases: list[list[tuple[re.Pattern, float]]] = []
        # a keyword of one recipe only names that recipe; shared ones ("gpu") name none
        owners: dict[str, int] = {}
        for r in recipes:
            for kw in {k.strip().lower() for k in r.keywords}:
                owners[kw] = owners.get(kw, 0) + 1
        self.distinctive: list[list[bool]] = [[owners.get(kw.strip().lower(), 0) == 1 for kw in r.keywords]
                                              for r in recipes]
        # words of each recipe's keywords: a keyword right before another recipe's word only
        # qualifies it ("notebook pod": a pod for notebooks)
        # what each recipe can make several of: the words its parameters count ("4 workers")
        self.counted: list[set[str]] = [{_singular(w.lower()) for rules in r.extract.values() for rule in rules
                                         for w in (rule.get("count") or []) if isinstance(w, str)}
                                        for r in recipes]
        self.kind_words: list[set[str]] = [{k.lower() for k in r.kinds} for r in recipes]
        # the kind nouns each recipe renders ("pod", "config map", "nodepool"): a request that opens with
        # one asks for an object of that kind
        from .extract import kind_phrases

        kind_owner: dict[str, set[int]] = {}
        for i, r in enumerate(recipes):
            for k in r.kinds:
                for ph in kind_phrases(k):
                    kind_owner.setdefault(ph.lower(), set()).add(i)
        self.kind_owner = kind_owner
        param_names = [{p.lower() for p in (r.parameters.get("properties") or {})} for r in recipes]
        self.field_labels = {p.replace("_", " ") for names in param_names for p in names}
        # fields most objects carry ("namespace"): a kind's noun among them names no object
        self.common_fields = {p for names in param_names for p in names
                              if sum(p in other for other in param_names) * 4 > len(param_names)}
        # kinds by their own names ("Deployment", "cluster queue"), not their short or generic nouns ("cq", "pool")
        self.kind_names = {n for r in recipes for k in r.kinds
                           for n in (k.lower(), re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", k).lower())}
        # the one-word names of the kinds each recipe renders ("pvc", "sc"): "gpfs pvc" asks for a claim
        # the GPFS recipe makes itself
        self.kind_nouns: list[set[str]] = [{p.lower() for k in r.kinds for p in kind_phrases(k) if " " not in p}
                                           for r in recipes]
        self.kind_rx = re.compile(r"(" + "|".join(re.escape(p) for p in sorted(kind_owner, key=len, reverse=True))
                                  + r")(?:s|es)?\b", re.I) if kind_owner else None
        # the kinds a recipe renders more than one of ("two priority classes")
        self.several: list[set[str]] = [_several_kinds(r.templates) for r in recipes]
        self.kw_words: list[set[str]] = [{w for k in r.keywords for w in re.split(r"[\s-]+", k.lower())
                                          if w and w not in STOPWORDS} for r in recipes]
        # recipes that take a MIG profile ("3g.40gb"): a profile in a request names MIG, whatever else it says
        self.mig_aware = [bool(_MIG_PROFILE.search(str(r.properties) + str(r.extract) + str(r.examples)))
                          for r in recipes]
        # recipes that lay out how a GPU is partitioned (a keyword of partitioning)
        self.partitions = [any(re.search(r"\bpartition", k, re.I) for k in r.keywords) for r in recipes]
        models = "|".join(_GPU_MODELS)
        self.literals: list[list[str]] = []
        for r in recipes:
            pats = []
            lits: list[str] = []
            for kw in r.keywords:
                words = re.split(r"[\s-]+", kw.strip().lower())
                parts = []
                for w in words:
                    part = re.escape(w) + ("s?" if re.match(r"^[a-z]+$", w) else "")
                    if w in ("gpu", "gpus"):  # "pod with one A100": a count, and a GPU model is a GPU
                        part = (rf"(?:(?:\d+|one|two|three|four|eight|a|an|single|the)\s+)?(?:{part}|(?:{models})s?|"
                                r"mig\s+(?:slices?|devices?|instances?|partitions?))(?:\s+(?:cards?|accelerators?))?")
                    if w == "with":  # "pod with gpu" also reads "a pod spec that grabs two A100s"
                        # and "one pod, 2 GPUs" (one thing, then its count: "10 pods, 16 GPUs" counts two)
                        part = (r"(?:(?:[\w-]+\s+)?(?:with|using|(?:that|which|who)\s+(?:is\s+|are\s+)?(?:has|have|gets?|"
                                r"grabs?|uses?|using|needs?|needing|requests?|requesting|wants?|takes?))|"
                                r"(?<![sS]),(?=\s*(?:\d+|one|two|four|eight|a|an|single)\s))")
                    if w in _PREPOSITIONS and w != words[-1]:  # "across nodes" also reads "across the nodes"
                        part += r"(?:\s+(?:the|all|multiple|several|many|our|its|their|both|two|2))?"
                    parts.append(part)
                body = r"[\s-]?".join(parts)
                pats.append((re.compile(rf"(?<![\w]){body}(?![\w])", re.I), 1.0 + 0.5 * (len(words) - 1)))
                # a word every match holds, to skip the pattern when the text lacks it (none when a word
                # stands for others: "gpu" for a model, "with" for a verb)
                plain = [w.rstrip("s") if len(w) > 3 else w for w in words
                         if w not in ("gpu", "gpus", "with") and re.fullmatch(r"[a-z0-9.]+", w)]
                lits.append(max(plain, key=len) if plain and len(plain) == len(words) else "")
            self.phrases.append(pats)
            self.literals.append(lits)
        # a manifest field only one recipe renders ("averageValue", "backoffLimitPerIndex") names it too
        fields = [_fields(r.templates) for r in recipes]
        field_owners: dict[str, int] = {}
        for fs in fields:
            for f in fs:
                field_owners[f] = field_owners.get(f, 0) + 1
        for i, fs in enumerate(fields):
            for f in sorted(fs):
                if field_owners[f] == 1 and f.lower() not in {k.lower() for k in recipes[i].keywords}:
                    self.phrases[i].append((re.compile(rf"(?<![\w.-]){re.escape(f)}(?![\w-])", re.I), 1.0))
                    self.literals[i].append(f.lower())
                    self.distinctive[i].append(True)

    def scores(self, text: str) -> list[float]:
        # the word overlap weighs a detail's words ("with NVLink topology awareness",
        # "where the MIG manager reads ...") as the keyword phrases do
        main: list[str] = []
        detail: list[str] = []
        for wm in _WORD_RX.finditer(_GPU_VALUE.sub(lambda m: " " * len(m.group(0)), text.lower())):
            word = wm.group(0)
            if word in STOPWORDS or word in _REQUEST_WORDS or word in _GPU_WORDS or _GPU_MEMORY.fullmatch(word):
                continue
            tok = stem(word)
            if tok in self.vocab:
                (detail if is_detail(text, wm.start()) or _WITH.search(text, 0, wm.start()) else main).append(tok)
        base = [0.0] * len(self.recipes)
        detail = list(dict.fromkeys(detail))  # a detail's repeated words tell no more
        for toks, weight in ((main, 1.0), (detail, _MODIFIER_WEIGHT)):
            if toks:
                base = [b + weight * float(x) for b, x in zip(base, self.bm25.get_scores(toks))]
        text = mask_given_names(text)  # a keyword inside a given name names no recipe
        out = []
        has_mig = bool(_MIG_PROFILE.search(text))
        divided = _divides_gpu(text)
        first: dict[int, int] = {}  # recipe -> where its first distinctive, unmodified keyword starts
        first_end: dict[int, int] = {}
        named: dict[int, int] = {}  # recipe -> where its first distinctive keyword starts, modified or not
        low = text.lower()
        for i, pats in enumerate(self.phrases):
            bonus = 0.0
            for j, (rx, w) in enumerate(pats):
                lit = self.literals[i][j]
                if lit and lit not in low:
                    continue
                m = _keyword_at(rx, text)
                if m:
                    # "... in the prod queue": a phrase after a preposition names where or
                    # with what, not the object asked for. The object is usually named
                    # first; later mentions are more often details of it.
                    modified = (is_detail(text, m.start()) or self._qualifies(i, text, m.end())
                                or self._many(i, text, m) or bool(_EXISTING_AFTER.match(text, m.end())))
                    where = _MODIFIER_WEIGHT if modified else 1.0
                    bonus += w * where * (1.0 - _LATE_DISCOUNT * m.start() / max(1, len(text)))
                    if self.distinctive[i][j] and not modified and m.start() < first.get(i, len(text) + 1):
                        first[i], first_end[i] = m.start(), m.end()
                    if self.distinctive[i][j] and len(m.group(0)) >= 4 and m.start() < named.get(i, len(text) + 1):
                        named[i] = m.start()
            out.append(float(base[i]) + 1.5 * min(bonus, 6.0) + (_MIG_BONUS if self.mig_aware[i] and has_mig else 0.0)
                       + (_DIVIDE_BONUS if divided and self.partitions[i] else 0.0))
        opening = _OPENING.match(text)
        if first:
            head = min(first.values())
            # the object of the opening verb, named by a whole noun ("ClusterPolicy with GDS ...",
            # "create a cluster policy that ...") is the object asked for, more surely than a head
            # named later; a feature keyword of another recipe after it describes it
            for i, at in first.items():
                if at == head:
                    whole = opening and head <= opening.end() and _NOUN_END.match(text, first_end[i])
                    out[i] += _HEAD_BONUS + (_OBJECT_BONUS if whole else 0.0)
        # "pod on the H100s please ...": the opening names a kind; the recipes that render it are asked for
        # (only when no keyword names the object there already)
        kind = self.kind_rx.match(text, opening.end()) if opening and self.kind_rx and (
            not first or min(first.values()) > opening.end()) else None
        if kind and _NOUN_END.match(text, kind.end()) or (kind and re.match(r"\s+(?:on|for|in|at|that|which|to)\b",
                                                                            text[kind.end():], re.I)):
            noun = kind.group(1).lower()
            for i in self.kind_owner.get(noun, ()):
                out[i] += self._kind_bonus(i, noun, _OBJECT_BONUS)
        elif self.kind_rx and not (opening and first and min(first.values()) <= opening.end()):
            # "... please give the equivalent ClusterPolicy", "translate it into a Karpenter NodePool": the
            # kind a later verb of making asks for is the object, when the opening named none
            for m in _ASKED_KIND.finditer(text):
                k = self.kind_rx.match(text, m.end())
                if k and (_NOUN_END.match(text, k.end()) or re.match(r"\s*[.!?]", text[k.end():])):
                    noun = k.group(1).lower()
                    for i in self.kind_owner.get(noun, ()):
                        out[i] += self._kind_bonus(i, noun, _OBJECT_BONUS)
                    break
        # "MPS sharing ... the operator is in gpu-system, drivers pre-installed": a recipe that renders every
        # kind another renders, and more, named by a keyword of its own, is asked for; the other one's
        # keywords are settings of the objects the two share
        for b in first:
            if self.kind_rx and self.kind_rx.match(text, first[b]):
                continue  # "storageclass ...": a kind's noun names no recipe of its own
            for a in range(len(out)):
                if a != b and out[a] > out[b] and self.kind_words[a] and self.kind_words[a] < self.kind_words[b] \
                        and not (a in first and first[a] <= (opening.end() if opening else 0) < first[b]):
                    out[b] = out[a] + 0.5
        # "pvc on our GPFS fs": a backend named only as a detail still names the recipe that renders the
        # claim on it, over the one named by the kind's noun alone ("pvc")
        for b, at in named.items():
            if b in first or (self.kind_rx and self.kind_rx.match(text, at)):
                continue
            for a in first:
                if self.kind_rx and self.kind_rx.match(text, first[a]) and out[a] > out[b] and self.kind_words[a] \
                        and self.kind_words[a] < self.kind_words[b]:
                    out[b] = out[a] + 0.5
        # "we want to move to MPS", "translating this into Volcano", "port it as a PyTorchJob": what a verb
        # of change leads to is the object asked for, whatever the request describes from before
        for i in self.targets(text) | self.means(text):
            out[i] += _TARGET_BONUS
        # "Deployment name llama70b-chat", "LeaderWorkerSet: ds-v3": the object's kind given with its name
        # says which kind is asked for, whatever the request's other words (tensor parallel, queues) suggest
        for i in self.named_kinds(text):
            out[i] += _NAMED_KIND_BONUS
        # "clusterpolicy: preinstalled driver, mig manager ...": a short head before a colon or dash
        # names the object; what follows are its settings, whichever recipes their words also name
        bound = _BOUND_HEAD.match(text)
        if bound:
            bound_head = bound.group(1).strip()
            # "vc queue batch-low: ...": the object's name may follow its noun in the head
            heads = {bound_head, re.sub(r"\s+[\w.]*(?:-[\w.]*|\d)[\w.-]*$", "", bound_head)}
            for i, pats in enumerate(self.phrases):
                if any(self.distinctive[i][j] and any(rx.fullmatch(h) for h in heads)
                       for j, (rx, _w) in enumerate(pats)):
                    out[i] += _BOUND_BONUS
        return out

    def targets(self, text: str) -> set[int]:
        """Recipes named right after a verb of change and "to"/"into"/"as" ("move to MPS"), or after
        "the same thing with" ("same thing with KEDA please"); else right before "instead of" or after
        a verb of choice."""
        # where a keyword may start: right after "to"/"into"/"as" that a verb of change leads up to
        starts = [m.end() for m in _SAME_WITH.finditer(text)]
        if _CHANGE.search(text):
            starts += [m.end() for m in _INTO_AT.finditer(text) if _CHANGE.search(text, max(0, m.start() - 160), m.start())]
        return self._keyword_at(text, starts) or self._chosen_instead(text)

    def _keyword_at(self, text: str, starts: list[int]) -> set[int]:
        """Recipes with a keyword that starts at one of ``starts`` (or after the words there that say which
        world the kind is of: "as a plain Deployment", "into a Kubernetes pod")."""
        starts = starts + [q.end() for at in starts if (q := _KIND_QUALIFIER.match(text, at))]
        return {i for i, pats in enumerate(self.phrases) if any(rx.match(text, at) for at in starts for rx, _w in pats)}

    def _chosen_instead(self, text: str) -> set[int]:
        """Recipes whose keyword ends right before "instead of" ("want MPS instead of timeslicing",
        "Volcano rather than the default scheduler") or follows a verb of choice ("we went with MPS"):
        what is chosen over something else is asked for."""
        out: set[int] = set()
        for m in _INSTEAD.finditer(text):
            lo = max(0, m.start() - 40)
            words = [w.start() for w in re.finditer(r"(?<![\w./-])\w", text[lo:m.start()])]
            for i, pats in enumerate(self.phrases):
                if any((hit := rx.match(text, lo + at)) and not text[hit.end():m.start()].strip()
                       for at in words for rx, _w in pats):
                    out.add(i)
        # "Time-slicing or MPS? We went with MPS since ...": a choice said with its verb
        return out | self._keyword_at(text, [m.end() for m in _CHOSE.finditer(text)])

    def named_kinds(self, text: str) -> set[int]:
        """Recipes whose kind the request gives with the object's name ("Deployment name x", "ClusterQueue: y");
        a kind several recipes render ("Job", "Pod") says too little, and one that is a field of most
        objects ("namespace: interns") names no object."""
        out: set[int] = set()
        if not self.kind_rx:
            return out
        for m in self.kind_rx.finditer(text):
            noun = m.group(1).lower()
            named = _KIND_NAMED.match(text, m.end())
            if not named or (m.start() and text[m.start() - 1] not in " \n\t(>-*"):
                continue
            if named.group(0).lstrip().startswith(":") and noun in self.field_labels:
                continue  # "local queue: inference-lq" in a form: a field of the object, not its kind
            owners = self.kind_owner.get(noun, ())
            if len(owners) == 1 and noun in self.kind_names and noun not in self.common_fields:
                out |= set(owners)
        # "kubectl get hpa chat-queue -n chat should show ...": a command on one object of a kind names it
        from .extract import _KUBECTL_GET, _KUBECTL_SHORT

        # (looked at, not acted on: "kubectl autoscale deployment x" is about the deployment an HPA scales;
        # a kind that recipes take as a parameter, like the deployment an autoscaler targets, says too little)
        for m in _KUBECTL_GET.finditer(text):
            if not re.match(r"kubectl\s+(?:-n\s+\S+\s+)?(?:get|describe)\b", m.group(0), re.I):
                continue
            res = m.group("res").lower()
            kind = _KUBECTL_SHORT.get(res, res[:-1] if res.endswith("s") and res[:-1] in self.kind_owner else res)
            owners = self.kind_owner.get(kind, ())
            if len(owners) == 1 and kind not in self.field_labels and kind.replace(" ", "") not in self.field_labels:
                out |= set(owners)
        return out

    def means(self, text: str) -> set[int]:
        """Recipes whose own keyword names the tool of a verb of scaling, sharing or slicing."""
        starts = [m.end() for m in _MEANS_VERB.finditer(text)]
        return {i for i, pats in enumerate(self.phrases) for j, (rx, _w) in enumerate(pats)
                if self.distinctive[i][j] and any(rx.match(text, at) for at in starts)} if starts else set()

    def pasted_bonus(self, i: int, kind: str | None, keys: set[str]) -> float:
        """How well a manifest pasted into the request fits recipe ``i``: the share of its
        field names the recipe's templates render, and whether the recipe renders its kind."""
        if not hasattr(self, "_all_keys"):
            self._all_keys = [_template_keys(r.templates) for r in self.recipes]
        share = len(keys & self._all_keys[i]) / max(1, len(keys))
        if not kind or kind.lower() not in self.kind_words[i]:
            return _PASTED_WEIGHT * share
        return _PASTED_WEIGHT * share + self._kind_bonus(i, kind.lower(), _PASTED_KIND_BONUS)

    def _kind_bonus(self, i: int, noun: str, bonus: float) -> float:
        """The bonus for asking for a kind recipe ``i`` renders: whole for the recipe named for that
        kind ("gpu pod", "pod with gpu"), half for one that also renders it."""
        return bonus if noun in self.kw_words[i] else bonus / 2

    def _qualifies(self, i: int, text: str, end: int) -> bool:
        """Does the keyword of recipe ``i`` ending at ``end`` qualify the noun after it, a word of
        another recipe's keywords and of none of its own ("jupyter notebook pod")?"""
        # "sharded gpu job": "gpu" or a GPU model between says what the object uses; the noun after is its head
        generic = "|".join(["gpus?", "nvidia", *(rf"{g}s?" for g in _GPU_MODELS)])
        m = re.match(rf"(?:[\s-](?:{generic})(?![\w-]))*[\s-]([a-z][\w]*)([\w.-]*)", text[end:end + 40], re.I)
        if not m or m.group(1).lower() in STOPWORDS or m.group(1).lower() in _REQUEST_WORDS:
            return False
        head = re.sub(r"[\s-]", "", text[max(0, end - 30):end].lower())
        verb = not any(head.endswith(k) for k in self.kind_words[i])  # "autoscale", not "priority class"
        if re.search(r"\d", m.group(2)) or (verb and re.match(r"-[a-z]", m.group(2), re.I)):
            # "resourceclaimtemplate mig-2g", "autoscale vllm-mixtral": a name given to the object, not a noun
            # it qualifies
            return False
        w = m.group(1).lower()
        stem_w = w[:-1] if w.endswith("s") and len(w) > 3 else w
        if {w, stem_w} & (self.kw_words[i] | self.kind_words[i] | self.kind_nouns[i]):
            return False  # "DRA pod": the recipe makes that kind of object itself
        return any({w, stem_w} & words for j, words in enumerate(self.kw_words) if j != i)

    def _many(self, i: int, text: str, m: re.Match) -> bool:
        """Does the keyword of recipe ``i`` at ``m`` name several of its object ("8 training pods with
        gpus") when the recipe makes one, counting nothing of that name? Then it describes the objects
        another recipe makes."""
        first = re.match(r"[a-z]+", m.group(0).lower())
        if not first or not first.group(0).endswith("s") or len(first.group(0)) < 4:
            return False
        noun = _singular(first.group(0))
        if noun in self.counted[i] or noun + "s" in self.counted[i]:
            return False
        joined = re.sub(r"[\s-]", "", m.group(0).lower())
        if any(joined.startswith(k.rstrip("s")) for k in self.several[i]):
            return False  # "three priorityclasses": the recipe renders several of them
        return bool(_COUNT_BEFORE.search(text, 0, m.start()))


def is_detail(text: str, at: int) -> bool:
    """Is the word at ``at`` a detail of the object asked for rather than that object: after a
    preposition ("in the prod queue"), an object the user already has ("my vllm deployment"),
    inside a relative clause ("... where the MIG manager reads") or an aside in brackets?"""
    return bool(_MODIFIER.search(text, 0, at) or _REFERENCE.search(text, 0, at) or _RELATIVE.search(text, 0, at)
                or _ASIDE.search(text, 0, at) or _EACH.search(text, max(0, at - 8), at)
                or (at > 0 and _ALSO.search(text, max(0, at - 40), at) is not None))


def mask_given_names(text: str) -> str:
    """``text`` with the names the user gives blanked out (same length, so offsets hold)."""
    def blank(m: re.Match) -> str:
        keep = m.group(1) or ""
        return keep + "_" * (len(m.group(0)) - len(keep))
    return _GIVEN_NAME.sub(blank, text)


# an image reference ("jupyter/pytorch-notebook:latest") is a value; its words name no recipe
_IMAGE_REF = re.compile(r"(?<![\w./:-])[a-z0-9][\w.-]*(?:/[\w.-]+)+:[\w.-]+(?![\w/:])", re.I)


# "we don't want the dcgm exporter", "won't run volcano": what is not wanted names no recipe
_NOT_WANTED = re.compile(r"\b(?:don'?t|do\s+not|does\s+not|doesn'?t|won'?t|will\s+not|no\s+need\s+(?:for|to))\s+"
                         r"(?:want|need|use|run|deploy|install|have|get)?\s*(?:the\s+|a\s+|an\s+|any\s+)?"
                         r"([\w./-]+(?:\s+(?!(?:in|on|for|with|and|or|but|so|to|from|of|at)\b)[\w./-]+)?)", re.I)


# "two A100 80GB cards": a memory size right after a GPU model is part of the model's name (no MIG profile)
_MODEL_SIZE = re.compile(r"(\b(?:" + "|".join(_GPU_MODELS) + r")s?[\s-]*)(\d+\s*gb)\b", re.I)


# a GPU model or product label ("A100", "NVIDIA-A100-SXM4-80GB", "H100s", "80GB") is a value of any recipe
# that places or counts GPUs: its words weigh nothing in the word overlap ("A100 nodes only" asks for no MIG
# layout); keyword phrases still read a model as a GPU ("pod with one A100")
_GPU_VALUE = re.compile(r"(?<![\w./-])(?:nvidia-[a-z0-9][\w.-]*\d[\w.-]*|tesla-[a-z0-9][\w.-]*)(?![\w./-])", re.I)
_GPU_WORDS = frozenset([*_GPU_MODELS, *(m + "s" for m in _GPU_MODELS)])
_GPU_MEMORY = re.compile(r"\d+gb")


def mask_values(text: str) -> str:
    """``text`` with image references, GPU models' memory sizes and what is not wanted blanked out
    (same length)."""
    text = _IMAGE_REF.sub(lambda m: " " * len(m.group(0)), text)
    text = _MODEL_SIZE.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    return _NOT_WANTED.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + " " * len(m.group(1)), text)


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
    from .spelling import correct_words

    text = fence_pastes(text)
    raw = text
    pasted = _pasted_manifest(text)
    if pasted is not None:  # the pasted manifest is scored by its fields, the words around it by theirs
        text = _FENCE.sub(" ", text) if _FENCE.search(text) else "\n".join(
            ln for ln in text.splitlines() if not _YAML_LINE.match(ln))
    text = _blank_object(_FORBIDDEN, mask_values(_blank_object(_REJECTED, mask_negated(
        correct_words(normalise_text(text), recipes)))))
    text = _without_reasons(text)
    idx = _index_for(recipes)
    scores = idx.scores(text)
    if pasted is not None:
        # "this is our time-slicing config today ... we want to move to MPS": the paste is what runs
        # now; when the words name what it changes to, the paste names no recipe
        targets = idx.targets(text)
        scores = [s + (idx.pasted_bonus(i, *pasted) if not targets or i in targets else 0.0)
                  for i, s in enumerate(scores)]
    if pasted is None:
        scores = _values_named(recipes, raw, scores)
        scores = _kind_asked(recipes, text, scores)
    scores = _named_tool_first(recipes, text, scores)
    scores = [0.0 if r.named_only and not _names_recipe(r, raw) else s for r, s in zip(recipes, scores)]
    ranked = sorted(range(len(recipes)), key=lambda i: (-scores[i], recipes[i].id))
    return [(recipes[i], round(scores[i], 4)) for i in ranked[:k] if scores[i] > 0.0]


_PLAIN_KINDS = frozenset({"Pod", "Service", "Deployment", "Job", "ConfigMap", "Namespace", "PersistentVolumeClaim",
                          "Secret", "Ingress", "ServiceAccount"})


def _names_recipe(recipe: Recipe, text: str) -> bool:
    """Does ``text`` (a paste included) say one of the recipe's keywords or tools, or a kind it renders?"""
    if isinstance(recipe.named_only, str) and re.search(recipe.named_only, text):
        return True
    phrases = [*recipe.keywords, *recipe.tools, *(k for k in recipe.kinds if k not in _PLAIN_KINDS)]
    # (a phrase's words may be split by a hyphen or a line break, "Leader-worker set", its last word plural or
    # compounded: "the new resource claims", "ResourceClaim-based")
    return any(re.search(r"(?<![\w-])" + r"[\s-]+".join(map(re.escape, p.split())) + r"(?:e?s)?(?!\w)", text, re.I)
               for p in phrases if p.strip())


# the key of a pasted chart value or settings line: "healthPath: /health", "replicas: 2"
_VALUE_KEY = re.compile(r"^[ \t]*([A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*)[ \t]*[:=][ \t]*\S", re.M)
_GENERIC_KEYS = frozenset({"name", "namespace"})
MIN_VALUE_KEYS = 3


def _values_named(recipes: list[Recipe], text: str, scores: list[float]) -> list[float]:
    """Pasted chart values or settings (no manifest: "replicas: 2", "healthPath: /health", "port: 8080")
    whose keys, three or more besides name and namespace, are all parameters of one recipe name that
    recipe (of several that have them all, the best-scoring one)."""
    keys = {re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", k).replace("-", "_").lower() for k in _VALUE_KEY.findall(text)}
    keys -= _GENERIC_KEYS
    if len(keys) < MIN_VALUE_KEYS:
        return scores
    having = [i for i, r in enumerate(recipes) if keys <= set(r.properties)]
    if not having:
        return scores
    pick = max(having, key=lambda i: scores[i])
    out = list(scores)
    out[pick] = max(scores) + 0.01
    return out


_KIND_ASKED = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\s+(?:YAML|yaml|manifests?|objects?|resources?|CRs?|specs?)\b")


def _kind_asked(recipes: list[Recipe], text: str, scores: list[float]) -> list[float]:
    """"write the real Queue YAML for it", "the PodGroup manifest": a kind asked for by its own name is
    the recipe that renders it with the fewest other kinds (when that is one recipe)."""
    out = list(scores)
    for m in _KIND_ASKED.finditer(text):
        having = [i for i, r in enumerate(recipes) if m.group(1) in r.kinds]
        if not having:
            continue
        fewest = min(len(set(recipes[i].kinds)) for i in having)
        smallest = [i for i in having if len(set(recipes[i].kinds)) == fewest]
        if len(smallest) == 1 and out[smallest[0]] > 0.0:
            out[smallest[0]] = max(out) + 0.01
            break
    return out


def _named_tool_first(recipes: list[Recipe], text: str, scores: list[float]) -> list[float]:
    """"autoscale with keda on GPU utilization": a request that names a recipe's tool (``tools``), and
    no tool of the best-scoring recipe of the same area, asks for the recipe of the tool it names; the
    words it shares with the other ("autoscale", "metric") say what either would do."""
    if not recipes or max(scores) <= 0.0:
        return scores
    best = max(range(len(recipes)), key=lambda i: scores[i])
    said = _tools_named(text, recipes)
    if best in said:
        return scores
    named = [i for i in said if recipes[i].area == recipes[best].area and scores[i] > 0.0]
    if not named:
        return scores
    pick = max(named, key=lambda i: scores[i])
    out = list(scores)
    out[pick] = scores[best] + 0.01
    return out


def _tools_named(text: str, recipes: list[Recipe]) -> set[int]:
    """The recipes whose tool ``text`` names (negations already masked: "not keda" names none)."""
    return {i for i, r in enumerate(recipes)
            if any(re.search(rf"(?<![\w/.-]){re.escape(t)}(?![\w/-])", text, re.I) for t in r.tools)}


def _without_reasons(text: str) -> str:
    """``text`` with a ticket's labelled reason or context ("Context: the interns start in June and we
    only have budget for 2 GPUs for the whole cohort. Put a quota on ...") blanked: the words of why are
    not the words of what, so they name no recipe, as long as something is left that does."""
    from .extract import _STATE_LABEL, _state_spans

    if not _STATE_LABEL.search(text):
        return text
    spans = [(a, b) for a, b in _state_spans(text) if _STATE_LABEL.match(text, a)]
    out = text
    for a, b in spans:
        out = out[:a] + " " * (b - a) + out[b:]
    return out if len(re.findall(r"[A-Za-z]{3,}", out)) >= 3 else text


def target_ids(text: str, recipes: list[Recipe]) -> set[str]:
    """Ids of the recipes a verb of change leads to ("move to MPS", "translate it into Volcano"), or
    whose kind the request gives with the object's name ("Deployment name llama-chat")."""
    from .extract import normalise_text

    idx = _index_for(recipes)
    norm = normalise_text(text)
    named = {recipes[i].id for i in idx.named_kinds(norm)}
    # the one recipe of an area whose tool is named ("autoscale with keda"), when no other of it is
    tooled = _tools_named(mask_negated(norm), recipes)
    for i in tooled:
        if not any(j != i and recipes[j].area == recipes[i].area and set(recipes[j].tools) != set(recipes[i].tools)
                   for j in tooled):
            named.add(recipes[i].id)
    # "cut every H100 into two 3g.40gb halves": a GPU divided by a MIG profile asks for the partition layout
    if _divides_gpu(norm):
        named |= {recipes[i].id for i, p in enumerate(idx.partitions) if p}
    return named | change_target_ids(text, recipes)


def change_target_ids(text: str, recipes: list[Recipe]) -> set[str]:
    """Ids of the recipes a verb of change leads to ("move to MPS", "convert to a Deployment + Service")."""
    from .extract import normalise_text

    if not _CHANGE.search(text):
        return set()
    return {recipes[i].id for i in _index_for(recipes).targets(mask_given_names(normalise_text(text)))}


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
# "give me ...", "can you show us ...": not "what does DRA actually give us" (a question about it)
_HAND_OVER = re.compile(r"(?:^|[.!?,;:(]\s*|\b(?:please|pls|plz|and|then|just|you|u|to)\s+)"
                        r"(?:give|show|send|paste|share)\s+(?:me|us)\b", re.I)
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
