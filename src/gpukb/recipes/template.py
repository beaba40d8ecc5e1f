"""Declarative templates: YAML data trees whose values refer to parameters.

A template is ordinary YAML. A mapping whose first key starts with ``$`` is a
*directive* and is replaced by the value it computes. Parameter values are
inserted as data and never evaluated again, so a value can never add keys,
documents, tags or anchors: whatever it holds ends up as one scalar, list or
mapping exactly where the template put it.

Directives (``X`` is any template, evaluated first)::

    {$param: name}                 the parameter's value (dotted names reach loop items);
                                   an absent optional parameter drops the key
    {$format: "{name}-svc"}        a string with ``{name}`` fields filled in (a value ending in "/"
                                   before a "/" of the string is not doubled: path joins)
    {$if: X, then: X, else: X}     ``else`` may be left out: the key or item is dropped
    {$for: X, as: item, do: X}     one item per element; spliced into the enclosing list
                                   (``sort: field`` or ``sort: -field`` orders the items by a field
                                   first, ascending or descending: a mapping's items by ``value``)
    {$object: [{key: X, value: X}, ...]}   a mapping with computed keys (strings, or integers kept as such)
    {$merge: [X, X, ...]}          shallow merge of mappings (later wins)
    {$yaml: X}                     X dumped as a YAML string (ConfigMap payloads)
    {$join: X, sep: ","}           a list joined into one string
    {$str: X}                      X as a string (quantities, annotation values)
    {$lower: X}                    X, a string, in lower case
    {$match: [X, "regex"]}         the regex's first group (or whole match) at the start of
                                   string X; absent when it does not match
    {$int: X}                      X, a string of digits, as an integer
    {$quantity: X}                 X, a Kubernetes quantity ("120Gi", "500m"), as a number to compare
    {$add|$sub|$mul|$max|$min|$ceildiv: [X, X]}    integer arithmetic
    {$sum: X}                      the sum of a list of numbers (0 for none)
    {$coalesce: [X, X, ...]}       the first value that is present (an absent one is skipped)
    {$eq|$ne|$gt|$ge|$lt|$le: [X, X]}    comparisons
    {$and|$or: [X, ...]}, {$not: X}, {$in: [X, [..]]}   logic
    {$include: file.yaml, with: {name: X}}   a fragment from ``recipes/_fragments``,
                                   evaluated with only the ``with`` bindings in scope
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import RecipeError

__all__ = ["OMIT", "evaluate", "dump_documents", "dump_yaml", "referenced_params", "DIRECTIVES"]


class _Omit:
    _inst = None

    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "OMIT"

    def __bool__(self) -> bool:
        return False


OMIT = _Omit()


class _Splice(list):
    """Items to splice into the enclosing list (result of ``$for``)."""


_OPTIONS = {
    "$param": set(),
    "$format": set(),
    "$if": {"then", "else"},
    "$for": {"as", "do", "sort"},
    "$object": set(),
    "$merge": set(),
    "$yaml": set(),
    "$join": {"sep"},
    "$str": set(), "$lower": set(), "$match": set(), "$int": set(), "$quantity": set(),
    "$sum": set(), "$coalesce": set(),
    "$add": set(), "$sub": set(), "$mul": set(), "$max": set(), "$min": set(), "$ceildiv": set(),
    "$eq": set(), "$ne": set(), "$gt": set(), "$ge": set(), "$lt": set(), "$le": set(),
    "$and": set(), "$or": set(), "$not": set(), "$in": set(),
    "$include": {"with"},
}
DIRECTIVES = frozenset(_OPTIONS)

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")


class _Ctx:
    def __init__(self, source: str, fragments_dir: Path | None, depth: int = 0):
        self.source = source
        self.fragments_dir = fragments_dir
        self.depth = depth


def _fail(ctx: _Ctx, where: str, message: str) -> RecipeError:
    return RecipeError(message, path=ctx.source, field=where or "templates")


def _lookup(scope: dict[str, Any], name: str) -> Any:
    head, *rest = name.split(".")
    if head not in scope:
        return OMIT
    value = scope[head]
    for part in rest:
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return OMIT
    return OMIT if value is None else value


def _directive(node: dict) -> str | None:
    if not node:
        return None
    first = next(iter(node))
    if isinstance(first, str) and first.startswith("$"):
        return first
    return None


def evaluate(node: Any, scope: dict[str, Any], ctx: _Ctx | None = None, where: str = "") -> Any:
    """Evaluate a template tree against ``scope`` (parameter name -> value)."""
    if ctx is None:
        ctx = _Ctx("<template>", None)
    if isinstance(node, dict):
        d = _directive(node)
        if d is not None:
            return _eval_directive(d, node, scope, ctx, where)
        out: dict[Any, Any] = {}
        for k, v in node.items():
            if isinstance(k, str) and k.startswith("$"):
                raise _fail(ctx, where, f"directive {k!r} must be the first key of its mapping")
            val = evaluate(v, scope, ctx, f"{where}.{k}" if where else str(k))
            if val is OMIT:
                continue
            if isinstance(val, _Splice):
                val = list(val)
            out[k] = val
        return out
    if isinstance(node, list):
        items: list[Any] = []
        for i, v in enumerate(node):
            val = evaluate(v, scope, ctx, f"{where}[{i}]")
            if val is OMIT:
                continue
            if isinstance(val, _Splice):
                items.extend(val)
            else:
                items.append(val)
        return items
    return node


def _nums(ctx: _Ctx, where: str, name: str, values: list[Any]) -> list[Any]:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _fail(ctx, where, f"{name} needs numbers, got {type(v).__name__}")
    return values


def _eval_directive(d: str, node: dict, scope: dict[str, Any], ctx: _Ctx, where: str) -> Any:
    if d not in _OPTIONS:
        raise _fail(ctx, where, f"unknown directive {d!r}")
    extra = set(node) - {d} - _OPTIONS[d]
    if extra:
        raise _fail(ctx, where, f"{d} does not take {', '.join(sorted(map(str, extra)))}")
    arg = node[d]

    def ev(x: Any, sub: str = "") -> Any:
        return evaluate(x, scope, ctx, f"{where}.{d}{sub}")

    def ev_args(x: Any) -> Any:
        # operands keep their positions: an absent parameter stays OMIT instead of vanishing
        if isinstance(x, list):
            return [evaluate(v, scope, ctx, f"{where}.{d}[{i}]") for i, v in enumerate(x)]
        return ev(x)

    if d == "$param":
        if not isinstance(arg, str):
            raise _fail(ctx, where, "$param needs a parameter name")
        return _lookup(scope, arg)
    if d == "$format":
        if not isinstance(arg, str):
            raise _fail(ctx, where, "$format needs a string")
        missing = False

        def sub(m: re.Match) -> str:
            nonlocal missing
            v = _lookup(scope, m.group(1))
            if v is OMIT:
                missing = True
                return ""
            if isinstance(v, bool):
                return "true" if v else "false"
            # a path joined to the text after it: "s3://b/p/" then "/export" is "s3://b/p/export"
            return str(v).rstrip("/") if arg.startswith("/", m.end()) and str(v).endswith("/") else str(v)

        text = _FIELD.sub(sub, arg)
        return OMIT if missing else text
    if d == "$sum":
        seq = ev(arg)
        if seq is OMIT:
            return 0
        if not isinstance(seq, list):
            raise _fail(ctx, where, "$sum needs a list")
        return sum(_nums(ctx, where, d, [v for v in seq if v is not OMIT]))
    if d == "$coalesce":
        if not isinstance(arg, list):
            raise _fail(ctx, where, "$coalesce needs a list")
        for i, x in enumerate(arg):
            v = ev(x, f"[{i}]")
            if v is not OMIT and v is not None:
                return v
        return OMIT
    if d == "$if":
        cond = ev(arg)
        if _truthy(cond):
            return ev(node["then"], ".then") if "then" in node else OMIT
        return ev(node["else"], ".else") if "else" in node else OMIT
    if d == "$for":
        seq = ev(arg)
        if seq is OMIT:
            return _Splice()
        if isinstance(seq, dict):
            seq = [{"key": k, "value": v} for k, v in seq.items()]
        if not isinstance(seq, list):
            raise _fail(ctx, where, "$for needs a list")
        name = node.get("as", "item")
        if "do" not in node:
            raise _fail(ctx, where, "$for needs 'do'")
        if node.get("sort"):
            field = str(node["sort"]).lstrip("-")
            if not all(isinstance(x, dict) and field in x for x in seq):
                raise _fail(ctx, where, f"$for sort: every item needs the field {field!r}")
            try:
                seq = sorted(seq, key=lambda x: x[field], reverse=str(node["sort"]).startswith("-"))
            except TypeError:
                raise _fail(ctx, where, f"$for sort: the items' {field!r} values cannot be compared") from None
        out = _Splice()
        for i, item in enumerate(seq):
            inner = dict(scope)
            inner[name] = item
            inner["loop"] = {"index": i, "first": i == 0, "last": i == len(seq) - 1}
            val = evaluate(node["do"], inner, ctx, f"{where}.do[{i}]")
            if val is OMIT:
                continue
            if isinstance(val, _Splice):
                out.extend(val)
            else:
                out.append(val)
        return out
    if d == "$object":
        entries = ev(arg)
        if not isinstance(entries, list):
            raise _fail(ctx, where, "$object needs a list of {key, value}")
        obj: dict[Any, Any] = {}
        for e in entries:
            if not isinstance(e, dict) or "key" not in e:
                raise _fail(ctx, where, "$object entries need 'key' and 'value'")
            if e.get("value", OMIT) is OMIT or e["key"] is OMIT:
                continue
            key = e["key"]
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                raise _fail(ctx, where, "$object keys must be strings or integers")
            obj[key] = e["value"]  # an integer key stays one (the priority expander's map[int][]string)
        return obj
    if d == "$merge":
        parts = ev(arg)
        merged: dict[Any, Any] = {}
        for p in parts if isinstance(parts, list) else [parts]:
            if p is OMIT or p is None:
                continue
            if not isinstance(p, dict):
                raise _fail(ctx, where, "$merge needs mappings")
            merged.update(p)
        return merged
    if d == "$yaml":
        val = ev(arg)
        return OMIT if val is OMIT else dump_yaml(val)
    if d == "$join":
        val = ev(arg)
        if val is OMIT:
            return OMIT
        if not isinstance(val, list):
            val = [val]
        return str(node.get("sep", ",")).join(str(x) for x in val)
    if d == "$str":
        val = ev(arg)
        if val is OMIT:
            return OMIT
        if isinstance(val, bool):
            return "true" if val else "false"
        return str(val)
    if d == "$lower":
        val = ev(arg)
        if val is OMIT:
            return OMIT
        if not isinstance(val, str):
            raise _fail(ctx, where, "$lower needs a string")
        return val.lower()
    if d == "$match":
        vals = ev_args(arg)
        if not isinstance(vals, list) or len(vals) != 2 or not isinstance(vals[1], str):
            raise _fail(ctx, where, "$match needs [value, regex]")
        if vals[0] is OMIT:
            return OMIT
        if not isinstance(vals[0], str):
            raise _fail(ctx, where, "$match needs a string")
        try:
            m = re.match(vals[1], vals[0])
        except re.error as exc:
            raise _fail(ctx, where, f"$match has a bad regular expression: {exc}") from None
        if m is None:
            return OMIT
        return m.group(1) if m.re.groups else m.group(0)
    if d == "$int":
        val = ev(arg)
        if val is OMIT:
            return OMIT
        if isinstance(val, int) and not isinstance(val, bool):
            return val
        if not isinstance(val, str) or not re.fullmatch(r"-?[0-9]{1,18}", val):
            raise _fail(ctx, where, "$int needs a string of digits")
        return int(val)
    if d == "$quantity":
        val = ev(arg)
        if val is OMIT:
            return OMIT
        from ..k8s.quantity import parse_quantity

        q = parse_quantity(val)
        if q is None:
            raise _fail(ctx, where, "$quantity needs a Kubernetes quantity such as 100Gi")
        return q
    if d in ("$add", "$sub", "$mul", "$max", "$min", "$ceildiv"):
        vals = ev_args(arg)
        if not isinstance(vals, list) or len(vals) < 2:
            raise _fail(ctx, where, f"{d} needs a list of two or more values")
        if any(v is OMIT for v in vals):
            return OMIT
        vals = _nums(ctx, where, d, vals)
        acc = vals[0]
        for v in vals[1:]:
            if d == "$add":
                acc = acc + v
            elif d == "$sub":
                acc = acc - v
            elif d == "$mul":
                acc = acc * v
            elif d == "$ceildiv":
                if v == 0:
                    raise _fail(ctx, where, "$ceildiv by zero")
                acc = -(-acc // v)
            elif d == "$max":
                acc = max(acc, v)
            else:
                acc = min(acc, v)
        return acc
    if d in ("$eq", "$ne", "$gt", "$ge", "$lt", "$le"):
        vals = ev_args(arg)
        if not isinstance(vals, list) or len(vals) != 2:
            raise _fail(ctx, where, f"{d} needs a list of two values")
        a, b = (None if v is OMIT else v for v in vals)
        if d == "$eq":
            return a == b
        if d == "$ne":
            return a != b
        if a is None or b is None:
            return False
        try:
            return {"$gt": a > b, "$ge": a >= b, "$lt": a < b, "$le": a <= b}[d]
        except TypeError:
            raise _fail(ctx, where, f"{d} cannot compare {type(a).__name__} and {type(b).__name__}") from None
    if d in ("$and", "$or"):
        vals = ev_args(arg)
        if not isinstance(vals, list):
            raise _fail(ctx, where, f"{d} needs a list")
        return all(map(_truthy, vals)) if d == "$and" else any(map(_truthy, vals))
    if d == "$not":
        return not _truthy(ev(arg))
    if d == "$in":
        vals = ev_args(arg)
        if not isinstance(vals, list) or len(vals) != 2 or not isinstance(vals[1], list):
            raise _fail(ctx, where, "$in needs [value, [choices...]]")
        return vals[0] in vals[1]
    if d == "$include":
        return _include(arg, node.get("with", {}), scope, ctx, where)
    raise _fail(ctx, where, f"unknown directive {d!r}")  # pragma: no cover


def _truthy(v: Any) -> bool:
    if v is OMIT or v is None:
        return False
    return bool(v)


_FRAGMENT_CACHE: dict[Path, tuple[float, Any]] = {}


def _include(name: Any, with_: Any, scope: dict[str, Any], ctx: _Ctx, where: str) -> Any:
    import yaml

    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+\.ya?ml", name) or ".." in name:
        raise _fail(ctx, where, "$include needs a fragment file name such as clusterpolicy.yaml")
    if ctx.fragments_dir is None:
        raise _fail(ctx, where, "$include is not available here")
    if ctx.depth > 4:
        raise _fail(ctx, where, "$include nested too deeply")
    path = ctx.fragments_dir / name
    if not path.is_file():
        raise _fail(ctx, where, f"fragment {name} not found in {ctx.fragments_dir}")
    mtime = path.stat().st_mtime
    cached = _FRAGMENT_CACHE.get(path)
    if cached and cached[0] == mtime:
        tree = cached[1]
    else:
        try:
            tree = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise RecipeError(f"invalid YAML{f' at line {mark.line + 1}' if mark else ''}", path=str(path)) from None
        _FRAGMENT_CACHE[path] = (mtime, tree)
    if not isinstance(with_, dict):
        raise _fail(ctx, where, "$include 'with' must be a mapping")
    bound = {}
    for k, v in with_.items():
        val = evaluate(v, scope, ctx, f"{where}.with.{k}")
        bound[k] = None if val is OMIT else (list(val) if isinstance(val, _Splice) else val)
    inner = _Ctx(str(path), ctx.fragments_dir, ctx.depth + 1)
    return evaluate(tree, bound, inner, "")


def referenced_params(node: Any, loop_vars: frozenset[str] = frozenset()) -> set[str]:
    """Top-level parameter names a template refers to (for recipe checks)."""
    found: set[str] = set()
    if isinstance(node, dict):
        d = _directive(node)
        if d == "$param" and isinstance(node[d], str):
            head = node[d].split(".")[0]
            if head not in loop_vars:
                found.add(head)
        elif d == "$format" and isinstance(node[d], str):
            for m in _FIELD.finditer(node[d]):
                head = m.group(1).split(".")[0]
                if head not in loop_vars:
                    found.add(head)
        elif d == "$for":
            found |= referenced_params(node[d], loop_vars)
            inner = loop_vars | {str(node.get("as", "item")), "loop"}
            found |= referenced_params(node.get("do"), inner)
            return found
        elif d == "$include":
            for v in (node.get("with") or {}).values():
                found |= referenced_params(v, loop_vars)
            return found
        for k, v in node.items():
            found |= referenced_params(v, loop_vars)
    elif isinstance(node, list):
        for v in node:
            found |= referenced_params(v, loop_vars)
    return found


# ---------------------------------------------------------------- dumping

_DUMPER = None
_AWKWARD = set("\r\x85\u2028\u2029\ufeff")


def _dumper():
    global _DUMPER
    if _DUMPER is None:
        import yaml

        class SafeNoAliasDumper(yaml.SafeDumper):
            def ignore_aliases(self, data: Any) -> bool:  # never emit anchors/aliases
                return True

        def str_rep(dumper: yaml.SafeDumper, data: str):
            # odd line breaks and control characters only survive a round trip double-quoted
            if any(c in _AWKWARD or (not c.isprintable() and c not in "\n\t") for c in data):
                return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
            if "\n" in data:
                return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
            return dumper.represent_scalar("tag:yaml.org,2002:str", data)

        SafeNoAliasDumper.add_representer(str, str_rep)
        _DUMPER = SafeNoAliasDumper
    return _DUMPER


def dump_yaml(data: Any) -> str:
    """Dump one value with the safe dumper: no tags, no anchors, keys in template order."""
    import yaml

    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=4096)


def dump_documents(docs: list[Any]) -> str:
    import yaml

    return yaml.dump_all(docs, Dumper=_dumper(), sort_keys=False, default_flow_style=False,
                         allow_unicode=True, width=4096, explicit_start=True)
