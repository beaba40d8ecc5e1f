"""Plain-language generation: request in, rendered and validated manifest out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ParameterError, RecipeError, UsageError
from ..text import STOPWORDS
from .extract import Extraction, extract_params, name_variants
from .match import match_recipes
from .model import Recipe, load_recipes
from .render import render_recipe

__all__ = ["Generated", "generate", "MIN_SCORE", "understood", "KEY_PARAMETERS"]

MIN_SCORE = 1.0

# Words that frame a request ("give me a yaml for ...") and carry no detail.
_FRAME = frozenset("""
give need want create make write generate render produce draft please pls yaml yml manifest manifests spec specs
example sample template config configuration set setup up k8s kubernetes cluster new simple basic quick just
x thanks thx hi hey can could would you me us our my we i a an the for with and or of in on to each per
""".split()) | STOPWORDS

# Details a request should state; when it does not, the default used is reported
# as a question. A recipe can name its own with ``x-ask`` on a parameter.
KEY_PARAMETERS = {
    "gpus": "How many GPUs per pod?",
    "workers": "How many workers?",
    "nodes": "How many nodes (pods)?",
    "replicas": "How many replicas?",
    "image": "Which container image?",
}

_TOKEN = re.compile(r"[A-Za-z0-9][\w./:@+-]*")


@dataclass
class Generated:
    recipe: str
    params: dict[str, Any]
    yaml: str
    valid: bool
    issues: list[dict[str, Any]] = field(default_factory=list)
    from_request: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    score: float = 0.0
    title: str = ""
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list, repr=False)
    used: dict[str, str] = field(default_factory=dict)  # parameter -> the words it came from
    unused: list[str] = field(default_factory=list)  # request fragments that were not understood
    missing: list[dict[str, Any]] = field(default_factory=list)  # {param, question, default}
    llm_filled: dict[str, Any] = field(default_factory=dict)  # values the model added to the rule-based reading
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "used": self.used,
            "unused": self.unused,
            "missing": self.missing,
            "recipe": self.recipe,
            "title": self.title,
            "params": self.params,
            "yaml": self.yaml,
            "valid": self.valid,
            "issues": self.issues,
            "from_request": self.from_request,
            "defaults": self.defaults,
            "score": self.score,
            "alternatives": self.alternatives,
            "llm_filled": self.llm_filled,
            "notices": self.notices,
        }


def generate(request: str, recipes: list[Recipe] | None = None, *, llm: Any = None) -> Generated:
    """Pick a recipe for ``request``, fill its parameters from the text, render and validate.

    With a language model configured (``llm=None`` reads the configuration;
    ``False`` turns it off; or pass a client), the model chooses among the best
    matches and fills parameters too (:mod:`.llm_extract`).

    Raises RecipeError when no recipe matches the request, UsageError when it is empty.
    """
    if not isinstance(request, str) or not request.strip():
        raise UsageError("empty request: describe the manifest you want, e.g. \"volcano job, 4 workers x 8 GPUs\"")
    recipes = load_recipes() if recipes is None else recipes
    ranked = match_recipes(request, recipes, k=3)
    if not ranked or ranked[0][1] < MIN_SCORE:
        raise RecipeError("no recipe matches the request (see gpukb recipe list)")
    recipe, score = ranked[0]
    ext = extract_params(recipe, request)
    if len(ranked) > 1 and ranked[1][1] >= _NEAR_TIE * score:
        # two recipes match about equally: the one that understands more of the request wins
        alt, alt_score = ranked[1]
        alt_ext = extract_params(alt, request)
        if _not_understood(alt, alt_ext) < _not_understood(recipe, ext):
            recipe, score, ext = alt, alt_score, alt_ext
            ranked = [ranked[1], ranked[0], *ranked[2:]]
    found = dict(ext.values)
    reading = None
    if llm is not False:
        from .llm_extract import understand

        reading = understand(request, recipes, recipe, found, score=score, client=llm)
        if reading is not None:
            if reading.recipe is not recipe:
                ext = extract_params(reading.recipe, request)
            recipe, score, found = reading.recipe, reading.score, dict(reading.values)
            ranked = [(recipe, score), *[(r, s) for r, s in ranked if r is not recipe]]
    used = ext.used()
    for k, (other, (a, b)) in ext.conflicts.items():
        if found.get(k) is not None and found[k] != other:
            raise ParameterError(f"the request gives {k} two values: {found[k]!r} (\"{used.get(k, found[k])}\") and "
                                 f"{other!r} (\"{ext.text[a:b]}\"); say which one", parameter=k)
    for k in found:
        used.setdefault(k, "(read by the language model)")
    notes: list[dict[str, Any]] = []
    try:
        rendered = render_recipe(recipe, found)
    except ParameterError as exc:
        # A value the request gave is never changed or dropped: say what conflicts.
        bad = exc.parameter or ""
        if len(exc.involved) > 1:
            words = "; ".join(f'{n} from "{used[n]}"' for n in exc.involved if n in used)
            raise ParameterError(f"the request's values conflict: {exc.message}" + (f" ({words})" if words else ""),
                                 parameter=bad) from None
        words = f" (from \"{used[bad]}\")" if bad in used else ""
        raise ParameterError(f"the request's {bad}={found.get(bad or '')!r}{words} cannot be used: {exc.message}",
                             parameter=bad) from None
    if found:
        _refuse_conflicts(rendered.documents, rendered.issues, found, used)
    defaults = {k: v for k, v in rendered.params.items() if k not in found}
    return Generated(
        recipe=recipe.id,
        title=recipe.title,
        params=rendered.params,
        yaml=rendered.yaml,
        valid=rendered.valid,
        issues=notes + rendered.issues,
        from_request=found,
        defaults=defaults,
        score=score,
        alternatives=[{"id": r.id, "title": r.title, "score": s} for r, s in ranked[1:3]],
        documents=rendered.documents,
        used=used,
        unused=understood(recipe, ext),
        missing=_missing(recipe, found, rendered.params),
        llm_filled={k: v for k, v in (reading.llm_filled if reading else {}).items() if k in found},
        notices=(list(reading.notices) if reading else []) + list(rendered.notices),
    )


_NEAR_TIE = 0.95  # a second recipe scoring this close to the best is compared by what it understands


def _not_understood(recipe: Recipe, ext: Extraction) -> int:
    return sum(len(f.split()) for f in understood(recipe, ext))


def _refuse_conflicts(documents: list[Any], issues: list[dict[str, Any]], found: dict[str, Any],
                      used: dict[str, str]) -> None:
    """Values from the request that make a manifest the cluster would reject (or
    that cannot work, such as minMember above the pods) are an error naming
    them, never a silently different manifest."""
    from ..lint import lint_documents

    errors = [i for i in issues if i.get("severity") == "error"]
    for res in lint_documents(documents):
        errors += [{"message": f.message, "rule": f.rule} for f in res.findings
                   if f.severity == "error" and f.rule not in {e.get("rule") for e in errors}]
    if not errors:
        return
    given = ", ".join(f"{k}={found[k]!r}" + (f' ("{used[k]}")' if k in used else "") for k in found)
    first = str(errors[0].get("message", ""))[:200]
    raise ParameterError(f"the request's values ({given}) give a manifest that cannot work: {first}")


def _missing(recipe: Recipe, found: dict[str, Any], params: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, spec in recipe.properties.items():
        question = spec.get("x-ask") if isinstance(spec, dict) else None
        question = question or KEY_PARAMETERS.get(name)
        if question and name not in found and name in params:
            out.append({"param": name, "question": question, "default": params[name]})
    return out


def _recipe_phrases(recipe: Recipe, title_words: bool = True) -> list[re.Pattern[str]]:
    from .extract import kind_phrases

    words = [*recipe.keywords, *recipe.kinds, recipe.id.replace("-", " "), *recipe.id.split("-"), recipe.title]
    words += [ph for k in recipe.kinds for ph in kind_phrases(k)]  # "pool" for a NodePool
    pats = []
    for w in words:
        parts = [re.escape(p) + r"(?:s|es)?" for p in re.split(r"[\s-]+", w.strip().lower()) if p]
        if parts:
            pats.append(re.compile(r"(?<![\w-])" + r"[\s-]?".join(parts) + r"(?![\w-])", re.I))
    if not title_words:
        return pats
    # single title words count too ("Kubeflow PyTorchJob for distributed GPU training")
    for t in re.findall(r"[A-Za-z][\w.-]+", recipe.title):
        if t.lower() not in _FRAME:
            pats.append(re.compile(r"(?<![\w-])" + re.escape(t) + r"(?:s|es)?(?![\w-])", re.I))
    return pats


def understood(recipe: Recipe, ext: Extraction) -> list[str]:
    """Fragments of the request that no parameter used and that do not just name
    the recipe: what the user asked for that the manifest does not reflect."""
    text = ext.text
    covered = list(ext.covered)
    # the recipe's name, the first time it is written, names the recipe; written again inside a
    # clause ("set the compute timeslice to long") it is a word of that clause's detail
    again: list[tuple[int, int]] = []
    firsts: list[tuple[int, int]] = []
    for rx in _recipe_phrases(recipe, title_words=False):
        spans = [m.span() for m in rx.finditer(text)]
        firsts += spans[:1]
        again += spans[1:]
    covered += firsts
    again = [sp for sp in again if not any(a <= sp[0] and sp[1] <= b for a, b in firsts)]
    for name in recipe.properties:  # a parameter's own name alone ("queue") is not a lost detail
        for v in name_variants(name):
            covered += [m.span() for m in re.finditer(r"(?<![\w-])" + re.escape(v) + r"(?![\w-])", text, re.I)]
    # a single word of the title names the recipe only on its own: after a word nothing understood
    # it is the head of another thing ("a cron trigger" where the title has a Prometheus trigger)
    title_only = [m.span() for rx in _recipe_phrases(recipe)[len(_recipe_phrases(recipe, title_words=False)):]
                  for m in rx.finditer(text)] + again

    def is_covered(a: int, b: int) -> bool:
        return any(x < b and a < y for x, y in covered)

    # fragments are runs of tokens (word, start, end); each is shown as the request wrote it
    fragments: list[list[tuple[str, int, int]]] = []
    current: list[tuple[str, int, int]] = []
    tokens = list(_TOKEN.finditer(text))
    for i, m in enumerate(tokens):
        tok = m.group(0).rstrip(".,;:)")
        entry = (tok, m.start(), m.start() + len(tok))
        low = tok.lower()
        weak = not is_covered(*m.span()) and any(x < m.end() and m.start() < y for x, y in title_only)
        if weak and current and current[-1][0].lower() not in _FRAME:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            # ... also over one function word: "set the compute timeslice to long"
            far = tokens[i + 2] if nxt is not None and nxt.group(0).lower() in _FRAME and i + 2 < len(tokens) else nxt
            if nxt is not None and far is not None and not is_covered(*nxt.span()) and not is_covered(*far.span()) \
                    and not re.search(r"[.,;:)]", text[m.end() - 1:far.start()]) and far.group(0).lower() not in _FRAME:
                current.append(entry)  # "a per-pod GPU memory limit": inside one thing not understood
                continue
            fragments.append(current + [entry])
            current = []
            continue
        if is_covered(*m.span()) or weak or (low in _FRAME and not current):
            if current:
                fragments.append(current)
                current = []
            continue
        current.append(entry)
    if current:
        fragments.append(current)
    out = []
    for frag in fragments:
        while frag and frag[-1][0].lower() in _FRAME:
            frag = frag[:-1]
        if frag and any(w.lower() not in _FRAME for w, _a, _b in frag):
            # the words as written, with what joins them ("cost-center=ml", "/home/jovyan"), on one line
            out.append(_balanced(" ".join(text[frag[0][1]:frag[-1][2]].split())))
    return out


def _balanced(fragment: str) -> str:
    """``fragment`` without brackets or quotes whose partner lies outside it ("quota (6 used of 8")."""
    for opening, closing in (("(", ")"), ("[", "]"), ("{", "}")):
        depth, keep = 0, []
        for ch in fragment:
            if ch == opening:
                depth += 1
            elif ch == closing:
                if depth == 0:
                    keep.append(" ")
                    continue
                depth -= 1
            keep.append(ch)
        out = "".join(keep)
        while depth:  # drop the last unclosed openings
            i = out.rfind(opening)
            out = out[:i] + " " + out[i + 1:]
            depth -= 1
        fragment = out
    for q in ('"', "`"):
        if fragment.count(q) % 2:
            fragment = fragment.replace(q, " ")
    return " ".join(fragment.split())
