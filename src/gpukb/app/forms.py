"""A form generated from a recipe's parameter JSON Schema.

Each property becomes one widget: an enum a selectbox, a boolean a checkbox,
an integer or number a number input with the schema's bounds, a string a text
input, an array or object a YAML text area. Defaults come from the schema,
help from its descriptions. Values are checked against the property's schema
on every rerun, so mistakes show while the user types.

The conversions (:func:`field_kind`, :func:`to_widget`, :func:`from_widget`,
:func:`check_value`) are plain functions, tested without Streamlit.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

__all__ = ["yaml_bounds_problem", "MAX_YAML_NODES", "field_kind", "to_widget", "from_widget", "check_value", "widget_key", "render_form",
           "set_form_values", "MAX_YAML_CHARS", "UNSET"]

MAX_YAML_CHARS = 20_000
MAX_YAML_NODES = 200_000
UNSET = "(not set)"


def yaml_bounds_problem(text: str, max_nodes: int = MAX_YAML_NODES) -> str | None:
    """Why ``text`` is unsafe to load and walk (alias expansion too large,
    nesting too deep), or None. Syntax errors are left to the real parser."""
    import sys

    import yaml

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    sizes: dict[int, int] = {}

    def size(node: Any, depth: int) -> int:
        if depth > 200:
            raise RecursionError
        key = id(node)
        if key in sizes:
            return sizes[key]
        sizes[key] = 1  # a cycle counts once
        n = 1
        if isinstance(node, yaml.SequenceNode):
            n += sum(size(c, depth + 1) for c in node.value)
        elif isinstance(node, yaml.MappingNode):
            n += sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        sizes[key] = n
        if n > max_nodes:
            raise OverflowError
        return n

    total = 0
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 2000))
        for node in yaml.compose_all(text, Loader=loader_cls):
            if node is not None:
                total += size(node, 0)
                if total > max_nodes:
                    raise OverflowError
    except OverflowError:
        return f"the YAML expands to more than {max_nodes} nodes (aliases); refusing to load it"
    except RecursionError:
        return "the YAML is nested too deeply"
    except yaml.YAMLError:
        return None
    finally:
        sys.setrecursionlimit(limit)
    return None


def _types(spec: dict[str, Any]) -> list[str]:
    t = spec.get("type")
    if isinstance(t, list):
        return [x for x in t if x != "null"] or ["null"]
    if t:
        return [t]
    if "enum" in spec:
        return ["enum"]
    if "properties" in spec or "additionalProperties" in spec:
        return ["object"]
    if "items" in spec:
        return ["array"]
    return ["string"]


def field_kind(spec: dict[str, Any]) -> str:
    """``select``, ``bool``, ``int``, ``number``, ``text`` or ``yaml``."""
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return "select"
    t = _types(spec)[0]
    return {"boolean": "bool", "integer": "int", "number": "number", "string": "text"}.get(t, "yaml")


def _dump_yaml(value: Any) -> str:
    import yaml

    if value is None:
        return ""
    return yaml.safe_dump(value, sort_keys=False, default_flow_style=False, allow_unicode=True).strip()


def to_widget(spec: dict[str, Any], value: Any) -> Any:
    """A parameter value (or None) as the value its widget holds."""
    kind = field_kind(spec)
    if kind == "select":
        return value if value in spec["enum"] else UNSET
    if kind == "bool":
        return bool(value) if value is not None else bool(spec.get("default", False))
    if kind in ("int", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return int(value) if kind == "int" and float(value).is_integer() else value
    if kind == "text":
        return "" if value is None else str(value)
    return _dump_yaml(value)


def from_widget(spec: dict[str, Any], raw: Any) -> tuple[Any, str | None]:
    """A widget value as a parameter value: ``(value, error)``; None = not set."""
    kind = field_kind(spec)
    if kind == "select":
        return (None, None) if raw == UNSET or raw is None else (raw, None)
    if kind == "bool":
        return bool(raw), None
    if kind in ("int", "number"):
        if raw is None:
            return None, None
        if kind == "int":
            if isinstance(raw, float) and not raw.is_integer():
                return None, "must be a whole number"
            return int(raw), None
        return raw, None
    if kind == "text":
        text = "" if raw is None else str(raw)
        return (None, None) if text == "" else (text, None)
    text = "" if raw is None else str(raw)
    if not text.strip():
        return None, None
    if len(text) > MAX_YAML_CHARS:
        return None, f"too long (more than {MAX_YAML_CHARS} characters)"
    import yaml

    problem = yaml_bounds_problem(text)
    if problem:
        return None, problem
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        return None, f"not valid YAML{where}: {getattr(exc, 'problem', None) or 'unreadable'}"
    return value, None


@lru_cache(maxsize=512)
def _validator(spec_json: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(spec_json))


def _short(v: Any, n: int = 60) -> str:
    s = json.dumps(v, ensure_ascii=False, default=str)
    return s if len(s) <= n else s[: n - 3] + "..."


def check_value(spec: dict[str, Any], value: Any) -> str | None:
    """The first problem with ``value`` under the property schema ``spec``, or None."""
    errs = sorted(_validator(json.dumps(spec, sort_keys=True, default=str)).iter_errors(value),
                  key=lambda e: (len(e.absolute_path), e.validator))
    if not errs:
        return None
    e = errs[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path).lstrip(".")
    prefix = f"{where}: " if where else ""
    v = e.validator
    if v == "pattern":
        return f"{prefix}{_short(e.instance)} does not match the pattern {e.validator_value}"
    if v in ("minimum", "exclusiveMinimum"):
        return f"{prefix}must be {'>' if v == 'exclusiveMinimum' else '≥'} {e.validator_value}"
    if v in ("maximum", "exclusiveMaximum"):
        return f"{prefix}must be {'<' if v == 'exclusiveMaximum' else '≤'} {e.validator_value}"
    if v == "maxLength":
        return f"{prefix}at most {e.validator_value} characters"
    if v == "minLength":
        return f"{prefix}at least {e.validator_value} character(s)"
    if v == "enum":
        return f"{prefix}must be one of {', '.join(map(str, e.validator_value))}"
    if v == "type":
        return f"{prefix}must be of type {e.validator_value}"
    return prefix + e.message.replace("\n", " ")[:200]


def widget_key(recipe_id: str, name: str) -> str:
    return f"rp::{recipe_id}::{name}"


def initial_values(recipe: Any) -> dict[str, Any]:
    """Widget values for the recipe's defaults."""
    return {name: to_widget(spec, spec.get("default")) for name, spec in recipe.properties.items()
            if isinstance(spec, dict)}


