"""Mistyped words of a request, read as the recipe term they were meant to be.

Users write "pytroch", "karpneter", "namepsace", "replcias", "wrkrs". A word of five or
more letters that no recipe and no KB page uses, one edit (a letter dropped,
added, changed, or two neighbours swapped) from exactly one recipe term (a
keyword, kind, title word, parameter name or extraction cue, or such a word
with a plural or verb ending), is read as that term; a five-letter word with one
letter changed in place is not ("slack" is a word of its own, not "stack"). A word the recipes or the
KB use is never "corrected" ("there" stays, though "three" is one swap away),
and neither is a word in capitals, a "#DIRECTIVE", a well-known command
("sbatch"), nor a value: a word in quotes, a given name ("named trainr"), or a
token with digits, dots, slashes, underscores or hyphens. A word without
vowels ("wrkrs", "img") is the one term whose consonants it keeps, if only one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable

__all__ = ["Speller", "speller_for", "correct_words", "within_one_edit"]

_ALPHA = re.compile(r"[a-z]+")
_MIN_LEN = 5
_ENDINGS = ("", "s", "es", "ed", "d", "ing")
# a word right after these is a value the user chose, not a term
_NAMING = re.compile(r"(?:\b(?:named|called|name|names|label|labels|labeled|labelled)\s*[:=]?\s*|[\"'`])$", re.I)
# commands engineers paste that sit one edit from a term ("sbatch" is not "batch")
_COMMANDS = frozenset({"sbatch", "srun", "salloc", "scancel", "squeue", "mpirun", "mpiexec", "horovodrun", "torchrun", "deepspeed",
                       "accelerate", "kubectl", "eksctl", "gcloud", "docker", "podman"})
# a candidate word: letters only, not part of a hyphenated, dotted, slashed or digit-bearing token
_CANDIDATE = re.compile(r"(?<![\w./:@-])[A-Za-z]{3,}(?![\w./:@-]|'[a-z])")


def within_one_edit(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` at most one insertion, deletion, substitution or swap of neighbours apart?"""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    if la > lb:
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1:]


