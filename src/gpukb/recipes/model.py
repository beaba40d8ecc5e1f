"""Recipe files: loading, checking and parameter resolution."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import ParameterError, RecipeError
from .template import DIRECTIVES, referenced_params

__all__ = [
    "Recipe",
    "load_recipes",
    "RecipeLibrary",
    "library",
    "load_recipe_file",
    "find_recipe",
    "resolve_params",
    "parse_param_value",
    "golden_path",
    "FRAGMENTS_DIR",
]

FRAGMENTS_DIR = "_fragments"
GOLDEN_DIR = "golden"


@dataclass
class Recipe:
    id: str
    title: str
    area: str
    description: str
    docs: list[str]
    parameters: dict[str, Any]
    templates: list[Any]
    examples: list[dict[str, Any]]
    path: Path
    keywords: list[str] = field(default_factory=list)
    extract: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)  # kind of each template document, in order
    # the projects the recipe is built on, as people name them ("KEDA", "Karpenter"): a request that
    # names one of them and no other recipe's asks for this recipe among those of its area
    tools: list[str] = field(default_factory=list)
    # chosen only for a request that says one of its keywords or tools ("DRA", "LeaderWorkerSet"), or matches
    # this pattern when it is one: what it builds is another way to do what a plainer recipe does, never the
    # reading of a request that names none
    named_only: bool | str = False

    @property
    def properties(self) -> dict[str, Any]:
        return self.parameters.get("properties", {})

    @property
    def fragments_dir(self) -> Path:
        return self.path.parent.parent / FRAGMENTS_DIR

    def defaults(self) -> dict[str, Any]:
        return {k: v["default"] for k, v in self.properties.items() if isinstance(v, dict) and "default" in v}

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "area": self.area}

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "area": self.area,
            "description": self.description,
            "docs": list(self.docs),
            "keywords": list(self.keywords),
            "tools": list(self.tools),
            "named_only": self.named_only,
            "kinds": self.kinds,
            "parameters": self.parameters,
            "examples": self.examples,
            "path": str(self.path),
        }


def _safe_loader():
    import yaml

    # libyaml's C parser when PyYAML has it: same safe semantics, ~10x faster.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def golden_path(recipe: Recipe, example: str) -> Path:
    return recipe.path.parent / GOLDEN_DIR / f"{recipe.id}--{example}.yaml"


@lru_cache(maxsize=1)
def _recipe_validator():
    from importlib import resources

    from jsonschema import Draft202012Validator

    schema = json.loads(resources.files("gpukb").joinpath("schemas/recipe.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def _json_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _short(v: Any, n: int = 60) -> str:
    """A short quote of a value; only the part shown is formatted, whatever its size."""
    from ..output import short

    return short(v, n)


def load_recipe_file(path: Path) -> Recipe:
    """Load and check one recipe file. Raises RecipeError naming the file and field."""
    import yaml
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    spath = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecipeError(f"cannot read ({exc.__class__.__name__})", path=spath) from None
    try:
        data = yaml.load(text, Loader=_safe_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None)
        raise RecipeError(f"invalid YAML{where}{': ' + problem if problem else ''}", path=spath) from None
    if not isinstance(data, dict):
        raise RecipeError("top level must be a mapping", path=spath)

    errors = sorted(_recipe_validator().iter_errors(data), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        e = errors[0]
        parts = list(e.absolute_path)
        msg = _schema_message(e)
        if e.validator == "required":
            m = re.match(r"'([^']+)'", e.message)
            if m:
                parts.append(m.group(1))
                msg = "is required"
        raise RecipeError(msg, path=spath, field=_json_path(parts) or None)

    if data["id"] != path.stem:
        raise RecipeError(f"id {data['id']!r} does not match the file name {path.name}", path=spath, field="id")

    params = data["parameters"]
    try:
        Draft202012Validator.check_schema(params)
    except SchemaError as exc:
        raise RecipeError(f"not a valid JSON Schema: {exc.message}", path=spath,
                          field=_json_path(["parameters", *exc.absolute_path])) from None
    props = params.get("properties", {})
    pval = Draft202012Validator(params)
    for name, spec in props.items():
        if "default" in spec:
            errs = list(Draft202012Validator(spec).iter_errors(spec["default"]))
            if errs:
                raise RecipeError(f"default breaks the parameter's own schema: {errs[0].message}",
                                  path=spath, field=f"parameters.properties.{name}.default")
    for name in params.get("required", []):
        if name not in props:
            raise RecipeError(f"required parameter {name!r} is not declared", path=spath, field="parameters.required")

    kinds: list[str] = []
    for i, t in enumerate(data["templates"]):
        doc = t
        if next(iter(t)) == "$include":
            frag = path.parent.parent / FRAGMENTS_DIR / str(t["$include"])
            try:
                doc = yaml.load(frag.read_text(encoding="utf-8"), Loader=_safe_loader())
            except (OSError, yaml.YAMLError):
                raise RecipeError(f"cannot read fragment {t['$include']!r}", path=spath, field=f"templates[{i}]") from None
            if not isinstance(doc, dict):
                raise RecipeError(f"fragment {t['$include']!r} is not a mapping", path=spath, field=f"templates[{i}]")
        if next(iter(t)) == "$for" and isinstance(t.get("do"), dict):
            doc = t["do"]  # one document per item of a list
        for key in ("apiVersion", "kind"):
            if not isinstance(doc.get(key), str):
                raise RecipeError(f"each document needs a literal {key}", path=spath, field=f"templates[{i}].{key}")
        kinds.append(doc["kind"])
        bad = _bad_directive(doc)
        if bad:
            raise RecipeError(f"unknown directive {bad!r}", path=spath, field=f"templates[{i}]")
    used = referenced_params(data["templates"])
    unknown = sorted(used - set(props))
    if unknown:
        raise RecipeError(f"templates refer to undeclared parameter(s): {', '.join(unknown)}", path=spath, field="templates")

    for name in (data.get("extract") or {}):
        if name not in props:
            raise RecipeError(f"extract rules for undeclared parameter {name!r}", path=spath, field=f"extract.{name}")
    for name, rules in (data.get("extract") or {}).items():
        for j, rule in enumerate(rules):
            if "regex" in rule:
                try:
                    re.compile(rule["regex"])
                except re.error as exc:
                    raise RecipeError(f"bad regular expression: {exc}", path=spath, field=f"extract.{name}[{j}].regex") from None

    for j, c in enumerate(params.get("x-constraints") or []):
        bad = _bad_directive(c["rule"])
        if bad:
            raise RecipeError(f"unknown directive {bad!r}", path=spath, field=f"parameters.x-constraints[{j}].rule")
        refs = referenced_params(c["rule"])
        unknown = sorted(refs - set(props))
        if not refs or unknown:
            raise RecipeError("a constraint must refer to declared parameters" + (
                f" (not {', '.join(unknown)})" if unknown else ""), path=spath, field=f"parameters.x-constraints[{j}].rule")

    names = [e["name"] for e in data["examples"]]
    if len(set(names)) != len(names):
        raise RecipeError("example names must be unique", path=spath, field="examples")
    for j, ex in enumerate(data["examples"]):
        full = {**{k: v["default"] for k, v in props.items() if "default" in v}, **ex["params"]}
        errs = sorted(pval.iter_errors(full), key=lambda e: list(map(str, e.absolute_path)))
        if errs:
            raise RecipeError(_schema_message(errs[0]), path=spath, field=f"examples[{j}].params" + (
                f".{errs[0].absolute_path[0]}" if errs[0].absolute_path else ""))

    return Recipe(
        id=data["id"],
        title=data["title"],
        area=data["area"],
        description=" ".join(str(data["description"]).split()),
        docs=list(data["docs"]),
        parameters=params,
        templates=list(data["templates"]),
        examples=list(data["examples"]),
        path=path,
        keywords=list(data.get("keywords") or []),
        extract=dict(data.get("extract") or {}),
        kinds=kinds,
        tools=[str(t) for t in data.get("tools") or []],
        named_only=data["named_only"] if isinstance(data.get("named_only"), str) else bool(data.get("named_only", False)),
    )


def _bad_directive(node: Any) -> str | None:
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(k, str) and k.startswith("$") and k not in DIRECTIVES:
                return k
            bad = _bad_directive(v)
            if bad:
                return bad
    elif isinstance(node, list):
        for v in node:
            bad = _bad_directive(v)
            if bad:
                return bad
    return None


def _schema_message(err) -> str:
    v = err.validator
    if v == "required":
        return err.message.replace("is a required property", "is required")
    if v == "additionalProperties":
        return err.message
    if v in ("pattern", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
             "minLength", "maxLength", "multipleOf", "minItems", "maxItems", "uniqueItems", "type", "format"):
        return f"{_short(err.instance)} breaks {v} {_short(err.validator_value, 80)}"
    return err.message[:200].replace("\n", " ")


class RecipeLibrary:
    """The recipes of one folder and everything built over them (the match
    index). Reloads, and drops what it built, when a recipe file changes."""

    def __init__(self, recipes_dir: Path):
        self.dir = Path(recipes_dir)
        self._stamp: tuple | None = None
        self._recipes: list[Recipe] = []
        self._built: dict[str, Any] = {}

    def _current_stamp(self) -> tuple:
        if not self.dir.is_dir():
            raise RecipeError("recipes folder not found", path=str(self.dir))
        files = sorted(p for p in self.dir.glob("*/*.yaml") if p.parent.name != FRAGMENTS_DIR)
        stamp = tuple((str(p), p.stat().st_mtime_ns) for p in files)
        frag = self.dir / FRAGMENTS_DIR
        if frag.is_dir():
            stamp += tuple((str(p), p.stat().st_mtime_ns) for p in sorted(frag.glob("*.yaml")))
        return stamp

    def recipes(self) -> list[Recipe]:
        """Every recipe, sorted by id. Raises :class:`RecipeError` naming the broken file."""
        stamp = self._current_stamp()
        if stamp != self._stamp:
            files = [Path(p) for p, _ in stamp if Path(p).parent.name != FRAGMENTS_DIR]
            recipes = [load_recipe_file(p) for p in files]
            seen: dict[str, Path] = {}
            for r in recipes:
                if r.id in seen:
                    raise RecipeError(f"duplicate recipe id {r.id!r} (also in {seen[r.id]})", path=str(r.path),
                                      field="id")
                seen[r.id] = r.path
                if r.path.parent.name != r.area:
                    raise RecipeError(f"area {r.area!r} does not match its folder {r.path.parent.name!r}",
                                      path=str(r.path), field="area")
            recipes.sort(key=lambda r: r.id)
            self._recipes, self._stamp, self._built = recipes, stamp, {}
        return list(self._recipes)

    def owns(self, recipes: list[Recipe]) -> bool:
        """Are these exactly this library's current recipe objects?"""
        return len(recipes) == len(self._recipes) and all(a is b for a, b in zip(recipes, self._recipes))

    def built(self, name: str, factory):
        """A structure built once over the current recipes (dropped on reload)."""
        if name not in self._built:
            self._built[name] = factory(self._recipes)
        return self._built[name]


