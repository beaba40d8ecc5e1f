"""Scoring plain-language generation against a set of requests with expected output.

Each case of ``evals/requests/*.yaml``::

    - request: "volcano job, 4 workers x 8 GPUs, queue research"
      recipe: volcano-job                  # expected recipe id
      checks:
        - {path: "Job.spec.minAvailable", equals: 4}
        - {path: "Job.spec.tasks[0].template.spec.containers[0].resources.limits[nvidia.com/gpu]", equals: 8}
        - {path: "Job.spec.plugins.ssh", exists: true}
        - {path: "ConfigMap.data.any", contains: "replicas: 4"}

A path starts with a document selector (its index, or its kind: the first
document of that kind; ``params`` selects the generated parameters), then
dotted keys; ``[n]`` indexes lists and ``[key.with.dots]`` reads such keys.
A case is fully correct when the recipe matches, every check passes and the
output validates.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from ..errors import GpukbError, RecipeError

__all__ = ["evaluate_requests", "resolve_path", "load_cases"]

_MISSING = object()


def _segments(path: str) -> list[str | int]:
    out: list[str | int] = []
    for m in re.finditer(r"\[([^\]]*)\]|([^.\[\]]+)", path):
        if m.group(1) is not None:
            s = m.group(1).strip("'\"")
            out.append(int(s) if re.fullmatch(r"-?\d+", s) else s)
        else:
            s = m.group(2)
            out.append(int(s) if re.fullmatch(r"\d+", s) else s)
    return out


def resolve_path(documents: list[Any], params: dict[str, Any], path: str) -> Any:
    """The value at ``path`` (see module doc), or a sentinel that is not found."""
    segs = _segments(path)
    if not segs:
        return _MISSING
    head, rest = segs[0], segs[1:]
    if head == "params":
        cur: Any = params
    elif isinstance(head, int):
        if head >= len(documents):
            return _MISSING
        cur = documents[head]
    else:
        cur = next((d for d in documents if isinstance(d, dict) and d.get("kind") == head), _MISSING)
    for s in rest:
        if cur is _MISSING:
            return _MISSING
        if isinstance(cur, list) and isinstance(s, int):
            cur = cur[s] if -len(cur) <= s < len(cur) else _MISSING
        elif isinstance(cur, dict):
            cur = cur.get(s, cur.get(str(s), _MISSING))
        else:
            return _MISSING
    return cur


def _norm(v: Any) -> Any:
    return v


def _check(documents: list[Any], params: dict[str, Any], check: dict[str, Any]) -> str | None:
    path = str(check.get("path", ""))
    val = resolve_path(documents, params, path)
    if "exists" in check:
        exists = val is not _MISSING
        if exists != bool(check["exists"]):
            return f"{path}: expected {'present' if check['exists'] else 'absent'}"
        return None
    if val is _MISSING:
        return f"{path}: missing"
    if "equals" in check:
        want = check["equals"]
        if val != want and not (isinstance(want, (int, float)) and isinstance(val, str) and val == str(want)) \
                and not (isinstance(val, (int, float)) and isinstance(want, str) and str(val) == want) \
                and not _same_quantity(val, want):
            return f"{path}: {val!r} != {want!r}"
    if "contains" in check:
        want = check["contains"]
        if isinstance(val, str):
            if str(want) not in val:
                return f"{path}: {val[:80]!r} does not contain {want!r}"
        elif isinstance(val, (list, dict)):
            if want not in val:
                return f"{path}: {want!r} not in {str(val)[:80]}"
        else:
            return f"{path}: {val!r} is not a string, list or mapping"
    return None


def load_cases(path: Path) -> list[dict[str, Any]]:
    """Cases from one YAML file or from every ``*.yaml`` in a folder."""
    import yaml

    path = Path(path)
    files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
    out: list[dict[str, Any]] = []
    for f in files:
        try:
            data = yaml.safe_load(f.read_text(encoding="utf-8"))
        except OSError as exc:
            raise RecipeError(f"cannot read ({exc.strerror or exc.__class__.__name__})", path=str(f)) from None
        except yaml.YAMLError:
            raise RecipeError("invalid YAML", path=str(f)) from None
        cases = data.get("cases") if isinstance(data, dict) else data
        if not isinstance(cases, list):
            raise RecipeError("expected a list of cases (or a mapping with 'cases')", path=str(f))
        for i, c in enumerate(cases):
            if not isinstance(c, dict) or not isinstance(c.get("request"), str):
                raise RecipeError("each case needs a 'request' string", path=str(f), field=f"cases[{i}]")
            c.setdefault("file", f.name)
        out.extend(cases)
    return out


def split_of(case: dict[str, Any]) -> str:
    """``tune`` or ``test``: a case's own ``split`` field, else a stable third of
    the cases by a hash of the request text, so the split never follows the results."""
    import zlib

    if case.get("split") in ("tune", "test"):
        return str(case["split"])
    return "test" if zlib.crc32(case["request"].encode("utf-8")) % 3 == 0 else "tune"


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    if not n:
        return {"cases": 0}
    ms = sorted(r.get("extract_ms", 0.0) for r in results)
    return {
        "cases": n,
        "fully_correct": sum(r["correct"] for r in results),
        "fully_correct_rate": round(sum(r["correct"] for r in results) / n, 4),
        "recipe_accuracy": round(sum(r["recipe_ok"] for r in results) / n, 4),
        "valid_rate": round(sum(r["valid"] for r in results if r.get("recipe")) / max(1, sum(
            1 for r in results if r.get("recipe"))), 4),
        "silent_drops": sum(r.get("silent_drops", 0) for r in results),
        "changed_values": sum(r.get("changed_values", 0) for r in results),
        # values read for parameters the case's annotation does not list: an upper bound on values the
        # request never stated (an annotation may also just leave out a value it implies)
        "unannotated_values": sum(len(r.get("unannotated") or []) for r in results),
        "extract_ms_p95": round(ms[min(n - 1, int(0.95 * n))], 2),
    }


def _same_quantity(a: Any, b: Any) -> bool:
    """"2.5Ti" and "2560Gi" are one amount."""
    from .extract import parse_size

    def value(x: Any) -> float | None:
        m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGTP])i", str(x))
        return parse_size(m.group(1), m.group(2)) if m else None

    va, vb = value(a), value(b)
    return va is not None and va == vb


def _drops(case: dict[str, Any], g: Any) -> tuple[int, int, list[str]]:
    """Silent drops and changed values against the case's annotations.

    ``params: {name: value}`` lists what the request states; ``unsupported: [..]``
    lists details no recipe supports (they must show up in ``unused``)."""
    silent, changed, notes = 0, 0, []
    for name, want in (case.get("params") or {}).items():
        got = g.params.get(name)
        if got == want or str(got) == str(want) or _same_quantity(got, want) or _items_hold(got, want):
            continue
        if name in g.from_request:
            changed += 1
            notes.append(f"{name}: request said {want!r}, manifest has {got!r}")
        elif not g.unused:
            silent += 1
            notes.append(f"{name}={want!r} silently dropped (got {got!r})")
        else:
            notes.append(f"{name}={want!r} not used, reported as not understood")
    for detail in case.get("unsupported") or []:
        if not _reported(str(detail), g.unused):
            silent += 1
            notes.append(f"unsupported detail {detail!r} not reported in unused")
    return silent, changed, notes


def _items_hold(got: Any, want: Any) -> bool:
    """Objects listed as the case annotates them, each with more fields read than annotated ("1 master
    + 4 workers, workers get 2 gpus each": the worker task with its GPUs) change nothing the request said."""
    if not (isinstance(got, list) and isinstance(want, list) and len(got) == len(want)):
        return False
    return all(isinstance(g, dict) and isinstance(w, dict) and all(g.get(k) == v for k, v in w.items())
               for g, w in zip(got, want))


def _reported(detail: str, unused: list[str]) -> bool:
    """Is ``detail`` among what was reported as not understood? Each of its clauses must stand in a
    reported fragment, in the request's words or as the request reads once normalised ("10 percent" ->
    "10%"). Fragments are reported per clause and without the words that open one ("also", "and",
    "but") or the sentence's closing mark, so neither is part of the detail either ("but only on the
    T4 nodes, not the A100s" is reported as "only on the T4 nodes" and "not the A100s")."""
    from .extract import normalise_text
    from .generation import _LEAD

    pieces = []
    for piece in re.split(r"[,;:]\s+|\s+[-\u2013\u2014]\s+", detail.strip()):
        words = piece.strip().strip(".?!,;:").strip().split()
        while words and words[0].lower() in _LEAD:
            words = words[1:]
        if words:
            pieces.append(" ".join(words))
    if not pieces:
        return True
    # (code marks are no words: "`cost-center`" is reported as "cost-center")
    low = [u.lower().replace("`", "") for u in unused]
    for piece in pieces:
        said = {x.replace("`", "") for x in (piece.lower(), normalise_text(piece).lower().strip(".?!,;:").strip())}
        if not any(d in u for d in said for u in low):
            return False
    return True


def evaluate_requests(path: Path | None = None, recipes=None) -> dict[str, Any]:
    """Run every case; returns the summary (all, tune and test parts, per recipe)
    and per-case results."""
    from .extract import extract_params
    from .generation import generate
    from .match import match_recipes
    from .model import load_recipes

    if path is None:
        from ..config import load_settings

        path = load_settings().root / "evals" / "requests"
    cases = load_cases(Path(path))
    recipes = load_recipes() if recipes is None else recipes
    results = []
    if cases:  # warm the caches (match index, compiled patterns) before timing
        for r, _ in match_recipes(cases[0]["request"], recipes, k=len(recipes)):
            extract_params(r, cases[0]["request"])
    t0 = time.perf_counter()
    for c in cases:
        res: dict[str, Any] = {"request": c["request"], "expected_recipe": c.get("recipe"), "split": split_of(c),
                               "file": c.get("file")}
        t = time.perf_counter()
        ranked = match_recipes(c["request"], recipes, k=1)
        if ranked:
            extract_params(ranked[0][0], c["request"])
        res["extract_ms"] = (time.perf_counter() - t) * 1000
        try:
            g = generate(c["request"], recipes)
        except GpukbError as exc:
            ok = bool(c.get("expect_error"))
            res.update(recipe=None, recipe_ok=ok, valid=ok, failures=[] if ok else [str(exc)], correct=ok,
                       silent_drops=0, changed_values=0)
            results.append(res)
            continue
        failures = []
        if c.get("expect_error"):
            failures.append("expected an error naming the conflict")
        recipe_ok = c.get("recipe") in (None, g.recipe)
        if not recipe_ok:
            failures.append(f"recipe {g.recipe} != {c.get('recipe')}")
        else:
            for chk in c.get("checks") or []:
                f = _check(g.documents, g.params, chk)
                if f:
                    failures.append(f)
        silent, changed, notes = _drops(c, g) if recipe_ok else (0, 0, [])
        failures += [n for n in notes if "reported as not understood" not in n]
        if not g.valid:
            failures.append("output does not validate: " + "; ".join(
                f"{i.get('path')}: {i.get('message')}" for i in g.issues if i.get("severity") == "error")[:200])
        unannotated = sorted(k for k in g.from_request if k not in c["params"]) if recipe_ok and "params" in c else []
        res.update(recipe=g.recipe, recipe_ok=recipe_ok, valid=g.valid, failures=failures,
                   correct=not failures, from_request=g.from_request, used=g.used, unused=g.unused,
                   silent_drops=silent, changed_values=changed, unannotated=unannotated)
        results.append(res)
    elapsed = time.perf_counter() - t0
    per_recipe: dict[str, list[dict[str, Any]]] = {}
    for row in results:
        per_recipe.setdefault(str(row.get("expected_recipe") or row.get("recipe")), []).append(row)
    out = {"path": str(path), **_summary(results),
           "ms_per_request": round(elapsed * 1000 / len(results), 2) if results else 0.0,
           "tune": _summary([r for r in results if r["split"] == "tune"]),
           "test": _summary([r for r in results if r["split"] == "test"]),
           "per_recipe": {k: _summary(v) for k, v in sorted(per_recipe.items())},
           "results": results}
    return out
