"""Filling recipe parameters from a plain-language request, without a language model.

Each recipe declares, per parameter, rules that say how the value shows up in
text (``extract:`` in the recipe file). Parameters with conventional names
(``name``, ``namespace``, ``image``, ``queue``, ``replicas``) get sensible
rules when the recipe declares none. Every candidate value is checked against
the parameter's JSON Schema before it is accepted, so a word that is not a
valid value for the parameter is skipped and the next candidate is tried.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterator

import yaml

from ..errors import GpukbError
from ..text import STOPWORDS, counting_run, fence_spans
from .foreign import (FENCED_BODY, GPUS_PER_INSTANCE, NOTE, READING_VERB, SETTINGS_FORMATS, _found_key, key_words, load_yaml,
                      translate)
from .model import Recipe
from .spelling import within_one_edit

__all__ = ["extract_params", "Extraction", "normalise_text", "parse_number", "parse_size", "unfenced_prose"]

_WORD_NUMBERS: dict[str, int] = {
    "zero": 0, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "a dozen": 12, "dozen": 12, "a pair of": 2, "pair of": 2, "a couple of": 2, "couple of": 2,
    "a hundred": 100, "one hundred": 100, "a thousand": 1000, "one thousand": 1000,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_UNITS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
for _t, _v in _TENS.items():  # "forty", "twenty-four", "sixty four"
    _WORD_NUMBERS[_t] = _v
    for _i, _u in enumerate(_UNITS, 1):
        _WORD_NUMBERS[f"{_t}-{_u}"] = _v + _i
        _WORD_NUMBERS[f"{_t} {_u}"] = _v + _i
_NUM = (r"(\d+|(?:" + "|".join(_TENS) + r")(?:[-\s](?:" + "|".join(_UNITS) + r")(?![\w-]))?|"
        + "|".join(sorted((re.escape(w) for w in _WORD_NUMBERS if not any(w.startswith(t) for t in _TENS)),
                          key=len, reverse=True)) + r")")

# words that are never values of a name-like parameter: the shared stopwords
# plus the nouns and verbs that frame a request
_STOP = set(STOPWORDS) | {
    "a", "an", "the", "to", "in", "on", "for", "with", "and", "or", "of", "my", "our", "your", "this", "that",
    "each", "per", "is", "are", "be", "at", "as", "by", "from", "into", "using", "use", "via", "it", "its",
    "gpu", "gpus", "node", "nodes", "pod", "pods", "job", "jobs", "worker", "workers", "named", "called",
    "name", "namespace", "queue", "image", "me", "please", "can", "you", "i", "we", "new", "called",
    "yaml", "manifest", "default", "which", "where", "should", "that's", "so", "but", "then", "also",
    "give", "make", "create", "write", "generate", "set", "up", "get", "need", "want", "like", "some",
    "all", "any", "no", "not", "only", "max", "min", "maximum", "minimum", "limit", "limits", "cap", "capped",
    "team", "tenant", "new", "called", "using", "across", "between", "than", "more", "less",
    "quota", "gets", "has", "have", "should", "must", "will",
    # verbs of change open what follows a label ("mig config: switch from ... to ..."): never a value
    "switch", "change", "move", "migrate", "convert", "update", "replace", "increase", "decrease", "bump", "raise",
}

# words that say how or when something is to be done ("set up the queue accordingly", "the deployment asap"):
# never the name of anything
_ADVERB = re.compile(r"[a-z]{3,}(?:ally|ately|ingly|edly|ctly|ordingly|erly|ntly|ously|fully|ively|ibly|ably|ssly|ckly)|"
                     r"asap|again|instead|later|today|tonight|tomorrow|tmrw|likewise|similarly|anyway|already|"
                     r"thanks|thx|ty|too|first|afterwards|quickly|properly|exactly|directly|probably|hopefully", re.I)

# a parameter that holds a command to run
_COMMAND_NAME = re.compile(r"(?:^|_)(?:command|cmd|program|args)$")
# nouns and pointers that speak of a command: never the command itself ("the program line is:")
_ABOUT_A_COMMAND = frozenset({"line", "lines", "invocation", "string", "below", "above", "here", "follows",
                              "following", "itself", "version", "equivalent", "syntax",
                              # "the launcher must use the Hydra-style mpirun flags": what it is called with
                              "flags", "flag", "options", "option", "arguments", "args", "switches", "parameters"})

# short forms of parameter name parts ("prod at 1000000" for production_value)
_ABBREVIATIONS = {"production": ["prod"], "priority": ["prio"], "development": ["dev"], "memory": ["mem"],
                  "namespace": ["ns"], "replicas": ["reps"], "value": ["val"], "configuration": ["config", "cfg"],
                  "scheduler": ["sched"], "mount": ["mnt"]}

# words that are never a name unless quoted or assigned: adverbs and particles ("scale back down", "fall
# back to", "nobody on the team ever needs"), pronouns of people and things, verbs of naming ("renamed to
# x") and the fields an object carries ("the namespace annotations")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z])|\n\s*\n")
_NEVER_NAMES = frozenset("""came went got made said took gave told asked sent wanted needed
back ever never again already still always anyway instead rather even too away around
later earlier soon maybe perhaps probably actually really basically please thanks either neither whatever whichever
someone anyone everyone nobody somebody everybody nothing something anything everything yes okay renamed named
able next last volume volumes whole entire same other another
called titled labelled labeled tagged annotations labels selectors settings permissions defaults options
tight busy congested contended crowded overloaded overbooked saturated swamped scarce idle unavailable flaky broken
usual normal standard regular typical customary label""".split())


# the nouns of a writer's asides: "for reference", "for context", "for the record"
_ASIDE_NOUNS = frozenset("""reference context example instance comparison clarity simplicity completeness record
info information background visibility awareness now safety headroom""".split())


# a product's name in mixed capitals ("OpenShift", "vLLM", "PyTorch"), never all capitals
_MIXED_CAPS = re.compile(r"[A-Za-z]*[a-z][A-Z][A-Za-z]*")


def _product_name(tok: str, spec: dict[str, Any]) -> bool:
    """Is ``tok`` a product's name in mixed capitals where the parameter takes a lower-case name (its
    schema rejects the capitals; an IAM role keeps them)?"""
    return bool(_MIXED_CAPS.fullmatch(tok)) and not _prop_validator(json.dumps(spec, sort_keys=True)).is_valid(tok)


def _quoted_key(text: str, span: tuple[int, int]) -> bool:
    """Is ``span`` (or the place it marks) in a quoted key of a pasted object ('"team": "speech"',
    '"canPreempt": false')? It names a field, never a value."""
    a, b = span
    m = re.search(r"[\"']([\w.-]*)$", text[max(0, a - 40):a]) if a else None
    if m is None:
        return False
    q, start = m.group(0)[0], a - len(m.group(1)) - 1
    end = re.match(rf"[\w.-]*{q}\s*:", text[a:a + 60])
    return end is not None and b <= a + len(end.group(0)) and \
        re.search(r"(?:^|[{,\n])\s*$", text[max(0, start - 20):start]) is not None


def _never_name(text: str, tok: str, at: int) -> bool:
    """Is ``tok`` at ``at`` one of :data:`_NEVER_NAMES`, neither quoted nor assigned ("lq=everyone")?"""
    if re.search(r"[\"'`=:]\s*$", text[max(0, at - 3):at]):
        return False
    if tok.lower() in _ASIDE_NOUNS and re.search(r"\bfor\s+(?:the\s+)?$", text[max(0, at - 9):at], re.I):
        return True  # "For reference, team-b's queue has 48": an aside, never whom it is for
    # "the team burned 1,200 GPU-hours", "the team uses the A100s": a verb and its object, never a name
    if _VERB_OF_A_SUBJECT.fullmatch(tok) and _VERB_OBJECT_NEXT.match(text[at + len(tok):]):
        return True
    # "the local-nvme storage class mounted at /models": a participle and its preposition, never a name
    if re.fullmatch(r"[a-z]{3,}ed", tok) and re.match(r"\s+(?:at|on|in|into|under|to|by|from|with|as|via)\b",
                                                      text[at + len(tok):]) and \
            not re.search(r"\b(?:called|named)\s+$", text[max(0, at - 8):at], re.I):  # ("layout called balanced with")
        return True
    # "the pod name shoud be lena-exp1", "name wil be x": a modal verb, mistyped, before "be"
    if re.match(r"\s+be\b", text[at + len(tok):], re.I) and tok.isalpha() and \
            any(within_one_edit(tok.lower(), v) for v in _MODALS):
        return True
    # "the portal's onboarding step failed halfway": a plain word that something happened to is what failed, no name
    if re.fullmatch(r"[a-z]+", tok) and not re.search(r"[\"'`]$", text[max(0, at - 1):at]) and \
            re.match(r"\s+(?:failed|broke|crashed|died|errored|stopped|hung|stalled|timed\s+out)\b", text[at + len(tok):], re.I):
        return True
    # "Scheduler profile enabling the Coscheduling plugin": a verb taking its object, no name
    if re.fullmatch(r"[a-z]{3,}ing", tok) and re.match(r"\s+(?:the|a|an|its|their|our|all|every)\b", text[at + len(tok):], re.I):
        return True
    # "render this entry as a Queue", "that one": a plain word after a demonstrative is a common noun
    if re.fullmatch(r"[a-z]+", tok) and re.search(r"\b(?:this|that|these|those)\s+$", text[max(0, at - 7):at], re.I):
        return True
    # "the namespace must be tightly boxed": an adverb before the word it qualifies
    return tok.lower() in _NEVER_NAMES or bool(re.fullmatch(r"[a-z]{4,}ly", tok) and
                                                re.match(r"\s+[a-z]{3,}\b", text[at + len(tok):]))


_MODALS = ("should", "would", "could", "shall", "must", "will", "might")


# a lower-case verb after its subject: past tense, or a verb of having and using ("burned", "uses", "ran")
_VERB_OF_A_SUBJECT = re.compile(r"[a-z]{3,}ed|(?:use|need|want|burn|spend|consume|run|hold|hog|own|keep|get)s|"
                                r"ran|spent|held|kept|got|had|owns", re.I)
# what follows such a verb: an amount or a determiner of its object
_VERB_OBJECT_NEXT = re.compile(r"\s+(?:[~≈]?\d|(?:a|an|the|their|its|our|his|her|all|about|over|around|roughly|"
                               r"nearly|almost|most|half|every|each|some|up|through)\b)", re.I)

# words that frame a value and are never one ("release is called kps", "the existing pvc x")
# words that relate a name to a pattern rather than give it ("name contains h200", "name starts with")
_RELATION_WORDS = frozenset({"contains", "contain", "containing", "includes", "include", "including", "matches",
                             "match", "matching", "starts", "start", "starting", "begins", "beginning", "ends",
                             "ending", "equals", "like", "resembles", "mentions", "has", "having"})
def _namespace_named_default(text: str, at: int) -> bool:
    """"namespace default", "ns: default", "the default namespace": the word "default" at ``at`` names
    the namespace Kubernetes calls default."""
    if re.search(r"\b(?:not|never|no|instead\s+of|rather\s+than|other\s+than|except|outside)\s+(?:in\s+)?(?:the\s+)?$",
                 text[max(0, at - 24):at], re.I):
        return False  # "not the default ns": the namespace it is not
    return bool(re.search(r"\b(?:namespace|ns)\s*[:=]?\s*[\"'`]?$", text[max(0, at - 14):at], re.I)
                or re.match(r"default[\"'`]?\s+(?:namespace|ns)\b", text[at:at + 20], re.I))


_FRAME_WORDS = frozenset({"called", "named", "name", "existing", "current", "same", "own", "is", "are", "was", "were",
                          "today", "tomorrow", "yesterday", "now", "tonight", "currently", "later", "soon",
                          "this", "that", "these", "those", "them", "it",
                          # "the release of our stack", "PV name stays x": a possessive or a verb of staying
                          "the", "our", "my", "your", "their", "its", "his", "her", "mine", "ours", "yours", "theirs", "hers",
                          "stays", "stay", "remains", "remain", "becomes", "become", "keeps",
                          # the message the request came in: "Onboarding ticket ONB-311, team genomics"
                          "ticket", "tickets", "jira", "form", "email", "e-mail", "thread", "message",
                          # a verdict on the value, not the value: "default namespace is ok"
                          "ok", "okay", "fine"})

_GPU_MODELS = ["h100", "h200", "a100", "a10g", "a10", "l40s", "l40", "l4", "t4", "v100", "b200", "gb200", "a6000", "rtx"]
_GPU_UNITS = frozenset([*_GPU_MODELS, "card", "cards", "accelerator", "accelerators"])

# (a path's closing slash is part of it: "s3://bucket/tokenized/")
_TOKEN_BODY = r"([A-Za-z0-9](?:[\w./:@+-]*[\w])?(?:(?<=\w)/(?=[\s,;:)\"'`]|$))?)"
_TOKEN = r"[\"'`]?" + _TOKEN_BODY + r"[\"'`]?"
_IMAGE_RE = (
    r"(?<![\w./:-])(?!gpus?:)(?!nvidia\.com/|[\w.-]*k8s\.io/|kubernetes\.io/)"
    # "triton-fraud.scoring:8001" is a host and port, not an image
    r"(?![a-z0-9-]+(?:\.[a-z0-9-]+)+:\d+(?![\w./:-]))"
    r"((?:[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?/)?[a-z0-9._-]+(?:/[a-z0-9._-]+)*:[A-Za-z0-9._-]+"
    r"|[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?/[a-z0-9._-]+/[a-z0-9._-]+(?:/[a-z0-9._-]+)*)"
)

# words after "in" that name no namespace ("in the ...", "in parallel", "in the prod queue")
# a noun after a place's name that says it is no namespace: "in the t4-pool nodegroup", "in `a100-pool` node pool"
_OTHER_PLACE_AFTER = (r"(?!\s+(?:queue|cluster|region|zone|pool|cohort|flavou?r|partition|class|storage\s*class|"
                      r"node\s*-?\s*pool|node\s*-?\s*group|group|rack|asg|auto\s*scaling\s+group|instance\s+group|"
                      r"machine\s*set|vpc|subnet|bucket|repo|repository|account|project|file\s*system|fileset|"
                      # ("in exclusive-process compute mode", "in read-only format": a mode's name, no place)
                      r"(?:[a-z]+\s+)?mode|format|style|order)s?\b)")
_NO_PLACE = "the|a|an|our|my|parallel|total|order|place|front|case|one|each|addition|practice|queue|pool|zone|region|cluster|partition|namespace|ns"

_DEFAULT_RULES: dict[str, list[dict[str, Any]]] = {
    # "#SBATCH --job-name=llama-ft", "#SBATCH -J vit": a batch script's job name
    "name": [{"regex": r"(?<![\w-])(?:--job-name(?:=|\s+)|(?-i:-J)\s*)([A-Za-z0-9][\w.-]*[A-Za-z0-9])(?![\w-]|\.\w)"},
             {"name": True}],
    # (kubectl's "-n x" is read after every rule: the words' namespace comes first)
    "namespace": [{"after": ["namespace", "ns"]}, {"before": ["namespace", "ns"]},
                  # "from my namespace, dl-team, and ...", "in my space alice-dev", "my group's area on the
                  # cluster is dl-research": a team's own place, named after it
                  {"regex": r"\b(?:my|our|their|his|her|the\s+team's|[a-z]+'s)\s+(?:own\s+)?(?:namespace|ns|space|area|"
                            r"corner|sandbox)\b(?:\s+on\s+(?:the|this|our)\s+(?:new\s+|shared\s+)?cluster)?\s*(?:,|\bis\b|:|=)?\s*"
                            r"[`'\"]?(?!(?:on|in|at|is|for|of|the|a|an|and|with|to|from|will|should|has|was)\b)"
                            r"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-]|\.\w)"},
                  # "the LocalQueue ... living in `batch-inf`", "it lives in 'ml-serving'": where it lives, quoted
                  {"regex": r"\b(?:living|lives|live|sits|sitting|resides|residing)\s+in\s+(?:the\s+)?[`'\"]"
                            r"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)[`'\"](?!\s+(?:zone|region|cluster|node|rack|account|bucket)s?\b)"},
                  # "run it in the `risk-ml` space", "lives in the `cx-ai` area": a quoted place after "in"
                  {"regex": r"\b(?:in|into|to|under)\s+(?:the\s+|our\s+|their\s+|its\s+)?[`'\"]([a-z][a-z0-9]*(?:-[a-z0-9]+)*)[`'\"]\s+"
                            r"(?:space|area|project|tenancy)\b"},
                  # "for the speech team's namespace: one pod", "in the vision team's ns": named after the team
                  {"regex": r"\b(?:for|in|into|to|under)\s+(?:the\s+)?(?!(?:the|our|my|their|your|this|that|other|another|same|whole|new|old)\b)"
                            r"([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\s+team(?:'s|s')\s+(?:own\s+)?(?:namespace|ns)\b"},
                  # "the PVC should be in training.": where the object is to be, ending the clause
                  {"regex": r"\b(?:should|will|must|can|has\s+to|needs\s+to)\s+(?:be|go|live|run|sit)\s+in(?:to)?\s+"
                            rf"(?!(?:{_NO_PLACE}|kubernetes|k8s|prod|production)\b)"
                            r"[`'\"]?([a-z][a-z0-9]*(?:-[a-z0-9]+)*)[`'\"]?(?=\s*(?:[.;,!?\n]|$))"},
                  # "same as prod but with 4 GPUs and in staging": an environment's usual namespace closing its clause
                  {"regex": r"\b(?:but|and|then)\s+(?:(?:put|deploy|run|create)\s+it\s+)?in\s+(?:the\s+)?"
                            r"(dev|development|staging|stage|prod|production|test|testing|qa|uat|sandbox|preprod)"
                            r"(?=\s*(?:[.,;:!?\n]|$))"},
                  # "the llama deployment in inference-prod", "everything in serving": a place after "in"
                  # is the namespace when it is hyphenated or follows the object the request is about
                  # (unless a noun after it says it is another kind of place: "in the t4-pool nodegroup")
                  {"regex": r"\bin\s+(?:the\s+)?[`'\"]?(?!(?:[a-z]{2}(?:-gov)?-[a-z]+-\d)(?![\w-]))([a-z][a-z0-9]*-[-a-z0-9]*[a-z0-9])"
                            r"(?![\w-]|\.\w)[`'\"]?" + _OTHER_PLACE_AFTER},
                  {"regex": r"\b(?:deployment|deployments|pods?|jobs?|services?|servicemonitors?|service\s+monitors?|alerts?|"
                            r"alert\s+rules|prometheusrules?|scaledobjects?|hpas?|pvcs?|claims?|quotas?|everything|"
                            r"all\s+of\s+it|it|them)\s+in\s+"
                            rf"(?!(?:{_NO_PLACE})\b)"
                            r"([a-z][a-z0-9]*)(?![\w-]|\.\w)(?!\s+(?:[a-z]+\s+)?(?:cluster|region|zone|mode|parallel)\b)"},
                  # "deployment whisper-api in asr", "keda scaledobject for tgi-llama in serving": an object named,
                  # then where it is
                  {"regex": r"\b(?:deployment|statefulset|pod|job|pvc|service|scaledobject|hpa|(?:scaledobject|hpa|"
                            r"autoscaler|scaler|keda)\s+(?:for|on))\s+[`'\"]?[a-z0-9][-a-z0-9.]*"
                            rf"[`'\"]?\s+in\s+(?!(?:{_NO_PLACE}|prod|production)\b)"
                            r"[`'\"]?([a-z][a-z0-9]*(?:-[a-z0-9]+)*)[`'\"]?(?![\w-]|\.\w)(?!\s+(?:cluster|region|zone|mode|"
                            r"parallel|queue|pool|namespace)\b)"},
                  # "put the SM + rules in monitoring", "deploy both into ml-serving": a place things are put
                  {"regex": r"\b(?:put|place|deploy|create|install)\s+(?:[\w+&/-]+\s+){1,5}?in(?:to)?\s+"
                            rf"(?!(?:{_NO_PLACE}|kubernetes|k8s|prod|production)\b)"
                            r"([a-z][a-z0-9-]*[a-z0-9])(?![\w-]|\.\w)(?!\s+(?:cluster|region|zone|mode|parallel|queue|pool)\b)"},
                  # "deployment `chat-gw` in `chat`": a quoted word after "in" is a place
                  {"regex": r"\bin(?:to)?\s+[`'\"]([a-z0-9][-a-z0-9]*)[`'\"]" + _OTHER_PLACE_AFTER}],
    "image": [{"after": ["image", "container image"]}, {"regex": _IMAGE_RE}],
    # a Hugging Face model id: an organisation without dots, a slash, a name with a digit or hyphen
    # and no tag ("stabilityai/stable-diffusion-xl-base-1.0"; "nvcr.io/x" and "a/b:tag" are images)
    "model": [{"regex": r"(?<![\w./:@-])([A-Za-z][\w-]*/(?=[\w.-]*[-\d])[A-Za-z0-9][\w.-]*[A-Za-z0-9])(?![\w/:@-]|\.\w)"}],
    "queue": [{"after": ["queue"]}, {"before": ["queue"]},
              {"regex": r"(?<![\w./-])(?:q|vq)\s*=\s*[\"'`]?([a-z0-9][-a-z0-9.]*[a-z0-9])"}],  # "q=research"
    "replicas": [{"count": ["replicas", "replica", "copies", "instances"]}],
    "priority_class": [{"after": ["priorityclass", "priority class", "priority"]}],
    # "on gp3-fast sc", "the efs-rwx storage class": the class named before its noun, too
    "storage_class": [{"after": ["storageclass", "storage class", "sc"]}, {"before": ["storageclass", "storage class", "sc"]}],
    "gpus": [{"count": ["gpus", "gpu", "nvidia.com/gpu", "gpus each", "gpus per pod"]}],
    "cpu": [{"count": ["cpus", "cpu", "vcpus", "vcpu", "cores", "core"]}],
    "memory": [{"size": "quantity", "near": ["memory", "mem", "ram"]}],
    # a product label value written out ("NVIDIA-A100-PCIE-40GB") says more than a short name beside it
    # ("two A100 40GB PCIe cards (node label NVIDIA-A100-PCIE-40GB)"), and goes first; GKE's
    # lower-case accelerator names ("nvidia-a100-80gb") are no product labels
    "gpu_product": [{"regex": r"(?<![\w./-])((?-i:NVIDIA|Tesla)-(?=[\w.-]*\d)[A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9])(?![\w-])"},
                    {"enum": {
        "NVIDIA-H100-80GB-HBM3": ["h100", "h100 80gb", "h100-80gb", "h100 sxm"],
        "NVIDIA-H200": ["h200"],
        "NVIDIA-A100-SXM4-80GB": ["a100 80gb", "a100-80gb", "a100 80g", "a100"],
        "NVIDIA-A100-SXM4-40GB": ["a100 40gb", "a100-40gb", "a100 40g"],
        "NVIDIA-L40S": ["l40s"],
        "NVIDIA-L4": ["l4"],
        "NVIDIA-A10G": ["a10g", "a10"],
        "Tesla-T4": ["t4"],
        "Tesla-V100-SXM2-16GB": ["v100"],
    }}],
    "driver_enabled": [{"flag": ["pre-installed driver", "preinstalled driver", "driver pre-installed",
                                 "driver preinstalled", "driver already installed", "drivers already installed",
                                 "existing driver", "without driver", "no driver", "driver disabled"], "value": False}],
    "toolkit_enabled": [{"flag": ["pre-installed toolkit", "preinstalled toolkit", "toolkit pre-installed",
                                  "toolkit preinstalled", "without toolkit", "no toolkit"], "value": False}],
}


@dataclass
class Extraction:
    values: dict[str, Any] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    text: str = ""  # the normalised request the spans index into
    covered: list[tuple[int, int]] = field(default_factory=list)  # words that were understood
    cues: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # per parameter: its cue words
    remarks: list[tuple[int, int]] = field(default_factory=list)  # a paste's remarks (comments, notes): they set nothing
    # per parameter: another value the request gives it, and where ("2 GPUs per replica; ... 4 GPUs")
    conflicts: dict[str, tuple[Any, tuple[int, int]]] = field(default_factory=dict)
    # per parameter: a number stated right next to its cue that the schema's bounds reject, the words
    # it came from and why ("time-slice every GPU 200 ways" against a maximum of 128)
    out_of_range: dict[str, tuple[Any, tuple[int, int], str]] = field(default_factory=dict)
    # parts of a pasted definition from another system that no parameter took, as written
    unread: list[str] = field(default_factory=list)
    source: str = ""  # the request as written (pastes fenced), which ``text`` normalises

    def used(self) -> dict[str, str]:
        """parameter -> the words of the request its value came from."""
        out = {}
        for name, (a, b) in self.spans.items():
            lo, hi = self._widen(a, b, self.cues.get(name, []))
            out[name] = self.text[lo:hi].strip(" ,;") or str(self.values.get(name))
        return out

    @staticmethod
    def _widen(a: int, b: int, cues: list[tuple[int, int]]) -> tuple[int, int]:
        """The value's span grown over its own cue words touching it ("8" -> "8 GPUs")."""
        lo, hi = a, b
        changed = True
        while changed:
            changed = False
            for x, y in cues:
                if x <= hi + 1 and y >= lo - 1 and (x < lo or y > hi) and (y - x) < 60:
                    lo, hi = min(lo, x), max(hi, y)
                    changed = True
        return lo, min(hi, a + 80)


# Words between a cue and its quantity that do not separate them ("a limit of only 100Gi").
# adverbs that may follow a value ("queue mlops instead of theirs", "namespace ml too")
_AFTER_VALUE = frozenset({"instead", "too", "also", "then", "now", "please", "pls", "again", "here", "there",
                          # a chat message's sign-off after its last value ("ns data thx")
                          "plz", "thx", "thanks", "ty", "tia", "cheers", "asap"})
# words of an amount, never a name: "claims a couple of GPUs", "a handful of workers"
_AMOUNT_WORDS = frozenset({"couple", "pair", "dozen", "few", "handful", "several", "bunch", "lot", "lots", "half",
                           "quarter", "third", "many", "more", "most", "all", "both", "none"})
_FILLERS = frozenset({"of", "only", "is", "at", "to", "the", "a", "an", "be", "set", "about", "around", "just",
                      "every", "each", "per", "some", "roughly", "approximately", "up"})

# Unit spellings read as the short forms the size rules know: "32 gigs", "2 terabytes".
_UNIT_WORDS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:(gig|tera|mega)(?:s|abytes?|bytes?)?|(gibi|tebi|mebi)bytes?)(?![\w])",
                         re.I)
# Digit grouping: "1,000,000" -> "1000000" (a list "1,2" keeps its commas: groups have three digits).
_GROUPED = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+)(?![\w]|,\S|\.\d)")
# "9,6 TiB", "1,5 GB": a decimal comma (as much of Europe writes it) before a unit of size
_DECIMAL_COMMA = re.compile(r"(?<![\w.,])(\d+),(\d{1,2})(?=\s?(?:[KMGTP]i?B|[KMGTP]i|[kmgtp]ib|[kmgtp]b|tera|giga|gig)\b)")
# "10k shards", "training = 10k", "2M": thousands and (below a hundred, where "512M" is memory) millions
_SUFFIXED = re.compile(r"(?<![\w.,-])(\d+(?:\.\d+)?)\s?(?:([kK])|(M))(?![\w/-])")


def _suffixed(m: re.Match) -> str:
    n = float(m.group(1))
    if m.group(3) and n >= 100:
        return m.group(0)
    v = n * (1000 if m.group(2) else 10 ** 6)
    return str(int(v)) if v == int(v) else m.group(0)


# Amounts written with words: "two million" -> "2000000", "half a TiB" -> "0.5 TiB", "a full hour" -> "1 hour".
_SCALED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|a|half\s+a)\s+"
                     r"(hundred|thousand|million|billion|dozen)(?![\w-])"
                     r"|(?<![\w.$])(\d+(?:\.\d+)?)(k)(?=\s+[a-z]{3,})(?!\s+(?:tokens?|context|ctx)\b)", re.I)
_SCALE = {"hundred": 100, "thousand": 10 ** 3, "million": 10 ** 6, "billion": 10 ** 9, "dozen": 12}
_HALF_UNIT = re.compile(r"(?<![\w.])half\s+an?\s+(?=(?:[KMGTP]i?B|[kmgtp]ib|[kmgtp]b|tera|giga|mega|gig|tebi|gibi|mebi)\w*\b)", re.I)
_X_COUNT = re.compile(r"(?<![\w.])x(\d+)\b(?=\s+(?:replicas?|pods?|workers?|nodes?|copies|instances?|gpus?|cards?)\b)", re.I)
_HYPHEN_UNIT = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)-(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b", re.I)
# "half a core", "a quarter of a vCPU": a part of a CPU in millicores, as Kubernetes writes it
_PART_CORE = re.compile(r"(?<![\w.])(half|(?:a\s+|one\s+)?quarter|three\s+quarters)\s+(?:of\s+)?an?\s+(?:v?cpu|core)\b", re.I)
# "a quarter of an hour", "three quarters of a minute": a part of a unit of time in the next smaller unit
_PART_TIME = re.compile(r"(?<![\w.])(?:(?:a|one)\s+)?(quarter|three[\s-]+quarters)\s+of\s+an?\s+(hour|minute|day)\b", re.I)
_PART_TIME_IN = {"hour": (60, "minutes"), "minute": (60, "seconds"), "day": (24, "hours")}


def _part_time(m: re.Match[str]) -> str:
    per, unit = _PART_TIME_IN[m.group(2).lower()]
    return f"{per * (0.75 if m.group(1).lower().startswith('three') else 0.25):g} {unit}"


_WHOLE_UNIT = re.compile(r"(?<![\w.])(?:an?|one)\s+(?:full|whole|entire|complete)\s+(?=(?:second|minute|hour|day)s?\b)", re.I)


def _scaled(m: re.Match) -> str:
    if m.group(3):  # "1k shards", "2.5k files"
        v = float(m.group(3)) * 1000
        return str(int(v)) if v == int(v) else m.group(0)
    word = m.group(1).lower()
    n = 0.5 if word.startswith("half") else 1 if word == "a" else float(word) if word[0].isdigit() else _WORD_NUMBERS[word]
    v = n * _SCALE[m.group(2).lower()]
    return str(int(v)) if v == int(v) else m.group(0)


# Shorthand people write for common words: "w/o the exporter", "w/ 4 gpus", "10 reqs per replica".
def _job_array(m: re.Match[str]) -> str:
    """Slurm's ``--array=0-99%8``: 100 array tasks, 8 at a time."""
    lo, hi = int(m.group(1)), int(m.group(2))
    if hi < lo:
        return m.group(0)
    return f"{hi - lo + 1} array tasks" + (f", {m.group(3)} at a time" if m.group(3) else "")


_SHORTHAND: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"(?<![\w-])--?(?:array|a)[=\s]+(\d+)-(\d+)(?:%(\d+))?(?![\w-])"), _job_array),
    (re.compile(r"(?<![\w./:-])w/o(?![\w/])", re.I), "without"),
    # docker's device list: "--gpus '"device=0,1"'" is "--gpus 2"; "CUDA_VISIBLE_DEVICES=0,1,2,3" is 4 GPUs
    (re.compile(r"(--gpus)(?:\s+|=)['\"]*device=(\d+(?:,\d+)*)['\"]*"),
     lambda m: f"{m.group(1)} {len(m.group(2).split(','))}"),
    (re.compile(r"\b(?:CUDA|NVIDIA)_VISIBLE_DEVICES=['\"]?(\d+(?:,\d+)+)['\"]?"),
     lambda m: f"{len(m.group(1).split(','))} GPUs"),
    # "may not take more as 4 GPU", "not bigger as 2Ti": a comparison as a German or Dutch speaker words it
    # ("more then once": the same with a slip of the keyboard)
    (re.compile(r"\b(more|less|fewer|bigger|larger|smaller|higher|lower)\s+(?:as|then)(?=\s+(?:\d|one|two|three|four|five|six|"
                r"seven|eight|nine|ten|twelve|once|twice)\b)", re.I),
     r"\1 than"),
    (re.compile(r"(?<![\w./:-])w/(?:\s+|(?=[a-z0-9])(?![\w.-]*[/:]))", re.I), "with "),
    # "16 wkrs", "2 gpu ea"
    (re.compile(r"(?<![\w./:-])wkrs?(?![\w./:-])", re.I), lambda m: "workers" if m.group(0).lower().endswith("s") else "worker"),
    (re.compile(r"(?<=\w\s)ea(?=\s*(?:$|[,;.]))", re.I), "each"),
    # "q perf", "q=research": a queue, in shorthand (a lone "q" before a name, among other shorthand)
    (re.compile(r"(?<![\w./:'-])q(?=\s*[=:]\s*[a-z0-9]|\s+[a-z][\w-]*\s*(?:[,;]|$))"), "queue"),
    # "leave ssh out", "leave the pytorch plugin out": none of it
    (re.compile(r"\bleave\s+(?:the\s+)?([a-z][\w-]*)(?:\s+plugin)?\s+out\b", re.I), r"no \1"),
    # "tol spot-gpu", "tol=hpc": a toleration
    (re.compile(r"(?<![\w./:-])tol(?=\s*[=:]|\s+[a-z0-9])", re.I), "tolerate"),
    # "a pod w 1 gpu": a lone "w" between words is "with" too
    (re.compile(r"(?<=[a-z]\s)w(?=\s+(?:\d|an?\s|one\b|two\b|[a-z]+s\b))"), "with"),
    (re.compile(r"(?<![\w./:-])(req)(s?)(?![\w./:-])", re.I), lambda m: "request" + m.group(2)),
    (re.compile(r"(?<![\w./:-])lim(?=\s*[:=]\s*\d)", re.I), "limit"),  # "lim=160Gi"
    (re.compile(r"(?<![\w./:-])cfg(?![\w./:-])", re.I), "config"),
    # "deploy" as a noun is kubectl's short name for a Deployment: "the deploy", "my triton deploy `x`",
    # "deploy name=x", "hpa for deploy llm", "I need deploy for our model server"
    # ("the reranker deploy from yesterday": a word may name which one)
    (re.compile(r"\b((?:(?:a|the|my|our|this|that|their|your|each|new|existing|same)\s+"
                r"(?:(?!(?:to|and|or|then|we|i|you|they|it|can|will|should|must|also)\b)[a-z][\w-]*\s+)?|"
                r"(?:need|want|needs|wants)\s+))"
                r"deploy(?=\s*(?:$|[,.;:)])|\s+(?:for|with|of|that|called|named|name|in|ns|from|on)\b|\s+[`'\"])|"
                r"(?<=[a-z]\s)()deploy(?=\s+[`'\"][\w.-]+[`'\"])|(?<![\w./:-])()deploy(?=\s+(?:name|ns|named|called)\s*[:=\s])|"
                r"(?<=\bfor\s)()deploy(?=\s+[a-z0-9][\w.-]*(?:\s*$|[\s,.;]))", re.I),
     lambda m: (m.group(1) or "") + "deployment"),
    # "it should never run more than 6 copies", "don't have more than 4": the bound, without its verb
    (re.compile(r"\b(never|not|no)\s+(?:run|have|use|get|spin\s+up|start|keep|launch|create)s?\s+(?=more\s+than\s+\d)", re.I),
     r"\1 "),
    # "32 processors", "16 processor cores": CPUs
    (re.compile(r"(?<=\d\s)(?:logical\s+)?processors?(?:\s+cores?)?\b", re.I), "cpus"),
    # "their team handle is `mkt-analytics`", "team slug: fraud": the name it goes by
    (re.compile(r"\b(?:handle|slug|short\s+name)(?=\s*(?:is\b|[:=]))", re.I), "name"),
    # "a floor of 80Gi and a ceiling of 160Gi", "replica floor 1, ceiling 8": the least and the most
    # ("upper bound: six", "lower limit of 2": the same)
    (re.compile(r"\b(floor|ceiling|(?:upper|lower)\s+(?:bound|limit))(?=\s+(?:of\s+|at\s+|is\s+)?(?:\d|(?:one|two|three|four|five|six|"
                r"seven|eight|nine|ten|twelve)\b)|\s*[:=]\s*(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b))", re.I),
     lambda m: "minimum" if m.group(1).lower().startswith(("floor", "lower")) else "maximum"),
    # units and field words of a few other languages mixed into English ("polling alle 30 Sekunden", "pod ka
    # naam `x`"): the English ones
    (re.compile(r"(?<=\d)(\s*)(?:Sekunden|secondes|segundos|secondi|seconden)\b", re.I), r"\1 seconds"),
    (re.compile(r"(?<=\d)(\s*)(?:Minuten|minutos|minuti)\b", re.I), r"\1 minutes"),
    (re.compile(r"(?<=\d)(\s*)(?:Stunden|heures|horas|uur)\b", re.I), r"\1 hours"),
    (re.compile(r"(?<=\d)(\s*)(?:Tagen?|jours|d[ií]as|giorni|dagen)\b", re.I), r"\1 days"),
    (re.compile(r"\b(?:alle|cada|toutes\s+les|ogni)(?=\s+\d+\s*(?:seconds|minutes|hours|days|s|m|h)\b)", re.I), "every"),
    (re.compile(r"\b(?:ka\s+|ki\s+|ke\s+)?(?:naam|nombre)\b", re.I), "name"),
    # "10 per card", "oversubscribe each card": a card is a GPU
    (re.compile(r"\b(per|each|every)\s+(?:gpu\s+|graphics\s+)?card\b", re.I), r"\1 GPU"),
    # plurals written "gpu(s)", "GPU's", "2 node's": the plain plural
    (re.compile(r"(?<=[A-Za-z])\(s\)(?![\w(])"), "s"),
    (re.compile(r"(?<![\w'])([A-Z]{2,}\d*|(?<=\d\s)[a-z]+)['\u2019]s(?![\w'])"), lambda m: m.group(1) + "s"),
]


# A number the writer takes back: "gpu limit sixteen.. no wait, make it 32", "4 nodes, sorry, 6 nodes",
# "16 GPUs - actually make that 24": the second number stands where the first was.
_NUM_OR_WORD = r"(\d+(?:\.\d+)?(?:[KMGTP]i?B?|[kmgt]b)?|" + _NUM[1:-1].split("|", 1)[1] + r")"
# the word between a range's two bounds: "1 to 10", "from one until five", "2..8", "3–6"
_RANGE_TO = r"(?:to|until|till|through|thru|up\s+to|->|-|\.\.|–|—)"
# the words that take a stated amount back
_TAKE_BACK = (r"no\s+wait|wait\s+no\b|wait(?=\s*[,!.:;\u2026-])|actually|sorry|oops|i\s+mean|scratch\s+that|correction|on\s+second\s+thoughts?|let'?s\s+say|"
              r"change\s+of\s+plans?|thinking\s+about\s+it|come\s+to\s+think\s+of\s+it")
_CORRECTION = re.compile(
    r"(?<![\w-])(?<!\w\.)" + _NUM_OR_WORD + r"(\s+[A-Za-z][\w-]*)?\s*(?:\.{2,}|\u2026|[-=]>|-{1,2}|[,;:!?]|\.(?=\s))?\s*\(?\s*"
    # ("min 3 workers.. no, 2 is enough": a bare "no" and a comma take the amount back too)
    r"(?:" + _TAKE_BACK + r"|make\s+(?:it|that)|no(?=\s*,?\s*(?:make|change|set)\b)|no(?=\s*[,!]\s*\d)|"
    r"(?:(?<=\.\.\s)|(?<=\u2026\s)|(?<=,\s))no(?=\s+\d))(?![\w-])"  # ("12Ti.. no 14Ti", "12Ti... no 14Ti")
    r"[\s,.:!-]*(?:no\s*[,.]?\s*)?(?:(?:make|change|set)\s+(?:it|that|(?:the\s+)?[a-z_]+)(?:\s+to)?|it'?s|it\s+should\s+be|should\s+be|rather|"
    # "8001.. no wait, http is (on) 8000"; "12 replicas, no wait, finance says 10"
    r"(?:[a-z]+\s+){1,3}(?:is|should\s+be|says|wants|allows)(?:\s+(?:on|at))?|)"
    r"\s*" + _NUM_OR_WORD + r"(?![\w-]|\.\d)(\s+(?!(?:is|are|was|will|would|should|sounds?|seems?|works?|plenty|enough|"
    r"fine|ok|okay|total|overall|altogether|tops|max|maximum|instead|then|in)\b)[A-Za-z][\w-]*)?\)?", re.I)
# "8 gpus... actually no, 4 is plenty"; "48 gpus, no wait, 64 total": a word that is no unit keeps the first one
_ATTACHED_UNIT = re.compile(r"(?<=\d)([A-Za-z]+)$")


def _corrected(m: re.Match) -> str:
    unit, unit2 = m.group(2) or "", m.group(4) or ""
    if unit and unit2 and _singular(unit.strip().lower()) != _singular(unit2.strip().lower()):
        return m.group(0)  # "4 nodes, actually 8 GPUs each": two quantities, no correction
    if _ATTACHED_UNIT.search(m.group(1)) and unit2 and not re.fullmatch(r"(?:[kmgtp]i?b?|gigs?|[a-z]*bytes?)",
                                                                        unit2.strip(), re.I):
        return m.group(0)  # "shm 32g. actually make it 6 nodes": the correction is of another amount
    second = m.group(3)
    first_unit = _ATTACHED_UNIT.search(m.group(1))
    if first_unit and not _ATTACHED_UNIT.search(second) and second[:1].isdigit():
        second += first_unit.group(1)  # "128Gi, actually 256": the unit carries over
    return second + (unit2 or unit)


# A value taken back at once, whatever its kind: "cap of 8 GPUs - sorry, I meant 4", "4 replicas per GPU
# -- no, 6 replicas", "MIG strategy single - correction: mixed", "p4d.24xlarge - correction, p4de.24xlarge".
# The value right before the take-back (a number with the words that follow it, or one word) gives way to
# the value right after it, when that closes its clause and is of the same kind: a number for a number
# (its words, if any, the first of the first one's: "6 replicas" for "4 replicas per GPU"), a word for a
# word (both with digits, or neither).
_ADJ_TOKEN = r"[A-Za-z0-9][\w.:/-]*[A-Za-z0-9]|[A-Za-z0-9]"
_ADJ_BACK = (r"(?:sorry|oops|correction|actually|no\s+wait|wait|scratch\s+that|no(?=\s*[,:]))[\s,:]*"
             r"(?:(?:i\s+)?meant|i\s+mean|no[,\s]+|make\s+(?:it|that)|it'?s|it\s+should\s+be|should\s+be)?[\s,:]*")
_ADJACENT_CORRECTION = re.compile(
    rf"(?<![\w.:/-])(?:(?P<old>{_NUM_OR_WORD})(?P<tail>(?:\s+[A-Za-z](?:[\w/-]|\.(?=\w))*){{0,3}}?)|(?P<word>{_ADJ_TOKEN}))"
    r"\s*(?:[-\u2013]{1,2}|,|\.{2,3}|\u2026)\s*"
    rf"\(?(?:{_ADJ_BACK})(?P<new>{_ADJ_TOKEN})(?P<ntail>(?:\s+[A-Za-z](?:[\w/-]|\.(?=\w))*){{0,3}}?)\)?"
    r"(?=\s*(?:$|[.;!?)]\s|[.;!?)]$|,\s|\s[-\u2013]{1,2}\s))", re.I)


def _adjacent_correction(text: str) -> str:
    def fix(m: re.Match) -> str:
        old, new = m.group("old") or m.group("word"), m.group("new")
        tail = [_singular(w.lower()) for w in (m.group("tail") or "").split()]
        ntail = [_singular(w.lower()) for w in m.group("ntail").split()]
        number = re.compile(_NUM_OR_WORD + r"$", re.I)
        if number.match(old) and number.match(new):
            if ntail != tail[:len(ntail)]:
                return m.group(0)  # "4 GPUs per worker, sorry, 6 workers": two quantities
            unit = _ATTACHED_UNIT.search(old)
            if unit and not _ATTACHED_UNIT.search(new) and new[:1].isdigit():
                new += unit.group(1)  # "128Gi - sorry, 256": the unit carries over
            return new + (m.group("tail") or "")
        if m.group("old") or tail or ntail or old.lower() == new.lower():
            return m.group(0)  # "8 GPUs - sorry, v2": no amount for an amount
        if bool(re.search(r"\d", old)) != bool(re.search(r"\d", new)) or \
                {old.lower(), new.lower()} & _STOP:
            return m.group(0)  # "spot only - actually, ...": a common word is no value
        return new
    for _ in range(3):
        fixed = _ADJACENT_CORRECTION.sub(fix, text)
        if fixed == text:
            break
        text = fixed
    return text


# Amounts in several number words: "a hundred and twenty-eight", "five hundred thousand",
# "three thousand six hundred": one number, in digits.
_SIMPLE_WORD = r"(?:" + "|".join(sorted((re.escape(w) for w in _WORD_NUMBERS if " " not in w and w not in ("single", "dozen")),
                                        key=len, reverse=True)) + r")"
_NUM_PART = rf"(?:\d+|{_SIMPLE_WORD}(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine)(?![\w-]))?)"
_COMPOUND = re.compile(
    rf"(?<![\w.-])(?:(?:an?|{_NUM_PART})\s+)?(?<![\d.]\s)(?:hundred|thousand|million)(?![\w-])"
    rf"(?:(?:\s+and)?\s+(?:{_NUM_PART}(?=\s+(?:hundred|thousand|million)\b)\s+(?:hundred|thousand|million)|{_NUM_PART}|"
    rf"(?:hundred|thousand|million))(?![\w-]))*", re.I)
_MULT = {"hundred": 100, "thousand": 1000, "million": 10 ** 6}


def _compound(m: re.Match) -> str:
    total, current = 0, 0
    for tok in re.findall(r"[a-z]+(?:-[a-z]+)?|\d+", m.group(0).lower()):
        if tok == "and":
            continue
        if tok in _MULT:
            if _MULT[tok] == 100:
                current = max(current, 1) * 100
            else:
                total += max(current, 1) * _MULT[tok]
                current = 0
            continue
        v = 1 if tok in ("a", "an") else int(tok) if tok.isdigit() else parse_number(tok.replace("-", " "))
        if v is None:
            return m.group(0)
        current += v
    return str(total + current)


# A number word before a size unit: "sixty-four gigs", "three TB" (sizes are read from digits)
_WORD_BEFORE_UNIT = re.compile(rf"(?<![\w.-])({_SIMPLE_WORD}(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?)\s+"
                               r"(?=(?:gigs?|gigabytes?|gibibytes?|gib|gi|gb|g|terabytes?|tebibytes?|tera|tib|ti|tb|t|"
                               r"megabytes?|megs?|mib|mi|mb|percent|per\s+cent|pct)(?![\w-]|\.\w))", re.I)


_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:percent|per\s+cent|pct)\b", re.I)


def _word_in_digits(m: re.Match) -> str:
    n = parse_number(m.group(1).replace("-", " "))
    return (m.group(1) if n is None else str(n)) + " "


# "a two-hour window", "a ten-minute cooldown": an amount in words joined to its unit of time
_WORD_TIME_COMPOUND = re.compile(rf"(?<![\w.-])({_SIMPLE_WORD})-(?=(?:second|minute|hour|day|week)s?(?![\w-]))", re.I)


def _word_time_digits(m: re.Match) -> str:
    n = parse_number(m.group(1))
    return (m.group(1) if n is None else str(n)) + "-"


# "actually parallelism 5 not 10", "oops workers shud be 7 not 3": a setting named again with its new amount and
# the old one it replaces; the old amount next to a word like the named one takes the new one
_CUE_NOT_THAT = re.compile(
    r"(?:\b(?:actually|sorry|oops|correction|wait|no\s+wait|i\s+mean|edit)\b[,:]?\s+)?(?P<cue>[A-Za-z][\w-]{2,})\s+"
    r"(?:(?:should|shud|shld|must|needs?\s+to|has\s+to|have\s+to)\s+be\s+|is\s+|=\s*|:\s*)?(?P<new>\d+(?:\.\d+)?)"
    r"\s*,?\s+(?:and\s+)?not\s+(?P<old>\d+(?:\.\d+)?)(?![\w.]|\.\d)\)?", re.I)


def _cue_not_that(text: str) -> str:
    for m in reversed(list(_CUE_NOT_THAT.finditer(text))):
        cue, new, old = m.group("cue").lower(), m.group("new"), m.group("old")
        if cue in _STOP and _singular(cue) not in _COUNTED_NOUNS:
            continue
        stem = _singular(cue)[:6]
        hits = []
        for e in re.finditer(rf"(?<![\w.]){re.escape(old)}(?![\w]|\.\d)", text[:m.start()]):
            near = text[max(0, e.start() - 30):e.end() + 30].lower()
            if any(w.startswith(stem) or stem.startswith(w[:6]) and len(w) >= 4
                   for w in re.findall(r"[a-z][\w-]*", near)):
                hits.append(e)
        if not hits:
            continue
        e = hits[-1]
        text = text[:e.start()] + new + text[e.end():m.start()].rstrip(" ,;") + text[m.end():]
    return text


# "an hour and a half", "two days and a half", "one and a half hours", "a TB and a half": N.5 of the unit
_AND_A_HALF = re.compile(rf"(?<![\w.-])(an?|\d+|{_SIMPLE_WORD})\s+(?:(second|minute|hour|day|week)s?\s+and\s+a\s+half|"
                         r"and\s+a\s+half\s+(second|minute|hour|day|week)s?|([A-Za-z]{1,9})\s+and\s+a\s+half|"
                         # "two and a half TB"
                         r"and\s+a\s+half\s+([KMGTP]i?B?|gigs?|gigabytes?|terabytes?|tera(?:bytes?)?))(?![\w-])", re.I)


def _and_a_half(m: re.Match) -> str:
    n = 1 if m.group(1).lower() in ("a", "an") else parse_number(m.group(1))
    if n is None or (m.group(4) and not _SIZE_UNITS.fullmatch(m.group(4))):
        return m.group(0)
    if m.group(5):
        return f"{n}.5 {m.group(5)}"
    return f"{n}.5 {m.group(4)}" if m.group(4) else f"{n}.5 {m.group(2) or m.group(3)}s"


# "2 nodes with 8 gpus each - sorry, 16 nodes, not 2": the later amount replaces the one it names
_NOT_THAT = re.compile(r"\s*[-,;(]*\s*\b(?:sorry|actually|i\s+mean|correction|oops)[,:]?\s+(\d+)\s+([a-z]+),?\s+not\s+(\d+)"
                       r"(?!\w|\.\w)\)?", re.I)


def _not_that(text: str) -> str:
    for m in reversed(list(_NOT_THAT.finditer(text))):
        new, unit, old = m.group(1), m.group(2), m.group(3)
        earlier = list(re.finditer(rf"(?<![\w.]){old}(\s+{re.escape(_singular(unit.lower()))}(?:s|es)?\b)",
                                   text[:m.start()], re.I))
        if earlier:
            e = earlier[-1]
            text = text[:e.start()] + new + e.group(1) + text[e.end():m.start()] + text[m.end():]
    return text


_CORRECTION_WORD = re.compile(rf"\b(?:{_TAKE_BACK})\b", re.I)
# "a day", "an hour": one of the unit, so that a correction can name what it replaces
# (not a part of one: "a quarter of an hour", "half a day")
_ONE_UNIT = re.compile(r"(?<![\w.-])(?<!\bof\s)(?<!\bhalf\s)an?\s+(?=(?:second|minute|hour|day|week)s?\b)", re.I)


# "1 day after it finishes -- actually make it two days": the correction names its unit; the last
# earlier amount of that unit is the one it replaces
_UNIT_CORRECTION_RX = re.compile(r"\s*[-,;(]*\s*\b(?:no\s+wait|actually|sorry|i\s+mean|correction|oops|on\s+second\s+thoughts?|"
                                 r"change\s+of\s+plans?)[,:]?\s+(?:no[,.]?\s+)?"
                                 r"(?:(?:make|change)\s+(?:it|that)(?:\s+to)?\s+)?(\d+|" + _SIMPLE_WORD + r")\s+([a-z]+)\b\)?",
                                 re.I)


def _unit_correction(text: str) -> str:
    for m in reversed(list(_UNIT_CORRECTION_RX.finditer(text))):
        new, unit = m.group(1), _singular(m.group(2).lower())
        earlier = list(re.finditer(rf"(?<![\w.-])(\d+(?:\.\d+)?|{_NUM_PART})(\s+{re.escape(unit)}(?:s|es)?\b)",
                                   text[:m.start()], re.I))
        if earlier:
            e = earlier[-1]
            n = new if new.isdigit() else str(parse_number(new) or new)
            text = text[:e.start()] + n + " " + m.group(2) + text[e.end():m.start()] + text[m.end():]
    return text


# "we thought 2.4 TiB, but let's go with 4.8 TiB", "six clients per GPU. Hmm, on reflection, make it
# eight", "Originally I said 16 in parallel but let's do 24": a verb of settling, a sentence or two
# after an amount of the same kind, replaces it there (up to three sentences back). An amount with a unit replaces the last earlier
# one in that unit; a bare one, closing its clause, the last earlier number (of the same or previous
# sentence) when a word of taking back stands between.
_SETTLE = re.compile(r"\b(?:(?:make|change|bump|set)\s+(?:it|that|them)(?:\s+to)?|let'?s\s+(?:go\s+with|do|use|make\s+it)|"
                     # "32 is too much for finance, do 16": a bare "do" opening its clause settles too
                     r"(?:go|going)\s+with|we'?ll\s+(?:go\s+with|do)|(?<=[,;:]\s)(?:do|go)|^do|(?<=\n)do)\s+(\d+(?:\.\d+)?|" + _SIMPLE_WORD +
                     r")(?:\s*(?!(?:and|or|but|then|so)\b)((?:[A-Za-z]+\s+)?[A-Za-z]+))?(?![\w-]|\.\w)", re.I)
# what the words say of an amount they reject: "one 8-GPU node isn't enough", "2 nodes won't fit the model",
# "4 is too few"
_REJECTED_AFTER = re.compile(r"(?:\s+[\w-]+){0,6}?\s+(?:(?:is|are|was|were|would\s+be|will\s+be)(?:\s+not|n['\u2019]?t)\s+"
                             r"(?:enough|sufficient|big\s+enough|going\s+to\s+(?:fit|work|cut\s+it))|"
                             r"(?:will\s+not|won['\u2019]?t|does\s+not|doesn['\u2019]?t|do\s+not|don['\u2019]?t|can(?:not|['\u2019]?t))\s+"
                             r"(?:fit|cut\s+it|hold\s+it|do\s+it)|(?:is|are|'s)\s+(?:way\s+)?too\s+(?:small|few|little|many|much))\b", re.I)
# a summary that settles what the words before it weighed: "Final answer: ...", "TL;DR: ...", "To sum up, ..."
_SUMMED_UP = re.compile(r"(?im)(?:^|(?<=[.!?]\s))[ \t]*(?:\**)(?:final\s+(?:answer|version|spec|ask|call|decision)|tl;?\s?dr|"
                        r"in\s+short|to\s+sum\s+(?:it\s+)?up|summary|bottom\s+line|decision|so,?\s+final(?:ly)?)\**[ \t]*[:,\u2014-]")
_RATE_WORDS = frozenset("per each a an on in of at for every to".split())  # "2 per node" is a rate, not a noun
_RATE_ALT = "|".join(sorted(_RATE_WORDS))
_SIZE_UNITS = re.compile(r"(?:[kmgtp]i?b?|[kmgtp]i|gigs?|gigabytes?|terabytes?|megabytes?|tebibytes?|gibibytes?|tera)", re.I)
_BACK_WORDS = re.compile(r"\b(?:but|actually|hmm+|on\s+reflection|originally|we\s+thought|i\s+said|instead|rather|"
                         r"too\s+(?:much|many|high|big|low|few|small|little)|a\s+lot|overkill|excessive|"
                         r"no|wait|sorry|second\s+thoughts?|changed?\s+my\s+mind|more\s+than\s+that|less\s+than\s+that)\b",
                         re.I)
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;!?)]|instead\b|then\b|please\b|pls\b|to\s+have\b|for\s+(?:now|safety|headroom)\b|"
                         # "make it 9 so it's 3 per zone": a reason follows the amount
                         r"so\s+(?:that|it|it's|we|they|each|every|there)\b|because\b|since\b)",
                         re.I)


_RATE_THEN_END = re.compile(r"\s+(?:per|each|a|an)\s+[A-Za-z]+(\s*)(?=" + _CLAUSE_END.pattern[3:] + r")", re.I)


def _late_correction(text: str) -> str:
    for m in reversed(list(_SETTLE.finditer(text))):
        clause = re.split(r"[.!?;,:\n]", text[:m.start()])[-1]
        if 1 <= len(clause.split()) <= 4 and not _BACK_WORDS.search(clause) and not re.search(r"\d", clause):
            # "Shared memory make it 16 gig": the clause names what it sets; nothing said before is taken back
            text = text[:m.start()] + text[m.start(1):]
            continue
        new = m.group(1) if m.group(1)[0].isdigit() else str(parse_number(m.group(1)) or "")
        if not new:
            continue
        unit = m.group(2) or ""
        m_end = m.end()
        if " " in unit:  # "make it 4 worker pods": the noun ends the phrase; otherwise the first word alone
            if _CLAUSE_END.match(text, m.end()) and unit.split()[0].lower() not in _RATE_WORDS:
                unit = unit.split()[-1]
            else:
                unit = unit.split()[0]
                m_end = m.start(2) + len(unit)
        sized = bool(unit) and bool(_SIZE_UNITS.fullmatch(unit))
        # "wait no, ... do 4 gpus per node instead": a rate after the noun, then the clause ends
        rated = _RATE_THEN_END.match(text, m_end) if unit and not sized else None
        if unit and not sized and not _CLAUSE_END.match(text, m_end) and rated is None:
            continue  # "let's do 2 per node": more words follow, not a bare correction
        sentences = [s.end() for s in re.finditer(r"[.!?](?=\s)", text[:m.start()])]
        window = sentences[-4] if len(sentences) >= 4 else 0
        before = text[window:m.start()]
        amounts = list(re.finditer(rf"(?<![\w.:/=-])(\d+(?:\.\d+)?|{_NUM_PART})(?![\w.-]|\.\d)(?:\s*([A-Za-z]+))?", before, re.I))
        pick = None
        for a in reversed(amounts):
            a_unit = a.group(2) or ""
            if unit and (_singular(a_unit.lower()) == _singular(unit.lower())
                         or sized and _SIZE_UNITS.fullmatch(a_unit)):
                pick = a
                break
        if pick is None and not unit and (_CLAUSE_END.match(text, m.end()) or re.match(r"\s+and\b", text[m.end():])):
            near = sentences[-2] if len(sentences) >= 2 else 0
            cands = [a for a in amounts if a.start() + window >= near]
            # "this quota is for 8 gpus, bump it to 12": a verb of raising or lowering says it changes
            raise_verb = re.match(r"(?:bump|raise|increase|lower|reduce|drop|cut)", m.group(0), re.I)
            if cands and (raise_verb or _BACK_WORDS.search(text, cands[-1].end() + window, m.start())):
                pick = cands[-1]
        if pick is not None and rated is not None and not _BACK_WORDS.search(text, pick.end() + window, m.start()) \
                and not re.match(r"\s*instead\b", text[rated.end(1):]):
            pick = None  # "3 nodes of 8 gpus, let's do 4 gpus per node": nothing is taken back
        if pick is None:
            continue
        a0, a1 = pick.start(1) + window, pick.end(1) + window
        a_unit = pick.group(2) or ""
        end = m_end if (unit and (sized or _singular(unit.lower()) == _singular(a_unit.lower()))) else m.end(1)
        repl = new + ((" " + unit) if sized and unit.lower() != a_unit.lower() else "")
        if sized and unit.lower() != a_unit.lower():
            a1 = pick.end(2) + window  # "2.4 TiB ... 4.8 TB": the new amount in its own unit
        text = text[:a0] + repl + text[a1:m.start()] + text[end:]
        if not unit and (not a_unit or a_unit.lower() in _STOP or a_unit.lower() in ("is", "are", "was", "seems")):
            # "limit 32 GPUs. Bob: 32 is too much, do 16": the bare amount restated an earlier one, which goes too
            said = pick.group(1)
            prior = list(re.finditer(rf"(?<![\w.:/=-]){re.escape(said)}(?=\s+[A-Za-z])", text[window:a0]))
            if prior:
                p0, p1 = prior[-1].start() + window, prior[-1].end() + window
                text = text[:p0] + new + text[p1:]
    return text


# "about 9.6 TB, oh wait, finance only approved 4800 GiB", "a two terabyte claim? Sorry, 4Ti",
# "over two hours, hmm, let's say four hours": a word of taking back, a few words, then an amount
# in a unit of the same kind (a size, a time, the same noun) replaces the last earlier amount of
# that kind.
_BACK_THEN = re.compile(r"\b(?:oh\s+wait|no\s+wait|wait\s+no|wait(?=\s*[,!:-])|(?<=[.,;\u2026]\s)no(?=\s*[,.]\s*\w)|(?<=[.\u2026])\s*no(?=\s*[,.])|actually|sorry|oops|hmm+|i\s+mean|scratch\s+that|correction|"
                        r"on\s+second\s+thoughts?|change\s+of\s+plans?|let'?s\s+say)\b", re.I)
_AMOUNT = re.compile(rf"(?<![\w.:/=-])(\d+(?:\.\d+)?|{_SIMPLE_WORD})\s*([A-Za-z]+)\b(?![.:/-]\w)", re.I)
_TIME_UNITS = re.compile(r"(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?)", re.I)


def _unit_kind(unit: str) -> str | None:
    if _SIZE_UNITS.fullmatch(unit):
        return "size"
    if _TIME_UNITS.fullmatch(unit):
        return "time"
    u = _singular(unit.lower())
    if u in _COUNTED_NOUNS:
        return "noun:" + u
    return None if u in _STOP or len(u) < 3 else "noun:" + u


# nouns that count things a request sizes ("6 nodes ... scratch that, 4 nodes"), though they are
# too common to be cue words elsewhere
_COUNTED_NOUNS = frozenset({"gpu", "node", "pod", "job", "worker", "replica", "shard", "chunk", "task", "client"})


_BACK_BARE = re.compile(rf"[\s,.:;-]*(?:(?:no|make\s+it|it'?s)[\s,.:;-]+)?(?:([A-Za-z][\w-]*)\s+)?(\d+(?:\.\d+)?|{_SIMPLE_WORD})"
                        r"(?!\.?\d)(?=\s*(?:$|[.,;!?)]|:\s|[-\u2013\u2014]+\s))", re.I)


def _take_back_bare(text: str, t: re.Match) -> str | None:
    """"tp 4, actually tp 8", "4 clients per gpu... no, 3.": after the take-back, a bare number (or a
    cue word and a number) closing its clause replaces the last earlier number of the sentence (after
    that same cue word, when one is given)."""
    m = _BACK_BARE.match(text, t.end())
    if m is None:
        return None
    ends = [x.end() for x in re.finditer(r"(?<!\.)[.!?](?!\.)\s", text[:t.start()])]  # an ellipsis ends none
    start = ends[-1] if ends else 0
    if ends and not text[start:t.start()].strip(" ,;:-("):
        start = ends[-2] if len(ends) >= 2 else 0  # "10 clients per GPU. On second thought, 8:"
    cue = m.group(1)
    if cue:
        rx = re.compile(rf"(?<![\w-]){re.escape(cue)}\s*[:=]?\s*(\d+(?:\.\d+)?|{_SIMPLE_WORD})(?![\w.-])", re.I)
    else:
        rx = re.compile(rf"(?<![\w.:/=-])(\d+(?:\.\d+)?|{_SIMPLE_WORD})(?=\s+[A-Za-z])", re.I)
    earlier = list(rx.finditer(text, start, t.start()))
    if not earlier:
        return None
    e = earlier[-1]
    new = m.group(2) if m.group(2)[0].isdigit() else str(parse_number(m.group(2)) or m.group(2))
    return text[:e.start(1)] + new + text[e.end(1):t.start()] + text[m.end():]


_BACK_TOKEN = re.compile(r"[\s,.:;-]*(?:(?:no|make\s+it|make\s+that|it'?s|use|rather)[\s,.:;-]+)?"
                         r"((?=[\w.:/-]*\d)(?=[\w.:/-]*[A-Za-z.:/])[A-Za-z0-9][\w.:/-]*[A-Za-z0-9])(?![\w.:/-])")


def _shape(token: str) -> str:
    return re.sub(r"\d+", "9", re.sub(r"[A-Za-z]+", "a", token))


def _take_back_token(text: str, t: re.Match) -> str | None:
    """"a 2g.20gb slice. Actually no, 1g.10gb", "v0.6.3 -- sorry, v0.7.2": right after the take-back, a
    value of the same shape as one earlier in the sentence (or the one before) replaces it."""
    m = _BACK_TOKEN.match(text, t.end())
    if m is None:
        return None
    new = m.group(1)
    ends = [x.end() for x in re.finditer(r"(?<!\.)[.!?](?!\.)\s", text[:t.start()])]
    start = ends[-2] if len(ends) >= 2 else 0
    shape = _shape(new)
    earlier = [e for e in re.finditer(r"(?<![\w.:/-])[A-Za-z0-9][\w.:/-]*[A-Za-z0-9](?![\w:/-]|\.\w)", text[start:t.start()])
               if e.group(0) != new and _shape(e.group(0)) == shape]
    if not earlier:
        return None
    e = earlier[-1]
    return text[:start + e.start()] + new + text[start + e.end():t.start()] + text[m.end():]


def _take_back_amount(text: str) -> str:
    for t in reversed(list(_BACK_THEN.finditer(text))):
        bare = _take_back_bare(text, t)  # "tp 4, actually tp 8", "... no, 3."
        if bare is None:
            bare = _take_back_token(text, t)  # "2g.20gb ... actually no, 1g.10gb"
        if bare is not None:
            text = bare
            continue
        after = _AMOUNT.search(text, t.end(), min(len(text), t.end() + 70))
        if after is None or _unit_kind(after.group(2)) is None:
            continue
        between = text[t.end():after.start()]
        if after is None or re.search(r"[.!?](?:\s|$)", between) or len(between.split()) > 6 or \
                re.search(r"\b(?:also|too|another|additional|plus|second|extra|both|each|per)\b", between, re.I):
            continue  # "actually we also want a 2Ti scratch": another amount, no correction
        kind = _unit_kind(after.group(2))
        if kind is None:
            continue
        sentences = [x.end() for x in re.finditer(r"[.!?](?=\s)", text[:t.start()])]
        window = sentences[-2] if len(sentences) >= 2 else 0
        pick = None
        for a in _AMOUNT.finditer(text, window, t.start()):
            if _unit_kind(a.group(2)) == kind:
                pick = a
        if pick is None:
            continue
        new = after.group(1) if after.group(1)[0].isdigit() else str(parse_number(after.group(1)) or after.group(1))
        text = text[:pick.start()] + new + " " + after.group(2) + text[pick.end():t.start()] + text[after.end():]
    return text


# "1h30m", "2m30s": a compound Go duration, in one unit
_GO_COMPOUND = re.compile(r"(?<![\w.])(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?![\w.])")


def _go_compound(m: re.Match) -> str:
    h, mi, se = (int(g) if g else 0 for g in m.groups())
    if sum(1 for g in m.groups() if g) < 2:
        return m.group(0)
    return f"{h * 60 + mi}m" if not se else f"{h * 3600 + mi * 60 + se}s"


# Slurm's CPUs: "--cpus-per-task=4" with "--ntasks-per-node=8" is 32 CPUs on each node (one pod per
# node); "-c 24" on an srun/sbatch/salloc line is --cpus-per-task
_CPUS_PER_TASK = re.compile(r"(?<![\w-])(?:--cpus-per-task[=\s]+|(?<=\s)-c\s*(?=\d))(\d+)(?![\w.])")
_TASKS_PER_NODE = re.compile(r"(?<![\w-])--ntasks-per-node[=\s]+(\d+)(?![\w.])")


def _slurm_cpus(text: str) -> str:
    if not re.search(r"\b(?:srun|sbatch|salloc|#SBATCH)\b|--cpus-per-task", text):
        return text
    m = _CPUS_PER_TASK.search(text)
    if m is None:
        return text
    tasks = _TASKS_PER_NODE.search(text)
    n = int(m.group(1)) * (int(tasks.group(1)) if tasks else 1)
    return text[:m.start()] + f"{n} cpus" + text[m.end():]


# "prod-inference at 1000000, research-batch at 100 ... Actually, bump prod-inference to 2000000": a verb
# of change on a thing named earlier with an amount gives that amount its new value
_BUMP_NAMED = re.compile(r"\b(?:bump|raise|lower|change|set|increase|reduce|drop|move)(?:s|ed|ing)?\s+(?:the\s+)?"
                         r"([A-Za-z][\w.-]*\w)(?:\s+value)?\s+(?:up\s+|down\s+)?(?:to|=)\s+(\d+(?:\.\d+)?)(?!\w|\.\d)", re.I)


def _bump_named(text: str) -> str:
    for m in reversed(list(_BUMP_NAMED.finditer(text))):
        name = m.group(1)
        if name.lower() in _STOP or name.lower() in ("them", "those", "these", "everything", "all"):
            continue
        earlier = list(re.finditer(rf"(?<![\w.-]){re.escape(name)}(?:\s*[:=]\s*|\s+(?:at|of|with(?:\s+the)?\s+value|"
                                   rf"value|=)\s+|\s+)(\d+(?:\.\d+)?)(?!\w|\.\d)", text[:m.start()], re.I))
        if not earlier:
            continue
        e = earlier[-1]
        line = text[text.rfind("\n", 0, e.start()) + 1:e.start()]
        if text.count("```", 0, e.start()) % 2 or not line.strip(" -") and "\n" in text[:e.start()]:
            continue  # a value in a pasted object is what runs today; the request asks for a change of it
        text = text[:e.start(1)] + m.group(2) + text[e.end(1):m.start()] + text[m.end():]
    return text


_ENUMERATOR = re.compile(r"(?m)^([ \t]*)\d{1,2}[.)][ \t]+(?=\S)")


# a JSON list of names a command printed ('[ "ng-cpu", "ng-p4d-spot-1" ]', '"nodegroups": [ ... ]')
_JSON_LIST = re.compile(r"\[\s*(\"[A-Za-z0-9][\w.-]*\"(?:\s*,\s*\"[A-Za-z0-9][\w.-]*\")+)\s*,?\s*\]")
# words of a description that pick nothing among pasted names ("the two spot groups", "the on-demand one")
_PASTED_PICK_STOP = frozenset({"group", "groups", "one", "ones", "node", "nodes", "nodegroup", "nodegroups", "pool",
                               "pools", "asg", "asgs", "instances", "those", "these", "them", "first", "then", "next"})
_PICK_SYNONYMS = {"on-demand": {"on-demand", "ondemand", "od"}, "ondemand": {"on-demand", "ondemand", "od"},
                  "od": {"on-demand", "ondemand", "od"}}
# a form's field line, read from the request as written: its label and its value
_FORM_FIELD = re.compile(r"(?m)^[ \t]*(?:[-*][ \t]+)?(?P<label>[A-Za-z][\w ./(),-]{0,40}?)[ \t]*:[ \t]+(?P<value>\S[^\n]*?)[ \t]*$")
# a row of a Markdown table of two columns ("| GPUs per pod | no more than 3 |") and the rule under its header
_MD_FIELD = re.compile(r"[ \t]*\|[ \t]*(?P<label>[A-Za-z][\w ./(),-]{0,40}?)[ \t]*\|[ \t]*(?P<value>[^|\n]*?\S)[ \t]*\|[ \t]*$")
_MD_RULE = re.compile(r"^\s*\|\s*:?-{2,}:?\s*\|\s*:?-{2,}:?\s*\|\s*$")
# an environment line ("GPUS_PER_WORKER=4", "export JOB_NAME=resnet-ddp"): a form's field in shell terms
_ENV_LINE = re.compile(r"(?m)^[ \t]*(?:export[ \t]+)?(?P<label>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)=[\"']?(?P<value>[^\s\"']+)[\"']?[ \t]*$")
# an amount said of what the sentence spoke of before: "it's at least 64 gigs", "that should be 2Ti"
_PRONOUN_IS = re.compile(r"\b(?:it|that|this)(?:'s|\s+is|\s+(?:should|must|has\s+to|will|needs?\s+to)\s+be)\s+"
                         r"(?:at\s+least\s+|about\s+|around\s+|roughly\s+)?$", re.I)
_LIMIT_WORDS = frozenset({"ceiling", "cap", "max", "maximum", "budget", "quota"})
# a label counting something per something else ("gpus per worker", "GPUS_PER_WORKER"): head, "per", base
_RATE_LABEL = re.compile(r"(.*?)[\s_]+(per|each|for[\s_]+each)(?:[\s_]+(.*))?$")
_FORM_STOP = frozenset({"the", "of", "a", "an", "in", "for", "to", "is", "our", "my", "your", "their", "its", "and"})
# a form's field line: "Replicas: 3", "GPUs per replica: 2 (A100)", "- kind: PyTorchJob"
_FORM_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?[A-Za-z][\w .()/-]{0,40}?:[ \t]+\S")
# a row of a two-column table of names and amounts: "  training            5000"
_TABLE_ROW = re.compile(r"^[ \t]*[A-Za-z][\w.-]*[ \t]+-?\d[\d,]*[ \t]*(?:(?:<-|#|--).*)?$")


# an item of a bulleted or numbered list
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*\u2022]|\d{1,2}[.)])[ \t]+\S")
# what follows "name" when it states the name ("name is x", "the name should be x", "its name's x")
_NAME_IS = r"(?:\s+(?:is|should\s+be|will\s+be)|'s)"
# a line ending on a word no phrase ends with goes on in the next one
_WRAPPED = re.compile(r"\s(?:with|of|and|or|the|a|an|to|for|in|on|at|by|from|per|into|than|each|every|is|are|be)$", re.I)


def _form_lines(text: str) -> str:
    """``text`` with the end of a form's field line (and of a name-and-amount table row) marked (";"), so
    that a value never runs into the next field once lines are joined ("Replicas: 3\nGPUs per replica: 2"
    is not "3 GPUs")."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    fence = False
    from .foreign import csv_rows

    rows = csv_rows(text)
    for i, ln in enumerate(lines[:-1]):
        if i in rows and not ln.rstrip().endswith(";"):
            lines[i] = ln.rstrip() + ";"  # a spreadsheet's row ends where its line does ("8" / "worker,3,8")
            continue
        if ln.lstrip().startswith("```"):
            fence = not fence
            continue
        end = ln.rstrip()
        if fence or not end or end.endswith((",", ";", ":", ".", "!", "?", "(", "[", "{", "\\", "`")):
            continue
        if _WRAPPED.search(end) or (len(end.split(":", 1)[-1].split()) >= 8 and re.match(r"[ \t]*[a-z0-9]", lines[i + 1])
                                    and not _FORM_LINE.match(lines[i + 1])):
            continue  # prose wrapped at the line's width: "... a worker task with" / "4 pods of 8 gpus"
        if _FORM_LINE.match(ln) or _FORM_LINE.match(lines[i + 1]) or _TABLE_ROW.match(ln) or _ENV_LINE.match(ln) or \
                re.match(r"[ \t]*#[ \t]", ln) or \
                (_LIST_ITEM.match(ln) and _LIST_ITEM.match(lines[i + 1])) or \
                (re.search(r"(?<![\w.])\d+(?:\.\d+)?%?$", end) and re.match(r"[ \t]*[A-Za-z][\w-]*[ \t]+\d", lines[i + 1])):
            # ... and so does a terse line that ends with its amount before a line of the next one
            # ("target 60" / "min 2 max 10": no 60 minutes)
            lines[i] = end + ";"  # ... and a list's item ends where the next one starts ("- 3 workers" / "- 8 x A100")
    return "\n".join(lines)


# the GPU stack's components that a request turns on or off together ("without the driver and the toolkit")
_COMPONENT = (r"(?:(?:nvidia\s+)?(?:container\s+)?toolkit|(?:nvidia\s+)?drivers?|device[\s-]plugin|dcgm(?:[\s-]exporter)?|"
              r"gfd|gpu\s+feature\s+discovery|nfd|node\s+feature\s+discovery|mig[\s-]manager|validator|"
              r"service\s*monitor)")
_COMPONENTS = rf"((?:the\s+)?{_COMPONENT}(?:\s*,\s*(?:the\s+)?{_COMPONENT})*\s*,?\s+(?:and|or|nor)\s+(?:the\s+)?{_COMPONENT})"
_WITHOUT_LIST = re.compile(rf"\b(without|no)\s+{_COMPONENTS}\b", re.I)
# "already have the driver and container toolkit installed": the components' state said after them
_HAVE_LIST = re.compile(rf"\b(?:already\s+)?(?:have|has|come\s+with|ship\s+with)\s+{_COMPONENTS}\s+"
                        rf"(?:already\s+)?(installed|pre-?installed|on\s+(?:them|it|the\s+hosts?|the\s+nodes?))\b", re.I)
# "the driver and toolkit on these nodes are baked into the machine image": a state said of the listed components
_ARE_LIST = re.compile(rf"\b{_COMPONENTS}\s+(?:on\s+(?:these|the|our|all)\s+(?:nodes|hosts|machines|boxes)\s+)?"
                       rf"(?:are|come|came)\s+(?:already\s+)?(?:baked|pre-?installed|installed|built\s+in|shipped|bundled|"
                       rf"part\s+of)\b", re.I)
# "the driver ships with DGX OS and so does the container toolkit": the second component shares the state
_SO_DOES = re.compile(rf"\b(?:and\s+)?so\s+(?:does|do|is|are|has|have)\s+((?:the\s+)?{_COMPONENT})\b", re.I)
# "the driver is preinstalled on these hosts, and the toolkit too": the same
_TOO = re.compile(rf"(?:,\s*|\s+)(?:and\s+)?((?:the\s+)?{_COMPONENT})\s+(?:too|as\s+well|also)\b", re.I)
_PREINSTALLED = re.compile(r"\b(?:pre-?installed|already\s+installed|baked|built\s+in(?:to)?|ships?\s+with|shipped|"
                           r"comes?\s+with|bundled|part\s+of\s+the\s+(?:image|ami|os))\b", re.I)


def _components(text: str) -> str:
    """A state or a negation said of several GPU stack components at once, said of each."""
    if not re.search(_COMPONENT, text, re.I):
        return text

    def parts(listed: str) -> list[str]:
        # each component by its short name ("the nvidia container toolkit" is "the toolkit")
        return [re.sub(r"\b(?:nvidia|container)\s+", "", p, flags=re.I)
                for p in re.split(r"\s*,\s*(?:and|or|nor)?\s*|\s+(?:and|or|nor)\s+", listed.strip(" ,")) if p]

    text = _WITHOUT_LIST.sub(lambda m: " and ".join(f"{m.group(1)} {p}" for p in parts(m.group(2))), text)
    text = _HAVE_LIST.sub(lambda m: " and ".join(f"{p} pre-installed" for p in parts(m.group(1))), text)
    text = _ARE_LIST.sub(lambda m: " and ".join(f"{p} pre-installed" for p in parts(m.group(1))), text)

    def so_does(m: re.Match[str]) -> str:
        clause = text[max(0, text.rfind(".", 0, m.start()) + 1):m.start()]
        return f"and {m.group(1)} is pre-installed" if _PREINSTALLED.search(clause) else m.group(0)

    def too(m: re.Match[str]) -> str:
        said = so_does(m)
        return m.group(0) if said == m.group(0) else f" {said}"

    return _TOO.sub(too, _SO_DOES.sub(so_does, text))


# "no single pod may take more than 8", "any single job": a quantifier, not a count of one
_SINGLE_QUANTIFIER = re.compile(r"\b(no|any|every|each)\s+single\s+", re.I)
# "cap a single pod at 4 GPUs", "limit single container to 2": the item a cap is on, not a count of one
_CAPPED_SINGLE = re.compile(r"\b((?:cap|limit|restrict)(?:s|ped|ed|ping|ing)?\s+)(?:a\s+|one\s+)?single\s+"
                            r"(?=(?:pod|container|ctr|task|job|workload|process)s?\b)", re.I)
# "each task embeds one shard", "each tile gets a pod": one thing per unit, no count of them ("one shard per task")
_EACH_ONE = re.compile(r"\beach\s+([a-z][a-z-]*)\s+(?:(?:gets|has|is|embeds|handles|processes|renders|runs|takes|uses|"
                       r"reads|writes|owns|holds|needs|=|:|->|\u2192)\s+)?(one|a\s+single|1)\s+([a-z][a-z-]*)\b", re.I)


# "half of robotics' 24 GPUs", "a quarter of the 64 cards", "twice the 8 GPUs": a share of an amount
# ("double the current 2 replicas": a share of what runs now)
_SHARE_OF = re.compile(r"\b(half|a\s+third|a\s+quarter|twice|double|triple|three\s+times|four\s+times)\s+(?:of\s+)?"
                       r"(?:(?:the|our|their|its|that|those|[\w-]+'s?)\s+)?(?:(?:current|existing|present|old|usual)\s+)?"
                       r"(\d+)(?![\w.])", re.I)
_SHARE = {"half": (1, 2), "a third": (1, 3), "a quarter": (1, 4), "twice": (2, 1), "double": (2, 1),
          "triple": (3, 1), "three times": (3, 1), "four times": (4, 1)}
# "25% more than the current 16 GPUs", "20 percent fewer than 40": the amount it comes to, when whole
_PERCENT_MORE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b)\s+(more|less|fewer|above|below)\s+than\s+"
                           r"(?:(?:the|our|their|its|today's)\s+)?(?:(?:current|existing|present|old|usual)\s+)?(\d+)(?![\w.])", re.I)


# "one more than the 4 we allowed last month", "two fewer than our 10": the amount it comes to
_MORE_THAN_AMOUNT = re.compile(r"(?<![\w.-])(one|two|three|four|five|a\s+couple|\d+)\s+(more|fewer|less)\s+than\s+"
                               r"(?:(?:the|our|my|their|your|last\s+time'?s|last\s+year'?s|last\s+month'?s|what\s+we\s+had,?)\s+)?"
                               r"(\d+)(?![\w.,:/-]|[.,]\d)", re.I)


def _more_than_amount(m: re.Match[str]) -> str:
    step = 2 if m.group(1).lower().startswith("a") else parse_number(m.group(1).lower())
    if step is None:
        return m.group(0)
    total = int(m.group(3)) + (step if m.group(2).lower() == "more" else -step)
    return str(total) if total > 0 else m.group(0)


def _percent_more(m: re.Match[str]) -> str:
    pct, base = float(m.group(1)), int(m.group(3))
    up = m.group(2).lower() in ("more", "above")
    value = base * (100 + pct if up else 100 - pct) / 100
    return str(int(value)) if value == int(value) and value > 0 else m.group(0)


def _share_of(m: re.Match[str]) -> str:
    num, den = _SHARE[re.sub(r"\s+", " ", m.group(1).lower())]
    n = int(m.group(2)) * num
    return str(n // den) if n % den == 0 else m.group(0)


# A share of a total stated before it: "the cluster has 64 GPUs and research is funded for three eighths
# of it", "we pay for 16 A100s; research's own share should be a quarter of them", "six L4 nodes ... two
# thirds of that fleet", "they are funded for one sixth.", "75% of our 64-GPU cluster". The share is the
# amount asked for; the total is what exists (marked "altogether", which :data:`_CAPACITY` reads as such).
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6,
                 "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "twelfth": 12, "sixteenth": 16}
_COUNTED_NOUN = r"(?:gpus?|cards?|accelerators?|(?:" + "|".join(_GPU_MODELS) + r")s?|nodes?|box(?:es)?|machines?|instances?|servers?|hosts?)"
_SHARE_WORDS = re.compile(
    r"(?<![\w.-])(?<!\band\s)(?:(?P<num>an?(?!\s+half)|one|two|three|four|five|six|seven|eight|nine|\d+)[\s-]+"
    r"(?P<den>(?:half|halves|third|quarter|fourth|fifth|sixth|seventh|eighth|ninth|tenth|twelfth|sixteenth)s?)|"
    r"(?P<half>half)|(?P<pnum>\d+)\s*/\s*(?P<pden>\d+)(?=\s+of\b)|(?P<pct>\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b))"
    r"(?P<ref>\s+of\s+(?:(?:it|them|those|these|that|this)(?:\s+(?:fleet|cluster|pool|lot|capacity|total|budget|" + _COUNTED_NOUN + r"))?"
    r"|(?:the|our|their|this|that|its)\s+(?:own\s+)?(?:whole\s+|entire\s+|total\s+)?(?:cluster|fleet|pool|capacity|total|budget|"
    r"(?P<own>allocation|quota|allowance|entitlement|share))"
    r"|(?P<xlead>(?:the|our|their|its|that|those|these)\s+)?(?P<xnum>\d+)(?:-(?P<xnoun>gpu|card|node)\s+(?:cluster|fleet|pool|estate)|"
    r"\s+(?P<xcount>" + _COUNTED_NOUN + r")))\b"
    r"|\s+(?:the|our|their|those|these)\s+(?:gpus|cards|accelerators|(?:" + "|".join(_GPU_MODELS) + r")s)\b"
    r"|(?=\s*(?:[.;,)\n]|$|\s+and\b|\s+but\b)))", re.I)
_COUNTED_BEFORE = re.compile(r"(?<![\w.$-])(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                             r"sixteen|twenty|thirty-two|forty-eight|sixty-four)\s+(?:of\s+(?:the|our|their|its)\s+)?(?P<noun>(?:[\w.-]+\s+)?" + _COUNTED_NOUN + r")\b",
                             re.I)


def _share_value(m: re.Match[str]) -> tuple[int, int] | None:
    """The share as a fraction (numerator, denominator)."""
    if m.group("den"):
        num = m.group("num").lower()
        n = 1 if num in ("a", "an") else parse_number(num)
        den = m.group("den").lower()
        d = _DENOMINATORS.get(den[:-1] if den.endswith("s") and den[:-1] in _DENOMINATORS else den)
        return (n, d) if n and d and n < d else None
    if m.group("half"):
        return 1, 2
    if m.group("pnum"):
        n, d = int(m.group("pnum")), int(m.group("pden"))
        return (n, d) if 0 < n < d else None
    pct = float(m.group("pct"))
    return (int(pct * 10), 1000) if 0 < pct < 100 else None


def _totals_before(text: str, start: int, end: int, above: int) -> list[re.Match[str]]:
    """Counts of things between ``start`` and ``end`` larger than ``above`` that a share or a count "of
    them" at ``end`` can be out of: in the same paragraph, and no rate ("one GPU each")."""
    return [c for c in _COUNTED_BEFORE.finditer(text, start, end)
            if (parse_number(c.group("n")) or 0) > above and not re.search(r"\n\s*\n", text[c.end():end])
            and not re.match(r"\s*(?:each|apiece|per)\b", text[c.end():])]


def _shares_of_totals(text: str) -> str:
    out, last = [], 0
    prev: tuple[int, str] | None = None  # the total the last share was of: "half of them ... a quarter of the cluster"
    given: tuple[int, str] | None = None  # what the last share came to: "half of the 16 GPUs ... a quarter of their quota"
    for m in _SHARE_WORDS.finditer(text):
        frac = _share_value(m)
        ref = m.group("ref") or ""
        bare = not ref.strip()
        if frac is None or (bare and not m.group("den")):
            continue  # "half" or "75%" alone shares nothing stated
        if m.group("xnum"):  # the total is named in the phrase: "75% of our 64-GPU cluster"
            total, noun = int(m.group("xnum")), (m.group("xcount") or (m.group("xnoun") + "s"))
            base = None
        else:
            before = _totals_before(text, max(last, m.start() - 300), m.start(), 1)
            if m.group("own") and given is not None:
                before = []  # "a quarter of their own allocation": of what the share before gave them
                prev = given
            if not before and prev is None:
                continue
            if before:
                base = before[-1]
                total, noun = parse_number(base.group("n")) or 0, base.group("noun")
            else:  # a further share of the total already read
                total, noun = prev  # type: ignore[misc]
            if re.match(r"\s+(?:the|our|their|those|these)\s", ref) and not re.search(
                    r"(?:gpus?|cards?|accelerators?|" + "|".join(_GPU_MODELS) + r")s?$", noun, re.I):
                continue  # "half the GPUs" after a count of nodes shares something else
        value = total * frac[0]
        if value % frac[1]:
            continue
        prev, given = (total, noun), (value // frac[1], noun)
        if base is not None:
            out.append(text[last:base.start()] + f"{total} {noun} altogether")
            last = base.end()
        out.append(text[last:m.start()] + f"{value // frac[1]} {noun}")
        last = m.end()
    return "".join(out) + text[last:] if out else text


# "half a node each (4 of the 8 GPUs)", "3 out of its 8 cards": a count of a machine's GPUs is a count of GPUs;
# the machine's total is what it has, not an amount asked for ("3 of the 5 workers" counts workers that start
# together, read as such elsewhere)
_COUNT_OF_TOTAL = re.compile(r"(?<![\w.$-])(?P<k>\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:out\s+)?of\s+"
                             r"(?:(?:the|its|their|our|each|every|a|one)\s+)?(?:[\w-]+'s\s+)?(?P<n>\d+|two|three|four|five|six|"
                             r"seven|eight|nine|ten|twelve|sixteen)\s+(?P<noun>(?:[\w.-]+\s+)?(?:gpus|cards|accelerators|"
                             r"(?:" + "|".join(_GPU_MODELS) + r")s))\b", re.I)


def _count_of_total(m: re.Match[str]) -> str:
    k, n = parse_number(m.group("k")) or 0, parse_number(m.group("n")) or 0
    return f"{m.group('k')} {m.group('noun')}" if 0 < k < n else m.group(0)


# "give up after 5% of the shards fail" with "1200 shards" said: the share of a count the request states
_PERCENT_OF_NOUN = re.compile(r"(?<![\w.-])(?P<pct>\d+(?:\.\d+)?)\s*%\s+of\s+(?:the|all|our|its|their)\s+(?P<noun>[a-z][\w-]*?)(?P<s>s|es)?\b",
                              re.I)


def _percent_of_counts(text: str) -> str:
    """A percentage of a thing the request counts once ("1200 shards ... 5% of the shards") as the count it
    comes to ("60 shards"), when that is a whole number."""
    out, last = [], 0
    for m in _PERCENT_OF_NOUN.finditer(text):
        noun = m.group("noun")
        counts = {c.group(1) for c in re.finditer(rf"(?<![\w.$-])(\d+)\s+(?:[\w-]+\s+)?{re.escape(noun)}(?:s|es)?\b", text, re.I)
                  if c.start() != m.start()}
        if len(counts) != 1:
            continue
        value = int(next(iter(counts))) * float(m.group("pct")) / 100
        if not value.is_integer() or not 0 < value:
            continue
        out.append(text[last:m.start()] + f"{int(value)} {noun}{m.group('s') or ''}")
        last = m.end()
    return "".join(out) + text[last:] if out else text


# "the cohort pools 64 GPUs; team-vision gets 16 of them": a count out of a total said before
_COUNT_OF_THEM = re.compile(r"(?<![\w.$-])(\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen)\s+of\s+"
                            r"(?:them|those|these)\b(?:\s+(?P<noun>[a-z][\w-]*))?", re.I)


_COUNTABLE_THINGS = frozenset("node nodes box boxes machine machines host hosts server servers instance instances pod pods "
                              "replica replicas worker workers gpu gpus card cards".split())


def _counts_of_totals(text: str) -> str:
    """A count of "them" after a total ("64 GPUs ... 16 of them") is a count of the total's things, and
    the total is what exists altogether, not an amount asked for."""
    out, last = [], 0
    for m in _COUNT_OF_THEM.finditer(text):
        k = parse_number(m.group(1)) or 0
        before = [c for c in _totals_before(text, max(last, m.start() - 300), m.start(), k)
                  if not re.match(r"\s*altogether\b", text[c.end():])
                  and not re.search(r"(?:\bx|\u00d7|\*)\s*$", text[max(0, c.start() - 4):c.start()])]  # "8 pods x 8 GPUs": a rate
        if k < 2 or not before or re.search(r"\b(?:the|all)\s+$", text[max(0, m.start() - 5):m.start()]):
            continue  # ("add the seven of them": all of a group counted before, no part of a total)
        base = before[-1]
        said = (m.group("noun") or "").lower()
        same = bool(said) and _singular(said) == _singular(base.group("noun").lower())
        out.append(text[last:base.start()] + f"{base.group('n')} {base.group('noun')} altogether")
        if said in _COUNTABLE_THINGS and not same:
            # ("thirty-two GPUs ... three of those nodes": a count of other things than the total's, left as said)
            out.append(text[base.end():m.end()])
            last = m.end()
            continue
        out.append(text[base.end():m.start()] + f"{k} {base.group('noun')}")
        last = m.end() if same or not said else m.start("noun") - 1
    return "".join(out) + text[last:] if out else text


# "16 L4 cards for 80 students, every student gets an equal share of one card": the share of a card
# is a count of sharers per GPU ("5 per GPU"), when the sharers divide the cards evenly
_EQUAL_SHARE = re.compile(r"\b(?:an?\s+)?(?:equal|even|same|fair)\s+(?:[\w-]+\s+){0,2}?(?:share|slice|part|fraction)\s+of\s+"
                          r"(?:an?|one|the|a\s+single)\s+(?:gpu|card|device|accelerator|" + "|".join(_GPU_MODELS) + r")\b", re.I)
_SHARERS = re.compile(r"(?<![\w.-])(\d+)\s+(?:[\w-]+\s+)?(?:users|students|people|researchers|developers|engineers|"
                      r"notebooks|pods|clients|learners|participants|seats)\b", re.I)
_CARDS = re.compile(r"(?<![\w.-])(\d+)\s+(?:[\w-]+\s+)?(?:gpus|cards|accelerators|(?:" + "|".join(_GPU_MODELS) + r")s)\b"
                    r"(?!\s+altogether)", re.I)


def _equal_shares(text: str) -> str:
    for m in reversed(list(_EQUAL_SHARE.finditer(text))):
        start = max(text.rfind(". ", 0, m.start()), text.rfind("\n\n", 0, m.start()), 0)
        sharers = list(_SHARERS.finditer(text, start, m.start()))
        cards = list(_CARDS.finditer(text, start, m.start()))
        if len(sharers) != 1 or len(cards) != 1:
            continue
        n, k = int(sharers[0].group(1)), int(cards[0].group(1))
        if k and n > k and n % k == 0:
            said = re.sub(r"\s+of\s+\S+(?:\s+single)?\s+\S+$", "", m.group(0))  # "equal MPS share" keeps its kind
            text = text[:m.start()] + f"{said}, {n // k} per GPU" + text[m.end():]
    return text


# "never more than eight p4d.24xlarge at a time", "cap it at 4 p5.48xlarge": a cap counted in machines of a
# known type is a cap on their GPUs ("more than 64 GPUs of p4d.24xlarge")
_CAP_IN_MACHINES = re.compile(r"\b((?:more\s+than|at\s+most|up\s+to|cap(?:ped)?\s+(?:\w+\s+)?at|limit(?:ed)?\s+(?:\w+\s+)?to|"
                              r"max(?:imum)?(?:\s+of)?)\s+)(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
                              r"sixteen|twenty|thirty-two)\s*(?:x\s*)?(?:ml\.)?([a-z]\d[a-z]*\.\d*x?large|g4dn\.metal)s?(?![\w.-])", re.I)


def _cap_in_machines(m: re.Match[str]) -> str:
    n, per = parse_number(m.group(2)), GPUS_PER_INSTANCE.get(m.group(3).lower())
    if not n or not per:
        return m.group(0)
    return f"{m.group(1)}{n * per} GPUs of {m.group(3)}"


# "each GPU serves 6 small inference pods", "every card is shared by 4 notebooks": a count per GPU
_EACH_GPU_SERVES = re.compile(r"\b(?:each|every)\s+(?:gpu|card|device)\s+(?:(?:should|can|will|must|may)\s+)?"
                              r"(?:serves?|hosts?|runs?|holds?|carries|carry|fits?|is\s+shared\s+by|be\s+shared\s+by|shared\s+by)\s+"
                              r"(?:up\s+to\s+)?(\d+)\s+((?:[a-z-]+\s+){0,2}?(?:pods|containers|notebooks|users|clients|jobs|"
                              r"processes|workloads|models|replicas|tenants))\b", re.I)


# "4 8-GPU nodes", "an 8-GPU box": nodes counted with their size
_SIZED_NODES = re.compile(r"(?:\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen)\s+)?"
                          # "8xH100 node", "8x A100 boxes": the GPUs of one, by their model ("4 H100 nodes" are nodes)
                          r"(\d+)[-\s]?(?:gpus?|cards?|x\s*gpus?|x\s*(?:" + "|".join(_GPU_MODELS) + r")s?)\s+"
                          r"(nodes?|box(?:es)?|machines?|hosts?|servers?|instances?|vms?)\b", re.I)


def _sized_nodes(m: re.Match[str]) -> str:
    count = m.group(1) or ""
    art = count.lower() in ("a", "an")
    lead = "a " if art else (f"{count} " if count else "")
    return f"{lead}{m.group(3)} with {m.group(2)} GPUs each"


# "increase the research class from 1000 to 5000", "bump the quota from 8 to 16 GPUs": the value it
# changes to (a range after a scaling verb stays a range: "scale from 1 to 10")
_FROM_TO = re.compile(r"\b((?:increas|rais|bump|reduc|lower|chang|grow|shrink|drop|cut|decreas|mov|upgrad|downgrad|(?=(?:go|goes|going|went|"
                      r"jump\w*|up|down)\s+from\b)[a-z]+)\w*\s+"
                      r"(?:\S+\s+){0,5}?)from\s+\d[\w.]*(\s+[a-z]+)?\s+to\s+(\d[\w.]*)(?![\w.])(\s+[a-z]+)?", re.I)


# "requests.nvidia.com/gpu 16 -> 20", "replicas: 2 → 4": a field's amount changed in place, the new one
# wanted ("0->8 replicas" with no field before it is a range); "replicas currently 2 -> 5": what runs
# today is said, and the arrow to the new amount leaves only that
_ARROW_CHANGE = re.compile(r"([A-Za-z][\w./-]*:?[ \t]+)(?:(?:currently|now|today|atm)[ \t]+)?(?:(?:is|at)[ \t]+)?\d[\d.,]*[ \t]*(?:[A-Za-z]{1,3}\b)?"
                           # "max is 4 today -> raise to 10": what runs said in words, the change in words too
                           r"[ \t]*(?:(?:today|now|currently|atm)[ \t]*)?(?:-+>|→|=>)[ \t]*"
                           r"(?:(?:raise|bump|increase|lower|reduce|cut|drop|change|set|make|move|grow|shrink)[a-z]*"
                           r"(?:[ \t]+(?:it|that))?[ \t]+to[ \t]+)?"
                           r"(?=\d+(?:[.,]\d+)*[A-Za-z]{0,3}(?!\w)(?![ \t]+(?!(?:asap|please|pls|now|then|today|tonight|"
                           r"thanks|thx|for|on|in|at|across|from|starting|so|and|because|since)\b)[A-Za-z]))")

# a labelled line of a change list: "- CPU: 32 → 80 cores", "memory: none -> 640Gi", "GPUs: 4 => 10": the label
# keeps the new amount, whatever word follows it (without a label, "0->8 replicas" is a range)
_LABELED_ARROW = re.compile(r"(?m)^([ \t]*(?:[-*•][ \t]+)?[A-Za-z][\w ./()-]{0,40}?:[ \t]*)"
                            r"(?:\d[\d.,]*[ \t]*[A-Za-z]{0,5}|none|no\s+(?:cap|limit|quota)|nothing|unlimited|unset|n/a|empty|-|0)"
                            r"[ \t]*(?:-+>|→|=>)[ \t]*(?=\d)", re.I)

# "show up as 320 / 40 shares", "1024 ÷ 8 GPUs each": a division written out, before what it counts
_DIVIDED = re.compile(r"(?<![\w./:-])(\d+)\s+(?:/|÷)\s+(\d+)(?=\s+[a-z]{3,}\b)(?!\s+(?:of|to|and|or|from|at|in|on|for)\b)", re.I)


def _divided(m: re.Match) -> str:
    a, b = int(m.group(1)), int(m.group(2))
    # (only a whole quotient of a larger amount: "16 / 16" or "3 / 4" is a pair or a fraction, no division)
    return str(a // b) if b > 1 and a > b and a % b == 0 else m.group(0)


# "32 pieces of GPU", "8 units of GPUs", "4 pcs of A100": a count of the thing named after it
_PIECES_OF = re.compile(r"(?<![\w.])(\d+)\s+(?:pieces?|pcs\.?|units?|items?)\s+of\s+(?=[A-Za-z])", re.I)

# "double the limit", "2x   the GPUs" ("twice", padded), "3 times that", "halve it": a change relative to an
# amount stated before; the target is the first word after an optional determiner
_RELATIVE_PROSE = re.compile(r"\b(?:(double|triple|quadruple|halve|twice|thrice|cut|half(?=\s+of\s+the\b))(?![\w-])(?:\s+of)?|"
                             r"(\d+(?:\.\d+)?|two|three|four|five|ten)(?:x|\s+times)(?![\w-])|(\d+)\s+(?:more|extra|additional))\s+"
                             r"(?:(?:the|our|its|their|this\s+(?=[a-z]+s\b)|those|these)\s+)?"
                             # "three times the current replicas": what runs now is the base
                             r"(?:(?:current|existing|present)\s+)?"
                             r"(?!(?:amount|number|count|ones?)\b)([a-z][a-z-]*)\b(\s+in\s+half\b)?", re.I)


# "no two pods", "I don't want 3 nodes idle", "not 3": a number under a negation sets no count
_NEGATED_COUNT = re.compile(r"(?:\bno|\bnot|\bdon'?t\s+want|\bdo\s+not\s+want|\bwithout)\s+$", re.I)

_RELATIVE_WORDS = {"cut": 0.5, "half": 0.5, "double": 2, "twice": 2, "triple": 3, "thrice": 3, "quadruple": 4, "two": 2, "three": 3, "four": 4,
                   "five": 5, "ten": 10}


_SMALL_NUMBER = r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_SMALL_NUMBERS = {w: i + 1 for i, w in enumerate(_SMALL_NUMBER.split("|"))} | {"a couple": 2, "a couple of": 2}
# a change by an amount: "bump replicas by 2", "raise the quota by 25%", "cut the 40 GPUs by a quarter",
# "scale down by half" (the verb says which way; the words between name what changes)
_UP_VERB = r"increas|rais|bump|grow|grew|boost|expand|extend|add|scal\w*\s+(?:it\s+|them\s+)?up|top\w*\s+up|go\s+up|goes\s+up"
_DOWN_VERB = (r"reduc|lower|cut|decreas|shrink|shrunk|trim|drop|scal\w*\s+(?:it\s+|them\s+)?(?:down|back)|bring\w*\s+down|"
              r"brought\s+down|tak\w*\s+down|dial\w*\s+(?:down|back)|go\s+down|goes\s+down")
_BY_FRACTION = {"half": (1, 2), "a half": (1, 2), "a third": (1, 3), "one third": (1, 3), "a quarter": (1, 4),
                "one quarter": (1, 4), "a fifth": (1, 5), "a tenth": (1, 10), "two thirds": (2, 3), "three quarters": (3, 4)}
_CHANGED_BY = re.compile(
    rf"\b(?:(?P<up>{_UP_VERB})|(?P<down>{_DOWN_VERB}))\w*\s+(?P<obj>(?:(?!by\b)[^\s.;!?]+\s+){{0,6}}?)by\s+(?:another\s+)?"
    r"(?:(?P<pct>\d+(?:\.\d+)?)\s*%|(?P<frac>half|a\s+half|(?:a|one)\s+(?:third|quarter|fifth|tenth)|two\s+thirds|"
    r"three\s+quarters)|(?P<n>\d+|" + _SMALL_NUMBER + r")(?![\w.%:/-]))(?P<tail>\s+(?P<unit>[a-z]+)(?<!\bthe))?", re.I)
# "another 4 workers", "one more replica", "an extra node": an amount added to the one the request gives
_ANOTHER = re.compile(r"\b(?P<up>another|an\s+additional|an\s+extra|(?P<w>" + _SMALL_NUMBER + r"|a\s+couple(?:\s+of)?)\s+(?:more|extra|additional))"
                      r"\s+(?:(?P<n>\d+)\s+)?(?P<tail>(?P<unit>[a-z]+))(?![^.;,\n]{0,30}\bthan\b)", re.I)
# "finance approved 50% more", "give them 25 percent more GPUs", "20% less than that": a share more or
# less than an amount the request gives (with "than" and a number, the normaliser works it out)
_PERCENT_CHANGE = re.compile(r"(?<![\w.])(?P<pct>\d+(?:\.\d+)?)\s*%\s+(?P<dir>more|extra|additional|higher|bigger|larger|"
                             r"less|fewer|lower|smaller)\b(?:\s+than\s+(?:that|this|it|now|today|before|currently)\b|"
                             r"(?!\s+than\b)(?P<tail>\s+(?P<unit>[a-z]+))?)", re.I)
# a change that happens by itself, on a condition or a schedule, is a rule asked for, not a change now
_AUTOMATIC_BEFORE = re.compile(r"\b(?:automatically|auto|dynamically|itself|themselves)\b[^.;,]*$", re.I)
_WHEN_AFTER = re.compile(r"[^.;!?\n]{0,40}?\b(?:if|when|whenever|once|as\s+soon\s+as|(?:each|every|per|at)\s+(?:\d+\s+)?"
                         r"(?:day|week|month|night|hour|minute|year|quarter|sprint|morning|evening|weekend|month\s+end|"
                         r"end\s+of|start\s+of)s?)\b", re.I)
# the amount today, said right after a change: "(currently 32)", ", now at 16", " (was 8 GPUs)"
_BASE_AFTER = re.compile(r"\s*(?:[(,\[]\s*(?:it'?s\s+|that'?s\s+|which\s+is\s+)?(?:currently|now|today|atm|was|is|at|from)\s+"
                         r"(?:at\s+|on\s+)?|(?:it\s+|they\s+|we\s+)?(?:has|have|runs?|uses?)?\s*(?:currently|now|today)\s*\(\s*)"
                         r"(\d+)(?![\w.])(?:\s*[a-z]+)?\s*[)\]]?", re.I)


# items given up for others: "swap the g5/g6 families for p4d", "replace g6 with p4d", "p5 instead of g5"
_SWAP_ITEMS = r"[a-z0-9][\w.*-]*(?:\s*(?:/|,|\+|&|\band\b|\bor\b)\s*[a-z0-9][\w.*-]*)*"
_SWAPPED = re.compile(rf"\b(?:swap|replace|switch|exchange|trade|substitute)\w*\s+(?:out\s+)?(?:the\s+|our\s+|all\s+)?(?P<old>{_SWAP_ITEMS})"
                      rf"(?:\s+[a-z]+)?\s+(?:for|with|by)\b|(?<![\w.-])[a-z0-9][\w.*-]*\s+(?:instead\s+of|rather\s+than|in\s+place\s+of)"
                      rf"\s+(?:the\s+|our\s+)?(?P<old2>{_SWAP_ITEMS})", re.I)
# where the clause of a rule asked for ends
_CLAUSE_STOP = re.compile(r"[.;!?\n]")
# words that point at an amount without naming it
_PRONOUNS = frozenset({"it", "that", "this", "them", "those", "these", "its", "their", "our", "my", "the", "a", "an", "all",
                       "we", "they", "us", "please", "pls", "just", "also", "then", "now"})
# a change's object, then the amount today: "double the GPU limit (currently 32)"
_PHRASE_THEN_BASE = re.compile(r"((?:\s+[a-z][\w-]*){0,2}?)(?=\s)" + _BASE_AFTER.pattern, re.I)


# "retry each shard once", "restart it at most twice": a count of tries in words
_ONCE = re.compile(r"(\b(?:retr(?:y|ies|ied)|restart(?:s|ed)?|re-?run|re-?tr(?:y|ies)|attempts?)\b[^.;,\n]{0,40}?)\b(once|twice|thrice)\b",
                   re.I)


# "max from 6 to 10", "target from 70 to 60", "the limit from 32 to 64": a bound or a single setting named
# right before the change is changed, never a range; so is any amount that goes down ("replicas from 8 to 2")
_NOUN_FROM_TO = re.compile(r"(?<![\w.-])((?:min|minimum|max|maximum|limit|cap|ceiling|target|threshold|quota|budget|value|priority|"
                           r"timeout|size|deadline|ttl|weight|share|nominal(?:\s+quota)?)(?:\s+[a-z][\w-]*){0,2}?\s+)from\s+(\d+(?:\.\d+)?)(\s*[a-z%]+)?\s+to\s+"
                           r"(\d+(?:\.\d+)?)(?![\w.])|(?<![\w.-])([a-z][\w-]*\s+)from\s+(\d+)(\s*[a-z]+)?\s+(?:down\s+)?to\s+(\d+)(?![\w.])",
                           re.I)


# "replicas 1 to 6", "workers: 2-8": a count's range written after its noun, as it reads before it ("1 to 6 replicas")
_NOUN_THEN_RANGE = re.compile(r"(?<![\w.-])(replicas|workers|nodes|pods|instances|members)\s*[:=]?\s*(\d+)\s*(?:to|-|\u2013|\.\.)\s*"
                              r"(\d+)(?![\w.%])(?!\s*(?:gpus?|cards?|cores?|cpus?|gi|gb|ti|%|percent|minutes?|seconds?|hours?|[smh]\b))",
                              re.I)


# "down to zero replicas overnight and up to 8 during the day": the upper bound counts what the lower one did
_DOWN_THEN_UP = re.compile(r"\b(down\s+to\s+(?:\d+|zero|one|two|three)\s+(replicas|workers|nodes|pods|instances)\b[^.;\n]{0,50}?"
                           r"\bup\s+to\s+\d+)(?![\w.%])(?!\s*(?:gpus?|cards?|cores?|cpus?|[gmkt]i?b?|percent|replicas|workers|"
                           r"nodes|pods|instances|requests?|seconds?|minutes?|hours?)\b)", re.I)


def _noun_from_to(m: re.Match[str]) -> str:
    if m.group(1):
        return f"{m.group(1)}{m.group(4)}{m.group(3) or ''}"
    if int(m.group(8)) < int(m.group(6)) and m.group(5).strip().lower() not in ("between", "range", "ranging", "scale", "scales",
                                                                                 "scaling", "anywhere", "count", "down"):
        return f"{m.group(5)}{m.group(8)}{m.group(7) or ''}"
    return m.group(0)


# "change the layout from all-1g.10gb to all-3g.40gb", "switch from time-slicing to MPS": a setting changed
# by name, the one it changes to wanted ("from A" is what runs today)
_FROM_TO_NAMED = re.compile(r"\b((?:chang|switch|mov|migrat|convert|transition|upgrad|downgrad)\w*\s+(?:\S+\s+){0,8}?)"
                            r"from\s+(?:the\s+|our\s+)?(?!\d+(?:\.\d+)?\b)[A-Za-z0-9][\w./:-]*\s+to\s+(?=[A-Za-z0-9])", re.I)


def _from_to(m: re.Match[str]) -> str:
    unit = m.group(4) or (m.group(2) if m.group(2) and m.group(2).strip().lower() not in ("to", "and") else "") or ""
    verb = re.sub(r"^(?:up|down)\s+", "", m.group(1), flags=re.I)  # "parallelism down from 20 to 8": to 8
    return f"{verb}to {m.group(3)}{unit}"


# requirement keywords as a list's labels ("MUST NOT: rename the resource"): the modal itself
_REQUIREMENT_LABEL = re.compile(r"\b(MUST|SHOULD|SHALL|MAY)(\s+NOT)?\s*:\s*")
# "ok 16 then", "fine, 16 it is": a reply settling on an amount
_OK_THEN = re.compile(r"\b(?:ok(?:ay)?|fine|sure|alright)[,\s]+(\d+(?:\.\d+)?)(?:\s+(?:then|it\s+is)\b|[ \t]*(?=[.!]?[ \t]*$))",
                      re.I | re.M)


# "preinstalled drivers? no, let the operator install it", "spot? yes": a question the writer answers at once
_ASKED_ANSWERED = re.compile(r"(?:^|(?<=[,;:.\n]))(\s*)([A-Za-z][\w .-]{2,40}?)\?\s*(no|nope|nah|yes|yep|yeah)\b\s*"
                             r"[,.;:\u2014-]*", re.I | re.M)


# "spot not allowed", "spot instances are forbidden": no spot
_NOT_ALLOWED = re.compile(r"\b([A-Za-z][\w-]*)\s+(?:(?:instances|nodes|capacity)\s+)?(?:is\s+|are\s+)?"
                          r"(?:not\s+allowed|not\s+permitted|forbidden|disallowed|prohibited|banned)\b(?!\s+(?:to|from)\b)", re.I)
# (what a thing may not do, "workloads are not permitted to claim ...", is a permission, no thing left out)
# a form's yes/no field: "May preempt other teams: no", "- Spot: yes", "Preinstalled driver: false"
_FIELD_ANSWERED = re.compile(r"(?m)^((?:[-*\u2022][ \t]+)?)([A-Za-z][\w /.()'-]{2,40}?)[ \t]*:[ \t]*"
                             r"(no|nope|yes|yep|false|true)[ \t]*[.!]?[ \t]*$", re.I)
_MODAL_LEAD = re.compile(r"^(may|can|could|should|must|will|shall|is|are|does|do|allowed\s+to)\b", re.I)


# a label that asks whether a thing may be: "Spot allowed: no" says "no spot"
_PERMITTED = re.compile(r"^(.*?)\s+(?:allowed|permitted|ok(?:ay)?|wanted|ok\s+to\s+use)$", re.I)


def _asked_answered(m: re.Match) -> str:
    said = m.group(2).strip()
    if m.group(3).lower() not in ("no", "nope", "nah", "false"):
        return f"{m.group(1)}{said}, "
    permitted = _PERMITTED.match(said)
    if permitted and permitted.group(1).strip():
        return f"{m.group(1)}no {permitted.group(1).strip()}, "
    # "May preempt other teams: no" says "may not preempt other teams"
    modal = _MODAL_LEAD.match(said)
    return f"{m.group(1)}{modal.group(0) + ' not' + said[modal.end():] if modal else 'not ' + said}, "


def _command_line_ends(text: str) -> str:
    """A line that launches a program ("srun ... ./bench -b 8", "mpirun ... python train.py --epochs 90")
    ends the command with it, unless it goes on with a backslash: the next line's words are no arguments."""
    if "\n" not in text or not _LAUNCHER.search(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if not _LAUNCHER.search(line) or line.lstrip().startswith("#") or "```" in line:
            continue
        while re.search(r"\\\s*$", line) and i + 1 < len(lines) - 1 and lines[i + 1].strip():
            i += 1  # "mpirun -np 16 \" then the program on the next line: the command ends where the lines stop going on
            line = lines[i]
        if any(x.strip() for x in lines[i + 1:]) and not re.search(r"[\\.!?:;,`]\s*$", line) and "```" not in line:
            lines[i] = line.rstrip() + " ;"
    return "\n".join(lines)


def _paragraph_ends(text: str) -> str:
    """A blank line outside a fenced block ends a sentence ("mpirun -np 32 ./xhpl" then a blank line
    then "need the MPIJob version": the command ends with its paragraph)."""
    if "\n" not in text:
        return text
    out: list[str] = []
    fence = False
    for part in re.split(r"(\n[ \t]*\n)", text):
        if part.strip() == "" and "\n" in part:
            prev = out[-1].rstrip() if out else ""
            last = prev.rsplit("\n", 1)[-1]
            # (an indented line is a block of code, read as pasted)
            if not fence and prev and prev[-1] not in ".!?:;,`" and not re.match(r"(?: {4}|\t)", last):
                out.append(".")
            out.append(part)
            continue
        fence ^= part.count("```") % 2 == 1
        out.append(part)
    return "".join(out)


# what a value is said not to be needed after it ("mixed strategy isn't needed")
_NOT_NEEDED_AFTER = re.compile(r"(?:\s+(?:strategy|mode|policy|option|setting))?\s+(?:is|are|was|were)(?:\s+not|n['\u2019]t)\s+(?:really\s+)?(?:needed|required|necessary|"
                               r"wanted|useful|an\s+option)\b", re.I)
_DIFF_LINE = re.compile(r"(?m)^([ \t]*)([-+])[ \t]*([\w./-]+(?:[ \t][\w./-]+){0,2})[ \t]*:[ \t]*(\S[^\n]*)$")


def _diff_lines(text: str) -> str:
    """A change written as a diff ("- replicas: 2" then "+ replicas: 4"): the removed line is what
    was, and goes; the added one is what is wanted, without its mark."""
    if "\n" not in text or not re.search(r"(?m)^[ \t]*\+", text):
        return text
    lines = list(_DIFF_LINE.finditer(text))
    added = {m.group(3).lower() for m in lines if m.group(2) == "+"}
    removed = {m.group(3).lower() for m in lines if m.group(2) == "-"}
    pairs = added & removed
    if not pairs:
        return text
    for m in reversed(lines):
        if m.group(3).lower() not in pairs:
            continue
        if m.group(2) == "-":
            end = m.end() + 1 if text[m.end():m.end() + 1] == "\n" else m.end()
            text = text[:m.start()] + text[end:]
        else:
            text = text[:m.start()] + f"{m.group(1)}{m.group(3)}: {m.group(4)}" + text[m.end():]
    return text


# "the minimum of replicas", "a maximum of the workers": a bound and the noun it bounds, as "minimum replicas"
# ("a maximum of 8 replicas", with the amount after "of", stays as written)
_BOUND_OF = re.compile(r"\b(min(?:imum)?|max(?:imum)?)\s+of\s+(?:the\s+)?(?=[a-z]+\b(?!\s*\d))(?!(?:" + _SIMPLE_WORD
                       + r")\b)", re.I)
# "min nodes 2", "max replicas: 10", "maximum workers = 6": the bound, its noun, then the amount, as "min 2 nodes"
# (a plural noun: "min member 12" and "max replica 12" are a field's own name, read as such)
_BOUND_NOUN_AMOUNT = re.compile(r"\b(min(?:imum)?|max(?:imum)?)\s+(?!(?:this|these|those|was|is|has|does|its|as|us|plus|less|"
                                r"minus|thus|yes)\b)([a-z]{2,}s)\s*(?:[:=]|\bis\b|\bof\b)?\s*(\d+)(?![\w.:/-])", re.I)
# A question and its answer on the next line ("Q: Upper bound?" / "A: six"): the answer is the value of what
# the question names ("Upper bound: six"); a yes or no answers it as such ("Scale to zero? yes")
QA_LABEL_WORDS = 4
_QA_PAIR = re.compile(r"(?m)^[ \t]*Q\d*[ \t]*[:.)][ \t]*(?P<q>[^\n]*?)[ \t]*\??[ \t]*\n[ \t]*A\d*[ \t]*[:.)][ \t]*(?P<a>[^\n]*)$")


# A choice made after amounts that were only weighed ("maybe 16, probably 24 is fine, go with 24", "2 pods of 8 is
# enough? no, go with 4 pods"): the weighed ones go, the chosen one stands where they stood
_HEDGED = re.compile(r"\b(?:maybe|perhaps|probably|possibly|likely|thinking)\s+(?:about\s+)?\d+\b", re.I)
_DECIDED = re.compile(r"\b(?:(?:let'?s\s+)?go(?:ing)?\s+with|settle\s+on|(?:we\s+)?decided\s+on|final\s+answer[:,]?)\s+"
                      r"(?:the\s+(?:original|first|earlier|initial)\s+)?(?=\d+\b)", re.I)
# "how many at once? 24", "how many nodes... 6": a question the writer answers at once, as a field
_SELF_ASKED = re.compile(r"\b(how\s+(?:many|much)\s+[a-z][^?.\n\u2026:]{0,40}?)\s*(?:\?+|\.{2,}|\u2026)[ \t]*(?=\d+\b(?![.,]\d))", re.I)


def _weighed_then_chosen(text: str) -> str:
    for d in reversed(list(_DECIDED.finditer(text))):
        window = text[max(0, d.start() - 120):d.start()]
        cut = max(window.rfind(". "), window.rfind("\n"))
        hedges = list(_HEDGED.finditer(window, cut + 1 if cut >= 0 else 0))
        if hedges:  # (a choice with nothing weighed before it is read by the corrections)
            text = text[:d.start() - len(window) + hedges[0].start()] + text[d.end():]
    return text


# A MIG profile said or typed loosely: "three g forty gig", "3g 40gb", "2g-20gb": "3g.40gb"
_MIG_LOOSE = re.compile(r"(?<![\w.-])(one|two|three|four|seven|[12347])\s*-?\s*g\s*[.\s-]?\s*"
                        r"(five|ten|twelve|twenty(?:[- ]four)?|thirty[- ]five|forty(?:[- ](?:five|seven|eight))?|eighty|"
                        r"ninety(?:[- ](?:four|six))?|\d{1,3})\s*(?:gb|gigs?|g|gigabytes?)(?![\w.-])", re.I)
_MIG_MEMORY = frozenset({5, 6, 10, 11, 12, 20, 22, 24, 35, 40, 45, 47, 48, 71, 80, 90, 94, 96, 141, 180})


def _mig_loose(m: re.Match[str]) -> str:
    slices = parse_number(m.group(1).lower())
    memory = parse_number(m.group(2).lower().replace("-", " "))
    if slices not in (1, 2, 3, 4, 7) or memory not in _MIG_MEMORY:
        return m.group(0)
    return f"{slices}g.{memory}gb"


def _qa_pair(m: re.Match[str]) -> str:
    # (a question of a few words is a field's label; a longer one stays a question, answered after it,
    # unless it asks for a name: "What should the claim be called?" / "A: x" is "... be called x")
    if re.search(r"\b(?:called|named)$", m.group("q"), re.I):
        return f"{m.group('q')} {m.group('a')}"
    if re.match(r"(?:yes|yep|yeah|no|nope|nah)\b", m.group("a"), re.I) or len(m.group("q").split()) > QA_LABEL_WORDS:
        return f"{m.group('q')}? {m.group('a')}" + ("" if re.search(r"[.!?;:,]$", m.group("a")) else ".")
    return f"{m.group('q')}: {m.group('a')}"


# "the claim I want is x", "the namespace we need is y", "the queue they'd like is z": the thing, then its value
_THE_ONE_I_WANT = re.compile(r"\b([a-z][\w-]*)\s+(?:that\s+)?(?:i|we|they|you)(?:\s+(?:want|need|would\s+like|"
                             r"(?:are\s+)?asking\s+for)|'d\s+like)\s+(?:is|are|will\s+be|should\s+be)\s+|"
                             # "The template name I like \"two-h100\"", "namespace we prefer: x": a name as a
                             # speaker of another language may order it, the value right after the liking
                             r"\b(name)\s+(?:i|we)\s+(?:like|prefer|would\s+like|want|choose|pick)(?:\s+(?:is|to\s+be))?\s*:?\s+"
                             r"(?=[`'\"]|[a-z0-9][\w.-]*-)", re.I)
# "`.*p4d-spot.*` or `.*g5-spot.*`, priority 100": two expressions sharing one priority, said for each
_EXPRESSION = r"(?=[\w.*^$\\-]*(?:\.\*|\^|\$))[\w.*^$\\-]+"
_SHARED_PRIORITY = re.compile(rf"(?<![\w.*^$\\-])({_EXPRESSION})([`\"']?)\s+(?:or|and|&|/)\s+([`\"']?)({_EXPRESSION})([`\"']?)"
                              rf"(,?\s+(?:(?:gets?|at|with|both\s+at|both\s+get)\s+)?(?:a\s+)?(?:priority|prio)\s+(?:of\s+)?\d{{1,6}}\b)",
                              re.I)
# "call the PV cv-fsx and the claim imagenet": one verb naming two objects, said for each
_CALL_BOTH = re.compile(r"\b(call|name)\s+the\s+([a-z][\w-]*)\s+([`'\"]?[a-z0-9][\w.-]*[`'\"]?)\s+and\s+the\s+"
                        r"(?=[a-z][\w-]*\s+[`'\"]?[a-z0-9][\w.-]*[`'\"]?(?:[\s,.;]|$))", re.I)
# An upper bound said as what must not happen: "GPU requests must not exceed 20", "pod count not to exceed
# 75", "never exceeds 8", "no higher than 10": "at most"
_MUST_NOT_EXCEED = re.compile(
    r"\b(?:(?:must|may|shall|should|can|will|does|do|is)\s+not|cannot|can't|mustn't|shouldn't|won't|doesn't|not\s+to|"
    r"never|(?:should|must|may|will|can)\s+never)\s+(?:ever\s+)?(?:exceed|exceeds|be\s+(?:more|greater|higher|larger|bigger)\s+than|"
    r"go\s+(?:above|over|past|beyond)|grow\s+(?:past|beyond|above))(?=\s+(?:\d|" + _NUM[1:-1] + r"))|"
    r"\b(?:no\s+(?:higher|greater)|never\s+(?:ever\s+)?more)\s+than(?=\s+(?:\d|" + _NUM[1:-1] + r"))", re.I)


# what a size may describe rather than set: the data, the model, its weights
_DATA_NOUN = re.compile(r"\b(?:weights?|model|checkpoints?|dataset|data|corpus|files?|images?|shards?|download)\b", re.I)
# "the weights are about 25 GB": what the data weighs, said of the data
_DATA_SIZE_SAID = re.compile(_DATA_NOUN.pattern + r"[^.;,]{0,20}?\b(?:is|are|was|were|weigh\w*|take\w*|come\w*\s+to|total\w*)\s+"
                             r"(?:about|around|roughly|approx\w*|nearly|almost|some|~)\s*~?\s*$", re.I)


# a chat line: an optional time stamp, the speaker's handle, a colon, what they said ("[10:02] dana: take 4")
_CHAT_LINE = re.compile(r"(?m)^(?:\[?\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\]?[ \t]*)?"
                        r"@?([A-Za-z][\w.-]{0,23})[ \t]*:[ \t]+(?=\S)", re.I)
# handles that are a form's field names or a requirement's label, never a speaker's (with :data:`_FIELD_LABELS`,
# the labels :func:`_thread_turns` never takes for speakers either)
_FIELD_HANDLES = frozenset("""gpu gpus cpu memory replicas queue model requirement req constraints ask question answer
field type size workers nodes command args env error warning events must should may shall eta owner team tenant
action example input output expected actual current desired before after old new fix acceptance criteria
priority deadline due details title""".split())


def is_chat(text: str) -> bool:
    """Is ``text`` a plain pasted chat thread: lines led by two speakers' handles or more, one of them speaking
    twice or more? (Mail threads, quoted or bulleted speaker lines are read turn by turn by
    :func:`_thread_turns` instead; a plain thread is flattened while normalising, :func:`_chat_lines`.)"""
    if text.count("\n") < 2:
        return False
    # (an upper-case label is a requirement's or a field's: "MUST:", "SHOULD:", "NOTE:")
    if "```" in text or re.search(r"(?m)^(?:apiVersion|kind|metadata|spec):", text):
        return False  # a pasted file's keys, not speakers
    handles = [m.group(1).lower() for m in _CHAT_LINE.finditer(text) if m.group(1).lower() not in _FIELD_HANDLES
               and m.group(1).lower() not in _FIELD_LABELS and not (len(m.group(1)) >= 2 and m.group(1).isupper())]
    return len(set(handles)) >= 2 and max(handles.count(h) for h in set(handles)) >= 2


def _chat_lines(text: str) -> str:
    """A pasted chat thread as the messages it holds: the time stamps and speakers' handles go, each message
    ends as a sentence ("[10:03] dana: take 4" -> "take 4."). A thread is two handles or more, one of them
    speaking twice or more; a form's field lines ("namespace: x") never repeat a label."""
    if not is_chat(text):
        return text
    found = [(m, m.group(1).lower()) for m in _CHAT_LINE.finditer(text)
             if not (len(m.group(1)) >= 2 and m.group(1).isupper())]
    handles = [h for _m, h in found if h not in _FIELD_HANDLES and h not in _FIELD_LABELS]
    speakers = {h for h in handles if handles.count(h) >= 2} | {h for _m, h in found if
                                                                 h in handles and re.search(r"\d:\d", _m.group(0))}
    out, last = [], 0
    for m, h in found:
        if h not in speakers and not (h in handles and len(set(handles)) >= 2 and handles.count(h) == 1
                                      and _chat_neighbours(found, m, speakers)):
            continue
        out.append(text[last:m.start()])
        last = m.end()
    out.append(text[last:])
    lines = _chat_answers("".join(out).split("\n"))
    # a message ends as a sentence; one that ends on a reference, a path or a command's flag and value ends its
    # paragraph instead (a period would join the value)
    def end(ln: str) -> str:
        if not ln.strip() or re.search(r"[.!?;,:`]$", ln.rstrip()):
            return ln.rstrip()
        return ln.rstrip() + ("\n" if re.search(r"/\S*$|\s-{1,2}\w+\s+\S+$", ln.rstrip()) else ".")
    return "\n".join(end(ln) for ln in lines)


# a message that opens with a bare amount, after words of agreeing or choosing ("fine, 12.", "more like 10",
# "take 4, leave 2", "ok let's do 8 then", "4?"): the amount answers what the thread is counting
_BARE_ANSWER = re.compile(r"^(\s*(?:(?:ok(?:ay)?|fine|yep|yeah|yes|sure|alright|right|so|hmm+|k)[,.!]*\s+)*"
                          r"(?:(?:let'?s\s+(?:do|go\s+with|say|use)|take|make\s+it|more\s+like|go\s+with|use|maybe|"
                          r"how\s+about|what\s+about)\s+)?)(\d+)(?=\s*(?:[.!?,;]|\.\.\.|$|then\b|is\b|it\s+is\b|sounds\b|"
                          r"should\b|works\b|[\u2014\u2013-]\s))", re.I)
# what a thread counts: "how many nodes?", "how many per gpu?", or the noun after an amount ("6 boxes", "16 gpus")
_COUNTED_ASKED = re.compile(r"\bhow\s+(?:many|much)\s+((?:per\s+)?[a-z][\w-]*)", re.I)
_COUNTED_SAID = re.compile(r"(?<![\w.:/-])\d+\s+((?:per\s+)?[a-z][a-z-]*)", re.I)
_NOT_COUNTED = frozenset("""is are was were of or and to more less than a an the it i we you they for in on at
with as by from per then max min tops total each pods? so""".split())


# an amount chosen after other words of a message ("scratch what I said, node 4 is back, go with the original 4")
_CHOSEN_LATE = re.compile(r"(?:[,;:\u2014\u2013]|\s-)\s*(?:so\s+|then\s+)?(?:let'?s\s+)?(?:go\s+with|take|do|make\s+it)\s+(?:the\s+(?:original|first|earlier|"
                          r"initial)\s+)?(\d+)(?=\s*(?:[.!?]|$|then\b))", re.I)


def _chat_answers(messages: list[str]) -> list[str]:
    """A thread's bare amounts with what they count, from the question or amount before them ("how many
    nodes? there are 6 boxes free" / "take 4" -> "take 4 boxes"), so that the thread's last word on a
    value can be read as such."""
    counted: str | None = None
    out = []
    for msg in messages:
        m = _BARE_ANSWER.match(msg)
        if m and counted:
            msg = f"{msg[:m.end(2)]} {counted}{msg[m.end(2):]}"
        elif m := _CHOSEN_LATE.search(msg):  # "..., go with the original 4": what the message counted before, or
            own = [f.group(1) for f in _COUNTED_SAID.finditer(msg, 0, m.start())  # the thread
                   if f.group(1).lower().split()[-1] not in _NOT_COUNTED]
            noun = own[-1] if own else counted if counted and counted.lower().endswith("s") else None
            if noun:  # (a thread's noun when it counts things: "16 default" counts nothing)
                msg = f"{msg[:m.end(1)]} {noun}{msg[m.end(1):]}"
        for found in sorted([*_COUNTED_ASKED.finditer(msg), *_COUNTED_SAID.finditer(msg)], key=lambda x: x.start()):
            noun = found.group(1).lower()
            if noun.split()[-1] not in _NOT_COUNTED:
                counted = found.group(1)
        out.append(msg)
    return out


def _chat_neighbours(found: list, m: re.Match[str], speakers: set[str]) -> bool:
    """Is a one-time handle's line between lines of the thread's speakers (a third person chiming in once)?"""
    i = next(k for k, (x, _h) in enumerate(found) if x is m)
    return any(h in speakers for _x, h in found[max(0, i - 1):i]) and any(h in speakers for _x, h in found[i + 1:i + 2])


# an amount at a rate naming what it is for ("one GPU per worker", "8 gpus each"): before an object's name
_RATE_OF = r"(?<![\w.-])(?:\d+|one|two|three|four|eight|no|zero)\s+[A-Za-z]+\s+(?:per|each|a|for\s+each|for\s+every)"
_LIST_JOIN = re.compile(r"\s*(?:\+|,|&|\band\b|\bplus\b)\s*(?:an?\s+)?", re.I)
# words that speak of every object listed at once: "none of them may kick anybody out", "all three preempt"
_OF_ALL = re.compile(r"(?<![\w-])(?:(?:none|all|each|every\s+one|neither|both|any)\s+of\s+(?:them|these|those|the\s+(?:[\w-]+\s+)?[\w-]+s)|"
                     r"(?:they|these|those)\s+all|all\s+(?:two|three|four|five|six|\d)\b(?:\s+(?:of\s+them|[\w-]+s))?)(?![\w-])", re.I)


def _mention_of(names: set[str]) -> re.Pattern[str]:
    """One of ``names`` as a word, with an amount at a rate before it ("one GPU per worker")."""
    return _compile(rf"(?:{_RATE_OF}\s+)?(?<![\w-]){_words_alt(sorted(names))}(?![\w-])")


# "uid/gid 1001 / 1001", "cpu/mem: 8/32Gi", "min/max 2/8": two names, then their two values in the same order
_PAIRED_SLASH = re.compile(r"(?<![\w./:-])([A-Za-z][A-Za-z_-]{1,15})\s*/\s*([A-Za-z][A-Za-z_-]{1,15})(\s*(?:[:=|]|\bis\b|\bare\b)?\s*)"
                          # ("CPU / RAM: 96 cores / 768Gi": a unit word may follow the first amount)
                          r"(\d+(?:\.\d+)?[A-Za-z]{0,3}(?:\s+(?:cores?|vcpus?|cpus?|gpus?|nodes?|pods?))?)\s*/\s*"
                          r"(\d+(?:\.\d+)?[A-Za-z]{0,3})(?![\w./-])", re.I)
_MISTYPED_MODAL = re.compile(r"(?<![\w'-])([a-z]{4,7})(?=\s+(?:be|have)\b)")


def _modal_fixed(m: re.Match) -> str:
    w = m.group(1)
    return next((v for v in _MODALS if v != w and len(v) >= 5 and within_one_edit(w, v)), w)


# A dictated name: "bert dash large dash pretrain" is bert-large-pretrain, "sweep dash h p o" sweep-hpo
# (letters spelled one by one are one word)
_SPOKEN_DASH = re.compile(r"(?<=[A-Za-z0-9])(?:[ \t]+|[ \t]*\n[ \t]*)(?:dash|hyphen)(?:[ \t]+|[ \t]*\n[ \t]*)(?:([a-z](?:[ \t]+[a-z])+)(?![\w-])|(?=[A-Za-z0-9]))",
                          re.I)


_NO_NAME_BEFORE_DASH = re.compile(r"(?:^|\s)(?:a|an|the|one|no|this|that|some)$", re.I)
_NO_NAME_AFTER_DASH = re.compile(r"(?:of|to|for|and|or)\b", re.I)


# dictated symbols ("horovod slash horovod colon latest", "pytorch underscore synthetic underscore benchmark dot py",
# "dash dash batch dash size"): read as the symbols once a request spells several of them out
_SPOKEN_SYMBOLS = re.compile(r"\b(?:dash|hyphen|slash|underscore|colon|dot)\b", re.I)
_SPOKEN_JOIN = re.compile(r"(?<=[A-Za-z0-9])(?:[ \t]+|[ \t]*\n[ \t]*)(slash|underscore|colon|dot)(?:[ \t]+|[ \t]*\n[ \t]*)"
                          r"(?=[A-Za-z0-9])", re.I)
_SPOKEN_LEAD = re.compile(r"(?<![\w-])(?:dash[ \t]+dash|double[ \t]+dash)[ \t]+(?=[A-Za-z])|(?<=[ \t])slash[ \t]+(?=[A-Za-z])", re.I)
_SPOKEN_GPUS = re.compile(r"\bgee[ \t]+pee[ \t]+(?:you|u)(s|'s)?\b|\bgee[ \t]+pee[ \t]+use\b", re.I)


_SPOKEN_NUMBER = r"(?:zero|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?|" \
                 r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|" \
                 r"seventeen|eighteen|nineteen)"
# ... a part read digit by digit ("zero five" is 05)
_SPOKEN_DIGITS = r"(?:(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\s+)+(?:zero|one|two|three|four|five|six|seven|eight|nine)"
_SPOKEN_VERSION = re.compile(rf"\b{_SPOKEN_NUMBER}(?:\s+point\s+(?:{_SPOKEN_DIGITS}|{_SPOKEN_NUMBER})){{1,3}}\b", re.I)


def _spoken_part(words: str) -> str:
    """One part of a version read out: "twenty eight" is 28, "zero five" is 05."""
    if re.fullmatch(_SPOKEN_DIGITS, words.strip(), re.I):
        return "".join(str(parse_number("zero" if w.lower() == "oh" else w)) for w in words.split())
    return str(parse_number(words.strip()))


def _dictated(text: str) -> str:
    """A voice note's spelled-out symbols as written ("h100 dash mig dash parted" is "h100-mig-parted",
    "four gee pee use" four GPUs), when it spells out three or more."""
    text = _SPOKEN_GPUS.sub(lambda m: "GPUs" if (m.group(1) or m.group(0).lower().endswith("use")) else "GPU", text)
    if len(_SPOKEN_SYMBOLS.findall(text)) < 3:
        return text
    sym = {"slash": "/", "underscore": "_", "colon": ":", "dot": "."}
    # "zero point twenty eight point one": a version read out, its parts joined by points
    text = _SPOKEN_VERSION.sub(lambda m: ".".join(_spoken_part(p) for p in re.split(r"\s+point\s+", m.group(0))), text)
    # "colon v zero point six point three": the version's "v" (or "vee") is written onto it
    text = re.sub(r"(?<![\w-])(?:v|vee)\s+(?=\d+(?:\.\d+)+\b)", "v", text, flags=re.I)
    # "python slash examples slash x dot py": an interpreter runs a path, it is no part of it
    text = re.sub(r"\b(python3?|bash|sh|torchrun|node)[ \t]+slash[ \t]+(?=[A-Za-z])", r"\1 /", text, flags=re.I)
    text = _SPOKEN_JOIN.sub(lambda m: sym[m.group(1).lower()], text)
    return _SPOKEN_LEAD.sub(lambda m: "/" if m.group(0).lower().startswith("slash") else "--", text)


def _spoken_dash(m: re.Match) -> str:
    if _NO_NAME_BEFORE_DASH.search(m.string, max(0, m.start() - 6), m.start()) or \
            _NO_NAME_AFTER_DASH.match(m.string, m.end()):
        return m.group(0)  # "a dash of salt": the noun
    return "-" + "".join((m.group(1) or "").split())


# A fence around words, not code: a commit message, notes or a ticket pasted in ``` marks ("```\nfeat(gpu-
# operator): ClusterPolicy for the DGX pod\n\nDGX OS ships the driver ...\n- MIG: mixed strategy\n```") is the
# request's own prose. A fence is prose when it has no language other than text or markdown, most of its
# lines are runs of five or more words, and none is shaped like code, a config key line, a command or columns.
_PROSE_FENCE = re.compile(r"```([\w+-]*)[ \t]*\n(.*?)\n?```", re.S)
_CODE_LINE = re.compile(r"^\s*(?:[$#>{}\[\]<]|apiVersion\b|kind\s*:|[\w.\"'-]+\s*[:=]\s*$|[\w.-]+\s*=\s*\S|\w+\(.*\)\s*[;{]?\s*$)|"
                        # (a command's options; an assignment anywhere, "export GPUS=2 NS=x")
                        r"\S {2,}\S|[;{}]\s*$|(?:^|\s)-{1,2}[A-Za-z][\w-]*(?:=|\s+\S)|(?:^|\s)[A-Za-z_][\w.-]*=\S")


# the request asks for a pasted file's TODO comments to be done: "let's finally do the TODOs", "apply the TODOs"
_DO_TODOS = re.compile(r"\b(?:do|apply|resolve|address|action|implement|handle|fix|finish|close\s+out)\s+"
                       r"(?:(?:the|all|those|these|our|its|my|every)\s+){0,2}(?:(?:open|remaining|pending)\s+)?to-?dos?\b|"
                       r"\bto-?dos?\s+(?:applied|done|resolved)\b", re.I)
# a settings line with its TODO: "replicas: 1   # TODO: bump to 2 once rack 2 is in", "queue: \"\"  # TODO: admit
# through the kueue LocalQueue `serving-lq`"
_TODO_LINE = re.compile(r"(?m)^(?P<key>[ \t]*(?:-[ \t]+)?[\"']?[A-Za-z_][\w./-]*[\"']?[ \t]*[:=][ \t]*)(?P<value>[^#\n]*?)"
                        r"[ \t]+#[ \t]*(?:TODO|FIXME)\b[:\s-]*(?P<todo>[^\n]*)$", re.I)
_TODO_VALUE = re.compile(r"\b(?:to|use|be|into|with|->|→)\s+[\"'`]?(?P<v>[\w./:@-]*\w)[\"'`]?", re.I)


def done_todos(text: str) -> str:
    """A pasted file whose TODO comments the request asks to do ("let's finally do the TODOs"): each
    setting takes the value its TODO names ("# TODO: bump to 2", "use 1200Gi", "... the LocalQueue
    `serving-lq`"); a TODO that names none stays a comment."""
    if "todo" not in text.lower() or not _DO_TODOS.search(text):
        return text

    def done(m: re.Match) -> str:
        todo = m.group("todo")
        code = re.findall(r"`([^`\s]+)`", todo)
        said = _TODO_VALUE.search(todo)
        value = code[0] if len(code) == 1 else said.group("v") if said else None
        if value is None:
            return m.group(0)
        return f"{m.group('key')}{value}"
    return _TODO_LINE.sub(done, text)


# a Markdown table's row: "| memory | 256Gi | 768Gi | 3Ti |"
_MARKDOWN_ROW = re.compile(r"(?m)^[ \t]*\|(?P<cells>[^\n]*\|)[ \t]*$")
# the words that pick one column of a table to build: "only build **staging** now", "staging only", "for prod"
_PICK_BEFORE = r"(?:build|create|generate|make|provision|deploy|render|roll\s+out|set\s+up|apply|only|just|for|want)"
_PICK_AFTER = r"(?:only|now|today|first|column|environment|env|cluster|one)"


# a section of a request per environment or variant: "[prod]   <- build this one", "## staging"
_SECTION_HEAD = re.compile(r"(?m)^[ \t]*(?:\[(?P<a>[A-Za-z][\w .-]{0,30}?)\]|#{1,4}[ \t]+(?P<b>[A-Za-z][\w.-]{0,30}))(?P<rest>[^\n]*)$")
# a section's header marked as the one to build: "<- build this one", "(this one)", "← deploy this"
_PICKED_HEAD = re.compile(r"(?i)(?:<-+|\u2190|=>|\(|\bbuild\b|\bdeploy\b)[ \t]*(?:build|deploy|this|use|the\s+one)\b")


def _chosen_section(text: str) -> str:
    """Sections per environment or variant ("[dev]", "[staging]", "[prod]   <- build this one") of which one is
    marked or picked by the words ("build prod only"): that section alone."""
    heads = list(_SECTION_HEAD.finditer(text))
    if len(heads) < 2:
        return text
    spans = [(h, h.start(), heads[k + 1].start() if k + 1 < len(heads) else len(text)) for k, h in enumerate(heads)]
    marked = [k for k, (h, _a, _b) in enumerate(spans) if _PICKED_HEAD.search(h.group("rest"))]
    if not marked:
        outside = text[:heads[0].start()]
        marked = [k for k, (h, _a, _b) in enumerate(spans) if re.search(
            rf"(?i)\b(?:build|deploy|provision|render|create|generate|set\s+up)\s+(?:only\s+|just\s+)?(?:the\s+)?"
            rf"{re.escape((h.group('a') or h.group('b')).strip())}\b", outside)]
    if len(marked) != 1:
        return text
    keep = spans[marked[0]]
    return text[:heads[0].start()] + text[keep[1]:keep[2]]


def chosen_column(text: str) -> str:
    """A settings table with one column per environment or variant ("| setting | dev | staging | prod |")
    of which the words pick one ("only build staging now"): the table with that column alone, so that the
    other columns' values are no candidates. A table whose columns the words do not pick stays whole; so do
    sections per environment, one of them marked or picked (:func:`_chosen_section`)."""
    text = _chosen_section(text)
    if "|" not in text:
        return text
    rows = list(_MARKDOWN_ROW.finditer(text))
    if len(rows) < 3:
        return text
    out, last, i = [], 0, 0
    while i < len(rows):
        j = i
        while j + 1 < len(rows) and rows[j + 1].start() == rows[j].end() + 1:
            j += 1
        block = rows[i:j + 1]
        i = j + 1
        cells = [[c.strip() for c in r.group("cells").split("|")[:-1]] for r in block]
        head = [re.sub(r"[*_`]", "", c).strip() for c in cells[0]]
        if len(head) < 3 or any(len(c) != len(head) for c in cells):
            continue
        a, b = block[0].start(), block[-1].end()
        outside = text[:a] + "\n" + text[b:]
        picked = [k for k, h in enumerate(head[1:], 1) if h and re.search(
            rf"(?i)\b{_PICK_BEFORE}\s+(?:(?:the|in|on|to)\s+)?[*_`]*{re.escape(h)}[*_`]*(?![\w-])|"
            rf"(?<![\w-])[*_`]*{re.escape(h)}[*_`]*\s+{_PICK_AFTER}\b", outside)]
        if len(picked) != 1:
            continue
        k = picked[0]
        out.append(text[last:a] + "\n".join(f"| {c[0]} | {c[k]} |" for c in cells))
        last = b
    return "".join(out) + text[last:] if out else text


# a template's placeholder: "<GPU_COUNT>", "${REPLICAS}", "{{ .Values.gpu }}", "{{ name }}"
_PLACEHOLDER = re.compile(r"<(?P<a>[A-Za-z][\w-]*)>|\$\{(?P<b>[A-Za-z_]\w*)\}|\{\{-?\s*\.?(?:Values\.)?(?P<c>[\w.-]+)\s*-?\}\}")


def filled_template(text: str) -> str:
    """A template pasted with the values to fill in ("shards: <SHARDS>" ... "SHARDS = 1200", "image: ${IMAGE}" ...
    "IMAGE: ghcr.io/x:1", "{{ .Values.gpu }}" ... ".Values.gpu = 1"): the template with each placeholder
    replaced by its value, and the lines that gave the values taken as said by it. Two placeholders with a
    value at least; a placeholder nothing fills stays as written."""
    if not any(c in text for c in "<${"):
        return text
    names = {m.group("a") or m.group("b") or m.group("c") for m in _PLACEHOLDER.finditer(text)}
    if len(names) < 2:
        return text
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    given = re.compile(rf"(?m)^[ \t]*(?:[-*][ \t]+)?(?:export[ \t]+)?(?:\$\{{)?(?:\.?Values\.|\.)?(?P<name>{alt})\}}?[ \t]*"
                       rf"(?:[:=]|->|\u2192|[ \t](?=[ \t]*\S))[ \t]*(?P<value>[^\s#][^\n]*?)[ \t]*$")
    values: dict[str, str] = {}
    lines: list[tuple[int, int]] = []
    for m in given.finditer(text):
        if _PLACEHOLDER.search(m.group("value")) or m.group("name") in values:
            continue  # the template's own line ("name: ${JOB_NAME}"), or a name given twice
        values[m.group("name")] = m.group("value").strip().strip("\"'")
        lines.append(m.span())
    if len(values) < 2:
        return text
    out, last = [], 0
    for a, b in lines:
        out.append(text[last:a])
        last = b + 1 if text[b:b + 1] == "\n" else b
    kept = "".join(out) + text[last:]
    return _PLACEHOLDER.sub(lambda m: values.get(m.group("a") or m.group("b") or m.group("c"), m.group(0)), kept)


def unfenced_prose(text: str) -> str:
    """``text`` with the fences that hold prose taken away, their words kept (see ``_PROSE_FENCE``)."""
    if "```" not in text:
        return text

    def prose(m: re.Match) -> str:
        if m.group(1).lower() not in ("", "text", "txt", "markdown", "md"):
            return m.group(0)
        lines = [ln for ln in m.group(2).split("\n") if ln.strip()]
        if len(lines) < 2 or any(_CODE_LINE.search(ln) for ln in lines):
            return m.group(0)
        worded = sum(1 for ln in lines if len(re.findall(r"[A-Za-z][\w'-]*", ln)) >= 5)
        return m.group(2) if worded * 2 >= len(lines) else m.group(0)

    return _PROSE_FENCE.sub(prose, text)


# Markdown and Slack marks: "~~8~~ 12 GPUs", "on-demand ~and spot~ only" strike a value out (the writer
# took it back); "**GPU allocation:** 12" only stresses a label
_STRUCK = re.compile(r"~~(?=\S)[^~\n]*?(?<=\S)~~|(?<![\w~])~(?=[A-Za-z0-9])[^~\n]*?(?<=[\w.)%])~(?![\w~])")
_BOLD = re.compile(r"(\*\*|__)(?=\S)([^*\n]+?)(?<=\S)\1")


def _markdown_marks(text: str) -> str:
    if "~" in text:
        text = _STRUCK.sub(" ", text)
    if "**" in text or "__" in text:
        text = _BOLD.sub(r"\2", text)
    return text


# a variable set in a pasted Makefile or shell script ("NP ?= 16", "export NGPU=8") and used in a command
_VAR_SET = re.compile(r"(?m)^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*[?:+]?=[ \t]*([^\s#$\\\"'`](?:[^\n#$\\\"'`]*[^\s#$\\\"'`])?)[ \t]*(?:#[^\n]*)?$")


# a Makefile rule's target line, its recipe lines led by a tab: "allreduce:" above "\tmpirun -np 16 ..."
_MAKE_TARGET = re.compile(r"(?m)^[A-Za-z_][\w.-]*[ \t]*:(?!=)[^\n=]*\n(?=\t)")


def _shell_assignments(text: str, shell_only: bool = False) -> dict[str, str]:
    """"export NODES=4 GPUS=8  # comment", "NP ?= 16": the variables a pasted script or Makefile sets, in order;
    a line of several ``NAME=value`` words sets each."""
    import shlex

    values: dict[str, str] = {}
    for line in text.splitlines():
        body = re.sub(r"^[ \t]*(?:export|local|readonly|declare(?:[ \t]+-\w+)?)[ \t]+", "", line)
        if body == line and not re.match(r"[ \t]*[A-Za-z_]\w*=\S", line):
            continue
        try:
            words = shlex.split(body, comments=True)
        except ValueError:
            continue
        pairs = [w.split("=", 1) for w in words]
        if pairs and all(len(p) == 2 and re.fullmatch(r"[A-Za-z_]\w*", p[0]) for p in pairs):
            for k, v in pairs:
                values.setdefault(k, v)
    for m in () if shell_only else _VAR_SET.finditer(text):
        values.setdefault(m.group(1), m.group(2))
    return values


def _shell_arithmetic(expr: str) -> str | None:
    """"$((6 * 4))" as the shell works it out: integers with + - * and / (whole division), nothing else."""
    import ast

    from .foreign import evaluated

    try:
        got = evaluated(ast.parse(expr.strip().replace("/", "//"), mode="eval").body)
    except (SyntaxError, ValueError):
        return None
    return str(got) if isinstance(got, int) and not isinstance(got, bool) else None


def expanded_variables(text: str, shell_only: bool = False) -> str:
    """A command that uses a variable the paste sets ("mpirun -np $(NP)" after "NP ?= 16", "${NGPU}",
    "$((NODES * GPUS))") reads with its value, as the shell or make would run it (``shell_only``: only the
    variables a shell line sets, "export N=4" or "N=4 M=8"; "N = 4" in a list of values is a template's)."""
    # (the target names what make builds: its recipe's command is the pasted command)
    text = _MAKE_TARGET.sub("\n", text)
    if "$" not in text:
        return text
    values = _shell_assignments(text, shell_only)
    if not values:
        return text
    use = re.compile(r"\$(?:\(\(([^()\n]{1,80})\)\)|\(([A-Za-z_]\w*)\)|\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*)\b)")

    def sub(m: re.Match, known: dict[str, str]) -> str:
        if m.group(1) is not None:  # arithmetic: its names are the variables, with or without "$"
            expr = re.sub(r"\$?\{?([A-Za-z_]\w*)\}?", lambda v: known.get(v.group(1), v.group(0)), m.group(1))
            return _shell_arithmetic(expr) or m.group(0)
        return known.get(m.group(2) or m.group(3) or m.group(4), m.group(0))
    for _ in range(3):  # a value set from others ("GPU_QUOTA=$((NODES * GPUS))")
        values = {k: use.sub(lambda m: sub(m, values), v) for k, v in values.items()}
    return use.sub(lambda m: sub(m, values), text)


# a typed field with its default in a pasted dataclass or settings model: "capacity_gib: int = 4800"
_TYPED_DEFAULT = re.compile(r"(?m)^([ \t]*)([A-Za-z_]\w*)[ \t]*:[ \t]*[A-Za-z_][\w.\[\], \"'|]{0,60}?[ \t]+=(?!=)[ \t]+(\S[^\n]*)$")
_ENV_PREFIX = re.compile(r"""env_prefix\s*=\s*["']([A-Za-z_]\w*)["']""")


def python_defaults(text: str) -> str:
    """A pasted dataclass or settings model read as its values: "fs_id: str = \"fs-0a1\"" says fs_id = "fs-0a1"
    (the type is no value); with an ``env_prefix``, a variable the paste sets ("MIG_PROFILE=1g.6gb") overrides
    its field's default, as pydantic-settings does."""
    if not _TYPED_DEFAULT.search(text):
        return text
    overrides: dict[str, str] = {}
    pm = _ENV_PREFIX.search(text)
    if pm:
        prefix = pm.group(1).lower()
        for k, v in _shell_assignments(text).items():
            if k.lower().startswith(prefix) and len(k) > len(prefix):
                overrides[k.lower()[len(prefix):]] = v

    def field(m: re.Match) -> str:
        value = m.group(3)
        if m.group(2).lower() in overrides:
            value = json.dumps(overrides[m.group(2).lower()])
        return f"{m.group(1)}{m.group(2)} = {value}"
    return _TYPED_DEFAULT.sub(field, text)


# a range the writer then resolves: "between 24 and 40 GPUs, take the top of that range", "anything from 60 to
# 80 %, take the midpoint", "somewhere between 16 and 24 ... I'm giving her the low end of that"
_OPEN_RANGE = re.compile(r"(?<![\w.-])(?:(?:somewhere\s+|anywhere\s+|anything\s+)?(?:between|from)\s+)?(\d+(?:\.\d+)?)[ \t]*"
                         r"([A-Za-z%]{1,6}\b|%)?[ \t]*(?:and|to|-|\u2013|\.\.)[ \t]*(\d+(?:\.\d+)?)(?![\w.]*\d)[ \t]*(%|[A-Za-z]{1,6}\b)?",
                         re.I)
_RANGE_CHOICE = re.compile(r"\b(?:take|use|go\s+(?:with|for)|give(?:\s+\w+)?|giving(?:\s+\w+)?|pick|choose|settle\s+on|"
                           r"aim\s+(?:for|at)|start\s+(?:with|at)|set\s+it\s+(?:to|at)|make\s+it)\s+(?:it\s+at\s+)?(?:the\s+|its\s+)?"
                           r"(?P<low>low(?:er)?[\s-]+end|lower\s+bound|bottom(?:\s+end)?|minimum|lower\s+number|smaller\s+number)?"
                           r"(?P<high>top(?:\s+end)?|upper[\s-]+end|high(?:er)?[\s-]+end|upper\s+bound|maximum|higher\s+number|bigger\s+number|larger\s+number)?"
                           r"(?P<mid>mid-?point|middle|halfway\s+point|half-?way|average|mean)?"
                           r"(?(low)|(?(high)|(?(mid)|(?!))))", re.I)


def _resolved_ranges(text: str) -> str:
    """A range followed, within its sentence or the next, by the end of it the writer takes: the range reads
    as that amount ("between 24 and 40 GPUs, take the top of that range": 40 GPUs)."""
    out, last = [], 0
    for m in _OPEN_RANGE.finditer(text):
        if m.start() < last:
            continue
        a, b = float(m.group(1)), float(m.group(3))
        unit_a, unit_b = (m.group(2) or "").strip(), (m.group(4) or "").strip()
        if a >= b or (unit_a and unit_b and unit_a.lower() != unit_b.lower()) or unit_a.lower() in ("and", "to"):
            continue
        window = text[m.end():m.end() + 220]
        stop = re.search(r"(?<=[.!?])\s+\S[^.!?]*[.!?](?:\s|$)", window)  # its sentence and the next
        window = window[:stop.end()] if stop else window
        c = _RANGE_CHOICE.search(window)
        if c is None or _OPEN_RANGE.search(window, 0, c.start()):
            continue  # (a range between this one and the choice is the one the choice takes from)
        v = a if c.group("low") else b if c.group("high") else (a + b) / 2
        value = str(int(v)) if v == int(v) else str(v)
        unit = m.group(4) or m.group(2) or ""
        out.append(text[last:m.start()] + value + (" " + unit if unit and unit != "%" else unit))
        last = m.end(4) if m.group(4) else m.end(3)
    return "".join(out) + text[last:] if out else text


# a form's line: a label, dot leaders, its value ("  Job name ............. asr-pt")
_LEADER_DOTS = re.compile(r"(?m)^([ \t]*(?:[-*][ \t]+)?[A-Za-z][^\n.:]{0,60}?[\w)\]])(?:[ \t]+(?:\.{3,}|\u2026+|_{3,})|[ \t]*(?:\.{4,}|_{4,}))[ \t]*(?=\S)")
_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]\+?(\d{1,2})(?![\w.])")


# tries counted with the first run: "4 tries in total", "3 attempts overall", "two runs including the first"
_TOTAL_TRIES = re.compile(r"(?<![\w.-])(?:(\d+)\s+(?:tries|attempts|runs)\s+(?:in\s+total|total|overall|altogether|"
                          r"including\s+the\s+first(?:\s+(?:one|run|try|attempt))?)|(\d+)\s+total\s+(?:tries|attempts|runs))\b", re.I)


def _total_tries(m: re.Match) -> str:
    n = int(m.group(1) or m.group(2))
    return f"{n - 1} retries" if n >= 1 else m.group(0)


# a capacity said as so many units of a size: "capacity: 3 x 2400 GiB", "storage 2×1.2 TiB"
_SIZE_TIMES = re.compile(r"(\b(?:capacity|storage|size)\b[^.\n\d]{0,20}?)(\d{1,2})[ \t]*[x\u00d7*][ \t]*(\d+(?:\.\d+)?)[ \t]*"
                         r"(GiB|TiB|Gi|Ti|GB|TB)\b", re.I)


def _size_times(m: re.Match) -> str:
    v = Fraction(m.group(3)) * int(m.group(2))
    return f"{m.group(1)}{int(v) if v.denominator == 1 else float(v)} {m.group(4)}"


# Words a request that mixes English with German, Spanish, French, Portuguese or Italian writes in the other
# language for amounts, objects and order ("con tres réplicas", "dans le namespace", "d'abord ..., ensuite ...").
# (Words English also writes are left out: "once", "sept".)
_FOREIGN_TERMS = {
    **dict.fromkeys(["dos", "deux", "zwei", "dois", "duas", "due"], "two"),
    **dict.fromkeys(["tres", "três", "trois", "drei", "tre"], "three"),
    **dict.fromkeys(["cuatro", "quatre", "vier", "quatro", "quattro"], "four"),
    **dict.fromkeys(["cinco", "cinq", "fünf", "funf", "cinque"], "five"),
    **dict.fromkeys(["seis", "sechs", "sei"], "six"),
    **dict.fromkeys(["siete", "sieben", "sete", "sette"], "seven"),
    **dict.fromkeys(["ocho", "huit", "acht", "oito", "otto"], "eight"),
    **dict.fromkeys(["nueve", "neuf", "neun", "nove"], "nine"),
    **dict.fromkeys(["diez", "zehn", "dez", "dieci"], "ten"),
    **dict.fromkeys(["doce", "douze", "zwölf", "doze", "dodici"], "twelve"),
    **dict.fromkeys(["réplicas", "répliques", "repliques", "replikate", "repliche", "réplica", "réplique"], "replicas"),
    **dict.fromkeys(["nodos", "nœuds", "noeuds", "knoten", "nós", "nodi"], "nodes"),
    **dict.fromkeys(["trabajadores", "travailleurs"], "workers"),
    **dict.fromkeys(["memoria", "mémoire", "memoire", "speicher", "arbeitsspeicher", "memória"], "memory"),
    **dict.fromkeys(["espacio de nombres", "espace de noms", "espaço de nomes"], "namespace"),
    **dict.fromkeys(["primero", "d'abord", "zuerst", "primeiro", "prima"], "first"),
    **dict.fromkeys(["luego", "después", "ensuite", "puis", "danach", "dann", "depois", "poi"], "then"),
    **dict.fromkeys(["sin", "ohne", "sem", "senza", "sans"], "without"),
    **dict.fromkeys(["et", "und"], "and"),
    **dict.fromkeys(["pas de", "kein", "keine", "keinen", "ningún", "ninguna", "nenhum", "nenhuma"], "no"),
    # (an article is "a": "une instance 3g.40gb" is one instance, as "a" says it)
    **dict.fromkeys(["un", "une", "uno", "una", "ein", "eine", "einen", "um", "uma"], "a"),
    **dict.fromkeys(["llamado", "llamada", "appelé", "appelée", "genannt", "chamado", "chamada", "chiamato"], "named"),
}
_FOREIGN_TERM = re.compile(r"(?<![\w'-])(?:" + "|".join(sorted((re.escape(k) for k in _FOREIGN_TERMS), key=len, reverse=True))
                           + r")(?![\w'-])", re.I)


def _in_english(text: str) -> str:
    """A request that mixes in another language (three of its function words) with those words of amounts,
    objects and order in English; a request in English alone is left as it is."""
    from ..text import other_language_words

    others = other_language_words()
    if not others or sum(1 for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.lower()) if w in others) < 3:
        return text
    return _FOREIGN_TERM.sub(lambda m: _FOREIGN_TERMS[m.group(0).lower()], text)


# an image named with its transport ("image_id: docker:ghcr.io/x/y:1.2", "docker://nvcr.io/nvidia/pytorch:24.05-py3")
_IMAGE_SCHEME = re.compile(r"(?<![\w/-])docker:(?://)?(?=[a-z0-9][\w.-]*(?:\.[\w-]+|:\d+)/[\w./-]+)", re.I)


_DOCKERFILE_FROM = re.compile(r"(?im)^[ \t]*FROM[ \t]+(?:--platform=\S+[ \t]+)?(\S+)(?:[ \t]+AS[ \t]+\S+)?[ \t]*$")
_DOCKERFILE_STEP = re.compile(r"(?m)^[ \t]*(?:RUN|COPY|ADD|ENTRYPOINT|CMD|ENV|WORKDIR|ARG|EXPOSE|USER)\b")
_IMAGE_REF = re.compile(r"(?<![\w./:@-])[a-z0-9][\w.-]*(?:\.[\w-]+|:\d+)?/[\w./-]+:[\w.-]+(?![\w/:@-])")


def _dockerfile_base(text: str) -> str:
    """A pasted Dockerfile's ``FROM`` image is what the image is built on: when the request names the image
    it built ("pushed as registry/x:0.3"), the base is no candidate for the pod's image."""
    froms = list(_DOCKERFILE_FROM.finditer(text))
    if not froms or not _DOCKERFILE_STEP.search(text):
        return text
    bases = {m.group(1) for m in froms}
    rest = _DOCKERFILE_FROM.sub("", text)
    if not any(r.group(0) not in bases for r in _IMAGE_REF.finditer(rest)):
        return text
    return _DOCKERFILE_FROM.sub(lambda m: m.group(0).replace(m.group(1), ""), text)


# the command pasted earlier, referred to: "command exactly as above", "same command", "the command above"
_COMMAND_AS_ABOVE = re.compile(r"\b(?:the\s+)?(?:same\s+command(?:\s+as\s+(?:above|before|today|now))?|"
                               r"command\s+(?:exactly\s+|just\s+)?(?:as\s+(?:above|written|is|before|today)|(?:shown\s+)?above|"
                               r"unchanged)|(?:exact\s+)?command\s+from\s+above)\b(?!\s*(?:,\s*)?(?:but|except|with|plus|and\s+add)\b)",
                               re.I)
_RUN_LINE = re.compile(r"(?m)^[ \t]*(?:\$[ \t]+)?((?:python3?|torchrun|mpirun|mpiexec|deepspeed|accelerate|bash|sh|srun|"
                           r"horovodrun|\./[\w./-]+|/[\w./-]+)[ \t]+\S[^\n]*?)[ \t]*$")


def _command_as_above(text: str) -> str:
    """"Command exactly as above" with one command line pasted before it: that line is the command."""
    m = _COMMAND_AS_ABOVE.search(text)
    if m is None:
        return text
    lines = {c.group(1) for c in _RUN_LINE.finditer(text, 0, m.start()) if "`" not in c.group(1)}
    if len(lines) != 1:
        return text
    return text[:m.start()] + f"command `{lines.pop()}`" + text[m.end():]


def pasted_forms(text: str) -> str:
    """A request's pasted settings as plain values: a dataclass's typed defaults (:func:`python_defaults`), a
    form's dot leaders (:func:`form_leaders`) and required-field stars, a task list's boxes (:func:`task_lists`),
    a box-drawn table as a Markdown one (:func:`drawn_tables`), an image without its ``docker:`` transport, a
    Dockerfile's base image when the request names the image built from it, "the command as above" as the line
    pasted above."""
    text = drawn_tables(task_lists(_REQUIRED_STAR.sub(r"\1:", form_leaders(python_defaults(text)))))
    text = launch_overrides(merged_entries(code_values(numbered_answers(sql_rows(text)))))
    return _command_as_above(_dockerfile_base(_IMAGE_SCHEME.sub("", text)))


# "1. Which file system? 2. Fileset type?": questions numbered on one line (or a quoted block)
_NUMBERED_QUESTION = re.compile(r"(?<![\w.])(\d{1,2})[.)]\s+([^?\n]{2,80}?)\?")


def numbered_answers(text: str) -> str:
    """Answers numbered after numbered questions ("> 1. Which file system? 2. Size?" then "1. `fs_research`"
    and "2. 40 TiB"): each answer read with its question ("Which file system: `fs_research`")."""
    asked: dict[str, str] = {}
    start = end = 0
    for line in re.finditer(r"[^\n]+", text):
        qs = _NUMBERED_QUESTION.findall(line.group(0))
        if len(qs) >= 2 and not asked:
            asked = {n: q.strip() for n, q in qs}
            start, end = line.span()
    if not asked:
        return text
    answered: set[str] = set()

    def answer(m: re.Match) -> str:
        q = asked.get(m.group(2))
        if not q or m.group(3).rstrip().endswith("?"):
            return m.group(0)
        answered.add(m.group(2))
        return f"{m.group(1)}{q}: {m.group(3)}"

    rest = re.sub(r"(?m)^([ \t]*)(\d{1,2})[.)][ \t]+(\S[^\n]*)", answer, text[end:])
    # (the questions, each answered below with its words, say nothing more)
    return text[:start if answered == set(asked) else end] + rest


# "INSERT INTO tiers (name, value, can_preempt) VALUES ('a', 1000, true), ('b', 10, false);": rows of a table
_SQL_INSERT = re.compile(r"INSERT\s+INTO\s+[\w.\"`]+\s*\(([^)]*)\)\s*VALUES\s*((?:\([^()]*\)\s*,?\s*)+);?", re.I)


def sql_rows(text: str) -> str:
    """An SQL ``INSERT`` of rows as the Markdown table of them it is: its columns the header, a row a line."""
    def table(m: re.Match) -> str:
        import csv

        cols = [" ".join(key_words(c.strip().strip('"`'))) for c in m.group(1).split(",")]  # "can_preempt": can preempt
        rows = []
        for r in re.finditer(r"\(([^()]*)\)", m.group(2)):
            try:  # (a row over several lines is one row)
                cells = next(csv.reader([" ".join(r.group(1).split())], quotechar="'", skipinitialspace=True), [])
            except csv.Error:
                return m.group(0)
            if len(cells) != len(cols):
                return m.group(0)
            rows.append("| " + " | ".join(c.strip() for c in cells) + " |")
        return "\n".join(["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols), *rows])

    return _SQL_INSERT.sub(table, text) if "INSERT" in text.upper() else text


# values wrapped in the calls code needs to make them: Go's "ptr.To[int32](4)", "resource.MustParse(\"4\")",
# Java's "new Quantity(\"2560Gi\")", cdk8s's "Size.gibibytes(96)"
_WRAPPED_VALUE = re.compile(r"\b(?:ptr\.To(?:\[\w+\])?|pointer\.(?:Int32|Int64|Int|String|Bool)(?:Ptr)?|"
                            r"(?:int32|int64|string|bool)Ptr|resource\.MustParse|new\s+Quantity|Quantity\.(?:parse|fromString)|"
                            r"(?:kplus\.)?Cpu\.(?:units|millis))\(\s*(\"[^\"\n]*\"|'[^'\n]*'|-?\d+(?:\.\d+)?|true|false)\s*\)")
_SIZE_CALL = re.compile(r"\bSize\.(kibibytes|mebibytes|gibibytes|tebibytes)\(\s*(\d+)\s*\)")
# a builder's setter: ".withName(\"x\")", ".withStorageClassName(\"fast\")", ".addToRequests(\"storage\", \"1Ti\")"
_BUILDER_SET = re.compile(r"\.(?:with|set)([A-Z]\w*)\(\s*(\"[^\"\n]*\"|'[^'\n]*'|-?\d+(?:\.\d+)?|true|false)\s*\)")
# (what a builder adds to a map of resources; a label it adds stays as written, no setting of a recipe)
_BUILDER_ADD = re.compile(r"\.addTo(Requests|Limits|Capacity)\(\s*(\"[^\"\n]*\"|'[^'\n]*')\s*,\s*(\"[^\"\n]*\"|'[^'\n]*'|-?\d+(?:\.\d+)?)\s*\)")
# a Go constant of an enumerated type: "MPIImplementation: kubeflowv2beta1.MPIImplementationTypeIntel"
_GO_ENUM = re.compile(r"\b([A-Z]\w*):([ \t]*)(?:\w+\.)?\1(?:Type)?([A-Z]\w*)\b")


def code_values(text: str) -> str:
    """Values in pasted code as the values they make: a wrapped literal as the literal ("ptr.To[int32](6)" is
    6, "new Quantity(\"2560Gi\")" is "2560Gi", "Size.gibibytes(96)" is "96Gi"), a builder's setter as its
    setting (".withStorageClassName(\"x\")" is "storageClassName: \"x\"", ".addToRequests(\"storage\", \"1Ti\")" is
    "storage: \"1Ti\""), a Go enumerated constant as its value ("MPIImplementationTypeIntel" is "Intel")."""
    text = _WRAPPED_VALUE.sub(lambda m: m.group(1), text)
    text = _SIZE_CALL.sub(lambda m: f'"{m.group(2)}{m.group(1)[0].upper()}i"', text)
    if len(_BUILDER_SET.findall(text)) + len(_BUILDER_ADD.findall(text)) >= 2:
        # (a line of a call with nothing to set, ".withNewMetadata()", ".endSpec()", only builds)
        text = re.sub(r"(?m)^[ \t]*\.\w+\(\)[ \t]*;?[ \t]*\n", "", text)
        text = _BUILDER_SET.sub(lambda m: f"{m.group(1)[0].lower()}{m.group(1)[1:]}: {m.group(2)}", text)
        text = _BUILDER_ADD.sub(lambda m: f"{m.group(2).strip(chr(34) + chr(39))}: {m.group(3)}", text)
    return _GO_ENUM.sub(lambda m: f"{m.group(1)}:{m.group(2)}{m.group(3)}", text)


# a YAML entry that merges another's keys under its own: "ppo-sweep-a:\n  <<: *base"
_MERGED_ENTRY = re.compile(r"(?m)^([ \t]*)([\w.-]+):[ \t]*\n\1[ \t]+<<:[ \t]*\*[\w.-]+")


def merged_entries(text: str) -> str:
    """A YAML paste whose entries merge a shared anchor (``<<: *base``) and override some of its keys, as the
    one entry the request asks for with its keys resolved, the merged keys overridden as YAML does: the entry
    the request names outside the paste, or the only one."""
    if "<<:" not in text:
        return text
    for fence in FENCED_BODY.finditer(text):
        body = fence.group(1)
        entries = [m.group(2) for m in _MERGED_ENTRY.finditer(body)]
        if not entries:
            continue
        outside = text[:fence.start()] + text[fence.end():]
        named = [e for e in entries if re.search(rf"(?<![\w.-]){re.escape(e)}(?![\w-])", outside)]
        chosen = named if len(named) == 1 else entries if len(entries) == 1 else []
        try:
            data = yaml.safe_load(body)
        except yaml.YAMLError:
            continue
        value = _found_key(data, chosen[0]) if chosen else None
        if not isinstance(value, dict):
            continue
        merged = yaml.safe_dump(value, sort_keys=False, default_flow_style=False)
        return text[:fence.start(1)] + merged + text[fence.end(1):]
    return text


# a launcher's override of a config file's key ("python train.py trainer.devices=2 cluster.timeout=300")
_OVERRIDE = re.compile(r"(?<=[ \t])\+{0,2}((?:[A-Za-z_][\w-]*\.)+([A-Za-z_][\w-]*))=([^\s'\"]+)")


def launch_overrides(text: str) -> str:
    """"python launch.py trainer.devices=2 trainer.num_nodes=6" beside a pasted config that sets
    ``devices: 4`` under ``trainer:``: the override wins, as Hydra and OmegaConf have it; the config's line
    reads the overriding value."""
    if "=" not in text or ":" not in text:
        return text
    for m in _OVERRIDE.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if not re.search(r"\b(?:python\d?|torchrun|accelerate|deepspeed|\w+\.py)\b", line):
            continue
        keys = m.group(1).split(".")
        # the config's line of that key, under its parent's ("trainer:\n  devices: 4"), that only one line is
        found = [k for k in re.finditer(rf"(?m)^([ \t]+){re.escape(keys[-1])}:[ \t]*([^\s#][^\n#]*?)[ \t]*(?:#[^\n]*)?$",
                                         text[:m.start()])
                 if re.search(rf"(?m)^[ \t]*{re.escape(keys[-2])}:[ \t]*$", text[:k.start()])]
        if len(found) == 1 and found[0].group(2) != m.group(3):
            k = found[0]
            return launch_overrides(text[:k.start(2)] + m.group(3) + text[k.end(2):])
    return text


# "Namespace*:  nlp-interns": a form's mark of a required field is no part of its label
_REQUIRED_STAR = re.compile(r"(?m)^([ \t]*(?:[-*][ \t]+)?[A-Za-z][\w ()/.-]{0,40}?)[ \t]*\*+[ \t]*:(?=[ \t])")
# "- [x] spot is fine", "* [ ] MIG", "3. [X] taint the nodes": a line of a task list, ticked or not
_TASK_BOX = re.compile(r"(?m)^([ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?)\[([ xX\u2713\u2714])\][ \t]*(?=\S)")


def task_lists(text: str) -> str:
    """A task list's boxes: its lines say what to build, ticked or not (acceptance criteria are all still to do,
    "- [ ] PyTorchJob `x` in `ns`"). Among ticked lines, though, a short option left unticked is one not chosen,
    as on a form: "- [x] L40S GPUs only", "- [ ] A10G" reads "- no A10G"."""
    boxes = list(_TASK_BOX.finditer(text))
    if not boxes:
        return text
    mixed = len({m.group(2) == " " for m in boxes}) == 2

    def box(m: re.Match) -> str:
        if not mixed or m.group(2) != " ":
            return m.group(1)
        line = text[m.end():text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)]
        option = re.sub(r"\([^)]*\)", "", line).strip()  # (a remark in brackets is no part of the option)
        short = len(option.split()) <= 3 and not re.search(r"[:=]|(?<!-)\b(?:on|off|yes|no|not|never)\b(?!-)", option, re.I)
        return m.group(1) + ("no " if short else "")

    return _TASK_BOX.sub(box, text)


# a line of a box-drawn or ASCII grid table that only draws: "┌────┬────┐", "├────┼────┤", "+-----+-----+"
_DRAWN_RULE = re.compile(r"[ \t]*(?:[\u2500-\u257f]+|\+(?:[-=]+\+)+)[ \t]*")
_DRAWN_BAR = re.compile(r"[\u2502\u2503\u2551]")


def drawn_tables(text: str) -> str:
    """A table drawn with box characters (or ASCII "+---+" rules) as the Markdown table it is: its bars as
    pipes, a rule inside it as the header's rule, the rules around it gone."""
    if not _DRAWN_BAR.search(text) and not re.search(r"(?m)^[ \t]*\+(?:[-=]+\+){2,}[ \t]*$", text):
        return text
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if line.strip() and _DRAWN_RULE.fullmatch(line):
            inside = 0 < i < len(lines) - 1 and "|" in _DRAWN_BAR.sub("|", lines[i - 1]) and \
                "|" in _DRAWN_BAR.sub("|", lines[i + 1]) and not _DRAWN_RULE.fullmatch(lines[i - 1])
            prev = _DRAWN_BAR.sub("|", lines[i - 1]) if i else ""
            if inside and prev.strip().startswith("|"):
                out.append("|" + "|".join("---" for _ in range(max(1, prev.strip().count("|") - 1))) + "|")
            continue
        out.append(_DRAWN_BAR.sub("|", line) if _DRAWN_BAR.search(line) else line)
    return "\n".join(out)


# an amount said as a part or multiple of one the request named before: "Deserved share: half the cap"
_PART_OF_NAMED = re.compile(r"\b(half|a\s+third|one\s+third|a\s+quarter|one\s+quarter|twice|double|triple|three\s+times)\s+"
                            r"(?:of\s+)?(?:the|that|our|its|their)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\b", re.I)
_PART_FACTOR = {"half": Fraction(1, 2), "a third": Fraction(1, 3), "one third": Fraction(1, 3), "a quarter": Fraction(1, 4),
                "one quarter": Fraction(1, 4), "twice": Fraction(2), "double": Fraction(2), "triple": Fraction(3),
                "three times": Fraction(3)}
# (nouns that are the amounts' own units are another reading's: "half the GPUs" of a node)
_UNIT_NOUNS = frozenset("gpu gpus node nodes pod pods replica replicas card cards memory cpu cpus core cores time "
                        "size amount number way one ones".split())


def _relative_to_named(text: str) -> str:
    """"Hard cap: 40 GPUs ... Deserved share: half the cap": a part (or multiple) of an amount the request
    gave earlier under that noun reads as the amount it works out to (20 GPUs)."""
    out, last = [], 0
    for m in _PART_OF_NAMED.finditer(text):
        words = m.group(2).split()
        for noun in (" ".join(words), words[0]) if len(words) > 1 else (words[0],):
            if noun.lower() in _UNIT_NOUNS:
                continue
            said = None
            for d in re.finditer(rf"\b{re.escape(noun)}\b[^.;\n\d]{{0,60}}?(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])",
                                 text[:m.start()], re.I):
                # (the amount itself, not one it is a part of: "cap: a third of the 48 GPUs" is no cap of 48)
                said = None if re.search(r"\bof\b|%|\bpercent\b", d.group(0), re.I) else d
            if said is None:
                continue
            v = Fraction(said.group(1)) * _PART_FACTOR[re.sub(r"\s+", " ", m.group(1).lower())]
            if v.denominator != 1:
                break
            # (the number alone: its unit would make it the named amount's own again, "20 GPUs" beside "40 GPUs")
            rest = m.group(0)[m.group(0).lower().rfind(noun.lower()) + len(noun):]
            out.append(text[last:m.start()] + str(int(v)) + rest)
            last = m.end()
            break
    return "".join(out) + text[last:] if out else text


# a thing described, then named in code marks: "our H100 one, `h100-80gb`", "the big one (`gpu-xl`)"
_THE_X_ONE = re.compile(r"\b(?:our|the|their|its)\s+(?:[\w.-]+\s+){1,2}one\s*(?:,|:|\(|-)\s*(`[^`\n]{1,63}`)\)?", re.I)


# "one pod per box" with the machines counted once elsewhere ("on six bare-metal boxes"): as many pods
_ONE_PER_MACHINE = re.compile(r"\b(?:one|1|a\s+single)\s+(pod|worker|replica|rank\s+group|task)\s+per\s+"
                              r"(node|box|machine|host|server)\b", re.I)
_MACHINES = re.compile(r"(?<![\w.-])(" + _NUM_PART + r")\s+(?:(?!(?:pods?|workers?|replicas?|ranks?|tasks?|between|per|of|on|in|across|to|and|or|x)\b)"
                       r"[\w-]+\s+){0,2}?(nodes|boxes|machines|hosts|servers)\b", re.I)


def _one_per_machine(text: str) -> str:
    """"Today I run it on six bare-metal boxes ... one pod per box": one pod on each of the machines the
    request counts once is that many pods (a count of pods, not one)."""
    m = _ONE_PER_MACHINE.search(text)
    if m is None:
        return text
    counts = {parse_number(c.group(1).lower()) for c in _MACHINES.finditer(text)}
    counts.discard(None)
    if len(counts) != 1 or (n := counts.pop()) is None or n < 2:
        return text
    return text[:m.start()] + f"{n} {m.group(1)}s, one per {m.group(2)}" + text[m.end():]


def form_leaders(text: str) -> str:
    """"Namespace ......... speech": a form's label, its dot leaders and its value read as "Namespace: speech"."""
    return _LEADER_DOTS.sub(r"\1: ", text) if len(_LEADER_DOTS.findall(text)) >= 2 else text


def _scientific(m: re.Match) -> str:
    v = Fraction(m.group(1)) * 10 ** int(m.group(2))
    return str(int(v)) if v.denominator == 1 and v < 10 ** 15 else m.group(0)


# what people who do not use Kubernetes call a namespace: "our space on the cluster", "my team's space"
_OUR_SPACE = re.compile(r"\b((?:my|our|their|his|her)(?:\s+team'?s|\s+lab'?s|\s+group'?s)?)\s+(?:own\s+)?space"
                        r"(?:\s+(?:on|in)\s+(?:the|this)\s+cluster)?(?![\w-])", re.I)


@lru_cache(maxsize=256)  # matching and each recipe's reader normalise the same request
def normalise_text(text: str) -> str:
    text = expanded_variables(text)
    text = _SCIENTIFIC.sub(_scientific, text)  # "2.16e4 s": 21600 s
    text = _in_english(text)
    text = _resolved_ranges(text)
    text = _TOTAL_TRIES.sub(_total_tries, text)  # "4 tries in total": the first run and 3 retries
    text = _SIZE_TIMES.sub(_size_times, text)  # "capacity: 3 x 2400 GiB": 7200 GiB
    text = _relative_to_named(text)  # "Hard cap: 40 GPUs. Deserved: half the cap": 20 GPUs
    text = _THE_X_ONE.sub(r"\1", text)  # "the flavor should be our H100 one, `h100-80gb`": `h100-80gb`
    text = _one_per_machine(text)  # "on six boxes ... one pod per box": 6 pods, one per box
    text = _OUR_SPACE.sub(lambda m: m.group(1).split()[0] + " namespace", text)  # "our team's space on the cluster": a namespace
    text = _markdown_marks(text)
    text = _dictated(text)
    text = _SPOKEN_DASH.sub(_spoken_dash, text)
    text = _QA_PAIR.sub(_qa_pair, text)
    text = _MIG_LOOSE.sub(_mig_loose, text)
    text = _chat_lines(text)
    text = _weighed_then_chosen(text)
    text = _SELF_ASKED.sub(r"\1: ", text)
    text = _diff_lines(text)
    text = _ASKED_ANSWERED.sub(_asked_answered, text)
    # (a form's lines, not a pasted file's keys: "driver:\n  enabled: false" in a fence is YAML)
    fences = fence_spans(text)
    text = _FIELD_ANSWERED.sub(lambda m: m.group(0) if any(a <= m.start() < b for a, b in fences)
                               else _asked_answered(m), text)
    text = _REQUIREMENT_LABEL.sub(lambda m: (m.group(1) + (m.group(2) or "")).lower() + " ", text)
    text = _OK_THEN.sub(r"let's do \1", text)
    text = re.sub(r"\b(do|does)n['\u2019]?t\b", r"\1 not", text, flags=re.I)  # "don't schedule": DoNotSchedule's words
    # ("dont retry", "shouldnt preempt": the same without the apostrophe)
    text = re.sub(r"\b(did|is|are|was|should|would|must|could)nt\b", r"\1 not", text, flags=re.I)
    text = _PAIRED_SLASH.sub(r"\1 \4, \2 \5", text)  # "uid/gid: 1001/1001": each name with its own value
    text = _MISTYPED_MODAL.sub(_modal_fixed, text)  # "the name shoud be x": a modal before "be", mistyped
    text = _SINGLE_QUANTIFIER.sub(r"\1 ", text)
    text = _CAPPED_SINGLE.sub(r"\1any ", text)
    text = _EACH_ONE.sub(lambda m: f"one {m.group(3)} per {m.group(1)}"
                         if m.group(3).lower() not in ("of", "more", "other", "another", "at") else m.group(0), text)
    text = _NOT_ALLOWED.sub(r"no \1", text)
    text = _FROM_TO.sub(_from_to, text)
    text = _FROM_TO_NAMED.sub(r"\1to ", text)
    text = _NOUN_FROM_TO.sub(_noun_from_to, text)
    text = _DOWN_THEN_UP.sub(r"\1 \2", text)
    text = _NOUN_THEN_RANGE.sub(lambda m: f"{m.group(2)} to {m.group(3)} {m.group(1)}"
                                if int(m.group(2)) < int(m.group(3)) else m.group(0), text)
    text = _LABELED_ARROW.sub(r"\1", text)
    text = _PIECES_OF.sub(r"\1 ", text)
    text = _DIVIDED.sub(_divided, text)
    text = _ARROW_CHANGE.sub(r"\1", text)
    text = _ONCE.sub(lambda m: m.group(1) + {"once": "1 time", "twice": "2 times", "thrice": "3 times"}[m.group(2).lower()], text)
    text = _SIZED_NODES.sub(lambda m: _sized_nodes(m) if "-" in m.group(0) or m.group(1) else m.group(0), text)
    text = _SHARE_OF.sub(_share_of, text)
    text = _PERCENT_MORE.sub(_percent_more, text)
    text = _MORE_THAN_AMOUNT.sub(_more_than_amount, text)
    text = _shares_of_totals(text)
    text = _counts_of_totals(text)
    text = _COUNT_OF_TOTAL.sub(_count_of_total, text)
    text = _percent_of_counts(text)
    text = _equal_shares(text)
    text = _EACH_GPU_SERVES.sub(r"\2, \1 per GPU", text)
    text = _CAP_IN_MACHINES.sub(_cap_in_machines, text)
    text = _form_lines(text)
    text = _components(text)
    text = re.sub(r"\s*\u2014\s*", ", ", text)  # an em dash breaks the clause: "twelve — no, make it ten — and"
    text = _SHARED_PRIORITY.sub(r"\1\2\6, \3\4\5\6", text)
    if len(_ENUMERATOR.findall(text)) >= 2:  # "1. production class: x" a numbered list's markers are no amounts
        text = _ENUMERATOR.sub(r"\1- ", text)
    text = _slurm_cpus(text)
    text = _BOUND_OF.sub(r"\1 ", text)  # "the minimum of replicas is eight": "the minimum replicas"
    text = _BOUND_NOUN_AMOUNT.sub(r"\1 \3 \2", text)
    text = _MUST_NOT_EXCEED.sub("at most", text)
    # "the claim I want is `fold-data`": "claim `fold-data`"
    text = _THE_ONE_I_WANT.sub(lambda m: (m.group(1) or m.group(2)) + " ", text)
    text = _CALL_BOTH.sub(r"\1 the \2 \3 and \1 the ", text)
    # "that can also preempt", "may likewise borrow": the modal and its verb, the adverb between left out
    text = re.sub(r"\b(can|may|will|must|should|could|cannot|can't|may\s+not)\s+(?:also|likewise|additionally)\s+"
                  r"(?=[a-z]+\b)", r"\1 ", text, flags=re.I)
    for rx, repl in _SHORTHAND:
        text = rx.sub(repl, text)
    text = _not_that(text)
    text = _cue_not_that(text)
    text = _SPOKEN_DECIMAL.sub(_spoken_decimal, text)
    text = _AND_A_HALF.sub(_and_a_half, text)
    text = _COMPOUND.sub(_compound, text)
    text = _WORD_BEFORE_UNIT.sub(_word_in_digits, text)
    text = _WORD_TIME_COMPOUND.sub(_word_time_digits, text)
    text = _PERCENT.sub(r"\1%", text)  # "70 percent", "65 per cent" -> "70%"
    if _CORRECTION_WORD.search(text):  # "a day after it finishes -- actually make it two days"
        text = _ONE_UNIT.sub("1 ", text)
    text = _CORRECTION.sub(_corrected, text)
    text = _adjacent_correction(text)
    text = _unit_correction(text)
    text = _late_correction(text)
    if _BACK_THEN.search(text):
        text = _take_back_amount(text)
    if _BUMP_NAMED.search(text):
        text = _bump_named(text)
    text = _GO_COMPOUND.sub(_go_compound, text)
    text = _SCALED.sub(_scaled, text)
    text = _HALF_UNIT.sub("0.5 ", text)
    text = _HYPHEN_UNIT.sub(r"\1 \2", text)  # "a 15-minute window", "a 2-hour grace period"
    text = _X_COUNT.sub(r"\1", text)  # "x3 replicas": three replicas
    text = _PART_CORE.sub(lambda m: {"h": "500m", "t": "750m"}.get(m.group(1)[0].lower(), "250m") + " CPU", text)
    text = _WHOLE_UNIT.sub("1 ", text)
    text = _PART_TIME.sub(_part_time, text)
    t = text.replace("\u00d7", " x ").replace("\u2013", "-")
    t = re.sub(r"(?<=\d)\s*(?:\u2192|\u27f6|=>)\s*(?=\d)", " to ", t)  # "scaling 2\u219210 replicas": a range
    t = t.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    t = _GROUPED.sub(lambda m: m.group(1).replace(",", ""), t)
    t = _DECIMAL_COMMA.sub(r"\1.\2", t)
    t = _SUFFIXED.sub(_suffixed, t)
    t = _paragraph_ends(t)
    t = _command_line_ends(t)
    t = _UNIT_WORDS.sub(lambda m: m.group(1) + {"g": "GB", "t": "TB", "m": "MB"}[(m.group(2) or m.group(3))[0].lower()]
                        if m.group(2) else m.group(1) + (m.group(3)[0].upper() + "i"), t)
    return " ".join(t.split())


# "(not the whole job)", "(but not the driver)": what an aside rules out is not asked for
_NEGATED_ASIDE = re.compile(r"\((?:\s*(?:but|and)\s+)?\s*(?:not|never|no)\b[^()]*\)", re.I)


def mask_negated_asides(text: str) -> str:
    """``text`` with asides in brackets that rule something out blanked (same length)."""
    return _NEGATED_ASIDE.sub(lambda m: " " * len(m.group(0)), text)


# "four point eight tebibytes", "one point five TiB", "2 point 4": a decimal said in words
_DIGIT_WORD = {"zero": "0", "oh": "0", **{w: str(i) for i, w in enumerate(_UNITS, 1)}}
_SPOKEN_DECIMAL = re.compile(r"(?<![\w.-])" + _NUM + r"\s+point\s+((?:(?:" + "|".join(_DIGIT_WORD) + r"|\d)(?:\s+|(?![\w-])))+)",
                             re.I)


def _spoken_decimal(m: re.Match) -> str:
    whole = parse_number(m.group(1))
    digits = "".join(_DIGIT_WORD.get(w.lower(), w) for w in m.group(2).split())
    if whole is None:
        return m.group(0)
    return f"{whole}.{digits}" + (" " if m.group(2)[-1:].isspace() else "")


def _count_of(s: str) -> int | None:
    """A count a pair rule reads: a number, or an article ("an instance 3g.40gb": one)."""
    return 1 if s.lower() in ("a", "an") else parse_number(s)


def parse_number(s: str) -> int | None:
    s = s.strip().lower()
    if s.isdigit():
        return int(s)
    if s[:1] == "-" and s[1:].isdigit():  # a negative value ("scavenger = -10")
        return -int(s[1:])
    return _WORD_NUMBERS.get(s)


_DIG = r"(\d+)"  # a count on the digits view (:func:`digits_view`)
_TITLE_WORD = re.compile(r"[A-Z][a-z]+(?=[ \t]+[A-Z][a-z]+\b)")  # "Robotics Perception": a title's first word
_WORD_BEFORE = re.compile(r"[\"'`]?([a-z0-9][\w.-]*[a-z0-9])[\"'`]?\s+$")  # the word right before a position
# a field label's colon before its value, with a word that only links them ("toolkit: also pre-installed")
_LABEL_JOIN = re.compile(r"(?<=[A-Za-z])[ \t]*:[ \t]+(?:(?:also|too|already|likewise|again)[ \t]+)?(?=[A-Za-z])", re.I)
_NUMBER_WORD = re.compile(r"(?<![\w.-])" + _NUM[1:-1].split("|", 1)[1].join(["(?:", ")"]) + r"(?![\w-])", re.I)


# "the research one is called x", "the low one shouldn't preempt": "one" standing for a noun is no count
_PRONOUN_ONE = re.compile(r"one(?=\s+(?:is|was|should|shall|will|must|can|may|might|could|would|has|gets|called|"
                          r"named|needs|does|doesn't|shouldn't|can't|cannot|isn't|won't|mustn't|at|with|for|"
                          r"should't)\b|'s\b|\s*[,;.:)]|\s*$"
                          # "call the prod one prod-serving with ...", "the batch one batch at 100": a name after it
                          r"|\s+[a-z][a-z0-9]*[-.][\w.-]*[a-z0-9](?![\w.-])|\s+[a-z][\w-]*\s+(?:at|with|of)\s+\d)", re.I)
_PRONOUN_ONE_BEFORE = re.compile(r"\b(?:the|this|that|which|other|another|each|a|an)\s+(?:[a-z][\w-]*\s+)?$", re.I)


# after "one <noun>": a verb saying what any one of them does ("one replica handles ~40 QPS")
_GENERIC_ONE = re.compile(r"\s+(?:handles?|serves?|can|could|does|takes|needs|gets|uses|is|has|will|would|should|"
                          r"manages?|sustains?|processes|fits?|holds?)\b", re.I)
_DATE = re.compile(r"(?<![\w.-])\d{4}[-/]\d{1,2}[-/]\d{1,2}(?![\w.-])|(?<![\w.-])\d{1,2}/\d{1,2}/\d{2,4}(?![\w./-])")
_MODEL_NUMBER = re.compile(r"(?<=\bRTX[ \t-])\d{3,4}(?![\w.])|(?<=\bRTX[ \t]A)\d{3,4}(?![\w.])", re.I)
_IDENT_DIGITS = re.compile(r"(?<=[A-Za-z]-)\d+(?=$|[^\w.]|\.(?!\d))")


@dataclass
class Tier:
    """Keys said together, in the request's order of preference, with their number if the words give one."""
    keys: list[tuple[str, tuple[int, int]]]
    number: int | None = None
    cued: bool = False  # words of order before it ("then", "fall back to", "2.")
    spans: list[tuple[int, int]] = field(default_factory=list)  # the words read (keys and number)


# a number a tier may take: alone, no amount of something else, no part of a name, a date or a price
_TIER_NUMBER = re.compile(r"(?<![\w.$#/%:-])(\d{1,6})(?![\w%$#]|\.\d|\s*(?:%|percent|k\b|x\b|gpus?|nodes?|pods?|replicas?|"
                          r"minutes?|mins?|seconds?|secs?|hours?|hrs?|days?|weeks?|gi|gb|ti|tb|instances?|groups?)\b)", re.I)
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*\u2022][ \t]*)?\(?\d{1,2}[.)](?=\s)", re.M)
_TIER_CUE = re.compile(r"\b(?:then|next|second|2nd|third|3rd|fourth|after(?:wards|\s+th(?:at|ose|em))?|fall(?:s|ing)?\s*back|"
                       r"fallback|last(?:\s+resort)?|lowest|otherwise|finally|tier\s*[2-9]|priority\s*[2-9])\b|"
                       r"^[ \t]*(?:[-*][ \t]*)?\(?[2-9][.)]\s", re.I | re.M)
_LAST_RESORT = re.compile(r"[`'\")\s]*(?:only\s+)?(?:as\s+(?:a\s+|the\s+)?(?:very\s+)?last\s+resort|last)\b", re.I)
_TIER_JOIN = re.compile(r"[\s`\"'()]*(?:,|/|&|\+|\||\band\b|\bor\b|,\s*(?:and|or)\b)[\s`\"'()]*", re.I)
# "tier 1", "step 2", "option 3": a label's number, never a priority
_TIER_LABEL = re.compile(r"\b(?:tier|level|step|rank|phase|option|stage|no\.?|number|#)\s*$", re.I)
_NUMBER_RUN = re.compile(r"(?<![\w.$#/%:-])\d{1,6}(?:\s*(?:/|,\s*(?:and\s+)?|\band\b|->|>)\s*\d{1,6})+(?![\w%$#]|\.\d)")


def _first_group(m: re.Match) -> int:
    """The first group of ``m`` that matched (0, the whole match, when none did)."""
    return next((i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)), 0)


def _key_of(m: re.Match) -> str:
    return m.group(_first_group(m)).rstrip(".").lower()


def _restated(text: str, keys: re.Pattern) -> int:
    """Where the order the request settles on begins: a key said again ("it prefers .*a.* then .*b.*. Now
    prefer .*c.* first, then .*a.*") restates the order from the sentence or line that says it again."""
    seen: set[str] = set()
    for m in keys.finditer(text):
        k = _key_of(m)
        if k in seen and k not in (".*", ".+"):
            return max(text.rfind("\n", 0, m.start()), *(x.end() - 1 for x in re.finditer(r"[.!?;]\s", text[:m.start()]))) + 1
        seen.add(k)
    return 0


def ordered_tiers(text: str, digits: str, keys: re.Pattern) -> list[Tier]:
    """The tiers of keys a request ranks ("`.*g5-spot.*` gets 50, `.*g5-od.*` gets 20", "100  .*p4d-reserved.*"
    per line, "first .*a.*, then .*b.*", "... Priorities 100 / 50 / 10"). Keys joined by "and", "," or "/"
    share a tier. A tier's number is the one free number between it and the next tier (or the line's end),
    or else between the tier before and it (or the line's start), whichever reading gives every tier exactly
    one; else a run of as many falling numbers as tiers ("100 / 50 / 10") gives them in order."""
    found: list[tuple[str, tuple[int, int]]] = []
    seen: set[str] = set()
    for m in keys.finditer(text, _restated(text, keys)):
        g = _first_group(m)
        key, span = m.group(g), m.span(g)
        if key.endswith(".") and not key.endswith(".*"):
            key, span = key[:-1], (span[0], span[1] - 1)
        if key in (".*", "^.*$", ".+") or not re.search(r"[A-Za-z]", key) or len(re.findall(r"[A-Za-z0-9]", key)) < 2 \
                or re.match(r"\$\d", key):  # ("$210k": a price)
            continue
        try:
            re.compile(key)
        except re.error:
            continue
        if key.lower() in seen:
            continue
        seen.add(key.lower())
        found.append((key, span))
    if not found:
        return []
    tiers = [Tier([found[0]])]
    for key, span in found[1:]:
        if _TIER_JOIN.fullmatch(text, tiers[-1].keys[-1][1][1], span[0]):
            tiers[-1].keys.append((key, span))
        else:
            tiers.append(Tier([(key, span)]))
    marks = [m.span() for m in _LIST_MARK.finditer(text)]
    inside = [sp for t in tiers for _, sp in t.keys]
    numbers = [(int(m.group(1)), m.span(1)) for m in _TIER_NUMBER.finditer(digits)
               if not any(a <= m.start() < b for a, b in marks + inside) and 0 < int(m.group(1)) <= 100000
               and not _TIER_LABEL.search(text, 0, m.start())]

    def bounded(lo: int, hi: int, forward: bool) -> tuple[int, int]:
        # a tier's words stay in its line and sentence
        part = text[lo:hi]
        stops = [x.start() for x in re.finditer(r"\n|\.\s", part)]
        if not stops:
            return lo, hi
        return (lo, lo + stops[0]) if forward else (lo + stops[-1] + 1, hi)

    def reading(forward: bool) -> list[tuple[int, tuple[int, int]]] | None:
        got = []
        for i, t in enumerate(tiers):
            a, b = t.keys[0][1][0], t.keys[-1][1][1]
            if forward:
                lo, hi = bounded(b, tiers[i + 1].keys[0][1][0] if i + 1 < len(tiers) else len(text), True)
            else:
                lo, hi = bounded(tiers[i - 1].keys[-1][1][1] if i else 0, a, False)
            inner = [n for n in numbers if lo <= n[1][0] and n[1][1] <= hi]
            if len(inner) != 1:
                return None
            got.append(inner[0])
        return got

    readings = [r for r in (reading(True), reading(False)) if r is not None]
    if readings:
        best = min(readings, key=lambda r: sum(min(abs(n[1][0] - k[1][1]), abs(k[1][0] - n[1][1]))
                                                for n, t in zip(r, tiers) for k in t.keys))
        for (n, sp), t in zip(best, tiers):
            t.number = n
            t.spans.append(sp)
    elif len(tiers) >= 2:
        for m in _NUMBER_RUN.finditer(digits):
            nums = [int(x) for x in re.findall(r"\d+", m.group(0))]
            if len(nums) == len(tiers) and all(a > b for a, b in zip(nums, nums[1:])) and \
                    not any(a <= m.start() < b for a, b in marks + inside):
                for n, t in zip(nums, tiers):
                    t.number = n
                    t.spans.append(m.span())
                break
    for i, t in enumerate(tiers):
        t.spans.extend(sp for _, sp in t.keys)
        if i:
            lo = tiers[i - 1].keys[-1][1][1]
            line = text.rfind("\n", 0, t.keys[0][1][0]) + 1
            cue = _TIER_CUE.search(text, lo, t.keys[0][1][0]) or _TIER_CUE.search(text, line, t.keys[0][1][0])
            end = t.keys[-1][1][1]
            # "and .*g5.* (only) as (a) last resort"
            tail = _LAST_RESORT.match(text, end) if i == len(tiers) - 1 else None
            t.cued = cue is not None or tail is not None
            t.spans.extend(c.span() for c in (cue, tail) if c is not None)
    return tiers


def digits_view(text: str) -> str:
    """``text`` with number words written as digits, padded to the same length so offsets
    hold ("max eight" -> "max 8    "): patterns that read digits read words too."""
    def sub(m: re.Match) -> str:
        n = parse_number(m.group(0))
        if n is None or len(str(n)) > len(m.group(0)):
            return m.group(0)
        return str(n).ljust(len(m.group(0)))
    text = _NUMBER_WORD.sub(lambda m: m.group(0) if _PRONOUN_ONE.match(text, m.start()) and
                            _PRONOUN_ONE_BEFORE.search(text, 0, m.start()) else sub(m), text)
    # "FIN-771", "gpu-node-17", "ip-10-0-12-33": digits after a word and a dash are part of a name, never an amount
    text = _IDENT_DIGITS.sub(lambda m: "#" * len(m.group(0)), text)
    # "RTX 6000 Ada", "Quadro RTX 8000": a card's model number, never an amount
    text = _MODEL_NUMBER.sub(lambda m: "#" * len(m.group(0)), text)
    # "the 2024-07-08 batch failure", "due 2025/03/14": a date is no amount
    text = _DATE.sub(lambda m: "#" * len(m.group(0)), text)
    # "minus ten", "negative 5": a value below zero (a PriorityClass's), written as one
    text = re.sub(r"(?<![\w-])(?:minus|negative)\s+(\d+)(?![\w.])", lambda m: ("-" + m.group(1)).ljust(len(m.group(0))),
                  text, flags=re.I)
    # "retried twice": so many times ("once" is as often "as soon as")
    return re.sub(r"(?<![\w-])(twice|thrice)(?![\w-])", lambda m: ("2x" if m.group(1).lower() == "twice" else "3x").ljust(
        len(m.group(1))), text, flags=re.I)


# the upper end of a range: "between two and ten replicas"
_RANGE_END = re.compile(r"\bbetwe+n\s+[\w.]+\s+and\s+$", re.I)
# a size right after a CPU count is the memory that goes with it ("64 cores and 512Gi per pod", "32 vCPU / 256 GiB")
_BESIDE_CPUS = re.compile(r"(?<![\w.])\d+\s*(?:v?cpus?|cores?)\s*(?:,|and|\+|/|&|with|plus)\s*$", re.I)


# Words people count the same things by: "3 boxes" are 3 nodes, "2 retries" 2 attempts. A parameter
# counted by one of them also answers to the others that no other parameter of its recipe counts.
_COUNT_SYNONYMS: list[frozenset[str]] = [
    frozenset({"node", "machine", "box", "host", "server", "vm", "instance"}),
    frozenset({"retry", "retries", "retried", "attempt", "restart", "restarted", "try", "tries", "failure"}),
    frozenset({"shard", "chunk", "partition", "piece", "part", "slice"}),
    frozenset({"replica", "copy", "instance", "pod"}),
    frozenset({"worker", "trainer", "learner"}),
]
_AMBIGUOUS_UNITS = frozenset(w for g in _COUNT_SYNONYMS for w in g if sum(w in h for h in _COUNT_SYNONYMS) > 1)


# Units that count an action: "N times" after one of them counts it ("may retry 4 times").
_ACTION_UNITS = frozenset({"retry", "retries", "retried", "attempt", "restart", "restarted", "try", "tries", "failure",
                           "fail", "rerun", "rerunning", "rerun", "requeue"})


# Verbs a schema description uses and the words people say for them ("clean it up an hour after it
# finishes" for "Delete the finished job after this many seconds").
_VERB_SYNONYMS: dict[str, list[str]] = {
    "delete": ["clean up", "cleaned up", "remove", "removed", "garbage collect", "purge", "purged", "reap"],
    "wait": ["hold", "linger", "grace"],
    "fail": ["give up", "gives up", "abort", "aborts"],
    "exceed": ["more than", "above", "over", "exceeds", "greater than"],
}


def description_cues(description: str) -> list[str]:
    """Cue words from a parameter's description: its longer words, each also as a stem that
    reads any inflection ("finished" -> "finish*" for "finishes") and with the words people say
    for its verbs (:data:`_VERB_SYNONYMS`)."""
    out: list[str] = []
    for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", description):
        if w.lower() in _STOP:
            continue
        out.append(w)
        stem = re.sub(r"(?:ed|es|ing|s|e|able|ible)$", "", w.lower())  # "averag*" reads "averaging"
        if stem != w.lower() and len(stem) >= 4 and stem.isalpha():
            out.append(stem + "*")
        out += _VERB_SYNONYMS.get(stem, []) + _VERB_SYNONYMS.get(w.lower(), [])
    return out


@lru_cache(maxsize=512)
def _inflected(words: tuple[str, ...]) -> list[str]:
    """Near phrases with the other forms of their first word ("scale down": "scaling down",
    "scales down", "scaled down")."""
    out = list(words)
    for w in words:
        head, _, rest = str(w).partition(" ")
        if not rest or not re.fullmatch(r"[a-z]{3,}", head) or head.endswith(("ing", "ed")):
            continue
        stem = head[:-1] if head.endswith("e") else head
        forms = [stem + "ing", head + "s", stem + "ed"]
        out += [f"{f} {rest}" for f in forms if f"{f} {rest}" not in out]
    return out


# a size is not part of a longer token: "1g.10gb" names a MIG profile, "mig-2g-claim" an object
# a size asked for: "request 2Ti", "provision 500 GB", "make it 1Ti", "give us 3 TiB"
_ASKED_SIZE = re.compile(r"\b(?:request|provision|allocate|reserve|make\s+(?:it|that|the\s+\w+)|size\s+it\s+(?:at|to)|"
                         r"give\s+(?:it|us|me|them)|ask\s+for|bump\s+(?:it\s+)?to|resize\s+(?:it\s+)?to|"
                         # "a new one at 2 TB" (beside "is 500Gi and it's full"), "grow it to 4Ti"
                         r"(?:new|bigger|larger|fresh|second|replacement)\s+(?:one|volume|pvc|claim|copy)\s+(?:at|of|with|sized(?:\s+at)?)|"
                         r"(?:grow|increase|expand|enlarge|extend|double)\s+(?:it\s+|that\s+|them\s+)?to|"
                         # "a shared volume of 4Ti" (beside "the same 3 TB copy"): the size of the object asked for
                         r"(?:volume|pvc|claim|disk|drive|share|file\s?system)\s+(?:of|with|sized(?:\s+at)?))\s+(?:(?:a|an|about|"
                         r"roughly|at\s+least)\s+)?$", re.I)
_SIZE_RE = re.compile(r"(?<![\w.])(?<!\w-)(\d+(?:\.\d+)?)\s*(k|m|g|t|p)(ib|i|b)?(?![a-z0-9]|\.\d|-\w)", re.I)
_POW = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_DURATION_RE = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?|{_NUM[1:-1]}|an?|half an?|every|each)\s*"
                          r"(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?)(?![\w])", re.I)
# what the writer was about to ask and then did not ("I was going to say 12, but no", "we were gonna go with 4 nodes")
_ABOUT_TO_SAY = re.compile(r"\b(?:i|we)\s+(?:was|were)\s+(?:going\s+to|gonna|about\s+to)\s+(?:say|ask\s+for|go\s+with|use|"
                           r"request|suggest|propose|pick)\b[^,;.!?\n]*?(?=\s+(?:but|so|and|then|instead)\b|[,;.!?\n]|$)", re.I)
# after a count of one: "(one) pod per file", "(1) pod each," (each of the things counted before)
# ("one pod per former instance": a word saying which of them may stand between)
_PER_ITEM = re.compile(r"\s*([a-z]+)\s+(?:per|for\s+each|for\s+every|each|every)\s+(?:(?:former|old|previous|original|current|"
                       r"existing|physical|legacy|source)\s+)?([a-z]+)", re.I)
_ONE_EACH = re.compile(r"\s*([a-z]+)\s+each\b(?=\s*(?:[,.;:!)]|$))", re.I)
_DURATION_MULT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
# "recycle nodes weekly", "a nightly window": once every hour, day or week
_PERIODIC_RE = re.compile(r"(?<![\w.-])(hour|dai|night|week)ly(?![\w-])", re.I)
_PERIOD_SECONDS = {"hour": 3600, "dai": 86400, "night": 86400, "week": 604800}


def parse_size(num: str, unit: str) -> float:
    """Bytes for a size such as (1.2, 'T'); TB and TiB are both read as binary units."""
    return float(num) * (1024 ** _POW[unit.lower()])


def _quantity(nbytes: float) -> str:
    for suffix, p in (("Pi", 5), ("Ti", 4), ("Gi", 3), ("Mi", 2), ("Ki", 1)):
        v = nbytes / (1024 ** p)
        if v >= 1 and abs(v - round(v)) < 1e-9:
            return f"{int(round(v))}{suffix}"
    for suffix, p in (("Gi", 3), ("Mi", 2), ("Ki", 1)):
        v = nbytes / (1024 ** p)
        if v >= 10:
            return f"{int(math.ceil(v - 1e-9))}{suffix}"
    return str(int(math.ceil(nbytes)))


def _singular(w: str) -> str:
    """"workers" -> "worker"; short words and "-ss" words stay ("ps", "class")."""
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


# halves of the compound words Kubernetes writes as one ("filesystem" is also "file system")
_HALVES = frozenset("""file system node pool storage class config map service monitor priority name space mount
work load time slice data set host path cluster queue resource quota limit range scale object""".split())


def _word_re(w: str) -> str:
    if w.endswith("*") and len(w) > 1:  # a stem: "recla*" is reclaim, reclaimable, reclaiming
        return re.escape(w[:-1]) + r"\w*+"  # possessive: the stem never gives letters back to a value
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss") and w.isalpha():
        w = w[:-1]
    tail = r"(?:s|es)?" if re.search(r"[A-Za-z0-9]$", w) else ""
    if w.isalpha() and w.islower() and len(w) >= 4 and w in _VERB_FORMS:
        # a verb of a cue phrase in its other forms: "only read" is also "only reading", "never write"
        # also "never writing"
        if w.endswith("e"):
            return re.escape(w[:-1]) + r"(?:e|es|ed|ing)"
        tail = r"(?:s|es|ing|ed)?"
    low = w.lower()
    split = next((k for k in range(3, len(low) - 2) if low[:k] in _HALVES and low[k:] in _HALVES), None) \
        if w.isalpha() and len(w) >= 7 else None
    if split is not None:  # "filesystem", "file system", "file-system"
        return re.escape(w[:split]) + r"[\s_-]?" + re.escape(w[split:]) + tail
    return re.escape(w) + tail


# verbs whose -ing and -ed forms say the same in a cue phrase ("only reading", "never writing")
_VERB_FORMS = frozenset("read write mount pack spread borrow lend reclaim evict preempt drain schedule".split())
_FLAG_PREFIX = r"(?:--?(?=\w))?"  # a command-line flag is its words too: "--shm-size=16g", "--nproc_per_node 8"
# whether the request being read has command-line flags (cues then also match after "-" or "--")
_FLAGGED = ContextVar("_FLAGGED", default=False)
_HAS_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z]")


_NOT_NOUNS = frozenset("""per each every for the and with of in on to by all any max min mini maxi total only
set use not non are was has had its you our your their this that these those""".split())


@lru_cache(maxsize=8192)
def _phrase_re(phrase: str, left_boundary: bool = True, flags: bool = False) -> str:
    """A phrase as a regex: words joined by space, hyphen or nothing; plural words accepted;
    never matching inside a longer word or a hyphenated name."""
    parts = [p for p in re.split(r"[\s-]+", phrase.strip()) if p]
    body = r"[\s_-]?".join(_word_re(p) for p in parts)
    if len(parts) == 2 and parts[0].lower() in ("no", "without") and parts[1].isalpha():
        # "no toleration" is also "no GPU taint toleration": up to two words that describe the noun
        body = (rf"(?:{_word_re(parts[0])}\s+(?:(?!(?:more|less|than|longer|other|one|matter|need)\b)[A-Za-z][\w.-]*\s+){{0,2}}?|"
                # "drop the taint", "remove its toleration": what is taken away is no more there
                rf"(?:drop|remove|delete|strip|get\s+rid\s+of)\s+(?:(?:the|its|their|that|this|any|all)\s+)?)"
                rf"{_word_re(parts[1])}")
    if len(parts) == 2 and parts[0].isalpha() and parts[1].isdigit():
        # "scratch 1" is also "scratch type 1", "persistent version 2"
        body = (rf"{_word_re(parts[0])}(?:[\s_-]?|\s+(?:type|version|gen|generation|tier|class|mode|level)\s+)"
                rf"{re.escape(parts[1])}")
    if len(parts) == 2 and all(p.isalpha() and len(p) >= 3 and p.lower() not in _NOT_NOUNS for p in parts):
        # a noun and its head the other way round: "gpu limit" is also "the limit of GPUs"
        body = rf"(?:{body}|{_word_re(parts[1])}\s+of\s+(?:the\s+)?{_word_re(parts[0])})"
    left = r"(?<![\w-])" + (_FLAG_PREFIX if flags else "") if left_boundary and re.match(r"\w", phrase) else ""
    right = r"(?![\w-])" if re.search(r"\w$", phrase) else ""
    return left + body + right


# Words that open a new clause after a value ("sleep 3600 so i can exec in").
_CLAUSE_WORDS = frozenset("so and then to for in on until while with or because but as if".split())
# Words that describe a noun rather than name it: "the same cluster", "the gpu namespace".
_NOT_A_NAME = frozenset("""same whole entire new old other shared main existing right current different own target given
default first second last next previous whole real actual separate dedicated single big small large gpu gpus cpu
nvidia kubernetes k8s team user tenant system public private local remote
volcano kueue karpenter keda prometheus kubeflow slurm ray gpfs lustre fsx aws gcp azure eks gke aks
every all any each no some both either neither several many""".split())


# words that head a list of details rather than name the object ("deployment spec: 2 replicas")
_HEADING_WORDS = frozenset("""spec specs specification details detail config configuration settings setting request
requests requirements requirement info params parameters setup template manifest yaml values options needs ask
asks plan changes change summary overview notes note equivalent equivalents counterpart replacement version
variant review draft proposal example sample update upgrade fix question issue problem ticket""".split())
# verbs that follow their subject: "the team needs", "the cluster runs"
_VERBS_AFTER_NOUN = frozenset("""needs wants has have had uses owns shares requires asks works lives sits keeps gets
runs is are was were will would should can could must may might does did takes took loads starts downloads
pools holds contains includes covers spans serves handles borrows lends offers provides allows""".split())
# verbs that report what a command or object shows: "in ns recsys shows 4 GPUs" ends the name before them
_REPORTING_VERBS = frozenset("shows showed says said reports reported lists listed prints printed returns returned "
                             "gives gave".split())


def _words_alt(words: list[str]) -> str:
    return _words_alt_cached(tuple(words), _FLAGGED.get())


@lru_cache(maxsize=4096)
def _words_alt_cached(words: tuple[str, ...], flags: bool = False) -> str:
    ordered = sorted(words, key=len, reverse=True)
    # the words' shared left edge once, before the alternation (cheaper than one per phrase)
    lead = [w for w in ordered if re.match(r"\w", w)]
    parts = [r"(?<![\w-])" + (_FLAG_PREFIX if flags else "") + "(?:" + "|".join(_phrase_re(w, left_boundary=False) for w in lead) + ")"] \
        if lead else []
    return "(?:" + "|".join(parts + [_phrase_re(w) for w in ordered if not re.match(r"\w", w)]) + ")"


@lru_cache(maxsize=16384)
def _compile(p: str) -> re.Pattern:
    return re.compile(p, re.I)


@lru_cache(maxsize=512)
def _prop_validator(spec_json: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(spec_json))


def name_variants(name: str) -> list[str]:
    """How a parameter name shows up in text: min_available, minAvailable, min available, min-available."""
    return list(_name_variants(name))


@lru_cache(maxsize=4096)
def _name_variants(name: str) -> tuple[str, ...]:
    parts = [p for p in re.split(r"_+", name) if p]
    camel = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:]) if parts else name
    out = {name, camel, " ".join(parts), "-".join(parts), "".join(parts)}  # "mountname" too
    return tuple(sorted((v for v in out if v), key=len, reverse=True))


# "anything except spot", "any class but not the A10s", "other than", "apart from": what follows is ruled out
_EXCEPT_BEFORE = re.compile(r"\b(?:except(?:\s+for)?|but\s+not|other\s+than|apart\s+from|excluding|"
                            r"(?:anything|everything|any\w*)\s+but)\s+(?:(?:the|a|an|our)\s+)?$", re.I)
_NEGATION = (r"(?:no|not|without|disable[sd]?|disabling|skip|skipping|don'?t|do not|never|off|false|turn off|"
             r"can'?t|cannot|won'?t|must not|mustn'?t|shouldn'?t|may not)")
# "no retries", "never retry", "zero restarts": nothing of a counted thing ("no more than 4" is a bound)
_NONE_OF = r"\b(?:no|never|zero|without|don'?t|do not)\s+(?!more\b|less\b|fewer\b|later\b|longer\b|than\b)(?:[a-z]+\s+)?"
# ... where the counted word ends the phrase: "no GPU", "no retries per index", but not
# "no gpu toleration" (the word qualifies another noun)
_NONE_END = r"(?=\s*(?:$|[,.;:()!]|\s[-\u2013\u2014]\s|(?:per|for|on|in|at|and|or|with|needed|required|at\s+all|please|but)\b))"
_AFFIRM = r"(?:with|enable[sd]?|enabling|turn on|on|true|add|include|including|use|using)"
# "research can also preempt", "let their jobs preempt": a verb cue allowed or asked for
_MODAL = (r"(?:(?:can|may|should|will|must|allowed\s+to|able\s+to)\s+(?:also\s+|still\s+|always\s+|ever\s+)?"
          r"|\blets?\s+(?:[\w-]+\s+){0,3}?)")

# A condition a boolean's description states ("false when the driver is pre-installed"), and the
# ways people say that state.
_STATED = re.compile(r"\b(true|false)\s+(?:when|if)\s+(?:(?:the\s+)?([a-z][\w-]*)|it|they)\s+(?:is|are)\s+"
                     r"(?:already\s+)?([a-z][\w-]*)", re.I)
_STATE_WORDS: dict[str, list[str]] = {
    "pre-installed": ["pre-installed", "preinstalled", "already installed", "installed already", "already on",
                      "already present", "already there", "already in place", "host-installed",
                      "installed on the host", "installed on the hosts", "installed on the nodes",
                      "baked into", "baked in", "baked", "built into", "built in", "comes with", "come with",
                      "ships with", "ship with", "shipped with", "shipped in", "bundled with", "bundled in",
                      "part of the image", "part of the ami", "in the image", "in the ami",
                      # "the driver is not installed by the operator (we have it)": someone else installs it
                      "not installed by the operator", "not installed from the operator", "not installed from operator",
                      "not installed by operator", "not managed by the operator", "not from the operator",
                      "not deployed by the operator", "installed by us", "installed ourselves", "managed by us"],
}

# Acting on a boolean's object: verbs that keep or provide a thing ("keep the toolkit", "the
# operator handles the driver") and verbs that leave it out ("skip installing the driver"); a
# negation before a keeping verb leaves it out too ("don't deploy it", "should not install it").
_KEEP_VERBS = ["install", "deploy", "run", "manage", "handle", "enable", "keep", "load", "use", "include", "add",
               "provide", "ship", "touch", "want", "need"]
_DROP_VERBS = ["skip", "omit", "drop", "disable", "remove", "exclude", "leave out", "leave off", "turn off",
               "switch off", "get rid of", "stop running", "stop deploying", "stop installing", "no longer run",
               "no longer deploy"]


def _verb_forms(verbs: list[str]) -> str:
    forms: set[str] = set()
    for v in verbs:
        head, _, rest = v.partition(" ")
        tail = (" " + rest) if rest else ""
        stem = head[:-1] if head.endswith("e") else head
        if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", head):  # skip -> skipping, run -> running
            stem = head + head[-1]
        third = head + ("es" if re.search(r"(?:sh|ch|x|s)$", head) else "s")
        past = {"run": "ran", "leave": "left", "get": "got", "keep": "kept", "omit": "omitted"}.get(
            head, head + "d" if head.endswith("e") else stem + "ed")
        for f in {head, third, past, stem + "ing"}:
            forms.add(f + tail)
    return "(?:" + "|".join(sorted((re.escape(f).replace(r"\ ", r"\s+") for f in forms), key=len, reverse=True)) + ")"


_KEEP = _verb_forms(_KEEP_VERBS)
# "the toolkit should stay on", "it remains enabled": a state kept
_STAYS = r"(?:(?:should|must|can|will|shall|has\s+to|needs\s+to)\s+)?(?:stays?|remains?|be|is|are|kept|staying|remaining)\s+"
# who does it, when not the operator: the node image or the platform ("the EKS AMI already ships", "AKS installs")
_HOST_SUBJECT = re.compile(r"\b(?:amis?|images?|os|hosts?|nodes?|node\s+pools?|aks|gke|eks|openshift|ocp|rke2?|k3s|"
                           r"provider|cloud|platform|distro|distribution|vendor|dgx(?:\s+os)?|bottlerocket|al2023|"
                           r"ubuntu|rhel|cos)\s+(?:(?:already|itself|also|always|by\s+default|now)\s+)*$", re.I)
_DROP = _verb_forms(_DROP_VERBS)
_NEG_BEFORE = (r"(?:don'?t|do\s+not|does\s+not|doesn'?t|should\s+not|shouldn'?t|must\s+not|mustn'?t|never|"
               r"no\s+need(?:\s+(?:to|for|of))?|not|won'?t|will\s+not|cannot|can'?t|can\s+not|need\s+not|needn'?t|"
               r"without|nobody|no\s+one|no-one|noone|none\s+of\s+(?:the\s+)?\w+|no\s+other\s+\w+|"
               # "refuse to schedule rather than double up": what is turned down
               r"rather\s+than|instead\s+of)")
# the modal chain a negation may stand before ("nobody should be able to reclaim", "no one is allowed to")
_MODAL_CHAIN = (r"(?:(?:should|may|might|can|could|will|would|must|shall|is|are|be|ever|able|allowed|permitted|"
                r"supposed|get|gets|to)\s+){0,5}")
_PRONOUN = r"(?:it|them|that|those|this)"
# words that may stand between a state and the noun it qualifies ("pre-installed NVIDIA driver")
_NOT_BETWEEN = r"(?!(?:and|or|but|so|then|while|is|are|was|were|not|no|keep|keeps|stay|stays)\b)"


# "research may preempt" also reads "research pods may preempt", "research jobs can preempt"
_SUBJECT_NOUNS = ("pods", "pod", "jobs", "job", "workloads", "class", "team", "tier", "queue", "ones", "users")
_MODAL_WORDS = frozenset("can may should will must could might".split())


# "on" before a place is a preposition, not a switch: "the drivers on these nodes are preinstalled"
_NOT_A_PLACE = r"(?!\s+(?:the|these|those|this|that|our|all|every|each|its|their|some|both)\b)"
# where an installed thing is: "the driver on these nodes (is preinstalled)", "the toolkit in our AMI"
_ON_THE_NODES = (r"(?:on|in)\s+(?:the|these|those|this|our|all|every|each|its|their)\s+(?:[\w-]+\s+)?"
                 r"(?:nodes?|hosts?|machines?|boxes|servers?|workers?|images?|amis?)")


@lru_cache(maxsize=1024)
def _with_subject_nouns(phrases: tuple[str, ...]) -> list[str]:
    """A flag's phrases, with a subject noun after the first word ("low can preempt" is also "low
    pods can preempt") and a permission said the other ways ("can preempt" is also "allowed to
    preempt", "permitted to preempt")."""
    out = list(phrases)
    for ph in phrases:
        words = str(ph).split()
        if len(words) >= 3 and words[1] in _MODAL_WORDS:
            out += [" ".join([words[0], noun, *words[1:]]) for noun in _SUBJECT_NOUNS]
        if len(words) >= 2 and words[0] in ("can", "may"):
            out += [" ".join([lead, *words[1:]]) for lead in _PERMITTED_TO]
    return out


# nouns of things outside the cluster's manifests that a request names in passing: a quoted name right
# after one is that thing's ("the #ml-infra Slack channel", "PagerDuty service \"gpu-oncall\"")
_OUTSIDE_OBJECTS = frozenset("""channel service folder dashboard bucket repo repository project account org
organisation organization webhook receiver route routing workspace board ticket runbook wiki page space
calendar mailbox vault secret imagepullsecret imagepullsecrets pullsecret serviceaccount certificate cert
token ingress registry""".split())
_PERMITTED_TO = ("allowed to", "permitted to", "able to", "free to")


def distinctive_cues(name: str, all_names: list[str]) -> list[str]:
    return list(_distinctive_cues(name, tuple(all_names)))


@lru_cache(maxsize=4096)
def _distinctive_cues(name: str, all_names: tuple[str, ...]) -> tuple[str, ...]:
    """Parts of a parameter's name that no other parameter of the recipe shares:
    in an HPA recipe "min" means min_replicas and "target" target_value, while
    "replicas" means neither. Long parts also match by their first four letters
    ("temp" for temperature_celsius)."""
    def parts(n: str) -> list[str]:
        return [p for p in n.split("_") if len(p) >= 3 and p not in _STOP]

    others = {_singular(p) for n in all_names if n != name for p in parts(n)}  # "member" is "members"
    out = []
    for part in parts(name):
        if _singular(part) in others:
            continue
        if part != name:  # the whole name is a cue already
            out.append(part)
        if len(part) >= 7 and not any(o.startswith(part[:4]) for o in others):
            out.append(part[:4])
            out.append(part[:5] + "*")  # the word's other forms: "reclaim" for reclaimable
    return tuple(out)


_SCHEMA_RULES_CACHE: dict[tuple[str, int, tuple[str, ...]], Any] = {}


# what else a percentage may measure: a per-cent parameter takes none that its description does not name
_MEASURES = ["memory", "mem", "ram", "disk", "storage", "cpu", "network", "bandwidth", "power", "fan", "temperature",
             "temp", "battery", "error", "errors", "canary", "traffic", "rollout", "budget"]


def _schema_rules(name: str, spec: dict[str, Any], all_names: list[str] | None = None) -> list[dict[str, Any]]:
    """:func:`_build_schema_rules`, kept per parameter schema (the rules only depend on it)."""
    key = (name, id(spec), tuple(all_names or ()))
    got = _SCHEMA_RULES_CACHE.get(key)
    if got is None or got[0] is not spec:
        got = (spec, _build_schema_rules(name, spec, all_names))
        _SCHEMA_RULES_CACHE[key] = got  # type: ignore[assignment]
    return list(got[1])


@lru_cache(maxsize=1024)
def _pattern_takes(spec_json: str, takes: tuple[str, ...], rejects: tuple[str, ...]) -> bool:
    """Does a patterned, non-enum string schema accept every value of ``takes`` and none of ``rejects``?"""
    spec = json.loads(spec_json)
    if not spec.get("pattern") or spec.get("enum"):
        return False
    v = _prop_validator(spec_json)
    return all(v.is_valid(x) for x in takes) and not any(v.is_valid(x) for x in rejects)


def _numeric_string(spec_json: str) -> bool:
    """Does a string schema take plain numbers ("5", "0.5") and nothing word-like?"""
    return _pattern_takes(spec_json, ("5", "2.5"), ("abc",))


def _duration_string(spec_json: str) -> bool:
    """Does a string schema take Go-style durations ("30m", "720h") and no plain word?"""
    return _pattern_takes(spec_json, ("30m", "720h"), ("abc", "5"))


def _build_schema_rules(name: str, spec: dict[str, Any], all_names: list[str] | None = None) -> list[dict[str, Any]]:
    """Rules every parameter gets from its schema, tried after the recipe's own rules:
    its own name (snake, camel, spaced) and its distinctive name parts as cues."""
    # the qualifier of a namespace alone does not name one: "exporter is standalone" (rule_parts
    # reads "exporter ... in namespace x")
    variants = name_variants(name) + ([] if name.endswith("_namespace") else distinctive_cues(name, all_names or [name]))
    t = spec.get("type")
    if t == "boolean":
        stated = _stated_rule(name, spec, all_names or [name])
        guarded = _guarded_rule(spec)
        if "other" in name.split("_") or "others" in name.split("_"):
            # other_groups: "..., nothing else", "only these" leave the others out
            guarded = guarded or {"flag": ["nothing else", "no others", "no other", "none other", "only these",
                                           "only those", "nobody else"], "value": False}
        return ([stated] if stated else []) + ([guarded] if guarded else []) + [
            {"acted": _bool_nouns(name, spec, all_names or [name])}, {"boolean": variants}]
    if t == "object" and isinstance(spec.get("propertyNames"), dict):
        return [{"mapping": True}]
    items = spec.get("items") or {}
    paired = [f for f in items.get("required", []) if ((items.get("properties") or {}).get(f) or {}).get("enum")]
    if t == "array" and len(paired) == 2 and len(items.get("properties") or {}) == 2:
        return [{"enum_pairs": paired}]  # policies: [{event: PodFailed, action: RestartJob}]
    if t == "integer" and (name == "port" or name.endswith("_port")):
        variants = variants + ["listen on", "listens on", "listening on", "serve on", "serves on", "served on",
                               "exposed on", "expose", "exposes"]
    rules: list[dict[str, Any]] = [{"after": variants, "schema": True}]
    if t == "integer" and (name == "port" or name.endswith("_port")):
        # "put this one on 8001", "keep the server on 8000": where the object itself is to listen
        # (on the digits view "one" reads "1  ")
        rules.insert(0, {"regex": r"\b(?:put|run|keep|move|serve|expose|bind|have|host)\w*\s+(?:it|(?:this|that)(?:\s+(?:one|1))?|"
                                  r"the\s+(?:new\s+)?(?:server|api|service|endpoint|app|container))\s+(?:on|at|to)\s+"
                                  r"(?:port\s+)?:?(\d{2,5})\b"})
    if t == "array" and _COMMAND_NAME.search(name):
        # "a job that runs python /x.py", "executes ./bench.sh": the verb names the command
        rules.append({"after": ["runs", "run", "running", "execute", "executes", "executing", "launch", "launches",
                                "launching", "invoke", "invokes"], "schema": True, "verb": True})
        # "cmd sleep infinity", "the entrypoint is just torchrun /opt/train.py"
        rules.append({"after": ["cmd", "command", "entrypoint", "entry point", "entry-point"], "schema": True})
    parts = [p for p in name.split("_") if len(p) >= 3]
    if len(parts) == 2 and t in ("string", "integer"):
        rules.append({"parts": parts})  # "default container cpu 250m", "default to 500m cpu"
    if t in ("string", "integer") and (re.search(r"\d\s*%|percent", str(spec.get("description", "")))
                                       or name.endswith("_percent")):
        # a percentage is the value of the parameter whose schema measures in per cent ("keep it around 60%")
        desc = str(spec.get("description", "")).lower()
        rules.append({"regex": r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*(?:%|percent\b|pct\b)",
                      "not_after": [w for w in _MEASURES if w not in desc and w not in name]})
    if t == "string" and _numeric_string(json.dumps(spec, sort_keys=True)):
        # a number kept as a string ("500m", "2.5"): a number near the words its description uses
        rules.append({"regex": r"(?<![\w.:/=-])(\d+(?:\.\d+)?m?)(?![\w.%/:-])",
                      "near": description_cues(str(spec.get("description", ""))), "window": 30, "weak": True})
    if t == "integer" and name.startswith("min_") and spec.get("description"):
        # a lower bound said as such, in the words of the description: "at least 4 of them
        # scheduled together", "start as soon as 6 of them can be scheduled"
        rules.insert(0, {"regex": r"\b(?:at\s+least|as\s+soon\s+as|once|(?:a\s+)?minimum\s+of|no\s+fewer\s+than)\s+"
                                  r"(\d+)(?![\w.%])", "near": description_cues(str(spec["description"])), "window": 45, "weak": True})
    if t == "string" and _duration_string(json.dumps(spec, sort_keys=True)):
        # a duration kept as a string ("720h", "30m"): one near the words its description uses
        rules.append({"regex": r"(?<![\w.:/=-])(\d+(?:s|m|h))(?![\w.%/:-])",
                      "near": description_cues(str(spec.get("description", ""))), "window": 40, "weak": True})
        # or spelled out ("after 30 minutes", "two days"), near its name or those words
        rules.append({"duration": True, "near": variants + description_cues(str(spec.get("description", "")))})
    if t == "integer":
        if name.endswith("_seconds"):  # the unit is in the name: "cooldown 5 min" -> 300
            rules.insert(0, {"duration": True,
                             "near": variants + description_cues(str(spec.get("description", "")))})
        rules.append({"count": variants, "any_order": True})  # the value before the name: "10 failed indexes"
    return rules


_GUARD = re.compile(r"^\s*(?:reject|refuse|deny|block|forbid|prevent|disallow)s?\s+(?:[\w-]+\s+){0,2}?"
                    r"(?:that|which|who|from)\s+((?:[a-z]+\s+){1,3}[a-z]+)", re.I)
_PRONOUN_ITEMS = frozenset({"anything", "everything", "something", "nothing", "rest", "others", "else", "all",
                            "any", "none", "them", "those", "these"})
_REGEX_TOKEN = re.compile(r"(?<![^\s(,])[^\s,;()]*(?:\.\*|\.\+)[^\s,;()]*")
_PERMIT = (r"(?:let|lets|letting|allow|allows|allowing|allowed|permit|permits|permitting|permitted|accept|accepts|"
           r"(?:can|may)(?=\s))")
_FORBID = r"(?:reject|rejects|refuse|refuses|deny|denies|block|blocks|forbid|forbids|prevent|prevents|disallow|" \
          r"(?:don'?t|do\s+not|never)\s+(?:let|allow|permit)|(?:not|never)\s+(?:be\s+)?(?:allowed|permitted)|" \
          r"can'?t|cannot|can\s+not|may\s+not|must\s+not|mustn'?t)"
# the verb of a guarded action and the words people say for it ("ask for more than one" is also
# "request more than one")
_ACTION_VERBS = {"ask for": ["ask for", "asks for", "request", "requests", "use", "uses", "get", "gets", "take", "takes",
                             "grab", "grabs", "claim", "claims", "want", "wants", "have", "has"]}


def _guarded_rule(spec: dict[str, Any]) -> dict[str, Any] | None:
    """A boolean whose description rejects an action ("Reject pods that ask for more than one
    shared GPU") is false when the request lets that action happen ("let pods ask for more than
    one replica") and true when it forbids it. The action is the description's first words after
    "that"; the request needs all of them after a permitting or forbidding verb."""
    m = _GUARD.search(str(spec.get("description", "")))
    if not m:
        return None
    return {"guarded": m.group(1).lower().split()}


def _stated_rule(name: str, spec: dict[str, Any], all_names: list[str]) -> dict[str, Any] | None:
    """A boolean set by the state its description names: "Let the operator install the driver
    (false when the driver is pre-installed)" reads "driver is preinstalled", "pre-installed
    drivers and toolkit", "toolkit already on the nodes" as false. The state's object is the
    description's subject or, for "it", the distinctive parts of the parameter's name."""
    m = _STATED.search(str(spec.get("description", "")))
    if not m:
        return None
    nouns = [p for p in distinctive_cues(name, all_names) if not p.endswith("*")]
    if m.group(2) and m.group(2).lower() not in _STOP:
        nouns.append(m.group(2).lower())
    state = m.group(3).lower()
    states = _STATE_WORDS.get(state, [state])
    if state not in states:
        states = [state] + states
    if not nouns:
        return None
    return {"stated": {"nouns": sorted(set(nouns)), "states": states, "value": m.group(1).lower() == "true"}}


def _bool_nouns(name: str, spec: dict[str, Any], all_names: list[str]) -> list[str]:
    """The thing a boolean turns on or off, as the request names it: its name ("dcgm exporter"),
    its distinctive name parts ("driver" for driver_enabled) and the subject of the state its
    description names ("false when the driver is pre-installed")."""
    nouns = [v for v in name_variants(name) if v.lower() not in _STOP]
    if name.split("_")[0] not in ("all", "every", "any", "each"):  # "all namespaces" is no "namespace"
        nouns += [p for p in distinctive_cues(name, all_names) if not p.endswith("*") and p.lower() not in _STOP]
    m = _STATED.search(str(spec.get("description", "")))
    if m and m.group(2) and m.group(2).lower() not in _STOP:
        nouns.append(m.group(2).lower())
    return sorted(set(nouns), key=len, reverse=True)


_GENERIC_KIND_PARTS = {"class", "set", "object", "config", "map", "rule", "template", "policy", "service", "range"}


def kind_phrases(kind: str) -> list[str]:
    """How people name a Kubernetes kind: "storageclass", "storage class", "sc"; "PersistentVolumeClaim"
    is also a "pvc" and a "claim", "NodePool" a "node pool" and a "pool"."""
    parts = re.findall(r"[A-Z0-9]+(?![a-z])|[A-Z][a-z0-9]*", kind) or [kind]
    out = {kind.lower()}
    if len(parts) > 1:
        out.add(" ".join(p.lower() for p in parts))
        if all(p.isalpha() for p in parts):
            out.add("".join(p[0] for p in parts).lower())
        last = parts[-1].lower()
        if len(last) >= 4 and last not in _GENERIC_KIND_PARTS:
            out.add(last)
    return sorted(out, key=len, reverse=True)


def _names_of(expr: Any) -> tuple[str | None, list[tuple[str, str, str]]]:
    """The parameter a metadata.name expression is (directly), and the (parameter, prefix,
    suffix) it is formatted from ("{name}-claim")."""
    if isinstance(expr, dict):
        if isinstance(expr.get("$param"), str):
            return expr["$param"], []
        if isinstance(expr.get("$format"), str):
            m = re.fullmatch(r"([^{}]*)\{(\w+)\}([^{}]*)", expr["$format"])
            return None, [(m.group(2), m.group(1), m.group(3))] if m else []
        if "$if" in expr:
            direct, derived = _names_of(expr.get("then"))
            d2, derived2 = _names_of(expr.get("else"))
            return direct or d2, derived + derived2
    return None, []


_KINDS_CACHE: dict[tuple[str, str, int], dict[str, Any]] = {}


def named_kinds(recipe: Recipe) -> dict[str, Any]:
    """Per parameter, the phrases of the kinds of object it names (``direct``) and of the objects
    whose names are formatted from it (``derived``: phrase -> (prefix, suffix)), from the
    recipe's templates."""
    key = (recipe.id, str(recipe.path), id(recipe.templates))
    if key in _KINDS_CACHE:
        return _KINDS_CACHE[key]
    direct: dict[str, set[str]] = {}
    derived: dict[str, dict[str, tuple[str, str]]] = {}

    def walk(t: Any) -> None:
        if isinstance(t, dict):
            if isinstance(t.get("kind"), str) and isinstance(t.get("metadata"), dict):
                d, der = _names_of(t["metadata"].get("name"))
                phrases = kind_phrases(t["kind"])
                if d:
                    direct.setdefault(d, set()).update(phrases)
                for p, pre, suf in der:
                    for ph in phrases:
                        derived.setdefault(p, {})[ph] = (pre, suf)
            for v in t.values():
                walk(v)
        elif isinstance(t, list):
            for v in t:
                walk(v)

    walk(recipe.templates)
    # a parameter that names an object the recipe refers to but does not render ("Name of a custom
    # mig-parted ConfigMap for MIG Manager") names that kind too, unless a rendered object has it
    rendered = {ph for phs in direct.values() for ph in phs}
    refs: dict[str, set[str]] = {}
    for p, spec in recipe.properties.items():
        # ("Kueue LocalQueue (the queue-name label)": a description opening with the kind's name too)
        m = re.match(r"\s*(?:Name of )?(?:an? |the )?(?:[\w-]+ ){0,2}?([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)\b",
                     str(spec.get("description", "")))
        if m and p not in direct and spec.get("type") == "string":
            refs.setdefault(p, set()).update(ph for ph in kind_phrases(m.group(1)) if ph not in rendered)
    for p, phs in refs.items():
        if phs:
            direct[p] = phs
    direct = {p: v for p, v in direct.items() if p in recipe.properties}
    # a noun two parameters' objects share ("queue" for a ClusterQueue and a LocalQueue) names neither
    count: dict[str, int] = {}
    for phs in direct.values():
        for ph in phs:
            count[ph] = count.get(ph, 0) + 1
    direct = {p: {ph for ph in v if count[ph] == 1} for p, v in direct.items()}
    every_direct = {ph for phs in direct.values() for ph in phs}
    out = {"direct": {p: sorted(v, key=len, reverse=True) for p, v in direct.items()},
           "derived": {p: {ph: a for ph, a in v.items() if ph not in every_direct} for p, v in derived.items()}}
    _KINDS_CACHE[key] = out
    return out


@lru_cache(maxsize=1024)
def _initials(name: str, all_names: tuple[str, ...]) -> str | None:
    """The initials of a parameter of two or three name parts ("lq" for local_queue), when no
    other parameter of the recipe has the same."""
    parts = [p for p in name.split("_") if p]
    if not 2 <= len(parts) <= 3:
        return None
    mine = "".join(p[0] for p in parts)
    same = [n for n in all_names if "".join(p[0] for p in n.split("_") if p) == mine]
    return mine if same == [name] and mine not in _STOP else None


# Error output a request pastes ("Error from server (Forbidden): ... exceeded quota: ...", "0/8 nodes
# are available: ..."), up to a dash, a new line or the question that follows it
# "kubectl get vcjob bench -o yaml", "kubectl describe pvc/ckpt -n ml": an object named by its resource
_KUBECTL_NS = re.compile(r"(?<![\w-])(?:(?-i:-n)|--namespace)(?:\s+|=)(?=[-a-z0-9]*[a-z])([a-z0-9][-a-z0-9]*[a-z0-9])(?![\w-])")
_KUBECTL_GET = re.compile(r"\bkubectl\s+(?:-n\s+\S+\s+)?(?:get|describe|edit|autoscale|scale|patch|label|annotate|"
                          r"delete|rollout\s+restart)\s+(?P<res>[a-z][\w.-]*)(?:/|\s+)"
                          r"(?P<name>[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)(?![\w.-])", re.I)
_KUBECTL_REF = re.compile(r"(?<![\w./-])(?P<res>deploy|deployments?|po|pods?|jobs?|svc|services?|pvc|sts|statefulsets?|ds|"
                          r"daemonsets?|cm|configmaps?|hpa|vcjob|pytorchjobs?|mpijobs?|pc|priorityclass|quota|"
                          r"resourcequota|nodepools?|so|scaledobjects?|sm|servicemonitors?|pg|podgroups?|cq|"
                          r"clusterqueues?|lq|localqueues?)/(?P<name>[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)(?![\w/.:-])")
# "kubectl get deploy -n x" and the table it printed, of a single row: the name in that row
_KUBECTL_LIST = re.compile(r"\bkubectl\s+(?:-n\s+\S+\s+)?get\s+(?P<res>[a-z][\w.-]*)(?:\s+-{1,2}[\w-]+(?:[=\s][^\s-]\S*)?)*"
                           r"[^\S\n]*\n```\n[^\S\n]*NAME\s[^\n]*\n[^\S\n]*(?P<row>[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)\s[^\n]*\n```")
# kubectl's short names (and Volcano's) for the kinds recipes render
_KUBECTL_SHORT = {"pvc": "persistentvolumeclaim", "pv": "persistentvolume", "sc": "storageclass", "deploy": "deployment",
                  "svc": "service", "cm": "configmap", "pc": "priorityclass", "quota": "resourcequota",
                  "limits": "limitrange", "hpa": "horizontalpodautoscaler", "vcjob": "job", "vj": "job",
                  "pg": "podgroup", "podgroups": "podgroup", "cq": "clusterqueue", "lq": "localqueue",
                  "rf": "resourceflavor", "so": "scaledobject", "sm": "servicemonitor", "po": "pod", "ns": "namespace",
                  "ec2nc": "ec2nodeclass", "lws": "leaderworkerset", "pytorchjobs": "pytorchjob", "mpijobs": "mpijob",
                  "queues": "queue", "vcqueue": "queue"}
# "kubectl run gpu-debug --image=... --restart=Never -n platform -- nvidia-smi -q"
_KUBECTL_RUN = re.compile(r"\bkubectl\s+run\s+(?P<name>[a-z0-9][-a-z0-9.]*)(?P<flags>(?:\s+-{1,2}[A-Za-z][\w-]*(?:[=\s](?!-)[^\s`'\",;]+)?)*)"
                          r"(?:\s+--\s+(?P<cmd>[^`'\"\n,;]+?))?(?=\s*(?:[`'\"\n,;]|$)|\s+-{2}\s+(?:it|this|that)\b)",
                          re.I)
_PASTED_OUTPUT = re.compile(r"(?:\bError from server\b|\b(?:Warning\s+)?FailedScheduling\b|\b0/\d+ nodes are available\b|"
                            r"\bexceeded quota:).*?(?=\s+(?:--|\u2014|-)\s|\n|$|"
                            # (up to the writer's own next sentence: "... for scheduling. The notebooks barely touch")
                            r"(?<=\.)\s+(?-i:(?!Preemption\b)[A-Z][a-z]+\s+[a-z]))", re.I)


_FIELDS_CACHE: dict[tuple[str, str, int], dict[str, list[str]]] = {}


def _params_in(expr: Any, depth: int = 0) -> set[str]:
    """The parameters a template value is computed from directly (``{$param: p}``, or a directive
    over such values: ``$max``, ``$if``, ``$format``), not those of nested manifest objects."""
    if depth > 3:
        return set()
    if isinstance(expr, dict):
        if isinstance(expr.get("$param"), str):
            return {expr["$param"]}
        if "$if" in expr:  # the value is one branch; the condition only picks it
            return _params_in(expr.get("then"), depth + 1) | _params_in(expr.get("else"), depth + 1)
        if len(expr) == 1 and next(iter(expr)) in ("$max", "$min"):
            # "$max: [max_replicas, min_replicas, 1]": the first value, bounded by the others
            args = next(iter(expr.values()))
            return _params_in(args[0] if isinstance(args, list) and args else args, depth + 1)
        if len(expr) == 1 and next(iter(expr)) in ("$str", "$coalesce"):
            return _params_in(next(iter(expr.values())), depth + 1)  # the value itself, cast or defaulted
        return set()  # a manifest mapping, or a value computed from the parameter rather than equal to it
    if isinstance(expr, list):
        return {p for v in expr for p in _params_in(v, depth + 1)}
    return set()


def is_field_name(key: str) -> bool:
    """Is ``key`` a camelCase manifest field of eight letters or more ("minReplicaCount")?"""
    return len(key) >= 8 and bool(_FIELD_NAME.fullmatch(key))


_FIELD_NAME = re.compile(r"[a-z]+(?:[A-Z][a-z0-9]*)+")


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def manifest_fields(recipe: Recipe) -> dict[str, list[str]]:
    """Per parameter, the camelCase manifest fields it alone sets (``minReplicaCount`` for
    min_replicas, ``permitWaitingTimeSeconds``, ``backoffLimitPerIndex``): engineers write the
    field they mean, and the recipe's templates say which parameter fills it."""
    key = (recipe.id, str(recipe.path), id(recipe.templates))
    if key in _FIELDS_CACHE:
        return _FIELDS_CACHE[key]
    found: dict[str, set[str]] = {}

    def walk(t: Any) -> None:
        if isinstance(t, dict):
            # an environment variable the manifest sets from one parameter ("HF_HOME" for cache_path):
            # a pasted "-e HF_HOME=/cache/hf" or "export HF_HOME=..." gives that parameter
            env = t.get("name")
            if isinstance(env, str) and _ENV_NAME.fullmatch(env) and "value" in t:
                ps = _params_in(t["value"]) & set(recipe.properties)
                if len(ps) == 1:
                    found.setdefault(env, set()).update(ps)
                    # ... and its words, as a settings file's line reads ("hf home /cache/hf")
                    found.setdefault(" ".join(key_words(env)), set()).update(ps)
            for k, v in t.items():
                if isinstance(k, str) and is_field_name(k):
                    ps = _params_in(v) & set(recipe.properties)
                    if len(ps) == 1:
                        found.setdefault(k, set()).update(ps)
                walk(v)
        elif isinstance(t, list):
            for v in t:
                walk(v)

    walk(recipe.templates)
    out: dict[str, list[str]] = {}
    for field, ps in found.items():
        if len(ps) == 1:  # a field two parameters fill in different objects names neither
            p = next(iter(ps))
            if field.lower() not in {v.lower().replace(" ", "").replace("-", "") for v in name_variants(p)}:
                out.setdefault(p, []).append(field)
    _FIELDS_CACHE[key] = out
    return out


def _split_command(cmd: str) -> list[str]:
    """A command line as its arguments, a quoted argument whole ("python -c 'import torch'")."""
    import shlex

    # (a backslash that continued the line is no part of any argument: "--nproc_per_node=8 \\ --rdzv_backend=c10d")
    cmd = re.sub(r"\\[ \t]*(?:\r?\n[ \t]*|(?=[ \t]))", " ", cmd)
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = cmd.split()
    # ("(so the command becomes python x.py --shard $(I))": the aside's closing bracket is no part of it)
    while words and words[-1].endswith(")") and "".join(words).count(")") > "".join(words).count("("):
        words[-1] = words[-1][:-1]
        if not words[-1]:
            words.pop()
    return words


def manifest_paths(recipe: Recipe) -> dict[str, list[tuple[str, ...]]]:
    """Per parameter, the manifest paths (keys without list positions: ``("spec", "driver", "enabled")``)
    that change when that parameter alone changes: rendered with the defaults, then with each
    boolean flipped, each enum and integer moved to another value. Helm values and dotted fields
    ("--set driver.enabled=false", "mig.strategy: mixed") name the parameter by such a path."""
    key = (recipe.id, str(recipe.path), id(recipe.templates))
    if key in _PATHS_CACHE:
        return _PATHS_CACHE[key]
    from .render import render_recipe

    def flat(params: dict[str, Any]) -> dict[tuple[str, ...], Any] | None:
        try:
            docs = render_recipe(recipe, params, validate=False).documents
        except GpukbError:
            return None
        out: dict[tuple[str, ...], Any] = {}
        for d in docs:
            for path, value in _leaves(d):
                out.setdefault(path, []).append(value)
        return out

    base = flat({}) or {}
    changed: dict[tuple[str, ...], set[str]] = {}
    for name, spec in recipe.properties.items():
        default = spec.get("default")
        if spec.get("type") == "boolean":
            other: Any = not bool(default)
        elif spec.get("enum"):
            other = next((v for v in spec["enum"] if v != default), None)
        elif spec.get("type") == "integer" and isinstance(default, int):
            other = default + 1 if default + 1 <= spec.get("maximum", default + 1) else default - 1
        elif spec.get("type") == "integer" and default is None:
            low = int(spec.get("minimum", 0))
            other = low + 7 if low + 7 <= spec.get("maximum", low + 7) else low
        elif spec.get("type") == "string":
            v = _prop_validator(json.dumps(spec, sort_keys=True))
            other = next((c for c in _SENTINELS if v.is_valid(c)), None)
        else:
            continue
        if other is None:
            continue
        got = flat({name: other})
        if spec.get("type") == "integer" and default is None and got == base:
            # (a value equal to what the template computes without it changes nothing: try a smaller one)
            low = int(spec.get("minimum", 0))
            for other in (low + 3, low + 1):
                if other <= spec.get("maximum", other) and (got := flat({name: other})) != base:
                    break
        if got is None:
            continue
        for path in set(base) | set(got):
            # the field holds the value itself (not "KarpenterNodeRole-<cluster>", not workers - 1)
            if base.get(path) != got.get(path) and any(x == other or str(x) == str(other) for x in got.get(path) or []):
                changed.setdefault(path, set()).add(name)
    out: dict[str, list[tuple[str, ...]]] = {}
    for path, names in changed.items():
        if len(names) == 2 and len(path) >= 2 and all(recipe.properties[n].get("type") == "integer" for n in names):
            # "parallelism: {$param: members}" while min_member only pulls the pods up to it: the
            # parameter the template writes into the field itself, unconditionally, is the one it is for
            direct = {n for n in names if path in _direct_paths(recipe.templates).get(n, set())}
            names = direct if len(direct) == 1 else names
        if len(names) == 2 and len(path) >= 2 and all(recipe.properties[n].get("type") == "string" for n in names):
            # "the HPA's name, else the Deployment's": with both given, the field holds the one it is for
            a, b = sorted(names)

            def sentinel(n: str, other: str | None) -> str | None:
                v = _prop_validator(json.dumps(recipe.properties[n], sort_keys=True))
                return next((c for c in _SENTINELS if c != other and v.is_valid(c)), None)

            va = sentinel(a, None)
            vb = sentinel(b, va)
            both = flat({a: va, b: vb}) if va and vb else None
            held = (both or {}).get(path) or []
            names = {a} if va in held and vb not in held else {b} if vb in held and va not in held else names
            if va in held and vb in held:
                # "the StorageClass's name, the claim's unless claim_name names it": the field of the
                # first document holds the object's own name
                names = {a} if held.index(va) < held.index(vb) else {b}
        if len(names) == 1 and len(path) >= 2:
            out.setdefault(next(iter(names)), []).append(path)
    _PATHS_CACHE[key] = out
    return out


_KIND_NAMES_CACHE: dict[tuple[str, str, int], dict[str, set[str]]] = {}
_OTHER_WORDS_CACHE: dict[tuple[str, str, int], frozenset[str]] = {}
# words that frame any value ("named", "maximum", "label"): they name no parameter of their own
_VALUE_FRAME_WORDS = frozenset("""named called image command product quantity resource another extra nothing allowed
moment process still going running within without maximum minimum value values label labels""".split())
# words every counting rule shares: they tell no parameter from another
_SHARED_RULE_WORDS = frozenset("""gpus gpu pods pod nodes node more than over that with once after when them team have
their each every into from this these those what which while until above below least most must should shall will
never cannot always total""".split())


def _rule_words(recipe: Recipe, name: str) -> set[str]:
    """The words (four letters or more) of a parameter's name and of its rules' phrases and patterns."""
    out = {w for w in name.lower().split("_") if len(w) >= 4}
    for r in recipe.extract.get(name) or []:
        for v in r.values():
            for s in (v if isinstance(v, list) else [v]):
                if isinstance(s, str):
                    out.update(w.lower() for w in re.findall(r"(?<![\\])\b[a-zA-Z]{4,}\b", s))
    return out


def _other_param_words(recipe: Recipe, name: str) -> frozenset[str]:
    """Words that name the recipe's other parameters and not ``name`` ("borrow", "reserved")."""
    key = (recipe.id, name, id(recipe.extract))
    if key not in _OTHER_WORDS_CACHE:
        own = _rule_words(recipe, name)
        others = {w for o in recipe.properties if o != name for w in _rule_words(recipe, o)}
        # ... nor a noun some parameter counts ("each replica must get 4 GPUs" is a rate of the same count)
        counted = {w.lower() for rules in recipe.extract.values() for r in rules for u in r.get("count") or []
                   if isinstance(u, str) for w in re.findall(r"[A-Za-z]+", u)}
        counted |= {w + "s" for w in counted} | {w.rstrip("s") for w in counted}
        # ... nor the recipe's own topic ("queue" in a queue recipe) or a word that frames any value
        topic = {w.lower() for s in [recipe.title, *recipe.kinds] for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", s)}
        topic |= {k.lower() for k in recipe.kinds}
        _OTHER_WORDS_CACHE[key] = frozenset(w for w in others - own - _SHARED_RULE_WORDS - set(STOPWORDS) - topic - counted
                                            if len(w) >= 5 and w not in _VALUE_FRAME_WORDS)
    return _OTHER_WORDS_CACHE[key]


def kind_names(recipe: Recipe) -> dict[str, set[str]]:
    """Per kind of the recipe's manifest (lowercase), the string parameters that set the name of
    an object of that kind: rendered with each parameter set to a probe name."""
    key = (recipe.id, str(recipe.path), id(recipe.templates))
    if key in _KIND_NAMES_CACHE:
        return _KIND_NAMES_CACHE[key]
    from .render import render_recipe

    out: dict[str, set[str]] = {}
    for name, spec in recipe.properties.items():
        if spec.get("type") != "string" or spec.get("enum"):
            continue
        try:
            docs = render_recipe(recipe, {name: "zz-probe-name"}, validate=False).documents
        except GpukbError:
            continue
        for d in docs:
            meta = d.get("metadata") if isinstance(d, dict) else None
            if isinstance(meta, dict) and "zz-probe-name" in str(meta.get("name", "")):
                out.setdefault(str(d.get("kind", "")).lower(), set()).add(name)
    _KIND_NAMES_CACHE[key] = out
    return out


_PATHS_CACHE: dict[tuple[str, str, int], dict[str, list[tuple[str, ...]]]] = {}
# values unlike any default, one of which a string parameter's schema takes: a name, a path, a
# duration, a quantity, a URL, a version, an address or a cloud id
_SENTINELS = ("zqsentinel", "zq-sentinel", "zqsentinel:1", "/zqsentinel", "zqsentinel.io/zq", "77m", "777", "77Gi",
              "http://zqsentinel.example:7777", "zqsentinel@v7.7.7", "v7.7.7", "7.7.7.7", "zq77zq77",
              "sg-0123456789abcdef7", "subnet-0123456789abcdef7", "fs-0123456789abcdef7", "zq-zqsentinel-7",
              "7.7.7", "77777", "bottlerocket@v7.7.7", "7g.77gb")
_FENCE = re.compile(r"```[\w-]*\n(.*?)```", re.S)
_MANIFEST_KEYS = re.compile(r"(?:^|\s)(?:apiVersion|kind|metadata|spec)\s*:", re.M)
_KUBECTL_CREATE = re.compile(r"\bkubectl\s+create\s+(?P<kind>quota|resourcequota|deployment|deploy|namespace|ns|"
                             r"priorityclass|pc)\s+(?P<name>[a-z0-9][-a-z0-9.]*)(?P<flags>(?:\s+-{1,2}[A-Za-z][\w-]*"
                             r"(?:[=\s](?!-)[^\s`'\"]+)?)*)", re.I)


def _kubectl_create_leaves(m: re.Match[str]) -> list[tuple[tuple[str, ...], Any]]:
    """Manifest leaves a ``kubectl create`` line sets: the name, -n, --image, --replicas, --hard, --value."""
    out: list[tuple[tuple[str, ...], Any]] = [(("metadata", "name"), m.group("name"))]
    for f in re.finditer(r"(--?[A-Za-z][\w-]*)(?:[=\s]([^\s`'\"]+))?", m.group("flags") or ""):
        flag, val = f.group(1), f.group(2) or ""
        if flag in ("-n", "--namespace"):
            out.append((("metadata", "namespace"), val))
        elif flag == "--image":
            out.append((("containers", "image"), val))
        elif flag == "--replicas" and val.isdigit():
            out.append((("spec", "replicas"), int(val)))
        elif flag == "--value" and re.fullmatch(r"-?\d+", val):
            out.append((("value",), int(val)))
        elif flag == "--hard":
            for kv in val.split(","):
                k, _, v = kv.partition("=")
                if k and v:
                    out.append((("spec", "hard", k), int(v) if v.isdigit() else v))
    return out


# a table header as kubectl and cloud CLIs print it: two or more upper-case columns apart by 2+ spaces
_TABLE_HEAD = re.compile(r"^\s*[A-Z][A-Z0-9_.()/-]*(?:\s[A-Z][A-Z0-9_.()/-]*)?(?:\s{2,}[A-Z][A-Z0-9_.()/-]*(?:\s[A-Z][A-Z0-9_.()/-]*)?)+\s*$")
_KEY_LINE = re.compile(r"^\s*(?:-\s+)?[\"']?[\w./-]+[\"']?\s*:(?:\s|$)")


def _prose(line: str) -> bool:
    """A line of words, not of a paste: four or more tokens, most of them plain words, no column gaps."""
    s = line.strip()
    if not s or "  " in s or _KEY_LINE.match(line) or s[0] in "{}[]\"'#|<-$":
        return False
    tokens = s.split()
    words = [t for t in tokens if re.fullmatch(r"[A-Za-z][a-z']*[,.?!:;]?", t)]
    return len(tokens) >= 4 and len(words) >= 0.7 * len(tokens)


def fence_pastes(text: str) -> str:
    """``text`` with unfenced tables (as kubectl and cloud CLIs print them) put in code fences, the way
    most chat clients show them: a table's cells are what runs today, never the request's words. Fenced
    blocks are left as they are; a command line stays outside (it reads as words), and so do YAML and
    JSON (their lines read as ``key: value`` words)."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i, n = 0, len(lines)
    in_fence = False
    while i < n:
        ln = lines[i]
        if ln.lstrip().startswith("```"):
            in_fence = not in_fence
            out.append(ln)
            i += 1
            continue
        if in_fence:
            out.append(ln)
            i += 1
            continue
        j = _table_end(lines, i)
        if j == i:
            j, whole = _object_yaml_end(lines, i)
            if whole or (j > i and not _CHANGE_CUE.search("\n".join(lines[j:]))):
                # a whole manifest is read by its fields where it stands; YAML with no change asked
                # after it is the request's own settings
                out += lines[i:j]
                i = j
                continue
        if j > i:
            out += ["```", *lines[i:j], "```"]
            i = j
        else:
            out.append(ln)
            i += 1
    return "\n".join(out)


_YAML_LINE = re.compile(r"^(\s*)(?:-\s+)?(?:[\w./-]+|'[^']*'|\"[^\"]*\"):(?:\s+\S.*)?\s*$|^(\s*)-\s+\S.*$|^\s*\.\.\.\s*$")
# the keys of a Kubernetes object as kubectl prints it
_OBJECT_KEYS = re.compile(r"^\s*(?:-\s+)?(?:apiVersion|kind|metadata|spec|template|containers|resources|limits|requests|"
                          r"taints|triggers|data|volumes|tasks|policies|leaderWorkerTemplate|topologySpreadConstraints|"
                          r"[a-z]+[A-Z]\w*):", re.M)
# words that ask for a change to what was pasted ("make the skew 2", "drop the taint", "same but ...")
_CHANGE_CUE = re.compile(r"\b(?:make|change|drop|remove|replace|instead|switch|move|recreate|regenerate|bump|raise|"
                         r"increase|lower|reduce|cut|same|add|turn|swap|rather|now|should|want|need)\b", re.I)


def _object_yaml_end(lines: list[str], i: int) -> tuple[int, bool]:
    """The end (exclusive) of an excerpt of a Kubernetes object's YAML pasted without fences from line
    ``i`` (nested keys, an object's field names, no apiVersion or kind), or ``i`` when none starts there."""
    n, j = len(lines), i
    while j < n and lines[j].strip() and _YAML_LINE.match(lines[j]) and not lines[j].lstrip().startswith("```"):
        j += 1
    block = lines[i:j]
    if any(re.match(r"\s*(?:apiVersion|kind):", ln) for ln in block):
        return j, True  # a whole manifest: (its end, and that it is one)
    if len(block) < 3:
        return i, False
    indents = {len(ln) - len(ln.lstrip()) for ln in block}
    if len(indents) < 2 or not _OBJECT_KEYS.search("\n".join(block)):
        return i, False
    return j, False


# "$ kubectl describe quota gpu-quota -n recsys": what follows, up to the first line of words, is its output
_DESCRIBE_LINE = re.compile(r"^\s*(?:\$\s*)?kubectl\s+describe\s+(?:quota|resourcequota|limitrange|queue|clusterqueue|"
                            r"localqueue|nodepool|priorityclass|pvc|persistentvolumeclaim)\b[^\n]*$", re.I)
_IDENTITY_LINE = re.compile(r"^\s*(?:Name|Namespace):\s+\S+\s*$")


def _table_end(lines: list[str], i: int) -> int:
    """The end (exclusive) of a table that starts at line ``i``, or ``i`` when none does. (The output of
    ``kubectl describe`` on an object of settings, after its command line, is one: its fields are what is
    set today, never the request's words.)"""
    n = len(lines)
    ln = lines[i]
    k = i - 1  # (the object's own name and namespace, right under the command, name the object asked for)
    while k >= 0 and _IDENTITY_LINE.match(lines[k]):
        k -= 1
    if k >= 0 and _DESCRIBE_LINE.match(lines[k]) and ln.strip() and not _prose(ln) and not _IDENTITY_LINE.match(ln):
        j = i
        while j < n and not _prose(lines[j]) and not lines[j].lstrip().startswith("```"):
            j += 1
        while j > i and not lines[j - 1].strip():
            j -= 1
        return j
    if _TABLE_HEAD.match(ln):
        j = i + 1
        while j < n and lines[j].strip() and not _prose(lines[j]) and not lines[j].lstrip().startswith("```"):
            j += 1
        return j if j > i + 1 else i
    return i


def _pasted_docs(text: str) -> list[dict[str, Any]]:
    """The manifests pasted in fenced blocks."""
    out: list[dict[str, Any]] = []
    for block in _FENCE.findall(text)[:4]:
        if not _MANIFEST_KEYS.search(block):
            continue
        block = _applied_diff(_without_command_line(block))
        # "      ..." standing for the lines left out ends a YAML document: it is no part of the paste
        block = re.sub(r"(?m)^[ \t]*(?:#\s*)?(?:\.\.\.|\u2026)[ \t]*$", "", block)
        try:
            out += [d for d in load_yaml(block, many=True) if isinstance(d, dict)]
        except yaml.YAMLError:
            continue
    return out


# a fenced block that holds a command line, not YAML
# (or a batch script: "#!/bin/bash", "#SBATCH --nodes=2", "#PBS -l select=2")
# a pattern whose values open with a prefix of their own: "^subnet-", "^sg-", "^s3://", "^ami-", "^arn:"
_ID_PREFIX = re.compile(r"\^[a-z][a-z0-9]{1,10}(?:-|://|:)")
_COMMAND_BLOCK = re.compile(r"```[\w-]*\s*(?:\$\s*)?(?:kubectl|helm|docker|podman|srun|sbatch|salloc|torchrun|mpirun|"
                            r"mpiexec|horovodrun|python3?|bash|sh|eksctl|gcloud|aws|az|#!|#SBATCH|#PBS|#BSUB)(?:\b|(?<=#!))")


_JSON_FIELD = re.compile(r"\"([A-Za-z][\w]*)\"\s*:\s*\"?([A-Za-z0-9][\w.:/-]*)\"?\s*[,}\n]")
_COMMAND_LINE = re.compile(r"\A\s*(?:\$\s*)?(?:kubectl|helm|docker|podman|aws|gcloud|az|eksctl|oc)\b[^\n]*\n")


def _without_command_line(block: str) -> str:
    """A pasted block without the command line that printed it ("$ kubectl get sc x -o yaml")."""
    return _COMMAND_LINE.sub("", block, count=1)


def _applied_diff(block: str) -> str:
    """A pasted block written as a unified diff ("-  replicas: 2" then "+  replicas: 6"), as the text it
    asks for: removed lines go, an added line's mark becomes the column it stood in, context stays."""
    if not re.search(r"(?m)^\+(?!\+\+)", block):
        return block
    out: list[str] = []
    parent = ""  # the line a hunk's header names as the one around it ("@@ -4,14 +4,14 @@ metadata:")
    for ln in block.split("\n"):
        if ln.startswith("@@"):
            parent = re.sub(r"^@@[^@]*@@\s*", "", ln)
            continue
        # (a bare "---" between two objects is YAML's document separator, not a file header)
        if (ln.startswith(("---", "+++")) and ln.strip() != "---") or \
                (ln.startswith("-") and not re.match(r"-[ \t]+-", ln) and ln.strip() != "---"):
            continue
        out.append(" " + ln[1:] if ln.startswith("+") else ln)
    return _seated_hunk("\n".join(out), parent)


def _seated_hunk(block: str, parent: str) -> str:
    """A hunk that opens inside a mapping ("   name: x" under a "metadata:" the hunk leaves out, then
    " spec:") with its first lines put back under the key its header names, so it reads as YAML."""
    lines = [ln for ln in block.split("\n") if ln.strip()]
    if not lines:
        return block
    indent = [len(ln) - len(ln.lstrip(" ")) for ln in lines]
    low = min(indent)
    key = re.fullmatch(r"\s*([A-Za-z_][\w.-]*):\s*", parent)
    if indent[0] == low or not key:
        return block
    return " " * low + key.group(1) + ":\n" + block


def _yaml_leaves(block: str) -> list[tuple[tuple[str, ...], Any]]:
    """The (key path, value) leaves of a YAML block that is no manifest (Helm values), or none."""
    try:
        data = load_yaml(block)
    except yaml.YAMLError:
        return _fragment_leaves(block)
    return list(_leaves(data)) if isinstance(data, dict) else []


_FRAGMENT_LINE = re.compile(r"(?m)^[ \t]*(?:-[ \t]+)?[\"']?([A-Za-z_][\w./-]*)[\"']?[ \t]*:[ \t]+(\S[^\n#]*?)[ \t]*(?:#[^\n]*)?$")


def _fragment_leaves(block: str) -> list[tuple[tuple[str, ...], Any]]:
    """The ``key: value`` lines of a block that is no whole YAML document (the changed lines of a diff,
    indented as they stood in their file), each one a leaf of its own: two of them or none."""
    leaves: list[tuple[tuple[str, ...], Any]] = []
    for m in _FRAGMENT_LINE.finditer(block):
        try:
            value = load_yaml(m.group(2))
        except yaml.YAMLError:
            value = m.group(2)
        if isinstance(value, (str, int, float, bool)):
            leaves.append(((m.group(1),), value))
    return leaves if len(leaves) >= 2 else []


def _direct_paths(templates: Any) -> dict[str, set[tuple[str, ...]]]:
    """Per parameter, the template paths (list positions left out, no kind) whose value is the
    parameter itself (``{$param: name}``), outside any condition."""
    out: dict[str, set[tuple[str, ...]]] = {}

    def walk(t: Any, path: tuple[str, ...]) -> None:
        if isinstance(t, dict):
            if set(t) == {"$param"} and isinstance(t["$param"], str):
                out.setdefault(t["$param"], set()).add(path)
                return
            if set(t) == {"$str"}:  # the parameter written as a string ("nvidia.com/gpu: '8'") is still it
                walk(t["$str"], path)
                return
            cond = t.get("$if")
            if set(t) in ({"$if", "then"}, {"$if", "then", "else"}) and isinstance(cond, dict) and \
                    set(cond) == {"$param"} and t.get("then") == cond:
                walk(t["then"], path)  # "the parameter when it is given": the path is the parameter's
                return
            if any(str(k).startswith("$") for k in t):
                return  # a condition, a loop, a merge: what it writes depends on more than one parameter
            for k, v in t.items():
                if not str(k).startswith("$"):
                    walk(v, (*path, str(k)))
        elif isinstance(t, list):
            for v in t:
                walk(v, path)

    walk(templates, ())
    return out


def _env_params(templates: Any) -> dict[str, str]:
    """The environment variables a recipe's containers set from one parameter ("HF_HOME" from cache_path,
    "WORLD_SIZE" from workers), by the variable's name."""
    out: dict[str, str] = {}

    def param_of(v: Any) -> str | None:
        while isinstance(v, dict) and len(v) == 1 and next(iter(v)) in ("$str", "$coalesce"):
            v = next(iter(v.values()))
            v = v[0] if isinstance(v, list) and v else v
        return v["$param"] if isinstance(v, dict) and set(v) == {"$param"} and isinstance(v["$param"], str) else None

    def walk(t: Any) -> None:
        if isinstance(t, dict):
            name, value = t.get("name"), t.get("value")
            if isinstance(name, str) and re.fullmatch(r"[A-Z][A-Z0-9_]{2,}", name) and (p := param_of(value)):
                out.setdefault(name, p)
            for v in t.values():
                walk(v)
        elif isinstance(t, list):
            for v in t:
                walk(v)

    walk(templates)
    return out


def _leaves(t: Any, path: tuple[str, ...] = ()):
    """The (key path, value) of every scalar in a manifest, list positions left out."""
    if isinstance(t, dict):
        for k, v in t.items():
            yield from _leaves(v, (*path, str(k)))
    elif isinstance(t, list):
        for v in t:
            yield from _leaves(v, path)
    elif path:
        yield path, t
# "--set driver.enabled=false", "mig.strategy: mixed": a dotted path and its value
_DOTTED_VALUE = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]*\.)+[A-Za-z_][\w-]*)\s*[=:]\s*[\"']?([\w.:/-]+?)[\"']?(?=[\s,;)`]|$)")
_CUE_WORDS_CACHE: dict[tuple[int, str], Any] = {}
_VALUE_WORDS_CACHE: dict[int, Any] = {}
_KIND_WORDS_CACHE: dict[int, Any] = {}
# kinds a request may mention by their short noun ("cm", "pvc", "sc") without the recipe rendering them
_COMMON_KINDS = ("ConfigMap", "Secret", "PersistentVolumeClaim", "StorageClass", "ServiceAccount")
_OTHER_NAMED_CACHE: dict[tuple[int, int, str], Any] = {}


# a sentence that picks values out of others: "from that list we only want", "just use", "keep only"
_SELECTION = re.compile(r"\b(?:only|just)\s+(?:want|need|use|keep|allow|take|pick)\b|"
                        r"\b(?:want|need|use|keep|allow|take|pick)\s+(?:only|just)\b", re.I)
_PICK_END = re.compile(r"[.!?;](?=\s|$)|\n")
# a pasted command line: a prompt, or a launcher or CLI and its arguments
_PASTED_COMMAND = re.compile(r"\s*(?:\$\s+|(?:docker|podman|nerdctl|kubectl|helm|aws|gcloud|az|eksctl|srun|sbatch|salloc|"
                             r"mpirun|mpiexec|horovodrun|torchrun|accelerate|deepspeed)\s+-{0,2}[\w-])")
# a command line flag's quoted argument: '--filters "Name=instance-type,Values=g6e.*"'
_FLAG_ARGUMENT = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*(?:\s+|=)(\"[^\"\n]*\"|'[^'\n]*')")
# a single token in quotes or backticks (for views of the text that read it bare, same length)
_QUOTED_TOKEN = re.compile(r"[\"'`]([A-Za-z0-9][\w.-]*)[\"'`]")


# what may stand between an object's noun and the words that name it: "scheduler (its name is x)"
_OWNER_AFTER = re.compile(r"[\s(,]+(?:(?:its|whose|their|the)\s+)?(?:name\s*(?:is|should\s+be|[:=])?\s*[\"'`]?)?$", re.I)
# "the release of our prometheus stack (is called x)": what the owner is of, after its noun
_OF_PHRASE = re.compile(r"\s+of\s+(?:(?:the|our|my|its|their|this|that)\s+)?(?:[\w-]+\s+){0,2}[\w-]+\s*$", re.I)
# an amount of money ("$40k a month", "€1,200", "40000 USD"): a cost, never a setting of a manifest
_MONEY = re.compile(r"[$\u20ac\u00a3]\s?\d[\d,.]*(?:\s*[kKmM]\b)?|\b\d[\d,.]*\s*[kKmM]?\s*(?:USD|EUR|GBP|dollars|euros|bucks)\b")
# "our second scheduler is 'x'": the verb that gives the value, and its quote
_COPULA_TAIL = re.compile(r"\s+(?:is|are|was|=|:)?\s*[\"'`]?$", re.I)
# "the template should be called x", "the queue of name x", "our scheduler runs as x": the naming words after
# the head of what is named
_NAMING_TAIL = re.compile(r"\s*\b(?:(?:it'?s|its|it\s+is|that'?s|which\s+is)\s+)?"
                          r"(?:(?:is|are|was|gets?|(?:(?:should|will|must|shall|can|would|to)\s+(?:just\s+|simply\s+)?)?be)\s+)?"
                          r"(?:(?:of|with)\s+(?:the\s+)?)?(?:named|called|name|(?:runs?|running|deployed|installed|registered)\s+as)\b"
                          r"\s*[:=]?\s*[\"'`]?[^\"'`\s]*$", re.I)


# a launcher in a sentence: a verb of its own after it ("mpirun starts 32 ranks", "srun should use 8 tasks")
_LAUNCHER_AS_SUBJECT = re.compile(r"\s+(?:(?:should|must|will|would|can|shall|may|has\s+to|needs?\s+to)\s+[a-z]+|"
                                  r"(?:starts|launches|runs|spawns|uses|creates|gets|sees|reports|prints|shows|fails|"
                                  r"hangs|works|is|are|was)\b(?!\s*[-=]))", re.I)
_LAUNCHER = re.compile(r"(?<![\w./-])(?:srun|mpirun|mpiexec|horovodrun)(?![\w-])", re.I)  # (Horovod's takes mpirun's -np, -H)
# launcher flags whose value is a plain word ("-bind-to none", "--map-by socket", "-p gpu"), and those
# followed by a name and its value
# flags that say where the ranks run (hosts, binding, partition): the manifest's scheduling replaces them
_LAUNCHER_PLACEMENT_FLAGS = frozenset("""-h -host --host -hostfile --hostfile -machinefile --machinefile -bind-to
--bind-to -map-by --map-by -rank-by --rank-by -p --partition -w --nodelist""".split())
_LAUNCHER_VALUE_FLAGS = _LAUNCHER_PLACEMENT_FLAGS | frozenset("""-x -wdir --wdir -q --qos -a --account -j --job-name
-o --output -e --error -t --time --mpi --distribution -m --cpu-bind --gpu-bind -d --dependency -launcher --launcher
-bootstrap --bootstrap -iface --iface""".split())
_LAUNCHER_PAIR_FLAGS = frozenset("-mca --mca -gmca --gmca -genv -env".split())
# "pods shouldn't take more than 2 GPUs each": a bound said of pods in the plural, with "each" after its amount
_PLURAL_BOUND = re.compile(r"\b(?:pods|containers|tasks|jobs|workloads|processes|notebooks)\b[^,.;]{0,40}?(?:more\s+than|"
                           r"over|at\s+most|up\s+to|beyond|exceed\w*|max(?:imum)?(?:\s+of)?)\s+$", re.I)
_EACH_AFTER = re.compile(r"\s*(?:[a-z0-9-]+\s+)?(?:gpus?|cards?)\s+(?:each|apiece)\b", re.I)
_PER_ITEM_BOUND = re.compile(r"\b(?:no|a|one|each|any|every)\s+(?:single\s+)?(?:[\w']+\s+)?(?:pod|container|ctr|task|job|workload|process)s?\s+"
                             r"[^,.;]{0,30}?(?:more\s+than|over|at\s+most|up\s+to|bigger\s+than|larger\s+than|exceed\w*|"
                             r"max(?:imum)?(?:\s+of)?)\s+$", re.I)
# "max 2/ctr", "at most 8 GPUs per container", "cap any single container at 4 GPUs", "2 maximum per one pod"
_PER_POD_AFTER = re.compile(r"\s*(?:gpus?|cards?)?\s*(?:maximum\s+|max\s+|at\s+most\s+)?(?:per|/|each|a)\s*(?:one\s+|single\s+)?"
                            r"(?:pod|container|ctr|task)s?\b", re.I)
_PER_POD_CAP = re.compile(r"\b(?:cap|limit|restrict)(?:s|ped|ed)?\s+(?:any|each|every|a|one|the)\s+(?:single\s+)?"
                          r"(?:pod|container|ctr|task)s?\s+(?:at|to)\s+$", re.I)
_ESTIMATE_PENALTY = 3.0
_ESTIMATE = re.compile(r"(?:\b(?:about|around|roughly|approx(?:imately)?|nearly|almost|some)\s+|~\s*)$", re.I)
# cloud resource ids ("fs-0abc...", "sg-0f00...", "subnet-..."): values of their own parameters, never names
_CLOUD_ID = re.compile(r"(?:fs|sg|subnet|vpc|ami|vol|eni|lt|igw|rtb|i)-[0-9a-f]{6,}", re.I)
_COUNT_ADJ = re.compile(r"(?:single|multi|dual|one|two|three|four|eight|\d+)-", re.I)
_COMPOUND_ADJ = re.compile(r"-(?:based|backed|only|enabled|aware|style|like|powered|ready|bound|heavy|friendly|free|"
                           r"specific|native|first)$", re.I)
# "sbatch -N 6", PBS's "#PBS -l select=4:ngpus=4" (four chunks, one node's worth each): the nodes
_SLURM_N = {"regex": r"(?<![\w-])(?:(?-i:-N)\s*=?\s*|(?<=[\s:])select=)(\d+)(?![\w.])"}


def _key_words(key: str) -> set[str]:
    """The words of a pasted key: "gpusPerReplica" -> {"gpus", "per", "replica"}."""
    return set(key_words(key))


def _overlaps(a: tuple[int, int] | None, b: tuple[int, int]) -> bool:
    return a is not None and a[0] < b[1] and b[0] < a[1]


class _Extractor:
    def __init__(self, recipe: Recipe, text: str):
        self.recipe = recipe
        from .spelling import correct_words

        self.raw = text
        self._flag_args: list[tuple[int, int]] | None = None
        self._commands: list[tuple[int, int]] | None = None
        # a chat thread settles a value as it goes: its last word on a value is the value
        self.chat = is_chat(text)
        self.text = correct_words(normalise_text(text), [recipe])
        self.digits = digits_view(self.text)
        self.used: list[tuple[int, int]] = []
        # phrases a rule took whole for its parameter ("and also across zones, soft"): no enum reads a value in them
        self.consumed: list[tuple[int, int]] = []
        self.result = Extraction(text=self.text)
        self._camel: frozenset[str] | None = None  # the recipe's CamelCase enum values (:meth:`_camel_values`)
        self._labels: tuple[str, list[int]] | None = None  # (:meth:`_label_view`)
        self._tiers: dict[str, list[Tier]] = {}  # keys pattern -> its tiers (:meth:`rule_tiers`)
        # pasted cluster output describes the symptom; its numbers and names are no spec
        for m in _PASTED_OUTPUT.finditer(self.text):
            self.used.append(m.span())
            self.result.covered.append(m.span())
        # a pasted manifest is read by its fields at the end (:meth:`_pasted_fields`), never word by word;
        # another block (Helm values, an eksctl config) fills only the parameters whose manifest path ends
        # with two or more of its keys ("driver: enabled: false"); the rest of it is reported as not understood
        docs = _pasted_docs(text) if "```" in text else []
        self.pasted = [leaf for d in docs for leaf in _leaves(d)]
        # (kind, name) of each pasted object
        self.pasted_refs = [(str(d["kind"]), str(d["metadata"]["name"])) for d in docs if isinstance(d.get("kind"), str)
                            and isinstance(d.get("metadata"), dict) and isinstance(d["metadata"].get("name"), str)]
        self.blocked: list[tuple[int, int]] = []
        self.from_paste: dict[str, tuple[str, ...]] = {}
        self.json_fields: list[tuple[tuple[int, int], list[tuple[tuple[str, ...], Any]]]] = []  # parameter -> the pasted field it came from
        self.value_blocks: list[tuple[tuple[int, int], list[tuple[tuple[str, ...], Any]]]] = []
        self.printed: list[tuple[int, int]] = []  # what a pasted command printed below it
        raw_blocks = [_applied_diff(b) for b in _FENCE.findall(text)] if "```" in text else []
        for k, m in enumerate(re.finditer(r"```.*?```", self.text, re.S)):
            if _MANIFEST_KEYS.search(m.group(0)):
                self.used.append(m.span())
                self.result.covered.append(m.span())
            elif _COMMAND_BLOCK.match(m.group(0)):
                # a pasted command line ("kubectl autoscale deployment x --min=1") reads as words; the YAML
                # it printed below it ("$ kubectl get sc x -o yaml" + fields) is a value block
                raw = raw_blocks[k] if k < len(raw_blocks) else ""
                rest = _without_command_line(raw)
                leaves = _yaml_leaves(rest) if rest != raw and rest.strip() else []
                if rest != raw and rest.strip():
                    # the lines the command printed are its output (a table, YAML), never the request's words
                    first = " ".join(raw[:len(raw) - len(rest)].split())
                    at = m.group(0).find(first)
                    cut = m.start() + (at + len(first) if at >= 0 else 3)
                    self.blocked.append((cut, m.end()))
                    self.printed.append((cut, m.end()))
                    if leaves:
                        self.value_blocks.append(((cut, m.end()), leaves))
            else:
                self.blocked.append(m.span())
                if k < len(raw_blocks):
                    self.value_blocks.append((m.span(), _yaml_leaves(raw_blocks[k])))
            if k < len(raw_blocks) and '":' in raw_blocks[k]:
                self.json_fields.append((m.span(), [((f.group(1),), f.group(2)) for f in _JSON_FIELD.finditer(raw_blocks[k])]))
        # "kubectl create quota q -n x --hard=requests.nvidia.com/gpu=8": the same, from the command line
        for m in _KUBECTL_CREATE.finditer(self.text):
            self.pasted += _kubectl_create_leaves(m)
            self.used.append(m.span())
            self.result.covered.append(m.span())
        # an amount of money ("$40k a month") is a cost, never a setting: no reading of the request takes it
        self.blocked += [m.span() for m in _MONEY.finditer(self.text)]
        # "I was going to say min 12 of the 16, but no ...": what the writer was about to ask and did not
        for m in _ABOUT_TO_SAY.finditer(self.text):
            self.blocked.append(m.span())
            self.result.covered.append(m.span())

    # ---------------------------------------------------------- helpers
    def _free(self, span: tuple[int, int], again: list[tuple[int, int]] | tuple = ()) -> bool:
        """Is ``span`` unread (words read into the spans in ``again`` may be read again)?"""
        a, b = span
        return all(b <= x or a >= y or any(p <= x and y <= q for p, q in again) for x, y in self.used) and \
            all(b <= x or a >= y for x, y in self.blocked)

    def _ok(self, name: str, value: Any) -> tuple[bool, Any]:
        spec = self.recipe.properties[name]
        value = self._coerce(spec, value)
        if value is None:
            return False, None
        if isinstance(value, str) and "enum" not in spec and (value.lower() in _FRAME_WORDS or value.lower() in STOPWORDS
                                                               or value.lower() in _VERBS_AFTER_NOUN
                                                               or value.lower() in _REPORTING_VERBS
                                                               or _ADVERB.fullmatch(value)):
            return False, None  # "the selector wants release=x": a verb is no name; "... accordingly": nor a manner
        if _COMMAND_NAME.search(name) and isinstance(value, list) and value and str(value[0]).lower() in _ABOUT_A_COMMAND:
            return False, None  # "the program line is:", "the mpirun line we use": words about a command, no command
        if name.endswith("image") and isinstance(value, str) and not re.search(r"[A-Za-z]", value):
            return False, None  # "at 02:00" is a time, no image
        if name.endswith("image") and isinstance(value, str) and "/" not in value and \
                re.search(r"[A-Z]", value.split(":")[0]):
            return False, None  # "Run:ai" is a product's name: an image's repository is written in lower case
        if name.endswith("image") and isinstance(value, str) and \
                re.search(r":(?:NoSchedule|PreferNoSchedule|NoExecute)$", value, re.I):
            return False, None  # "nvidia.com/gpu=present:NoSchedule": a taint's value and effect, no image
        if isinstance(value, str) and "enum" not in spec and re.fullmatch(r"\d+\s*[x\u00d7]", value, re.I):
            return False, None  # "Devices: 2x A100": a multiplier, no name
        if isinstance(value, str) and _when_or_ticket(spec, value):
            return False, None
        if isinstance(value, str) and "enum" not in spec and value in self._camel_values():
            return False, None  # "recreate it as ReadWriteMany": another setting's value, no name
        v = _prop_validator(json.dumps(spec, sort_keys=True))
        if v.is_valid(value):
            return True, value
        if isinstance(value, str) and "enum" not in spec and _MIXED_CAPS.fullmatch(value):
            return False, None  # "the vLLM deployment", "namespace (OpenShift)": a product's name in mixed capitals
        if isinstance(value, str) and value.lower() != value and v.is_valid(value.lower()):
            return True, value.lower()
        return False, value

    def _camel_values(self) -> frozenset[str]:
        """The recipe's CamelCase enum values ("ReadWriteMany", "DoNotSchedule"), as written."""
        if self._camel is None:
            self._camel = frozenset(
                v for spec in self.recipe.properties.values()
                for v in [*(spec.get("enum") or []), *((spec.get("items") or {}).get("enum") or [])]
                if isinstance(v, str) and re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+", v))
        return self._camel

    @staticmethod
    def _coerce(spec: dict[str, Any], value: Any) -> Any:
        t = spec.get("type")
        if t == "array" and not isinstance(value, list):
            return [value]
        if t == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if t == "string" and isinstance(value, str) and "Gi" in str(spec.get("pattern", "")):
            # a size the request writes in its own unit ("4GB", "512M") for a quantity in binary units
            m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGTP])(?:B|b)?", value)
            if m:
                return _quantity(parse_size(m.group(1), m.group(2)))
        if t == "integer" and isinstance(value, str):
            n = parse_number(value)
            return n
        if t == "integer" and isinstance(value, float):
            return int(value) if value == int(value) else None
        return value

    def _near(self, span: tuple[int, int], words: list[str] | None, window: int = 30) -> bool:
        if not words:
            return True
        a, b = span
        lo, hi = max(0, a - window), min(len(self.text), b + window)
        if _PRONOUN_IS.search(self.text, max(0, a - 40), a):
            lo = max(0, a - 150)  # "the shared memory thing: the loader crashes unless it's at least 64 gigs"
        # ... within its sentence: "80 gigs. Scratch emptyDir capped at 40Gi" puts no cue on the 80
        ends = [m.end() for m in _SENTENCE_END.finditer(self.text, lo, a)]
        lo = max([lo, *ends])
        after = _SENTENCE_END.search(self.text, b, hi)
        hi = after.start() if after else hi
        return self._cue_at(_inflected(tuple(words)), lo, hi) is not None

    def _cue_at(self, words: Any, lo: int, hi: int) -> re.Match[str] | None:
        """The first of ``words`` between ``lo`` and ``hi`` that stands as a word of its own: "request"
        in "requests.cpu" is part of a field's dotted name, not the word."""
        for m in _compile(_words_alt(list(words))).finditer(self.text, lo, hi):
            if "." not in m.group(0) and (self.text[m.start() - 1:m.start()] == "." or
                                          re.match(r"\.\w", self.text[m.end():m.end() + 2])):
                continue
            return m
        return None

    def _cue_words(self, name: str) -> set[str]:
        """Single cue words of the recipe's other parameters (their rules' units and near words)."""
        key = (id(self.recipe.extract), name)
        got = _CUE_WORDS_CACHE.get(key)
        if got is None or got[0] is not self.recipe.extract:
            got = (self.recipe.extract, self._build_cue_words(name))
            _CUE_WORDS_CACHE[key] = got
        return got[1]

    def _count_units(self, name: str) -> set[str]:
        """Single words the recipe's other parameters count (their own or shared count rules)."""
        out: set[str] = set()
        for other in self.recipe.properties:
            if other != name:
                for r in self.recipe.extract.get(other) or _DEFAULT_RULES.get(other, []):
                    out.update(_singular(w.lower()) for w in r.get("count") or []
                               if isinstance(w, str) and re.fullmatch(r"[a-z]+", w.lower()))
        return out

    def _build_cue_words(self, name: str) -> set[str]:
        out: set[str] = set()
        for other, rules in self.recipe.extract.items():
            if other == name:
                continue
            for r in rules:
                for key in ("count", "near", "after", "before", "list"):
                    for w in r.get(key) or []:
                        if isinstance(w, str) and re.fullmatch(r"[a-z]+", w.lower()):
                            out.add(_singular(w.lower()))
        return out

    # ------------------------------------------------------------ rules
    def rule_count(self, name: str, rule: dict[str, Any]):
        """An integer next to a unit. Units are tried in the order given (the first are the
        most specific); for each, "8 GPUs" beats "GPUs: 8" beats "8 A100 GPUs"."""
        units_list = list(rule["count"])
        if any(u.lower() in ("gpu", "gpus") for u in units_list):
            # "eight cards each": a GPU is also a card or an accelerator
            units_list += [u for u in [*_GPU_MODELS, "cards", "card", "accelerators", "accelerator"] if u not in units_list]
        units_list += self._synonym_units(name, units_list)
        # a rule whose units are all of equal rank ("any_order") tries them as one alternation
        groups = [units_list] if rule.get("any_order") else [[u] for u in units_list]
        # "8 pods, one pod per node": a count at a rate ("per node") is the count only when no other is
        for rates in (False, True):
            got = self._count_in(name, rule, groups, rates)
            if got is not None and re.search(r"\b(?:that|this|which|the|another|other)\s+$",
                                             self.text[max(0, got[1][0] - 12):got[1][0]], re.I) and \
                    re.match(r"one\b", self.text[got[1][0]:], re.I):
                continue  # "that one scales on CPU": a pronoun, no amount
            if got is not None and _RANGE_END.search(self.text, max(0, got[1][0] - 30), got[1][0]) and \
                    not any(p.startswith(("min_", "max_")) for p in self.recipe.properties):
                return None  # "keep it between two and ten replicas": a range asks for an autoscaler, not a count
            if got is not None and got[0] == 1 and (rates or _ONE_EACH.match(self.text, got[1][1])):
                return self._one_per_item(name, rule, got)
            if got is not None:
                return got
        return None

    def _one_per_item(self, name: str, rule: dict[str, Any], got: tuple[Any, tuple[int, int]]):
        """"We have 500 files ... one pod per file": one of a unit for each of another unit this count
        also counts is as many as those, when the request gives their number; else no count at all."""
        units = {_singular(str(x).lower()) for x in rule["count"] if isinstance(x, str)}
        per = _PER_ITEM.match(self.text, got[1][1])
        if per is not None and (_singular(per.group(2).lower()) in units or (
                per.group(0).split()[1].lower() == "per" and _singular(per.group(2).lower()) not in _RATE_BASES
                and not _counts_per_pod(rule))):
            # ("one piece per folder" with "40 folders" before: 40 pieces; the folders are no unit of this count)
            items = [_singular(per.group(2).lower())]
        else:
            # "320 videos to caption, 1 pod each": each of the things counted before
            per = _ONE_EACH.match(self.text, got[1][1])
            if per is None:
                return got
            items = sorted(units - {_singular(per.group(1).lower())})
        if not items:
            return got
        before = self.text if len(items) == 1 else self.text[:got[1][0]]
        for m in _compile(rf"(?<![\w.,-])(\d[\d,]*|{_NUM[1:-1]})[\s-]+(?:[a-z-]+\s+){{0,2}}?(?:{'|'.join(map(re.escape, items))})s?\b").finditer(before):
            n = parse_number(m.group(1).replace(",", ""))
            if n is not None and n > 1:
                ok, val = self._ok(name, n)
                if ok:
                    self.result.covered.append((got[1][0], per.end()))  # the rate is understood
                    return val, self._whole_word(m.span(1))
        return None

    def _count_in(self, name: str, rule: dict[str, Any], groups: list[list[str]], rates: bool):
        for units in groups:
            u = _words_alt_cached(tuple(units), _FLAGGED.get())
            u_after_number = u.replace(r"(?<![\w-])", "").replace(_FLAG_PREFIX, "")  # "2-node", "8xA100"
            u_word = u.replace(_FLAG_PREFIX, "")  # a flag's value follows it: "2 --gpus 4" is 4 GPUs
            # on the digits view, where number words are digits ("eight" -> "8    "): small patterns
            pats = [
                # "gpus=4 replicas=2": 4 is the gpus' value; "one gpu pod": one pod, not one GPU
                # ("+12 GPUs for H2" adds 12: a change by that much, not the count)
                rf"(?<![\w.=:+]){_DIG}\s*(?:x\s*)?-?\s*(?:of\s+(?:the|these|those|our|their)\s+)?{u_after_number}"
                # (the unit is no key of a setting of its own: "concurrent = 24 retries_per_shard = 1", a file's lines)
                r"(?![\w-]*\s*(?:=|:\s*\d))"
                r"(?!\s+(?:of\s+)?(?:difference|diff|imbalance|skew)\b)"
                # "a difference of 2 pods between zones" counts no pods of the job
                r"(?!\s+(?:between|among)\s+(?:the\s+)?(?:zones?|nodes?|hosts?|racks?|machines?)\b)" + (
                    r"(?!\s+(?:pod|node|job|box|server|machine|host|vm|worker|replica|instance|task|rank)s?\b)"
                    # "4 H100 nodes", "2 A100 boxes": nodes of that GPU, not GPUs
                    if "gpu" in u.lower() or any(x.lower() in _GPU_UNITS for x in units) else ""),
                # "gpu total 64", "gpus quota: 24", "GPUs requested: 12": the unit, a word saying which count, the count
                # (never the last part of an image, "ghcr.io/media/clip:3", whose tag is no count of clips; a
                # resource name's is, "requests.nvidia.com/gpu: 4")
                rf"(?:(?<![/.]){u}|{u}(?!:\S))\s*(?:(?:total|quota|budget|nominal|overall|requested|needed|required|wanted|approved|allocated|granted|requests|usage|"
                rf"cap|limit|ceiling)\s*)?"
                rf"(?:count\s+(?:is\s+)?(?=at\s+most|max))?(?:[:=]|of|count(?:\s+(?:to|of|at|is|=|:|should\s+be|will\s+be|goes\s+to))?|set to|(?:stays?|remains?|staying|kept)\s+at|(?:max(?:imum)?|at\s+most)(?:\s+of)?|(?:to|should|must|will|shall)\s+be|is|are)?"
                rf"\s*{_DIG}(?!\w|\.\w)(?!\s+times\b)",  # "retry every shard at most 3 times" counts retries
                rf"(?<![\w.]){_DIG}(?:\s*x\s*|\s*-\s*|\s+)(?!(?:{_RATE_ALT})\b)[A-Za-z][\w.-]*\s+{u_word}",
                # "two 1g.10gb mig devices", "2x 1g.10gb MIG devices": a value naming the kind of thing counted between
                rf"(?<![\w.]){_DIG}(?:\s*x)?\s+(?=[\w.+-]*[A-Za-z])\d[\w.+-]*[A-Za-z][\w+-]*\s+{u_word}",
                # "retry it at most 2 times", "restart each shard up to three times"
                rf"{u}\s+(?:[a-z]+\s+){{0,3}}?(?:at\s+most\s+|up\s+to\s+|max(?:imum)?\s+|no\s+more\s+than\s+)?"
                rf"{_DIG}\s*(?:times?|x)(?![\w])",  # ("retried no more than once": "1 time")
                # "bump the gpus to 16", "raise workers up to 8": a change verb, the unit, "to", the count
                rf"\b(?:bump|raise|increase|set|change|reduce|lower|decrease|drop|scale|grow|move|take|put)\w*\s+"
                rf"(?:(?:the|our|its|their|his|her)\s+)?(?:[a-z]+\s+)?{u}(?:\s+(?:per|each|a)\s+[a-z]+)?\s+(?:(?:up|down)\s+)?"
                rf"to\s+{_DIG}(?!\w|\.\w)",  # ... "bump gpus per worker to 4"
                # "two 8-GPU H200 nodes", "3 H100 8-gpu hosts": two descriptions of the thing counted between
                rf"(?<![\w.]){_DIG}\s+(?:(?:\d+-?(?:gpus?|cards?|way|cores?)|[A-Za-z]+\d+[A-Za-z]*)\s+){{2}}{u_word}",
            ]
            with_unit = len(pats)  # every pattern so far holds the unit
            if "gpu" in u.lower() or any(x.lower() in _GPU_UNITS for x in units):
                # "2x A100-SXM4-80GB", "4 H100-80GB-HBM3": a GPU's full product name counts GPUs too
                # (the match ends before the name, which another parameter may read)
                pats.append(rf"(?<![\w.=:]){_DIG}\s*(?:x\s*)?(?=(?:{'|'.join(_GPU_MODELS)})-[\w-]*\w(?![\w-])"
                            r"(?!\s+(?:pod|node|job|box|server|machine|host|vm|worker|replica|instance|task|rank|gpu|card)s?\b))")
            # a text without the unit is scanned only by the GPU product name's pattern
            unit_seen = _compile(u_after_number).search(self.digits) is not None
            for i, p in enumerate(pats):
                if i < with_unit and not unit_seen:
                    continue
                for m in _compile(p).finditer(self.digits):
                    span = self._whole_word(m.span(1))
                    if not self._free(span) or not self._near(m.span(), rule.get("near")):
                        continue
                    if _WHOLE_INSTALLATION.match(self.text, span[1]):
                        continue  # "the whole 212-node thing gets switched off": the size of a cluster, no count asked for
                    if self.text[span[0]:span[1]].lower() in ("one", "a", "an") and _GENERIC_ONE.match(self.text, m.end()):
                        continue  # "one replica handles ~40 QPS": any one of them, no count
                    if self.text[span[0]:span[1]].lower() == "single" and re.match(
                            r"\s+[a-z]+s\b", self.text[span[1]:span[1] + 30], re.I):
                        continue  # "allow single pods up to 8": "single" before a plural is no count
                    if self.text[span[0]:span[1]].lower() in ("single", "one") and not any(
                            "gpu" in x.lower() or x.lower() in _GPU_UNITS for x in units) and re.search(
                            r"\b(?:in|on|per|for|within|inside|into)\s+(?:a\s+|any\s+)?$", self.text[max(0, span[0] - 12):span[0]],
                            re.I):
                        continue  # "Max GPUs in a single pod: 4", "fits on a single node": a place, no count
                    if self._per_item_bound(name, span):
                        continue  # "no single task may take more than 4 GPUs": the per-pod parameter's
                    if i in (0, 2) and "fail" not in name and re.match(
                            r"\s*(?:have\s+|has\s+|ever\s+|still\s+|should\s+|may\s+|might\s+)?(?:fail|crash|die[sd]?\b|error)",
                            self.text[m.end():m.end() + 24], re.I):
                        continue  # "if a couple of pieces fail that's fine": how many fail, not how many there are
                    if i == 4 and not any(_singular(x.lower()) in _ACTION_UNITS for x in units):
                        continue  # "retry each shard up to 4 times": "times" counts an action, never the shards
                    if i == 1:  # "each pod 64 cpus": a number right before another parameter's unit is its
                        nxt = re.match(r"\s*([a-z]+)", self.text[span[1]:span[1] + 30], re.I)
                        if nxt and _singular(nxt.group(1).lower()) in self._count_units(name):
                            continue
                        if nxt and nxt.group(1).lower() in ("per", "a", "an", "each", "every"):
                            continue  # "8 pods one per node": a rate after the count, not the count
                        if nxt and _singular(nxt.group(1).lower()) in {
                                _singular(x.lower()) for x in rule["count"] if isinstance(x, str)} and \
                                re.match(r"\s+(?:per|each|every|on\s+(?:each|every|a|one))\b",
                                         self.text[span[1] + nxt.end():span[1] + nxt.end() + 20], re.I):
                            continue  # "8 training pods one pod per node": the number is the rate's after it
                    # ... a rate of two things this count counts ("pods per node" for workers); "gpus per
                    # replica" is a count of gpus
                    per = re.match(r"\s+(?:per|each|every|on\s+(?:each|every|a|one))\s+(?:(?:former|old|previous|original|"
                                   r"current|existing|physical|legacy|source)\s+)?([a-z]+)", self.text[m.end():m.end() + 40], re.I)
                    if not rates and i in (0, 2) and per and _singular(per.group(1).lower()) in {
                            _singular(x.lower()) for x in rule["count"] if isinstance(x, str)}:
                        continue
                    if not rates and i == 0 and per and per.group(0).lstrip().lower().startswith("per") and \
                            parse_number(m.group(1)) == 1 and _singular(per.group(1).lower()) not in _RATE_BASES and \
                            not _counts_per_pod(rule):
                        continue  # "one piece per folder": a rate, counted by the folders (see _one_per_item)
                    n = parse_number(m.group(1))
                    if n is None:
                        continue
                    ok, val = self._ok(name, n)
                    if not ok:
                        self._note_out_of_range(name, n, span)
                    if ok:
                        # "6 training pods": the words between too, but not a model name ("8 A100-SXM4-80GB GPUs")
                        between = self.text[span[1]:m.end()]
                        if not re.search(r"[A-Za-z]\w*\d|\d\w*[A-Za-z]", between.rsplit(" ", 1)[0] if " " in between.strip() else ""):
                            self.result.covered.append(m.span())
                        return val, span
        return None

    def _keyed_for_other(self, name: str, span: tuple[int, int]) -> bool:
        """Is the number at ``span`` the value of a key that names another parameter: '"poll_seconds": 30' in a
        pasted object, or ", 30 poll seconds," a pasted setting said as words (:func:`_setting_by_key`)?"""
        key = re.search(r"[\"']([\w.-]+)[\"']\s*:\s*$", self.text[max(0, span[0] - 60):span[0]])
        words = " ".join(key_words(key.group(1))) if key else None
        if words is None and re.search(r"(?:^|[,\n])\s*$", self.text[:span[0]]):
            after = re.match(r"[ \t]+([a-z][a-z ]*?)[ \t]*(?:,|\n|$)", self.text[span[1]:])
            words = after.group(1) if after else None
        if not words:
            return False
        got = _setting_by_key(self.recipe, f"{self.text[span[0]:span[1]]} {words}", set())
        return got is not None and got[0] != name

    def _replace(self, name: str, value: Any, span: tuple[int, int]) -> None:
        """``name`` takes ``value`` from ``span`` over what was read before (which is reported, not taken as used)."""
        old = self.result.spans.get(name)
        if old in self.used:
            self.used.remove(old)
        self.result.values[name] = value
        self.result.spans[name] = span
        self.used.append(span)

    def _key_value_pair(self) -> None:
        """"Service label: app.kubernetes.io/name=dcgm-exporter": a ``key=value`` written after the words of a
        ``<x>_key`` / ``<x>_value`` pair gives both, over readings of either from other words."""
        props = self.recipe.properties
        for k in props:
            if not k.endswith("_key") or k[:-4] + "_value" not in props:
                continue
            v, base = k[:-4] + "_value", k[:-4].replace("_", " ")
            words = "|".join(re.escape(w) for w in sorted({base, base.split()[-1]}, key=len, reverse=True))
            m = _compile(rf"\b(?:{words})s?\b[^=\n.;]{{0,40}}?[:\s][\s\"'`]*((?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9][\w.-]*)"
                         rf"\s*=\s*([A-Za-z0-9][\w.-]*[A-Za-z0-9])(?![\w./=-])").search(self.text)
            if m is None:
                continue
            ok_k, val_k = self._ok(k, m.group(1))
            ok_v, val_v = self._ok(v, m.group(3))
            if not (ok_k and ok_v):
                continue
            self._replace(k, val_k, m.span(1))
            self._replace(v, val_v, m.span(3))
            self.result.covered.append(m.span())

    def _equal_bounds(self) -> None:
        """"minReplicas: 2" and "maxReplicas: 2" in a paste (an autoscaler that never scales), for a recipe that
        has a fixed ``replicas`` and no bounds: the one count both bounds give."""
        props = self.recipe.properties
        for name, spec in props.items():
            if spec.get("type") != "integer" or name in self.result.values or f"min_{name}" in props:
                continue
            words = "(?:" + "|".join(re.escape(w) for w in sorted({name, name.replace("_", " "), name.replace("_", "")},
                                                                  key=len, reverse=True)) + ")"
            lo = _compile(rf"(?<![\w-])min(?:imum)?[_ ]?{words}[\"']?\s*[:=]\s*[\"']?(\d+)(?![\w.])").search(self.digits)
            hi = _compile(rf"(?<![\w-])max(?:imum)?[_ ]?{words}[\"']?\s*[:=]\s*[\"']?(\d+)(?![\w.])").search(self.digits)
            if lo and hi and lo.group(1) == hi.group(1) and self._free(lo.span(1)) and self._free(hi.span(1)):
                ok, val = self._ok(name, int(lo.group(1)))
                if ok:
                    self._take(name, val, lo.span(1))
                    self.result.covered.extend([lo.span(), hi.span()])
                    self.used.append(hi.span(1))

    def _min_max_pairs(self) -> None:
        """"workers minimum 2 and maximum 8", "replicas: min 1, max 6": the noun of a ``min_<x>`` /
        ``max_<x>`` pair, then both bounds."""
        props = self.recipe.properties
        for lo in props:
            if not lo.startswith("min_") or "max_" + lo[4:] not in props:
                continue
            hi = "max_" + lo[4:]
            if lo in self.result.values and hi in self.result.values:
                continue
            base = lo[4:]
            nouns = {base, _singular(base)} | {u for r in self.recipe.extract.get(base) or [] for u in r.get("count") or []
                                                if isinstance(u, str) and " " not in u}
            rx = _compile(rf"(?<![\w-]){_words_alt(sorted(nouns))}\s*[:=]?\s*(?:min(?:imum)?|at\s+least|from)\s*(?:of\s+|[:=]\s*)?"
                          rf"(\d+)\s*(?:,|and|/|;)?\s*(?:max(?:imum)?|at\s+most|up\s+to|to)\s*(?:of\s+|[:=]\s*)?(\d+)(?![\w.])")
            m = rx.search(self.digits)
            if m and self._free(m.span(1)):
                a, b = self._ok(lo, int(m.group(1))), self._ok(hi, int(m.group(2)))
                if a[0] and b[0] and self.result.values.get(hi, b[1]) == b[1]:
                    self._take(lo, a[1], m.span(1))
                    self._take(hi, b[1], m.span(2))
                continue
            # "never fewer than 2 or more than 10 pods", "never below 2 replicas or above 10", "no fewer than 2
            # workers, never past 8", "at least 2 and at most 10 replicas", "between
            # two and eight workers", "anywhere from 2 up to 8 workers": both bounds in one phrase, of the
            # pair's noun (or a word people count it by); said of no other noun when the noun is left out
            words = set(nouns)
            for group in _COUNT_SYNONYMS:
                if any(_singular(w) in group for w in nouns):
                    words |= group | {w + "s" for w in group}
            noun = _words_alt(sorted(words))
            other = r"(?!\s*(?:%|percent|gpus?\b|cards?\b|gi|gb|mi|ti|[smhd]\b|sec|min|hour|day|cpus?\b|cores?\b))"
            low = (r"(?:(?:never|no|not)\s+(?:fewer|less)\s+than|(?:never|not|no)\s+(?:(?:go|goes|drop|drops|scale|scales|"
                   r"fall|falls)\s+)?(?:below|under|lower\s+than))")
            high = (r"(?:(?:(?:never|no|not)\s+)?(?:(?:go|goes|grow|grows|scale|scales|rise|rises)\s+)?(?:more\s+than|above|over|"
                    r"past|beyond|higher\s+than)|at\s+most)")
            for pattern in (rf"\b{low}\s+(\d+){other}(?:\s+{noun})?\s*(?:,|or|and|but|nor)?\s*{high}\s+(\d+){other}(?:\s+{noun})?",
                            rf"\bat\s+least\s+(\d+){other}(?:\s+{noun})?\s*(?:,|and|but)?\s*at\s+most\s+(\d+){other}(?:\s+{noun})?",
                            rf"\b(?:between|from)\s+(\d+)\s+(?:and|(?:up\s+)?to)\s+(\d+)\s+{noun}",
                            # "scale deployment x in ns y from 0 up to 5": after a verb of scaling, replicas
                            *([rf"\bscal(?:e|es|ed|ing)\s+(?:[\w.-]+\s+){{0,8}}?from\s+(\d+)\s+(?:up\s+)?to\s+(\d+)"
                               rf"(?![\w.]){other}"] if base == "replicas" else [])):
                m = _compile(pattern).search(self.digits)
                # a bound read already by its own rule ("up to 5") is the same reading, not another
                if not m or not (self._free(m.span(1)) or self.result.spans.get(lo) == m.span(1)) \
                        or not (self._free(m.span(2)) or self.result.spans.get(hi) == m.span(2)):
                    continue
                a, b = self._ok(lo, int(m.group(1))), self._ok(hi, int(m.group(2)))
                if a[0] and b[0] and a[1] <= b[1] and self.result.values.get(lo, a[1]) == a[1] \
                        and self.result.values.get(hi, b[1]) == b[1]:
                    if lo not in self.result.values:
                        self._take(lo, a[1], m.span(1))
                    if hi not in self.result.values:
                        self._take(hi, b[1], m.span(2))
                    self.result.covered.append(m.span())
                    break

    def _per_pod_bounds(self) -> None:
        """A bound on one pod or container ("max 2/ctr", "no single container may take more than 4",
        "cap any single container at 4 GPUs") fills the recipe's per-pod GPU parameter."""
        names = [n for n, sp in self.recipe.properties.items() if "per_pod" in n and sp.get("type") == "integer"
                 and n not in self.result.values]
        if len(names) != 1:
            return
        for m in _compile(r"(?<![\w.:/=-])(\d+)(?!\w|\.\d)").finditer(self.digits):
            span = self._whole_word(m.span(1))
            if not self._free(span):
                continue
            before = self.text[max(0, span[0] - 80):span[0]]
            bound = self._bound_before(span[0])
            if _PER_POD_AFTER.match(self.text, span[1]) or bound \
                    or (_PLURAL_BOUND.search(before) and _EACH_AFTER.match(self.text, span[1])):
                if self._take(names[0], int(m.group(1)), span):
                    after = _PER_POD_AFTER.match(self.text, span[1])
                    if after:
                        self.result.covered.append((span[1], after.end()))
                    if bound:  # "cap any single pod at": the words that say what the number bounds
                        self.result.covered.append((bound.start(), span[0]))
                    return

    def _bound_before(self, at: int) -> re.Match[str] | None:
        """The words right before ``at`` that bound one pod ("no single task may take more than",
        "cap any single container at"), if any."""
        lo = max(0, at - 80)
        return _PER_ITEM_BOUND.search(self.text, lo, at) or _PER_POD_CAP.search(self.text, lo, at)

    def _per_item_bound(self, name: str, span: tuple[int, int]) -> bool:
        """Is the number at ``span`` a bound on one pod ("no single task may take more than 4", "one
        container may not use over 2") in a recipe with a per-pod parameter other than ``name``?"""
        if "per_pod" in name or not any("per_pod" in n for n in self.recipe.properties):
            return False
        # ... or a count per one of them ("their jobs use at most 8 GPUs per node")
        if _PLURAL_BOUND.search(self.text, max(0, span[0] - 80), span[0]) and _EACH_AFTER.match(self.text, span[1]):
            return True  # "pods shouldn't take more than 2 GPUs each"
        return bool(self._bound_before(span[0]) or re.match(
            r"\s*(?:[a-z0-9-]+\s+)?(?:gpus?|cards?)\s*(?:per|each|/|a)\s*(?:node|pod|job|container|task|worker|replica|host)\b",
            self.text[span[1]:span[1] + 40], re.I))

    def _whole_word(self, span: tuple[int, int]) -> tuple[int, int]:
        """A span of the digits view grown over the rest of the number word it stands for."""
        a, b = span
        while b < len(self.text) and self.digits[b] == " " and (self.text[b].isalpha() or self.text[b] in "-"):
            b += 1
        return a, b

    def _synonym_units(self, name: str, units: list[str]) -> list[str]:
        """Words counting the same thing as ``units`` (:data:`_COUNT_SYNONYMS`) that no other
        parameter of the recipe counts: "3 boxes" for a parameter counted in nodes."""
        mine = {_singular(u.lower()) for u in units if " " not in u}
        # a word of two groups ("instance": a node, or a replica) links neither to the other
        extra = sorted({w for group in _COUNT_SYNONYMS if (mine - _AMBIGUOUS_UNITS) & group for w in group} - mine)
        if not extra:
            return []
        taken: set[Any] = set()
        for other in self.recipe.properties:
            if other == name:
                continue
            for r in self.recipe.extract.get(other) or _DEFAULT_RULES.get(other, []):
                taken.update(_singular(w.lower()) for w in r.get("count") or [] if isinstance(w, str))
        return [w for w in extra if w not in taken and _singular(w) not in taken]

    def _as_pasted(self, command: list[str]) -> list[str]:
        """A command's arguments as pasted ("-b 1M" stays "1M", though the words around it are read with
        their amounts spelled out), when the pasted line holds the same arguments but for amounts."""
        if not command:
            return command
        for m in re.finditer(re.escape(command[0]), self.raw):
            line = re.sub(r"\\\n\s*", " ", self.raw[m.start():]).split("\n", 1)[0]
            raw = _split_command(line)[:len(command)]
            if len(raw) == len(command) and all(a == b or (re.search(r"\d", a) and re.search(r"\d", b))
                                                for a, b in zip(command, raw)):
                return [a if b.rstrip(".,;:`'\")") == a else b.rstrip("`") if b.endswith("`") and not a.endswith("`") else b
                        for a, b in zip(command, raw)]
        return command

    def _flag_arguments(self) -> list[tuple[int, int]]:
        """The spans of quoted arguments of a command line's flags ('--filters "Name=x,Values=y"',
        "--query 'Items[].Name'")."""
        if self._flag_args is None:
            self._flag_args = [m.span(1) for m in _FLAG_ARGUMENT.finditer(self.text)]
        return self._flag_args

    def _token_candidates(self, pattern: str):
        rx = _compile(pattern)
        pos = 0
        while True:
            m = rx.search(self.text, pos)
            if m is None:
                return
            pos = m.start() + 1  # overlapping: "onboard team ml-platform" also tries "team ml-platform"
            tok = m.group(1)
            if m.end(1) < len(self.text) and self.text[m.end(1)] in "([{":
                tok = self.text[m.start(1):self._code_end(m.start(1))]  # code is taken whole: "sum(rate(x[2m]))"
            tok = tok.rstrip(".,;:)") if tok.count("(") <= tok.count(")") - 1 or "(" not in tok else tok.rstrip(".,;:")
            named = bool(re.search(r"\b(?:called|named)\s*[\"'`]?$", self.text[max(0, m.start(1) - 12):m.start(1)], re.I)) or \
                tok.lower() == "default" and _namespace_named_default(self.text, m.start(1))
            if (tok.lower() in _STOP and not (named and tok.lower() not in STOPWORDS and tok.isalpha())) or (
                    tok.lower() in _RELATION_WORDS and m.start(1) and self.text[m.start(1) - 1] not in "\"'`"):
                continue  # "name contains h200" states a condition on a value, not the value ("called default" names)
            if _never_name(self.text, tok, m.start(1)):
                continue
            span = (m.start(1), m.start(1) + len(tok))
            if any(a <= span[0] and span[1] <= b for a, b in self._flag_arguments()):
                continue  # '--filters "Name=instance-type,Values=g6e.*"': a pasted command's argument names nothing
            if self._free(span):
                yield tok, span

    def _own_words(self, name: str) -> list[str]:
        """The words that name a parameter itself: its name's variants, the manifest fields it alone
        fills ("minMember") and its last word when no other parameter's name ends with it ("key")."""
        words = list(name_variants(name)) + list(manifest_fields(self.recipe).get(name, []))
        last = name.split("_")[-1]
        if len(last) >= 3 and "_" in name and sum(1 for o in self.recipe.properties if o.split("_")[-1] == last) == 1:
            words.append(last)
        return sorted(set(words), key=len, reverse=True)

    def _in_fence(self, span: tuple[int, int]) -> bool:
        """Is ``span`` inside a fenced block that is pasted material (a manifest or values, not a command)?"""
        if "```" not in self.text:
            return False
        if not hasattr(self, "_fences"):
            self._fences = [m.span() for m in re.finditer(r"```.*?```", self.text, re.S)
                            if not _COMMAND_BLOCK.match(m.group(0))]
        return any(a <= span[0] and span[1] <= b for a, b in self._fences)

    def _inside_code(self, span: tuple[int, int]) -> bool:
        """Is ``span`` a piece inside the brackets of a larger code-like value?"""
        a, b = span
        start = a
        while start > 0 and not self.text[start - 1].isspace() and self.text[start - 1] not in "`,;":
            start -= 1
        while start < a and self.text[start] in "([{\"'":
            start += 1  # "(llm-server)": a word in brackets of its own is not inside code
        if not re.search(r"[(\[{]", self.text[start:a]):
            return False
        return self._code_end(start) >= b

    def _code_end(self, start: int) -> int:
        """Where a code-like value starting at ``start`` ends: at a space, comma or closing quote
        outside its brackets ("sum(rate(vllm:request_success_total[2m]))")."""
        depth, quote, i = 0, "", start
        while i < len(self.text):
            c = self.text[i]
            if quote:
                quote = "" if c == quote else quote
            elif c in "\"'" and depth:
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (c.isspace() or c in ",;`"):
                break
            i += 1
        return i

    def _kubectl_namespace(self) -> None:
        """``kubectl ... -n cv-team``: the namespace a command works in, when the words give none."""
        if "namespace" not in self.recipe.properties or "namespace" in self.result.values:
            return
        for m in _KUBECTL_NS.finditer(self.text):
            if self._take("namespace", m.group(1), m.span(1)):
                return

    def _kubectl_get(self) -> None:
        """``kubectl get vcjob bench -o yaml``: the name of an object of a kind the recipe renders is the
        name its manifest gets (when one parameter alone names objects)."""
        namers = [n for n, paths in manifest_paths(self.recipe).items() if ("metadata", "name") in paths]
        kinds = {k.lower() for k in self.recipe.kinds}
        # "deploy/llama", "pvc/ckpt": an object reference; the object the recipe renders, or the one a
        # parameter is named for ("deployment" of an HPA); never an image or a model either way
        for m in _KUBECTL_REF.finditer(self.text):
            kind = _KUBECTL_SHORT.get(m.group("res").lower(), _singular(m.group("res").lower()))
            target = namers[0] if kind in kinds and len(namers) == 1 else self._param_for_kind(kind)
            if target and target not in self.result.values and self._free(m.span("name")):
                self._take(target, m.group("name"), m.span("name"))
            self.used.append(m.span())
            self.result.covered.append(m.span())
        for m in _KUBECTL_GET.finditer(self.text):
            res = m.group("res").lower().split(".")[0]
            kind = _KUBECTL_SHORT.get(res, _singular(res))
            # "kubectl autoscale deployment sdxl": the object, or the one a parameter is named for
            target = namers[0] if kind in kinds and len(namers) == 1 else \
                (self._param_for_kind(kind) if kind not in kinds else None)
            if kind in kinds and _NAMED_LATER.search(self.text, m.end()):
                self.result.covered.append(m.span())
                self.blocked.append(m.span())
                continue  # "kubectl get pv fsx-old ... bring it over as a PVC called train-data": the new name
            if target and target not in self.result.values and self._free(m.span("name")):
                self._take(target, m.group("name"), m.span("name"))
                self.result.covered.append(m.span())
            elif kind in kinds and not target:
                # "kubectl describe resourcequota gpu-quota -n cv-team" for a recipe that names no quota: the
                # object's own name is no value of another parameter (not the namespace)
                self.blocked.append(m.span("name"))

        # "$ kubectl get deploy -n speech" printing one row: that row's object is the one the request
        # speaks of ("autoscale this")
        for m in _KUBECTL_LIST.finditer(self.raw):
            res = m.group("res").lower().split(".")[0]
            kind = _KUBECTL_SHORT.get(res, _singular(res))
            target = namers[0] if kind in kinds and len(namers) == 1 else \
                (self._param_for_kind(kind) if kind not in kinds else None)
            row = m.group("row")
            hit = _compile(rf"```\s*NAME\s[^`]*?(?<![\w.-]){re.escape(row)}(?![\w.-])").search(self.text)
            ok, val = self._ok(target, row) if target and target not in self.result.values else (False, None)
            if ok and target and hit:  # the table is no words of the request, yet this cell is read
                span = (hit.end() - len(row), hit.end())
                self.result.values[target] = val
                self.result.spans[target] = span
                self.result.covered.append(span)

    def _other_param_nouns(self, name: str) -> set[str]:
        """The nouns other parameters are named by ("cpu", "memory", "pods" of max_pods)."""
        out: set[str] = set()
        for other in self.recipe.properties:
            if other != name:
                out.add(_singular(other.lower()))
                out.add(_singular(other.split("_")[-1].lower()))
        return out - {"name", "namespace", "value", "key", "size", "class", "type", "mode", "policy", "path"}

    def _param_for_kind(self, kind: str) -> str | None:
        """The parameter named for a kind ("deployment" of an HPA for a Deployment), if any."""
        return next((n for n in self.recipe.properties if n.replace("_", "") == kind), None)

    def _kubectl_run(self) -> None:
        """A pasted ``kubectl run NAME --image=X -n NS -- CMD ARGS`` gives the object's name, image,
        namespace and command, as kubectl reads them."""
        for m in _KUBECTL_RUN.finditer(self.text):
            fields: list[tuple[str, str, tuple[int, int]]] = [("name", m.group("name"), m.span("name"))]
            for f in re.finditer(r"(?:--image[=\s]|--namespace[=\s]|-n\s+)([^\s`'\"]+)", m.group("flags") or ""):
                key = "image" if f.group(0).startswith("--image") else "namespace"
                a = m.start("flags") + f.start(1)
                fields.append((key, f.group(1), (a, a + len(f.group(1)))))
            if m.group("cmd"):
                cmd = m.group("cmd").strip()
                a = m.start("cmd") + m.group("cmd").index(cmd[:1] or " ")
                target = next((n for n in self.recipe.properties if _COMMAND_NAME.search(n)
                               and self.recipe.properties[n].get("type") == "array"), None)
                if target:
                    fields.append((target, cmd, (a, a + len(cmd))))
            for name, value, span in fields:
                if name in self.recipe.properties and name not in self.result.values:
                    v: Any = value.split() if self.recipe.properties[name].get("type") == "array" else value
                    ok, val = self._ok(name, v)
                    if ok:
                        self.result.values[name] = val
                        self.result.spans[name] = span
                        self.used.append(span)
            self.used.append(m.span())
            self.result.covered.append(m.span())

    def _pasted_fields(self) -> None:
        """Values of a pasted manifest for the parameters the request's words left open ("here's what
        we run today: ... bump the image to x"): each field fills the parameter whose manifest path
        ends with the longest part of the field's path, when only one does."""
        if not self.pasted and not self.value_blocks and not self.json_fields:
            return
        # "here is our Deployment: ... a KEDA scaledobject for it": the pasted object is the one a
        # parameter is named for, when the recipe does not render that kind itself
        kinds = {k.lower() for k in self.recipe.kinds}
        for kind, obj in self.pasted_refs:
            target = self._param_for_kind(kind.lower())
            if kind.lower() not in kinds and target and target not in self.result.values:
                ok, val = self._ok(target, obj)
                if ok:
                    at = self.text.find(obj)
                    self.result.values[target] = val
                    self.result.spans[target] = (at, at + len(obj)) if at >= 0 else (0, 0)
        paths = manifest_paths(self.recipe)
        for path, value in self.pasted:
            self._fill_from_leaf(paths, path, value)
        # '"MountName": "bq7xzbmv",' (a cloud CLI's JSON): a field that names one parameter's field alone
        for (a, b), leaves in self.json_fields:
            for path, value in leaves:
                if self._fill_from_leaf(paths, path, value, min_keys=1) is not None:
                    hit = _compile(rf"\"{re.escape(path[-1])}\"\s*:\s*\"?{re.escape(str(value))}").search(self.text, a, b)
                    if hit:
                        self.result.covered.append(hit.span())
        for (a, b), leaves in self.value_blocks:
            for path, value in leaves:
                name = self._fill_from_leaf(paths, path, value)
                if name is None and len(path) == 1 and is_field_name(path[0]):
                    name = self._fill_from_leaf(paths, path, value, min_keys=1)  # "maxReplicaCount: 10" alone
                if name is None:  # "replicas: 10" in a pasted config: the key is the parameter's own name
                    name = self._fill_by_key(path, value)
                if name is not None:  # the line of the block that said it is understood
                    shown = str(value).lower() if isinstance(value, bool) else str(value)
                    keys = r"\s*:\s*(?:-\s*)?".join(re.escape(k) for k in path[-2:])
                    hit = _compile(rf"{keys}\s*:\s*[\"']?{re.escape(shown)}").search(self.text, a, b) or \
                        _compile(rf"{re.escape(path[-1])}\s*:\s*[\"']?{re.escape(shown)}").search(self.text, a, b)
                    if hit:
                        self.result.covered.append(hit.span())

    def _printed_ids(self) -> None:
        """IDs a pasted command printed ("aws ec2 describe-subnets ..." then "subnet-0a1b..."): a parameter
        whose values have a prefix of their own (``^subnet-``, ``^sg-``, ``^s3://``) takes the one printed
        (a list parameter all of them), when the request's words left it open."""
        if not self.printed:
            return
        for name, spec in self.recipe.properties.items():
            many = spec.get("type") == "array"
            pattern = str((spec.get("items") or {}).get("pattern", "") if many else spec.get("pattern", ""))
            if name in self.result.values or not _ID_PREFIX.match(pattern):
                continue
            rx = _compile(r"(?<![\w./:-])" + pattern.strip("^$") + r"(?![\w.:/-])")
            found = [(m.group(0), m.span()) for a, b in self.printed for m in rx.finditer(self.text, a, b)]
            values = list(dict.fromkeys(v for v, _sp in found))
            if not values or (len(values) > 1 and not many):
                continue
            ok, val = self._ok(name, values if many else values[0])
            if not ok:
                continue
            self.result.values[name] = val
            self.result.spans[name] = found[0][1]
            self.result.covered += [sp for _v, sp in found]

    def _fill_by_key(self, path: tuple[str, ...], value: Any) -> str | None:
        """Fill the parameter whose name is the words of a pasted key ("replicas", "max_restarts",
        "maxRestarts"), when the request's words left it open; names and namespaces are never
        read this way (every object in a paste has them)."""
        words = _key_words(path[-1]) if path else set()
        # "scheduler:\n  namespace: kube-system": the key under the key of what it belongs to, first
        both = _key_words(path[-2]) | words if len(path) >= 2 else set()
        name = next((n for n in self.recipe.properties if "_" in n and set(n.split("_")) == both), None) or \
            next((n for n in self.recipe.properties if set(n.split("_")) == words), None)
        if name is None or name in ("name", "namespace") or name in self.result.values:
            return None
        ok, val = self._ok(name, value)
        if not ok:
            return None
        return self._from_paste(name, val, value, path)

    def _from_paste(self, name: str, val: Any, value: Any, path: tuple[str, ...]) -> str:
        """Set ``name`` to ``val``, read from a pasted ``value`` under the key ``path``."""
        at = self.text.find(str(value))
        self.result.values[name] = val
        self.result.spans[name] = (at, at + len(str(value))) if at >= 0 else (0, 0)
        self.from_paste[name] = path
        return name

    def _fill_from_leaf(self, paths: dict[str, list[tuple[str, ...]]], path: tuple[str, ...], value: Any,
                        min_keys: int = 2) -> str | None:
        """Fill the parameter whose manifest path ends with the longest part (two keys or more) of
        ``path``, when only one does and the request's words left it open; its name (also when the
        words gave it that same value), or None."""
        low = tuple(k.lower() for k in path)
        best: tuple[int, set[str]] = (min_keys - 1, set())
        for n, ps in paths.items():
            for p in ps:
                pl = tuple(k.lower() for k in p)
                k = 0
                while k < min(len(pl), len(low)) and pl[-1 - k] == low[-1 - k]:
                    k += 1
                if k > best[0]:
                    best = (k, {n})
                elif k == best[0] and k >= min_keys:
                    best[1].add(n)
        if len(best[1]) != 1:
            return None
        name = next(iter(best[1]))
        if self.recipe.properties[name].get("type") == "array" and not isinstance(value, list):
            value = [value]  # "securityGroupIds: sg-1" for a list parameter
        ok, val = self._ok(name, value)
        if not ok:
            return None
        if name in self.result.values:  # said in words too: the same value is that one, read twice
            return name if self.result.values[name] == val else None
        return self._from_paste(name, val, value, path)

    def _pasted_names(self) -> dict[str, set[str]]:
        """The parameters whose values came from a pasted object, each with the words of the key it
        was read under ("storage_capacity = 4800" gives {"storage", "capacity"})."""
        out: dict[str, set[str]] = {n: {k.lower() for k in path} for n, path in self.from_paste.items()}
        # the keys that open a pasted line ("  shm_size: 32gb", "storage_capacity = 4800")
        lines = set(re.findall(r"(?m)^\s*-?\s*[\"']?([A-Za-z][\w.-]*)[\"']?\s*[:=]", self.raw))
        for name, (a, b) in self.result.spans.items():
            if name in out or a >= b:
                continue
            key = re.search(r"(?<![\w.-])[\"']?([A-Za-z][\w.-]*)[\"']?\s*[:=]\s*[\"']?$", self.text[max(0, a - 60):a])
            if key and key.group(1) not in lines:
                key = None  # "a gang instead: 16 pods" is prose, not a pasted key
            if key or self.text.count("```", 0, a) % 2:
                out[name] = _key_words(key.group(1)) if key else set()
        return out

    def _pasted_amount(self, units: set[str], parts: list[str]) -> int | None:
        """The number pasted under a key that names what ``units`` count ("gpusPerReplica: 4")."""
        for m in re.finditer(r"(?<![\w.-])[\"']?([A-Za-z][\w.-]*)[\"']?\s*[:=]\s*[\"']?(\d+)(?![\w.])", self.text):
            words = {_singular(w) for w in _key_words(m.group(1))}
            if words & units or parts and all(p in words for p in parts):
                return int(m.group(2))
        return None

    def _relative_to_paste(self) -> None:
        """"double everything in capability", "halve the shm", "3x the size", "2 more GPUs per pod":
        an amount taken from a pasted object, scaled or raised as the words say; "everything"/"all"
        scales every amount taken from the paste (under the key named after "in"), otherwise the ones
        whose names, or the keys they were pasted under, the clause gives."""
        if "\n" not in self.raw and not self.from_paste:
            return
        pasted = self._pasted_names()
        for m in _compile(r"\b(double|triple|quadruple|halve|half(?=\s+(?:the|of|its|our|their)\b)|"
                          r"(\d+(?:\.\d+)?)\s*(?:x|times)(?=\s+(?:the\s+)?[a-z])|"
                          r"(\d+)\s+(?:more|extra|additional)(?=\s+[a-z]))\b([^.;,\n$`|]{0,60})").finditer(self.text):
            # "may borrow up to 8 more GPUs": an amount some parameter took raises no other one
            took = {n for n, sp in self.result.spans.items() if m.group(3) and sp[0] <= m.start(3) < sp[1]
                    and n in self.result.values}
            if m.group(2):
                factor: float = float(m.group(2))
            elif m.group(3):
                factor = 0.0
            else:
                factor = {"double": 2, "triple": 3, "quadruple": 4}.get(m.group(1).lower(), 0.5)
            clause = m.group(4).lower()
            words = set(re.findall(r"[a-z]+", clause))
            under = re.search(r"\b(?:in|under)\s+(?:the\s+)?([a-z][\w-]*)", clause)
            every = re.search(r"\b(?:everything|all|every\s+\w+|each\s+of\s+them|them|it)\b", clause)
            done = False
            names = pasted if not m.group(3) else {n: pasted.get(n, set()) for n, sp in self.recipe.properties.items()
                                                   if sp.get("type") == "integer"}
            for name, keys in names.items():
                path = self.from_paste.get(name) or ()
                parts = [w for w in name.split("_") if w not in ("size", "count", "value", "name", "gib")]
                units = {_singular(u.lower()) for r in self.recipe.extract.get(name) or [] for u in r.get("count") or []
                         if isinstance(u, str)}
                if took - {name}:
                    continue
                if m.group(3):  # "2 more GPUs": the noun is one the parameter counts
                    noun = re.match(r"\s*([a-z]+)", clause)
                    if not noun or not ({_singular(noun.group(1))} & units or parts == [noun.group(1)]):
                        continue
                elif every:
                    if under and under.group(1) not in [k.lower() for k in path]:
                        continue
                elif not ((parts and all(re.search(rf"\b{re.escape(w)}", clause) for w in parts))
                          or name in words or words & (keys - _STOP)):
                    continue
                value = self.result.values.get(name)
                if m.group(3) and (value is None or _overlaps(self.result.spans.get(name), m.span())):
                    value = self._pasted_amount(units, parts)  # "2 more GPUs" read as the count itself
                if isinstance(value, bool) or value is None:
                    continue
                done = self._set_scaled(name, value, factor, int(m.group(3) or 0)) or done
            if done:
                self.result.covered.append(m.span())

    def _set_scaled(self, name: str, value: Any, factor: float | Fraction, more: int = 0) -> bool:
        """Set ``name`` to ``value`` raised by ``more`` or else scaled by ``factor`` (a count stays whole,
        a size stays a quantity), when the schema takes the result."""
        if more:
            new: Any = value + more if isinstance(value, int) else None
        elif isinstance(value, int):
            exact = Fraction(value) * Fraction(factor).limit_denominator(1000)  # 20 x 1.1 is 22, not 22.000000000000004
            new = int(exact) if exact.denominator == 1 else None
        else:
            q = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGTP]i?)", str(value))
            new = _quantity(parse_size(q.group(1), q.group(2)[0]) * factor) if q else None
        if new is None:
            return False
        ok, val = self._ok(name, new)
        if ok:
            self.result.values[name] = val
        return ok

    def _relative_to_other(self, m: re.Match, factor: float, target: str) -> bool:
        """"CPU five times the GPU count", "deserved at half of the GPU cap": the parameter named right
        before the factor is that multiple of the amount the words after it name (here the GPUs)."""
        if m.group(3) or target in ("that", "it", "this", "as"):
            return False
        before = re.search(r"([a-z][\w-]*)\s+(?:(?:at|is|=|of|to|should\s+be|must\s+be)\s+)?$",
                           self.text[max(0, m.start() - 40):m.start()], re.I)
        if not before:
            return False
        word = _singular(before.group(1).lower())
        word = {"core": "cpu", "vcpu": "cpu", "ram": "memory", "mem": "memory"}.get(word, word)
        referent = next((n for n in self.result.values if n in self.result.spans and self.result.spans[n][1] <= m.start()
                         and isinstance(self.result.values[n], int) and _singular(n.split("_")[-1]) == _singular(target)),
                        None)
        if referent is None:
            return False
        owners = [n for n in self.recipe.properties if n != referent and word in n.lower().split("_")]
        if len(owners) > 1:
            owners = [n for n in owners if n.lower().split("_")[0] == word] or owners
        if len(owners) != 1:
            return False
        span = self.result.spans[referent]
        value = self.result.values[referent]
        if _overlaps(span, m.span()):
            return False
        if not self._set_scaled(owners[0], value, factor):
            return False
        tail = re.match(r"\s+(?:count|number|cap|limit|total|quota|budget)\b", self.text[m.end():])
        self.result.spans[owners[0]] = (m.start(), m.end() + (tail.end() if tail else 0))
        self.result.covered.append(self.result.spans[owners[0]])
        return True

    def _relative_in_prose(self) -> None:
        """"capped at 16 GPUs ... please double the limit", "4 at a time; double the parallelism",
        "(2 GPUs) but with twice the GPUs", "2 replicas; for prod three times that": an amount the
        request stated before is scaled as the later words say. The words name the parameter by its
        head word ("limit", "parallelism") or the things it counts ("GPUs"); "that"/"it" is the amount
        stated last before them."""
        for m in _RELATIVE_PROSE.finditer(self.text):
            misread = [n for n, sp in self.result.spans.items() if n in self.result.values and _overlaps(sp, m.span())]
            if any(c[0] <= m.start() < c[1] for c in self.result.covered) and not (
                    misread and not m.group(3) and _PHRASE_THEN_BASE.match(self.text, m.end(4))):
                continue  # already read as scaling a pasted amount (not "2x the replicas" read as 2)
            more = int(m.group(3)) if m.group(3) else 0
            if more and any(sp[0] <= m.start(3) < sp[1] for n, sp in self.result.spans.items() if n in self.result.values):
                continue  # "may borrow up to 8 more GPUs": an amount some parameter took raises no other one
            if (m.group(1) or "").lower() == "cut" and not m.group(5):
                continue  # "cut" only as "cut that in half"
            if m.group(2):
                factor: float = float(_RELATIVE_WORDS.get(m.group(2).lower(), m.group(2)))
            else:
                factor = _RELATIVE_WORDS.get((m.group(1) or "").lower(), 0.5)
            target = m.group(4).lower()
            if self._relative_to_other(m, factor, target):
                continue
            if (m.group(1) or "").lower() == "half":
                continue  # "half of the GPUs" with nothing named before it sets no amount
            often = target == "as" and re.match(r"\s+(?:often|frequently)\b", self.text[m.end(4):])
            if target == "as" and not often:
                continue
            if often:  # "scrape twice as often": an interval divided
                factor = 1 / factor
            stated = {n: self.result.spans[n] for n, v in self.result.values.items()
                      if n in self.result.spans and self.result.spans[n][1] <= m.start()
                      and self.result.spans[n][0] < self.result.spans[n][1] and not isinstance(v, bool)
                      and (isinstance(v, int) or re.fullmatch(r"\d+(?:\.\d+)?[KMGTP]i", str(v)))}
            today = _PHRASE_THEN_BASE.match(self.text, m.end(4)) if not more and target not in ("that", "it", "this") else None
            if today is not None:  # "double the GPU limit (currently 32)": the amount today comes after
                ints = self._int_params()
                heads = [w for w in [*re.findall(r"[a-z][\w-]*", today.group(1).lower())[::-1], target] if w not in _PRONOUNS]
                named = next((c for w in heads if (c := self._params_named(w, ints))), [])
                if len(named) == 1 and self._set_scaled(named[0], int(today.group(2)), factor):
                    self.result.spans[named[0]] = (m.start(), today.end())
                    self.result.covered.append((m.start(), today.end()))
                    continue
            if not stated:
                continue
            if often:
                chosen = [n for n in stated if re.search(r"interval|period|every|seconds", n)][:1]
            elif target in ("that", "it", "this") and not more:
                chosen = [max(stated, key=lambda n: stated[n][1])]
            else:
                chosen = self._params_named(target.split()[0], stated)
                if len(chosen) > 1 and _singular(target.split()[0]) == "size":  # "the size": the bytes stated last
                    chosen = [max(chosen, key=lambda n: stated[n][1])]
            done = False
            for name in chosen:
                value = self.result.values[name]
                if _overlaps(self.result.spans.get(name), m.span()):
                    # "2x the GPUs" read as 2 GPUs: the amount is the one counted before ("(2 GPUs, ...)")
                    counted = [u for r in self.recipe.extract.get(name) or [] for u in r.get("count") or []
                               if isinstance(u, str)]
                    before = list(re.finditer(rf"(?<![\w.])(\d+)\s*{_words_alt(counted)}s?\b", self.text[:m.start()],
                                              re.I)) if counted else []
                    if not before:
                        continue
                    value = int(before[-1].group(1))
                done = self._set_scaled(name, value, factor, more) or done
            if done:
                tail = re.match(r"(?:\s+(?:often|frequently)\b)?(?:\s+(?:per|for|on|of|in)\s+(?:the\s+|each\s+)?[a-z]+)?",
                                self.text[m.end():])
                self.result.covered.append((m.start(), m.end() + (tail.end() if tail else 0)))

    def _params_named(self, word: str, names: Any) -> list[str]:
        """The parameters among ``names`` a word names: by their head word ("limit" for gpu_limit,
        "parallelism"), else by what they count ("GPUs" for gpus)."""
        word = _singular(word.lower())
        heads, counts = [], []
        for name in names:
            parts = [w for w in name.split("_") if w not in ("size", "count", "value", "name", "gib")]
            units = {_singular(u.lower()) for r in self.recipe.extract.get(name) or []
                     for u in r.get("count") or [] if isinstance(u, str)}
            if (parts and _singular(parts[-1]) == word) or (not parts and name.split("_")[-1] == word):
                heads.append(name)
            elif word in units or (len(parts) == 1 and _singular(parts[0]) == word):
                counts.append(name)
        return heads or counts

    def _int_params(self) -> list[str]:
        return [n for n, sp in self.recipe.properties.items() if sp.get("type") == "integer"]

    def _is_rule(self, m: re.Match[str]) -> bool:
        """Does the change ``m`` happen by itself ("let the quota automatically grow by 4 GPUs when usage
        passes 90%", "add 2 replicas every night")? Then it is a rule no parameter holds."""
        return bool(_AUTOMATIC_BEFORE.search(self.text, max(0, m.start() - 30), m.start())
                    or _WHEN_AFTER.match(self.text, m.end()))

    def _rules_asked(self) -> list[tuple[int, int]]:
        """The words of the changes that are rules (:meth:`_is_rule`) to the end of their clause: their
        amounts are none of the object's."""
        out = []
        for m in _CHANGED_BY.finditer(self.text):
            if self._is_rule(m):
                end = _CLAUSE_STOP.search(self.text, m.end())
                out.append((m.start(), end.start() if end else len(self.text)))
        return out

    def _changed_by(self) -> None:
        """"bump replicas by 2", "raise it by 25%", "cut the 40 GPUs by a quarter", "scale down by half",
        "finance approved 50% more": an amount changed relative to one the request gives, before the
        change, inside its own words ("the 40 GPUs") or right after it ("(currently 32)"). The words
        name the parameter as in :meth:`_relative_in_prose`; none, or "it", is the amount stated last."""
        for m in [*_CHANGED_BY.finditer(self.text), *_PERCENT_CHANGE.finditer(self.text), *_ANOTHER.finditer(self.text)]:
            if any(c[0] <= m.start() < c[1] for c in self.result.covered):
                continue
            if self._is_rule(m):
                continue  # "make the quota automatically grow by 2 GPUs if we use 80%": blocked, reported
            d = m.groupdict()
            up = bool(d.get("up")) or (d.get("dir") or "").lower() in ("more", "extra", "additional", "higher", "bigger", "larger")
            more = 0
            if d.get("pct"):
                pct = Fraction(d["pct"]).limit_denominator(100)
                factor = 1 + pct / 100 if up else 1 - pct / 100
            elif d.get("frac"):
                num, den = _BY_FRACTION[re.sub(r"\s+", " ", d["frac"].lower())]
                factor = 1 + Fraction(num, den) if up else 1 - Fraction(num, den)
            else:
                said = d.get("n") or d.get("w") or "1"
                n = int(said) if said.isdigit() else _SMALL_NUMBERS[re.sub(r"\s+", " ", said.lower())]
                more, factor = (n if up else -n), Fraction(1)
                if d.get("w") and d.get("n"):
                    continue  # "two more 8-GPU nodes": which amount grows is unclear
            obj = d.get("obj") or ""
            words = [w for w in re.findall(r"[a-z][a-z-]*", obj.lower()) if w not in _PRONOUNS]
            unit = (d.get("unit") or "").lower()
            base_in = re.search(r"(?<![\w.])(\d+)(?![\w.])", obj)
            after = _BASE_AFTER.match(self.text, m.end() if unit and not self._params_named(unit, self.recipe.properties) else
                                      m.end("tail") if d.get("tail") else m.end())
            if after is None and obj:  # "double the GPU limit (currently 32)": the amount today right after
                after = _BASE_AFTER.match(self.text, m.start("obj") + len(obj.rstrip()))
            ints = self._int_params()
            stated = {n: self.result.spans[n] for n, v in self.result.values.items()
                      if n in self.result.spans and self.result.spans[n][1] <= m.start() and n in ints
                      and self.result.spans[n][0] < self.result.spans[n][1] and not isinstance(v, bool)}
            named = [w for w in [*words, unit] if w and self._params_named(w, ints)]
            if m.re is _ANOTHER and not named:
                continue  # "another container for logging": a thing added that no amount counts
            pool = ints if base_in or after else list(stated)
            if named:  # the last word that names one parameter ("the gpu limit": gpu, when no limit is one)
                chosen = next((c for w in reversed(named) if len(c := self._params_named(w, pool)) == 1), [])
            elif stated and not base_in and not after:
                chosen = [max(stated, key=lambda n: stated[n][1])]
            else:
                chosen = []
            if len(chosen) != 1:
                continue
            name = chosen[0]
            if base_in or after:
                value = int((base_in or after).group(1))  # type: ignore[union-attr]
            else:
                value = self.result.values[name]
            if not isinstance(value, int) or not self._set_scaled(name, value, factor, more):
                continue
            end = after.end() if after is not None and after.start() >= m.end() else m.end()
            self.result.spans[name] = (m.start(), end)
            self.result.covered.append((m.start(), end))

    def _md_fields(self) -> list[re.Match[str]]:
        """The rows of a Markdown table of two columns under a header ("| GPUs (total) | 12 |"): a form's
        fields, each a label written for people and its value (a row naming an object, "| 3g.40gb | 1 |",
        is left to the table's own readers)."""
        if "|" not in self.raw:
            return []
        out = []
        lines = self.raw.split("\n")
        starts = list(itertools.accumulate((len(ln) + 1 for ln in lines), initial=0))
        for i, ln in enumerate(lines):
            if not any(_MD_RULE.match(x) for x in lines[max(0, i - 40):i]):
                continue
            m = _MD_FIELD.match(self.raw, starts[i], starts[i] + len(ln))
            if m and (m.group("label")[0].isupper() or " " in m.group("label")) and not re.search(r"\d", m.group("label")):
                out.append(m)
        return out

    def _form_fields(self) -> None:
        """A form's field line ("GPU budget: 24", "Team name: genomics", "Max GPUs per job: 4") fills the
        one parameter its label names best: by the parameter's name words and its cue words, less half a
        point for each name word the label leaves out; a tie fills nothing. The value is a bare number
        for a count, one token for a name; sizes and durations are left to their own rules."""
        if (":" not in self.raw and "=" not in self.raw) or "\n" not in self.raw:
            return
        cues: dict[str, set[str]] = {}
        names: dict[str, set[str]] = {}
        for n, spec in self.recipe.properties.items():
            if spec.get("type") not in ("integer", "string") or (
                    spec["type"] == "string" and re.search(r"\[KMGTP]|Ki|Gi", str(spec.get("pattern", "")))):
                continue  # sizes are left to their own rules
            names[n] = {_singular(w) for w in n.lower().split("_")}
            words = set(names[n])
            for r in self.recipe.extract.get(n) or _DEFAULT_RULES.get(n, []):
                for k in ("after", "before", "count", "near"):
                    words |= {_singular(w.lower()) for w in r.get(k) or [] if isinstance(w, str) and " " not in w}
            cues[n] = words - _FORM_STOP
        if not cues:
            return
        from bisect import bisect_right
        from itertools import accumulate

        lines = self.raw.split("\n")
        starts = list(accumulate((len(ln) + 1 for ln in lines), initial=0))
        counted = {w for ws in names.values() for w in ws}
        for m in sorted([*_FORM_FIELD.finditer(self.raw), *_ENV_LINE.finditer(self.raw), *self._md_fields()],
                        key=lambda x: x.start()):
            # a form's label is written for people ("GPU budget", "Team name", "CPU"); a lowercase key
            # ("replicas: 2") or a line of nested YAML is a pasted object, read by its own rules
            text_label = m.group("label").strip()
            if not (text_label[0].isupper() or " " in text_label) or re.search(r"[a-z][A-Z]", text_label):
                continue
            i = bisect_right(starts, m.start()) - 1
            indent = len(lines[i]) - len(lines[i].lstrip())
            near = [lines[k] for k in (i - 1, i + 1) if 0 <= k < len(lines) and lines[k].strip()]
            # ... unless its label is words people write ("GPU ceiling for the pool: 24." under "Description:")
            if (any(len(ln) - len(ln.lstrip()) != indent for ln in near) and " " not in text_label) \
                    or lines[i].rstrip().endswith(":"):
                continue
            # "GPUs per worker": what is counted stands before "per"; a base that another parameter
            # counts ("worker") names no parameter here ("Max GPUs per job" keeps its "job")
            # ("GPUs (total, whole namespace)": what stands in brackets qualifies the label, it names nothing)
            plain_label = re.sub(r"\s*\([^)]*\)", " ", text_label).strip() or text_label
            rate = _RATE_LABEL.match(plain_label.lower())
            head, sep, base = rate.groups("") if rate else (plain_label.lower(), "", "")
            label = [_singular(w) for w in re.findall(r"[a-z]+", f"{head} {sep}") if w not in _FORM_STOP] + [
                _singular(w) for w in re.findall(r"[a-z]+", base) if w not in _FORM_STOP and _singular(w) not in counted]
            # (a counted base still names a parameter whose name has it with the head: "GPUs per pod" is
            # max_gpus_per_pod's, not max_pods')
            based = {_singular(w) for w in re.findall(r"[a-z]+", base) if _singular(w) in counted}
            if not label or len(label) > 5:
                continue
            if self._kind_field(m, label):
                continue
            # "GPU ceiling for the pool", "GPU cap": words for a limit name a limit
            label += ["limit"] if set(label) & _LIMIT_WORDS and "limit" not in label else []
            def score(n: str) -> float:
                own = sum(w in cues[n] for w in label)
                extra = len(based & names[n]) if own else 0
                return own + extra - 0.5 * len(names[n] - set(label) - (based if own else set()))

            scored = sorted(((score(n), n) for n in cues), reverse=True)
            if scored[0][0] <= 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
                continue
            name = scored[0][1]
            if name in self.result.values:
                continue
            spec = self.recipe.properties[name]
            value = m.group("value").strip()
            if len(value) > 2 and value[0] == value[-1] and value[0] in "`'\"":
                value = value[1:-1]  # "| HPA target | `whisper-api` |": a value in code marks
            if spec.get("type") == "integer":
                # ("GPUs per pod: no more than 3": a bound, under a label that says what it bounds)
                num = re.fullmatch(r"(?:(?:no\s+more\s+than|not\s+more\s+than|at\s+most|up\s+to|max(?:imum)?\.?|<=?)\s*)?"
                                   r"(-?\d[\d,]*|[a-z]+(?:[- ][a-z]+)?)(?:\s*\([^)]*\))?[.;]?", value, re.I)
                said = num and (int(num.group(1).replace(",", "")) if num.group(1)[-1].isdigit()
                                else parse_number(num.group(1).lower()))
                if not num or said is None:
                    continue  # "GPU hard limit: twenty" is 20; "Workers: elastic" no count
                raw_value: Any = said
                shown = num.group(1)
            elif re.fullmatch(r"[\w./:@-]+", value) and not re.fullmatch(r"[\d.,]+\s*[A-Za-z]{0,3}", value):
                raw_value = shown = value  # a name, never an amount ("300Gi")
            else:
                continue
            hit = _compile(rf"(?<![\w-])(?:export\s+)?{re.escape(m.group('label').strip())}\s*(?:[:=]|\s\|)\s*").search(self.text)
            if not hit:
                continue
            lead = num.start(1) if spec.get("type") == "integer" and num else 0
            at = self.text.find(shown, hit.end())
            if at < 0 or at > hit.end() + 2 + lead:
                continue
            if self._take(name, raw_value, (at, at + len(shown))):
                self.result.covered.append(hit.span())  # the label said which parameter

    def _kind_field(self, m: re.Match, label: list[str]) -> bool:
        """A label that names a kind of the recipe's objects ("Job: nccl-bench", "Service name: sdxl-api",
        "ClusterQueue: llm-cq") fills the one parameter that names objects of that kind."""
        words = [w for w in label if w != "name"]
        if not words or len(words) > 2:
            return False
        said = "".join(words)
        said = _KUBECTL_SHORT.get(said, said)  # "PVC: x", "CQ: y"
        kinds = kind_names(self.recipe)
        params = {p for k, ps in kinds.items() if k == said or (len(said) >= 3 and k.endswith(said)) for p in ps}
        if len(params) != 1:
            return False
        name = next(iter(params))
        value = re.match(r"[\"'`]?([a-z0-9][a-z0-9.-]*[a-z0-9])[\"'`]?(?:\s*\([^)]*\))?[.;]?$", m.group("value").strip())
        if not value or name in self.result.values:
            return False
        hit = _compile(rf"(?<![\w-]){re.escape(m.group('label').strip())}\s*:\s*").search(self.text)
        if hit is None:
            return False
        at = self.text.find(value.group(1), hit.end())
        if at < 0 or at > hit.end() + 3:
            return False
        if self._take(name, value.group(1), (at, at + len(value.group(1)))):
            self.result.covered.append(hit.span())
            return True
        return False

    def _dotted_values(self) -> None:
        """A dotted path with a value ("--set driver.enabled=false") fills the one parameter whose
        manifest path ends with that path."""
        if "." not in self.text:
            return
        paths = None
        for m in _DOTTED_VALUE.finditer(self.text):
            keys = tuple(k.lower() for k in m.group(1).split("."))
            if len(keys) < 2 or not self._free(m.span()):
                continue
            if paths is None:
                paths = manifest_paths(self.recipe)
            hits = {n for n, ps in paths.items() for p in ps
                    if tuple(k.lower() for k in p[-len(keys):]) == keys}
            if len(hits) != 1:
                continue
            name = next(iter(hits))
            if name in self.result.values:
                continue
            spec = self.recipe.properties[name]
            raw = m.group(2)
            value: Any = raw
            if spec.get("type") == "boolean":
                value = {"true": True, "false": False}.get(raw.lower())
            elif spec.get("enum"):
                value = next((v for v in spec["enum"] if str(v).lower() == raw.lower()), None)
            if value is None:
                continue
            if self._take(name, value, m.span(2)):
                self.used.append(m.span())
                self.result.covered.append(m.span())

    def _flow_lists(self) -> None:
        """A list written as YAML or JSON writes it ('command: ["torchrun", "train.py"]', "args: [a, b]")
        goes whole to the list parameter whose cue words stand closest before it."""
        for m in _compile(r"\[\s*\{[^\[\]{}]*\}(?:\s*,\s*\{[^\[\]{}]*\})*\s*\]|"  # or of mappings: "[{event: A, action: B}]"
                          r"\[\s*(?:\"[^\"]*\"|'[^']*'|[^\[\],\s{][^\[\],]*)(?:\s*,\s*(?:\"[^\"]*\"|'[^']*'|[^\[\],\s][^\[\],]*))*"
                          r"\s*\]").finditer(self.text):
            if not self._free(m.span()):
                continue
            try:
                items = load_yaml(m.group(0))
            except yaml.YAMLError:
                continue
            if not isinstance(items, list) or not items:
                continue
            if all(isinstance(x, dict) for x in items):
                items = [{str(k): v for k, v in x.items()} for x in items]
            elif all(isinstance(x, (str, int, float)) for x in items):
                items = [str(x) for x in items]
            else:
                continue
            best = self._closest_cue(m.start(), lambda name, spec, v=items: v if spec.get("type") == "array" else None)
            if best is not None:
                self.result.values[best[1]] = best[2]
                self.result.spans[best[1]] = m.span()
                self.used.append(m.span())

    def _launched_program(self) -> None:
        """"srun --gres=gpu:1 nvidia-smi -q", "mpirun -np 64 ./all_reduce_perf -b 8": the program a
        Slurm or MPI launcher starts (after its own flags and their values) is the command of the
        pod or the program of the MPI job; the launcher itself is what the manifest replaces."""
        names = [n for n, sp in self.recipe.properties.items() if _COMMAND_NAME.search(n) and sp.get("type") == "array"
                 and n not in self.result.values]
        if not names:
            return
        for m in _LAUNCHER.finditer(self.text):
            # (a flag's value may hold commas: "-H node1:8,node2:8"; a line may go on after a backslash)
            view = re.sub(r"\\(?=\s)", " ", self.text[m.end():m.end() + 300])
            toks = list(re.finditer(r"[^\s`;]+", view))
            i = 0
            placing: list[tuple[int, int]] = []  # flags the manifest itself replaces (hosts, binding)
            while i < len(toks) and toks[i].group(0).startswith("-"):
                flag = toks[i].group(0)
                at = i
                i += 1
                if "=" not in flag and flag.lower() in _LAUNCHER_PAIR_FLAGS:
                    i += 2  # "-mca btl ^openib", "-genv NCCL_DEBUG INFO": a name and its value
                elif "=" not in flag and i < len(toks) and (flag.lower() in _LAUNCHER_VALUE_FLAGS or
                                                            re.match(r"\d[\w.:]*$|[\w.-]*[:=,]", toks[i].group(0))):
                    i += 1  # "-np 64", "--gres gpu:1", "-x NCCL_DEBUG=INFO", "-bind-to none": the flag's value
                if flag.lower().split("=")[0] in _LAUNCHER_PLACEMENT_FLAGS and i <= len(toks):
                    placing.append((m.end() + toks[at].start(), m.end() + toks[min(i, len(toks)) - 1].end()))
            if i >= len(toks) or not re.match(r"(?:\.{0,2}/)?[A-Za-z_][\w./-]*$", toks[i].group(0).rstrip(",")) or \
                    toks[i].group(0).rstrip(",").lower() in _STOP or _LAUNCHER.fullmatch(toks[i].group(0)):
                continue  # "srun -N 2 mpirun python train.py": the inner launcher's program is the one
            if i == 0 and _LAUNCHER_AS_SUBJECT.match(self.text, m.end()):
                continue  # "mpirun starts 32 ranks in total": the launcher named in a sentence, no command line
            start = m.end() + toks[i].start()
            tail = re.match(r"[^`\n;,]*?(?=\s*(?:$|[`\n;,]|\.(?:\s|$)|\s+(?:then|and|but|on|so)\s))", self.text[start:])
            end = start + (tail.end() if tail else toks[i].end() - toks[i].start())
            command = self._as_pasted(_split_command(self.text[start:end]))
            if "completions" in self.recipe.properties:
                # a task array's index (Slurm's, PBS's, an Argo loop's) is the Indexed Job's completion index
                command = [_ARRAY_INDEX.sub("$(JOB_COMPLETION_INDEX)", c) for c in command]
            for name in names:
                if self._take(name, command, (start, end)):
                    # where the ranks run is the manifest's own ("-H node1:8,node2:8" is no image); settings
                    # passed on ("-x NCCL_IB_HCA=mlx5") stay to be reported
                    self.used.extend([m.span(), *placing])
                    self.result.covered.extend([m.span(), *placing])
                    return

    def _verbatim(self) -> None:
        """Values quoted whole (in backticks or quotes) that hold spaces or brackets
        ("`sleep infinity`", "`sum(rate(x[2m]))`") go, whole, to the parameter whose cue words
        stand closest before them and whose schema takes them (a list parameter takes the
        words); the cue is the parameter's name, its distinctive parts or, for a command,
        the verbs that run one."""
        import shlex

        # a fenced block is no inline quote: "```...``` turn that into ... `chat-gw`" quotes nothing between
        view = re.sub(r"```.*?```", lambda f: " " * len(f.group(0)), self.text, flags=re.S) if "```" in self.text \
            else self.text
        for m in _compile(r"`([^`]+)`|\"([^\"]*[\s()\[\]{}][^\"]*)\"").finditer(view):
            raw = m.group(1) if m.group(1) is not None else m.group(2)
            span = m.span(1) if m.group(1) is not None else m.span(2)
            if not self._free(span) or not re.search(r"[\s()\[\]{}]", raw.strip()):
                continue

            # "run python -c "import torch; ..."": the quoted code is the shell's or Python's argument
            shell = _INLINE_CODE.search(view, max(0, m.start() - 30), m.start()) if m.group(2) is not None else None

            def value_of(name: str, spec: dict[str, Any], raw: str = raw, shell: Any = shell) -> Any:
                if spec.get("type") == "array":
                    if shell is not None and _COMMAND_NAME.search(name):
                        return [*shell.group(1).split(), raw]
                    try:
                        return shlex.split(raw)
                    except ValueError:
                        return None
                return raw.strip() if spec.get("type") == "string" else None

            best = self._closest_cue(shell.start() if shell is not None else m.start(), value_of)
            if best is not None:
                self.result.values[best[1]] = best[2]
                self.result.spans[best[1]] = (shell.start(1), span[1]) if shell is not None and \
                    isinstance(best[2], list) and best[2][:1] == shell.group(1).split()[:1] else span
                self.used.append((shell.start(1), m.end()) if shell is not None else m.span())

    def _closest_cue(self, at: int, value_of) -> tuple[int, str, Any] | None:
        """(gap, parameter, value) for the parameter whose cue words stand closest before ``at``
        (within 50 characters) among those whose schema takes ``value_of(name, spec)``."""
        best = None
        for name, spec in self.recipe.properties.items():
            value = None if name in self.result.values else value_of(name, spec)
            if value is None:
                continue
            ok, val = self._ok(name, value)
            if not ok:
                continue
            cues = [w for w in name_variants(name) + distinctive_cues(name, list(self.recipe.properties))
                    if not w.endswith("*") and w.lower() not in _STOP]
            # and the recipe's own cue words for it ("prefer=[a, b]" for preferred_groups)
            cues += [str(w) for r in self.recipe.extract.get(name) or [] for k in ("after", "list")
                     for w in (r.get(k) or []) if isinstance(w, str) and w.lower() not in _STOP]
            if _COMMAND_NAME.search(name):
                cues += ["run", "runs", "running", "execute", "executes", "executing", "exec", "command", "cmd", "entrypoint"]
            head = self.text[max(0, at - 50):at]
            hits = [h.end() for h in _compile(_words_alt(cues)).finditer(head)] if cues else []
            if hits and (best is None or len(head) - hits[-1] < best[0]):
                best = (len(head) - hits[-1], name, val)
        return best

    def _title_word(self, span: tuple[int, int]) -> bool:
        """Is the word at ``span`` the first of a title ("Robotics Perception", "Speech Recognition Team"):
        a display name in capitals, not an object's name?"""
        m = _TITLE_WORD.match(self.text, span[0])
        return m is not None and m.end() == span[1]

    def _first_valid(self, name: str, pattern: str):
        for tok, span in self._token_candidates(pattern):
            ok, val = self._ok(name, tok)
            if ok:
                return val, span
        return None

    def rule_after(self, name: str, rule: dict[str, Any]):
        # "scheduler called x" also reads "the scheduler is called x"
        cues = list(rule["after"]) + [re.sub(r"\s+(named|called)$", r" is \1", w) for w in rule["after"]
                                      if re.search(r"\s(?:named|called)$", w)]
        # "scheduler named x" also reads "the scheduler is x"
        cues += [re.sub(r"\s+(?:named|called)$", " is", w) for w in rule["after"] if re.search(r"\s(?:named|called)$", w)]
        # "prio class x": a cue word's usual shortening ("priority" -> "prio")
        cues += [re.sub(rf"\b{long}\b", short, str(w)) for w in rule["after"] for long, shorts in _ABBREVIATIONS.items()
                 for short in shorts if " " in str(w) and re.search(rf"\b{long}\b", str(w))]
        words = _words_alt(cues)
        # "onboard a new team, genomics.": the value in apposition, alone before the sentence ends
        # "the interns' namespace (intern-sandbox)", "temp > 78": the value in brackets, or after a comparison
        # ("students namespace: a jupyter pod": an indefinite article after the colon starts what is
        # asked for, not the value)
        # (a cue inside a path or a dotted key is no cue: "/v2/health/ready" names no health path after "health")
        pat = (rf"(?<![/.]){words}\s*(?:[:=]\s*(?!(?:a|an)\s)|,\s*(?=[\"'`]?[\w.-]+[\"'`]?\s*(?:[.;!]|$))|\(\s*(?=[\w.-]+\s*\))|[<>]=?\s*|"
               rf"(?:is|are|was)\s*[:=]\s*|"
               rf"(?:(?:is|are|was)\s+(?:named|called)|named|called|call(?=\s+[\"'`]?[a-z0-9][\w.-]*[\"'`]?\s*(?:[,.;!]|please|pls|$))|"
               rf"(?:(?:of|with)\s+(?:the\s+)?)?name(?:\s+is|\s*[:=]|\s+(?:should|will|must|shall)\s+be)?|is|of|"
               rf"to\s+[a-z]+\s+(?:is|should\s+be|will\s+be)|(?:renamed|changed|switched)(?:\s+to)?|to|at|"  # "the program to launch is x"
               rf"(?:must|should|will|shall|needs?\s+to|has\s+to)\s+be|"
               # "the cluster ID they gave me is 2150...": who handed the value over, between cue and value
               rf"(?:(?:that|which)\s+)?(?:they|we|you|i|someone|the\s+(?:[a-z]+\s+)?[a-z]+)\s+(?:gave|sent|told|provided|assigned|shared|"
               rf"issued|got)(?:\s+(?:me|us|you|them))?\s+(?:is|was|[:=]))\s+)?"
               rf"(?:(?:please|pls|plz)[,:]?\s+)?"  # "the configmap name please `ts-config`"
               rf"(?:(?:the|a|an|our|my|their|just|only|simply)\s+)?")
        is_command = _COMMAND_NAME.search(name) and \
            self.recipe.properties[name].get("type") == "array"
        # a command may start with a path: "./bench.sh", "/opt/run.sh"
        value_pat = r"[\"'`]?((?:\.{0,2}/)?[A-Za-z0-9](?:[\w./:@+-]*[\w])?)[\"'`]?" if is_command else _TOKEN
        if str(self.recipe.properties[name].get("pattern", "")).startswith("^/"):
            value_pat = r"[\"'`]?(/[\w./@+-]*[\w])[\"'`]?"  # "cachePath=/hf": a path parameter takes a path
        pat += value_pat
        cue = _compile(rf"^{words}$")
        others = self._cue_words(name) if rule.get("schema") else set()
        kw = self._keyword_spans()
        spec = self.recipe.properties[name]
        if spec.get("type") == "string" and not spec.get("enum"):
            # "production priority class should be called x", "the research one is named y": the
            # cue, a few words of the same clause, then the name the object gets
            # a "<qualifier>_name" is named by its qualifier: "called"/"named" says the rest
            qual = name[:-len("_name")] if name.endswith("_name") else ""
            quals = name_variants(qual) + _ABBREVIATIONS.get(qual, []) if qual and rule.get("schema") else []
            heads = sorted({re.sub(r"\s+(?:named|called)$", "", str(w)) for w in cues + quals})
            named = (rf"{_words_alt(heads)}(?:\s+(?!(?:and|or|but)\b)[\w-]+){{0,3}}?\s+(?:(?:is|are|was|gets|get|"
                     rf"(?:should|will|must|shall|can|would)\s+be|to\s+be)\s+)?(?:named|called)\s+{_TOKEN}")
            for tok, span in self._token_candidates(named):
                ok, val = self._ok(name, tok)
                if ok and not cue.match(tok) and not self._inside_longer_cue(name, words, span):
                    return val, span
        owner = self._other_named(name) if rule.get("schema") else None
        if spec.get("type") == "string" and not spec.get("enum"):
            # "name of the hpa is whisper-hpa": the value after what the cue is of
            # "the name of the object 'rerank-scaler'": or quoted right after it
            # "release of our prometheus stack is called monitoring": a few words of what it is of
            for tok, span in self._token_candidates(rf"{words}\s+of\s+(?:the|this|that|its|our|my)\s+(?:[\w-]+\s+){{1,3}}?"
                                                    rf"(?:is\s+(?:called|named)|is|should\s+be|will\s+be|[:=]|(?=[\"'`]))"
                                                    rf"\s*{_TOKEN}"):
                ok, val = self._ok(name, tok)
                if ok:
                    return val, span
        # "Onboarding request: tenant: recsys": the cue written as a field label goes first
        labelled = rf"{words}\s*[:=]\s*" + value_pat
        # "in the inference namespace: scale to zero": a cue that ends a phrase ("the inference namespace")
        # names no value after its colon; the phrase already said it
        phrase_end = _compile(rf"\b(?:the|our|their|its|my|your|this|that)\s+[\w-]+\s+{words}\s*:\s*[\"'`]?$")
        candidates = [c for c in [*self._token_candidates(labelled), *self._token_candidates(pat)]
                      if not phrase_end.search(self.text[max(0, c[1][0] - 80):c[1][0]])]
        if spec.get("type") == "string" and not spec.get("enum") and not is_command:
            # "use a10g as the key", "with gpu-burst as its pool": the value before "as the <cue>"
            candidates[:0] = list(self._token_candidates(
                rf"(?<![\w./-]){_TOKEN}\s+as\s+(?:the|its|their|our|a|an)\s+{words}(?![\w-])"))
            # "ranking-api (the deployment name)", "chat-gw is the deployment's name": the value, then what it names
            candidates[:0] = list(self._token_candidates(
                rf"(?<![\w./-]){_TOKEN}\s*(?:\(\s*|,\s*|\s+(?:is|=)\s+)(?:(?:that'?s|which\s+is)\s+)?(?:the|its|our|their|my)\s+"
                rf"{words}(?:'s)?\s+name\s*\)?"))
        if spec.get("type") == "string" and not spec.get("enum") and not is_command:
            # "onboard tenant 'fraud-ml'" over "budget for the year": a value quoted right after its cue goes first;
            # a word of a title ("New team: Robotics Perception") goes after the names written as names
            candidates.sort(key=lambda c: (not self._quoted(c[1]), not self._quoted(c[1]) and self._title_word(c[1])))
        for tok, span in candidates:
            if tok.lower() in ("whose", "which", "where", "what", "who"):  # "the taint whose key is x": not yet
                continue
            if re.match(r"=[^\s=]", self.text[span[1]:span[1] + 2]) and not self._quoted(span) and not is_command:
                continue  # "label the namespace cost-center=cc-4410": a label's key, not the namespace's name
            if tok.lower() in _AMOUNT_WORDS and not self._quoted(span):
                continue  # "a pod that claims a couple of GPUs": an amount, not the claim's name
            if tok.lower() == "s" and self.text[max(0, span[0] - 1):span[0]] in ("'", "\u2019"):
                continue  # "another team's queue": a possessive, not a value in quotes
            if self._inside_code(span):
                continue  # '{namespace="prod"}' inside a query is part of that value, not one of its own
            if name.endswith("image") and re.fullmatch(r"[a-z]+", tok) and not self._quoted(span):
                continue  # "the image ships Intel MPI", "image pulls take ages": an image is a reference, not a word
            field = (re.match(rf"\s*(?:[:=]|\s+is\s)\s*{_TOKEN}", self.text[span[1]:])
                     or re.match(rf"\s+{_TOKEN}", self.text[span[1]:])) \
                if tok.lower() in ("key", "name", "value", "label") and not is_command else None
            if field and field.group(1).lower() in _STOP | _FILLERS:
                field = None  # "the taint key is ...", "key and value": no value right after the field word
            if field:  # "tolerate key=spot", "tainted with key gpu-only": the field word's value is the value
                tok, span = field.group(1), (span[1] + field.start(1), span[1] + field.end(1))
            if re.search(r"\w\.[\w-]+\s+$", self.text[max(0, span[0] - 60):span[0]]) and not self._quoted(span):
                continue  # "the device-plugin.config label": the cue was the end of a dotted name, not a field label
            if cue.match(tok):  # "tolerate taint key dedicated": a cue word is not the value
                continue
            if self._inside_longer_cue(name, words, span):
                continue  # "cluster queue named x": the ClusterQueue's cue holds the LocalQueue's "queue named"
            if owner is not None:  # "port name metrics": the cue qualified by another parameter's noun
                head = re.sub(rf"{words}\s*(?:[:=]|is)?\s*(?:(?:the|a|an|our|my|their)\s+)?[\"'`]?$", "",
                              self.text[max(0, span[0] - 60):span[0]], flags=re.I)
                stripped = head != self.text[max(0, span[0] - 60):span[0]]
                if stripped and re.search(r"\bname\s*(?:[:=]|is)?\s*[\"'`]?$", self.text[max(0, span[0] - 12):span[0]], re.I):
                    head = re.sub(r"\s+(?:of|with)(?:\s+the)?$", "", head.rstrip(), flags=re.I)  # "the queue of name x"
                if stripped and owner.search(head.rstrip()):
                    continue
            if any(a < span[0] and span[1] <= b for a, b in kw) and not self._quoted(span):
                continue  # "tenant bundle for x": the cue and this word are one keyword of the recipe
            if tok.lower() in self._keyword_words() and not self._quoted(span) and \
                    not re.search(rf"(?<![\w]){re.escape(tok)}(?![\w])", str(spec.get("pattern", ""))) and any(
                    b0 <= span[0] and not self.text[b0:span[0]].strip() for _a0, b0 in self._keyword_spans()):
                continue  # "onboarding bundle for x": a keyword of the recipe, then a word of its keywords
                # (unless the schema names the word as a value: "mountname fsx")
            if _singular(tok.lower()) in others:  # "model cache": the word names another parameter
                continue
            if re.fullmatch(r"[a-z]+", tok) and not self._quoted(span) and \
                    re.search(r"\bfor\s+$", self.text[max(0, span[0] - 5):span[0]], re.I) and \
                    re.match(r"\s+(?!(?:and|or|but|with|in|on|to|at|of|please|pls|team|namespace|ns|too|as|from)\b)[a-z]+\s+[a-z]+s\b",
                             self.text[span[1]:span[1] + 40]):
                continue  # "a ClusterQueue for offline scoring jobs": "for" and a word of a noun phrase, no name
            if not self._quoted(span) and _singular(tok.lower()) in self._other_param_nouns(name):
                continue  # "cap cpu at 320 cores": another parameter's own noun is no name
            if tok.lower() in self._kind_words() and not self._quoted(span):
                continue  # "mig config cm = a100-layouts": a kind's noun is no name
            if re.search(r"\s$", self.text[:span[0]]) and self._two_word_kind.search(
                    self.text[max(0, span[0] - 20):span[1]]):
                continue  # "the config map should be called x": "map" ends a kind's name, it is no value
            if spec.get("type") == "string" and not spec.get("enum") and re.fullmatch(r"[a-z]+", tok) \
                    and not self._quoted(span) and self._plain_word_not_the_value(span, words, cues):
                continue
            if rule.get("schema") and re.fullmatch(r"[a-z]+", tok) and not self._quoted(span):
                part = re.search(r"\b(?:the|a|an|our|my|their|its|of|for|with|about|from|and|or)\s+([a-z]+)\s+$",
                                 self.text[max(0, span[0] - 40):span[0]])
                if part and part.group(1) in distinctive_cues(name, list(self.recipe.properties)) and \
                        part.group(1) not in {v.lower() for v in name_variants(name)}:
                    continue  # "stop using the device plugin", "shards of product descriptions": one word of the
                    # name and a plain word are one noun
            if re.fullmatch(r"[a-z]+", tok) and not self._quoted(span) and \
                    re.search(r"\b(?:name|call)\s+(?:the|this|our|my)\s+$", self.text[max(0, span[0] - 12):span[0]], re.I) \
                    and re.match(r"\s+[a-z]", self.text[span[1]:], re.I):
                continue  # "name the local queue x": the verb, then the object it names
            if _COMMAND_NAME.search(name) and \
                    self.recipe.properties[name].get("type") == "array":
                # "runs nccl-tests (all_reduce_perf -b 8 -e 8G)": the command in brackets after a name
                inner = re.match(r"(?:\s+[\w-]+){0,2}\s*\(([^()]*?(?:\s-{1,2}\w|/)[^()]*)\)", self.text[span[1]:])
                if inner:
                    span = (span[1] + inner.start(1), span[1] + inner.end(1))
                    tok = inner.group(1)
                else:
                    tok, span = self._command_words(tok, span)
                hyphen_cmd = re.search(r"\w-\w", tok) and not re.fullmatch(r"[a-z]+-[a-z]+(?:ed|ing)", tok) and re.match(r"\s*(?:$|[,.;)]|(?:and|then|with|on|in)\b)",
                                                                    self.text[span[1]:])  # "runs nvidia-smi and exits"
                if rule.get("verb") and not inner and " " not in tok.strip() and not re.search(r"[/_.]", tok) \
                        and not hyphen_cmd:
                    continue  # "runs on 2 workers", "runs fast": after a verb only a command-like word
                if rule.get("verb"):  # the verb is understood with its command
                    verb = None
                    for verb in _compile(words).finditer(self.text, max(0, span[0] - 40), span[0]):
                        pass
                    if verb is not None:
                        self.result.covered.append((verb.start(), verb.end()))
                ok, val = self._ok(name, _split_command(tok))
            else:
                ok, val = self._ok(name, tok)
            if ok:
                return val, span
        if spec.get("type") == "string" and not spec.get("enum") and not rule.get("verb"):
            # "on the nfs-ssd class", "into our team-a namespace": a name-like word (hyphen or
            # digit) right before the noun that cues the parameter, after a determiner
            nouns = [w for w in rule["after"] if re.fullmatch(r"[a-z][a-z ]*[a-z]", str(w)) and w not in _STOP
                     and not re.search(r"(?:ed|ing|ate|ates|e to|for|named|called)$", str(w))]
            if nouns:
                before = (rf"\b(?:the|our|my|a|an|their|its)\s+[\"'`]?([a-z0-9][\w.]*(?:[-_.]\w+)+|[a-z]+\d[\w.-]*)"
                          rf"[\"'`]?\s+{_words_alt(nouns)}(?![\w-])")
                for tok, span in self._token_candidates(before):
                    ok, val = self._ok(name, tok)
                    if ok:
                        return val, span
                # "on the analytics cluster", "the interns namespace": a plain word there too, unless
                # it only describes ("the same cluster", "the gpu namespace")
                plain = rf"\b(?:the|our|my|their)\s+([a-z][a-z0-9]*)\s+{_words_alt(nouns)}(?![\w-])"
                own = {w for c in rule["after"] for w in str(c).lower().split()}
                for tok, span in self._token_candidates(plain):
                    if tok.lower() in _NOT_A_NAME or tok.lower() in own or tok.lower() in self._kind_words() \
                            or _singular(tok.lower()) in self._cue_words(name):
                        continue
                    ok, val = self._ok(name, tok)
                    if ok:
                        return val, span
        return None

    def _plain_word_not_the_value(self, span: tuple[int, int], words: str, cues: list[str]) -> bool:
        """Is the plain word at ``span``, right after a cue (``words``), something other than the
        string value the cue introduces?"""
        nxt = re.match(r"\s+([a-z]+)\b(?!\s*[=:])", self.text[span[1]:])
        nxt_word = nxt.group(1).lower() if nxt else ""
        own_words = {w for c in cues for w in str(c).lower().split()}
        own_noun = bool(nxt) and (nxt_word in own_words or _singular(nxt_word) in own_words)
        # "everything a team needs", "the team wants": a verb right after the cue noun is no name
        if self.text[span[0]:span[1]].lower() in _VERBS_AFTER_NOUN:
            return True
        # "a new team is coming": a participle after "is" is the verb's, not a name (but "Namespace is
        # scoring." states the value the parameter's own noun takes)
        if re.search(r"\b(?:is|are|was|were)\s+$", self.text[max(0, span[0] - 8):span[0]], re.I) and \
                re.fullmatch(r"[a-z]{3,}(?:ing|ed)", self.text[span[0]:span[1]]) and not (
                    re.search(r"\b(?:namespace|ns|name)\s+(?:is|was)\s+$", self.text[max(0, span[0] - 20):span[0]], re.I)
                    and re.match(r"\s*(?:[.;,!\n]|$)", self.text[span[1]:])):
            return True
        # "our image is built on MPICH", "the queue is shared with": a passive verb and its preposition
        if re.search(r"\b(?:is|are|was|were)\s+$", self.text[max(0, span[0] - 8):span[0]], re.I) and \
                re.match(r"\s+(?:on|upon|from|with|by|into|onto|off|for)\b", self.text[span[1]:]):
            return True
        # "all the models takes 20 minutes": a plural cue is followed by its verb, not by a name
        prev = re.search(r"([a-z]+)\s+$", self.text[max(0, span[0] - 40):span[0]], re.I)
        if prev and prev.group(1).lower() not in own_words and _singular(prev.group(1).lower()) in own_words:
            return True
        # "a cluster placement group": a plain word that heads a longer noun is no name
        if nxt and nxt_word not in _STOP and nxt_word not in _FILLERS and nxt_word not in _AFTER_VALUE and not own_noun \
                and not re.search(r"(?:ly|ed|ing)$", nxt_word) and nxt_word not in _REPORTING_VERBS | _VERBS_AFTER_NOUN:
            return True
        # "the canary has no device plugin": a cue said to be absent introduces no value
        if _compile(rf"\b(?:no|without|not\s+(?:a|an|the|any))\s+{words}\s*$").search(self.text, max(0, span[0] - 60), span[0]):
            return True
        # "can the quota for that namespace go up": the cue points back, no value follows
        if _compile(rf"\b(?:that|this|those|these|same)\s+{words}\s*$").search(self.text, max(0, span[0] - 60), span[0]):
            return True
        # "onboarding ticket for team speech": the cue comes again, with the name
        if _compile(rf"\s+(?:for|of)\s+(?:the\s+|a\s+|our\s+)?{words}\s+[\"'`]?[a-z0-9]").match(self.text, span[1]):
            return True
        # "tolerate the pool taint l40s-pool": the name comes after the cue noun
        if nxt and _singular(nxt_word) in own_words and re.match(r"\s+[\"'`]?[a-z0-9][\w.]*(?:-[\w.-]*|\d[\w.-]*)",
                                         self.text[span[1] + nxt.end():]):
            return True
        # "the interns namespace keeps getting flooded": a plain name between a determiner and the cue
        before = re.search(rf"\b(?:the|our|my|their)\s+([a-z][a-z0-9]*)\s+{words}\s*$",
                           self.text[max(0, span[0] - 60):span[0]], re.I)
        if before and before.group(1).lower() not in _NOT_A_NAME and before.group(1).lower() not in own_words \
                and re.fullmatch(r"[a-z]+(?:s|ed|ing)|is|are|was|has|had|does|can|will|should|must", tok_word := self.text[span[0]:span[1]].lower()) \
                and tok_word not in own_words:
            return True
        # "cv-research ns needs a quota": the name stands before the cue, not a plain word after it;
        # but "hpa for llm-server ns prod,": a word ending its clause after the cue is the value, when
        # the name before is another parameter's
        hy = _compile(rf"(?<![\w.-])[a-z0-9][\w.]*-[\w.-]*[a-z0-9](?=\s+{words}\s*$)").search(
            self.text, max(0, span[0] - 80), span[0])
        if hy and not self._free(hy.span()) and re.match(r"\s*(?:$|[,.;!?)])", self.text[span[1]:]):
            return False
        if hy:  # "rwx pvc coco-2017 ns vision": the name before is the name of the object its kind noun names
            kind = re.search(r"([a-z]+)\s+$", self.text[max(0, hy.start() - 30):hy.start()], re.I)
            if kind and kind.group(1).lower() in self._kind_words():
                return False
        return bool(hy)

    def _command_words(self, tok: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]]:
        """An unquoted command goes on over the words that look like its arguments (paths,
        flags, a flag's value): "command is torchrun /workspace/pretrain.py --epochs 3."."""
        end, prev_flag = span[1], False
        field = re.search(r"\b(?:command|cmd|args|program)\s*([:=])?\s*$", self.text[max(0, span[0] - 12):span[0]], re.I)
        if field:
            # "command: sleep infinity", "cmd sleep infinity": after the field, the clause is the command
            m = re.match(r"[^,;`\"'\n]*?(?=\s*(?:[,;\n]|\.(?:\s|$)|$))", self.text[span[0]:])
            if m and m.end() > len(tok) and (field.group(1) or len(m.group(0).split()) <= 4):
                return m.group(0), (span[0], span[0] + m.end())
        for m in _compile(r"\s+((?<=\s)'[^']*'|(?<=\s)\"[^\"]*\"|[^\s,;`\"']+)").finditer(self.text, span[1]):
            if m.start() != end:
                break
            if prev_flag and m.group(1)[:1] in "'\"":  # "python -c 'import torch; ...'": one argument
                end = m.end(1)
                prev_flag = False
                continue
            word = m.group(1).rstrip(".")
            if prev_flag and word.lower() in _STOP:
                break  # "nvidia-smi -q on one of the nodes": a flag's value is no function word
            if not (re.search(r"[/=]", word) or word.startswith("-") or prev_flag
                    or (re.fullmatch(r"\d+(?:\.\d+)?[smhd]?", word)  # "sleep 3600", not "train.py 4 gpus"
                        and not ((nw := re.match(r"\s+([a-z]+)\b", self.text[m.end(1):], re.I))
                                 and nw.group(1).lower() not in _CLAUSE_WORDS))
                    or re.fullmatch(r"[\w-]+\.(?:py|sh|pl|rb|js|jar|bin|yaml|yml|json|cfg|conf|toml)", word)
                    # a subcommand before its options: "nvidia-smi topo -m", "kubectl-like tool list --all"
                    or (re.fullmatch(r"[a-z][a-z0-9]*", word) and word not in _STOP
                        and re.match(r"\s+--?[A-Za-z]", self.text[m.end(1):]))):
                break
            prev_flag = word.startswith("-") and "=" not in word  # "-m torch.distributed.run"
            end = m.start(1) + len(word)
            if word != m.group(1):
                break
        return self.text[span[0]:end], (span[0], end)

    def _labelled_by_own_cue(self, name: str) -> bool:
        """Does the request give the parameter as a labelled field of its own cue ("- namespace: `robotics`"
        for a tenant cued by "namespace")? Then an object named after it elsewhere ("the cluster queue
        `shared-gpu`") does not name it; the field does."""
        cues = sorted({str(w) for r in self.recipe.extract.get(name) or [] for w in r.get("after") or []
                       if isinstance(w, str) and re.fullmatch(r"[a-z][a-z -]*[a-z]{2}", w)
                       and w not in ("for", "the", "and", "with", "from", "into")})
        return bool(cues) and bool(_compile(rf"(?:^|[\n\-*•]\s*|[,;]\s+)(?:{_words_alt(cues)})\s*[:=]\s*[\"'`]?[A-Za-z0-9]")
                                   .search(self.text))

    def _inside_longer_cue(self, name: str, words: str, span: tuple[int, int]) -> bool:
        """Does the cue before ``span`` stand inside a longer ``after`` cue of another parameter of the recipe
        that starts earlier ("cluster queue named x": "queue named" is the LocalQueue's cue, "cluster queue"
        the ClusterQueue's)? The longer cue says whose value it is."""
        lo = max(0, span[0] - 60)
        before = self.text[lo:span[0]]
        mine = None
        for mine in _compile(words).finditer(before):
            pass
        if mine is None:
            return False
        for other, rules in self.recipe.extract.items():
            if other == name:
                continue
            theirs = [str(w) for r in rules for w in r.get("after") or [] if " " in str(w)]
            if not theirs:
                continue
            for m in _compile(_words_alt(theirs)).finditer(before):
                # (the rest of the shorter cue only names: "cluster queue named", never "cluster queue for")
                if m.start() < mine.start() < m.end() <= mine.end() + 1 and \
                        re.fullmatch(r"\s*(?:(?:is\s+)?(?:named|called)|name(?:\s+is)?|[:=])?\s*", before[m.end():mine.end()]):
                    return True
        return False

    def rule_before(self, name: str, rule: dict[str, Any]):
        words = _words_alt(rule["before"])
        # (never "hpa ns=chat": a cue with "=" after it, or ":" and no space, keys the value that follows)
        # "triton-resnet (deployment in ns serving)", "qwen-chat (our vLLM deployment, ...)": a name, then in
        # brackets what kind of thing it is; the noun ends the aside or is followed by where it lives, never
        # by a value of its own ("job-a (ns research)" names no namespace)
        pat = (rf"(?<![\w./:-])([A-Za-z0-9][\w./:@+-]*[\w])[\"'`]?(?:\s+{words}(?!\s*=|:[\w\"'`])"
               rf"|\s+\(\s*(?:(?:a|an|the|our|my|their|its)\s+)?(?:[\w.-]+\s+)?{words}"
               rf"(?=\s*[),;]|\s+(?:in|on|at|under|behind|that|which|running|serving)\b))")
        # "tolerate taint gpu-pool": a word that cues this parameter itself is not its value
        own = {str(w).lower() for r in self.recipe.extract.get(name) or [] for k in ("after", "before")
               for w in r.get(k) or [] if isinstance(w, str)}
        theirs = self._others_after_cues(name)
        for tok, span in self._token_candidates(pat):
            if (tok.lower() in own or tok.lower() in _NOT_A_NAME) and not self._quoted(span) and \
                    not (tok.lower() == "default" and _namespace_named_default(self.text, span[0])):
                continue  # "the volcano queue": a tool's name describes the queue, it does not name it
            if theirs is not None and theirs.search(self.text, max(0, span[0] - 40), span[0]):
                continue  # "namespace serving deployment name x": the word is the namespace's, right after its cue
            if _product_name(tok, self.recipe.properties[name]) and not self._quoted(span):
                # "the `llama-chat` vLLM deployment": a product's name describes the object; its name stands before
                prev = _WORD_BEFORE.search(self.text, max(0, span[0] - 80), span[0])
                if prev is None:
                    continue
                tok, span = prev.group(1), prev.span(1)
                if not self._free(span) or _never_name(self.text, tok, span[0]):
                    continue
            ok, val = self._ok(name, tok)
            if ok:
                return val, span
        return None

    def _others_after_cues(self, name: str) -> re.Pattern | None:
        """The other parameters' own ``after`` cues (single words or phrases) right before a word, as
        ``namespace`` is in "namespace serving deployment"."""
        words = sorted({str(w).lower() for other in self.recipe.properties if other != name
                        for r in self.recipe.extract.get(other) or _DEFAULT_RULES.get(other, [])
                        for w in r.get("after") or [] if isinstance(w, str) and re.fullmatch(r"[a-z][a-z -]*[a-z]", str(w))
                        and str(w).lower() not in _STOP and len(str(w)) >= 2})
        return _compile(rf"(?<![\w-]){_words_alt(words)}\s*[:=]?\s*[\"'`]?$") if words else None

    def _other_named(self, name: str) -> re.Pattern | None:
        """Phrases naming another parameter's object ("claim template" for claim_template)."""
        key = (id(self.recipe.properties), id(self.recipe.extract), name)
        got = _OTHER_NAMED_CACHE.get(key)
        if got is None or got[0] is not self.recipe.properties:
            got = (self.recipe.properties, self._build_other_named(name))
            _OTHER_NAMED_CACHE[key] = got
        return got[1]

    def _build_other_named(self, name: str) -> re.Pattern | None:
        phrases: set[str] = set()
        quals: set[str] = set()
        # a word this parameter is cued by too is no other object's ("port" in "metrics port name x")
        own = {w.lower() for w in self._kind_nouns(name)[0]} | {
            x for r in self.recipe.extract.get(name) or _DEFAULT_RULES.get(name, []) for k in ("after", "before")
            for w in r.get(k) or [] for x in str(w).lower().split()}
        for other in self.recipe.properties:
            if other == name or self.recipe.properties[other].get("type") != "string":
                continue
            # "port name metrics", "queue name q1": another parameter's own noun before "name"
            variants = [v for v in name_variants(other) if "_" in other or len(other) >= 4]
            phrases.update(variants)
            phrases.update(re.sub(rf"\b{long}\b", short, v) for v in variants for long, shorts in _ABBREVIATIONS.items()
                           for short in shorts if re.search(rf"\b{long}\b", v))  # "prio class 'x'"
            if other.endswith("_name"):  # "the scheduler (profile) is called x" for scheduler_name
                quals.update(v for v in name_variants(other[:-len("_name")]) if len(v) >= 4)
            for r in self.recipe.extract.get(other) or []:
                for w in r.get("after") or []:
                    short = re.sub(r"\s+(?:named|called)$", "", str(w).lower())
                    # "the taint called x": another parameter's own noun names its object
                    if " " in short or len(short) > 6 or short != str(w).lower() or \
                            (len(short) >= 4 and short.isalpha() and short not in _STOP and short not in own):
                        phrases.add(short)
        if not phrases and not quals:
            return None
        alts = [_words_alt(sorted(phrases))] if phrases else []
        if quals:  # a qualifier, then maybe one noun of its own ("scheduler profile"), ending the head
            mine = self._kind_nouns(name)[0]
            tail = rf"(?:\s+(?!(?:{_words_alt(mine)})\b)[a-z]+)?" if mine else r"(?:\s+[a-z]+)?"
            alts.append(_words_alt(sorted(quals)) + tail)
        return _compile("(?:" + "|".join(alts) + r")\s*$")

    def _after_kind_noun(self, name: str, mine: list[str]):
        """"storageclass fsx-ckpt", "nodepool gpu-burst for p5": a name-like word right after the
        noun of the object this parameter names (hyphenated, so "pod requesting" names no pod)."""
        if not mine:
            return None
        kw = self._keyword_spans()
        # "cm name ts-config", "cm=a100-layouts", "the config map should be called mps-inference"; not
        # "job: thirty-two shards", where the colon opens the details
        # "job (whisper-nightly, namespace audio)": the name opening a bracket right after the noun
        # "a PV and PVC called train-data": the object and its companion under one name
        link = (r"(?:\s*=\s*|\s+name\s*(?:is\s+|[:=]\s*)?|\s+(?:(?:should|will|must|can)\s+be\s+|is\s+|gets\s+)?"
                r"(?:(?:and|&|\+)\s+(?:a\s+|an\s+|the\s+|its\s+)?[\w-]+\s+(?:both\s+)?)?(?:named|called)\s+|\s*\((?=\s*[\w.-]+\s*[,;)])\s*|\s+)")
        for tok, span in self._token_candidates(rf"(?<![\w-]){_words_alt(mine)}{link}{_TOKEN}"):
            if not re.fullmatch(r"[A-Za-z][\w.]*[-_][\w.-]*[A-Za-z0-9]", tok) or _SIZE_RE.match(tok) or _CLOUD_ID.fullmatch(tok):
                continue  # "fsx volume fs-00aa11...": a cloud resource id names no object
            if any(a < span[0] and span[1] <= b for a, b in kw):
                continue  # the noun and this word are one keyword of the recipe: no name
            if re.match(r"=[^\s=]", self.text[span[1]:span[1] + 2]) and not self._quoted(span):
                continue  # "label the namespace cost-center=cc-4410": a label's key, not the namespace's name
            ok, val = self._ok(name, tok)
            if ok:
                return val, span
        # "deployment summarizer in ns web", "job ocr in namespace batch": a plain word right after the
        # noun is a name too when where the object lives follows it, or its details do ("deployment qwen
        # with 2 replicas", "job ocr, 4 gpus")
        for m in _compile(rf"(?<![\w-]){_words_alt(mine)}\s+([a-z][a-z0-9]*)(?=\s+in\s+(?:the\s+)?(?:ns|namespace)\b|"
                          rf"\s*[,;]\s*(?:in\s+)?(?:ns|namespace)\b|\s+with\s+(?:\d|{_NUM_PART}\b|an?\s+single\b|one\b)|"
                          rf"\s*[,;]\s*\d|"
                          # "pytorchjob bert: 3 workers, 4 gpus each": the name heads the line of its details
                          rf"\s*:[ \t]+(?=[^\n]*\d))").finditer(self.text):
            tok, span = m.group(1), m.span(1)
            if tok.lower() in _HEADING_WORDS:
                continue  # "deployment spec: 2 replicas", "the PyTorchJob equivalent in namespace nlp": no name
            if tok.lower() in _STOP or re.search(r"(?:ing|ed)$", tok.lower()) or not self._free(span) or any(
                    a <= span[0] and span[1] <= b for a, b in kw) or tok.lower() in self._keyword_words():
                continue
            ok, val = self._ok(name, tok)
            if ok:
                return val, span
        # "vllm-mistral deployment with 2 replicas", "Title: cuda-check pod": a hyphenated name right
        # before the noun, opening the request or its title, when nothing says the object exists already
        opening = r"(?:^|(?:title|summary|subject)\s*:\s*|(?:a|an|new)\s+)"
        for m in _compile(rf"{opening}[\"'`]?([a-z][\w.]*-[\w.-]*[a-z0-9])[\"'`]?\s+{_words_alt(mine)}(?![\w-])").finditer(self.text):
            if m.start() > 0 and not re.match(r"(?:title|summary|subject|a|an|new)\b", self.text[m.start():], re.I):
                continue
            span = m.span(1)
            if not self._free(span) or any(a <= span[0] and span[1] <= b for a, b in kw) or _COMPOUND_ADJ.search(m.group(1)) \
                    or _COUNT_ADJ.match(m.group(1)) or self._enum_phrase(m.group(1)):
                continue  # "ResourceClaim-based pod", "single-GPU pod", "read-only-many claim": a description, no name
            ok, val = self._ok(name, m.group(1))
            if ok:
                return val, span
        return None

    def _enum_phrase(self, tok: str) -> bool:
        """Is ``tok`` a phrase of one of the recipe's enum rules ("read-only-many" for an access mode)?"""
        low = re.sub(r"[\s_-]+", "", tok.lower())
        return any(re.sub(r"[\s_-]+", "", str(ph).lower()) == low for rules in self.recipe.extract.values()
                   for r in rules if isinstance(r.get("enum"), dict) for v, phs in r["enum"].items()
                   for ph in [v, *phs])

    def _kind_nouns(self, name: str) -> tuple[list[str], dict[str, tuple[str, str]], list[str]]:
        """The kind nouns of the objects ``name`` names, of those named after it ("<name>-claim")
        and of objects other parameters name."""
        kinds = named_kinds(self.recipe)
        mine = kinds["direct"].get(name, [])
        others = sorted({ph for p, phs in kinds["direct"].items() if p != name for ph in phs} - set(mine))
        return mine, kinds["derived"].get(name, {}), others

    def _quoted(self, span: tuple[int, int]) -> bool:
        a, b = span
        return a > 0 and b < len(self.text) and self.text[a - 1] in "\"'`" and self.text[b] == self.text[a - 1]

    def _keyword_words(self) -> set[str]:
        """The plain words of the recipe's keywords ("bundle" of "tenant bundle")."""
        return {w for k in self.recipe.keywords for w in re.split(r"[\s]+", k.lower()) if w.isalpha()}

    def _keyword_spans(self) -> list[tuple[int, int]]:
        if not hasattr(self, "_kw_spans"):
            kws = [k for k in self.recipe.keywords if re.search(r"[a-z]", k, re.I)]
            self._kw_spans = [m.span() for m in _compile(_words_alt(kws)).finditer(self.text)] if kws else []
        return self._kw_spans

    def rule_name(self, name: str, rule: dict[str, Any]):
        # "rename it to debug-ampere", "make a new one named triton-a10", "create a new one, data-v2,":
        # the name the object is to get, over the one it has today
        if name == "name":
            for tok, span in self._token_candidates(
                    rf"\b(?:renam(?:e|ed|ing)\s+(?:it|this|that|(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:to|as|into)|"
                    rf"(?:re-?)?(?:deploy|create|build|make|launch|submit|run|mount|expose)\s+(?:it|this|that)\s+as|"
                    # "the file system ... that I want to mount as shared-scratch"
                    rf"\b(?:want|need|like)\s+to\s+(?:mount|deploy|run|expose)\s+(?:it\s+)?as|"
                    # "I want it on the cluster as `qwen32b`": what the object runs as where it goes
                    rf"\b(?:want|need|like|put|run|have)\s+it\s+(?:on|in|onto|into)\s+(?:the\s+|our\s+)?"
                    rf"(?:cluster|k8s|kubernetes|prod|staging)\s+as|"
                    # "deploy vllm/vllm-openai:v0.6.3 as llama3-chat": an image deployed under a name
                    rf"(?:re-?)?(?:deploy|launch|run|serve|ship|start)\s+(?:the\s+)?(?:image\s+|container\s+)?[\w.@-]*[/:][\w./:@-]*\s+as|"
                    # "need a probe pod, hopper-probe, 1 gpu": a hyphenated name set off by commas after its kind
                    rf"\b(?:pod|job|deployment|service|queue|clusterqueue|podgroup|pytorchjob|mpijob|nodepool|pvc|claim)"
                    rf"\s*,(?=\s*[a-z][a-z0-9]*-[a-z0-9-]*[a-z0-9]\s*,)|"
                    # "need the same thing for qwen-7b": a copy of what runs, for a new object
                    rf"(?:the\s+)?same\s+(?:thing|one|setup|config|deployment|job|pod|queue|pool)\s+(?:but\s+)?for|"
                    # "name the HPA itself llama-hpa", "call this one x", "name it x"
                    rf"(?:name|call)\s+(?:it|this(?:\s+one)?|that(?:\s+one)?|the\s+[\w-]+\s+itself)|"
                    rf"(?:a|the)\s+new\s+(?:one|copy|version)(?:\s+(?:named|called)|\s*,)|new\s+name\s*(?:is|[:=])?)"
                    rf"\s*{_TOKEN}"):
                if not (re.search(r"[-\d]", tok) or self._quoted(span)) and re.search(
                        r"\b(?:we|they|you|i|people|folks|everyone|one)\s+(?:\w+\s+)?(?:call|name)\s+(?:it|this|that)\s*$",
                        self.text[max(0, span[0] - 40):span[0]], re.I):
                    continue  # "restart at most 50 times before we call it dead": what people say, no name given
                if re.search(r"[-\d]", tok) or self._quoted(span) or re.match(r"\s*(?:[,.;:]|(?:in|on|with)\b|$)",
                                                                                 self.text[span[1]:]):
                    ok, val = self._ok(name, tok)
                    if ok:
                        return val, span
        others = self._other_named(name)
        if name == "name":
            # "call the run rm-score-v3", "name the job x": what the request calls its object, unless the noun
            # is another parameter's object ("name the local queue team-a")
            for m in _compile(rf"\b(?:name|call)\s+(?:the|this|our|my)\s+((?:[a-z][\w-]*\s+){{0,1}}[a-z][\w-]*)\s+"
                              rf"{_TOKEN}(?![\w-])(?=\s*[,.;:!)]|\s+(?:in|on|with|and|for|using)\b|\s*$)").finditer(self.text):
                if (others is not None and others.search(m.group(1))) or not (
                        re.search(r"[-\d]", m.group(2)) or self._quoted(m.span(2))):
                    continue
                ok, val = self._ok(name, m.group(2))
                if ok and self._free(m.span(2)):
                    return val, m.span(2)
        # "claim template named big-gpu": a name bound to the object it follows is that object's
        mine, derived, other_kinds = self._kind_nouns(name)

        def kind_tail(phrases: list[str]) -> re.Pattern:  # the head ends with the noun (and maybe one word)
            return _compile(rf"(?<![\w-]){_words_alt(phrases)}\s*(?:[\w-]+\s*)?$")

        derived_rx = kind_tail(list(derived)) if derived else None
        others_rx = kind_tail(other_kinds) if other_kinds else None
        mine_rx = kind_tail(mine) if mine else None
        # "the name of the storage class shall be fsx-p1": the name of an object this parameter names
        # ... and "the team name should be \"speech\"", "Job name is x"
        for m in itertools.chain(
                _compile(rf"\bname\s+of\s+(?:the|this|that|our|my|its|their)\s+((?:[\w-]+\s+){{0,2}}?[\w-]+)\s+"
                         rf"(?:(?:is|should\s+be|shall\s+be|will\s+be|must\s+be)\b|[:=])\s*{_TOKEN}").finditer(self.text),
                _compile(rf"(?<![\w-])((?:[\w-]+\s+){{0,1}}[\w-]+)\s+name\s+"
                         rf"(?:is|should\s+be|shall\s+be|will\s+be|must\s+be)\b\s*{_TOKEN}").finditer(self.text)):
            head = m.group(1)
            # the object's kind, or the parameter's own word for it ("team" for a tenant)
            own = {*name_variants(name), *(w for r in self.recipe.extract.get(name) or [] for w in r.get("after") or []
                                          if isinstance(w, str) and " " not in w)}
            if ((mine_rx is not None and mine_rx.search(head + " ")) or head.split()[-1].lower() in own) \
                    and not (others is not None and others.search(head)):
                span = m.span(2)
                ok, val = self._ok(name, m.group(2))
                if ok and self._free(span):
                    self.result.covered.append((m.start(), span[0]))
                    return val, span
        # "name is x", "its name should be x": only for a name of nothing else (never "mount name is x")
        for tok, span in self._token_candidates(rf"(?:(?<![\w./-])(?:named|called|name\s+(?:stays|remains)|name)|(?:(?<=[,.;:!?(])|^|\b(?:the|its|their|"
                                                 rf"whose|our|my|your)\s+)name{_NAME_IS})\b\s*[:=]?\s*{_TOKEN}"):
            full_head = self.text[max(0, span[0] - 60):span[0]]
            if re.search(r"\bas\s+(?:the|its|their|a)\s+name\s*[:=]?\s*[\"'`]?$", full_head, re.I):
                continue  # "use sd-xl as the name: inference deployment ...": the name came before
            head = _NAMING_TAIL.sub("", full_head)
            if others is not None and (others.search(head) or others.search(re.sub(r"[\s:=\"'`]+$", "", full_head))
                                       or others.search(_OWNER_AFTER.sub("", full_head))
                                       or others.search(_OF_PHRASE.sub("", head))):
                continue  # "mount name abcd1234", "the second scheduler (its name is x)": another parameter's
            if not self._quoted(span) and not re.search(r"[-\d]", tok) and \
                    re.match(r"\s+[A-Z][A-Za-z]+\b", self.text[span[1]:span[1] + 20]):
                continue  # "I think it's called IBM Spectrum Scale now": a product's proper name, not the object's
            if mine_rx is None or not mine_rx.search(head):
                # "a PVC named data-claim" names the object formatted from this parameter: its part
                # is what the format adds around ("data"); another object's name is not this one
                dm = derived_rx.search(head) if derived_rx else None
                if dm is not None:
                    phrase = next((ph for ph in derived if re.match(_phrase_re(ph), dm.group(0), re.I)), None)
                    pre, suf = derived.get(phrase, ("", "")) if phrase else ("", "")
                    if not (tok.startswith(pre) and tok.endswith(suf) and len(tok) > len(pre) + len(suf)):
                        continue
                    tok = tok[len(pre):len(tok) - len(suf) if suf else None]
                    span = (span[0] + len(pre), span[1] - len(suf))
                elif others_rx is not None and others_rx.search(head):
                    continue
            ok, val = self._ok(name, tok)
            if ok:
                said = re.search(rf"(?:named|called|name(?:{_NAME_IS})?)\s*[:=]?\s*[\"'`]?$",
                                 self.text[max(0, span[0] - 20):span[0]], re.I)
                if said:  # "name is" says which words are the name
                    self.result.covered.append((span[0] - len(said.group(0)), span[0]))
                return val, span
        # "call it resnet-ddp", "name the pool gpu-burst"
        call = rf"\b(?:call|calling|name|naming)\s+(?:it|this|them|(?:the|this|that)\s+(?:[\w-]+\s+)?{_words_alt(mine or ['one'])})\s+{_TOKEN}"
        hit = self._first_valid(name, call)
        if hit is not None:
            self.result.covered.append((max(0, hit[1][0] - 40), hit[1][0]))
            return hit
        # "use sd-xl as the name", "with gpu-burst as its name"
        hit = self._first_valid(name, rf"(?<![\w./-]){_TOKEN}\s+as\s+(?:the|its|their|a)\s+name\b")
        if hit is not None:
            self.result.covered.append((hit[1][1], min(len(self.text), hit[1][1] + 16)))
            return hit
        got = self._after_kind_noun(name, mine)
        if got is not None:
            return got
        # "the same llama-8b deployment but 6 replicas", "the llm-gateway deployment went down": an object the
        # user already has, by its name
        if mine:
            for m in _compile(rf"\b(the\s+same|the\s+existing|the|our|my|this|that)\s+([a-z][a-z0-9]*(?:[.-][a-z0-9]+)+)\s+"
                              rf"{_words_alt(mine)}\b").finditer(self.text):
                tok = m.group(2)
                if m.group(1).lower() == "the" and (tok != tok.lower() or re.search(r"(?:ing|ed)$", tok)):
                    continue  # "the fine-tuning job", "the GPU-util HPA": what it is, not its name
                if all(w in self._keyword_words() for w in re.split(r"[.-]", tok)) or not self._free(m.span(2)):
                    continue  # "the model-serving deployment": the recipe's own words, no name
                ok, val = self._ok(name, tok)
                if ok:
                    return val, m.span(2)
        other_cues = sorted({w for o, sp in self.recipe.properties.items() if o != name and sp.get("type") == "string"
                             for w in name_variants(o) if len(w) >= 3})
        # ("flavor should be `h100-80gb`": the linking words a value follows its cue with)
        link = r"(?:[:=]|is|named|called|(?:should|must|will|shall|would|needs?\s+to|has\s+to)\s+be)"
        after_other = _compile(rf"{_words_alt(other_cues)}\s*{link}?\s*$") if other_cues else None
        nouns = sorted({str(w) for o in self.recipe.properties if o != name
                        for r in self.recipe.extract.get(o) or _DEFAULT_RULES.get(o, [])
                        for w in r.get("after") or r.get("before") or [] if re.fullmatch(r"[a-z][a-z ]*[a-z]", str(w))})
        # ("`io2-fast` class" for a storage class: the last word of another parameter's cue after the name)
        heads = sorted({w.split()[-1] for w in other_cues + nouns
                        if " " in w and len(w.split()[-1]) >= 4 and w.split()[-1] not in _STOP})
        other_nouns = _compile(rf"\s+{_words_alt(other_cues + nouns + heads)}(?![\w-])") if other_cues or nouns else None
        # "tolerate the taint 'reserved-llm'": after another parameter's cue word too
        cue_nouns = [w for w in nouns if w not in _STOP]
        if cue_nouns:
            # "our prometheus release label is 'monitoring'": the cue, maybe one noun of its own, then the value
            after_other = _compile(rf"{_words_alt(other_cues + cue_nouns)}(?:\s+[a-z]+)?\s*{link}?\s*$")
        for m in _compile(r"[\"'`]([^\"'`\s]{1,253})[\"'`]").finditer(self.text):
            span = m.span(1)
            if re.search(r"[=~]\s*$", self.text[max(0, m.start() - 2):m.start()]):
                continue  # '{app="whisper"}': a quoted value of a field in an expression
            if re.fullmatch(r"(?:NVIDIA|Tesla)-[\w.-]+", m.group(1)):
                continue  # "show up as `NVIDIA-H100-80GB-HBM3`": a GPU's product label, no object's name
            if "namespace" in self.recipe.properties and re.search(r"\b(?:in|into)\s+(?:the\s+)?$",
                                                                    self.text[max(0, m.start() - 10):m.start()]):
                continue  # "for deployment `chat-gw` in `chat`": a place, the namespace
            if after_other is not None and after_other.search(self.text, max(0, m.start() - 40), m.start()):
                continue  # "the volcano queue 'vision'": a quoted value after another parameter's noun is its
            if other_nouns is not None and other_nouns.match(self.text, m.end()):
                continue  # "tolerate the 'batch' taint": a quoted value before another parameter's noun too
            if others_rx is not None and others_rx.search(_COPULA_TAIL.sub("", self.text[max(0, m.start() - 60):m.start()])):
                continue  # "pvc `train-tmp` in ns ml": a quoted name right after another object's kind is that object's
            if others is not None and (others.search(_NAMING_TAIL.sub("", self.text[max(0, m.start() - 60):m.end(1)])) or
                                       others.search(_COPULA_TAIL.sub("", self.text[max(0, m.start() - 60):m.start()])) or
                                       others.search(_OF_PHRASE.sub("", _NAMING_TAIL.sub(
                                           "", self.text[max(0, m.start() - 60):m.end(1)])))):
                continue  # "Template should be called `h100-pair`", "our scheduler is 'x'": another parameter's object
            lead = re.search(r"([a-z]+)\s+(?:(?:is\s+)?(?:named|called)\s+)?$", self.text[max(0, m.start() - 30):m.start()], re.I)
            if lead and lead.group(1).lower() in _OUTSIDE_OBJECTS and not any(
                    re.fullmatch(_phrase_re(w), lead.group(1), re.I) for w in mine):
                continue  # "route alerts to PagerDuty service \"gpu-oncall\"": the name of a thing no manifest has
            if self._free(span):
                ok, val = self._ok(name, m.group(1))
                if ok:
                    return val, span
        return None

    def _size_value(self, name: str, rule: dict[str, Any], m: re.Match) -> tuple[bool, Any]:
        unit = rule["size"]
        num, u = m.group(1), m.group(2)
        if unit == "quantity":
            val: Any = _quantity(parse_size(num, u))
            suffix = (m.group(3) or "").lower()
            if "." in num and float(num) >= 1 and suffix.startswith("i"):  # "1.5Ti" stays as written if valid
                ok, literal = self._ok(name, f"{num}{u.upper()}i")
                if ok:
                    return ok, literal
        else:
            if rule.get("decimal_tera") and u.lower() == "t":
                gib = float(num) * 1000
            else:
                gib = parse_size(num, u) / (1024 ** _POW[unit[0].lower()])
            val = int(math.ceil(gib - 1e-9))
        return self._ok(name, val)

    def _size_params(self) -> list[str]:
        """The recipe's parameters that take an amount of bytes (a size rule or a Gi/Mi pattern)."""
        return [p for p, sp in self.recipe.properties.items()
                if any("size" in r for r in self.recipe.extract.get(p) or _DEFAULT_RULES.get(p, []))
                or re.search(r"Gi|Mi|Ti", str(sp.get("pattern", "")))]

    def rule_size(self, name: str, rule: dict[str, Any]):  # noqa: C901
        # the recipe's only size parameter needs no cue word: "32 cores, 256Gi" is its memory
        sole = rule.get("near") and self._size_params() == [name]
        estimate = None  # "the weights are about 150 GB, so a 250 gig cache": an estimate describes; a plain size sets
        first: tuple[Any, tuple[int, int]] | None = None
        of_memory = "memory" in (rule.get("near") or [])
        for m in _SIZE_RE.finditer(self.text):
            beside_cpus = of_memory and bool(m.group(3)) and _BESIDE_CPUS.search(self.text, max(0, m.start() - 30), m.start())
            if not self._free(m.span()) or not (sole or beside_cpus or self._near(m.span(), rule.get("near"))):
                continue
            if estimate is None and _ESTIMATE.search(self.text, max(0, m.start() - 16), m.start()):
                estimate = m
                continue
            if sole and not m.group(3) and not self._near(m.span(), rule.get("near")):
                continue  # without a cue word only a size with its byte suffix ("256Gi", "2TB")
            u, suffix = m.group(2), (m.group(3) or "")
            if not suffix and u.lower() in ("m", "k") and (not rule.get("near") or u == "m"):
                continue  # "4m" is more likely minutes than megabytes, "250m" millicores
            ok, val = self._size_value(name, rule, m)
            if ok:
                if first is not None and self._in_command(first[1]) and not self._in_command(m.span()):
                    first = None  # "docker run ... size=50g" then "the cache as a 300Gi volume": the words say it
                if first is None:
                    first = (val, m.span())
                if _ASKED_SIZE.search(self.text, max(0, m.start() - 24), m.start()):
                    return val, m.span()
        if first is not None:
            # "pods read the 1.5 TB subset. Request 2Ti so there's headroom": the size asked for wins
            # over one that describes the data; else the first
            asked = next((mm for mm in _SIZE_RE.finditer(self.text, first[1][1]) if self._free(mm.span())
                          and _ASKED_SIZE.search(self.text, max(0, mm.start() - 24), mm.start())
                          and (sole or self._near(mm.span(), rule.get("near")))), None)
            if asked is not None and not _ASKED_SIZE.search(self.text, max(0, first[1][0] - 24), first[1][0]):
                ok, val = self._size_value(name, rule, asked)
                if ok:
                    return val, asked.span()
            return first
        described = estimate is not None and _DATA_SIZE_SAID.search(self.text[max(0, estimate.start() - 60):estimate.start()])
        if estimate is not None and not any(mm.span() != estimate.span() and (described or self._free(mm.span()) and (
                sole or self._near(mm.span(), rule.get("near")))) for mm in _SIZE_RE.finditer(self.text)):
            # the only size left by its cues ("the weights are about 25 GB; a 60Gi volume, an 8Gi limit": the
            # others are the volume's and the limit's, the estimate describes the data; "128GB of ram. A
            # cache, ~300Gi": the memory's size is another sentence's, the rough one is the cache's)
            ok, val = self._size_value(name, rule, estimate)
            if ok:
                return val, estimate.span()
        return None

    def _duration_value(self, name: str, m: re.Match) -> tuple[bool, Any]:
        raw = m.group(1).lower()
        if not raw[0].isdigit() and len(m.group(2)) == 1:
            return False, None  # "a m" is no duration: word amounts take spelled-out units
        amount = 0.5 if raw.startswith("half") else 1.0 if raw in ("a", "an", "every", "each") else float(
            raw) if raw[0].isdigit() else float(parse_number(raw) or 0)
        return self._seconds_value(name, int(amount * _DURATION_MULT[m.group(2)[0].lower()]))

    def _seconds_value(self, name: str, secs: int) -> tuple[bool, Any]:
        """A duration in the parameter's form: seconds, or a Go duration ("30m", "48h") for a string."""
        if self.recipe.properties[name].get("type") == "string":
            return self._ok(name, f"{secs // 3600}h" if secs % 3600 == 0 else
                            f"{secs // 60}m" if secs % 60 == 0 else f"{secs}s")
        return self._ok(name, secs)

    def rule_duration(self, name: str, rule: dict[str, Any]):
        for m in _DURATION_RE.finditer(self.text):
            if not self._free(m.span()) or not self._near(m.span(), rule.get("near"), 40):
                continue
            ok, val = self._duration_value(name, m)
            if ok:
                return val, m.span()
        for m in _PERIODIC_RE.finditer(self.text):
            if not self._free(m.span()) or not self._near(m.span(), rule.get("near"), 40):
                continue
            ok, val = self._seconds_value(name, _PERIOD_SECONDS[m.group(1).lower()])
            if ok:
                return val, m.span()
        return None

    def _enum_list(self, name: str, rule: dict[str, Any]):
        """Every value of a list of enum values the request names ("spot + on-demand"), from the
        rule's phrases and the schema's own values, in the order written; a value named after a
        negation ("no spot") is left out."""
        spec = self.recipe.properties[name]
        phrases: dict[str, list[str]] = {str(v): [str(v)] for v in (spec.get("items") or {}).get("enum") or []}
        for value, ps in rule["enum"].items():
            phrases.setdefault(str(value), []).extend(ps)
        found: list[tuple[int, int, str]] = []
        seen: list[list[tuple[int, int, str]]] = []  # every place each value is named
        combos = self._negated_combinations([p for ps in phrases.values() for p in ps])
        for value, ps in phrases.items():
            first = None
            places: list[tuple[int, int, str]] = []
            for m in _compile(_words_alt(ps)).finditer(self.text):
                if self._in_fence(m.span()):
                    continue  # "values: [on-demand]" in a pasted manifest is what runs, not what is asked
                if any(a <= m.start() < b for a, b in combos):
                    continue  # "not spot+on-demand": the pair ruled out, neither value alone
                if re.search(rf"\b{_NEGATION}\s+(?:\w+\s+)?$", self.text[max(0, m.start() - 30):m.start()], re.I) \
                        or self._excepted(m.start()) or self._negated_before(m.start()) is not None:
                    # "must not run on spot": ruled out, as for a single value; and a value ruled out
                    # stays out ("Never on spot - the last spot reclaim cost us a run")
                    first = None
                    break
                if any(m.start() < y and x < m.end() for x, y in self.blocked):
                    continue  # "our current pool runs on-demand ... the new one on spot": today's value yields
                first = first or (m.start(), m.end(), value)
                places.append((m.start(), m.end(), value))
            if first:
                found.append(first)
                seen.append(places[:6])
        if len(found) < 2:
            return None
        # "nodes on demand instead of a static group ... spot and on-demand": the values in the order of the
        # place where they are named closest together
        found = list(min(itertools.product(*seen), key=lambda c: (max(x[0] for x in c) - min(x[0] for x in c),
                                                                   sorted(c))))
        found.sort()
        ok, val = self._ok(name, list(dict.fromkeys(v for _, _, v in found)))
        if ok:
            self.result.covered.extend(combos)
        return (val, (found[0][0], found[0][0])) if ok else None

    def rule_joined(self, name: str, rule: dict[str, Any]):
        """A value the schema writes as two parts joined by a separator ("family@version"),
        given as two words: "bottlerocket (latest)", "al2023 latest", "the bottlerocket v1.30.0 ami"."""
        sep = rule["joined"]
        rx = _compile(r"(?<![\w.@-])([A-Za-z][\w.-]*[\w])\s*(?:\(\s*|\s+(?:version\s+|at\s+|pinned\s+(?:to|at)\s+)?|"
                      r",\s+(?:version\s+|pinned\s+(?:to|at)\s+))"  # "Bottlerocket, pinned to v1.32.0"
                      r"([\w][\w.-]*[\w])\)?(?![\w@-])")
        pos = 0
        while True:
            m = rx.search(self.text, pos)
            if m is None:
                return None
            pos = m.start(2)
            for a, b in ((m.group(1), m.group(2)), (m.group(2), m.group(1))):
                # ("pinned to 1.26.1" for a version the schema writes "v1.26.1")
                for joined in (f"{a}{sep}{b}", f"{a}{sep}v{b}" if b[:1].isdigit() else ""):
                    ok, val = self._ok(name, joined.lower()) if joined else (False, None)
                    if ok and self._free(m.span()):
                        return val, m.span()

    def _schema_enum_rules(self, name: str, own_rules: bool) -> list[dict[str, Any]]:
        """Enum rules from the schema's own values. A code-like value ("DoNotSchedule",
        "kubernetes.io/hostname", "SCRATCH_2") is read anywhere, and a CamelCase one also as
        words ("schedule anyway") when no other parameter of the recipe has that value; a plain
        word ("reserved") only next to the parameter's own noun ("reserved capacity",
        "capacity type: reserved") unless the recipe has no rules of its own for it."""
        spec = self.recipe.properties[name]
        values = spec.get("enum") or (spec.get("items") or {}).get("enum") or []
        values = [v for v in values if isinstance(v, str) and len(v) >= 3]
        if not values:
            return []
        shared: dict[str, int] = {}
        for other in self.recipe.properties.values():
            for v in other.get("enum") or (other.get("items") or {}).get("enum") or []:
                shared[str(v)] = shared.get(str(v), 0) + 1

        def code_like(v: str) -> bool:
            return bool(re.search(r"[\d._/@:-]", v) or re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", v) or
                        (v.isupper() and len(v) >= 3))

        anywhere: dict[str, list[str]] = {}
        gated: dict[str, list[str]] = {}
        for v in values:
            if code_like(v) or not own_rules:
                anywhere[v] = [v]
                words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", v)
                if len(words) >= 2 and shared.get(v, 0) <= 1 and all(w.isalpha() for w in words):
                    anywhere[v].append(" ".join(w.lower() for w in words))
            else:
                gated[v] = [v]
        out: list[dict[str, Any]] = []
        if anywhere:
            out.append({"enum": anywhere})
        if gated:
            nouns = [w for w in name_variants(name) + distinctive_cues(name, list(self.recipe.properties))
                     if not w.endswith("*") and w.lower() not in _STOP]
            out.append({"enum": gated, "near": nouns})
        return out

    def _beside(self, span: tuple[int, int], words: list[str], window: int = 30) -> bool:
        """Is one of ``words`` within ``window`` characters of ``span``, in the same clause?"""
        a, b = span
        for m in _compile(_words_alt(words)).finditer(self.text, max(0, a - window), min(len(self.text), b + window)):
            gap = self.text[m.end():a] if m.end() <= a else self.text[b:m.start()]
            if (m.end() <= a or m.start() >= b) and not re.search(r"[,;.]|\b(?:and|but|or)\b", gap):
                return True
        return False

    def rule_enum(self, name: str, rule: dict[str, Any]):
        spec = self.recipe.properties[name]
        if spec.get("type") == "array" and (spec.get("items") or {}).get("enum") and not rule.get("near"):
            several = self._enum_list(name, rule)
            if several is not None:
                return several
        # "zone-spread": a value may open a compound whose other word describes the parameter
        desc = [w.lower() for w in re.findall(r"[A-Za-z]{4,}", str(spec.get("description", "")))
                if w.lower() not in _STOP]
        compound = rf"(?=-(?:{'|'.join(map(re.escape, desc))})\b)" if desc else None
        best = None
        cands: list[tuple[Any, ...]] = []
        ruled_out: set[Any] = set()
        values = list(rule["enum"])
        combos = self._negated_combinations([p for v, ps in rule["enum"].items() for p in [v, *ps]]) \
            if spec.get("type") == "array" else []
        for value, phrases in rule["enum"].items():
            # the value itself, written out in full ("NVIDIA-L40S"), names it too; "the group" also
            # reads "the whole group"
            phrases = list(phrases) + [re.sub(r"\bthe\s+(?:(?:whole|entire|full)\s+)?", f"the {w} ", ph, count=1)
                                       for ph in phrases
                                       if isinstance(ph, str) and re.search(r"\bthe\s", ph)
                                       for w in ("whole", "entire", "full")]
            for ph in list(phrases) + ([value] if isinstance(value, str) and value not in phrases else []):
                pats = [_phrase_re(ph)]
                words_of = str(ph).split()
                if len(words_of) >= 3 and all(re.fullmatch(r"[a-z]+(?:-[a-z]+)?", w) for w in words_of):
                    # "reclaim quota from lower-priority borrowers" for "reclaim from lower priority": a long
                    # phrase's words in order, a word or two between, in one clause
                    pats.append(r"(?<![\w-])" + r"(?:[\s_-]+[\w-]+){0,2}?[\s_-]+".join(_word_re(w) for w in words_of)
                                + r"(?![\w-])")
                if compound and re.search(r"\w$", ph):
                    pats.append(_phrase_re(ph)[:-len(r"(?![\w-])")] + compound)
                absent = re.fullmatch(r"(?:no|without)\s+(\S.*)", str(ph), re.I)
                if absent:
                    # "no mig" also reads "don't use MIG at all", "we never need mig": the thing itself
                    # ruled out, where it ends the phrase (not "don't use MIG mixed")
                    pats.append(rf"\b{_NEG_BEFORE}\s+(?:(?:want|use|enable|run|need|have|be)\s+)?(?:(?:on|in|with)\s+)?(?:(?:the|any)\s+)?"
                                + _phrase_re(absent.group(1)) + r"(?:\s+(?:instances?|nodes?|capacity|vms?|machines?))?" + _NONE_END)
                for m in (x for p in pats for x in _compile(p).finditer(self.text)):
                    if rule.get("near") and not self._beside(m.span(), rule["near"]):
                        continue
                    if ph == value and isinstance(value, str) and value.lower() in _PLAIN_WORD_VALUES and \
                            m.group(0) != value and value not in phrases:
                        continue  # "jobs from any namespace": the plain word, not the value "Any" written as one
                    if self._in_fence(m.span()):
                        continue  # "accessModes: [ReadWriteMany]" in a pasted manifest is what runs, not what is asked
                    if any(m.start() < y and x < m.end() for x, y in self.blocked):
                        continue  # "today it assumes containerd ... our nodes run cri-o": what runs today yields
                    if any(a <= m.start() < b for a, b in combos):
                        continue  # "spot only, not spot+on-demand": the pair ruled out, neither value alone
                    if any(a <= m.start() < b for a, b in self.consumed):
                        continue  # "... and also across zones, soft": another parameter's phrase
                    if _NOT_NEEDED_AFTER.match(self.text, m.end()):
                        continue  # "mixed strategy isn't needed since all slices are identical"
                    chosen = value
                    if spec.get("type") != "boolean" and self._excepted(m.start()):
                        continue  # "anything except spot", "any zone other than 1a": the value ruled out
                    if spec.get("type") != "boolean" and (self._negated_before(m.start()) is not None or re.search(
                            rf"\b{_NEGATION}\s+$", self.text[max(0, m.start() - 20):m.start()], re.I)):
                        # "we don't want spot at all": a value ruled out is not chosen; of two
                        # values, ruling out an action ("don't recreate the group") chooses the other
                        if len(values) != 2 or not re.match(r"[a-z]+\s", str(ph)) or len(str(ph).split()) < 3:
                            ruled_out.add(value)
                            continue
                        chosen = values[1 - values.index(value)]
                    neg = self._negated_before(m.start()) if chosen != value else None
                    cover = (neg if neg is not None else max(0, m.start() - 20), m.end()) if chosen != value else m.span()
                    cands.append(((-(m.end() - m.start()), m.start()), chosen, m.span(), cover, chosen == value))
        # a value ruled out stays out, before or after this mention: "Never on spot - the last spot
        # reclaim cost us a run" (a value chosen by ruling out its alternative is kept)
        for cand in cands:
            if (not cand[4] or cand[1] not in ruled_out) and (best is None or cand[0] < best[0]):
                best = cand[:4]
        if best and isinstance(best[1], str):
            # "preempt lower priority or newer equal-priority ones": a value whose CamelCase words all
            # stand in the clause, and include the chosen one's, is the one meant
            lo, hi = best[2]
            clause = re.split(r"[;.!?]", self.text[hi:hi + 80])[0]
            near = {w.lower() for w in re.findall(r"[A-Za-z]+", self.text[max(0, lo - 40):hi] + clause)}
            mine = {w.lower() for w in re.findall(r"[A-Z][a-z]+", best[1])}
            for v in list(spec.get("enum") or []) + list(rule["enum"]):
                words = {w.lower() for w in re.findall(r"[A-Z][a-z]+", str(v))}
                if mine and mine < words <= near:
                    best = (best[0], v, best[2], best[3])
        if best:
            negated_cover = best[3]
            raw = best[1]
            spec = self.recipe.properties[name]
            if spec.get("type") == "integer":
                raw = int(raw)
            elif spec.get("type") == "boolean":
                raw = str(raw).lower() in ("true", "yes", "1")
            ok, val = self._ok(name, raw)
            if ok:
                if negated_cover:  # the negation and the action it rules out are understood
                    self.result.covered.append(negated_cover)
                self.result.covered.extend(combos)
                return val, (best[2][0], best[2][0])
        return None

    def _negated_combinations(self, phrases: Any) -> list[tuple[int, int]]:
        """Where a combination of values is ruled out as a whole ("spot only - not spot+on-demand like
        the draft", "not a spot/on-demand mix"): the values in it are neither chosen nor ruled out."""
        words = [str(p) for p in phrases if not re.match(r"(?:no|never|not|without)\s", str(p), re.I)]
        if len(words) < 2:
            return []
        alt = _words_alt(words)
        rx = _compile(rf"\b(?:not|no|never|instead\s+of|rather\s+than)\s+(?:an?\s+|the\s+)?(?:mix(?:ture)?\s+of\s+)?"
                      rf"{alt}\s*(?:\+|/|&|,|\bplus\b|\band\b|\bor\b)\s*{alt}"
                      r"(?:\s+(?:mix(?:ed)?|combo|combination|blend))?")
        return [m.span() for m in rx.finditer(self.text)]

    def _ruled_out(self, at: int) -> bool:
        """Is one of a list's values at ``at`` ruled out by a negation earlier in its clause ("L40S or A10G,
        but not T4", "do NOT let it fall back to A100s")? A bound ("no more than") or an addition ("not only")
        rules nothing out."""
        clause = re.split(r"[.;:!?,\n]|\b(?:but|and|or)\b(?!\s+not\b)", self.text[max(0, at - 50):at])[-1]
        neg = re.search(rf"\b{_NEGATION}\b(?!\s+(?:more|less|fewer|only|just|merely|later|longer)\b)", clause, re.I)
        return neg is not None or self._excepted(at)

    def _excepted(self, at: int) -> bool:
        """Is the phrase at ``at`` ruled out ("anything except spot", "any zone other than 1a")?"""
        return _EXCEPT_BEFORE.search(self.text[max(0, at - 30):at]) is not None

    def _negated_before(self, at: int) -> int | None:
        """Where the negation of the phrase at ``at`` starts ("do not rename it", "never expire"),
        or None: it stands at most two words before the phrase, in the same clause."""
        lo = max(0, at - 40)
        m = re.search(rf"\b{_NEG_BEFORE}\s+(?:[\w'-]+\s+){{0,2}}?$", self.text[lo:at], re.I)
        if m is None:
            lo = max(0, at - 70)
            m = re.search(rf"\b{_NEG_BEFORE}\s+{_MODAL_CHAIN}$", self.text[lo:at], re.I)
        if m is None:  # "no rename", "no preemption": "no" right before the phrase
            lo = max(0, at - 4)
            m = re.search(r"(?<![\w-])no\s+$", self.text[lo:at], re.I)
        return lo + m.start() if m else None

    def _in_history(self, at: int) -> bool:
        """Is ``at`` inside a set-aside account of what went wrong ("Root cause: ...", "What happened:
        ...")? A "Context:" section describes what still holds (the nodes' preinstalled driver)."""
        return any(a <= at < b and _HISTORY_LABEL.match(self.text, a) for a, b in self.blocked)

    def _label_view(self) -> tuple[str, list[int]]:
        """The text with a field label joined to its value ("container toolkit: also pre-installed" reads
        "container toolkit pre-installed"), and where each of its characters stands in the text."""
        if self._labels is None:
            parts, where, pos = [], [], 0
            for m in _LABEL_JOIN.finditer(self.text):
                parts += [self.text[pos:m.start()], " "]
                where += [*range(pos, m.start()), m.start()]
                pos = m.end()
            parts.append(self.text[pos:])
            where += list(range(pos, len(self.text) + 1))
            self._labels = ("".join(parts), where)
        return self._labels

    def _flag_matches(self, rx: re.Pattern[str]) -> Iterator[tuple[int, int, str]]:
        """(start, end, words) of a flag's phrases in the text, then of those that only a field label's
        colon splits ("toolkit: pre-installed")."""
        for m in rx.finditer(self.text):
            yield m.start(), m.end(), m.group(0)
        view, where = self._label_view()
        if len(view) != len(self.text):
            for m in rx.finditer(view):
                a, b = where[m.start()], where[m.end()]
                if self.text[a:b] != m.group(0):
                    yield a, b, m.group(0)

    def rule_flag(self, name: str, rule: dict[str, Any]):
        spec = self.recipe.properties[name]
        for start, end, said in self._flag_matches(_compile(_words_alt(_with_subject_nouns(tuple(rule["flag"]))))):
            if self._in_history(start):
                continue  # said of what went wrong, once that is set aside: "root cause: the preinstalled driver ..."
            value = rule.get("value", True)
            neg = self._negated_before(start)
            if neg is not None and not re.match(_NEGATION, said, re.I):
                if spec.get("type") != "boolean" or not isinstance(value, bool):
                    continue  # "don't scale to zero" selects no value
                value = not value  # "do not rename it"
                self.result.covered.append((neg, end))
            elif (none := re.match(r"\s+(?:nothing|nobody|no\s+one|none)\b", self.text[end:], re.I)) is not None:
                if spec.get("type") != "boolean" or not isinstance(value, bool):
                    continue
                value = not value  # "may preempt nothing": the action on no one is none
                self.result.covered.append((start, end + none.end()))
            # "renameByDefault: false", "renamebydefault off", "ssh = no", "rename resources off"
            stated = re.match(r"(?:\s+(?:resources?|option|setting|flag|feature|plugin|policy|mode))?"
                              r"\s*(?:[:=]\s*|\s(?=(?:true|false|on|off|enabled|disabled)\b))"
                              r"(true|false|yes|no|on|off|enabled|disabled)\b(?![\w-])", self.text[end:], re.I)
            if stated and spec.get("type") == "boolean" and rule.get("value", True) is True and neg is None:
                # "renameByDefault: false": the value written after the flag's own name says which
                value = stated.group(1).lower() in ("true", "yes", "on", "enabled")
                self.result.covered.append((end, end + stated.end()))
            ok, val = self._ok(name, value)
            if ok:
                return val, (start, start)  # phrases select values; they use up no text
        return None

    def rule_regex(self, name: str, rule: dict[str, Any]):
        rx = _compile(rule["regex"])
        # a number may be written as a word ("max eight"): integers read the digits view
        spec = self.recipe.properties[name]
        # ... and so do strings that hold a number ("threshold: '5'": "three waiting requests per replica")
        numeric = spec.get("type") == "integer" or (spec.get("type") == "string"
                                                    and _numeric_string(json.dumps(spec, sort_keys=True)))
        text = self.digits if numeric else self.text
        if text is self.text and ("'" in text or "`" in text):
            # a value in single quotes or backticks reads as one in double quotes (same length)
            text = _QUOTED_TOKEN.sub(lambda q: '"' + q.group(1) + '"', text)
        if rule.get("all"):
            vals, spans = [], []
            picked: set[str] = set()
            for m in rx.finditer(self.text):
                g = m.group(1) if m.groups() else m.group(0)
                if g and rule.get("lower"):
                    g = g.lower()
                if g and self._free(m.span()) and not any(m.start() < y and x < m.end() for x, y in self.blocked):
                    if self._ruled_out(m.start()):
                        self.result.covered.append(m.span())  # "H100 only, never A100s": named, and understood
                        continue
                    if g not in vals:
                        vals.append(g)
                        spans.append(m.span())
                    if self._in_selection(m.span()):
                        picked.add(g)
            if not picked and len(vals) >= 3:
                picked = self._picked_by_part(vals)
            chosen = [i for i, v in enumerate(vals) if v in picked]
            if chosen and len(chosen) < len(vals):
                # "g6e.xlarge 1; g6e.2xlarge 1; ... From that list we only want g6e.xlarge and g6e.12xlarge":
                # the values a sentence picks out are the list, the others what there is to pick from
                vals, spans = [vals[i] for i in chosen], [spans[i] for i in chosen]
            if vals:
                ok, val = self._ok(name, vals)
                if ok:
                    return val, (spans[0][0], spans[-1][1])
            return None
        for m in rx.finditer(text):
            g = m.group(1) if m.groups() else m.group(0)
            span = m.span(1) if m.groups() else m.span()
            # (words another parameter reads may be shared; words set aside, such as what runs today, never)
            if g is None or (not self._free(span) and not rule.get("shared")) or \
                    any(span[0] < y and x < span[1] for x, y in self.blocked):
                continue
            neg = _NEGATED_AFTER.match(self.text, m.end())
            if neg:  # "the pytorch plugin isn't relevant here": ruled out by what follows it, and understood
                self.result.covered.append((m.start(), neg.end()))
                continue
            if "value" in rule:
                # a phrase that selects a value ("reclaim from borrowers only when they are lower priority"):
                # the rule's value, its own words (or its capture) understood; it uses up no text
                ok, val = self._ok(name, rule["value"])
                if ok:
                    self.result.covered.append(m.span(1) if m.groups() else m.span())
                    if rule.get("consume"):
                        self.consumed.append(m.span())
                        self.used.append(m.span())
                    return val, (span[0], span[0])
                continue
            if numeric and spec.get("type") == "string" and \
                    re.match(r"(?:zero|one|a|an|single)\b", self.text[span[0]:span[1] + 6], re.I):
                continue  # "scale to zero", "one replica": no number a string field holds
            if self._inside_code(span):
                continue  # "vllm:x" inside "sum(rate(vllm:x[2m]))" is part of a larger value
            if g[-1:].isdigit() and span[1] < len(text) and text[span[1]].isdigit():
                continue  # "maximum 20 times" read as "2" when a lookahead rejected "20": a cut number is none
            if isinstance(rule.get("key_of"), dict):
                # the capture is the key of a mapping value, its value from the first pattern it matches
                n = next((v for k, v in rule["key_of"].items() if re.search(k, g)), None)
                ok, val = self._ok(name, {g: n}) if n is not None else (False, None)
                if ok:
                    return val, (m.start(), m.start()) if rule.get("shared") else span
                continue
            g = g.rstrip(".,;:) ")
            if rule.get("lower"):
                g = g.lower()
            if spec.get("type") == "string" and not spec.get("enum") and _never_name(self.text, g, span[0]):
                continue  # "scale back down to zero": an adverb, not the object's name
            cover = m.span()  # the rule's own words around the value are understood too
            if rule.get("near") and self._named_for_other(name, span):
                continue  # "expireAfter 36h, consolidateAfter: 10m": 36h is named for the other field
            if rule.get("weak") and self._claimed_by_other(name, span):
                continue  # "wakes up only when more than 2 are waiting": another parameter's own rule reads it
            if rule.get("weak") and self._keyed_for_other(name, span):
                continue  # '"poll_seconds": 30' in a pasted object, ", 30 poll seconds,": its key's parameter's value
            if rule.get("not_after") and _compile(rf"{_words_alt(rule['not_after'])}[^,;.]{{0,25}}$").search(
                    self.text, max(0, span[0] - 40), span[0]):
                continue  # "memory usage above 95%": a percentage of something the parameter does not measure
            if rule.get("near"):
                w = int(rule.get("window", 30))
                near = self._cue_at(rule["near"], max(0, span[0] - w), min(len(self.text), span[1] + w))
                if near is None:
                    continue
                cover = (min(cover[0], near.start()), max(cover[1], near.end()))
            if text is self.digits and text is not self.text:  # the span covers the whole number word ("ten", not "te")
                end = span[1]
                while end < len(self.text) and self.text[end].isalpha() and text[end] == " ":
                    end += 1
                span = (span[0], end)
            ok, val = self._ok(name, g)
            if ok:
                self.result.covered.append(cover)
                return val, span
            self._note_out_of_range(name, g, span)
        return None

    def _in_command(self, span: tuple[int, int]) -> bool:
        """Is ``span`` inside a pasted command line ("docker run --gpus 2 ... --tmpfs /scratch:size=50g")?"""
        if self._commands is None:
            self._commands = []
            for line in self.raw.split("\n"):
                if _PASTED_COMMAND.match(line):
                    at = self.text.find(line.strip()[:60])
                    if at >= 0:
                        self._commands.append((at, at + len(line.strip())))
        return any(a <= span[0] and span[1] <= b for a, b in self._commands)

    def _picked_by_part(self, vals: list[str]) -> set[str]:
        """Values a sentence that picks ("we only want the 12xlarge and the 48xlarge from that list") names by
        the last part of each (after its last dot or hyphen), when that part tells one value from the others."""
        tails: dict[str, list[str]] = {}
        for v in vals:
            tails.setdefault(re.split(r"[.-]", v)[-1].lower(), []).append(v)
        out: set[str] = set()
        for sel in _SELECTION.finditer(self.text):
            starts = [m.end() for m in _PICK_END.finditer(self.text, 0, sel.start())]
            after = _PICK_END.search(self.text, sel.end())
            sentence = self.text[starts[-1] if starts else 0:after.start() if after else len(self.text)]
            for w in re.findall(r"(?<![\w.-])([\w]+)(?![\w.-])", sentence):
                if len(tails.get(w.lower(), [])) == 1 and re.search(r"\d", w):
                    out.add(tails[w.lower()][0])
        return out

    def _in_selection(self, span: tuple[int, int]) -> bool:
        """Is ``span`` in a sentence that picks values out ("we only want ...", "just use ...")?"""
        starts = [m.end() for m in _PICK_END.finditer(self.text, 0, span[0])]
        after = _PICK_END.search(self.text, span[1])
        sentence = self.text[starts[-1] if starts else 0:after.start() if after else len(self.text)]
        return bool(_SELECTION.search(sentence))

    def _claimed_by_other(self, name: str, span: tuple[int, int]) -> bool:
        """Does a recipe rule of another parameter, still open, read its value at ``span``?"""
        mine = {_singular(w) for w in re.findall(r"[a-z]+", str(self.recipe.properties[name].get("description", "")).lower())}
        if self._counted_by_other(name, span, mine):
            return True
        for other, rules in self.recipe.extract.items():
            if other == name or other in self.result.values or other not in self.recipe.properties:
                continue
            view = self.digits if self.recipe.properties[other].get("type") == "integer" or \
                _numeric_string(json.dumps(self.recipe.properties[other], sort_keys=True)) else self.text
            for r in rules:
                if isinstance(r, dict) and "regex" in r and _compile(r["regex"]).groups == 1:
                    for m in _compile(r["regex"]).finditer(view):
                        if m.start(1) < span[1] and span[0] < m.end(1):
                            return True
                # "no more than 20 pods": the amount its counted noun follows is that parameter's, unless
                # this one counts the same noun ("a minimum of 8 pods" for the gang's minimum of pods)
                if isinstance(r, dict) and r.get("count") and (got := _compile(
                        rf"\s*{_words_alt(list(r['count']))}").match(self.text, span[1])) and \
                        _singular(got.group(0).split()[0].lower()) not in mine:
                    return True
        return False

    def _counted_by_other(self, name: str, span: tuple[int, int], mine: set[str]) -> bool:
        """Is the amount at ``span`` one of a noun another parameter counts, whether or not that
        parameter is set already? "defaults to 1 GPU" and "default GPU per container is 0" are GPU
        amounts, not a default CPU; "2 GPUs and 4 cpus" keeps the cpus for a CPU parameter."""
        counted = {w.lower() for rules in self.recipe.extract.values()
                   for r in rules if isinstance(r, dict) and r.get("count") for w in r["count"]}
        own = {_singular(w.split("/")[-1]) for w in counted} & mine  # the nouns this parameter counts itself
        nouns = {w for w in counted if _singular(w.split("/")[-1]) not in mine}
        if not nouns:
            return False
        after = _compile(rf"\s*{_words_alt(sorted(nouns))}").match(self.text, span[1])
        if after:
            return True
        start = max(0, span[0] - 40)
        clause = re.split(r"[.;,:\n(]|\s[-\u2013\u2014]\s|\b(?:and|but|or)\b", self.text[start:span[0]])[-1]
        words = {_singular(w.split("/")[-1]) for w in re.findall(r"[\w./-]+", clause.lower())[-6:]}
        return bool(words & {_singular(n.split("/")[-1]) for n in nouns}) and not (words & own)

    def _named_for_other(self, name: str, span: tuple[int, int]) -> bool:
        """Does another parameter's own name stand right before ``span`` ("expireAfter 36h")?"""
        others = [v for o in self.recipe.properties if o != name for v in name_variants(o) if len(v) >= 4]
        others += [f for o, fs in manifest_fields(self.recipe).items() if o != name for f in fs]
        return bool(others) and bool(_compile(rf"(?<![\w-]){_words_alt(sorted(set(others)))}\s*[:=]?\s*$").search(
            self.text, max(0, span[0] - 60), span[0]))

    def _note_out_of_range(self, name: str, value: Any, span: tuple[int, int]) -> None:
        """Remember an integer read right at its cue that only the schema's bounds reject."""
        spec = self.recipe.properties[name]
        n = self._coerce(spec, value) if spec.get("type") == "integer" else None
        if not isinstance(n, int) or name in self.result.out_of_range or not self._free(span):
            return
        loose = {k: v for k, v in spec.items() if k not in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")}
        if not _prop_validator(json.dumps(loose, sort_keys=True)).is_valid(n):
            return
        err = next(iter(_prop_validator(json.dumps(spec, sort_keys=True)).iter_errors(n)), None)
        self.result.out_of_range[name] = (n, span, err.message if err is not None else "out of range")

    def rule_list(self, name: str, rule: dict[str, Any]):
        """A list after one of its cue words ("prefer a, b and c"), or right before a cue that
        closes the clause ("matching .*a10g-spot.* and .*l4-spot.* first"). An item may be a
        regular expression (".*gpu-spot.*") when the schema takes one."""
        words = _words_alt(rule["list"])
        # an item may be quoted or in code marks ("prefer `.*p4d-spot.*`")
        # (a word before a colon labels what follows, "2nd: x", and is no item)
        item = r"[`'\"]?(?:[.*^]*[A-Za-z0-9][\w./:@+*^$-]*[\w*$]|[A-Za-z0-9])[`'\"]?(?![\w*$-]*[ \t]*:(?:\s|$))"
        items = rf"((?:{item})(?:\s*(?:,|\band\b|\bor\b|&)\s*(?:{item}))*)"
        # "prefer node groups a and b": the list's own noun (the last part of its name) may come first
        noun = re.escape(_singular(name.split("_")[-1]))
        pat = rf"{words}\s*[:=]?\s*(?:(?:the|a|an|our|my)\s+)?(?:(?:[a-z]+\s+)?{noun}(?:s|es)?\s*[:=]?\s+)?{items}"
        # "a and b groups come first and c is the fallback": a verb may stand between the list and its cue
        # ("`x-.*` as the fallback", "the reserved groups (^ri-.*) first": "as the" and brackets too)
        before = (rf"(?<![\w.*^$-])\(?{items}\)?(?:\s+{noun}(?:s|es)?)?\s+(?:(?:should|must|will|can)\s+)?"
                  rf"(?:(?:come|comes|go|goes|get|gets|be|is|are)\s+(?:tried\s+|used\s+|picked\s+)?(?:the\s+)?|"
                  rf"as\s+(?:the|a|an|our)\s+)?"
                  rf"{words}(?=\s*(?:$|[,;.)]|\(\s*[`'\"]?[.*^]|\band\b|\bthen\b))")  # "... first (.*spot.*)"
        others = self._cue_words(name)
        for m in (x for p in (pat, before) for x in _compile(p).finditer(self.text)):
            parts = [p.strip("`'\"") for p in re.split(r"\s*(?:,|\band\b|\bor\b|&)\s*", m.group(1)) if p.strip("`'\"")]
            if m.re.pattern == before:
                # "a first, b second": the items closing with this cue follow the last word of another's
                cut = [i for i, w in enumerate(parts) if _singular(w.lower()) in others or w.lower() in _STOP]
                if cut and cut[-1] == len(parts) - 1:
                    continue
                parts = parts[cut[-1] + 1:] if cut else parts
            closes = _compile(rf"\s+{words}(?=\s*(?:$|[,;.]))").match(self.text, m.end(1))
            # "a and b, and after them c": the list ended at its own "and", no item opens the next clause
            trailing_sep = re.search(r"(?:^|[\s,])(?:and|or)$", m.group(1).strip(), re.I)
            if m.re.pattern == pat and len(parts) > 1 and re.match(r"\s+[a-z]", self.text[m.end(1):], re.I) \
                    and not closes and not trailing_sep and not re.search(r"[*^$]", parts[-1]) \
                    and not re.match(rf"\s+{noun}(?:s|es)?\b", self.text[m.end(1):], re.I):
                parts = parts[:-1]  # ", CA runs in ...": the last word opens the next clause
            # "before anything else": a pronoun is no item ("prefer anything matching x-.*" reads the pattern)
            if m.re.pattern == pat:
                # "first .*p5-spot.*, second .*p5-od.*": the list ends where another list's cue begins
                oc = self._other_list_cues(name)
                parts = next((parts[:i] for i, p in enumerate(parts) if oc.fullmatch(p)), parts)
            raw_parts = parts
            parts = [p for p in parts if p.lower() not in _STOP and p.lower() not in _PRONOUN_ITEMS]
            spec = self.recipe.properties[name]
            items_spec = spec.get("items", {}) if spec.get("type") == "array" else spec
            iv = _prop_validator(json.dumps(items_spec, sort_keys=True))
            regexy = "*" in str(items_spec.get("pattern", ""))
            good = []
            for p in parts:
                if iv.is_valid(p):
                    good.append(p)
                elif iv.is_valid(p.lower()):
                    good.append(p.lower())
                else:
                    break
            marked = bool(good) and all(re.search(rf"[`'\"]{re.escape(g)}[`'\"]", m.group(1)) for g in good)
            if (good or len(parts) < len(raw_parts)) and regexy and not marked \
                    and not any(re.search(r"[*^$+]", g) for g in good) \
                    and _REGEX_TOKEN.search(clause := (self._regex_clause(name, m, after_only=not good))):
                # "the p4d groups (regex .*p4d.*) get tried first", "prefer groups matching x-.*": where
                # the schema takes regular expressions, those the clause holds are the items, not a
                # plain word next to the cue
                good = [x for t in _REGEX_TOKEN.finditer(clause) if iv.is_valid(x := t.group(0).strip("`'\""))]
            if good and regexy and not any(re.search(r"[*^$+]", g) for g in good) and \
                    all(re.fullmatch(r"[A-Za-z]+", g) for g in good) and \
                    _REGEX_TOKEN.search(self.text, m.end()):
                continue  # "$410k over plan ... fall back to `.*p4d-od.*`": a plain word where patterns follow
            if spec.get("type") == "array":
                good = self._pasted_named(m, good)
            if good and self._free(m.span(1)):
                ok, val = self._ok(name, good if spec.get("type") == "array" else good[0])
                if ok:
                    if m.re.pattern == before:
                        self.result.covered.append((m.end(1), m.end()))  # "... groups come first"
                    for g in good:  # the items, where they stand in the clause ("pool first (.*spot.*)")
                        at = self.text.find(g, max(0, m.start() - 160), m.end() + 160)
                        if at >= 0:
                            self.result.covered.append((at, at + len(g)))
                    return val, m.span(1)
        return None

    def _pasted_named(self, m: re.Match[str], good: list[str]) -> list[str]:
        """Items described by their parts where the request pasted the names to pick from ("[
        "ng-p4d-spot-1", "ng-p4d-ondemand" ] ... prefer the spot p4d group, then the on-demand one"):
        the pasted names that hold every described part; the items as written when none does."""
        pasted = [x for block in _JSON_LIST.findall(self.raw) for x in re.findall(r"\"([A-Za-z0-9][\w.-]*)\"", block)]
        if len(pasted) < 2 or any(x in pasted for x in good) or not self._free(m.span(1)):
            return good
        end = _compile(r"[,;!?]|\.(?:\s|$)").search(self.text, m.end(1))
        clause = self.text[m.start(1):end.start() if end else len(self.text)].lower()
        parts = [t for t in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", clause)
                 if t not in _STOP and t not in _PASTED_PICK_STOP and parse_number(t) is None]
        if not parts:
            return good

        def holds(pasted_name: str, part: str) -> bool:
            pieces = set(re.split(r"[-_.]", pasted_name.lower()))
            forms = _PICK_SYNONYMS.get(part, {part})
            return bool(forms & pieces) or any(f in pasted_name.lower() for f in forms if len(f) >= 3)

        picked = [x for x in pasted if all(holds(x, p) for p in parts)]
        if picked:  # the description is understood
            self.result.covered.append((m.start(1), end.start() if end else len(self.text)))
        return picked or good

    def _regex_clause(self, name: str, m: re.Match[str], after_only: bool = False) -> str:
        """The clause around a list's cue where its regular expressions are written: after the cue
        when any are there, else before it, and never past another list's cue. After a pronoun ("prefer
        anything matching x-.*", "before anything else") only what follows the cue."""
        others = self._other_list_cues(name)
        after = others.split(re.split(r"[,;!?]|\.\s|\.$", self.text[m.start(1):m.start(1) + 160])[0])[0]
        if _REGEX_TOKEN.search(after) or after_only:
            return after
        return others.split(re.split(r"[;!?]|\.\s", self.text[max(0, m.start() - 120):m.start(1)])[-1])[-1] + after

    def _other_list_cues(self, name: str) -> re.Pattern[str]:
        """The cue words of the recipe's other lists: "prefer a (regex x) and then fall back to y"
        ends the preferred clause where the fallback's cue begins."""
        words = [w for other, rules in self.recipe.extract.items() if other != name
                 for r in rules if isinstance(r, dict) and "list" in r for w in r["list"]]
        return _compile(rf"(?<![\w-]){_words_alt(sorted(set(words)))}(?![\w-])" if words else r"(?!)")

    def rule_boolean(self, name: str, rule: dict[str, Any]):
        """A boolean from plain words: "no X", "without X", "X: false" -> False; "with X", "X=true" -> True."""
        # "nodes not tainted", "must not be reclaimable", "should not have the gpu toleration"
        words = _words_alt(list(rule["boolean"]) + [w + ("d" if w.endswith("e") else "ed") for w in rule["boolean"]
                                                    if re.fullmatch(r"[a-z]{4,}", str(w))])
        # "driver: enabled: false" names driver_enabled by its key path, even where "driver" alone is
        # shared with other parameters (driver_version)
        keyed = _words_alt(name_variants(name[:-len("_enabled")])) if name.endswith("_enabled") else words
        keyed = rf"(?:{keyed}|{words})"
        for value, pat in ((False, rf"{keyed}\s*:\s*enabled\s*[:=]\s*(?:false|no|off)\b|"  # "driver: enabled: false"
                                   rf"\b(?:{_NEGATION}|isn'?t|aren'?t)\s+(?:be\s+|being\s+|get\s+|have\s+|has\s+|"
                                   rf"need\s+|carry\s+|include\s+|add\s+)?(?:the\s+|a\s+|an\s+|any\s+)?{words}|{words}\s*(?:[:=]\s*|\s+)(?:false|no|off|disabled?)\b"
                                   rf"|{words}\s+[a-z]+\s+(?:off|disabled)\b|{words}\s+{_STAYS}(?:off|disabled)\b"),
                           (True, rf"{keyed}\s*:\s*enabled\s*[:=]\s*(?:true|yes|on)\b|"
                                  rf"\b{_AFFIRM}\s+(?:the\s+|a\s+)?{words}|{words}\s*(?:[:=]\s*|\s+)(?:true|yes|on{_NOT_A_PLACE}|enabled?)\b(?!\s*[:=])"
                   rf"|\b{_MODAL}{words}|{words}\s+{_STAYS}(?:on|enabled)\b")):
            for m in _compile(pat).finditer(self.text):
                if re.match(r"\s*[:=]", self.text[m.end():]) and re.match(r"(?:false|off|true|on)\s", m.group(0), re.I):
                    continue  # "enabled: false toolkit: enabled: true": a pasted key's value, then the next key
                if self._free(m.span()):
                    neg = self._negated_before(m.start()) if value else None
                    # "nobody should be able to reclaim it", "no other queue may reclaim": said of no one
                    ok, val = self._ok(name, value if neg is None else False)
                    if ok:
                        return val, (m.span() if neg is None else (neg, m.end()))
                break
        return None

    def rule_stated(self, name: str, rule: dict[str, Any]):
        """A state named next to the parameter's object (see :func:`_stated_rule`); other objects
        in the same state may be listed with it ("driver and toolkit are pre-installed")."""
        st = rule["stated"]
        noun = _words_alt(st["nouns"])
        state = _words_alt(st["states"])
        family: set[str] = set(st["nouns"])
        for other, spec in self.recipe.properties.items():
            if other != name and spec.get("type") == "boolean":
                r = _stated_rule(other, spec, list(self.recipe.properties))
                if r:
                    family.update(r["stated"]["nouns"])
        fam = _words_alt(sorted(family))
        # "driver and (the) container toolkit (both) are already there": a listed object may have
        # one modifier word, and the list a quantifier before its verb
        joined = rf"(?:\s*(?:,|and|or|&|\+)\s*(?:the\s+)?(?:[a-z][\w-]*\s+)?{fam})*"
        pats = [
            rf"{noun}{joined}(?:\s+{_ON_THE_NODES})?\s+(?:(?:both|all|each|also)\s+)?(?:(?:is|are|was|were|comes?|come)\s+)?"
            rf"(?:already\s+)?{state}",
            rf"{state}\s+(?:{_NOT_BETWEEN}[a-z]+\s+){{0,2}}?(?:{fam}\s*(?:,|and|or|&)\s*(?:the\s+)?)*{noun}",
        ]
        for p in pats:
            m = next((x for x in _compile(p).finditer(self.text) if not self._in_history(x.start())), None)
            if m:
                ok, val = self._ok(name, st["value"])
                if ok:
                    self.result.covered.append(m.span())
                    return val, (m.start(), m.start())  # a state may be shared by several objects
        # "leave the driver alone, it's preinstalled": a pronoun in that state refers back to the
        # nearest object named before it
        for m in _compile(rf"\b(?:it|they)(?:'s|'re|\s+(?:is|are|was|were|comes?|come))\s+(?:already\s+)?{state}").finditer(self.text):
            ante = self._antecedent(m.start(), sorted(family, key=len, reverse=True))
            if ante is not None and re.fullmatch(noun, ante, re.I):
                ok, val = self._ok(name, st["value"])
                if ok:
                    self.result.covered.append(m.span())
                    return val, (m.start(), m.start())
        return None

    def _bool_family(self) -> list[str]:
        out: set[str] = set()
        for other, spec in self.recipe.properties.items():
            if spec.get("type") == "boolean":
                out.update(_bool_nouns(other, spec, list(self.recipe.properties)))
        return sorted(out, key=len, reverse=True)

    def _antecedent(self, at: int, family: list[str]) -> str | None:
        """The boolean object a pronoun at ``at`` refers back to: the nearest one named before it."""
        best = None
        for m in _compile(_words_alt(family)).finditer(self.text, 0, at):
            # "allowed to preempt ... add them": a word used as a verb names no object to refer back to
            if re.search(r"\b(?:to|can|may|will|must|should|could|might|would|not)\s+$", self.text[max(0, m.start() - 12):m.start()], re.I):
                continue
            best = m.group(0)
        return best

    def rule_guarded(self, name: str, rule: dict[str, Any]):
        words = list(rule["guarded"])
        action = r"\s+".join(_word_re(w) for w in words)
        for verb, alts in _ACTION_VERBS.items():
            n = len(verb.split())
            if " ".join(words[:n]) == verb:
                rest = r"\s+".join(_word_re(w) for w in words[n:])
                action = "(?:" + "|".join(r"\s+".join(map(re.escape, a.split())) for a in alts) + r")\s+" + rest
        for verbs, value in ((_FORBID, True), (_PERMIT, False)):
            m = _compile(rf"\b{verbs}\s+(?:[\w-]+\s+){{0,3}}?(?:to\s+)?{action}\b").search(self.text)
            if m and self._free(m.span()):
                ok, val = self._ok(name, value)
                if ok:
                    self.result.covered.append(m.span())
                    return val, m.span()
        return None

    def rule_parts(self, name: str, rule: dict[str, Any]):
        """Both parts of a two-part parameter name in order around its value, a word or two
        apart: "default container cpu 250m" or "default to 500m cpu" for default_cpu."""
        a, b = (_words_alt([p] + _ABBREVIATIONS.get(p, [])) for p in rule["parts"])
        # a kind's noun ("mig config cm = x") is no value: it names what the value is
        kinds = _words_alt(sorted(self._kind_words()))
        # ... and nor is a field's word before it ("gpu product label NVIDIA-A10G")
        tok = (rf"(?:{kinds}\s*[:=]?\s*)?(?:(?:label|value|key|id)\s*[:=]?\s+(?=[\"'`]?[A-Za-z0-9]))?"
               rf"[\"'`]?(?!{kinds}){_TOKEN_BODY}[\"'`]?")
        if self.recipe.properties[name].get("type") == "integer":
            # "its priority class at 5000", "prod at 1000000" for priority_value, production_value:
            # the object the number belongs to, then the number after "at", "=" or ":"
            rx = _compile(rf"\b{a}\s+(?:[\w-]+\s+){{0,2}}?(?:at|=|:|set\s+to)\s*(-?\d+)(?![\w.%])|"
                          rf"\b{a}\s*[:=]?\s+(-?\d+)(?![\w.%])")  # "prod 500000"
            if rule["parts"][0].lower() in _BOUND_KEY_WORDS:
                # a bound before another thing counted names nothing this bounds ("max 30 epochs" is no max_skew);
                # "max 5 nodes" bounds a count of machines or workers, what the recipe counts in other words
                counted = sorted(_COUNTED_THINGS)
                rx = _compile(rf"\b{a}\s*[:=]?\s+(-?\d+)(?![\w.%])(?!\s+(?!(?:{'|'.join(counted)})s?\b)[a-z]+s\b)()")
            for m in rx.finditer(self.digits):
                g = 1 if m.group(1) is not None else 2
                span = self._whole_word(m.span(g))
                if self._free(span):
                    ok, val = self._ok(name, m.group(g))
                    if ok:
                        return val, span
        for p in (rf"\b{a}\s+(?:[\w-]+\s+){{0,2}}?{b}\s*(?:[:=]\s*|(?:of|to|at|is)\s+)?{tok}",
                  # "nodes use the IAM role KarpenterNodeRole-ml": an identifier right after the second part
                  # is the value, not the word that qualifies it
                  rf"\b{a}\s+(?:[\w-]+\s+){{0,3}}?{b}\s+[\"'`]?(?=[\w.-]*?(?:[0-9_-]|[a-z][A-Z]))([A-Za-z0-9][\w./:@+-]*[\w])",
                  rf"\b{a}\s+(?:[\w-]+\s+){{0,2}}?{tok}\s+{b}(?![\w-])",
                  # "default to 500m cpu and 1Gi memory": the first part reaches over a list of value-noun pairs
                  rf"\b{a}\s+(?:[\w-]+\s+){{0,2}}?(?:\d[\w.]*\s+[a-z]+\s*(?:,|and)\s+){{1,3}}{tok}\s+{b}(?![\w-])") + (
                # "the scheduler is called x and runs in kube-system": where the object lives
                (rf"\b{a}\b[^.;]{{0,40}}?\b(?:runs?|running|lives?|living|sits?|is|are|deployed|installed)"
                 rf"(?:\s+(?:standalone|already|deployed|installed|running|separately))?\s+in\s+"
                 rf"(?:the\s+)?(?:{b}\s+|ns\s+)?{tok}",
                 # "dcgm-exporter (standalone) in namespace dcgm": the object, then its namespace
                 rf"(?<![\w.])(?:[\w.]+-)?(?:{'|'.join(map(re.escape, [rule['parts'][0]] + _ABBREVIATIONS.get(rule['parts'][0], [])))})"
                 rf"(?:s|es)?(?![\w-])(?:\s+[a-z]+){{0,2}}\s+in\s+(?:the\s+)?(?:{b}|ns)\s*[:=]?\s*{tok}")
                if rule["parts"][1] == "namespace" else ()):
            hit = self._first_valid(name, p)
            if hit is not None:
                return hit
        return None

    def rule_acted(self, name: str, rule: dict[str, Any]):
        """A boolean from what the request does with its object: "keep the toolkit" and "the
        operator handles the driver" are true; "skip installing the driver", "leave out the
        toolkit", "don't deploy it" (a pronoun refers back to the nearest object named) and
        "the driver is not needed" are false. Other objects may share the verb ("skip the
        driver and the toolkit")."""
        nouns = rule["acted"]
        if not nouns:
            return None
        family = self._bool_family()
        noun = _words_alt(nouns)
        fam = _words_alt(family)
        # (a word's dots are inside it, "nvidia.com": "the driver. Toolkit" is two sentences)
        obj = (rf"(?:(?:the|a|an|any|its|our|their|that)\s+)?(?:(?!(?:and|or|but|so|then)\b)[\w-]+(?:\.[\w-]+)*\s+){{0,2}}?"
               rf"(?:{fam}\s*(?:,|and|or|&)\s*(?:the\s+)?(?:(?!(?:and|or|but|so|then)\b)[\w-]+\s+)?)*"
               rf"(?P<obj>{noun}|{_PRONOUN})(?![\w-])")
        pats = [
            (False, rf"\b{_NEG_BEFORE}\s+(?:(?!(?:and|or|but|so)\b)[\w'-]+\s+){{0,3}}?(?<![\w-]){_KEEP}\s+{obj}"),
            (False, rf"(?<![\w-]){_DROP}\s+(?:{_KEEP}\s+)?{obj}"),
            # "no need for the exporter", "no need the toolkit": a thing not needed
            (False, rf"\bno\s+need(?:\s+(?:for|of))?\s+{obj}"),
            (False, rf"\b(?:leave|leaves|leaving|left)\s+{obj}\s+(?:alone|be|untouched|as\s+it\s+is)\b"),
            (False, rf"(?<![\w-])(?P<obj2>{noun})\s+(?:is|are)\s+(?:not\s+(?:needed|required|wanted|necessary)|unnecessary|unneeded)"),
            (True, rf"(?<![\w-]){_KEEP}\s+{obj}"),
            (True, rf"(?<![\w-])(?P<obj2>{noun})\s+(?:(?:is|are)\s+)?(?:still\s+)?{_KEEP}\s+by\b"),
        ]
        for value, p in pats:
            for m in _compile(p).finditer(self.text):
                what = m.group("obj") if "obj" in m.groupdict() and m.group("obj") else None
                if value and self._negated_before(m.start()) is not None:
                    continue
                if value and re.search(r"\b(?:our|my|their|your)\s+own\b", m.group(0), re.I):
                    continue  # "we ship our own exporter": the user's own one, not the operator's
                if value and _HOST_SUBJECT.search(self.text, max(0, m.start() - 40), m.start()):
                    # "the AMI already ships the driver", "AKS installs the driver itself": the host has it,
                    # which is the state the parameter's description names ("false when pre-installed")
                    st = _stated_rule(name, self.recipe.properties[name], list(self.recipe.properties))
                    if st is None:
                        continue
                    ok, val = self._ok(name, st["stated"]["value"])
                    if ok:
                        return val, m.span()
                    continue
                if what is not None and re.fullmatch(_PRONOUN, what, re.I):
                    ante = self._antecedent(m.start("obj"), family)
                    if ante is None or not re.fullmatch(noun, ante, re.I):
                        continue
                # "driver managed by operator: off", a form's setting: the value written after it says which
                off = re.match(r"[ \t]*(?:(?:the\s+)?[\w-]+[ \t]*)?(?:[:=][ \t]*|[ \t])(?:off|false|no|disabled)\b(?![\w-])",
                               self.text[m.end():], re.I) if value else None
                ok, val = self._ok(name, value and off is None)
                if ok:
                    return val, m.span()  # not checked for being free: a verb may act on several objects
        return None

    def rule_none(self, name: str, rule: dict[str, Any]):
        """Nothing of a counted thing: "never retry", "no retries per index", "no fallback groups"
        give 0 (or an empty list) when the schema allows it."""
        spec = self.recipe.properties[name]
        empty: Any = [] if spec.get("type") == "array" else 0
        for m in _compile(_NONE_OF + _words_alt(rule["none"]) + _NONE_END).finditer(self.text):
            between = m.group(0).split()[1:-1]
            if between and between[0].lower() in self._value_words():
                continue  # "no ssh plugin": one thing of that kind ruled out, not all of them
            if self._free(m.span()):
                ok, val = self._ok(name, empty)
                if ok:
                    return val, m.span()
        return None

    def _kind_words(self) -> set[str]:
        """The nouns of the kinds the recipe renders ("configmap", "cm", "pvc", "claim")."""
        got = _KIND_WORDS_CACHE.get(id(self.recipe.templates))
        if got is None or got[0] is not self.recipe.templates:
            words = {ph for k in list(self.recipe.kinds) + list(_COMMON_KINDS) for ph in kind_phrases(k) if " " not in ph}
            got = (self.recipe.templates, words)
            _KIND_WORDS_CACHE[id(self.recipe.templates)] = got
        return got[1]

    @property
    def _two_word_kind(self) -> re.Pattern[str]:
        """The kind names of two words ("config map", "priority class"), as they end a text."""
        phrases = sorted({ph for k in list(self.recipe.kinds) + list(_COMMON_KINDS) for ph in kind_phrases(k) if " " in ph})
        return _compile(rf"(?<![\w-]){_words_alt(phrases)}$") if phrases else _compile(r"(?!)")

    def _value_words(self) -> set[str]:
        """Words that name one thing of a recipe: its one-word parameter names ("ssh") and
        every enum value."""
        got = _VALUE_WORDS_CACHE.get(id(self.recipe.properties))
        if got is None or got[0] is not self.recipe.properties:
            words: set[str] = set()
            for n, spec in self.recipe.properties.items():
                if "_" not in n:
                    words.add(n.lower())
                for sp in (spec, spec.get("items") or {}):
                    words.update(str(v).lower() for v in sp.get("enum") or [])
            got = (self.recipe.properties, words)
            _VALUE_WORDS_CACHE[id(self.recipe.properties)] = got
        return got[1]

    # words a CamelCase enum value's words are also said with ("restart the job if a worker fails")
    _ENUM_WORDS = {"pod": ["pod", "worker", "replica", "container", "member"], "fail": ["fail", "die", "dies", "died",
                                                                                        "crash"]}

    def _enum_mentions(self, values: list[str], lo: int, hi: int) -> list[tuple[str, int, int, list[tuple[int, int]]]]:
        """Where each CamelCase enum value is said between ``lo`` and ``hi`` in words of its own,
        in any order and any form ("PodFailed": "a pod fails", "RestartTask": "restart just that
        task"): (value, start, end, word spans), the most compact occurrence of each."""
        out = []
        for v in values:
            literal = _compile(rf"(?<![\w-]){re.escape(v)}(?![\w-])").search(self.text, lo, hi)
            if literal:  # "on PodFailed just abort it (AbortJob)": the value as the API spells it
                out.append((v, literal.start(), literal.end(), [literal.span()]))
                continue
            words = [w.lower() for w in re.findall(r"[A-Z][a-z]+|[a-z]+", v) if len(w) >= 3]
            if len(words) < 2:
                continue
            found = []
            for w in words:
                stem = re.sub(r"(?:ed|es|s|ing)$", "", w) if len(w) > 4 else w
                alts = self._ENUM_WORDS.get(stem, [stem])
                rx = _compile(r"(?<![\w-])(?:" + "|".join(re.escape(a) for a in alts) + r")\w*")
                found.append([x.span() for x in rx.finditer(self.text, lo, hi)])
            if not all(found):
                continue
            best = min(itertools.product(*found), key=lambda c: max(b for _, b in c) - min(a for a, _ in c))
            if len({a for a, _ in best}) == len(best):
                out.append((v, min(a for a, _ in best), max(b for _, b in best), list(best)))
        return out

    def rule_enum_pairs(self, name: str, rule: dict[str, Any]):
        """Items of two enum fields said together, clause by clause: a condition and what to do
        ("when a pod fails restart just that task, and abort the job if a pod gets evicted").
        A clause naming one value of each field is an item; one with a condition alone carries it
        to the next ("if a pod is evicted, restart the job"). Of several readings of a clause
        the one whose values' words stand closest together is taken, no word serving two. The items
        said are the whole list: the schema's default items for other conditions are not added."""
        spec = self.recipe.properties[name]
        iprops = spec["items"]["properties"]
        fa, fb = rule["enum_pairs"]
        text = mask_negated_asides(self.text)
        items: list[dict[str, Any]] = []
        spans: list[tuple[int, int]] = []
        # the values themselves, written as a mapping: "PodEvicted -> RestartJob", "PodFailed: AbortJob"
        va, vb = (_words_alt(list(iprops[f]["enum"])) for f in (fa, fb))
        for m in _compile(rf"({va})\s*(?:->|=>|\u2192|:|=)\s*({vb})").finditer(text):
            a = next(v for v in iprops[fa]["enum"] if v.lower() == m.group(1).lower())
            b = next(v for v in iprops[fb]["enum"] if v.lower() == m.group(2).lower())
            items.append({fa: a, fb: b})
            spans.append(m.span())
        pending = None
        for c in _compile(r"[^,;.]+?(?=\s*(?:[,;.]|\band\b|\bbut\b|$))").finditer(text) if not items else ():
            lo, hi = c.span()
            if not re.search(r"\b(?:when|whenever|if|once|on|after|upon)\b", text[lo:hi], re.I) and pending is None:
                continue
            ma = [x for x in self._enum_mentions(iprops[fa]["enum"], lo, hi) if text[x[1]:x[2]].strip()]
            mb = [x for x in self._enum_mentions(iprops[fb]["enum"], lo, hi) if text[x[1]:x[2]].strip()]
            ma = [x for x in ma if all(text[a:b] == self.text[a:b] for a, b in x[3])]
            mb = [x for x in mb if all(text[a:b] == self.text[a:b] for a, b in x[3])]
            pairs = [(x, y) for x in ma for y in mb if not set(x[3]) & set(y[3])]
            if pairs:
                x, y = min(pairs, key=lambda p: (p[0][2] - p[0][1]) + (p[1][2] - p[1][1]))
                items.append({fa: x[0], fb: y[0]})
                spans.append((lo, hi))
                pending = None
            elif ma and not mb and re.search(r"\b(?:when|whenever|if|once|on|after|upon)\b", text[lo:hi], re.I):
                pending = min(ma, key=lambda x: x[2] - x[1])
            elif mb and pending is not None:
                items.append({fa: pending[0], fb: min(mb, key=lambda y: y[2] - y[1])[0]})
                spans.append((pending[1], hi))
                pending = None
        if not items:
            return None
        # the items said are the list ("if a pod is evicted restart the job; if one fails abort it": two
        # policies, none of the default's kept); "..., nothing else" says so too
        only = re.search(r"\b(?:nothing\s+else|no\s+other\w*|only\s+(?:these|those|this|that)|just\s+(?:these|those))\b",
                         self.text, re.I)
        if only:
            self.result.covered.append(only.span())
        ok, val = self._ok(name, items)
        if ok:
            self.result.covered.extend(spans)
            return val, (spans[0][0], spans[0][0])  # a clause may name other values too
        return None

    def rule_pairs(self, name: str, rule: dict[str, Any]):
        """A regex with two groups, (count, key) or (key, count), collected into a mapping. All of the
        parameter's ``pairs`` rules read together, in the order of the request: one pair may be said
        ".*a-spot.* (priority 100)" and the next ".*a-od.* at 50"."""
        rxs = [_compile(r["pairs"]) for r in self.recipe.extract.get(name) or [] if "pairs" in r] or [_compile(rule["pairs"])]
        matches: list[re.Match[str]] = []
        for rx in rxs:  # (where two rules read the same words, the earlier rule's reading stands)
            matches += [m for m in rx.finditer(self.text)
                        if all(m.end() <= o.start() or m.start() >= o.end() for o in matches)]
        matches.sort(key=lambda m: m.start())
        out: dict[str, int] = {}
        spans: list[tuple[int, int]] = []
        # (words another parameter read that this one replaces are this one's to read again)
        replaced = [self.result.spans[p] for p in self.recipe.properties[name].get("x-replaces") or []
                    if p in self.result.spans]
        for m in matches:
            if len(m.groups()) < 2 or not self._free(m.span(), replaced):
                continue
            a, b = m.group(1), m.group(2)
            na, nb = _count_of(a), _count_of(b)
            if not a and b and rule.get("count_default") is not None:  # "4g.40gb + 3g.40gb": once each
                na = int(rule["count_default"])
            if na is not None and nb is None:
                key, n = b, na
            elif nb is not None and na is None:
                key, n = a, nb
            else:
                continue
            key = key.lower()
            if spans and _BACK_THEN.search(self.text, spans[-1][1], m.start()):
                out = {}  # "three 2g.20gb and a 1g.10gb... no, keep it simple: three 2g.20gb": said again
            out[key] = out.get(key, 0) + n
            spans.append(m.span())
        if out:
            ok, val = self._ok(name, out)
            if ok:
                return val, (spans[0][0], spans[-1][1])
        return None

    def rule_tiers(self, name: str, rule: dict[str, Any]):
        """Ordered tiers of keys (:func:`ordered_tiers`): a mapping parameter takes each key's number
        when every tier has one; list parameters (``rule["tiers"]["lists"]``, first and rest) take the
        tiers the words put in order without numbers ("first X, then Y, and Z as last resort")."""
        spec = rule["tiers"]
        if spec["keys"] not in self._tiers:  # (the list and mapping parameters share one reading)
            self._tiers[spec["keys"]] = ordered_tiers(self.text, self.digits, _compile(spec["keys"]))
        tiers = self._tiers[spec["keys"]]
        if not tiers:
            return None
        lists = list(spec.get("lists") or [])
        numbered = all(t.number is not None for t in tiers)
        # (two tiers at the numbers the lists render are the lists: "the usual 50 / 20 are fine")
        as_lists = not numbered or (len(tiers) == 2 and [t.number for t in tiers] == list(spec.get("list_numbers") or []))
        span = (tiers[0].keys[0][1][0], tiers[-1].keys[-1][1][1])
        if self.recipe.properties[name].get("type") == "object":
            if as_lists or len(tiers) < 2:
                return None
            ok, val = self._ok(name, {k: t.number for t in tiers for k, _ in t.keys})
        elif name in lists and as_lists and (numbered or all(t.cued for t in tiers[1:])) and len(tiers) >= 2:
            chosen = tiers[:1] if name == lists[0] else tiers[1:]
            ok, val = self._ok(name, [k for t in chosen for k, _ in t.keys])
        else:
            return None
        if not ok:
            return None
        self.result.covered.extend(sp for t in tiers for sp in t.spans)
        return val, span

    def rule_objects(self, name: str, rule: dict[str, Any]):
        """Several objects in one request: from anchors (:meth:`_anchored_objects`), else from
        parallel lists of names and values (:meth:`_parallel_objects`)."""
        got = self._anchored_objects(name, rule)
        return got if got is not None else self._parallel_objects(name, rule)

    def _count_of_items(self, name: str, n: int) -> None:
        """"two tasks: master (1 pod) and worker (3 pods)", "three PriorityClasses: ...": the
        count of the objects just read, said before the list parameter's noun or the kind the
        recipe renders, is their number and counts nothing else."""
        nouns = [v for v in name_variants(name) if len(v) >= 3] + [ph for k in self.recipe.kinds for ph in kind_phrases(k)]
        for m in _compile(rf"(?<![\w.-]){_DIG}\s+(?:[a-z-]+\s+)?{_words_alt(nouns)}").finditer(self.digits):
            if parse_number(m.group(1)) == n and self._free(m.span()):
                self.used.append(m.span())
                self.result.covered.append(m.span())

    def _parallel_objects(self, name: str, rule: dict[str, Any]):
        """Names listed together and values listed together, paired by position: "classes
        gpu-prod / gpu-dev, values 50000 and 500", "teams a, b and c with 8, 4 and 2 GPUs",
        "500 and 50 for hi-pri and lo-pri". The item field the values fill is the integer field
        the words around the values name (its name or its count units), or the only required
        integer field."""
        spec = self.recipe.properties[name]
        iprops = (spec.get("items") or {}).get("properties") or {}
        if "name" not in iprops:
            return None
        ints = [f for f, s in iprops.items() if s.get("type") == "integer"]
        if not ints:
            return None
        fields: dict[str, list[dict[str, Any]]] = rule.get("fields") or {}
        field_words = {f: [v for v in name_variants(f)] + [w for r in fields.get(f, []) for w in r.get("count", [])]
                       for f in ints}
        exclude = ({w.lower() for w in rule.get("exclude", [])} | set(STOPWORDS) | _STOP
                   | {_singular(v.lower()) for f in iprops for v in name_variants(f)})
        name_ok = _prop_validator(json.dumps(iprops["name"], sort_keys=True))
        sep = r"\s*(?:,\s*(?:and\s+)?|/|&|\band\b|\bor\b)\s*"
        tok = r"[A-Za-z][\w.-]*[A-Za-z0-9]"
        name_lists = []
        for m in _compile(rf"(?<![\w.-]){tok}(?:{sep}{tok})+(?![\w.-])").finditer(self.text):
            parts = [(p.group(0), p.span()) for p in _compile(tok).finditer(self.text, m.start(), m.end())
                     if p.group(0).lower() not in ("and", "or")]
            while parts and _singular(parts[0][0].lower()) in exclude:
                parts.pop(0)
            while parts and _singular(parts[-1][0].lower()) in exclude:
                parts.pop()
            if len(parts) >= 2 and all(_singular(p.lower()) not in exclude and name_ok.is_valid(p.lower())
                                       for p, _ in parts):
                name_lists.append(([p.lower() for p, _ in parts], [sp for _, sp in parts]))
        required = [f for f in (spec.get("items") or {}).get("required", []) if f in ints]
        for m in _compile(rf"(?<![\w.-])-?\d+(?:{sep}-?\d+)+(?![\w.-])").finditer(self.digits):
            nums = [int(x) for x in re.findall(r"-?\d+", m.group(0))]
            for names, spans in name_lists:
                if len(names) == len(nums) + 1 and re.fullmatch(r"\s*:?\s*", self.text[spans[-1][1]:m.start()]):
                    names, spans = names[:-1], spans[:-1]  # "a / b, priorities 9, 5": the last word is their cue
                a, b = spans[0][0], spans[-1][1]
                if len(names) != len(nums):
                    continue
                gap = self.text[b:m.start()] if b <= m.start() else self.text[m.end():a]
                if len(gap) > 40 or re.search(r"[.;!?]|\d", gap) or (
                        a > m.start() and not re.search(r"\b(?:for|to|on|of|respectively)\b", gap)):
                    continue
                # the unit right after the values ("1 and 5 replicas"), else the cue right before them
                after = {f: x.start() for f in ints for x in [_compile(r"^\s*" + _words_alt(field_words[f])).search(
                    self.text, m.end(), m.end() + 30)] if x}
                before = {f: x.end() for f in ints for x in _compile(_words_alt(field_words[f]) + r"\s*[:=]?\s*$")
                          .finditer(self.text, max(0, a if a < m.start() else m.start() - 25), m.start())}
                named = after or before
                field_name = next(iter(named)) if len(named) == 1 else (
                    required[0] if len(required) == 1 and not named else None)
                if field_name is None:
                    continue
                items = [{"name": n, field_name: v} for n, v in zip(names, nums)]
                ok, val = self._ok(name, items)
                span = (min(a, m.start()), max(b, m.end()))
                if ok and self._free(span):
                    self.result.covered.append(span)
                    return val, span
        return None

    def _anchored_objects(self, name: str, rule: dict[str, Any]):  # noqa: C901
        """Several objects in one request, for a list-of-objects parameter.

        ``objects`` lists anchor patterns whose named groups are fields of one item
        ("4 workers" -> {replicas: 4, name: worker}); each anchor opens a segment that
        runs to the next anchor, and ``fields`` rules (count, enum, regex, value)
        fill the item's other fields from its own segment only. An item needs evidence
        beyond a count and a word: a marker group (named ``_...``) or a field read from
        its segment. The list is taken when it has at least ``min_items`` items and
        each item fits the schema."""
        spec = self.recipe.properties[name]
        iprops = (spec.get("items") or {}).get("properties") or {}
        fields: dict[str, list[dict[str, Any]]] = rule.get("fields") or {}
        cue_words = {w.lower() for rules in fields.values() for r in rules for w in r.get("count", [])}
        exclude = {w.lower() for w in rule.get("exclude", [])} | cue_words | set(STOPWORDS)
        anchors: list[tuple[int, int, dict[str, str]]] = []
        # "a `ps` task of 2 pods", "task 'trainer' (4 pods)": a name in quotes is the same name
        view = _QUOTED_TOKEN.sub(lambda q: " " + q.group(1) + " ", self.text)
        quoted = {q.start(1) for q in _QUOTED_TOKEN.finditer(self.text)}
        for pat in rule["objects"]:
            for m in _compile(pat).finditer(view):
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
                # a word that is usually a cue ("high", "low", "worker") is a name when given as one:
                # in quotes or after "named"
                # or in a table's first column ("| research | 1000 | no |", its rows joined as "... | | research |",
                # or read as "class research, value 1000")
                given = "name" in groups and (m.start("name") in quoted or bool(
                    _compile(r"\b(?:named|called)\s*$").search(view, 0, m.start("name"))) or bool(
                    _compile(r"(?:^|\n|\|[ \t]*)[ \t]*\|[ \t]*$|(?:^|[\n;.,]\s*)(?:name|class)\s*:?\s*$").search(
                        view, max(0, m.start("name") - 40), m.start("name"))))
                if "_quoted" in m.groupdict() and m.start("name") not in quoted:
                    continue  # a pattern with a "_quoted" marker reads only names given in quotes
                if (_singular(str(groups.get("name", "")).lower()) in exclude and not given) or not self._free(m.span()):
                    continue
                if any(not (m.end() <= a or m.start() >= b) for a, b, _ in anchors):
                    continue
                anchors.append((m.start(), m.end(), groups))
        anchors.sort()
        if len(anchors) < int(rule.get("min_items", 1)):
            return None
        items: list[dict[str, Any]] = []
        start, end = -1, 0  # the words read: from the first item's anchor to its last anchor or field
        # "1 master + 4 workers with 8 GPUs each": anchors listed together are objects of one list, so an
        # anchor joined to the next by "+", "and" or a comma needs no evidence of its own when that one has it
        # (a role the rule knows, "master", "launcher": "3 retries and 4 workers" lists no retry object)
        roles = {str(r).lower() for r in rule.get("roles") or []}
        listed = {k for k in range(len(anchors) - 1)
                  if _LIST_JOIN.fullmatch(self.text, anchors[k][1], anchors[k + 1][0])
                  and _singular(str(anchors[k][2].get("name", "")).lower()) in roles}
        # the words about an object end where another object is spoken of again ("4 workers. The master
        # only does rendezvous, it needs no GPU"): its name as a word after its own anchor
        names = {_singular(str(g.get("name", "")).lower()) for _a, _b, g in anchors} - {""}
        pending: list[tuple[int, int, dict[str, Any]]] = []
        for k, (a, b, groups) in enumerate(anchors):
            seg_end = anchors[k + 1][0] if k + 1 < len(anchors) else min(len(self.text), b + 80)
            others = names - {_singular(str(groups.get("name", "")).lower())}
            # ("... one GPU per worker": a rate naming another object is that object's)
            again = _mention_of(others).search(self.text, b, seg_end) if others else None
            if again is not None:
                seg_end = again.start()
            of_all = _OF_ALL.search(self.text, b, seg_end)
            if of_all is not None:  # ("..., speech at 3000. None of them may evict": said of every object)
                seg_end = of_all.start()
            item: dict[str, Any] = {}
            evidence = any(f.startswith("_") for f in groups)  # a marker group such as "pods" after the name
            for f, raw in groups.items():
                if f.startswith("_"):
                    continue
                ftype = iprops.get(f, {}).get("type")
                if ftype == "integer":
                    n = parse_number(raw.replace(",", ""))
                    if n is None:
                        return None
                    item[f] = n
                else:
                    # "4 workers" names the task "worker"; a name given verbatim ("dev-notebooks") or
                    # given a value ("notebooks=500", "notebooks at 500") stays
                    verbatim = "_at" in groups or "_named" in groups
                    item[f] = _singular(raw.lower()) if f == "name" and raw.isalpha() and not verbatim else (
                        raw.lower() if f == "name" else raw)
            seg = self.text[b:seg_end]
            read = b
            for f, frules in fields.items():
                if f in item:
                    continue
                got = self._field_in(seg, frules, iprops.get(f, {}))
                if got is not None:
                    item[f], used_end = got
                    read = max(read, b + used_end)
                    evidence = True
            if not evidence and item.get("name"):
                # "4 workers. The master ... the workers get 8 GPUs each": its fields where it is said again
                again_fields = self._said_again(str(item["name"]), [f for f in fields if f not in item], anchors,
                                                names, fields, iprops)
                item.update(again_fields)
                evidence = bool(again_fields)
            if not evidence and k in listed:
                pending.append((a, read, item))  # taken if the object it is listed with is
                continue
            if evidence:  # "retry 2 times" names no object: nothing but a count and a word
                for pa, pread, pitem in pending:
                    start, end = pa if start < 0 else start, max(end, pread)
                    items.append({**(rule.get("item_defaults") or {}), **pitem})
                start, end = a if start < 0 else start, max(end, read)
                # "a master task with a single GPU": a field neither its anchor nor its segment gives
                items.append({**(rule.get("item_defaults") or {}), **item})
            pending = []
        if len(items) < int(rule.get("min_items", 1)):
            return None
        self._fields_said_again(items, anchors, names, fields, iprops)
        self._fields_said_of_all(items, anchors, fields, iprops)
        # an object named again is said again: its later words are the ones meant ("one small master
        # component with no GPUs plus 3 nodes ... Here I want a master task (1 pod, 0 GPUs) and ...")
        merged: dict[Any, dict[str, Any]] = {}
        for i, item in enumerate(items):
            merged[item.get("name", i)] = item
        items = list(merged.values())
        if len(items) < int(rule.get("min_items", 1)):
            return None
        if len(items) == 1 and (self._speaks_of_slots(rule) or self._speaks_of_several()):
            # "production class name: serving-critical, value 900000": one of the fixed pair; "three
            # classes: urgent / normal / batch-low, priorities ...": one item read of several meant
            return None
        ok, val = self._ok(name, items)
        if ok:
            return val, (start, end)
        return None

    def _fields_said_again(self, items: list[dict[str, Any]], anchors: list[tuple[int, int, dict[str, str]]],
                           names: set[str], fields: dict[str, list[dict[str, Any]]], iprops: dict[str, Any]) -> None:
        """"1 master + 4 workers ... The master only does rendezvous, it does not need a GPU": a field
        an object's own segment left unsaid, read where the object is spoken of again, up to the next
        mention of another object or 100 characters."""
        for item in items:
            n = str(item.get("name", ""))
            todo = [f for f in fields if f not in item]
            if n and todo:
                item.update(self._said_again(n, todo, anchors, names, fields, iprops))

    def _fields_said_of_all(self, items: list[dict[str, Any]], anchors: list[tuple[int, int, dict[str, str]]],
                            fields: dict[str, list[dict[str, Any]]], iprops: dict[str, Any]) -> None:
        """"nlp at 5000, vision at 4000 and speech at 3000. None of them is allowed to kick anybody out": a
        field said of every object at once, after the last one, in the rest of that sentence, fills each
        object that left it unsaid."""
        if len(items) < 2 or not anchors:
            return
        m = _OF_ALL.search(self.text, anchors[-1][1], min(len(self.text), anchors[-1][1] + 200))
        if m is None:
            return
        end = re.search(r"[.!?;\n]|$", self.text[m.end():])
        seg = self.text[m.start():m.end() + (end.start() if end else 0)]
        # "all three may preempt, except bronze which never does": the exception is said of the objects it names
        but = re.search(r"\b(?:except(?:\s+for)?|but\s+not|other\s+than|apart\s+from|save\s+for)\b", seg, re.I)
        if but is not None:
            tail, seg = seg[but.end():], seg[:but.start()]
            for item in items:
                n = str(item.get("name", ""))
                if not n or not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", tail, re.I):
                    continue
                for f, frules in fields.items():
                    got = self._field_in(tail, frules, iprops.get(f, {}))
                    if got is not None and f not in item:
                        item[f] = got[0]
        for f, frules in fields.items():
            if all(f in item for item in items):
                continue
            got = self._field_in(seg, frules, iprops.get(f, {}))
            if got is None:
                continue
            for item in items:
                item.setdefault(f, got[0])
            self.result.covered.append((m.start(), m.start() + got[1]))

    def _said_again(self, n: str, todo: list[str], anchors: list[tuple[int, int, dict[str, str]]], names: set[str],
                    fields: dict[str, list[dict[str, Any]]], iprops: dict[str, Any]) -> dict[str, Any]:
        spans = [(a, b) for a, b, _g in anchors]
        others = names - {n}
        found: dict[str, Any] = {}
        for m in _compile(rf"(?<![\w-]){_words_alt([n])}(?![\w-])").finditer(self.text):
            if any(a <= m.start() < b for a, b in spans):
                continue
            end = min(len(self.text), m.end() + 100)
            nxt = _mention_of(others).search(self.text, m.end(), end) if others else None
            seg = self.text[m.end():nxt.start() if nxt else end]
            rate = _compile(rf"{_RATE_OF}\s+$").search(self.text, max(0, m.start() - 40), m.start())
            if rate is not None:  # "one GPU per worker": the amount before the rate is the object's
                seg = self.text[rate.start():m.start()] + " " + seg
            for f in todo:
                if f in found:
                    continue
                got = self._field_in(seg, fields[f], iprops.get(f, {}))
                if got is not None:
                    found[f] = got[0]
                    self.result.covered.append((m.start(), m.end() + got[1]))
        return found

    def _speaks_of_slots(self, rule: dict[str, Any]) -> bool:
        """Does the request name the roles of the recipe's fixed objects (the first word of each slot's
        parameters: "production", "research") or speak of them as a pair?"""
        roles = {p.split("_")[0] for sl in rule.get("slots") or [] for p in sl.values()}
        return bool(roles) and bool(_compile(_words_alt(sorted(roles | {"pair", "both"}))).search(self.text))

    def _speaks_of_several(self) -> bool:
        """Does the request name the recipe's kind, or its head word, in the plural ("priority classes",
        "three classes")?"""
        words = {w for k in self.recipe.kinds for p in kind_phrases(k) if len(p) > 3 for w in (p, p.split()[-1])}
        plural = [w + ("es" if w.endswith(("s", "x")) else "s") for w in words]
        return bool(plural) and bool(re.search(r"(?<![\w-])(?:" + "|".join(re.escape(p) for p in plural) + r")(?![\w-])",
                                               self.text, re.I))

    def _named_list(self, rule: dict[str, Any]) -> bool:
        """Names listed after "named" ("pair named train-hi / train-lo") for a recipe's fixed
        objects: one name per slot, in the order the slots are declared."""
        slots: list[dict[str, str]] = rule.get("slots") or []
        if len(slots) < 2 or not all("name" in sl for sl in slots):
            return False
        tok = r"[\"'`]?([a-z0-9][a-z0-9.-]*[a-z0-9])[\"'`]?"
        sep = r"\s*(?:,|/|&|\band\b|\bor\b)\s*"
        m = _compile(rf"\b(?:named|called|(?:call|name)\s+(?:them|those|these)(?:\s+two)?)\s+{tok}"
                     + "".join(rf"{sep}{tok}" for _ in slots[1:]) + r"(?![\w.-])").search(self.text)
        if not m or not self._free(m.span()):
            return False
        pairs = [(sl["name"], m.group(i + 1)) for i, sl in enumerate(slots)]
        exclude = {str(w).lower() for w in rule.get("exclude", [])} | _STOP
        if any(v.lower() in exclude for _p, v in pairs):
            return False  # "called experiments, value 10": a word the objects never name is no second name
        if any(p in self.result.values or not self._ok(p, v)[0] for p, v in pairs):
            return False
        for i, (p, v) in enumerate(pairs):
            self.result.values[p] = self._ok(p, v)[1]
            self.result.spans[p] = m.span(i + 1)
        self.used.append(m.span())
        return True

    def _into_slots(self, rule: dict[str, Any], items: list[dict[str, Any]], span: tuple[int, int]) -> bool:
        """Objects that fit the recipe's own fixed parameters: ``slots`` lists, per slot, which
        parameter each item field goes to ({name: production_name, value: production_value});
        with ``slots_by`` the items fill the slots from the highest value of that field down.
        Taken only when there are exactly as many items as slots and every field has a place."""
        slots: list[dict[str, str]] = rule.get("slots") or []
        if not slots or len(items) != len(slots):
            return False
        by = rule.get("slots_by")
        ordered = sorted(items, key=lambda i: -float(i.get(by, 0))) if by else items
        if any(set(i) - set(s) for i, s in zip(ordered, slots)):
            return False  # a field the slot it falls into has no place for ("preempt" of the top class)
        pairs = [(slot[f], v) for item, slot in zip(ordered, slots) for f, v in item.items()]
        if any(p in self.result.values or not self._ok(p, v)[0] for p, v in pairs):
            return False
        for p, v in pairs:
            self.result.values[p] = self._ok(p, v)[1]
            self.result.spans[p] = span
        self.used.append(span)
        return True

    def _field_in(self, seg: str, rules: list[dict[str, Any]], fspec: dict[str, Any]) -> tuple[Any, int] | None:
        """One field of an object read from its own segment: (value, end offset in the segment)."""
        for r in rules:
            if "count" in r:
                u = _words_alt(r["count"])
                for p in (rf"(?<![\w.]){_NUM}\s*(?:x\s*)?-?\s*{u}", rf"{u}\s*(?:[:=]|of)?\s*{_NUM}(?!\w|\.\w)"):
                    m = _compile(p).search(seg)
                    if m and parse_number(m.group(1)) is not None:
                        return parse_number(m.group(1)), m.end()
            elif "enum" in r:
                for value, phrases in r["enum"].items():
                    m = _compile(_words_alt(phrases)).search(seg)
                    if m:
                        return value, m.end()
            elif "regex" in r:
                m = _compile(r["regex"]).search(seg)
                if m and "value" in r:
                    return r["value"], m.end()
                if m:
                    g = m.group(1) if m.groups() else m.group(0)
                    if fspec.get("type") == "integer":
                        n = parse_number(g.replace(",", ""))
                        if n is None:
                            continue
                        return n, m.end()
                    return g, m.end()
        return None

    def rule_mapping(self, name: str, rule: dict[str, Any]):
        """``key=value`` and ``key: value`` pairs whose key fits the mapping parameter's
        ``propertyNames`` and whose value fits its values ("nvidia.com/gpu.family=hopper")."""
        spec = self.recipe.properties[name]
        keys = _prop_validator(json.dumps({"type": "string", **spec["propertyNames"]}, sort_keys=True))
        vals = _prop_validator(json.dumps(spec.get("additionalProperties") or {}, sort_keys=True))
        out: dict[str, Any] = {}
        spans = []
        # "nvidia.com/cuda.driver.major is 550": a key the schema takes may be read out in words
        for m in _compile(r"(?<![\w./-])([A-Za-z0-9][\w./-]*[\w])[\"'`]?(?:\s*(?:=|:|==)|\s+(?:is|equals|set\s+to|of|"
                          r"(?:must|should)\s+be))\s*[\"'`]?([\w.-]*\w)").finditer(self.text):
            k, v = m.group(1), m.group(2)
            if keys.is_valid(k) and vals.is_valid(v) and self._free(m.span()) and k not in out:
                out[k] = v
                spans.append(m.span())
        if out:
            ok, val = self._ok(name, out)
            if ok:
                return val, (spans[0][0], spans[-1][1])
        return None

    # -------------------------------------------------------------- run
    def run(self) -> Extraction:
        props = self.recipe.properties
        self.blocked += self._rules_asked()
        order = list(self.recipe.extract) + [p for p in props if p not in self.recipe.extract]
        # several objects in one request fill a list parameter before single values take their words;
        # the names they give ("a `ps` task of 2 pods") are theirs, not the recipe's object's
        for name in order:
            for rule in self.recipe.extract.get(name) or []:
                if "objects" in rule and name not in self.result.values:
                    got = self.rule_objects(name, rule)
                    if got is not None:
                        self._count_of_items(name, len(got[0]))
                    if got is not None and not self._into_slots(rule, got[0], got[1]):
                        self._take(name, got[0], got[1])
                    elif got is None:
                        self._named_list(rule)
        self._flow_lists()
        self._kubectl_run()
        self._kubectl_get()
        self._form_fields()
        self._dotted_values()
        # explicit names ("named X", "called X", quoted) first: they are the least ambiguous
        named_by_rule: set[str] = set()
        for name in order:
            rules = self.recipe.extract.get(name) or _DEFAULT_RULES.get(name, [])
            for rule in rules:
                if rule.get("name") is True:
                    got = self.rule_name(name, rule)
                    if got is not None and _quoted_key(self.text, got[1]):
                        got = None
                    if got is not None:
                        self.result.values[name] = got[0]
                        self.result.spans[name] = got[1]
                        self.used.append(got[1])
                        named_by_rule.add(name)
                        break
        # a string parameter whose two name parts both stand before its value ("scheduler config
        # in namespace kube-system" for scheduler_namespace) is named more exactly than by either part
        for name in order:
            spec = props[name]
            parts = [p for p in name.split("_") if len(p) >= 3]
            if name not in self.result.values and spec.get("type") == "string" and not spec.get("enum") and len(parts) == 2:
                got = self.rule_parts(name, {"parts": parts})
                if got is not None:
                    self._take(name, got[0], got[1])
        for name in order:
            # a parameter naming an object of a kind: "configmap team-mig-layouts"
            if props.get(name, {}).get("type") == "string" and name not in self.result.values \
                    and name not in named_by_rule and not self._labelled_by_own_cue(name):
                got = self._after_kind_noun(name, named_kinds(self.recipe)["direct"].get(name, []))
                if got is not None:
                    self.result.values[name] = got[0]
                    self.result.spans[name] = got[1]
                    self.used.append(got[1])
        self._launched_program()
        self._verbatim()
        self._key_value_pairs()
        self._shapes()
        self._assign_quantities()
        for name in order:
            if name in self.result.values:
                continue
            found = self.recipe.extract.get(name)
            # the recipe's own rules first, then the ones every parameter of that name gets
            name_rules: list[dict[str, Any]] = list(found or []) + [
                r for r in _DEFAULT_RULES.get(name, []) if not found or (r not in found and "name" not in r)]
            name_rules += self._schema_enum_rules(name, own_rules=found is not None)
            if props[name].get("type") == "integer" and any(
                    "nodes" in (r.get("count") or []) for r in name_rules) and _SLURM_N not in name_rules:
                name_rules.insert(0, _SLURM_N)  # "sbatch -N 6": Slurm's short flag counts what the nodes count
            if "@" in re.sub(r"\[[^\]]*\]", "", str(props[name].get("pattern", ""))):  # a literal "@" joins parts
                name_rules.insert(0, {"joined": "@"})
            fields = manifest_fields(self.recipe).get(name)
            if fields:
                name_rules.append({"after": fields, "schema": True})
            short = _initials(name, tuple(props))
            if short:  # "lq=everyone", "cq: shared" for local_queue, cluster_queue
                # ... and "lq `vision`", the value in code marks right after the initials
                name_rules.append({"regex": rf"(?<![\w./-]){short}(?:\s*[:=]\s*[\"'`]?|\s+[\"'`])([A-Za-z0-9][\w.-]*[A-Za-z0-9])"})
            name_rules += _schema_rules(name, props[name], list(props))
            if props[name].get("type") in ("integer", "array"):
                # a count's units are what is counted ("no GPU"); other cue words must not be frame words
                cues = [w for r in name_rules for k in ("count", "after", "list") if isinstance(r.get(k), list)
                        for w in r[k] if isinstance(w, str) and (k == "count" or w.lower() not in _STOP)]
                if cues:
                    name_rules.insert(0, {"none": cues})
            own_words = self._own_words(name)
            if props[name].get("type") == "integer":
                # "bump minMember to 6", "lower the max replicas to 3": a verb of change, the field, "to", the value
                name_rules.append({"regex": rf"\b(?:bump|raise|increase|set|change|reduce|lower|decrease|drop|make)\w*\s+"
                                            rf"(?:the\s+|its\s+|their\s+)?{_words_alt(own_words)}\s+(?:(?:up|down)\s+)?"
                                            rf"to\s+(\d+)(?![\w.])"})
            elif props[name].get("type") == "string" and not props[name].get("enum"):
                # "move the key from 'any' to 'notebooks'", "rename the queue from a to b": the value it goes to
                name_rules.insert(0, {"regex": rf"{_words_alt(own_words)}\s+from\s+[\"'`]?[\w./:-]+[\"'`]?\s+(?:to|into)\s+"
                                               rf"[\"'`]?([A-Za-z0-9][\w./:-]*[A-Za-z0-9])[\"'`]?"})
            if props[name].get("type") == "integer":
                units = sorted({str(w) for r in name_rules for w in (r.get("count") or []) if isinstance(w, str)}
                               | set(name_variants(name)), key=len, reverse=True)
                # "can the GPU quota for that namespace go up to 16?": a bare number the clause raises it to
                name_rules.append({"regex": rf"{_words_alt(units)}\b[^.,;?!\d]{{0,40}}?\b(?:go\s+up\s+to|up\s+to|"
                                            rf"raised?\s+to|bump(?:ed)?\s+to|increased?\s+to)\s+(\d+)(?=\s*(?:$|[.,;?!]))"})
            if found and any(r.get("exclusive") for r in found):
                # read by its own rules alone: "topology.kubernetes.io/zone" written anywhere is the first
                # spread's, never the second's
                name_rules = list(found)
            for rule in name_rules:
                kind = next(k for k in ("objects", "mapping", "none", "count", "after", "before", "name", "size",
                                        "duration", "enum", "flag", "regex", "list", "pairs", "stated", "guarded",
                                        "acted", "enum_pairs", "tiers",
                                        "joined", "parts", "boolean")
                            if k in rule)
                got = getattr(self, f"rule_{kind}")(name, rule)
                if got is not None and _quoted_key(self.text, got[1]):
                    got = None  # ('"canPreempt": false' says nothing by its key alone)
                if got is not None:
                    value, span = got
                    self.result.values[name] = value
                    self.result.spans[name] = span
                    self.used.append(span)
                    break
        self._own_keys()
        self._env_values()
        self._per_pod_bounds()
        self._min_max_pairs()
        self._equal_bounds()
        self._key_value_pair()
        self._pasted_fields()
        self._printed_ids()
        self._kubectl_namespace()
        self._relative_to_paste()
        self._changed_by()
        self._relative_in_prose()
        self._qualified_siblings()
        self._second_readings()
        self._retractions()
        self._cover()
        return self.result

    def _env_values(self) -> None:
        """"HF_HOME: /cache/hf" in a pasted compose service, "-e HF_HOME=/cache/hf" on a docker line: a variable
        the recipe's containers set from a parameter gives that parameter its value, when the words left it open."""
        for env, name in _env_params(self.recipe.templates).items():
            if name in self.result.values:
                continue
            m = _compile(rf"(?<![\w-])(?-i:{env})[\"']?\s*[:=]\s*[\"']?([^\s\"',}}#]+)").search(self.text)
            if m is None:
                continue
            ok, val = self._ok(name, m.group(1))
            if ok:
                self.result.values[name] = val
                self.result.spans[name] = m.span(1)
                self.result.covered.append(m.span())
                self.used.append(m.span())

    def _own_keys(self) -> None:
        """"cooldownPeriod 600" beside "cold start is 3 min": a manifest key written as the manifest spells
        it (camelCase), then a number, gives its parameter that number over any reading by nearness."""
        fields = manifest_fields(self.recipe)
        for name, spec in self.recipe.properties.items():
            if spec.get("type") != "integer":
                continue
            camel = [f for f in [*fields.get(name, []), *name_variants(name)] if re.search(r"[a-z][A-Z]", f)]
            if not camel:
                continue
            # (inline, "cooldownPeriod 600" or "=600"; "key: value" is a pasted object's or a form's, read as such)
            m = _compile(rf"(?<![\w.-])(?-i:{'|'.join(map(re.escape, camel))})\s*=?\s*(\d+)(?![\w.%])").search(self.digits)
            if m is None or not self._free(m.span()) or \
                    not self.text[self.text.rfind("\n", 0, m.start()) + 1:m.start()].strip(" \t-*"):
                continue  # (keys that open their line are a paste's or a form's, read as such with what the request changes)
            span = self._whole_word(m.span(1))
            if self.result.spans.get(name) == span or any(sp == span for o, sp in self.result.spans.items() if o != name):
                continue
            ok, val = self._ok(name, int(m.group(1)))
            if ok:
                self._replace(name, val, span)
                self.used.append(m.span())

    def _retractions(self) -> None:
        """An item the writer takes back from a list ("p4d.24xlarge + p5.48xlarge (scratch the p5)",
        "drop the a10g group") leaves it; a value read from the retraction itself is no value."""
        for m in _compile(r"\b(scratch|drop|remove|forget|minus|strike)\s+(?:the\s+)?(?!\d)([a-z0-9][\w.*-]*)(?![\w.-])"
                          ).finditer(self.text):
            if m.group(1).lower() == "scratch" and any("scratch" in n for n in self.recipe.properties):
                continue  # "scratch 50gi", "scratch dir": the scratch volume, not a take-back
            if any(a <= m.start(1) < b for a, b in self.result.spans.values()):
                continue  # "in namespace scratch with 1 H100": the word is a value, not a take-back
            gone = m.group(2).lower()
            touched = False
            for name, value in list(self.result.values.items()):
                a, b = self.result.spans.get(name, (0, 0))
                if m.start(2) <= a and b <= m.end() and a < b:
                    del self.result.values[name]  # "scratch the p5" named no family to use
                    self.result.spans.pop(name, None)
                    touched = True
                    continue
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    kept = [v for v in value if not (v.lower() == gone or re.match(rf"{re.escape(gone)}[.-]", v.lower()))]
                    if kept != value and kept:
                        self.result.values[name] = kept
                        touched = True
            if touched:
                self.result.covered.append(m.span())
        # "swap the g5/g6 families for p4d and p5", "replace g6 with p4d", "p5 instead of g5": the items
        # given up leave a list that keeps others
        for m in _SWAPPED.finditer(self.text):
            gone = {w.lower() for w in re.findall(r"[a-z0-9][\w.*-]*", m.group("old") or m.group("old2"), re.I)
                    if w.lower() not in ("and", "or", "the", "our", "all")}
            for name, value in list(self.result.values.items()):
                if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                    kept = [v for v in value if not any(v.lower() == g or re.match(rf"{re.escape(g)}[.-]", v.lower()) for g in gone)]
                    if kept != value and kept:
                        self.result.values[name] = kept
                        self.result.covered.append(m.span())

    def _key_value_pairs(self) -> None:
        """``<x>_key`` and ``<x>_value`` read together from one ``key=value`` written near the
        words of ``<x>`` ("Service label app.kubernetes.io/name=dcgm-exporter")."""
        props = self.recipe.properties
        for kname in props:
            if not kname.endswith("_key"):
                continue
            prefix = kname[:-len("key")]
            vname = prefix + "value"
            if vname not in props or kname in self.result.values or vname in self.result.values:
                continue
            cues = _words_alt([p for p in prefix.strip("_").split("_") if len(p) >= 3] or [prefix.strip("_")])
            for m in _compile(r"(?<![\w./-])([A-Za-z0-9][\w./-]*[A-Za-z0-9])\s*[=:]\s*[\"'`]?([A-Za-z0-9][\w.-]*[A-Za-z0-9])"
                              ).finditer(self.text):
                if not self._free(m.span()) or not _compile(cues).search(self.text, max(0, m.start() - 40), m.start()):
                    continue
                ok_k, k = self._ok(kname, m.group(1))
                ok_v, v = self._ok(vname, m.group(2))
                if ok_k and ok_v:
                    self._take(kname, k, m.span(1))
                    self._take(vname, v, m.span(2))
                    break
            if kname in self.result.values:
                continue
            # "select it by app.kubernetes.io/name" under pasted labels "app.kubernetes.io/name=dcgm-exporter": the key
            # the request selects by, with the value a pasted pair gives it
            for m in _compile(r"\b(?:select\w*|match\w*|pick\w*)\s+(?:(?:it|them|the\s+\w+)\s+)?(?:by|on|with)\s+"
                              r"(?:the\s+)?(?:label\s+)?[`'\"]?([A-Za-z0-9][\w./-]*[A-Za-z0-9])").finditer(self.text):
                key = m.group(1)
                pair = _compile(rf"(?<![\w./-]){re.escape(key)}\s*[=:]\s*[\"'`]?([A-Za-z0-9][\w.-]*[A-Za-z0-9])").search(self.text)
                if pair is None:
                    continue
                ok_k, k = self._ok(kname, key)
                ok_v, v = self._ok(vname, pair.group(1))
                if ok_k and ok_v and self._take(kname, k, m.span(1)):
                    # (the pair may stand in pasted output, which gives no values of its own: here it is asked for)
                    self.result.values[vname] = v
                    self.result.spans[vname] = pair.span(1)
                    self.used.append(pair.span(1))
                    break

    def _qualified_siblings(self) -> None:
        """"production class called critical-inference with value 900000", "the research one is
        experiments, value 10": the words right after the name of a ``<q>_name`` parameter, in its
        clause, give its siblings (``<q>_value``) their values."""
        props = self.recipe.properties
        for name, (a, b) in list(self.result.spans.items()):
            if not name.endswith("_name"):
                continue
            qual = name[:-len("name")]
            for sib, spec in props.items():
                if not sib.startswith(qual) or sib == name or sib in self.result.values:
                    continue
                if spec.get("type") != "integer":
                    continue
                cue = _words_alt(name_variants(sib[len(qual):]))
                m = _compile(rf"\s*(?:,\s*|\(\s*)?(?:(?:with|and|at)\s+)?(?:(?:a|an|the|its)\s+)?{cue}\s*"
                             rf"(?:of|[:=]|at|is)?\s*(-?\d+)(?!\w|\.\w)").match(self.digits, b)
                if m:
                    self._take(sib, parse_number(m.group(1)), self._whole_word(m.span(1)))

    def _second_readings(self) -> None:
        """A number the request gives a parameter twice, differently ("2 GPUs per replica; each
        replica must get 4 GPUs"): a number right before one of the parameter's own count units,
        in words no value has used, that is neither a rate ("one pod per node") nor a total
        ("16 GPUs in total"), is a second value; a different valid one is a conflict the user
        must settle."""
        summed = _SUMMED_UP.search(self.text)  # a closing summary's word on a value settles it
        for name, value in list(self.result.values.items()):
            if self.recipe.properties[name].get("type") != "integer":
                continue
            units = [u for r in self.recipe.extract.get(name) or _DEFAULT_RULES.get(name, []) if not r.get("near")
                     for u in r.get("count") or [] if isinstance(u, str)]
            if not units and not (self.chat and any("regex" in r for r in self.recipe.extract.get(name) or [])):
                continue  # (a thread settles a value its own phrases give twice: "minMember 16" ... "min member 12")
            if self.chat:  # a thread says "6 boxes" and "take 4 nodes" of one count
                units += [w + suffix for g in _COUNT_SYNONYMS if any(_singular(str(u).lower()) in g for u in units)
                          for w in sorted(g - _AMBIGUOUS_UNITS) for suffix in ("", "es" if w.endswith("x") else "s")]
            plain = rf"(?<![\w.:=+-]){_DIG}\s*{_words_alt_cached(tuple(units))}" if units else r"(?!x)x"
            # ("3 GPU workers": the GPU names the kind of worker, the number counts the workers)
            rx = _compile(plain + r"(?!\s*(?:per|each|every|a|an|on\s+each|in\s+total|total|overall|altogether|max)\b)"
                          r"(?!\s+(?:workers?|nodes?|pods?|machines?|boxes|box|servers?|instances?|replicas?|hosts?|"
                          r"vms?|cards?)\b)")
            own, other = any(self._whole_word(m.span(1)) == self.result.spans.get(name)
                             for m in _compile(plain).finditer(self.digits)), None
            later: tuple[Any, tuple[int, int]] | None = None
            summary: tuple[Any, tuple[int, int]] | None = None  # another value, said in a closing summary
            regexes = [_compile(r["regex"]) for r in self.recipe.extract.get(name) or [] if "regex" in r
                       and not r.get("shared") and _compile(r["regex"]).groups == 1]
            for m in itertools.chain(rx.finditer(self.digits), *(x.finditer(self.digits) for x in regexes)):
                if not re.fullmatch(r"-?\d+", m.group(1) or ""):
                    continue
                span = self._whole_word(m.span(1))
                if span == self.result.spans.get(name):
                    own = True  # the value itself was read in this shape
                    continue
                if not self._free(span) or re.search(r"\b(?:one|1|a)\s+(?:[a-z]+\s+)?$", self.text[max(0, span[0] - 12):span[0]]):
                    continue
                if self.text[span[0]:span[1]].lower() in ("one", "single", "a"):
                    continue  # "one gpu pod", "a master of one pod": "one" is as often an article as a count
                if re.search(r"\b(?:master|launcher|chief|ps|driver|head|leader|coordinator)\s+(?:[\w-]+\s+){0,3}"
                             r"(?:of\s+|with\s+|has\s+|[:=]\s*|\(\s*)?$", self.text[max(0, span[0] - 30):span[0]], re.I):
                    continue  # "master 1 pod + 4 workers", "master x1 (1 gpu)": the count of another role
                if _ESTIMATE.search(self.text, max(0, span[0] - 16), span[0]):
                    continue  # "about 2,000 files ... 200 chunks": an estimate describes, it sets nothing
                if _NEGATED_COUNT.search(self.text, max(0, span[0] - 40), span[0]):
                    continue  # "no two pods on one node", "I don't want 3 nodes sitting idle": no count is set
                if self._said_of_another(name, span):
                    continue  # "can borrow maximum 8 GPUs", "8 GPUs must always be reserved": another parameter's
                if re.match(r"\s+(?:[a-z]+\s+)?(?:more|fewer|less|extra)\s+than\b", self.text[span[1]:span[1] + 30], re.I):
                    continue  # "no node has two more than any other": a difference, not a count
                if re.search(r"\b(?:split\w*|divid\w*|carv\w*|shar(?:e|es|ed|ing))\s+(?:up\s+)?(?:(?:the|our|all|those|these|its|their)\s+)?$",
                             self.text[max(0, span[0] - 30):span[0]], re.I):
                    continue  # "we're splitting the 64 H100s of the cohort between three teams": a total divided
                if re.search(r"\b(?:asks?|asking|requests?|requesting|wants?)\s+(?:for\s+)?$", self.text[max(0, span[0] - 20):span[0]],
                             re.I) and re.match(r"\s*(?:slices?|shares?)\b", self.text[span[1]:], re.I):
                    continue  # "ok if a notebook asks for 2 slices": what one pod requests, not how a GPU is shared
                if re.search(r"\bthe\s+(?:[\w-]+\s+)?(?:box(?:es)?|nodes?|machines?|servers?|hosts?|instances?)\s+with\s+$",
                             self.text[max(0, span[0] - 40):span[0]], re.I):
                    continue  # "the 8-gpu boxes are all taken": machines spoken of, no second value
                if _STATE.search(re.split(r"[.;,:!?]\s", self.text[max(0, span[0] - 60):span[0]])[-1]):
                    continue  # "last time they all piled onto two nodes": what happened, no second value
                if re.search(r"\b(?:than|at\s+most|up\s+to|max(?:imum)?|limit(?:ed)?(?:\s+to)?|cap(?:ped)?(?:\s+at)?)\s+"
                             r"(?:[a-z]+\s+){0,2}$|\bsingle\s+(?:[a-z]+\s+){0,3}$", self.text[max(0, span[0] - 30):span[0]], re.I):
                    continue  # "no single container bigger than 4 GPUs": a bound, no second value
                ok, val = self._ok(name, parse_number(m.group(1)))
                if ok and val != value and self.chat and span[0] > (self.result.spans.get(name) or (0, 0))[0] and \
                        (later is None or span[0] > later[1][0]):
                    later = (val, span)
                if ok and val != value and other is None:
                    other = (val, span)
                if ok and val != value and summed is not None and span[0] >= summed.end() and summary is None:
                    summary = (val, span)
            if self.chat and other is not None and other[1][0] < (self.result.spans.get(name) or (0, 0))[0]:
                other = None  # a thread's earlier word on the value is settled by the later one
            cur = self.result.spans.get(name)
            if other is not None and cur is not None:
                # "one 8-GPU node isn't enough, so two nodes": an amount the words reject yields to the other
                if _REJECTED_AFTER.match(self.text, cur[1]) and not _REJECTED_AFTER.match(self.text, other[1][1]):
                    later = other
                elif _REJECTED_AFTER.match(self.text, other[1][1]):
                    other = None
            if summed is not None and (other is not None or summary is not None):
                # "... thinking out loud ... Final answer: 8 GPUs each": the summary's word on the value settles it
                if (self.result.spans.get(name) or (0, 0))[0] >= summed.end():
                    other = other if other is not None and other[1][0] >= summed.end() else None
                elif summary is not None:
                    later = summary
            if later is not None:  # a thread's later word on the value settles it ("16 gpus?" ... "fine, 12 gpus")
                self.result.values[name] = later[0]
                self.result.spans[name] = later[1]
                self.used.append(later[1])
                continue
            if own and other is not None:  # both in the same plain shape: neither reading is the likelier
                self.result.conflicts[name] = other

    def _said_of_another(self, name: str, span: tuple[int, int]) -> bool:
        """Do the words of the clause right around ``span`` (three before it, four after) name another
        parameter of the recipe by a word of its own ("borrow", "reserved")?"""
        words = _other_param_words(self.recipe, name)
        if not words:
            return False
        head = re.split(r"[.,;:\n()]|\band\b|\bbut\b", self.text[max(0, span[0] - 50):span[0]])[-1]
        tail = re.split(r"[.,;:\n()]|\band\b|\bbut\b", self.text[span[1]:span[1] + 50])[0]
        near = re.findall(r"[a-z]{4,}", f"{' '.join(head.split()[-3:])} {' '.join(tail.split()[:4])}".lower())
        return any(w.startswith(d[:6]) if len(d) >= 6 else w == d for w in near for d in words)

    # ------------------------------------------------- shapes across parameters
    def _take(self, name: str, value: Any, span: tuple[int, int]) -> bool:
        if name in self.result.values or not self._free(span):
            return False
        ok, val = self._ok(name, value)
        if ok:
            self.result.values[name] = val
            self.result.spans[name] = span
            self.used.append(span)
        return ok

    def _taint_specs(self) -> None:
        """A taint written as kubectl writes it ("dedicated=a100:NoSchedule", "team=serving taint",
        "gpu-only:NoExecute") gives its key to the parameter that names a taint key to tolerate."""
        for name, spec in self.recipe.properties.items():
            if name in self.result.values or spec.get("type") != "string" or \
                    not re.search(r"\btaint key", str(spec.get("description", "")), re.I):
                continue
            key = r"([A-Za-z0-9][\w./-]*[A-Za-z0-9])"
            rx = _compile(rf"(?<![\w./=:-]){key}(?:=([\w.-]+))?:(?:NoSchedule|PreferNoSchedule|NoExecute)\b"
                          rf"|\b(?:taint(?:ed)?|tolerat\w*)\s+(?:(?:the|a|an|our|their)\s+)?{key}=[\w.-]+(?![\w:])"
                          rf"|(?<![\w./=:-]){key}=[\w.-]+\s+taint")
            for m in rx.finditer(self.text):
                g = next(i for i in (1, 3, 4) if m.group(i))
                if m.group(g).lower() == "key":  # "tolerate key=spot": the field, then the taint key
                    v = re.search(r"=([\w.-]+)", m.group(0))
                    if v and self._free(m.span()) and self._take(name, v.group(1), (m.start() + v.start(1),
                                                                                    m.start() + v.end(1))):
                        self.used.append(m.span())
                        break
                    continue
                if self._free(m.span()) and self._take(name, m.group(g), m.span(g)):
                    self.used.append(m.span())  # the value and effect are the taint's, not another value
                    break

    def _shapes(self) -> None:
        """Shapes that fill two parameters at once: "4x8 H100" (pods x GPUs each) and
        "1 to 10 replicas" (a min_/max_ pair)."""
        props = self.recipe.properties
        count = next((n for n in ("nodes", "replicas", "workers") if n in props), None)
        if count and "gpus" in props:
            rx = _compile(rf"(?<![\w.]){_NUM}\s*[x*]\s*{_NUM}(?!\w|\.\w)(?:\s*(?:[A-Za-z][\w.-]*\s+)?gpus?)?")
            models = "|".join(_GPU_MODELS)
            for m in rx.finditer(self.text):
                tail = self.text[m.end(): m.end() + 12].lower()
                if "gpu" not in m.group(0).lower() and not _compile(rf"^\s*(?:{models})").match(tail):
                    continue
                a, b = parse_number(m.group(1)), parse_number(m.group(2))
                if a is not None and b is not None and self._free(m.span()):
                    if self._take(count, a, m.span(1)):
                        self._take("gpus", b, m.span(2))
                    break
        self._per_unit_maxima()
        self._taint_specs()
        counted = {_singular(w.lower()) for n in props if n not in ("min_" + n[4:], "max_" + n[4:])
                   for r in (self.recipe.extract.get(n) or _DEFAULT_RULES.get(n, [])) for w in r.get("count") or []
                   if isinstance(w, str)}
        for lo_name in [n for n in props if n.startswith("min_")]:
            hi_name = "max_" + lo_name[4:]
            if hi_name not in props:
                continue
            base = lo_name[4:].replace("_", " ")
            words = [base] + self._synonym_units(lo_name, [base])
            unit = _words_alt(words)
            # "1 to 10 replicas", "min 2 / max 8 workers", "minimum 2, maximum 8 workers"
            rx = _compile(rf"(?<![\w.])(?:between\s+|min(?:imum)?\s*[:=]?\s*)?{_NUM}\s*(?:{_RANGE_TO}|and|"
                          rf"(?:/|,|and)?\s*max(?:imum)?\s*[:=]?)\s*{_NUM}\s*{unit}")
            # "scaling 2 to 6", "autoscale it between 1 and 8": a scaling verb names what the range counts
            verb = _compile(rf"\b(?:auto)?scal(?:e|es|ed|ing)\s+(?:(?:it|them|out|up|from|between|the\s+[\w-]+)\s+){{0,2}}"
                            rf"{_NUM}\s*(?:{_RANGE_TO}|and)\s*{_NUM}(?!\s*[\w.]*\d)(?!\s*(?!{unit})[a-z]+\s*(?:each|per)\b)")
            # "min two workers max ten", "at least 2 workers, at most 8": the unit after the first bound
            unit_first = _compile(rf"(?<![\w.])(?:min(?:imum)?|at\s+least)\s*[:=]?\s*{_NUM}\s*{unit}(?:\s+[a-z]+){{0,4}}?\s*"
                                  rf"(?:,|/|and|but)?\s*(?:(?:to\s+)?(?:a\s+)?max(?:imum)?(?:\s+of)?|at\s+most|up\s+to)\s*[:=]?\s*"
                                  rf"{_NUM}(?!\w|\.\w)")
            # "workers can float between three and ten": the unit, a few words, then the range
            unit_before = _compile(rf"{unit}\s+(?:[a-z]+\s+){{0,3}}?(?:between|from)\s+{_NUM}\s*(?:and|{_RANGE_TO})\s*{_NUM}"
                                   rf"(?!\w|\.\w)(?!\s*(?!{unit})[a-z]+\s*(?:each|per)\b)")
            # "from zero replicas until four": the unit after the first bound
            unit_between = _compile(rf"(?<![\w.])(?:from\s+|between\s+)?{_NUM}\s*{unit}\s*{_RANGE_TO}\s*{_NUM}(?!\w|\.\w)"
                                    rf"(?!\s*(?!{unit})[a-z]+\s*(?:each|per)\b)")
            pair = rx.search(self.text) or unit_first.search(self.text) or unit_before.search(self.text) \
                or unit_between.search(self.text) or verb.search(self.text)
            if pair:
                a, b = parse_number(pair.group(1)), parse_number(pair.group(2))
                if a is not None and b is not None:
                    self._take(lo_name, a, pair.span(1))
                    self._take(hi_name, b, pair.span(2))
                    self.result.covered.append(pair.span())
            if _singular(base) in counted:
                continue  # "at least 2 workers" counts the recipe's own workers, not a bound
            after = rf"(?:\s*{unit}|(?=\s*(?:$|[,.;)]|and\b|or\b|but\b|on\b|when\b|with\b|based\b)))"
            # "never below 2", "not under 1 replica", "a floor of 2"; "never past 8", "no higher than 10"
            for pname, lead in ((lo_name, r"at\s+least|(?:no|never)\s+(?:fewer|less)\s+than|min(?:imum)?(?:\s+of)?|"
                                          r"(?:never|not|no)\s+(?:(?:go(?:es)?|drop(?:s)?|scal(?:e|es)|fall(?:s)?)\s+)?"
                                          r"(?:below|under|lower\s+than)|(?:a\s+)?floor\s+of"),
                                (hi_name, r"at\s+most|up\s+to|(?:no|never)\s+more\s+than|max(?:imum)?(?:\s+of)?|"
                                          r"(?:never|not|no)\s+(?:(?:go(?:es)?|grow(?:s)?|scal(?:e|es)|rise(?:s)?)\s+)?"
                                          r"(?:above|over|past|beyond|higher\s+than)|(?:a\s+)?ceiling\s+of")):
                bound = _compile(rf"\b(?:{lead})\s+{_NUM}{after}").search(self.text)
                if bound and pname not in self.result.values:
                    n = parse_number(bound.group(1))
                    if n is not None and self._take(pname, n, bound.span(1)):
                        self.result.covered.append(bound.span())

    def _per_unit_maxima(self) -> None:
        """A most-per-unit parameter (``max_gpus_per_pod``) from the ways people bound one unit:
        "4 gpus per pod max", "at most 4 gpus a container", "no pod may ask for more than 4",
        "each pod can use up to 2". Read before totals so "one gpu per container max" is no quota."""
        for name in self.recipe.properties:
            m = re.fullmatch(r"max_([a-z]+)_per_([a-z]+)", name)
            if not m or name in self.result.values or self.recipe.properties[name].get("type") != "integer":
                continue
            thing = _words_alt([m.group(1)])
            units = [m.group(2)] + sorted({"pod", "container", "job", "workload"} - {m.group(2)}
                                          if m.group(2) in ("pod", "container") else set())
            unit = _words_alt(units)
            verb = (r"(?:(?:may|can|could|should|is\s+allowed\s+to|gets?\s+to|will)\s+)?(?:be\s+allowed\s+(?:to\s+)?)?"
                    r"(?:(?:ask|asks)\s+for|request|requests|use|uses|get|gets|have|has|take|takes|grab|grabs)?\s*")
            pats = [
                rf"(?<![\w.]){_NUM}\s*(?:{thing}\s*)?(?:per|a|each|/|in\s+any|for\s+any)\s*(?:single\s+|one\s+)?{unit}"
                r"(?:\s+(?:max(?:imum)?|at\s+most|tops))?",
                rf"\b(?:max(?:imum)?|at\s+most|up\s+to|no\s+more\s+than|limit(?:ed)?\s+to|cap(?:ped)?\s+at)\s+(?:of\s+)?{_NUM}\s*(?:{thing})?\s*(?:per|a|each|(?:in|on|for)\s+(?:any|one|a\s+single|a|each|any\s+single))\s+{unit}",
                rf"\b(?:no|not\s+a\s+single|none\s+of\s+the|no\s+single)\s+{unit}\s+{verb}(?:more\s+than|over|above|beyond)\s+{_NUM}(?!\w|\.\w)",
                # "each pod can use up to 2", "allow single pods up to 8 gpus each"
                rf"\b(?:each|every|any|a\s+single|single|individual|one|a)\s+{unit}\s+{verb}(?:at\s+most|up\s+to|no\s+more\s+than|max(?:imum)?(?:\s+of)?)\s+{_NUM}(?!\w|\.\w)",
                # "a single container can't grab more than two", "no pod should ever exceed 4"
                rf"\b(?:each|every|any|a\s+single|single|individual|one|a|no)\s+{unit}\s+(?:can'?t|cannot|can\s+not|may\s+not|"
                rf"must\s+not|mustn'?t|should\s+not|shouldn'?t|won'?t|is\s+not\s+allowed\s+to|should|may|can)\s+(?:ever\s+)?"
                rf"(?:[a-z]+\s+){{0,2}}?(?:more\s+than|over|above|beyond|exceed|exceeds)\s+{_NUM}(?!\w|\.\w)",
                # "nothing bigger than 4 GPUs in a single pod", "no more than 2 gpus in any one container"
                rf"\b(?:bigger|larger|more)\s+than\s+{_NUM}\s*(?:{thing})?\s*(?:in|per|for|on)\s+"
                rf"(?:a\s+single|any\s+one|any\s+single|any|one|a|each)\s+{unit}",
                # "max/pod 8"
                rf"\bmax(?:imum)?\s*/\s*{unit}\s*[:=]?\s*{_NUM}(?!\w|\.\w)",
            ]
            for p in pats:
                hit = _compile(p).search(self.text)
                if hit and self._free(hit.span()):
                    n = parse_number(hit.group(1))
                    if n is not None and self._take(name, n, hit.span(1)):
                        self.used.append(hit.span())  # "a single pod ... up to 8" counts no pods
                        break

    # ------------------------------------------ quantities given to parameters
    def _quantity_rules(self, name: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """A parameter's rules before its first size or duration rule that names cue words,
        and that rule (None when it has none)."""
        found = self.recipe.extract.get(name)
        rules = list(_DEFAULT_RULES.get(name, [])) if found is None else list(found)
        rules += _schema_rules(name, self.recipe.properties[name], list(self.recipe.properties))
        for k, r in enumerate(rules):
            if ("size" in r or "duration" in r) and r.get("near"):
                return rules[:k], r
        spec = self.recipe.properties[name]
        if spec.get("type") == "string" and not any("size" in r for r in rules) and not spec.get("enum"):
            v = _prop_validator(json.dumps(spec, sort_keys=True))
            if (v.is_valid("512Mi") or v.is_valid("10Gi")) and not v.is_valid("abc"):  # a quantity, nothing else
                return rules, {"size": "quantity", "near": [w for w in name_variants(name) if w.lower() not in _STOP]}
        return rules, None

    def _assign_quantities(self) -> None:
        """Sizes and durations given to the parameters they belong to, in one pass.

        When several parameters take the same kind of quantity ("request 80Gi, limit
        160Gi", "poll every 30s, cooldown 5 min"), each quantity in the request is
        scored against each such parameter by the words around it: the parameter's
        cue words (its ``near`` words, its name and the distinctive parts of its name,
        more weakly its description) counted in words away on either side, closer on
        the left ("limit 160Gi"), closest across ``=`` or ``:``, farther across a comma,
        a slash or another quantity. The best pairs are taken first, each quantity and
        each parameter once; the value must fit the parameter's schema. A parameter's
        own explicit rules listed before its size or duration rule are tried first."""
        props = self.recipe.properties
        cands: dict[str, tuple[dict[str, Any], list[tuple[str, float]]]] = {}
        for name in props:
            if name in self.result.values:
                continue
            before, rule = self._quantity_rules(name)
            if rule is None:
                continue
            for r in before:  # explicit rules first ("scheduleTimeoutSeconds: 30")
                explicit = next((k for k in ("regex", "flag", "enum") if k in r), None)
                got = getattr(self, f"rule_{explicit}")(name, r) if explicit else None
                if got is not None:
                    self._take(name, got[0], got[1])
                    break
            if name in self.result.values:
                continue
            cues = [(str(w), 0.0) for w in rule["near"]]
            parts = name.split("_")
            # a part's first letters ("temp" of temperature) bind less than a whole word ("time" of timeout
            # may be any time)
            cues += [(w, 1.5 if len(w) == 4 and w not in parts and any(p.startswith(w) for p in parts) else 0.0)
                     for w in name_variants(name) + distinctive_cues(name, list(props))]
            desc = str(props[name].get("description", "")).split(".")[0]
            cues += [(w, 1.5) for w in description_cues(desc)]
            cands[name] = (rule, cues)
        if not cands:
            return
        # a cue word several of these parameters answer to ("ephemeral") tells them apart less
        owners: dict[str, set[str]] = {}
        for name, (_rule, cues) in cands.items():
            for w, _pen in cues:
                for part in {w.lower(), _singular(w.lower())} | {_singular(p) for p in re.split(r"[\s_-]+", w.lower())}:
                    owners.setdefault(part, set()).add(name)
        for name, (rule, cues) in cands.items():
            # a word form counts with its others: "waits" is shared when another answers to "wait"
            cands[name] = (rule, [(w, pen + (2.0 if len(owners.get(w.lower(), set()) | owners.get(
                _singular(w.lower()), set())) > 1 else 0.0)) for w, pen in cues])
        mentions: list[tuple[str, re.Match]] = []
        for m in _SIZE_RE.finditer(self.text):
            if not m.group(3) and m.group(2).lower() in ("m", "k"):
                continue  # "500m" is millicores or minutes more often than megabytes
            before_text = self.text[max(0, m.start() - 12):m.start()].lower()
            if re.search(rf"(?:{'|'.join(_GPU_MODELS)})[\w-]*\s*-?$", before_text):
                continue  # "A100 80GB" names the GPU model
            mentions.append(("size", m))
        mentions += [("duration", m) for m in _DURATION_RE.finditer(self.text)]
        # "[1m]" inside "sum(rate(x[1m]))" is part of a larger value, not a duration of its own
        mentions = [(k, m) for k, m in mentions if self._free(m.span()) and not self._inside_code(m.span())]
        if not mentions:
            return
        starts = sorted(m.start() for _, m in mentions)
        pairs: list[tuple[float, int, str, Any, tuple[int, int], tuple[int, int]]] = []
        for name, (rule, cues) in cands.items():
            kind = "size" if "size" in rule else "duration"
            # (the longest cue first, where several start at one word: "permit waiting" before "permit")
            rx = _compile("|".join(f"(?:{_phrase_re(w, flags=_FLAGGED.get())})"
                                   for w in sorted({w for w, _ in cues}, key=lambda w: (-len(w), w))))
            pens: dict[str, float] = {}
            for w, pen in cues:
                pens[w.lower()] = min(pen, pens.get(w.lower(), pen))
            hits = [(c.span(), self._cue_penalty(c.group(0), pens)) for c in rx.finditer(self.text)]
            for k, m in mentions:
                if k != kind:
                    continue
                ok, val = self._size_value(name, rule, m) if kind == "size" else self._duration_value(name, m)
                if not ok:
                    continue
                best = None
                cue = (0, 0)  # the cue words that bind best: understood with the quantity
                support = 0.0  # the other cues that bind to it: a tie goes to the quantity more of them point at
                for (ca, cb), pen in hits:
                    if ca < m.end() and cb > m.start():
                        continue
                    left = cb <= m.start()
                    gap = self.text[cb:m.start()] if left else self.text[m.end():ca]
                    score = self._gap_score(gap, left, sum(1 for x in starts if min(cb, m.end()) <= x < max(ca, m.start()) and x != m.start()))
                    if score is not None:
                        # a longer cue names the parameter more exactly ("default memory 1Gi")
                        score += 0.5 * len(re.findall(r"[\s_-]+", self.text[ca:cb].strip()))
                        score -= pen
                        support += max(score, 0.0)
                        if best is None or score > best:
                            cue = (ca, cb)
                        best = score if best is None else max(best, score)
                if best is not None and kind == "size" and _ESTIMATE.search(self.text, max(0, m.start() - 16), m.start()) \
                        and _DATA_NOUN.search(self.text, max(0, m.start() - 40), m.start()) \
                        and any(k2 == "size" and m2.span() != m.span() for k2, m2 in mentions):
                    continue  # "the weights are about 25 GB; a 60Gi volume": the data's size, others are settings
                if best is not None:
                    best += 0.1 * (support - max(best, 0.0))
                    if _ESTIMATE.search(self.text, max(0, m.start() - 16), m.start()):
                        best -= _ESTIMATE_PENALTY  # "the weights are about 150 GB": an estimate describes
                    if self._in_command(m.span()):
                        best -= _ESTIMATE_PENALTY  # "docker run ... size=50g" then the words: what runs today
                    pairs.append((best, -m.start(), name, val, m.span(), cue))
        pairs.sort(key=lambda t: (-t[0], -t[1], t[2]))
        for _score, _pos, name, val, span, cue in pairs:
            if name not in self.result.values and self._free(span):
                self.result.values[name] = val
                self.result.spans[name] = span
                self.used.append(span)
                if cue[1] > cue[0] and cue[1] - cue[0] <= 40:
                    self.result.covered.append(cue)  # "reserve 100Gi of node disk": "node disk" said what it is

    @staticmethod
    def _cue_penalty(found: str, pens: dict[str, float]) -> float:
        """The penalty of the cue phrase that matched ``found`` (matching is by word form)."""
        best = None
        for w, pen in pens.items():
            if re.fullmatch(_phrase_re(w), found, re.I):
                best = pen if best is None else min(best, pen)
        return best if best is not None else 0.0

    @staticmethod
    def _gap_score(gap: str, left: bool, between: int) -> float | None:
        """How strongly a cue binds to a quantity across ``gap`` (None: not at all)."""
        if re.fullmatch(r"\s*[:=]\s*", gap):
            return 14.0 if left else None  # "limit=60Gi"; "20Gi limit=" is the next pair
        if _SENTENCE_END.search(gap) or re.search(r"[.!?]\s*$", gap.rstrip()) and not left:
            return None  # "80 gigs. Scratch emptyDir capped at 40Gi": the next sentence's cue is not this one's
        words = [w for w in re.findall(r"[\w'-]+", gap) if w.lower() not in _FILLERS]
        seps = len(re.findall(r"[,;/()]|\b(?:but|and|while|whereas|plus)\b", gap, re.I))
        if len(words) > 6 or (not left and re.search(r"[:=]\s*$", gap)):
            return None
        return 10.0 - len(words) - 2.5 * seps - 3.0 * between + (1.0 if left else 0.0)

    # ---------------------------------------------------- what was understood
    def _phrases_of(self, name: str) -> list[str]:
        """Words that introduce or qualify a parameter: its name, units, cue words, enum phrases."""
        out = list(name_variants(name))
        # "g5 family" for instance_families
        out += [w[:-3] + "y" if w.endswith("ies") else _singular(w) for w in name.split("_") if len(w) >= 4 and w.endswith("s")]
        rules = list(self.recipe.extract.get(name) or _DEFAULT_RULES.get(name, []))
        for rule in rules:
            for key in ("count", "after", "before", "near", "flag", "list", "boolean"):
                v = rule.get(key)
                if isinstance(v, list):
                    out += _with_subject_nouns(tuple(str(x) for x in v)) if key == "flag" else [str(x) for x in v]
            if isinstance(rule.get("count"), list):
                out += self._synonym_units(name, [str(x) for x in rule["count"]])
            if isinstance(rule.get("enum"), dict):
                for phrases in rule["enum"].values():
                    out += [str(x) for x in phrases]
        for rule in self._schema_enum_rules(name, own_rules=True):
            for phrases in rule["enum"].values():
                out += [str(x) for x in phrases]
        desc = str(self.recipe.properties.get(name, {}).get("description", ""))
        out += [w for w in re.findall(r"[A-Za-z][\w.-]{3,}|\b[A-Z]{3}\b", desc.split(".")[0]) if w.lower() not in _STOP]
        return out

    def _cover(self) -> None:
        covered = list(self.used)
        for a, _b in self.result.spans.values():  # "called 'x'", "named x": the naming word too
            m = re.search(r"\b(?:named|called|name\s*[:=]?|call\s+it|name\s+it)\s*[\"'`]?$", self.text[max(0, a - 14):a], re.I)
            if m:
                covered.append((max(0, a - 14) + m.start(), a))
        for name, (a, b) in self.result.spans.items():
            lo, hi = max(0, a - 40), min(len(self.text), b + 40)
            phrases = [p for p in self._phrases_of(name) if p.strip()]
            if phrases:
                # a cue of the value's own clause ("independent fileset, snapshot every night": not "snapshot")
                spans = [m.span() for m in _compile(_words_alt(phrases)).finditer(self.text, lo, hi)
                         if not re.search(r"[,;]|\.\s", self.text[min(m.end(), b):max(m.start(), a)])]
                covered += spans
                self.result.cues[name] = spans
        # Quoted or "named" values and "x" in "4 x 8" are structure, not content.
        self.result.covered = self.result.covered + covered


# Words that say a sentence describes what runs today, not what is asked for: "kubectl get pvc x shows
# storage: 200Gi", "currently 3 workers", "this is how we launch today".
# the labels of a ticket's sections on why and on what runs today
_STATE_LABEL_WORDS = (r"(?:context|background|motivation|problem|why|reason|rationale|current\s+(?:state|setup)|as-is|"
                      r"root\s+cause|what\s+happened|impact|timeline|symptoms?)")
# an incident told: "a runaway sweep grabbed 40 GPUs and starved the canaries", "a notebook user requested
# 24 GPUs and blocked the retrain", "it downloaded a 70 GB checkpoint", "two nodes ran for 6 hours at 92C"
_INCIDENT_WORDS = (r"grabbed|hogged|ate\s+up|took\s+up|starved|exhausted|swallowed|"
                   r"(?<=[a-z]\s)requested(?=\s+(?:\d|a\b|an\b|all\b|every\b))|downloaded|pulled\s+down|"
                   r"(?:got|was|were|kept\s+getting)\s+(?:evicted|oom-?killed|killed|preempted|throttled)|"
                   r"blocked|crashed|blew\s+up|spiked|maxed\s+out|ran\s+(?:for|out|hot|at)")
_INCIDENT = re.compile(r"\b(?:" + _INCIDENT_WORDS + r")\b", re.I)
_STATE = re.compile(r"\bkubectl\s[^.;]*?\bshow(?:s|ed|ing)?\b|\b(?:current|currently|today|right\s+now|at\s+the\s+moment|at\s+present|"
                    r"last\s+(?:week|month|quarter|year|night|sprint|time|semester|term|cycle|round|run|release|season|attempt|try)|"
                    r"yesterday|ago|"
                    # what an object reports or was: "the quota says 20 GPUs", "rec: was 16 gpus"
                    r"(?:says|said|shows|showed|reads|reports|reported)(?=\s+(?:[\w-]+\s+)?\d)|(?:was|were)(?=\s+(?:at\s+)?\d)|"
                    # an aside about something else: "For reference team-y keeps its 40 GPUs", "FYI the other pool has 64"
                    r"for\s+(?:reference|context|comparison|the\s+record|what\s+it'?s\s+worth)|fyi|by\s+comparison|"
                    r"previously|previous|(?:the|our|my)\s+(?:old|former)\s+(?:[\w-]+\s+)?(?:had|was|were|used|ran|has|is)|"  # what happened
                    # an incident told: "a runaway sweep grabbed 40 GPUs and starved the canaries"
                    + _INCIDENT_WORDS + r"|"
                    r"ran\s+with|(?:was|were|has\s+been|have\s+been)\s+running\s+(?:with|on|at)|"  # "the old job ran with 16 workers"
                    r"used\s+to|(?:we|i)\s+(?:have|had|run|ran|launch|launched|use|used|installed|deployed|configured|set\s+up|set|tried)|"
                    r"(?:they|he|she)\s+(?:had|ran|used|got)|theirs|hers|(?<=\bin\s)his\b|had(?=\s+(?:about\s+|around\s+|roughly\s+|only\s+)?\d)|"
                    # "img was nvcr.io/... in hers but use ours": the value something had
                    r"(?:image|img|tag|version|model|name|namespace|ns)\s+(?:was|were|used\s+to\s+be)\b|"
                    # someone else's setup: "another team's queue has 64 GPUs", "the infra team's pool has a limit
                    # of 128", "the nlp team gets 40 but we need 16"
                    r"(?:another|other|the\s+other|our\s+other|a\s+different|some\s+other)\s+(?:[\w-]+\s+)?(?:teams?|clusters?|groups?|"
                    r"labs?|tenants?|projects?|orgs?|departments?|customers?)(?:(?:'s|s')\s+(?:[\w-]+\s+){0,2}?(?:is|are|was|were)|"
                    r"(?:'s|s')?\s+(?:\([^()]{0,80}\)\s+)?(?:[\w-]+\s+){0,2}?(?:has|have|had|runs?|ran|uses?|used|gets?|got|keeps?|kept|takes?|took|"
                    r"sets?|owns?|pays?|paid|serves?|served))|"
                    r"[\w-]+\s+team(?:'s|s')\s+(?:[\w-]+\s+){0,2}?(?:has|have|had|is|are|was|were|runs?|ran|uses?|used|"
                    r"gets?|got|keeps?|kept|takes?|took|sits?)|"
                    r"[\w-]+\s+team\s+(?:has|have|had|gets|got|runs|ran|uses|used|keeps|kept|takes|took)"
                    r"(?=\s[\s\S]*\b(?:we|us|our|ours|my)\b)|"
                    # a plan given up: "was going to do seven 1g.10gb per card but ..."
                    r"(?:was|were)\s+going\s+to|(?:had\s+)?planned\s+to|originally\s+(?:wanted|planned)|"
                    r"existing|(?:sits?|sitting|is\s+pinned|pinned|pegged|hovers?|hovering|stuck|idles?|idling)\s+(?:on|at)|"  # "sits on 6 replicas"
                    r"is\s+how\s+we|this\s+is\s+(?:what|how)\s+we|"
                    # "same bundle as we gave team-a (8 GPUs, ...), but with 12 GPUs": the setup copied from
                    # (unless the change is relative to it: "same as my old pod (2 GPUs) but with twice the GPUs";
                    # "the same as a single pod: 2 GPUs, ..." says the form the same thing takes, and what follows)
                    r"same\s+(?:[\w-]+\s+){0,2}?as(?!\s+an?\s)(?![^.;\n]*\b(?:twice|double|triple|halve|half|times|more|fewer|less)\b))\b"
                    # a ticket's section on why: "Context: the 2 replicas are pegged at 95% by 10am."
                    r"|(?<![\w-])" + _STATE_LABEL_WORDS + r"\s*:(?=\s)", re.I)
_STATE_LABEL = re.compile(_STATE_LABEL_WORDS + r"\s*:", re.I)
_HISTORY_LABEL = re.compile(r"(?:root\s+cause|what\s+happened|impact|timeline)\s*:", re.I)
# "The shared-dataset PVC is 1Ti on efs-sc and it's full. Please create a new one, ...": a sentence that
# describes an object, before a request for a new one, is what runs today
_DESCRIBED = re.compile(r"(?:^|(?<=[.!?]\s))(?:the|our|my)\s+(?!new\b)(?:[\w'-]+\s+){0,2}?(?:pvc|claim|deployment|pod|job|queue|"
                        r"pool|nodepool|quota|volume|cluster\s*queue)\s+(?:is|are|has|have|runs|uses)\b(?!\s+(?:called|named)\b)"
                        r"(?=[^.!?]*[.!?]\s[^\n]*\b(?:a|the)\s+new\s+(?:one|copy|version|pvc|claim|deployment|pod|job|queue|pool)\b)",
                        re.I)
_STATE_END = re.compile(r"[.;!?](?=\s|$)|,\s(?=(?:so\s+|and\s+)?(?:please\s+|pls\s+)?(?:regenerate|recreate|redeploy|create|make|give|deploy|"
                        r"change|switch|move|scale|set|bump|raise|lower|drop|cut|put|ship|cap|apply|enforce)\b)|"
                        # what was decided since: "..., manager approved going to 4", "..., so this time 8"
                        r",\s(?=so\s+(?:\d|we\b|let's\b|now\b|this\b|give|make|set|use|go)|"
                        r"(?:[\w'-]+\s+){0,3}?(?:approved|agreed|signed\s+off|decided|okayed)\b|"
                        r"(?:so\s+|and\s+)?(?:this\s+(?:time|week|month|quarter|year|sprint|semester|term|cycle|round|run|release|season)|"
                        r"for\s+this\s+one|going\s+forward|from\s+now\s+on)\b|"
                        r"now\b|"  # "we used to run A100s, now we want H100"
                        # "we run 4 workers now, need another 4": what is wanted next
                        r"(?:but\s+|and\s+)?(?:we\s+|i\s+)?(?:really\s+)?(?:need|want|would\s+like|require)\b|"
                        # "..., going down to 24", "..., new number is 20", "..., from next month 14"
                        r"(?:(?:going|dropping|rising|moving|changing|growing|shrinking|coming)\s+(?:down\s+|up\s+|back\s+)?to|"
                        r"(?:the\s+)?new\s+(?:number|value|amount|quota|size|count|limit|figure)|(?:after|from|starting|once)\s)\b)|"
                        r"\s(?=but\b|instead\b|however\b|now\s+(?:make|give|change|set|bump|raise)\b|"
                        r"and\s+(?:the|our|my|their|its)\s+[\w-]+\s+(?:[\w-]+\s+)?(?:should|must|shall|can|may|needs?|"
                        r"wants?|shouldn't|mustn't|can't|cannot)\b)|```",
                        re.I)


def _state_spans(text: str) -> list[tuple[int, int]]:
    """The parts of ``text`` that describe the current state: from the start of a sentence with a
    state word to its end, or to a "but" or "instead" that turns to what is wanted."""
    out: list[tuple[int, int]] = []
    for m in sorted([*_STATE.finditer(text), *_DESCRIBED.finditer(text)], key=lambda x: x.start()):
        if out and m.start() < out[-1][1]:
            continue
        if m.group(0).lower() in ("current", "existing") and _BASE_OF_CHANGE.search(text, max(0, m.start() - 40), m.start()):
            continue  # "twice the current replicas, 2 GPUs per replica": the base of a change, not what runs
        if re.search(r"\b(?:like|as|same\s+as)\s+(?:it\s+is\s+|we\s+have\s+(?:it\s+)?)?$", text[max(0, m.start() - 20):m.start()], re.I) \
                and re.match(r"(?:today|now|currently|right\s+now|at\s+the\s+moment)\b", m.group(0), re.I):
            continue  # "70 per replica, like today": a value kept as it is, asked for again
        start = max(text.rfind(". ", 0, m.start()) + 2 if ". " in text[:m.start()] else 0,
                    text.rfind("; ", 0, m.start()) + 2 if "; " in text[:m.start()] else 0,
                    text.rfind("```", 0, m.start()) + 3 if "```" in text[:m.start()] and
                    text[:m.start()].count("```") % 2 == 0 else 0)
        if m.group(0).endswith(":"):
            # a ticket's labelled section ("Why: ...") runs from its label to the next label
            # ("Acceptance criteria:"), or to the end of its sentence when the request goes on without one
            # ("Reason: the on-demand bill was 3x forecast. New pool gpu-spot, spot only ...")
            label = _NEXT_LABEL.search(text, m.end())
            stop = _SENTENCE_END.search(text, m.end())
            ends = [x.start() for x in (label, stop) if x]
            out.append((m.start(), min(ends) if ends else len(text)))
            continue
        opened = text.rfind("(", start, m.start())
        closed = text.find(")", m.end())
        if opened >= 0 and ")" not in text[opened:m.start()] and 0 <= closed < (_STATE_END.search(text, m.end()) or m).end() + 200 \
                and "(" not in text[m.end():closed]:
            out.append((opened, closed + 1))  # "double the GPU limit (currently 32)": only the brackets say what runs
            continue
        end = _STATE_END.search(text, m.end())
        until = end.start() if end else len(text)
        # "Current values: replicas: 3; gpus: 1; model: x; Please change to: ...": a block of fields (its
        # lines joined by "; ") goes on while each next item is a field and its value
        if ":" in text[m.end():until]:
            while text.startswith(";", until) and (item := _FIELD_ITEM.match(text, until)):
                nxt = _STATE_END.search(text, item.end())
                until = nxt.start() if nxt else len(text)
        out.append((start, until))
    return _with_dismissed(text, out)


# what the writer dismisses right after saying it: "... serves 3 other teams with 50Ti each; not relevant
# here", "Team B runs 16 nodes - ignore that", "they set 1000000 and 500, don't copy those"
_DISMISSED = re.compile(r"[;,.:(\u2013-]\s*(?:(?:but\s+)?(?:that'?s|that\s+is|it'?s|this\s+is|which\s+is|those\s+are|they'?re)\s+)?"
                        r"(?:(?:not|n't)\s+(?:relevant|important|what\s+(?:i|we)\s+(?:want|need|mean|am\s+asking))|irrelevant|"
                        r"(?:please\s+)?(?:ignore|disregard|never\s+mind)\s+(?:that|this|those|these|it|them|their\s+[\w-]+)|"
                        r"(?:please\s+)?(?:do\s+not|don'?t)\s+(?:copy|reuse|use)\s+(?:that|this|those|these|it|them|their\s+[\w-]+)|"
                        r"(?:just|only)\s+(?:for\s+)?context)\b(?!\s*[:,])", re.I)


def _with_dismissed(text: str, out: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Add the clauses the writer dismisses (:data:`_DISMISSED`) to the state spans ``out``."""
    for m in _DISMISSED.finditer(text):
        start = max([0] + [i + 2 for i in (text.rfind(p, 0, m.start()) for p in (". ", "; ", "? ", "! ")) if i >= 0])
        if start < m.start():
            out.append((start, m.end()))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(out):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


# a field and its value among a block's lines (joined by "; "): "; gpus: 1"
_FIELD_ITEM = re.compile(r";\s*[A-Za-z][\w./-]*\s*:\s*[^;\s]")
# the words before the amount a change is relative to: "twice the current replicas", "10% more than the existing"
_BASE_OF_CHANGE = re.compile(r"\b(?:twice|double|triple|quadruple|halve|half(?:\s+of)?|\d+(?:\.\d+)?\s*(?:x|times)|times|"
                             r"(?:more|less|fewer|bigger|smaller|larger|higher|lower)\s+than|%\s+of)\s+(?:the|our|its|their)\s+$",
                             re.I)


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_NEXT_LABEL = re.compile(r"(?:(?<=[.!?]\s)|(?<=\s-\s))[A-Z][A-Za-z]*(?:\s[A-Za-z]+){0,3}\s*:(?=\s)")


# a phrase ruled out by the words after it: "the pytorch plugin isn't relevant here", "ssh not needed"
_NEGATED_AFTER = re.compile(r"\s*(?:(?:is|are)\s*(?:n['\u2019]t|not)\s+(?:\w+\s+)?(?:relevant|needed|necessary|required|"
                            r"wanted|useful|used|important)|(?:not\s+(?:needed|required|necessary|wanted))|unnecessary|"
                            r"unneeded)\b", re.I)


# a line quoted from an earlier message in a reply ("> proposal: 1 replica" then "+1, but make it 3")
_QUOTED_LINE = re.compile(r"(?m)^[ \t]*>[^\n]*")


# "our 64-GPU cluster", "the whole 128-card fleet": what exists, not an amount asked for
_CAPACITY = re.compile(r"(?<![\w.])\d+\s+(?:[\w.-]+\s+)?" + _COUNTED_NOUN + r"\s+altogether\b"
                       # "(64 GPUs in the cluster)", "128 cards across the fleet": what exists
                       r"|(?<![\w.])\d+\s+(?:[\w.-]+\s+)?(?:gpus?|cards?|accelerators?|(?:" + "|".join(_GPU_MODELS) + r")s?)"
                       r"\s+(?:in\s+total\s+)?(?:in|on|across)\s+(?:the|our|this)\s+(?:whole\s+|entire\s+)?(?:cluster|fleet)\b"
                       r"|\b(?:our|the|a|an|this|whole|entire|all)\s+(?:whole\s+|entire\s+)?\d+[-\s]?(?:gpus?|cards?|nodes?)\s+"
                       r"(?:cluster|fleet|estate|farm|datacenter|data\s+center|site|pool)s?\b"
                       # "we have 48 A100s in the cluster", "there are 64 GPUs in total on the cluster": what exists
                       r"|\b(?:we\s+have|we've\s+got|there\s+are|the\s+cluster\s+has)\s+(?:only\s+)?\d+\s*"
                       r"(?:gpus?|cards?|nodes?|" + "|".join(_GPU_MODELS) + r")s?\s+(?:in\s+total\s+)?"
                       r"(?:in|on|across)\s+(?:the|our|this)\s+(?:whole\s+)?(?:cluster|fleet|pool)\b"
                       # "the whole cluster is 96 GPUs", "the cluster has 200 GPUs in all": the size of what all share
                       r"|\b(?:the|our|this)\s+(?:whole\s+|entire\s+)?(?:cluster|fleet|estate|farm|site|datacenter|"
                       r"cohort|org|organi[sz]ation|department|company|division)\s+"
                       r"(?:is|has|holds|contains|totals?|counts?|is\s+made\s+up\s+of|shares|pools|owns)\s+(?:only\s+|just\s+|about\s+|around\s+|"
                       r"roughly\s+)?\d+\s*(?:[\w.-]+\s+)?(?:gpus?|cards?|accelerators?|nodes?|(?:" + "|".join(_GPU_MODELS) + r")s?)\b"
                       r"(?:\s+(?:in\s+all|in\s+total|total|altogether|overall))?"
                       # "only ten GPUs are free this week", "6 nodes are idle", "only 24 A100s free in that pool": what is
                       # available, not asked for
                       r"|(?<![\w.])(?:\d+|" + _SIMPLE_WORD + r")\s+(?:[\w.-]+\s+)?(?:gpus?|cards?|nodes?|accelerators?|(?:"
                       + "|".join(_GPU_MODELS) + r")s?)\s+(?:(?:are|is)\s+)?(?:currently\s+|still\s+)?"
                       r"(?:free|available|idle|spare|unused|left)\b", re.I)


# where a mail reply's earlier messages start ("-----Original Message-----", "On Tue, Sam wrote:")
_EARLIER_MAIL = re.compile(r"(?im)^[ \t]*(?:-{2,}\s*original\s+message\s*-{2,}|on\s[^\n]{3,100}\swrote:)[ \t]*$")


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    """The lines a reply quotes, or the earlier messages under a mail reply, when the reply says
    something of its own: what was said before."""
    quoted = [m.span() for m in _QUOTED_LINE.finditer(text)]
    earlier = _EARLIER_MAIL.search(text)
    if earlier and re.search(r"[A-Za-z0-9]", text[:earlier.start()]):
        quoted = [sp for sp in quoted if sp[1] <= earlier.start()] + [
            (m.start() + earlier.end(), m.end() + earlier.end()) for m in re.finditer(r"[^\n]+", text[earlier.end():])]
    if not quoted:
        return []
    rest = _QUOTED_LINE.sub("", text)
    return quoted if re.search(r"[A-Za-z0-9]", rest) else []


# a chat line's speaker: "raj: ...", "> [10:02] alice: ...", "- Paul (SRE): ..."
_SPEAKER_LINE = re.compile(r"(?m)^(?:>[ \t]*)?(?:[-*][ \t]+)?(?:\[[^\]\n]{1,24}\][ \t]*)?"
                           r"(?P<who>[A-Za-z][\w.'-]{0,24})(?:[ \t]*\([^)\n]{1,40}\))?:[ \t]+(?=[^\s\n]+[ \t]+\S)")
# a mail-like header naming who writes what follows ("From: Dana (ML platform)")
_FROM_LINE = re.compile(r"(?mi)^[ \t]*(?:>[ \t]*)?from:[ \t]+(?P<who>[^\n]{1,60})$")
# a quoted message signed at its end ('- "They just got budget for 12" \u2014 Ines')
_SIGNED_LINE = re.compile(r"(?m)^[ \t]*(?:[-*][ \t]+)?[\"\u201c][^\n]+[\"\u201d][ \t]*(?:\u2014|--|-)[ \t]*"
                          r"(?P<who>[A-Z][\w.'-]{0,24})[ \t]*$")
_TIMESTAMP = re.compile(r"\[\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]m)?\]", re.I)


def _thread_turns(recipe: Recipe, text: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The messages of a pasted chat or mail thread, oldest first, when ``text`` is one: lines led
    by a speaker ("raj: ...", "[10:05] bob: ..."), blocks under "From: X" headers, or quoted lines
    signed by their writer; each with the span of its speaker's label. A thread has two speakers at least, and one of them speaks again after
    the other (or its lines carry times, headers or signatures): a form's labels ("Team: x",
    "GPUs: 4") never take turns, and words of the recipe's parameters are never speakers."""
    param_words = {w for p in recipe.parameters for w in re.split(r"[_\W]+", p.lower()) if w}
    # (where a message starts, its speaker's label, who speaks)
    heads: list[tuple[int, tuple[int, int], str]] = []
    marked = 0
    froms = list(_FROM_LINE.finditer(text))
    signed = list(_SIGNED_LINE.finditer(text))
    if len(froms) >= 2:
        heads = [(m.start(), m.span(), m.group("who").split("(")[0].strip().lower()) for m in froms]
        marked = len(froms)
    elif len(signed) >= 2:  # a signed line's label is its signature, at the end
        heads = [(m.start(), m.span("who"), m.group("who").lower()) for m in signed]
        marked = len(signed)
    else:
        for m in _SPEAKER_LINE.finditer(text):
            who = m.group("who").lower()
            if who in param_words or who in _FIELD_LABELS:
                continue
            heads.append((m.start(), m.span(), who))
            marked += bool(_TIMESTAMP.search(m.group(0)))
    speakers = [w for _, _, w in heads]
    if len(set(speakers)) < 2:
        return []
    took_turns = any(speakers[i] in speakers[:i - 1] and speakers[i] != speakers[i - 1]
                     for i in range(2, len(speakers)))
    if not took_turns and marked < 2:
        return []
    # the last message ends with its own line, or with the text under a "From:" header
    nl = text.find("\n", heads[-1][0])
    last_end = len(text) if froms or nl < 0 else nl
    ends = [h[0] for h in heads[1:]] + [last_end]
    return [((start, end), label) for (start, label, _), end in zip(heads, ends)]


# words that label a form's fields, never a speaker in a thread
_FIELD_LABELS = frozenset("""name names namespace ns image team teams tenant project owner contact priority quota
value values note notes description summary context background problem goal goals request ask requirement
requirements acceptance deadline why what where when who how size model models node nodes pool gpu gpus cpu
memory storage labels label taint taints toleration tolerations replicas workers pods job queue flavor cohort
status result output error errors reason message env environment cluster region zone ticket subject re fwd
from to cc date sent update step steps todo fyi ps edit""".split())


def _thread_spans(norm: str, text: str, thread: list[tuple[tuple[int, int], tuple[int, int]]]
                  ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """A thread's messages and speakers' labels where they stand in the normalised request ``norm``.
    Each message runs from its label to the next one's (normalising may rewrite a message's words,
    "ok 24 then", but not its speaker's label); the last ends where its own lines end."""
    labels: list[tuple[int, int]] = []
    at = 0
    for (a, b), (la, lb) in thread:
        sp = _locate(norm, text[la:lb].strip(" \t>-*\u2014:"), at)
        if sp is None:
            return [], []
        labels.append(sp)
        at = sp[1]
    starts = [a for a, _ in labels]
    last = _locate_lines(norm, text[thread[-1][0][0]:thread[-1][0][1]]) if thread else None
    ends = starts[1:] + [max(last[1], starts[-1] + 1) if last else len(norm)] if starts else []
    # a signed message's label follows its words: it runs from the end of the one before
    if thread and thread[0][1][0] > thread[0][0][0]:
        turns = [(labels[i - 1][1] if i else 0, labels[i][1]) for i in range(len(labels))]
    else:
        turns = list(zip(starts, ends))
    return turns, labels


def _prefer_wanted(full: Extraction, wanted: Extraction, inside, stated: bool = False) -> None:
    """What was said before yields to what is said after: a parameter the later part of the request
    gives a value ("kubectl get pvc shows storage: 200Gi ... regenerate it but 500Gi") takes that
    value when the value read so far, or its rival, stands in the earlier part. With ``stated``, only
    a value the later words state (a number, a name) does: "you can't lend more than you have" is
    no amount."""
    for name, value in wanted.values.items():
        if stated and name in full.values and not _states_value(wanted.text, wanted.spans.get(name), value):
            continue
        if full.values.get(name) == value and name in full.conflicts and inside(full.conflicts[name][1]):
            full.conflicts.pop(name)  # "today has 8 GPUs ... 4 GPUs per worker": today's value is no rival
        if full.values.get(name) == value or inside(wanted.spans.get(name)):
            continue
        if name not in full.values or inside(full.spans.get(name)) or (
                name in full.conflicts and inside(full.conflicts[name][1])):
            full.values[name], full.spans[name] = value, wanted.spans[name]
            full.conflicts.pop(name, None)
            a, b = wanted.spans[name]
            for other in [o for o, sp in full.spans.items() if o != name and sp and a <= sp[0] and sp[1] <= b
                          and o not in wanted.values]:
                # the words now read as this value were read as another while the earlier part held this
                # one ("grabbed 40 GPUs ... cap at 12 GPUs" left the 12 to a CPU default)
                full.values.pop(other, None)
                full.spans.pop(other, None)
            full.cues[name] = wanted.cues.get(name, [])
            full.covered = full.covered + [wanted.spans[name], *full.cues[name]]


# (a word after it is its unit, unless it only tells when or how: "8 now", "4 instead")
_BARE_AMOUNT = re.compile(r"(?<![\w.$-])(\d+)(?![\w.%:/-])(?!\s*(?:(?!(?:now|then|instead|please|pls|this|from|going|"
                          r"for|and|as|at|again|too|today|asap)\b)[A-Za-z]|\d))")


def _incident_amounts(recipe: Recipe, text: str, full: Extraction, state: list[tuple[int, int]]) -> None:
    """An amount read only from an incident told ("it downloaded a 70 GB checkpoint", "a user requested
    24 GPUs and blocked the retrain") says what went wrong, not what to set: it is left unused."""
    # from the word that tells what happened on: "`transcribe-podcasts` (500 shards) failed because one
    # file kept crashing its pod" names the job before it
    incidents = [(m.start(), sp[1]) for sp in state if (m := _INCIDENT.search(text, sp[0], sp[1]))]
    for name in [n for n, sp in full.spans.items() if n in full.values and _within(incidents)(sp)]:
        spec = recipe.properties.get(name) or {}
        value = full.values[name]
        if spec.get("type") in ("integer", "number") or (isinstance(value, str) and _SIZE_RE.match(value)):
            a, b = full.spans.pop(name)
            gone = [(a, b), *full.cues.pop(name, [])]
            full.values.pop(name)
            full.covered = [c for c in full.covered if not any(x <= c[0] and c[1] <= y for x, y in gone)]
            full.notes.append(f"{name}: {text[a:b]!r} tells what happened; not used")


def _elided_amounts(recipe: Recipe, text: str, full: Extraction, state: list[tuple[int, int]]) -> None:
    """An amount read from what ran before, said again bare in the clause that follows it, with its unit
    left out ("they had 8 GPUs last semester, this semester give them 4", "16 gpus last quarter, this
    quarter 8"): the bare number is the amount wanted."""
    def home_of(span: tuple[int, int] | None) -> tuple[int, int] | None:
        return None if span is None else next(((a, b) for a, b in state if a <= span[0] < b), None)

    counts = [n for n, sp in full.spans.items() if (recipe.properties.get(n) or {}).get("type") == "integer"]
    for name in counts:
        home = home_of(full.spans.get(name))
        # (with two amounts of what ran, "this time 6" says which one no more)
        if home is None or sum(1 for n in counts if home_of(full.spans.get(n)) == home) != 1:
            continue
        a, b = full.spans[name]
        if re.fullmatch(r"\d+", text[a:b].strip()) and int(text[a:b]) != full.values.get(name):
            continue  # "twice the current replicas": the amount read there was changed already
        spec = recipe.properties[name]
        after = text[home[1]:home[1] + 120]
        clause = re.match(r"[\s,;]*(?:and\s+|so\s+|but\s+)?[^,.;\n]*", after)
        if not clause:
            continue
        # the bare number comes within a few words of the turn, and no other amount is said there
        turn = re.match(r"[\s,;]*(?:(?:and|so|but)\s+)?", clause.group(0))
        nums = [m for m in _BARE_AMOUNT.finditer(clause.group(0))
                if len(clause.group(0)[turn.end() if turn else 0:m.start()].split()) <= 7]
        if len(re.findall(r"\d+", clause.group(0))) != 1:
            continue
        at = [(home[1] + m.start(1), home[1] + m.end(1)) for m in nums]
        at = [sp for sp in at if not any(o != name and x and x[0] <= sp[0] < x[1] for o, x in full.spans.items())]
        if len(at) != 1:
            continue
        value = int(text[at[0][0]:at[0][1]])
        if _prop_validator(json.dumps(spec, sort_keys=True)).is_valid(value):
            full.values[name], full.spans[name] = value, at[0]
            full.conflicts.pop(name, None)
            full.covered = full.covered + [(home[1] + clause.start(), home[1] + clause.end())]


def _states_value(text: str, span: tuple[int, int] | None, value: Any) -> bool:
    if span is None:
        return False
    said = text[span[0]:span[1]].lower()
    return bool(re.search(r"\d", said)) or (isinstance(value, str) and value.lower() in said)


def _starts_within(spans: list[tuple[int, int]]):
    def inside(span: tuple[int, int] | None) -> bool:
        return span is not None and any(a <= span[0] < b for a, b in spans)
    return inside


def _within(spans: list[tuple[int, int]]):
    def inside(span: tuple[int, int] | None) -> bool:
        return span is not None and any(a <= span[0] and span[1] <= b for a, b in spans)
    return inside


# a row of a list or table led by a name: "- team-a: 24 GPUs, weight 3", "| ads | 16 |", "chat: 4 replicas x 1 GPU"
_NAMED_ROW = re.compile(r"(?m)^[ \t]*(?:[-*][ \t]+|\|[ \t]*)?(?P<name>[A-Za-z][\w.-]{1,40})[ \t]*(?::|\|)[ \t]*"
                        r"(?P<rest>[^\n]*\d[^\n]*)$")


def _selected_row(recipe: Recipe, text: str) -> tuple[tuple[int, int], str, list[tuple[int, int]]] | None:
    """A list or table with a row per object ("- chat: 4 replicas x 1 GPU", "- summarizer: 2 replicas
    x 2 GPUs") and one of them named again outside it ("give me the chat one first", "start with
    ads"): that row's span, its name, and the other rows' spans."""
    fences = fence_spans(text)
    words = {w for p in recipe.properties for w in re.split(r"[_\W]+", p.lower()) if w} | _FIELD_LABELS
    # (a pasted file's keys, "replicaCount: 2", "port: 8001", are settings, not rows of objects)
    rows = [m for m in _NAMED_ROW.finditer(text) if m.group("name").lower() not in words
            and not is_field_name(m.group("name")) and not any(a <= m.start() < b for a, b in fences)]
    if len(rows) < 2:
        return None
    listed = [(m.start(), m.end()) for m in rows]

    def outside(name: str) -> bool:
        for m in re.finditer(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text, re.I):
            if not any(a <= m.start() < b for a, b in listed):
                return True
        return False

    chosen = [m for m in rows if outside(m.group("name"))]
    if len(chosen) != 1 or len({m.group("name").lower() for m in rows}) != len(rows):
        return None
    row = chosen[0]
    return (row.start(), row.end()), row.group("name"), [sp for sp in listed if sp != (row.start(), row.end())]


# enum values that are also plain English words: read as the value when written as it ("Any", "Never")
_PLAIN_WORD_VALUES = frozenset("any all none never always default".split())
_NOT_TOGETHER = re.compile(r"\b(?:never|not|no)\s+(two|2|several|multiple)\s+(?:of\s+(?:them|the\s+\w+)\s+|[\w-]+\s+){0,2}?"
                           r"(?:on|per|in|share|sharing)\s+(?:the\s+|a\s+)?(?:same|one|single|a\s+single)?\s*"
                           r"(?:node|host|machine|box|server|gpu)s?\b", re.I)


# options laid out to choose from, one per line: "A) 4 pods x 8 GPUs", "Option 2: select by GPU name",
# "(b) spot only", "Plan B - on-demand"
_OPTION_LINE = re.compile(r"(?m)^[ \t]*(?:[-*\u2022][ \t]*)?(?:\*\*)?(?:(?:option|plan|variant|alternative|choice)[ \t]+)?"
                          r"\(?([A-Ha-h]|[1-9])(?:\)|:|\.|[ \t]+[-\u2013\u2014:])(?:\*\*)?[ \t]+\S[^\n]*", re.I)
# the choice made among them: "Going with B", "Decision (arch sync, 14 Nov): option 2", "let's take option b",
# "we pick C" (a bare letter only in capitals: "take a" is no choice)
_OPTION_CHOSEN = re.compile(
    r"(?i:\b(?:go(?:ing)?|went|goes|gone)\s+with|\bdecision\b[^\n:]{0,40}:|\bdecided(?:\s+on)?|\b(?:pick|picked|choose|chose|"
    r"chosen|take|took|prefer|pref)\b|\blet'?s\s+(?:do|take|use))\s+"
    r"(?:(?i:option|plan|variant|alternative|choice)\s+\(?([A-Ha-h1-9])\b|\(?([A-H1-9])\)?(?![\w-]))")


def _chosen_option(text: str) -> list[tuple[int, int]]:
    """Options laid out one per line ("A) 4 pods x 8 GPUs ... B) 8 pods x 4 GPUs ...") and the one chosen
    after them ("Going with B"): the spans of the options not chosen, whose values the request does
    not want. Nothing without a choice that names one of two or more options counting up from A (or 1)."""
    run = counting_run(list(_OPTION_LINE.finditer(text)), lambda m: m.group(1))
    if len(run) < 2:
        return []
    labels = {m.group(1).lower(): m for m in run}
    picks = [c for c in _OPTION_CHOSEN.finditer(text, run[-1].end()) if (c.group(1) or c.group(2)).lower() in labels]
    if len({(c.group(1) or c.group(2)).lower() for c in picks}) != 1:
        return []
    chosen = labels[(picks[0].group(1) or picks[0].group(2)).lower()]
    return [m.span() for m in run if m is not chosen]


# a cloud CLI's command that only reads what exists: "$ aws ec2 describe-instance-types --filters
# Name=instance-type,...", "gcloud compute accelerator-types list" (with the lines a backslash joins; kubectl's
# "get" and "describe" name the object a request goes on about, read on their own)
_READING_COMMAND = re.compile(r"(?m)^[ \t]*(?:\$[ \t]*)?(?:aws|gcloud|az|eksctl)[ \t]+(?:[\w-]+[ \t]+){0,2}?"
                              + READING_VERB + r"\b(?:[^\n\\]|\\(?![ \t]*\n))*(?:\\[ \t]*\n[^\n]*)*")


def _extract(recipe: Recipe, text: str) -> Extraction:
    ex = _Extractor(recipe, text)
    # its options ("Name=instance-type", "-l nvidia.com/gpu.present=true") say what was looked at, nothing asked for
    ex.blocked += [sp for m in _READING_COMMAND.finditer(text) if (sp := _locate(ex.text, m.group(0)))]
    # "A) 4 pods x 8 GPUs / B) 8 pods x 4 GPUs ... Going with B": the options not chosen give no values
    ex.blocked += [sp for a, b in _chosen_option(text) if (sp := _locate(ex.text, text[a:b]))]
    # "- chat: 4 replicas x 1 GPU / - summarizer: 2 replicas x 2 GPUs ... give me the chat one first":
    # the other rows are what comes later, not values of this object
    selected = _selected_row(recipe, text)
    others = [sp for a, b in selected[2] if (sp := _locate(ex.text, text[a:b]))] if selected else []
    ex.blocked += others
    # "never two pods on the same node": how pods may share a node, no count of them
    ex.blocked += [m.span(1) for m in _NOT_TOGETHER.finditer(ex.text)]
    # a design note's non-goals ask for nothing; they are reported as written
    ex.blocked += [sp for a, b in non_goal_spans(text) if (sp := _locate_block(ex.text, text[a:b]))]
    thread = _thread_turns(recipe, text)
    turns, labels = _thread_spans(ex.text, text, thread)
    ex.blocked += labels  # "[10:05] bob:" names who speaks: no value of the request
    state = _state_spans(ex.text) if _STATE.search(ex.text) or _DESCRIBED.search(ex.text) or \
        _DISMISSED.search(ex.text) else []
    quoted = [] if turns else [sp for a, b in _quoted_spans(text) if (sp := _locate(ex.text, text[a:b]))]
    state = sorted(state + quoted + [m.span() for m in _CAPACITY.finditer(ex.text)])
    full = ex.run()
    inside = _starts_within(state)  # "was going to do seven 1g.10gb ... so 4 x 1g.20gb": read from today's words on
    if state and (any(inside(sp) for sp in full.spans.values()) or any(inside(c[1]) for c in full.conflicts.values())
                  or any(inside(o[1]) for o in full.out_of_range.values())):
        # What runs today yields to what is asked for (nothing read from it: nothing to read again)
        again = _Extractor(recipe, text)
        again.blocked += labels + state + others
        _prefer_wanted(full, again.run(), inside)
        _elided_amounts(recipe, ex.text, full, state)
        _incident_amounts(recipe, ex.text, full, state)
        in_section = _within([sp for sp in state if _STATE_LABEL.match(ex.text, sp[0])])
        for bounded in [n for n, o in full.out_of_range.items() if in_section(o[1])]:
            full.out_of_range.pop(bounded)  # "Why: 33 GPUs for ~6 days": a total said as a reason bounds nothing
        capacity = _within([m.span() for m in _CAPACITY.finditer(ex.text)])
        for bounded in [n for n, o in full.out_of_range.items() if capacity(o[1])]:
            full.out_of_range.pop(bounded)  # "only 24 A100s free in that pool": what exists is no value asked for
    # A thread's later message overrides an earlier one ("raj: 3 pods x 2 gpus" ... "raj: ok 12 pods"):
    # each message in turn is read with the ones before it set aside.
    for k in range(1, len(turns)):
        earlier = _within(turns[:k])
        if not any(earlier(sp) for sp in full.spans.values()) and not any(earlier(c[1]) for c in full.conflicts.values()):
            continue
        again = _Extractor(recipe, text)
        again.blocked += labels + state + turns[:k] + others
        _prefer_wanted(full, again.run(), earlier, stated=True)
    full.covered = full.covered + labels
    if len(turns) >= 2:
        _settled_in_reply(ex, full, turns)
    if selected:  # the chosen row's name names the object, unless the request names it otherwise
        key = next((p for p in ("tenant", "name", "namespace") if p in recipe.properties), None)
        span = _locate(ex.text, selected[1], max(0, (_locate(ex.text, text[selected[0][0]:selected[0][1]]) or (0, 0))[0]))
        if key and key not in full.values and span and _fits(recipe.properties[key], selected[1]):
            full.values[key], full.spans[key] = selected[1], span
            full.covered = full.covered + [span]
    return full


# a reply settling on a bare amount ("ok 24 then", "ok 4", "fine, 4 then" read as "let's do 24")
_BARE_SETTLE = re.compile(r"\blet's do (\d+)(?!\s*(?:[A-Za-z%]|\.\d))")


def _settled_in_reply(ex: _Extractor, full: Extraction, turns: list[tuple[int, int]]) -> None:
    """A thread's later message that settles on a bare amount ("priya: ok 24 then") sets the one
    amount an earlier message gave (the 16 GPUs of "clusterqueue for ns speech, 16 gpus nominal?"):
    the thread is about that amount. With two amounts from earlier messages it is unclear which one."""
    def turn_of(at: int) -> int:
        return next((i for i, (a, b) in enumerate(turns) if a <= at < b), -1)

    settles = [m for m in _BARE_SETTLE.finditer(ex.text) if turn_of(m.start()) > 0]
    if not settles:
        return
    m = settles[-1]
    said = turn_of(m.start())
    earlier = [name for name, v in full.values.items() if isinstance(v, int) and not isinstance(v, bool)
               and name in full.spans and 0 <= turn_of(full.spans[name][0]) < said]
    if len(earlier) != 1:
        return
    name = earlier[0]
    ok, value = ex._ok(name, int(m.group(1)))
    if ok and value != full.values[name]:
        full.values[name], full.spans[name] = value, m.span(1)
        full.conflicts.pop(name, None)
        full.covered = full.covered + [m.span()]


def _fits(spec: dict[str, Any], value: str) -> bool:
    """Does ``value`` satisfy a string parameter's pattern and length?"""
    if spec.get("type") not in (None, "string"):
        return False
    pattern = spec.get("pattern")
    return (not pattern or re.fullmatch(pattern, value) is not None) and len(value) <= int(spec.get("maxLength", 253))


def _locate_lines(text: str, block: str, chat: bool = False) -> tuple[int, int] | None:
    """Where a block of lines of the request stands in its normalised ``text`` (which may join lines):
    from its first line found to its last. (A ``chat`` line's speaker is gone from the normalised text,
    :func:`_chat_lines`.)"""
    spans = [sp for line in block.splitlines()
             if line.strip() and (sp := _locate(text, _CHAT_LINE.sub("", line, count=1) if chat else line))]
    return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None


def _locate_block(text: str, block: str, chat: bool = False) -> tuple[int, int] | None:
    """Where a pasted block stands in the normalised ``text``: as a whole, or from its first line
    found to its last when normalising rewrote words inside it ("three percent" in a table)."""
    got = _locate(text, block)
    if got is None or got[1] - got[0] < len(block.strip()) // 2:
        got = _locate_lines(text, block, chat) or got
    return got


def _locate(text: str, piece: str, start: int = 0) -> tuple[int, int] | None:
    """Where ``piece`` of the request as written stands in its normalised ``text``."""
    piece = piece.strip()
    if not piece:
        return None
    at = text.find(piece, start)
    if at < 0:
        at = text.lower().find(piece.lower(), start)
    words = piece.split()
    if at < 0 and len(words) > 1:  # spaces collapsed ("| profile  | count |"): the same words in order
        m = re.compile(r"\s*".join(re.escape(w) for w in words), re.I).search(text, start)
        if m:
            return m.span()
    if at < 0:  # normalising rewrote part of it: anchor on its first and last words (not a table's pipes)
        words = [w for w in words if re.search(r"\w", w)] or words
        a = text.find(words[0], start)
        b = text.find(words[-1], a) if a >= 0 else -1
        if a >= 0 and b < 0 and "\n" not in piece:  # its last words rewritten ("three percent" -> "3%"): to its line's end
            end = text.find("\n", a)
            end = len(text) if end < 0 else end
            if end - a <= 2 * len(piece) + 20:
                return a, len(text[:end].rstrip())
        if a < 0 or b < 0 or b - a > 2 * len(piece) + 20:
            return None
        return a, b + len(words[-1])
    return at, at + len(piece)


# words that say when or how often, never what a thing is called
_TIME_ADVERBS = frozenset({"never", "always", "ever", "again", "already", "still", "anyway", "instead", "soon", "later",
                           "sometimes", "often", "rarely", "forever", "nightly", "daily", "weekly"})
# a tracker's ticket key, written in capitals ("OPS-2201", "INFRA-873", "SRE2-14")
_TICKET = re.compile(r"(?-i:[A-Z][A-Z0-9]{1,9}-\d+)")
# a half, a quarter or a fiscal year ("H2", "Q3", "FY25", "2025-Q1"): when something happens, never a name
_PERIOD = re.compile(r"(?:(?:19|20)\d\d-?)?(?:h[12]|q[1-4])|fy\d{2}(?:\d{2})?", re.I)


def _when_or_ticket(spec: dict[str, Any], value: str) -> bool:
    """Is ``value`` a word of time ("node expiry: never"), a ticket's key ("OPS-2201") or a period ("+12 GPUs for
    H2"), which a free-text parameter never takes as its value (a lifetime's pattern may spell "Never")?"""
    if "enum" in spec:
        return False
    return (value.lower() in _TIME_ADVERBS and value.lower() not in str(spec.get("pattern", "")).lower()) or \
        bool(_TICKET.fullmatch(value) or _PERIOD.fullmatch(value))


# the words right before a name that give it as the name: "named `x`", "called x", "name: x", "as x", "in namespace x"
_NAMING_CUE = re.compile(r"\b(?:named|called|name[ds]?\s*[:=]?|as|rename\w*\s+(?:it\s+)?to|namespace\s*[:=]?|ns\s*[:=]?|in|is|be|"
                         r"for)\s*[`'\"]?$", re.I)
# a name the request's own words give, outside any paste ("... as a PVC called train-data")
_NAMED_LATER = re.compile(r"(?<![\w-])(?:called|named)\s+[`'\"]?[a-z0-9][\w.-]*[a-z0-9](?![^`]*```)", re.I)
_INSTEAD_OF = re.compile(r"\b(\d+)\s+([a-z][\w-]*?)s?\s+(?:instead\s+of|rather\s+than|not)\s+(?:the\s+)?(\d+)\b", re.I)


def _with_foreign(recipe: Recipe, text: str, full: Extraction) -> Extraction:
    """``full`` with what a pasted definition from another system says (a batch script, a compose
    service, a launcher; see :mod:`.foreign`) filling the parameters the request's words left open,
    or read only from inside that paste."""
    facts, boiler, blocks = translate(text)
    if not facts:
        return full
    notes = [f for f in facts if f.fmt == NOTE]
    facts = [f for f in facts if f.fmt != NOTE]
    clauses: list[tuple[int, int, Any]] = []
    pos = 0
    for f in facts:
        clauses.append((pos, pos + len(f.words), f))
        pos += len(f.words) + 2
    # one fact a line, so that a fact written as a field ("Replicas: five") reads as a form's line
    syn = _Extractor(recipe, ",\n".join(f.words for f in facts)).run()
    where = [_locate_block(full.text, text[a:b], any(f.fmt == "transcript" and a <= f.start < b for f in facts))
             for a, b in blocks]
    inside_block = [w for w in where if w]

    def located(a: int, b: int) -> tuple[int, int] | None:
        """Where a piece of a block stands in the normalised text, searched from its block's place
        (every line of a batch script opens with the same "#PBS")."""
        start = next((w[0] for (x, y), w in zip(blocks, where) if w and x <= a < y), 0)
        return _locate(full.text, text[a:b], start)

    # each fact where it stands: searched after the one before it in its block ("enabled: false" twice)
    placed: dict[int, tuple[int, int] | None] = {}
    cursor: dict[int, int] = {}
    for f in sorted(facts, key=lambda x: x.start):
        k = next((i for i, (x, y) in enumerate(blocks) if x <= f.start < y), -1)
        home = where[k] if k >= 0 else None
        at = cursor.get(k, home[0] if home else 0)
        sp = _locate(full.text, text[f.start:f.end], at)
        placed[id(f)] = sp
        if sp:
            cursor[k] = sp[1]

    def inside(span: tuple[int, int] | None) -> bool:
        return span is not None and any(a <= span[0] and span[1] <= b for a, b in inside_block)

    # "but with 4 nodes instead of 2": the paste's 2 nodes are what the words replace, whichever parameter
    # the paste's line reads as
    replaced = [(m.group(3), m.group(2).lower()) for m in _INSTEAD_OF.finditer(full.text) if not inside(m.span())]
    taken: list[tuple[int, int]] = []
    for name, value in syn.values.items():
        sa, _sb = syn.spans.get(name, (0, 0))
        fact = next((f for a, b, f in clauses if a <= sa < b + 1), None)
        if fact is None:
            continue
        if fact.fmt in SETTINGS_FORMATS and isinstance(value, str) and " " in fact.words and \
                value.lower() in fact.words.lower().split()[1:-1]:
            continue  # "mig manager config name lab-mig-layouts": a word of the key path is no value (it ends the line)
        if name not in full.values and any(str(value) == old and re.search(rf"\b{re.escape(noun)}", fact.words, re.I)
                                           for old, noun in replaced):
            if (gone := placed.get(id(fact))) is not None:
                taken.append(gone)
            continue
        span = placed.get(id(fact))
        if isinstance(value, (dict, list)):  # a value gathered over several lines ("| 1g.10gb | 2 |" a row each)
            # ... or a list of objects, one a row ("| batch-train | 1000 | no |"): each known by its name
            items = [str(k.get("name", "")) if isinstance(k, dict) else str(k)
                     for k in (value if isinstance(value, dict) else value) if not isinstance(k, list)]
            taken += [sp for f in facts if f is not fact and any(i and i in f.words for i in items)
                      and (sp := placed.get(id(f)))]
        # a Markdown table (or CSV rows) is the request's own settings, keyed: it wins over a reading of its raw text
        # and of the words that lead into it ("quota for the speech team:"), not over words after it
        table_end = next((b for a, b in inside_block if span and a <= span[0] < b), None) \
            if fact.fmt in ("table", "csv") else None
        if name in full.values:
            if span:
                taken.append(span)  # said in words too, or changed by them: understood either way
            keyed = table_end is not None and full.spans.get(name, (0, 0))[0] < table_end
            # a name the words gave with no cue for it ("retiring our `llm-gateway` chart") yields to the one
            # a pasted definition keys as the name ("fullnameOverride: qwen-chat")
            guessed = not full.cues.get(name) and isinstance(value, str) and isinstance(full.values[name], str) \
                and fact.words.startswith("named ") \
                and fact.fmt in SETTINGS_FORMATS and not inside(full.spans.get(name)) and \
                not any(a <= full.spans.get(name, (-1, -1))[0] < b for a, b in fence_spans(full.text))
            # ... and so does a name the words cut short ("Autoscale summarizer" for "deployment: summarizer-vllm")
            said_at = full.spans.get(name, (0, 0))[0]
            shortened = isinstance(value, str) and isinstance(full.values[name], str) and fact.fmt in SETTINGS_FORMATS \
                and re.match(rf"{re.escape(full.values[name])}[-_.]\w", value) is not None \
                and not _NAMING_CUE.search(full.text, max(0, said_at - 30), said_at)  # ("named `ranker-distill`" stands)
            # ... and a kustomization's patch changes what a pasted base says ("replicas: 1" in base/, 3 in the overlay)
            overlay = fact.fmt == "kustomize" and inside(full.spans.get(name))
            # ... and an answer read with its question ("Pod name and namespace?" "x in y") reads it better than
            # the words alone
            # (and so does a call's argument its reader evaluates: "stabilizationWindowSeconds=15 * 60")
            # (and so does an edit by path, a JSON Patch, yq or a test's assertion: what it sets, it sets)
            overlay = overlay or (fact.fmt in ("transcript", "call", "paths") and inside(full.spans.get(name)))
            # ... and a pasted setting keyed by the parameter's own name ('"tenant": "fraud-detect"') wins over a
            # reading of the words inside the same paste ('"notes": "a low-priority team"')
            overlay = overlay or (fact.fmt in SETTINGS_FORMATS and inside(full.spans.get(name)) and
                                  re.match(rf"{re.escape(name.replace('_', ' '))}:?\s", fact.words, re.I) is not None)
            if not keyed and not guessed and not shortened and not overlay and \
                    not _paste_misread(full.values[name], value, inside(full.spans.get(name)), facts) \
                    and not _cut_short(full.text, full.spans.get(name), full.values[name], value):
                continue  # the request's words win over what runs today, and so does a change they make to it
        full.values[name] = value
        full.spans[name] = span or (0, 0)
        full.cues[name] = []
        if name in full.conflicts and (inside(full.conflicts[name][1]) or not full.conflicts[name][1][1]):
            full.conflicts.pop(name)
        full.out_of_range.pop(name, None)
        if span:
            taken.append(span)
    # a command that creates the object ("kubectl run x -n ns --image=y") is read whole by its reader: what the
    # words read inside it that the reader does not ("x -n ns" as the container's command) is a misreading
    # ... and so is a transcript, read an answer with its question ("bot: Device plugin or DRA?" names no setting)
    made = [w for (a, b), w in zip(blocks, where)
            if w and any(f.fmt in ("create", "transcript") and a <= f.start < b for f in facts)]
    for name in [n for n, sp in full.spans.items() if n not in syn.values and n in full.values
                 and any(x <= sp[0] and sp[1] <= y for x, y in made)]:
        full.values.pop(name)
        full.spans.pop(name)
    # a remark beside a setting ("| GPU ceiling | 64 | = 8 x p5.48xlarge |", "startupBudgetSeconds: 1200  # weights
    # take ~14 min") says why: what the words read in it is no setting, and it is reported as written
    remarks: list[tuple[tuple[int, int], str | None]] = [(sp, None) for f in notes if (sp := located(f.start, f.end))]
    # ... and so does a comment on a setting's line, about the setting its key gives: the key's value wins
    # ("startupBudgetSeconds: 1200  # weights take ~14 min"; "ami_type = X  # pinned bottlerocket@v1.26.2" says
    # what the key alone cannot, and is read)
    for a, b in blocks:
        for c in re.finditer(r"(?m)^[ \t]*[\"']?([A-Za-z_][\w.-]*)[\"']?[ \t]*[:=][ \t]*([^#\n]*?)[ \t]+(#(?!\s*TODO\b)[^\n]*)",
                             text[a:b]):
            by_key = _setting_by_key(recipe, digits_view(f"{' '.join(key_words(c.group(1)))} {c.group(2).strip(chr(34) + chr(39))}"),
                                     set()) if c.group(2).strip() else None
            if by_key and (sp := located(a + c.start(3), a + c.end(3))):
                remarks.append((sp, by_key[0]))
    full.remarks = full.remarks + [sp for sp, _n in remarks]
    for (x, y), only in remarks:
        for name in [n for n, (a, b) in full.spans.items() if x <= a < y and b > a and only in (None, n)]:
            full.values.pop(name, None)
            full.spans.pop(name, None)
    # a setting no rule read, keyed by the parameter it sets in other words ("disk_size = 300",
    # "max_imbalance: 2", "per_unit_storage_throughput = 500"): the parameter whose name and
    # description share the most of its key's words takes its value, when the schema accepts it
    consumed = {id(f) for name in syn.values for a, b, f in clauses if a <= syn.spans.get(name, (-9, 0))[0] < b + 1}
    for f in facts:
        # ... and so does a table's row of one setting ("| GPU cap | forty |")
        setting = f.fmt in SETTINGS_FORMATS or (f.fmt in ("table", "csv") and ", " not in f.words)
        if not setting or id(f) in consumed or not (span := placed.get(id(f))):
            continue
        got = _setting_by_key(recipe, digits_view(f.words.replace(": ", " ")), set(full.values))
        if got is not None:
            full.values[got[0]] = got[1]
            full.spans[got[0]] = span
            full.cues[got[0]] = []
            full.covered.append(span)
            taken.append(span)
    taken += [sp for a, b in boiler if (sp := located(a, b))]
    # a line of a settings file says one thing: when the request's words read a value from inside it,
    # the line is understood as well
    read = [sp for sp in full.spans.values() if sp[1] > sp[0]]
    # a pasted key's line the words understood (not a whole block, which a one-line paste is)
    lines = [sp for sp in full.covered if 0 < sp[1] - sp[0] <= 120 and sp not in inside_block]
    taken += [sp for f in facts if f.fmt in SETTINGS_FORMATS and (sp := placed.get(id(f)))
              and (any(sp[0] <= x and y <= sp[1] for x, y in read) or any(x < sp[1] and sp[0] < y for x, y in lines))]
    # the rest of each block is reported as written, line by line: what the new manifest leaves out
    for block in inside_block:
        full.covered.append(block)
        for line in re.finditer(r"[^\n]+", full.text[block[0]:block[1]]):
            a, b = block[0] + line.start(), block[0] + line.end()
            cuts = sorted((max(a, x), min(b, y)) for x, y in taken if x < b and a < y)
            pos = a
            for x, y in [*cuts, (b, b)]:
                if x > pos:
                    # a table's cells are reported one by one, without their pipes
                    for piece in (_trimmed(p) for p in re.split(r"\s*\|\s*", full.text[pos:x])):
                        if re.search(r"[A-Za-z0-9]", piece) and not piece.startswith("```"):
                            full.unread.append(piece)
                pos = max(pos, y)
    return full


# the words settings files use for what a parameter's name or description calls otherwise
_KEY_SYNONYMS = {"ceiling": "limit", "cap": "limit", "disk": "volume", "imbalance": "skew", "scale": "replicas", "instances": "replicas",
                 "size": "size", "capacity": "size", "storage": "storage", "throughput": "throughput"}
# what a parameter counts "per": "1 GPU per pod" is the rate itself, never a count of the pods
_RATE_BASES = frozenset({"pod", "worker", "replica", "node", "container", "task", "process", "rank", "gpu", "job",
                         "instance", "machine", "box", "host", "server", "vm", "card", "group", "slot", "member"})
def _counts_per_pod(rule: dict[str, Any]) -> bool:
    """Does a count rule count anything but the pieces of work there are in all (GPUs, CPUs, retries)?
    ("one GPU per chunk" is a pod's GPU, "1 retry per shard" a shard's retry; "one piece per folder" is as
    many pieces as folders)"""
    return not {str(u).lower() for u in rule.get("count") or []} & _ITEM_UNITS


_ITEM_UNITS = frozenset({"shards", "chunks", "pieces", "parts", "completions", "tasks", "items", "files", "partitions",
                         "batches", "segments"})


# what a recipe counts, in any of its words: machines, retries, pieces of work, replicas, workers, GPUs
_COUNTED_THINGS = frozenset().union(*_COUNT_SYNONYMS, {"gpu", "pod", "job"})
# the words of a key that bound or count what its other words name
_BOUND_KEY_WORDS = frozenset({"max", "min", "maximum", "minimum", "total", "num", "number", "count"})
_KEY_GENERIC = frozenset({"spec", "config", "settings", "value", "values", "default", "the", "of", "for", "per", "in",
                          "enabled", "type", "name", "mode", "policy"})


@lru_cache(maxsize=64)
def _param_words(recipe_id: str, path: str, props: str) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    out = {}
    for name, spec in json.loads(props).items():
        own = frozenset(_singular(w) for w in name.lower().split("_") if w)
        desc = frozenset(_singular(w) for w in re.findall(r"[a-z][a-z0-9]+", str(spec.get("description", "")).lower())
                         if len(w) > 2 and w not in _STOP)
        out[name] = (own, desc)
    return out


def _setting_value(spec: dict[str, Any], raw: str) -> Any:
    """``raw`` as a value of a parameter with ``spec``, or None: "300" is 300, or "300Gi" for a size;
    "on"/"off" a boolean; "20m" seconds for an integer of seconds."""
    t = spec.get("type")
    low = raw.strip().lower()
    if t == "boolean":
        return {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False,
                "enabled": True, "disabled": False}.get(low)
    if t == "integer":
        if re.fullmatch(r"-?\d+", low):
            return int(low)
        m = re.fullmatch(r"(\d+)\s*(s|m|h)", low)
        return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2)] if m else None
    if t == "string":
        if "enum" in spec:
            return next((e for e in spec["enum"] if str(e).lower() == low), None)
        if re.fullmatch(r"\d+(?:\.\d+)?", low) and "Gi" in str(spec.get("pattern", "")):
            return f"{low}Gi"  # "disk_size = 300": GiB, as cloud settings count disk sizes
        return raw.strip()
    return None


def _word_form_of(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` one word in two forms ("guaranteed" and "guarantee", "reserved" and "reserve")?"""
    if a == b or (min(len(a), len(b)) >= 5 and abs(len(a) - len(b)) <= 2 and (a.startswith(b) or b.startswith(a))):
        return True
    # ("poll" and "polling", "tag" and "tags": a short word and its inflection)
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 3 and long_.startswith(short) and long_[len(short):] in ("s", "es", "ed", "ing", "er", "ers")


# a key's word that gives the unit of its amount ("keep_finished_hours", "timeout_mins")
# ("min" is as often a minimum: "min_instances")
_KEY_TIME_UNITS = {"seconds": 1, "secs": 1, "sec": 1, "minutes": 60, "mins": 60, "hours": 3600, "hrs": 3600,
                   "hour": 3600, "days": 86400, "day": 86400}
_TIME_UNIT_WORDS = {1: r"\bsec", 60: r"\bmin(?:ute)?s?\b", 3600: r"\bhours?\b", 86400: r"\bdays?\b"}


def _setting_by_key(recipe: Recipe, words: str, taken: set[str]) -> tuple[str, Any] | None:
    """The parameter a pasted setting ("300 disk size", "spread max imbalance 2") sets, and its value."""
    toks = words.split()
    if len(toks) < 2:
        return None
    if re.fullmatch(r"-?\d+(?:\.\d+)?\w*", toks[0]):
        raw, key = toks[0], toks[1:]
    else:
        raw, key = toks[-1], toks[:-1]
    # (a key's unit of time names a parameter counted in seconds: "keep_finished_hours" for ttl_seconds)
    keys = {_singular("seconds" if w in _KEY_TIME_UNITS else _KEY_SYNONYMS.get(w, w))
            for w in (k.lower() for k in key) if w not in _KEY_GENERIC}
    if not keys:
        return None
    props = recipe.properties
    table = _param_words(recipe.id, str(recipe.path), json.dumps(props, sort_keys=True, default=str))
    scored = []
    for name, (own, desc) in table.items():
        # ("gpu_guaranteed" says guarantee_gpus: one word's forms, "guaranteed" and "guarantee")
        said = {k for k in keys if any(_word_form_of(k, w) for w in own)}
        described = (keys - said) & (desc - own)
        # ("MAX_NODES=5" bounds a count of machines or workers: what the recipe counts, in other words)
        alike = (keys - said) <= _COUNTED_THINGS | {"cpu"}
        if not said - _BOUND_KEY_WORDS and not described and not alike:
            continue  # "max_epochs=30" shares only its bound with max_skew: no word of what is bounded
        score = 2 * len(said) + len(described)
        if score:
            # on a tie, the parameter whose own name the key says whole ("GPU cap": gpus, not deserved_gpus)
            scored.append((score, len(said) / max(1, len(own)), name))
    scored.sort(reverse=True)
    if not scored or scored[0][0] < 2 or (len(scored) > 1 and scored[1][:2] == scored[0][:2]):
        return None
    name = scored[0][2]
    if name in taken:
        return None
    spec = props[name]
    value = _setting_value(spec, raw)
    unit = next((_KEY_TIME_UNITS[w] for w in (k.lower() for k in key) if w in _KEY_TIME_UNITS), None)
    if unit and isinstance(value, int) and not isinstance(value, bool) and \
            re.search(r"seconds?\b", f"{name} {spec.get('description', '')}", re.I) and not \
            re.search(_TIME_UNIT_WORDS[unit], f"{name} {spec.get('description', '')}", re.I):
        value *= unit  # "keep_finished_hours = 6" is 21600 seconds
    if value is None or not _prop_validator(json.dumps(spec, sort_keys=True)).is_valid(value):
        return None
    if isinstance(value, str) and _when_or_ticket(spec, value):
        return None  # "node expiry: never" says when, and names no role
    return name, value


def _trimmed(piece: str) -> str:
    """A left-over piece of a pasted line without the separators around it; a quote or bracket
    is kept when its partner is in the piece, and an option keeps its dash ("-q gpu_batch")."""
    pairs = {"(": ")", "[": "]", "{": "}", ")": "(", "]": "[", "}": "{"}

    def paired(ch: str) -> bool:
        return piece.count(ch) >= 2 if ch in "\"'`" else pairs[ch] in piece

    piece = re.sub(r"^[\s,;:]*(?:-\s+)?|[\s,;:]+$", "", piece)
    while piece and piece[0] in "\"'`[{(" and not paired(piece[0]):
        piece = piece[1:].strip(" ,;:")
    while piece and piece[-1] in "\"'`]})" and not paired(piece[-1]):
        piece = piece[:-1].strip(" ,;:")
    return piece


def _named_row(recipe: Recipe, text: str, full: Extraction) -> Extraction:
    """A list of GPU amounts per team ("- vision: 16", "| nlp | 24 |") and a request for one of them
    ("the clusterqueue for nlp with its share"): the named team's row is its amount of GPUs."""
    if "gpus" not in recipe.properties or "gpus" in full.values:
        return full
    names = [str(full.values[p]) for p in ("namespace", "tenant", "name") if isinstance(full.values.get(p), str)]
    for who in names:
        rows = list(re.finditer(rf"(?im)^[ \t]*(?:[-*][ \t]*|\|[ \t]*)?{re.escape(who)}[ \t]*(?:[:=|][ \t]*|[ \t]+)(\d+)"
                                rf"[ \t]*(?:gpus?)?[ \t]*\|?[ \t]*$", text))
        if len(rows) != 1:
            continue
        row = rows[0]
        if not re.search(r"\bgpus?\b", text[max(0, row.start() - 200):row.end()], re.I):
            continue  # a list of some other amount
        n = int(row.group(1))
        span = _locate(full.text, text[row.start():row.end()])
        if span and 0 <= n <= int(recipe.properties["gpus"].get("maximum", n)):
            full.values["gpus"] = n
            full.spans["gpus"] = span
            full.covered.append(span)
            said = text[row.start():row.end()]
            full.unread = [u for u in full.unread if u not in said]  # the row's cells, read now
        break
    return full


_COUNTED_FACT = re.compile(r"\d+x\s")  # "3x 2g.20gb": how many of a thing a paste holds


def _cut_short(text: str, span: tuple[int, int] | None, said: Any, pasted: Any) -> bool:
    """Did the words give only the start of the name a paste spells out ("the quota for NLP research"
    read as nlp where the paste has ``namespace = "nlp-research"``)? The words then say the same name."""
    if not (isinstance(said, str) and isinstance(pasted, str) and span) or len(pasted) <= len(said):
        return False
    low = said.lower()
    if not pasted.lower().startswith(low) or not re.match(r"[\s_.-]", pasted[len(said)]):
        return False
    at = text.lower().find(low, max(0, span[0] - 1), span[1] + 1)
    if at < 0:
        return False
    def flat(x: str) -> str:
        return " ".join(re.split(r"[\s_.-]+", x.lower()))
    return flat(text[at:at + len(pasted) + 8]).startswith(flat(pasted))


def _paste_misread(said: Any, pasted: Any, from_paste: bool, facts: list[Any]) -> bool:
    """Did the request's own reading of a pasted definition go wrong where the definition's format
    reads it right? Only for a value read from inside the paste: a key read as a value
    ("jobName"), part of a value (a repository without its tag), or a value run on past the
    paste's end. A number read there is kept: the words may have changed it ("halve the shm")."""
    if not from_paste or said == pasted:
        return False
    if isinstance(said, str) and isinstance(pasted, str):
        if re.match(r"\d", said) and re.match(r"\d", pasted):
            return False  # an amount: kept, like a number
        # ... or a word the paste only counts read as this value ("2g.20gb" of "3x 2g.20gb" for a layout's name)
        return said in pasted or pasted in said or not any(said in f.words.split() and pasted not in f.words
                                                            for f in facts if not _COUNTED_FACT.match(f.words))
    if isinstance(said, list) and isinstance(pasted, list):
        return said[:len(pasted)] == pasted or pasted[:len(said)] == said
    return False


# "a budget of 32 GPUs", "32 GPUs in total": an amount of GPUs for the whole job
_TOTAL_GPUS = re.compile(r"\b(?:total|budget|overall|altogether)\s+(?:is\s+|of\s+|[:=]\s*)?(\d+)\s*(?:gpus?|cards?)\b|"
                         r"\b(\d+)\s*(?:gpus?|cards?)\s+(?:in\s+total|total|overall|altogether|in\s+all|budget)\b", re.I)
# the parameters that count the pods a per-pod amount is given to
_POD_COUNTS = ("nodes", "workers", "replicas", "members")
# "sixteen GPUs across two machines", "24 cards spread over 3 nodes": a total and the machines it is spread
# over, whatever else the request calls those machines (workers, replicas)
_TOTAL_OVER = re.compile(rf"(?<![\w.-])(?P<total>\d+|{_SIMPLE_WORD})\s+(?:[\w.-]+\s+)?(?:gpus?|cards?)\s+"
                         r"(?:in\s+total\s+|in\s+all\s+|total\s+)?(?:(?:spread|split|divided|distributed)\s+)?"
                         rf"(?:across|over|on)\s+(?P<units>\d+|{_SIMPLE_WORD})\s+(?:[\w.-]+\s+)?"
                         r"(?:machines?|nodes?|hosts?|servers?|boxes|box|instances?)\b", re.I)


# "1 head + 3 workers", "a head node and three worker nodes", "leader plus one worker": a group counted
# in two parts
_LEADER_PLUS = re.compile(rf"(?<![\w-])(?:(?:1|one|a|an|the)\s+)?(?:head|leader)(?:\s+(?:node|pod|box|machine|host|server))?"
                          rf"\s*(?:\+|and|plus|with|&)\s*(?P<n>\d+|{_SIMPLE_WORD})\s+(?:more\s+)?(?:gpu\s+)?(?:worker|follower)s?"
                          r"(?:\s+(?:nodes?|pods?|boxes|machines?|hosts?|servers?))?(?![\w-])", re.I)


def _leader_and_workers(recipe: Recipe, full: Extraction) -> Extraction:
    """A group whose size counts its leader ("the leader included"), told as a head and its workers
    ("1 head + 3 workers"), has the workers and the head: 4. The workers alone are no size."""
    name = next((n for n, s in recipe.properties.items() if s.get("type") == "integer"
                 and re.search(r"\bleader\s+included\b", str(s.get("description", "")))), None)
    m = _LEADER_PLUS.search(full.text) if name else None
    if name is None or m is None:
        return full
    n = parse_number(m.group("n"))
    if n is None or not _prop_validator(json.dumps(recipe.properties[name], sort_keys=True)).is_valid(n + 1):
        return full
    full.values[name], full.spans[name] = n + 1, m.span()
    full.conflicts.pop(name, None)
    full.out_of_range.pop(name, None)
    full.covered.append(m.span())
    full.notes.append(f"{name}: {n + 1}, the leader and {n} workers")
    return full


def _total_over_units(recipe: Recipe, full: Extraction) -> Extraction:
    """A total of GPUs spread over a number of machines ("sixteen GPUs across two machines ... two
    workers of eight GPUs each") is no per-pod amount: when the per-pod amount it competes with times
    the machines gives the total, the total agrees and is understood; alone, it is split over them."""
    spec = recipe.properties.get("gpus") or {}
    if not re.search(r"\bper\s+(?:worker\s+)?(?:pod|replica|worker|node)\b", str(spec.get("description", ""))):
        return full
    m = _TOTAL_OVER.search(full.text)
    if not m or any(c.start() < m.end() and m.start() < c.end() for c in _CAPACITY.finditer(full.text)):
        return full  # none, or what the cluster has ("we have 64 GPUs across 8 nodes")
    total, units = parse_number(m.group("total")), parse_number(m.group("units"))
    if not total or not units or total % units:
        return full
    per = total // units
    said, conf = full.values.get("gpus"), full.conflicts.get("gpus")
    values = [v for v in (said, conf[0] if conf else None) if isinstance(v, int)]
    if not (said == total and conf is None and units > 1):  # else the total was read as the per-pod amount
        if values and (per not in values or set(values) - {per, total}):
            return full  # another amount: a conflict the user must settle, or an amount for something else
    full.values["gpus"] = per
    full.spans["gpus"] = full.spans["gpus"] if said == per else (conf[1] if conf and conf[0] == per else m.span())
    full.conflicts.pop("gpus", None)
    full.out_of_range.pop("gpus", None)
    full.covered.append(m.span())
    count = next((p for p in _POD_COUNTS if p in recipe.properties), None)
    if count and count not in full.values and units > 1:
        full.values[count], full.spans[count] = units, (m.start("units"), m.end())
    if per != said:
        full.notes.append(f"gpus: {per}, {total} GPUs over {units} machines")
    # "..., eight each": the per-machine amount said again after the total
    each = re.compile(rf"(?<![\w.-])(?:{per}|{_SIMPLE_WORD})\s+(?:gpus?\s+)?(?:each|apiece|per\s+(?:machine|node|host|server|box))\b", re.I)
    for e in each.finditer(full.text, m.end(), min(len(full.text), m.end() + 60)):
        if parse_number(e.group().split()[0]) == per:
            full.covered.append(e.span())
    return full


def _per_unit_from_total(recipe: Recipe, full: Extraction) -> Extraction:
    """A total of GPUs for a recipe that takes GPUs per pod, split over the pods the request counts
    ("32 GPUs total, split evenly across 4 machines" is 8 per pod), when it divides evenly."""
    spec = recipe.properties.get("gpus") or {}
    if not re.search(r"\bper\s+(?:worker\s+)?(?:pod|replica|worker|node)\b", str(spec.get("description", ""))):
        return full
    m = _TOTAL_GPUS.search(full.text)
    if not m:
        return full
    total = int(m.group(1) or m.group(2))
    units = next((full.values[p] for p in _POD_COUNTS if isinstance(full.values.get(p), int) and full.values[p] > 0), None)
    said = full.values.get("gpus")
    rejected = full.out_of_range.get("gpus")
    if units and said is not None and said * units == total:
        full.covered.append(m.span())  # "4 nodes with 8 gpus each, 32 in total": the total agrees
        conf = full.conflicts.get("gpus")
        if conf is not None and conf[0] == total:
            full.conflicts.pop("gpus")  # ... and is no second per-pod amount
        return full
    conf = full.conflicts.get("gpus")
    if units is None and conf is not None and isinstance(said, int) and isinstance(conf[0], int) \
            and total in (said, conf[0]) and 0 < min(said, conf[0]) < total:
        # "2 GPUs per replica, 12 GPUs budget": of the two amounts, the total is the total
        if said == total:
            said = full.values["gpus"] = conf[0]
            full.spans["gpus"] = conf[1]
        full.conflicts.pop("gpus")
    if units is None and isinstance(said, int) and 0 < said < total and "gpus" not in full.conflicts:
        # "32 GPUs in total, 8 per pod": the pods are the total over what each one takes
        count = next((p for p in _POD_COUNTS if p in recipe.properties), None)
        if count and total % said == 0 and _prop_validator(json.dumps(recipe.properties[count], sort_keys=True)) \
                .is_valid(total // said):
            full.values[count], full.spans[count] = total // said, m.span()
            full.covered.append(m.span())
            full.notes.append(f"{count}: {total // said}, {total} GPUs in total at {said} per pod")
        return full
    if not (said is None or said == total or (rejected is not None and str(rejected[0]) == str(total))):
        return full
    if units == 1:
        return full
    if not units or total % units:
        # never a total read as a per-pod amount: say what is missing instead
        why = (f"{total} GPUs in total do not split evenly over {units} pods" if units else
               f"{total} GPUs is a total; say how many pods (or GPUs per pod)")
        full.values.pop("gpus", None)
        full.conflicts.pop("gpus", None)
        full.out_of_range["gpus"] = (total, m.span(), why)
        return full
    if _prop_validator(json.dumps(spec, sort_keys=True)).is_valid(total // units):
        full.values["gpus"] = total // units
        full.spans["gpus"] = m.span()
        full.out_of_range.pop("gpus", None)
        full.conflicts.pop("gpus", None)
        full.covered.append(m.span())
    return full


# A value taken back in words the rewrite of :data:`_CORRECTION` does not reach: "4 GPUs max... make it 6,
# two more interns start Monday", "sixteen GPUs max. hmm, actually Priya says we agreed on twelve",
# "cooldown 30 min. ok but that's too long, make it 10 minutes", "a 1g.10gb... wait no, make it a 2g.20gb".
# After a word that takes something back, the first amount no parameter read replaces the closest value
# read before it that is an amount of the same kind (a bare number keeps the first one's unit).
_BACK_MARK = re.compile(r"(?:\b(?:no\s+wait|wait(?:\s+no)?(?=\s*[,.!:;\u2026-])|actually|hmm+|sorry|oops|i\s+mean|"
                        r"scratch\s+that|correction|on\s+second\s+thoughts?|make\s+(?:it|that)|change\s+(?:it|that)\s+to|"
                        r"edit\s*:)|(?<=[.,;\u2026]\s)no(?=\s*[,.]\s)|\u2192|"
                        # "(8 GPUs, 64 CPUs) ... please raise the cap to twelve GPUs": a change to an amount
                        r"\b(?:raise|increase|bump|lower|reduce|decrease|change|set|grow|shrink|drop|cut)(?:s|d|ed|ing)?"
                        r"(?P<object>(?:\s+(?!to\b)[\w/.-]+){0,4}?)\s+(?:up\s+|down\s+)?to(?=\s)|"
                        # "maxSkew: 1 ... make the skew 2": "make" and what it changes, then the amount
                        r"\bmake\s+(?P<mobject>(?:the|our|its|their)(?:\s+(?!\d)[\w/.-]+){1,3}?)(?=\s+\d))", re.I)
_BACK_TIME = r"s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|weeks?"
_BACK_SIZE = r"[kmgtp]i?b?|gigs?|[kmgtp]ib|terabytes?|gigabytes?"
_LOOSE_AMOUNT = re.compile(
    r"(?<![\w.-])(?:(\d+g\.\d+gb)|(\d+(?:\.\d+)?)(?:\s*(%|percent\b|(?:" + _BACK_SIZE + "|" + _BACK_TIME + r")(?![\w-])))?|"
    r"(" + _NUM[1:-1].split("|", 1)[1] + r"|an?)(?:\s+(percent|(?:seconds?|minutes?|hours?|days?|weeks?|gigs?|"
    r"gigabytes?|terabytes?)(?![\w-])))?)(?![\w-]|\.\w)", re.I)
_BACK_DIRECT = re.compile(r"make|change|edit|\u2192|raise|increase|bump|lower|reduce|decrease|set|grow|shrink|drop|cut",
                          re.I)  # take-backs the new amount follows at once
_BACK_JUDGED = re.compile(r"\s+(?:is|was|were|are|would\s+be|sounds?|seems?|feels?)\b", re.I)
_BACK_NOUN = re.compile(r"\s+([a-z0-9][\w.-]*[a-z][\w.-]*)", re.I)


_CHANGED_GENERIC = frozenset({"it", "that", "this", "them", "the", "our", "my", "cap", "limit", "number", "count",
                              "value", "amount", "size", "total", "quota", "max", "maximum", "min", "minimum"})


def _changes(obj: str, name: str, noun: str | None) -> bool:
    """Do the words a verb of change governs ("the cap", "the gpu count") name parameter ``name``
    (or the things its amount counts)?"""
    # "bump gpus per worker to 4": the amount before "per" is what changes, not what it is counted per
    obj = re.split(r"\s+(?:per|each|every|for\s+each|for\s+every)\s+", obj.strip(), maxsplit=1, flags=re.I)[0]
    words = [_singular(w.lower()) for w in obj.split()]
    own = {_singular(w) for w in name.lower().split("_")} | ({noun} if noun else set())
    return all(w in _CHANGED_GENERIC for w in words) or bool(own & set(words))


def _noun_after(text: str, at: int) -> str | None:
    """The word that names what an amount counts ("seven 1g.10gb", "one node"), if any."""
    m = _BACK_NOUN.match(text, at)
    if not m or m.group(1).lower() in _STOP - {"gpu", "gpus", "node", "nodes", "pod", "pods", "worker", "workers"}:
        return None
    return _singular(m.group(1).lower())


_BACK_REACH = 200  # how far before the take-back the value it corrects may stand
_BACK_AHEAD = 120  # how far after it the new amount may stand


def _amount_kind(m: re.Match) -> str | None:
    if m.group(1):
        return "profile"
    unit = (m.group(3) or m.group(5) or "").lower()
    if not unit:
        return None if (m.group(4) or "").lower() in ("a", "an") else "count"
    if unit in ("%", "percent"):
        return "percent"
    return "time" if _TIME_UNITS.fullmatch(unit) else "size"


def _amount_number(m: re.Match) -> str:
    return (m.group(1) or m.group(2) or m.group(4) or "").lower()


# "wait, not 40 chunks, 48": an amount denied right after a take-back is the old one
_DENIED_BEFORE = re.compile(r"\bnot\s+$", re.I)


def _rewritten_at(text: str, source: str, mark: re.Match, new: re.Match) -> bool:
    """Did the rewrite of :data:`_CORRECTION` take the amount that followed ``mark`` as the request has
    it ("6 replicas, no, make it 9 so it's 3 per zone" reads "9 replicas, no, so it's 3 per zone")?"""
    word = re.compile(r"(?<!\w)" + re.escape(mark.group(0)).replace(r"\ ", r"\s+") + r"(?!\w)", re.I)
    nth = sum(1 for _ in word.finditer(text, 0, mark.start()))
    at = next(itertools.islice(word.finditer(source), nth, None), None)
    if at is None:
        return False
    first = next((n for n in _LOOSE_AMOUNT.finditer(source, at.end(), at.end() + _BACK_AHEAD)
                  if _amount_kind(n) is not None and not _DENIED_BEFORE.search(source, max(at.end(), n.start() - 5), n.start())),
                 None)
    if first is None:
        return False

    def value(m: re.Match) -> Any:
        n = _amount_number(m)
        return parse_number(n) if parse_number(n) is not None else n
    return value(first) != value(new)


def _taken_back(recipe: Recipe, ext: Extraction, source: str, read) -> Extraction:
    marks = list(_BACK_MARK.finditer(ext.text))
    if not marks or not ext.spans:
        return ext
    covered = ext.covered

    def read_at(a: int, b: int) -> bool:
        return any(x < b and y > a for x, y in covered)

    edits: dict[str, tuple[tuple[int, int], str, tuple[int, int]]] = {}
    for mark in marks:
        new = next((n for n in _LOOSE_AMOUNT.finditer(ext.text, mark.end(), min(len(ext.text), mark.end() + _BACK_AHEAD))
                    if _amount_kind(n) is not None
                    # "wait, not 40 chunks, 48": the amount denied is the old one, the next is the new
                    and not _DENIED_BEFORE.search(ext.text, max(mark.end(), n.start() - 5), n.start())), None)
        if new is None or read_at(*new.span()):
            continue  # the first amount after the take-back is read already (or there is none)
        if _rewritten_at(ext.text, source, mark, new):
            continue  # the words after this take-back were read already (its amount put where the first was)
        if _BACK_JUDGED.match(ext.text, new.end()):
            continue  # "hmm, four hours; two is too aggressive": an amount judged is the one taken back
        if _BACK_DIRECT.match(mark.group(0)) and not re.fullmatch(r"\W*(?:(?:a|an|to)\s+)?", ext.text[mark.end():new.start()]):
            continue  # "make it scale down to 0": what "make it" leads to is no amount
        kind = _amount_kind(new)
        noun = _noun_after(ext.text, new.end())
        # "wait, not 40 chunks, 48": the amount denied says which value is taken back, however far before
        denied = re.search(r"\bnot\s+(\d+)\b", ext.text[mark.end():new.start()], re.I)
        best = None
        for name, (a, b) in ext.spans.items():
            old = _LOOSE_AMOUNT.match(ext.text, a)
            if denied and not (old and _amount_number(old) == denied.group(1)):
                continue  # (only the value denied is taken back)
            if b > mark.start() or (mark.start() - b > _BACK_REACH and not denied) or name in edits:
                continue
            if not old or old.end() > b + 12:
                continue
            okind = _amount_kind(old)
            if okind is None or (kind != okind and not (kind == "count" and okind in ("size", "time", "percent"))):
                continue
            if _amount_number(old) == _amount_number(new):
                continue  # "40 GPUs, no wait, 40 is the budget for both": the same amount again
            if kind == okind == "count" and noun and _noun_after(ext.text, old.end()) not in (None, noun):
                continue  # "seven 1g.10gb ... correction: roll it out one node at a time": two quantities
            obj = mark.group("object") or mark.group("mobject")
            if obj and not _changes(obj, name, _noun_after(ext.text, old.end())):
                continue  # "three replicas ... set CUDA_MPS_ACTIVE_THREAD_PERCENTAGE to 33": another setting
            if best is None or b > best[1][1]:
                best = (name, (a, b), old, okind)
        if best is None:
            continue
        name, _, old, okind = best
        unit_at = old.end(2) if old.group(2) else old.end(4)
        said = new.group(0) if kind != "count" or okind == "count" else \
            _amount_number(new) + ext.text[unit_at:old.end()]
        edits[name] = (old.span(), said, new.span())
    if not edits:
        return ext
    text, shift = ext.text, 0
    moved: dict[str, tuple[int, int]] = {}
    for name, ((a, b), said, (na, nb)) in sorted(edits.items(), key=lambda e: e[1][0][0]):
        text = text[:a + shift] + said + text[b + shift:]
        shift += len(said) - (b - a)
        moved[name] = (na, nb)
    again = read(recipe, text)
    if any(again.values.get(n) == ext.values.get(n) for n in edits) or \
            any(again.values.get(k) != v for k, v in ext.values.items() if k not in edits):
        return ext  # the new amount did not land where the old one was, or moved another value
    for name, (na, nb) in moved.items():
        d = len(text) - len(ext.text)
        again.spans[name] = (na + d, nb + d)  # the words of the correction, after every edit
        again.covered.append((na + d, nb + d))
    return again


# "24 GPUs total, 192 cores, and 8Gi of memory per GPU", "2 GPUs each, 12 cores per GPU": an amount of CPU or
# memory per GPU is that many times the GPUs of the same object (the quota's total, the replica's own)
_PER_GPU_AFTER = re.compile(r"\s*(?:of\s+)?(?:memory|ram|mem|cpus?|cores?|vcpus?|cpu\s+cores?)?\s*"
                            r"(?:per|for\s+each|for\s+every|/|a)\s*(?:gpu|card|nvidia\.com/gpu)(?![\w.-])", re.I)


def _per_gpu(recipe: Recipe, ext: Extraction) -> Extraction:
    gpus = ext.values.get("gpus")
    if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 1:
        return ext
    for name in ("cpu", "memory"):
        if name not in ext.values or name not in ext.spans or name not in recipe.properties:
            continue
        a, b = ext.spans[name]
        per = _PER_GPU_AFTER.match(ext.text, b)
        if not per:
            continue
        value = ext.values[name]
        if isinstance(value, int) and not isinstance(value, bool):
            new: Any = value * gpus
        else:
            q = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGTP]i?)", str(value))
            new = _quantity(parse_size(q.group(1), q.group(2)[0]) * gpus) if q else None
        if new is None or not _prop_validator(json.dumps(recipe.properties[name], sort_keys=True)).is_valid(new):
            continue
        ext.values[name] = new
        ext.spans[name] = (a, per.end())
        ext.covered.append((a, per.end()))
    return ext


# a form's field on a line of its own: "Minimum that must start together: 12", "- Permit wait = 120s"
# (a normalised request joins a form's lines with "; ")
_DESCRIBED_FIELD = re.compile(r"(?:^|(?<=[;\n]))[ \t]*(?:[-*\u2022]\s*)?(?P<label>[A-Za-z][A-Za-z /'()-]{2,60}?)\s*[:=][ \t]*"
                         r"(?P<value>[^\s:=;][^\n;]*?)[ \t]*(?=$|[;\n])", re.M)
# a setting written inline among others: "min=2 max=10 scale-down-window=15m", "load_timeout=1h"
_INLINE_SETTING = re.compile(r"(?<![\w./:-])(?P<label>[A-Za-z][A-Za-z]*(?:[-_][A-Za-z]+)+|[a-z]+(?:[A-Z][a-z]+)+)=(?P<value>[^\s,;=]+)")
# the words of a label that say nothing of what it labels
_LABEL_STOP = frozenset("""a an the of to in on for per with and or that which is are be must should can will it its
our their we they this these those each every any all how what when where who""".split())


# an amount that gives the size of a whole installation ("a 212-node cluster", "our 512-GPU fleet")
_WHOLE_INSTALLATION = re.compile(r"[- ](?:node|gpu|machine|host|server|box)s?\s+(?:cluster|thing|fleet|system|farm|estate|"
                                 r"supercomputer|installation|datacenter|data\s+center|site)s?\b", re.I)


# an interpreter given its code inline, before the quoted code: "python -c", "bash -lc", "sh -c"
_INLINE_CODE = re.compile(r"(?<![\w/.-])((?:/usr/bin/|/bin/)?(?:python3?|bash|sh|zsh)\s+-l?c)\s*$")


def _stem(word: str) -> str:
    w = word.lower()
    if len(w) > 5 and w.endswith("ies"):
        return w[:-3] + "y"  # "retries", "policies": one retry, one policy
    for suffix in ("ing", "es", "s", "able", "ed"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[:-len(suffix)]
    return w


def _same_word(a: str, b: str) -> bool:
    """"minimum" and "min", "members" and "member", "waiting" and "wait": one word, written two ways."""
    a, b = _stem(a), _stem(b)
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


def _fields_by_description(recipe: Recipe, text: str, full: Extraction) -> Extraction:
    """A form field whose label no rule knows ("Minimum that must start together: 12") fills the
    parameter its label describes: the label shares a word with the parameter's name and at least one
    more with its name or description, and no other parameter fits as well."""
    ex: _Extractor | None = None
    taken = [*full.spans.values(), *full.covered]
    fields = sorted([*_DESCRIBED_FIELD.finditer(full.text), *_INLINE_SETTING.finditer(full.text)], key=lambda x: x.start())
    for m in fields:
        va, vb = m.span("value")
        if any(a < vb and va < b for a, b in taken):
            continue
        words = re.sub(r"([a-z])([A-Z])", r"\1 \2", m.group("label")).lower()  # "scaleDownWindow"
        label = [w for w in re.findall(r"[a-z]+", words) if w not in _LABEL_STOP]
        if not label:
            continue
        scored = []
        for name, spec in recipe.properties.items():
            if name in full.values or name in full.conflicts:
                continue
            own = [w for w in name.split("_") if w]
            about = [w for w in re.findall(r"[a-z]+", str(spec.get("description", "")).lower()) if w not in _LABEL_STOP]
            named = sum(any(_same_word(w, o) for o in own) for w in label)
            score = sum(any(_same_word(w, o) for o in own + about) for w in label)
            # (a label of one word that is the parameter's own word: "retries: 5" for max_retry)
            if named and (score >= 2 or (len(label) == 1 and len(label[0]) >= 4)):
                scored.append((score, name))
        scored.sort(reverse=True)
        if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
            continue
        name = scored[0][1]
        ex = ex or _Extractor(recipe, full.text)
        spec = recipe.properties[name]
        got: tuple[bool, Any] = (False, None)
        span = (va, vb)
        dur = _DURATION_RE.match(full.text, va)
        if spec.get("type") in ("integer", "string") and dur and re.search(r"seconds|after|timeout|duration",
                                                                           name + " " + str(spec.get("description"))):
            got, span = ex._duration_value(name, dur), dur.span()
        elif spec.get("type") == "integer":
            num = re.match(_NUM + r"(?![\w.])", full.text[va:vb], re.I)
            if num:
                got, span = ex._ok(name, parse_number(num.group(1))), (va, va + num.end())
        elif spec.get("type") == "string" and not spec.get("enum"):
            tok = re.fullmatch(r"[\"'`]?([A-Za-z0-9][\w./:@+-]*[\w])[\"'`]?", full.text[va:vb])
            if tok:
                got = ex._ok(name, tok.group(1))
        elif spec.get("type") == "boolean" or spec.get("enum"):
            # "ssh between pods: off, we dropped mpirun": the value's first word, when the parameter takes it
            first = re.match(r"[\"'`]?([\w.-]+)[\"'`]?(?=[\s,.;)]|$)", full.text[va:vb])
            if first and (value := _setting_value(spec, first.group(1))) is not None:
                got, span = (True, value), (va, va + first.end())
        if got[0]:
            full.values[name], full.spans[name] = got[1], span
            full.covered = full.covered + [m.span("label"), span]
            taken.append(span)
    return full


_PAIR_NAME = r"[\"'`]?([a-z][a-z0-9]*(?:[-.][a-z0-9]+)+)[\"'`]?"
# "rename them to `prod-critical` and `research-low`", "two classes, prod-inference and batch-research"
_PAIRED_NAMES = re.compile(rf"(?:\b(?:renam\w*|call|name)\s+)?\b(?:them|both|two|pair|classes|ones)\b[^.;\n]{{0,40}}?(?<![\w.-])"
                           rf"{_PAIR_NAME}\s*(?:,\s*and|,|and|&|/)\s*{_PAIR_NAME}(?![\w.-])(?:\s*,?\s+respectively\b)?", re.I)
# "with values 500000 and 100", "values 1000000 and 1000 respectively"
_PAIRED_VALUES = re.compile(r"\bvalues?\s*(?:of\s+|[:=]\s*)?(-?\d+)\s*(?:,\s*and|,|and|&|/)\s*(-?\d+)(?!\w|\.\d)"
                            r"(?:\s*,?\s+respectively\b)?", re.I)


def _respective_pair(recipe: Recipe, full: Extraction) -> Extraction:
    """Two objects a recipe makes as a pair (``<a>_name``/``<a>_value`` and ``<b>_name``/``<b>_value``),
    named and valued in lists, in order: "rename them to x-hi and x-lo, with values 500000 and 100"."""
    props = recipe.properties
    pair = [p[:-len("_name")] for p in props if p.endswith("_name") and p[:-len("_name")] + "_value" in props]
    if len(pair) != 2:
        return full
    ex: _Extractor | None = None
    for rx, suffix in ((_PAIRED_NAMES, "_name"), (_PAIRED_VALUES, "_value")):
        keys = [p + suffix for p in pair]
        if any(k in full.values for k in keys):
            continue
        m = rx.search(full.text)
        if m is None or any(a < m.end() and m.start() < b for a, b in full.spans.values()):
            continue
        ex = ex or _Extractor(recipe, full.text)
        got = [ex._ok(k, m.group(i + 1) if suffix == "_name" else int(m.group(i + 1))) for i, k in enumerate(keys)]
        if all(ok for ok, _ in got):
            for i, (k, (_, val)) in enumerate(zip(keys, got)):
                full.values[k], full.spans[k] = val, m.span(i + 1)
            full.covered = full.covered + [m.span()]
    return full


# words of a duration parameter's name that say nothing of what it times
_TIMING_WORDS = frozenset("after before seconds second secs minutes time timeout window period delay duration wait".split())


# the words restating what the container runs: "the command is just `torchrun /x.py`", "the program becomes python y.py"
_RESTATED_COMMAND = re.compile(r"\b(?:the\s+)?(?:command|entrypoint|entry[ -]point|program|cmd)\s+(?:is|becomes|should\s+be|"
                               r"will\s+be|then\s+is)\s+(?:now\s+)?(?:just|simply|only)?\s*:?\s*(?:`(?P<q>[^`\n]+)`|"
                               r"(?P<w>(?:\.{0,2}/)?[A-Za-z_](?:[\w./-]*[\w/-])?(?:[ \t]+(?!(?:and|but|so|then)\b)[^\s,;]*[^\s,;.])*?))"
                               r"(?=\s*(?:$|\n|[;,]|\.(?:\s|$)|\s+(?:and|but|so|then)\b))", re.I)


# the first word of a command written out in prose: a path, a script, an interpreter or a launcher
_PROGRAM_WORD = re.compile(r"(?:\.{0,2}/\S*|\S*/\S*|[\w.-]+\.(?:py|sh|pl|rb|jl)|python3?(?:\.\d+)?|torchrun|bash|sh|"
                           r"deepspeed|accelerate|mpirun|horovodrun|nvidia-smi|java|node|julia|Rscript|vllm|"
                           r"tritonserver)", re.I)


def _restated_command(recipe: Recipe, full: Extraction) -> Extraction:
    """A command the request's words state outright ("drop the torchrun flags; the command is just `torchrun
    /workspace/train.py --config x.yaml`", "the program becomes python train_hvd.py --epochs 12") is the command,
    over one read from a pasted script's launcher line (the words change what runs today)."""
    names = [n for n, sp in recipe.properties.items() if _COMMAND_NAME.search(n) and sp.get("type") == "array"]
    if len(names) != 1:
        return full
    name = names[0]
    for m in _RESTATED_COMMAND.finditer(full.text):
        raw = m.group("q") or m.group("w")
        value = _split_command(raw) if raw else []
        if not value or value[0].lower() in _STOP or value == full.values.get(name):
            continue
        if not m.group("q") and not _PROGRAM_WORD.fullmatch(value[0]):
            continue  # "the program is running fine": unquoted, only a program's own word opens a command
        ok = _prop_validator(json.dumps(recipe.properties[name], sort_keys=True)).is_valid(value)
        if ok:
            full.values[name] = value
            full.spans[name] = m.span("q") if m.group("q") else m.span("w")
            full.covered = full.covered + [m.span()]
            full.conflicts.pop(name, None)
    return full


# a bound on an amount: "at most 10", "never more than 10", "up to 10"; "at least 2", "never fewer than 2"
_UPPER_BOUND = (r"(?:at\s+most|up\s+to|max(?:imum)?(?:\s+of)?|(?:no|not|never)\s+(?:more|higher|greater|above)(?:\s+than)?|"
                r"never\s+(?:exceed(?:ing)?|go(?:ing)?\s+(?:above|over|past|beyond))|capped\s+at|tops?\s+out\s+at)")
_LOWER_BOUND = (r"(?:at\s+least|min(?:imum)?(?:\s+of)?|(?:no|not|never)\s+(?:fewer|less|lower|below)(?:\s+than)?|"
                r"never\s+(?:drop(?:ping)?|go(?:ing)?)\s+(?:below|under))")


def _elided_bound(recipe: Recipe, full: Extraction) -> Extraction:
    """The other end of a range whose unit the request says once: "never fewer than 2 replicas (HA), never
    more than 10", "at least 2 replicas, at most 10": the bare bound after one end read, in the same
    sentence, is the other end of that amount (``min_x`` and ``max_x``)."""
    props = recipe.properties
    pairs = [(n, "max_" + n[4:]) for n in props if n.startswith("min_") and "max_" + n[4:] in props]
    if not pairs:
        return full
    digits = digits_view(full.text)
    for lo_name, hi_name in pairs:
        for have, want, bound in ((lo_name, hi_name, _UPPER_BOUND), (hi_name, lo_name, _LOWER_BOUND)):
            if have not in full.values or want in full.values or want in full.conflicts or not full.spans.get(have):
                continue
            a, b = full.spans[have]
            end = re.search(r"[.!?](?=\s)|\n|;", full.text[b:])
            stop = b + (end.start() if end else len(full.text) - b)
            # the bound's amount, bare or in the unit the read end was said in ("2 replicas ... 10 replicas")
            unit = re.match(r"\s*([A-Za-z]+)", full.text[b:b + 30])
            alone = r"(?!\s*[A-Za-z%]|\.\d)" if not unit else rf"(?!\s*(?!{re.escape(unit.group(1))}\b)[A-Za-z%]|\.\d)"
            m = re.compile(rf"\b{bound}\s+(\d+){alone}", re.I).search(digits, b, stop)
            if not m or any(x < m.end(1) and m.start(1) < y for x, y in [*full.spans.values(), *full.remarks]):
                continue
            value = int(m.group(1))
            lo_val, hi_val = (full.values[have], value) if have == lo_name else (value, full.values[have])
            if not isinstance(full.values[have], int) or lo_val > hi_val or \
                    not _prop_validator(json.dumps(props[want], sort_keys=True)).is_valid(value):
                continue
            full.values[want], full.spans[want] = value, m.span(1)
            full.covered = full.covered + [m.span()]
    return full


def _duration_in_sentence(recipe: Recipe, full: Extraction) -> Extraction:
    """A duration its parameter's topic governs from further off in one sentence: "Consolidation: it's
    fine to also pack underutilized nodes, but only after they've been like that for 30 minutes". The
    sentence names the parameter's topic (a word of its name, "consolidate" for consolidate_after),
    holds one free duration, and names no other duration parameter's topic."""
    timed = [n for n, rules in recipe.extract.items() if any(r.get("duration") for r in rules)]
    topics = {n: [w for w in n.split("_") if len(w) >= 5 and w not in _TIMING_WORDS] for n in timed}
    todo = [n for n in timed if n not in full.values and n not in full.conflicts and topics[n]]
    if not todo:
        return full
    taken = list(full.spans.values())
    ex: _Extractor | None = None
    bounds = [0, *(m.end() for m in re.finditer(r"[.!?](?=\s)|\n|;\s", full.text)), len(full.text)]
    for lo, hi in zip(bounds, bounds[1:]):
        sentence = full.text[lo:hi]
        durations = [m for m in _DURATION_RE.finditer(full.text, lo, hi) if m.group(1)[0].isdigit()
                     or m.group(1).lower() in ("a", "an", "half an", "half a")]
        if len(durations) != 1 or any(a < durations[0].end() and durations[0].start() < b for a, b in taken + full.remarks):
            continue

        def named(n: str) -> bool:
            return any(re.search(rf"\b{re.escape(w[:6])}\w*", sentence, re.I) for w in topics[n])

        here = [n for n in timed if topics[n] and named(n)]
        if len(here) != 1 or here[0] not in todo:
            continue
        ex = ex or _Extractor(recipe, full.text)
        ok, val = ex._duration_value(here[0], durations[0])
        if ok:
            full.values[here[0]], full.spans[here[0]] = val, durations[0].span()
            full.covered = full.covered + [(lo, hi)]
            todo.remove(here[0])
    return full


_PER_CORE = re.compile(r"\s*(?:of\s+)?(?:memory|ram|mem)?\s*(?:per|a|each|for\s+each|/)\s*(?:cpu\s+)?"
                       r"(?P<base>cores?|cpus?|vcpus?|gpus?)\b", re.I)


def _memory_per_unit(recipe: Recipe, full: Extraction) -> Extraction:
    """Memory given per core or per GPU ("4 GiB of memory per core" with 192 cores) is that amount times
    the cores or GPUs the request gives: 768Gi."""
    if "memory" not in full.values or "memory" not in full.spans:
        return full
    m = _PER_CORE.match(full.text, full.spans["memory"][1])
    if m is None:
        return full
    base = "gpus" if m.group("base").lower().startswith("gpu") else "cpu"
    count = full.values.get(base)
    amount = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGTP]i)", str(full.values["memory"]))
    if not isinstance(count, int) or count <= 1 or amount is None:
        return full
    total = float(amount.group(1)) * count
    value = f"{int(total) if total == int(total) else total}{amount.group(2)}"
    if _prop_validator(json.dumps(recipe.properties["memory"], sort_keys=True)).is_valid(value):
        full.values["memory"] = value
        full.spans["memory"] = (full.spans["memory"][0], m.end())
        full.covered.append(full.spans["memory"])
        full.notes.append(f"memory: {value}, {full.text[full.spans['memory'][0]:m.end()]} for {count}")
    return full


def _read(recipe: Recipe, text: str) -> Extraction:
    return _memory_per_unit(recipe, _read_values(recipe, text))


def _read_values(recipe: Recipe, text: str) -> Extraction:
    """The values the rules read, then each step that revises them in the light of the whole request,
    in order (what a paste says, fields by their descriptions, ..., amounts per GPU)."""
    ext = _extract(recipe, text)
    for step in (_with_foreign, _fields_by_description):
        ext = step(recipe, text, ext)
    for revise in (_respective_pair, _duration_in_sentence, _elided_bound, _restated_command):
        ext = revise(recipe, ext)
    ext = _named_row(recipe, text, ext)
    for amounts in (_leader_and_workers, _total_over_units, _per_unit_from_total, _per_gpu):
        ext = amounts(recipe, ext)
    return ext


# the index of an array task in other systems: Slurm, PBS, LSF, Grid Engine, an Argo loop's item
_ARRAY_INDEX = re.compile(r"\$\{?(?:SLURM_ARRAY_TASK_ID|PBS_ARRAY_INDEX|PBS_ARRAYID|LSB_JOBINDEX|SGE_TASK_ID)\}?|"
                          r"\{\{\s*item\s*\}\}")


def _array_index(recipe: Recipe, ext: Extraction) -> Extraction:
    """In a recipe with a completion index (an Indexed Job), a command written for another system's task
    array gets the index under its Kubernetes name: "$SLURM_ARRAY_TASK_ID", "$PBS_ARRAY_INDEX" or an Argo
    loop's "{{item}}" is "$(JOB_COMPLETION_INDEX)"."""
    if "completions" not in recipe.properties:
        return ext
    for name, value in ext.values.items():
        if _COMMAND_NAME.search(name) and isinstance(value, list) and any(
                isinstance(c, str) and _ARRAY_INDEX.search(c) for c in value):
            ext.values[name] = [_ARRAY_INDEX.sub("$(JOB_COMPLETION_INDEX)", c) if isinstance(c, str) else c
                                for c in value]
            ext.notes.append(f"{name}: the task array's index is the Job's completion index, $(JOB_COMPLETION_INDEX)")
    return ext


# the words that name an autoscaler itself: "an HPA named x", "scaledobject called x", "name the scaler x"
_OWN_NAME = re.compile(r"\b(?:hpa|autoscaler|scaler|scaledobject|scaled\s+object|so)\s+(?:named|called|name(?:d)?\s*[:=]?|"
                       r"should\s+be\s+(?:named|called))\s*[\"'`(]?\s*$|\bname\s+(?:it|the\s+(?:hpa|scaler|scaledobject))\s*[\"'`]?\s*$",
                       re.I)


def _named_target(recipe: Recipe, ext: Extraction) -> Extraction:
    """An autoscaler is rarely given a name of its own: "the HPA on `sd-inference`", "our embedding
    service `e5-embed`" name what it scales. A parameter marked ``x-named-by: name`` that no rule read takes
    the name read for ``name`` unless the words right before that name are the autoscaler's own ("an HPA
    named x"); the object's own name follows what it scales anyway."""
    for param, spec in recipe.properties.items():
        own = spec.get("x-named-by")
        if not own or param in ext.values or own not in ext.values or own not in ext.spans:
            continue
        a = ext.spans[own][0]
        if _OWN_NAME.search(ext.text, max(0, a - 40), a):
            continue
        if not _prop_validator(json.dumps(spec, sort_keys=True)).is_valid(ext.values[own]):
            continue
        ext.values[param] = ext.values[own]
        ext.spans[param] = ext.spans[own]
    return ext


def _replaced(recipe: Recipe, ext: Extraction) -> Extraction:
    """A parameter the request gives that replaces others (``x-replaces``: explicit priorities for the
    two tiers of preferred and fallback groups) leaves them out; their words are understood."""
    for name, spec in recipe.properties.items():
        if name not in ext.values:
            continue
        for other in spec.get("x-replaces") or []:
            if other in ext.values:
                ext.values.pop(other)
                ext.conflicts.pop(other, None)
                span = ext.spans.pop(other, None)
                if span:
                    ext.covered.append(span)
    return ext


# a design note's section of what it will not do: "### Non-goals", "Out of scope:" up to the next heading
_NON_GOALS = re.compile(r"(?im)^[ \t]*(?:#{1,6}[ \t]*|\*\*)?(?:non-?\s?goals?|out\s+of\s+scope|not\s+in\s+scope)\b[^\n]*(?:\n|$)")
_HEADING_LINE = re.compile(r"[ \t]*(?:#{1,6}[ \t]+\S[^\n]*|\*\*[^*\n]+\*\*[ \t]*:?|[A-Z][\w /&-]{0,40}:?)[ \t]*")


def non_goal_spans(text: str) -> list[tuple[int, int]]:
    """The spans of a design note's non-goals ("### Non-goals", "**Out of scope**: ..."), each up to the next
    heading or the end of its paragraph: what the note says it will not do asks for nothing."""
    spans: list[tuple[int, int]] = []
    for m in _NON_GOALS.finditer(text):
        end = m.end()
        # (its body ends at the next heading or paragraph: "**Out of scope**: x.\n\nRoll this out ..." asks again)
        body_seen = bool(re.search(r"(?:goals?|scope)\W*?[:\-\u2013]\s*\S", m.group(0), re.I))
        for line in re.finditer(r"[^\n]*(?:\n|$)", text[m.end():]):
            body = line.group(0).rstrip("\n")
            if not line.group(0) or (body.strip() and _HEADING_LINE.fullmatch(body)) or (not body.strip() and body_seen):
                break
            body_seen = body_seen or bool(body.strip())
            end = m.end() + line.end()
        spans.append((m.start(), end))
    return spans


def extract_params(recipe: Recipe, text: str) -> Extraction:
    """Parameter values found in ``text`` for ``recipe`` (only those found)."""
    text = fence_pastes(pasted_forms(expanded_variables(text)))
    token = _FLAGGED.set(bool(_HAS_FLAG.search(text)))
    try:
        ext = _taken_back(recipe, _read(recipe, text), text, lambda r, t: _read(r, fence_pastes(t)))
        ext.source = text
        return _array_index(recipe, _named_target(recipe, _replaced(recipe, ext)))
    finally:
        _FLAGGED.reset(token)