_LIBRARIES: dict[Path, RecipeLibrary] = {}


def library(recipes_dir: Path | None = None) -> RecipeLibrary:
    """The :class:`RecipeLibrary` of ``recipes_dir`` (default: the configured folder)."""
    if recipes_dir is None:
        from ..config import load_settings

        recipes_dir = load_settings().recipes_dir
    key = Path(recipes_dir).resolve()
    lib = _LIBRARIES.get(key)
    if lib is None:
        lib = _LIBRARIES[key] = RecipeLibrary(key)
    return lib


def library_of(recipes: list[Recipe]) -> RecipeLibrary | None:
    """The library whose current recipes are exactly ``recipes``, if any."""
    return next((lib for lib in _LIBRARIES.values() if lib.owns(recipes)), None)


def load_recipes(recipes_dir: Path | None = None) -> list[Recipe]:
    """Every recipe under ``recipes_dir`` (default: the configured recipes folder), sorted by id."""
    return library(recipes_dir).recipes()


def find_recipe(recipe_id: str, recipes: list[Recipe] | None = None) -> Recipe:
    recipes = load_recipes() if recipes is None else recipes
    for r in recipes:
        if r.id == recipe_id:
            return r
    import difflib

    close = difflib.get_close_matches(recipe_id, [r.id for r in recipes], n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else " (see gpukb recipe list)"
    raise RecipeError(f"no recipe with id {recipe_id!r}{hint}")


@lru_cache(maxsize=256)
def _validator_for(schema_json: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_json))


