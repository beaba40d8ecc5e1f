"""Plain-language generation: request in, rendered and validated manifest out."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, ParameterError, RecipeError, UsageError
from ..text import STOPWORDS
from .extract import (Extraction, chosen_column, done_todos, expanded_variables, extract_params, filled_template,
                      name_variants, pasted_forms, unfenced_prose)
from .match import change_target_ids, match_recipes, target_ids
from .model import Recipe, load_recipes, resolve_params
from .render import render_recipe

__all__ = ["Generated", "generate", "MIN_SCORE", "understood", "KEY_PARAMETERS"]

MIN_SCORE = 1.0

# Words that frame a request ("give me a yaml for ...") and carry no detail.
_FRAME = frozenset("""
give need want create make write generate render produce draft please pls yaml yml manifest manifests spec specs
example sample template config configuration set setup up k8s kubernetes cluster new simple basic quick just
x thanks thx hi hey can could would you me us our my we i a an the for with and or of in on to each per
turn convert into proper fill rest it this that needs has have should must
summary details description ticket request requested requester title equivalent version gpukb bump
raise lower increase decrease redo add keep change
altogether
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


MAX_REQUEST_CHARS = 4000  # a request describes one manifest (pastes included)


def check_length(request: str) -> None:
    """InputError when ``request`` is longer than :data:`MAX_REQUEST_CHARS` (for every interface:
    reading time grows with the text)."""
    if len(request) > MAX_REQUEST_CHARS:
        raise InputError(f"the request is {len(request):,} characters long; at most {MAX_REQUEST_CHARS:,} "
                         "(describe one manifest)")