def _substituted(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` differ in one letter changed in place? Between two short words that is
    as often another real word ("slack", "stack") as a typo, so a five-letter word is not corrected so."""
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1


def _in_order(short: str, long: str) -> bool:
    """Are the letters of ``short`` in ``long``, in order?"""
    it = iter(long)
    return all(c in it for c in short)


def _skeleton(w: str) -> str:
    """``w`` without the vowels after its first letter ("workers" -> "wrkrs", "image" -> "img")."""
    return w[:1] + re.sub(r"[aeiou]", "", w[1:])


# chat shorthand that has no vowels and is no term
_CHAT = frozenset("""pls plz thx thnx thks btw fyi tbh imo imho wdyt lgtm ptal brb smth sth nvm idk rly msg pvt
ppl pwd tmr tmrw hrs mins sec secs yr yrs hmm hm nth""".split())


def _deletes(w: str) -> set[str]:
    return {w[:i] + w[i + 1:] for i in range(len(w))}


class Speller:
    """Corrects mistyped words towards ``terms``; never touches a word of ``known``."""

    def __init__(self, terms: Iterable[str], known: Iterable[str]):
        self.known = {w.lower() for w in known} | set()
        self.forms: dict[str, str] = {}
        for t in {t.lower() for t in terms}:
            if not _ALPHA.fullmatch(t) or len(t) < _MIN_LEN - 1:
                continue
            for e in _ENDINGS if not t.endswith(("ing", "ed", "ss")) else ("",):
                if e and t.endswith("s"):
                    continue  # "labels" + "ed" is no word ("labelled" would read as "labelsed")
                f = t + e if not (e in ("ed", "d", "ing") and t.endswith("e") and e != "d") else t[:-1] + e
                if len(f) >= _MIN_LEN:
                    self.forms.setdefault(f, t)
        self.known |= set(self.forms)
        self.index: dict[str, set[str]] = {}
        for f in self.forms:
            for d in _deletes(f) | {f}:
                self.index.setdefault(d, set()).add(f)
        # "wrkrs", "nmspc", "img": a term written without its vowels
        self.skeletons: dict[str, set[str]] = {}
        for f in [*self.forms, *{t.lower() for t in terms if _ALPHA.fullmatch(t.lower()) and len(t) >= 4}]:
            self.skeletons.setdefault(_skeleton(f), set()).add(f)

    @lru_cache(maxsize=4096)
    def correct(self, word: str) -> str | None:
        """The term ``word`` was meant to be, or None (a known word, or no single near term)."""
        w = word.lower()
        if len(w) >= 3 and w == _skeleton(w) and w not in self.known and w not in _CHAT:
            hits = self.skeletons.get(w, set())
            bases = {self.forms.get(h, h) for h in hits}
            bases = {b for b in bases if not any(o != b and b.startswith(o) for o in bases)}  # "nodes" is "node"
            best = min(hits, key=len) if hits else ""
            return best if len(bases) == 1 and len(best) > len(w) else None
        # a four-letter word may be a five-letter term missing a letter ("queu", "locl")
        if len(w) < _MIN_LEN - 1 or w in self.known:
            return None
        # a plural or verb ending of a known word is known ("pods", "preempted")
        for e in ("s", "es", "ed", "d", "ing"):
            if w.endswith(e) and len(w) - len(e) >= 3 and (w[: -len(e)] in self.known or w[: -len(e)] + "e" in self.known):
                return None
        # another form of a term is that term ("timeslice": timeslicing); of another known word, itself
        forms = [w + e for e in ("s", "d", "ed", "ing")] + ([w[:-1] + "ing"] if w[-1] == "e" else [])
        for f in forms if len(w) >= _MIN_LEN else ():
            if f in self.forms:
                return f
        if len(w) >= _MIN_LEN and any(f in self.known for f in forms):
            return None
        cands: set[str] = set()
        for d in _deletes(w) | {w}:
            cands |= self.index.get(d, set())
        # a word that starts with a whole term is another word made from it ("trainer", "scheduler")
        near = sorted(c for c in cands if within_one_edit(w, c) and not w.startswith(self.forms[c])
                      and (len(w) >= _MIN_LEN or len(c) == len(w) + 1) and c not in (w + "s", w + "es")
                      and not (len(w) == _MIN_LEN and _substituted(w, c)))
        # one term only: "quoat" is quota; a word between two terms is left as written
        if near:
            return near[0] if len(near) == 1 else None
        return self._shortened(w)

    def _shortened(self, w: str) -> str | None:
        """The one term ``w`` shortens: its tail ("torchjob" for pytorchjob), or its letters in
        order keeping its first letter and its last three ("ptjob")."""
        if len(w) < _MIN_LEN:
            return None
        hits = {t for f, t in self.forms.items() if f == t and len(t) >= len(w) + 2 and (
            t.endswith(w) or (t[0] == w[0] and t[-3:] == w[-3:] and len(t) >= len(w) + 3 and _in_order(w, t)))}
        # terms that end in one another ("elasticpytorchjob", "pytorchjob") are that one
        inner = [t for t in hits if all(o.endswith(t) for o in hits)]
        return inner[0] if len(inner) == 1 else None

    def text(self, text: str) -> str:
        """``text`` with its mistyped words corrected (other characters unchanged)."""
        out: list[str] = []
        last = 0
        for m in _CANDIDATE.finditer(text):
            if m.group(0)[0].isupper() and m.group(0)[1:].islower() and len(m.group(0)) < 7 \
                    and re.search(r"[a-z,;]\s+$", text[:m.start()]):
                continue  # "route the alerts to Slack": a short capitalised word inside a sentence is a name
            if m.group(0).isupper() or text[max(0, m.start() - 1):m.start()] == "#" \
                    or m.group(0).lower() in _COMMANDS:
                continue  # "#SBATCH", "NCCL": a directive, an acronym or a command is no typo
            fixed = self.correct(m.group(0))
            if fixed is None or _NAMING.search(text, 0, m.start()):
                continue
            out.append(text[last:m.start()])
            out.append(fixed)
            last = m.end()
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)


def _words_of(text: str) -> set[str]:
    return set(_ALPHA.findall(text.lower()))


def _camel_parts(s: str) -> list[str]:
    return [p.lower() for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", s)]


def recipe_terms(recipe) -> set[str]:
    """The words a recipe is asked for by: keywords, kinds, title, parameter names, extraction cues."""
    out: set[str] = set()
    for k in recipe.keywords:
        out |= _words_of(k)
        out.add(re.sub(r"[\s-]+", "", k.lower()))
    for kind in recipe.kinds:
        out.add(kind.lower())
        out.update(_camel_parts(kind))
    out |= _words_of(recipe.title)
    for name in recipe.properties:
        out.update(p for p in name.lower().split("_") if p)

    def walk(v) -> None:
        if isinstance(v, str):
            if not re.search(r"[\\()\[\]|?*+]", v):  # a cue word, not a regex
                out.update(_words_of(v))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for key, x in v.items():
                if key not in ("regex", "objects", "value"):
                    walk(x)
    walk(recipe.extract)
    for spec in recipe.properties.values():
        if isinstance(spec, dict):
            for e in spec.get("enum") or []:
                if isinstance(e, str):
                    out |= _words_of(e)
    return {w for w in out if _ALPHA.fullmatch(w)}


@lru_cache(maxsize=8)
def _known_words(recipes_dir: str) -> frozenset[str]:
    """Every word the recipe files and the KB pages next to them use."""
    root = Path(recipes_dir)
    out: set[str] = set()
    paths = list(root.rglob("*.yaml"))
    kb = root.parent / "kb"
    if kb.is_dir():
        paths += list(kb.rglob("*.md"))
    for p in paths:
        try:
            out |= _words_of(p.read_text(encoding="utf-8", errors="ignore"))
        except OSError:
            continue
    return frozenset(out)


def _speller(recipes: list) -> Speller:
    terms: set[str] = set()
    known: set[str] = set()
    from .model import FRAGMENTS_DIR

    # a library's folder (its fragments sit beside the areas); a loose recipe file has only its own words
    dirs = {r.path.parent.parent for r in recipes if getattr(r, "path", None)}
    for d in dirs:
        if (d / FRAGMENTS_DIR).is_dir():
            known |= _known_words(str(d.resolve()))
    for r in recipes:
        terms |= recipe_terms(r)
        known |= _words_of(" ".join([r.title, r.description, *r.keywords,
                                     *(str(e.get("request", "")) for e in r.examples)]))
    return Speller(terms, known)


_SPELLERS: dict[tuple[int, ...], tuple[list, Speller]] = {}


def speller_for(recipes: list) -> Speller:
    """The speller of these recipes (built once per set of recipe objects)."""
    key = tuple(id(r) for r in recipes)
    got = _SPELLERS.get(key)
    if got is None or any(a is not b for a, b in zip(got[0], recipes)):
        if len(_SPELLERS) > 64:
            _SPELLERS.clear()
        got = _SPELLERS[key] = (list(recipes), _speller(recipes))
    return got[1]


def correct_words(text: str, recipes: list) -> str:
    """``text`` with words mistyped for these recipes' terms corrected."""
    if not recipes:
        return text
    return speller_for(recipes).text(text)