def resolve_params(recipe: Recipe, params: dict[str, Any] | None, notes: list[str] | None = None) -> dict[str, Any]:
    """Defaults applied and checked against the recipe's parameter schema.

    A default that breaks an ``x-constraints`` bound against a given value yields to it
    (:func:`yield_defaults`); each such change is described in ``notes`` when given.
    Raises ParameterError naming the parameter and the constraint it broke.
    """
    params = dict(params or {})
    if not isinstance(params, dict):
        raise ParameterError("parameters must be a mapping", recipe=recipe.id)
    props = recipe.properties
    for k in params:
        if k not in props:
            import difflib

            name = k if isinstance(k, str) and len(k) <= 80 else _short(k)
            close = difflib.get_close_matches(name, list(props), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(props)}"
            raise ParameterError(f"unknown parameter{hint}", recipe=recipe.id, parameter=name)
    full = {**recipe.defaults(), **{k: v for k, v in params.items() if v is not None}}
    validator = _validator_for(json.dumps(recipe.parameters, sort_keys=True))
    errs = sorted(validator.iter_errors(full), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if errs:
        e = errs[0]
        if e.absolute_path:
            pname = str(e.absolute_path[0])
            sub = _json_path(list(e.absolute_path)[1:])
            msg = _schema_message(e) + (f" (at {sub})" if sub else "")
            raise ParameterError(msg, recipe=recipe.id, parameter=pname)
        if e.validator == "required":
            m = re.match(r"'([^']+)'", e.message)
            raise ParameterError("is required", recipe=recipe.id, parameter=m.group(1) if m else None)
        raise ParameterError(_schema_message(e), recipe=recipe.id)
    for note in yield_defaults(recipe, full, given=set(params)):
        if notes is not None:
            notes.append(note)
    check_constraints(recipe, full, given=set(params))
    return full


def yield_defaults(recipe: Recipe, full: dict[str, Any], given: set[str]) -> list[str]:
    """Defaults that yield to given values. Changes ``full`` in place and returns one
    sentence per change. Two given values that conflict are left to :func:`check_constraints`.

    - A bound ``{$le: [X, Y]}`` that fails, where one side refers to a single parameter,
      left to its default, and every parameter of the other side was given: the default
      moves to the other side's value ("24 GPUs deserved" raises the default capability
      of 16 to 24), if that value fits its schema and the bound then holds.
    - Any other rule that fails, where exactly one of its parameters is left to its
      default, that parameter has an ``enum`` and another of its parameters was given:
      the default moves to the one other choice that satisfies every rule and the
      schema (a layout of several MIG profiles turns the default strategy single into
      mixed); nothing changes when no choice or several do."""
    notes: list[str] = []
    for _ in range(4):  # a chain of bounds (guarantee <= deserved <= capability) settles in a few passes
        changed = False
        for c in recipe.parameters.get("x-constraints") or []:
            note = _yield_bound(recipe, c, full, given)
            if note is None and _broken(recipe, c, full, given):
                note = _yield_choice(recipe, c, full, given)
            if note is not None:
                notes.append(note)
                changed = True
        if not changed:
            break
    return notes


def _ordered(node: Any) -> list[str]:
    """Parameters an expression refers to, in the order they appear in it."""
    text = json.dumps(node)
    return sorted(referenced_params(node), key=lambda n: text.find(f'"{n}"'))


def _value_of(recipe: Recipe, node: Any, full: dict[str, Any]) -> Any:
    from .template import OMIT, _Ctx, evaluate

    try:
        v = evaluate(node, dict(full), _Ctx(str(recipe.path), recipe.fragments_dir), "x-constraints")
    except RecipeError:
        return None
    return None if v is OMIT else v


def _is_number(v: Any) -> bool:
    from numbers import Real

    return isinstance(v, Real) and not isinstance(v, bool)  # quantities compare as exact fractions


def _yield_bound(recipe: Recipe, c: dict[str, Any], full: dict[str, Any], given: set[str]) -> str | None:
    rule = c.get("rule")
    if not (isinstance(rule, dict) and list(rule) == ["$le"] and isinstance(rule["$le"], list)
            and len(rule["$le"]) == 2):
        return None
    lo, hi = rule["$le"]
    a, b = _value_of(recipe, lo, full), _value_of(recipe, hi, full)
    if not _is_number(a) or not _is_number(b) or a <= b:
        return None
    lo_refs, hi_refs = _ordered(lo), _ordered(hi)
    # the side that yields refers to one parameter, left to its default; every parameter of
    # the other side was given; the default takes the other side's value if the bound then holds
    if len(lo_refs) == 1 and lo_refs[0] not in given and hi_refs and set(hi_refs) <= given:
        target, value, sources = lo_refs[0], b, hi_refs
    elif len(hi_refs) == 1 and hi_refs[0] not in given and lo_refs and set(lo_refs) <= given:
        target, value, sources = hi_refs[0], a, lo_refs
    else:
        return None
    spec = recipe.properties.get(target) or {}
    fits = _validator_for(json.dumps(spec, sort_keys=True)).is_valid
    if not fits(value) and len(sources) == 1 and fits(full.get(sources[0])):
        # a side that wraps one parameter ({$quantity: ephemeral_request}) yields that parameter's value
        value = full[sources[0]]
    if not fits(value):
        return None
    trial = {**full, target: value}
    a2, b2 = _value_of(recipe, lo, trial), _value_of(recipe, hi, trial)
    if not _is_number(a2) or not _is_number(b2) or a2 > b2:
        return None
    old = full.get(target)
    full[target] = value
    fit = ", ".join(f"{n}={_short(full[n], 40)}" for n in sources)
    return f"{target} set to {value} (default {old}) to fit {fit}: {c.get('message', '')}"


def _yield_choice(recipe: Recipe, c: dict[str, Any], full: dict[str, Any], given: set[str]) -> str | None:
    names = _ordered(c.get("rule"))
    props = recipe.properties
    open_ = [n for n in names if n not in given and isinstance((props.get(n) or {}).get("enum"), list)]
    stated = [n for n in names if n in given]
    if len(open_) != 1 or not stated:
        return None
    target = open_[0]
    whole = _validator_for(json.dumps(recipe.parameters, sort_keys=True))
    fits = []
    for choice in props[target]["enum"]:
        if choice == full.get(target):
            continue
        trial = {**full, target: choice}
        if whole.is_valid(trial) and not any(_broken(recipe, other, trial, given)
                                             for other in recipe.parameters.get("x-constraints") or []):
            fits.append(choice)
    if len(fits) != 1:
        return None
    old = full.get(target)
    full[target] = fits[0]
    fit = ", ".join(f"{n}={_short(full[n], 40)}" for n in stated)
    return f"{target} set to {fits[0]} (default {old}) to fit {fit}: {c.get('message', '')}"


def _broken(recipe: Recipe, c: dict[str, Any], full: dict[str, Any], given: set[str] | None) -> bool:
    """Does ``full`` break constraint ``c`` (see :func:`check_constraints` for the rules skipped)?"""
    from .template import OMIT, _Ctx, evaluate

    if any(full.get(n) is None for n in _compared_params(c["rule"])):
        return False
    if c.get("only_given") and given is not None and not all(n in given for n in referenced_params(c["rule"])):
        return False
    try:
        ok = evaluate(c["rule"], dict(full), _Ctx(str(recipe.path), recipe.fragments_dir), "x-constraints")
    except RecipeError:
        return False  # an absent value (or one the rule cannot compare) leaves the rule nothing to check
    return ok is not OMIT and not ok


def check_constraints(recipe: Recipe, full: dict[str, Any], given: set[str] | None = None) -> None:
    """Every ``x-constraints`` rule of the recipe's parameter schema must hold for ``full``.

    A rule is a template expression over ``{$param: name}``; it is skipped when it
    compares a parameter that has no value, and, with ``only_given``, unless all of them
    were given (``given``; None means all were). Raises ParameterError with the
    rule's message and the values involved, naming the first parameter.
    """
    for c in recipe.parameters.get("x-constraints") or []:
        if _broken(recipe, c, full, given):
            names = [n for n in _ordered(c["rule"]) if full.get(n) is not None]
            values = ", ".join(f"{n}={_short(full[n], 40)}" for n in names)
            err = ParameterError(f"{c['message']} ({values})", recipe=recipe.id,
                                 parameter=names[0] if names else None)
            err.involved = names
            raise err


_TRUE = {"true", "yes", "y", "on", "1"}
_FALSE = {"false", "no", "n", "off", "0"}


def parse_param_value(recipe: Recipe, name: str, raw: str) -> Any:
    """Parse a ``--set name=value`` string per the parameter's declared type."""
    spec = recipe.properties.get(name)
    if spec is None:
        import difflib

        shown = name if len(name) <= 80 else _short(name)
        close = difflib.get_close_matches(shown, list(recipe.properties), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(recipe.properties)}"
        raise ParameterError(f"unknown parameter{hint}", recipe=recipe.id, parameter=shown)
    return _parse_typed(recipe, name, spec, raw)


def _parse_typed(recipe: Recipe, name: str, spec: dict[str, Any], raw: str) -> Any:
    t = spec.get("type")
    types = t if isinstance(t, list) else [t]
    s = raw.strip()
    if "integer" in types:
        try:
            return int(s, 10)
        except ValueError:
            if types == ["integer"]:
                raise ParameterError(f"{_short(raw)} is not an integer", recipe=recipe.id, parameter=name) from None
    if "number" in types:
        try:
            return float(s) if any(c in s for c in ".eE") else int(s)
        except ValueError:
            if types == ["number"]:
                raise ParameterError(f"{_short(raw)} is not a number", recipe=recipe.id, parameter=name) from None
    if "boolean" in types:
        if s.lower() in _TRUE:
            return True
        if s.lower() in _FALSE:
            return False
        if types == ["boolean"]:
            raise ParameterError(f"{_short(raw)} is not a boolean (use true or false)", recipe=recipe.id, parameter=name)
    if "array" in types:
        if s == "":
            return []
        if s.startswith("["):
            try:
                val = json.loads(s)
                if isinstance(val, list):
                    return val
            except ValueError:
                pass
        items = spec.get("items", {}) if isinstance(spec.get("items"), dict) else {}
        return [_parse_typed(recipe, name, items, part) if items.get("type") not in (None, "string") else part.strip()
                for part in s.split(",")]
    if "object" in types:
        try:
            val = json.loads(s)
        except ValueError:
            val = None
        if isinstance(val, dict):
            return val
        out = {}
        for part in filter(None, (p.strip() for p in s.split(","))):
            if "=" not in part:
                raise ParameterError(f"{_short(raw)} is not a mapping (use JSON or k=v,k2=v2)", recipe=recipe.id, parameter=name)
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
        return out
    return raw


def _compared_params(node: Any, loop_vars: frozenset[str] = frozenset()) -> set[str]:
    """Parameters a rule needs: those outside $coalesce and $if (which handle absent values);
    the item names of a $for are its own, no parameters."""
    if isinstance(node, dict):
        first = next(iter(node), None)
        if first in ("$coalesce", "$if"):
            return set()
        if first == "$param" and isinstance(node[first], str):
            head = node[first].split(".")[0]
            return set() if head in loop_vars else {head}
        if first == "$for":
            inner = loop_vars | {str(node.get("as", "item")), "loop"}
            return _compared_params(node[first], loop_vars) | _compared_params(node.get("do"), inner)
        return set().union(*(_compared_params(v, loop_vars) for v in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(_compared_params(v, loop_vars) for v in node)) if node else set()
    return set()