def set_form_values(state: Any, recipe: Any, params: dict[str, Any]) -> None:
    """Put ``params`` (over the defaults) into the widgets' session state."""
    for name, spec in recipe.properties.items():
        if not isinstance(spec, dict):
            continue
        value = params.get(name, spec.get("default"))
        state[widget_key(recipe.id, name)] = to_widget(spec, value)


def _label(name: str, spec: dict[str, Any], required: bool) -> str:
    return name + (" *" if required else "")


def _help(spec: dict[str, Any]) -> str | None:
    parts = []
    if spec.get("description"):
        parts.append(str(spec["description"]))
    bounds = []
    for k, sym in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if k in spec:
            bounds.append(f"{sym} {spec[k]}")
    if bounds:
        parts.append("Allowed: " + ", ".join(bounds) + ".")
    if "default" in spec:
        parts.append(f"Default: `{_short(spec['default'])}`.")
    return "\n\n".join(parts) or None


def render_form(recipe: Any, columns: int = 1) -> tuple[dict[str, Any], dict[str, str]]:
    """Draw one widget per parameter; returns ``(params, errors)``.

    ``params`` holds the set values (unset ones are left out, so the recipe's
    defaults apply); ``errors`` maps parameter name to a message."""
    import streamlit as st

    required = set(recipe.parameters.get("required") or [])
    params: dict[str, Any] = {}
    errors: dict[str, str] = {}
    inits = initial_values(recipe)
    cols = st.columns(columns) if columns > 1 else [st.container()]
    for i, (name, spec) in enumerate(recipe.properties.items()):
        if not isinstance(spec, dict):
            continue
        key = widget_key(recipe.id, name)
        if key not in st.session_state:
            st.session_state[key] = inits.get(name)
        kind = field_kind(spec)
        label, help_ = _label(name, spec, name in required), _help(spec)
        with cols[i % len(cols)]:
            if kind == "select":
                options = list(spec["enum"]) if "default" in spec else [UNSET, *spec["enum"]]
                if st.session_state[key] not in options:
                    st.session_state[key] = options[0]
                raw = st.selectbox(label, options, key=key, help=help_, format_func=str)
            elif kind == "bool":
                raw = st.checkbox(label, key=key, help=help_)
            elif kind in ("int", "number"):
                kw: dict[str, Any] = {}
                lo = spec.get("minimum", spec.get("exclusiveMinimum"))
                hi = spec.get("maximum", spec.get("exclusiveMaximum"))
                if kind == "int":
                    kw["step"] = 1
                    if lo is not None:
                        kw["min_value"] = int(lo) + (1 if "minimum" not in spec and "exclusiveMinimum" in spec else 0)
                    if hi is not None:
                        kw["max_value"] = int(hi) - (1 if "maximum" not in spec and "exclusiveMaximum" in spec else 0)
                    cur = st.session_state[key]
                    if cur is not None and not isinstance(cur, int):
                        st.session_state[key] = int(cur)
                else:
                    if lo is not None:
                        kw["min_value"] = float(lo)
                    if hi is not None:
                        kw["max_value"] = float(hi)
                    kw["format"] = "%g"
                    cur = st.session_state[key]
                    if cur is not None:
                        st.session_state[key] = float(cur)
                cur = st.session_state[key]
                if cur is not None and (("min_value" in kw and cur < kw["min_value"]) or
                                        ("max_value" in kw and cur > kw["max_value"])):
                    st.session_state[key] = None
                raw = st.number_input(label, key=key, help=help_, placeholder="not set", **kw)
            elif kind == "text":
                raw = st.text_input(label, key=key, help=help_, max_chars=int(spec.get("maxLength", 2000)) or None,
                                    placeholder="not set")
            else:
                raw = st.text_area(label + " (YAML)", key=key, help=help_, height=110, max_chars=MAX_YAML_CHARS)
            value, err = from_widget(spec, raw)
            if err is None and value is None and name in required and "default" not in spec:
                err = "is required"
            if err is None and value is not None:
                err = check_value(spec, value)
            if err:
                errors[name] = err
                st.error(f"`{name}`: {err}", icon=":material/error:")
            elif value is not None:
                params[name] = value
    return params, errors
