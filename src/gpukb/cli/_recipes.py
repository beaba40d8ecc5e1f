"""``gpukb recipe list|show|render|validate`` and ``gpukb generate``."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from ..errors import GpukbError, InputError, ManifestError, ParameterError, UsageError
from ..output import clean
from . import app
from ._common import JsonOpt, emit_json, printable, stdin_lines

recipe_app = typer.Typer(
    name="recipe",
    help="List, show, render and check manifest recipes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(recipe_app, name="recipe")

DirOpt = typer.Option(None, "--recipes-dir", help="Recipes folder (default: recipes/ of the project).")


def _recipes(recipes_dir: Optional[Path]):
    from ..recipes import load_recipes

    return load_recipes(recipes_dir)


def _err(line: str) -> None:
    sys.stderr.write(clean(f"Error: {line}") + "\n")


def _out(text: str) -> None:
    """Write text for a terminal: control characters removed (YAML keeps its own escapes)."""
    sys.stdout.write(clean(text))


@recipe_app.command("list")
def list_cmd(
    area: Optional[str] = typer.Option(None, "--area", help="Only recipes of this area."),
    json_: bool = JsonOpt,
    recipes_dir: Optional[Path] = DirOpt,
) -> None:
    """List the recipes."""
    recipes = [r for r in _recipes(recipes_dir) if area is None or r.area == area]
    if json_:
        emit_json({"recipes": [{**r.summary(), "kinds": r.kinds, "docs": r.docs} for r in recipes]})
        return
    width = max((len(r.id) for r in recipes), default=10)
    for r in recipes:
        _out(f"{r.id:<{width}}  {r.area:<16} {r.title}\n")


@recipe_app.command("show")
def show_cmd(
    recipe_id: str = typer.Argument(..., metavar="ID", help="Recipe id."),
    json_: bool = JsonOpt,
    recipes_dir: Optional[Path] = DirOpt,
) -> None:
    """Show a recipe: description, parameters with defaults and constraints, examples."""
    from ..recipes import find_recipe

    r = find_recipe(recipe_id, _recipes(recipes_dir))
    if json_:
        emit_json(r.to_dict())
        return
    out = [f"{r.id}: {r.title}", f"area: {r.area}   kinds: {', '.join(r.kinds)}", "", r.description, "",
           "parameters:"]
    required = set(r.parameters.get("required", []))
    for name, spec in r.properties.items():
        bits = [str(spec.get("type", "any"))]
        if "default" in spec:
            bits.append(f"default {json.dumps(spec['default'])}")
        if "enum" in spec:
            bits.append("one of " + ", ".join(map(str, spec["enum"])))
        for key in ("minimum", "maximum"):
            if key in spec:
                bits.append(f"{key[:3]} {spec[key]}")
        if name in required:
            bits.append("required")
        out.append(f"  {name} ({'; '.join(bits)})")
        out.append(f"      {spec.get('description', '')}")
    out += ["", "examples:"]
    for ex in r.examples:
        sets = " ".join(f"--set {k}={_set_text(v)}" for k, v in (ex.get("params") or {}).items())
        out.append(f"  {ex['name']}: gpukb recipe render {r.id} {sets}".rstrip())
        if ex.get("request"):
            out.append(f"      gpukb generate {json.dumps(ex['request'])}")
    out += ["", "docs: " + ", ".join(r.docs)]
    _out("\n".join(out) + "\n")


def _set_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(map(str, v))
    if isinstance(v, dict):
        return "'" + json.dumps(v) + "'"
    return str(v)


def _load_values(path: Path) -> dict:
    from ..k8s.manifests import load_document

    data = load_document(path, what="values")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ManifestError(str(path), "values file must be a mapping of parameter: value")
    return data


@recipe_app.command("render")
def render_cmd(
    recipe_id: str = typer.Argument(..., metavar="ID", help="Recipe id."),
    set_: List[str] = typer.Option([], "--set", help="Parameter value, key=value (repeatable)."),
    values: Optional[Path] = typer.Option(None, "-f", "--values", help="YAML file of parameter values."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the YAML to this file."),
    no_validate: bool = typer.Option(False, "--no-validate", help="Skip manifest validation."),
    json_: bool = JsonOpt,
    recipes_dir: Optional[Path] = DirOpt,
) -> None:
    """Render a recipe to multi-document YAML (exit 0 only if it validates)."""
    from ..recipes import find_recipe, parse_param_value, render_recipe

    r = find_recipe(recipe_id, _recipes(recipes_dir))
    params: dict = {}
    if values is not None:
        params.update(_load_values(values))
    for item in set_:
        if "=" not in item:
            raise UsageError(f"--set {item!r}: expected key=value")
        key, raw = item.split("=", 1)
        key = key.strip()
        if not key:
            raise UsageError(f"--set {item!r}: empty parameter name")
        params[key] = parse_param_value(r, key, raw)
    rendered = render_recipe(r, params, validate=not no_validate)
    if output is not None:
        try:
            output.write_text(rendered.yaml, encoding="utf-8")
        except OSError as exc:
            raise GpukbError(f"{output}: cannot write ({exc.strerror or exc.__class__.__name__})") from None
    if json_:
        emit_json(rendered.to_dict())
    elif output is None:
        _out(rendered.yaml)
    if not rendered.valid:
        for i in rendered.issues:
            if i.get("severity") == "error":
                _err(f"document {i.get('index')} ({i.get('kind')}) {i.get('path') or '(root)'}: {i.get('message')}")
        raise typer.Exit(1)


@recipe_app.command("validate")
def validate_cmd(
    recipe_ids: List[str] = typer.Argument(None, metavar="[ID]...", help="Recipe ids (default: all)."),
    all_: bool = typer.Option(False, "--all", help="Check every recipe."),
    update_golden: bool = typer.Option(False, "--update-golden", help="Rewrite the golden files from the current output."),
    json_: bool = JsonOpt,
    recipes_dir: Optional[Path] = DirOpt,
) -> None:
    """Check recipe files: schema, parameters, templates, examples vs golden files, manifest validity."""
    from ..recipes.check import check_recipes

    if all_ and recipe_ids:
        raise UsageError("give recipe ids or --all, not both")
    checks = check_recipes(recipes_dir, None if all_ else (recipe_ids or None), update_golden=update_golden)
    bad = [c for c in checks if not c.ok]
    if json_:
        emit_json({"recipes": [c.to_dict() for c in checks], "errors": sum(len(c.problems) for c in bad)})
    else:
        for c in checks:
            if c.ok:
                sys.stdout.write(f"ok    {c.id} ({c.examples} example{'s' if c.examples != 1 else ''})\n")
        for c in bad:
            for p in c.problems:
                _err(p)
        sys.stdout.write(f"{len(checks) - len(bad)}/{len(checks)} recipes ok\n")
    if bad:
        raise typer.Exit(1)


def _check_request(request: str) -> str:
    """A request to generate from: UsageError when empty, InputError when not valid UTF-8."""
    try:
        request.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("the request is not valid UTF-8 text") from None
    if not request.strip():
        raise UsageError('empty request: describe the manifest you want, e.g. "volcano job, 4 workers x 8 GPUs"')
    from ..recipes.generation import check_length  # the library's one limit

    check_length(request)
    return request


def _gen_one(request: str, recipes) -> tuple[dict, bool]:
    from ..recipes import generate

    try:
        g = generate(_check_request(request), recipes)
    except GpukbError as exc:
        return {"request": printable(request), "error": str(exc)}, False
    d = g.to_dict()
    d["request"] = request
    return d, g.valid


@app.command("generate")
def generate_cmd(
    request: str = typer.Argument(..., metavar="REQUEST", help='What you need, e.g. "volcano job, 4 workers x 8 GPUs". "-" reads JSON Lines from stdin.'),
    json_: bool = JsonOpt,
    recipes_dir: Optional[Path] = DirOpt,
) -> None:
    """Turn a plain-language request into a rendered, validated manifest."""
    from ..recipes import generate

    if request != "-":
        request = _check_request(request)  # before the recipes load
    recipes = _recipes(recipes_dir)
    if request == "-":
        ok_all = True
        for n, line, problem in stdin_lines():
            if problem is not None:
                if json_:
                    emit_json({"line": n, "request": printable(line), "error": f"line {n}: {problem}"}, lines=True)
                else:
                    _err(f"line {n}: {problem}")
                ok_all = False
                continue
            line = line.strip()
            if not line:
                continue
            text: Any = line
            if line[0] in "\"{":
                try:
                    obj = json.loads(line)
                except (ValueError, RecursionError):
                    emit_json({"line": n, "error": f"line {n}: not valid JSON"}, lines=True)
                    ok_all = False
                    continue
                text = obj.get("request") if isinstance(obj, dict) else obj
                if not isinstance(text, str):
                    emit_json({"line": n, "error": f"line {n}: expected a string or an object with \"request\""}, lines=True)
                    ok_all = False
                    continue
            result, ok = _gen_one(text, recipes)
            ok_all = ok_all and ok
            if json_:
                emit_json(result, lines=True)
            else:
                _out(f"# {printable(text)}\n")
                if "error" in result:
                    _err(result["error"])
                else:
                    _out(result["yaml"])
        if not ok_all:
            raise typer.Exit(1)
        return
    g = generate(request, recipes)
    if json_:
        emit_json(g.to_dict())
    else:
        _out(_generated_header(g))
        if g.llm_filled:
            _out("# filled by the language model (check them): "
                 + ", ".join(f"{k}={json.dumps(v)}" for k, v in g.llm_filled.items()) + "\n")
        for n in g.notices:
            sys.stderr.write(clean(f"note: {n}") + "\n")
        _out(g.yaml)
        for i in g.issues:
            if i.get("severity") != "error":
                sys.stderr.write(clean(f"note: {i.get('message')}") + "\n")
    if not g.valid:
        for i in g.issues:
            if i.get("severity") == "error":
                _err(f"document {i.get('index')} ({i.get('kind')}) {i.get('path') or '(root)'}: {i.get('message')}")
        raise typer.Exit(1)


def _generated_header(g) -> str:
    """What was used, not understood and assumed, as YAML comments above the manifest."""
    from ..output import clean

    lines = [f"# recipe: {g.recipe} ({g.title})"]
    if g.used:
        lines.append("# from your request: " + ", ".join(
            f"{k}={json.dumps(g.from_request.get(k))} (\"{clean(w)}\")" for k, w in g.used.items()))
    else:
        lines.append("# from your request: nothing beyond the recipe")
    if g.unused:
        lines.append("# Not understood: " + "; ".join(f"\"{clean(u)}\"" for u in g.unused)
                     + " (the manifest below does not reflect this)")
    for m in g.missing:
        lines.append(f"# Missing: {m['question']} (used {json.dumps(m['default'])})")
    other = {k: v for k, v in g.defaults.items() if k not in {m["param"] for m in g.missing}}
    if other:
        lines.append("# defaults: " + ", ".join(f"{k}={json.dumps(v)}" for k, v in other.items()))
    return "\n".join(lines) + "\n"


__all__ = ["recipe_app", "ParameterError"]