def generate(request: str, recipes: list[Recipe] | None = None, *, llm: Any = None) -> Generated:
    """Pick a recipe for ``request``, fill its parameters from the text, render and validate.

    With a language model configured (``llm=None`` reads the configuration;
    ``False`` turns it off; or pass a client), the model chooses among the best
    matches and fills parameters too (:mod:`.llm_extract`).

    Raises RecipeError when no recipe matches the request, UsageError when it is empty, InputError
    when it is longer than :data:`MAX_REQUEST_CHARS`.
    """
    if not isinstance(request, str) or not request.strip():
        raise UsageError("empty request: describe the manifest you want, e.g. \"volcano job, 4 workers x 8 GPUs\"")
    check_length(request)
    request = unfenced_prose(request)  # a commit message or notes pasted in ``` marks are the request's words
    request = done_todos(request)  # "let's do the TODOs": a pasted file's settings as its TODO comments want them
    request = chosen_column(request)  # "| setting | dev | staging |" and "only build staging": that column alone
    # "export NODES=4" and "replicas: ${NODES}": the script as the shell runs it; "shards: <SHARDS>" and
    # "SHARDS = 1200": the template as filled in
    request = filled_template(expanded_variables(request, shell_only=True))
    request = pasted_forms(request)  # "fs_id: str = \"fs-1\"" in a pasted dataclass: fs_id is "fs-1"
    recipes = load_recipes() if recipes is None else recipes
    every = match_recipes(request, recipes, k=len(recipes))
    ranked = every[:3]
    if not ranked or ranked[0][1] < MIN_SCORE:
        raise RecipeError("no recipe matches the request (see gpukb recipe list)")
    recipe, score = ranked[0]
    targets = target_ids(request, recipes)
    changes = change_target_ids(request, recipes)
    changed_to = changes if recipe.id not in targets else set()
    if changed_to:
        # "docker run ... vllm serve ... Convert to a Deployment + Service": what a verb of change leads
        # to wins over the recipe whose details the request describes from before
        named = next(((r, s) for r, s in ranked[1:] if r.id in changed_to and s >= _FAR * score), None)
        if named is not None:
            recipe, score = named
            ranked = [named, *[(r, s) for r, s in ranked if r is not named[0]]]
    ext = extract_params(recipe, request)
    if recipe.id in targets and recipe.id not in changes:
        targets = _unless_referred_to(request, recipe, score, ranked, targets)
    # "port this into Volcano": what a verb of change leads to is asked for, however much the other reads
    if len(ranked) > 1 and ranked[1][1] >= _CLOSE * score and recipe.id not in targets:
        # two recipes match about equally: the one that understands more of the request wins; when
        # the second is further behind, it must understand clearly more ("mps x2, driver and toolkit
        # preinstalled": the MPS recipe reads the toggles too, the ClusterPolicy one not the sharing)
        alt, alt_score = ranked[1]
        alt_ext = extract_params(alt, request)
        margin = 0 if alt_score >= _NEAR_TIE * score else _CLOSE_MARGIN
        if _not_understood(alt, alt_ext) + margin < _not_understood(recipe, ext):
            recipe, score, ext = alt, alt_score, alt_ext
            ranked = [ranked[1], ranked[0], *ranked[2:]]
    if recipe.id not in targets:
        # a recipe further behind that reads clearly more of the request (more of its details
        # fill parameters, fewer words left unread) is what the request describes: "operator
        # v26.3.3, CRI-O, driver pinned to X, enable the dcgm servicemonitor" names one
        # component's recipe, yet every detail is a ClusterPolicy setting
        # ... and so is a bundle that renders the first recipe's objects and more (a tenant onboarding for a
        # quota asked with a priority class), however far behind its words put it
        weighed = [(r, s, False) for r, s in ranked[1:3]] + \
            [(r, s, True) for r, s in every[3:] if set(ranked[0][0].kinds) < set(r.kinds)]
        # (of several that do, the one that leaves least unread)
        better: list[tuple[int, int, Recipe, float, Extraction]] = []
        for order, (alt, alt_score, bundle) in enumerate(weighed):
            if alt is recipe or (alt_score < _FAR * score and not bundle):
                continue
            alt_ext = extract_params(alt, request)
            unread = _not_understood(alt, alt_ext)
            # (a bundle renders the first recipe's objects too: one more detail read is enough)
            more = 1 if bundle else _MORE_PARAMS
            # (or reads twice that many more and leaves no more unread: "autoscale the triton deployment ...
            # between two and ten replicas, target sixty percent" fills five of an HPA's parameters, one of a Deployment's)
            if _evidenced(alt_ext) >= _evidenced(ext) + more and \
                    unread + _FEWER_UNREAD <= _not_understood(recipe, ext) or \
                    _evidenced(alt_ext) >= _evidenced(ext) + 2 * _MORE_PARAMS and unread <= _not_understood(recipe, ext):
                better.append((unread, order, alt, alt_score, alt_ext))
        if better:
            _, _, alt, alt_score, alt_ext = min(better, key=lambda b: (b[0], b[1]))
            recipe, score, ext = alt, alt_score, alt_ext
            ranked = [(alt, alt_score), *[(r, s) for r, s in ranked if r is not alt]]
    if recipe.id not in targets:
        recipe, score, ext, ranked = _smallest_that_covers(request, recipe, score, ext, ranked)
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
    raised: list[str] = []
    for k, (value, (a, b), why) in ext.out_of_range.items():
        if k in found:
            continue
        least = _smallest_above(recipe, found, k, value) if _AT_LEAST.search(ext.text, max(0, a - 40), a) or \
            _OR_MORE.match(ext.text, b) else None
        if least is None:  # a value the request states is never dropped for a default
            raise ParameterError(f"the request's {k}={value!r} (\"{ext.text[a:b]}\") cannot be used: {why}", parameter=k)
        # "at least 4 TiB, as small as FSx allows": the smallest value the recipe takes from there on
        found[k] = least
        used[k] = _as_written(ext, a, b)
        raised.append(_least_notice(k, value, least))
    for k in found:
        used.setdefault(k, "(read by the language model)")
    notes: list[dict[str, Any]] = []
    try:
        try:
            rendered = render_recipe(recipe, found)
        except ParameterError as exc:
            notice = _raised_to_least(recipe, ext, found, exc)
            if notice is None:
                raise
            raised.append(notice)
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
        notices=(list(reading.notices) if reading else []) + raised + list(rendered.notices),
    )


# "at least 4 TiB", "a minimum of 3", "no less than 10"; "4 TiB or more"
_AT_LEAST = re.compile(r"\b(?:at\s+least|(?:a\s+)?minimum(?:\s+of)?|min\.?|no\s+(?:less|fewer)\s+than|not\s+less\s+than)\s*$",
                       re.I)
_OR_MORE = re.compile(r"\s*(?:[A-Za-z]{1,5}\s+)?(?:or\s+(?:more|larger|bigger|above)|and\s+up|\+)(?![\w])", re.I)


def _unless_referred_to(request: str, recipe: Recipe, score: float, ranked: list[tuple[Recipe, float]],
                        targets: set[str]) -> set[str]:
    """``targets`` without ``recipe`` when the object of its kind that the request names is one another
    close recipe refers to by a parameter: "ranking-api (the deployment name) ... autoscale on gpu util"
    names the Deployment an autoscaler scales, not a Deployment to write."""
    from .extract import kind_phrases

    kinds = {ph.lower().replace(" ", "_") for k in recipe.kinds for ph in kind_phrases(k)}
    for alt, alt_score in ranked[1:3]:
        refs = [p for p in alt.properties if p.lower() in kinds]
        if not refs or alt_score < _FAR * score:
            continue
        if any(p in extract_params(alt, request).values for p in refs):
            return targets - {recipe.id}
    return targets


def _least_notice(name: str, value: Any, least: int) -> str:
    return f"{name}: the request asks for at least {value}; {least} is the smallest value the recipe accepts from there"


def _raised_to_least(recipe: Recipe, ext: Extraction, found: dict[str, Any], exc: ParameterError) -> str | None:
    """A value stated as a minimum that the recipe rejects ("at least 4 TiB" where FSx takes 4800 GiB)
    becomes the smallest value it takes above it (``found`` changes); the notice says so."""
    name = exc.parameter or ""
    span = ext.spans.get(name)
    if name not in found or span is None or len(exc.involved) > 1:
        return None
    a, b = span
    if not (_AT_LEAST.search(ext.text, max(0, a - 40), a) or _OR_MORE.match(ext.text, b)):
        return None
    least = _smallest_above(recipe, found, name, found[name])
    if least is None:
        return None
    value, found[name] = found[name], least
    return _least_notice(name, value, least)


def _smallest_above(recipe: Recipe, found: dict[str, Any], name: str, value: Any) -> int | None:
    """The smallest value of an integer parameter above ``value`` that the recipe accepts along with the
    other values found, from the values its schema names (constants, enums, multiples, minimums)."""
    if not isinstance(value, int):
        return None
    candidates: set[int] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            spec = (node.get("properties") or {}).get(name)
            for s in ([spec] if isinstance(spec, dict) else []):
                for sub in [s, *[x for key in ("anyOf", "oneOf", "allOf") for x in s.get(key) or []]]:
                    if not isinstance(sub, dict):
                        continue
                    candidates.update(v for v in [sub.get("const"), sub.get("minimum"), *(sub.get("enum") or [])]
                                      if isinstance(v, int) and v > value)
                    m = sub.get("multipleOf")
                    if isinstance(m, int) and m > 0:
                        candidates.add(-(-value // m) * m if value % m else value + m)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(recipe.parameters)
    for c in sorted(candidates)[:20]:
        try:
            resolve_params(recipe, {**found, name: c})
        except ParameterError:
            continue
        return c
    return None


_NEAR_TIE = 0.95  # a second recipe scoring this close to the best is compared by what it understands
_CLOSE = 0.7  # ... and one this close when it leaves at least _CLOSE_MARGIN fewer content words unread
_CLOSE_MARGIN = 2
_HALF = 0.5  # a smaller recipe this close takes over from a bundle the request asks nothing more of
_FAR = 0.25  # ... and one further behind when it fills _MORE_PARAMS more parameters and leaves
_MORE_PARAMS = 2  # _FEWER_UNREAD fewer content words unread
_FEWER_UNREAD = 3


def _smallest_that_covers(request: str, recipe: Recipe, score: float, ext: Extraction,
                          ranked: list[tuple[Recipe, float]]):
    """Of a bundle and a close recipe that renders part of it, the smaller one when the request asks
    nothing of the rest: a namespace's GPU, CPU and memory caps are a quota, not a tenant onboarding
    bundle, unless the request names the bundle's own objects or words ("onboard", "queue") or gives
    a value only the bundle reads."""
    for alt, alt_score in ranked[1:3]:
        if alt_score < _HALF * score or not set(alt.kinds) < set(recipe.kinds):
            continue
        own = {k.lower() for k in recipe.keywords} - {k.lower() for k in alt.keywords}
        low = request.lower()
        if any(re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", low) for k in own):
            continue
        alt_ext = extract_params(alt, request)
        said = {str(v) for v in alt_ext.values.values()}
        if any(str(v) not in said for v in ext.values.values()):
            continue  # the bundle reads something the smaller recipe cannot
        if _not_understood(alt, alt_ext) <= _not_understood(recipe, ext):
            return alt, alt_score, alt_ext, [(alt, alt_score), *[(r, s) for r, s in ranked if r is not alt]]
    return recipe, score, ext, ranked


def _evidenced(ext: Extraction) -> int:
    """How many parameters the request fills with words around them: a bare number read for a
    parameter ("threshold" from the "1" of "1 gpu per replica") is no evidence of the recipe."""
    return sum(1 for words in ext.used().values() if re.search(r"[A-Za-z%]", words))


def _not_understood(recipe: Recipe, ext: Extraction) -> int:
    return _unused_runs(recipe, ext)[1]


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


def _recipe_phrases(recipe: Recipe) -> list[re.Pattern[str]]:
    from .extract import kind_phrases

    words = [*recipe.keywords, *recipe.kinds, recipe.id.replace("-", " "), *recipe.id.split("-"), recipe.title]
    words += [ph for k in recipe.kinds for ph in kind_phrases(k)]  # "pool" for a NodePool
    pats = []
    for w in words:
        parts = [re.escape(p) + r"(?:s|es)?" for p in re.split(r"[\s-]+", w.strip().lower()) if p]
        if parts:
            pats.append(re.compile(r"(?<![\w-])" + r"[\s-]?".join(parts) + r"(?![\w-])", re.I))
    # single title words count too ("Kubeflow PyTorchJob for distributed GPU training")
    for t in re.findall(r"[A-Za-z][\w.-]+", recipe.title):
        if t.lower() not in _FRAME:
            pats.append(re.compile(r"(?<![\w-])" + re.escape(t) + r"(?:s|es)?(?![\w-])", re.I))
    return pats


def understood(recipe: Recipe, ext: Extraction) -> list[str]:
    """Fragments of the request that no parameter used and that do not just name
    the recipe: what the user asked for that the manifest does not reflect."""
    return _unused_runs(recipe, ext)[0]


def _cue_words(recipe: Recipe) -> frozenset[str]:
    """Single words the recipe's extraction rules and parameter names use as cues."""
    got = _CUE_CACHE.get(recipe.id)
    if got is None or got[0] is not recipe.extract:
        words: set[str] = set()

        def walk(v: Any) -> None:
            if isinstance(v, str) and not re.search(r"[\\(\[]", v):
                words.update(w.lower() for w in re.findall(r"[A-Za-z][\w/]*", v))
            elif isinstance(v, dict):
                for k, x in v.items():
                    if k not in ("regex", "pairs", "objects", "value", "tiers"):
                        walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)

        walk(recipe.extract)
        for name in recipe.properties:
            words.update(name.lower().split("_"))
        got = (recipe.extract, frozenset(words))
        _CUE_CACHE[recipe.id] = got
    return got[1]


_CUE_CACHE: dict[str, tuple[Any, frozenset[str]]] = {}
# words that open a fragment without saying anything of it ("and also please ...")
_LEAD = frozenset("and or also plus then so but oh please pls thanks thx hi hey ok okay kind".split())
# words a clause may end on that say nothing of a detail: courtesy, and articles or prepositions left
# dangling
_TRAIL = _LEAD | frozenset("a an the of for with to in on at by from x yaml yml manifest manifests asap".split())
_CLOSERS = re.compile(r"[)\]}'\"`%]+")


def _unused_runs(recipe: Recipe, ext: Extraction) -> tuple[list[str], int]:
    """The request's words that no parameter used, as runs within a clause, and how many of
    them say something (neither a frame word nor a name of the recipe or its parameters).

    A run is kept whole, with the recipe's or a parameter's name inside it ("pin the PV to the
    us-west-2b zone"): a name written inside a detail is a word of that detail. A run that only
    names the recipe or a parameter ("volcano job", "queue") is no lost detail."""
    text = ext.text
    used = list(ext.covered)
    names: list[tuple[int, int]] = []
    for rx in _recipe_phrases(recipe):
        names += [m.span() for m in rx.finditer(text)]
    for name in recipe.properties:
        for v in name_variants(name):
            names += [m.span() for m in re.finditer(r"(?<![\w-])" + re.escape(v) + r"(?![\w-])", text, re.I)]

    def hits(spans: list[tuple[int, int]], a: int, b: int) -> bool:
        return any(x < b and a < y for x, y in spans)

    runs: list[list[tuple[str, int, int]]] = []
    current: list[tuple[str, int, int]] = []
    clause = 0  # which clause each run is in; a run split by used words keeps its clause
    clauses: list[int] = []
    before_used: list[bool] = []  # does a used word follow the run in its clause?
    prev_end = 0
    for m in _TOKEN.finditer(text):
        tok = m.group(0).rstrip(".,;:)")
        a, b = m.start(), m.start() + len(tok)
        # a clause ends at punctuation between words (not inside a value such as "0-3" or "a/b"), and
        # at a code fence
        if re.search(r"[,;!?\n]|\.(?:\s|$)|\s-\s|:\s|```", text[prev_end:a]) or tok.startswith("```"):
            if current:
                runs.append(current)
                clauses.append(clause)
                before_used.append(False)
                current = []
            clause += 1
        prev_end = b
        if tok.startswith("```"):
            continue
        if hits(used, a, b):
            if current:
                runs.append(current)
                clauses.append(clause)
                before_used.append(True)
                current = []
            continue
        current.append((tok, a, b))
    if current:
        runs.append(current)
        clauses.append(clause)
        before_used.append(False)
    out: list[str] = list(ext.unread)  # a pasted definition's lines no parameter took, as written
    content = sum(len(u.split()) for u in ext.unread)
    kept: list[tuple[int, int, int]] = []  # (clause, start, end) of each fragment reported
    for run, at_clause, cut in zip(runs, clauses, before_used):
        while run and run[0][0].lower() in _LEAD:
            run = run[1:]
        # frame words before a used value belong to it ("pin it to the [A100s]"), but not a value joined
        # to its key ("cleanPodPolicy=All"); at a clause's end only courtesy and dangling small words go,
        # so a detail keeps its last word ("so only our VPN can reach it", "page us if it goes down")
        trailing = _FRAME if cut else _TRAIL
        while run and run[-1][0].lower() in trailing and not (
                len(run) > 1 and re.fullmatch(r"[:=]", text[run[-2][2]:run[-1][1]])):
            run = run[:-1]
        said = [w for w, a, b in run if w.lower() not in _FRAME and not hits(names, a, b)]
        if not said:
            continue
        # "after 30 days (720h)": the same amount again in brackets right after the one used
        if len(run) == 1 and re.fullmatch(r"\d+(?:\.\d+)?[A-Za-z]{0,3}", run[0][0]) and any(
                re.fullmatch(r"\s*\(\s*", text[y:run[0][1]]) for _x, y in used if y <= run[0][1]):
            continue
        # "4x GPU per pod": the rate of a count used right before
        if len(run) == 2 and run[0][0].lower() in ("per", "each", "every", "a", "an") and any(
                re.fullmatch(r"\s*", text[y:run[0][1]]) and re.search(r"\d", text[x:y]) for x, y in used if y <= run[0][1]):
            continue
        # "node label NVIDIA-A100-SXM4-80GB", "/dev/shm 32Gi": cue words right before a value used
        if all(w.split("/")[-1].lower() in _cue_words(recipe) for w in said) and any(
                re.fullmatch(r"[\s:=]*", text[run[-1][2]:x]) for x, _y in used if x >= run[-1][2]):
            continue
        content += len(said)
        end = run[-1][2]
        closing = _CLOSERS.match(text, end)  # "(nvidia-fs)", "'system'", "25%"
        if closing:
            end = closing.end()
        start = run[0][1]
        while start > 0 and text[start - 1] == "-" and (start < 2 or not text[start - 2].isalnum()):
            start -= 1  # a flag keeps its dashes ("-t 48:00:00")
        if kept and kept[-1][0] == at_clause and len(_TOKEN.findall(text[kept[-1][2]:start])) <= _GAP:
            # "route the alert to the PagerDuty service": one detail of one clause, read whole, though
            # a word inside it was read for a parameter
            start = kept[-1][1]
            kept.pop()
            out.pop()
        kept.append((at_clause, start, end))
        out.append(_balanced(" ".join(_as_written(ext, start, end).split())))
    return out, content


_WORD = re.compile(r"\S+")
_EDGE = ".,;:!?()[]{}\"'`"


def _as_written(ext: Extraction, start: int, end: int) -> str:
    """The words of the request as the user wrote them for ``ext.text[start:end]``, which reads them
    normalised ("inode limit of 1000000" is "inode limit of 1M", "do not drop" is "Don't drop")."""
    said = ext.text[start:end]
    if not ext.source or ext.source == ext.text:
        return said
    norm = [(m.start(), m.end()) for m in _WORD.finditer(ext.text)]
    orig = [(m.start(), m.end()) for m in _WORD.finditer(ext.source)]
    key = (ext.text, ext.source)
    ops = _ALIGNED.get(key)
    if ops is None:
        a = [ext.text[x:y].lower().strip(_EDGE) for x, y in norm]
        b = [ext.source[x:y].lower().strip(_EDGE) for x, y in orig]
        ops = [(str(tag), i1, i2, j1, j2) for tag, i1, i2, j1, j2 in
               difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()]
        _ALIGNED.clear()  # one request at a time: the last alignment is the one asked for again
        _ALIGNED[key] = ops
    inside = [i for i, (x, y) in enumerate(norm) if x < end and y > start]
    if not inside:
        return said
    first, last = inside[0], inside[-1]
    lo = hi = None
    for tag, i1, i2, j1, j2 in ops:
        if tag == "insert" or i2 <= first or i1 > last:
            continue
        if tag == "equal":
            a0, a1 = max(i1, first), min(i2, last + 1)
            j_lo, j_hi = j1 + (a0 - i1), j1 + (a1 - i1)
        elif tag == "replace":
            j_lo, j_hi = j1, j2
        else:  # words the normalising added
            continue
        lo = j_lo if lo is None else min(lo, j_lo)
        hi = j_hi if hi is None else max(hi, j_hi)
    if lo is None or hi is None or hi <= lo or hi - lo > 2 * len(inside) + 3:
        return said
    w0, w1 = orig[lo][0], orig[hi - 1][1]
    # a run that starts or ends inside a word ("All" of "cleanPodPolicy=All") keeps that cut where the
    # word is written the same
    n0, n1 = norm[first], norm[last]
    if start > n0[0] and ext.text[n0[0]:n0[1]] == ext.source[orig[lo][0]:orig[lo][1]]:
        w0 += start - n0[0]
    if end < n1[1] and ext.text[n1[0]:n1[1]] == ext.source[orig[hi - 1][0]:orig[hi - 1][1]]:
        w1 -= n1[1] - end
    written = ext.source[w0:w1] if w0 < w1 else said
    # keep the fragment's own edges: no punctuation the run did not have
    if said[:1].isalnum():
        written = written.lstrip(_EDGE)
    if said[-1:].isalnum() or said[-1:] in "%":
        written = written.rstrip(".,;:!?") if not said[-1:] in ")]}'\"`" else written
    return written or said


_ALIGNED: dict[tuple[str, str], list[tuple[str, int, int, int, int]]] = {}


_GAP = 3  # unread runs of one clause this few words apart are one fragment


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
