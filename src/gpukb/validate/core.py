"""Kubernetes core schemas, read from the data files of ``kubernetes-validate``.

The package ships JSON schemas for several Kubernetes minor versions, each in
a plain and a ``-strict`` variant (strict rejects unknown fields). We read only
``_definitions.json`` of the chosen variant: every definition that carries an
``x-kubernetes-group-version-kind`` is a top-level kind. One
``Draft202012Validator`` per (version, strict, group, version, kind) is built on
first use and cached; the definitions are loaded once per variant.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import UsageError

__all__ = [
    "DEFINITIONS_ID",
    "available_versions",
    "default_version",
    "resolve_version",
    "definitions",
    "core_kinds",
    "core_validator",
    "registry",
    "make_validator",
]

DEFINITIONS_ID = "https://kubernetes.io/api/_definitions.json"
_DIR_RX = re.compile(r"^v(\d+)\.(\d+)\.\d+-local(-strict)?$")


@lru_cache(maxsize=1)
def _schema_root() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("the kubernetes-validate package is not installed; it provides the core schemas")
    root = Path(list(spec.submodule_search_locations)[0]) / "kubernetes-json-schema"
    if not root.is_dir():
        raise UsageError(f"kubernetes-validate has no schema folder at {root}")
    return root


@lru_cache(maxsize=1)
def _version_dirs() -> dict[str, dict[bool, Path]]:
    out: dict[str, dict[bool, Path]] = {}
    for d in _schema_root().iterdir():
        m = _DIR_RX.match(d.name)
        if m and (d / "_definitions.json").is_file():
            out.setdefault(f"{m.group(1)}.{m.group(2)}", {})[bool(m.group(3))] = d
    return out


def _vkey(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


def available_versions() -> list[str]:
    """Kubernetes minor versions with shipped schemas, oldest first (e.g. ``["1.25", ..., "1.37"]``)."""
    return sorted(_version_dirs(), key=_vkey)


def default_version() -> str:
    return available_versions()[-1]


def resolve_version(version: str | None) -> str:
    """Normalise ``"v1.30"``, ``"1.30"`` or ``"1.30.2"`` to ``"1.30"``; UsageError if not shipped."""
    if version is None or str(version).strip() == "":
        return default_version()
    text = str(version).strip().lstrip("vV")
    m = re.match(r"^(\d+)\.(\d+)(?:\.\d+)?$", text)
    versions = available_versions()
    if not m or f"{int(m.group(1))}.{int(m.group(2))}" not in versions:
        raise UsageError(
            f"--k8s-version {version!r} is not available; choose one of: {', '.join(versions)}"
        )
    return f"{int(m.group(1))}.{int(m.group(2))}"


@lru_cache(maxsize=8)
def definitions(version: str, strict: bool = True) -> dict[str, Any]:
    """The ``_definitions.json`` document of one version and variant."""
    dirs = _version_dirs()[version]
    path = dirs.get(strict) or dirs[not strict]
    with open(path / "_definitions.json", encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=8)
def core_kinds(version: str, strict: bool = True) -> dict[tuple[str, str, str], str]:
    """Map (group, version, kind) -> definition name for every top-level core kind."""
    out: dict[tuple[str, str, str], str] = {}
    defs = definitions(version, strict)["$defs"]
    for name, schema in defs.items():
        gvks = schema.get("x-kubernetes-group-version-kind") or []
        if len(gvks) != 1:  # shared meta types (DeleteOptions, WatchEvent) list many groups
            continue
        g = gvks[0]
        out[(g.get("group", ""), g["version"], g["kind"])] = name
    return out


@lru_cache(maxsize=8)
def registry(version: str, strict: bool = True) -> Any:
    """A ``referencing.Registry`` holding the definitions of one version/variant."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    res = Resource.from_contents(definitions(version, strict), default_specification=DRAFT202012)
    return Registry().with_resource(DEFINITIONS_ID, res)


def make_validator(schema: dict[str, Any], version: str, strict: bool = True) -> Any:
    """A Draft 2020-12 validator for ``schema`` that can ``$ref`` the core definitions."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema, registry=registry(version, strict))


_LOCAL_REF = "#/$defs/"
_ABSOLUTE_REF = f"{DEFINITIONS_ID}#/$defs/"


def _inlined(version: str, strict: bool, name: str) -> dict[str, Any]:
    """The schema of one definition with every ``$ref`` replaced by its target
    (shared, not copied) and descriptions dropped; a reference back to a
    definition being inlined stays a reference. Validation then needs no
    reference lookups, which halves its time on large runs."""
    defs = definitions(version, strict)["$defs"]
    memo: dict[str, Any] = {}

    def target(ref: Any) -> str | None:
        if isinstance(ref, str):
            for prefix in (_LOCAL_REF, _ABSOLUTE_REF):
                if ref.startswith(prefix) and ref[len(prefix):] in defs:
                    return ref[len(prefix):]
        return None

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        """One schema node (never a map of field names, where any name is a field)."""
        if not isinstance(node, dict):
            return node
        ref = target(node.get("$ref"))
        if ref is not None and set(node) <= {"$ref", "description"}:
            if ref in stack:
                return {"$ref": _ABSOLUTE_REF + ref}
            if ref not in memo:
                memo[ref] = walk(defs[ref], (*stack, ref))
            return memo[ref]
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "description":
                continue
            if k in ("properties", "patternProperties", "$defs", "dependentSchemas") and isinstance(v, dict):
                out[k] = {name: walk(sub, stack) for name, sub in v.items()}
            elif k in ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"):
                out[k] = walk(v, stack)
            elif k in ("oneOf", "anyOf", "allOf", "prefixItems") and isinstance(v, list):
                out[k] = [walk(sub, stack) for sub in v]
            else:
                out[k] = v  # enum, default, required, x-kubernetes-*: values, not schemas
        if ref is not None:
            out["$ref"] = _ABSOLUTE_REF + ref
        return out

    return walk(defs[name], (name,))


# -- a fast path for valid documents -----------------------------------------
#
# Most documents are valid, and jsonschema spends most of a large run proving
# it. ``fast_check`` compiles a core schema into plain Python closures that
# answer "certainly valid" (True) or "maybe not" (False); only a False answer
# runs jsonschema, which then produces the findings. The closures implement
# the keywords of the core definitions with jsonschema's semantics and answer
# False for anything they do not implement, so a True answer never hides an
# error jsonschema would report.

_ANNOTATIONS = frozenset({"description", "format", "default", "title", "$schema", "$id", "$comment", "example",
                          "examples", "deprecated", "readOnly", "writeOnly", "discriminator"})


def _is_type(value: Any, t: str) -> bool:
    """jsonschema's Draft 2020-12 type checks."""
    if t == "string":
        return isinstance(value, str)
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    if t == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "null":
        return value is None
    return False


def _type_only(schema: Any) -> bool:
    return isinstance(schema, dict) and set(schema) <= {"type"} and isinstance(schema.get("type"), (str, list))


def _types_match(schema: dict[str, Any], value: Any) -> bool:
    t = schema.get("type")
    return any(_is_type(value, str(x)) for x in (t if isinstance(t, list) else [t]))


def fast_check(schema: Any, version: str, strict: bool) -> Any:
    """A function ``value -> bool``: True only when ``schema`` certainly accepts ``value``."""
    defs = definitions(version, strict)["$defs"]
    compiled: dict[int, Any] = {}
    keep: list[Any] = []  # schema nodes stay alive, so their ids stay unique

    def never(value: Any) -> bool:
        return False

    def always(value: Any) -> bool:
        return True

    def compile_(node: Any) -> Any:
        if node is True or node == {}:
            return always
        if not isinstance(node, dict):
            return never
        key = id(node)
        if key in compiled:
            return compiled[key]
        keep.append(node)
        slot: list[Any] = [never]
        compiled[key] = lambda v: slot[0](v)  # a reference cycle ($ref) resolves through the slot
        slot[0] = build(node)
        compiled[key] = slot[0]
        return slot[0]

    def build(node: dict[str, Any]) -> Any:
        checks: list[Any] = []
        for k in node:
            if k in _ANNOTATIONS or k.startswith("x-") or k in ("type", "properties", "additionalProperties",
                                                                  "items", "required", "enum", "oneOf", "$ref"):
                continue
            return never  # a keyword this fast path does not implement
        ref = node.get("$ref")
        if ref is not None:
            name = None
            for prefix in (_LOCAL_REF, _ABSOLUTE_REF):
                if isinstance(ref, str) and ref.startswith(prefix):
                    name = ref[len(prefix):]
            if name not in defs:
                return never
            target = compile_(defs[name])
            checks.append(lambda v, target=target: target(v))
        if "type" in node:
            t = node["type"]
            types = tuple(t) if isinstance(t, list) else (t,)
            checks.append(lambda v, types=types: any(_is_type(v, x) for x in types))
        if "enum" in node:
            allowed = node["enum"]
            if not all(isinstance(a, str) or a is None for a in allowed):
                return never
            strings = frozenset(a for a in allowed if isinstance(a, str))
            nullable = None in allowed
            checks.append(lambda v, s=strings, n=nullable: (isinstance(v, str) and v in s) or (n and v is None))
        if "oneOf" in node:
            branches = node["oneOf"]
            if not isinstance(branches, list) or not all(_type_only(b) for b in branches):
                return never  # exactly-one needs certain answers: only type branches give them
            checks.append(lambda v, b=branches: sum(1 for x in b if _types_match(x, v)) == 1)
        if "required" in node:
            req = tuple(node["required"])
            checks.append(lambda v, req=req: not isinstance(v, dict) or all(r in v for r in req))
        props = node.get("properties")
        addl = node.get("additionalProperties", True)
        if props is not None or addl is not True:
            if props is not None and not isinstance(props, dict):
                return never
            pc = {name: compile_(sub) for name, sub in (props or {}).items()}
            ac = None if addl is True else (never if addl is False else compile_(addl))

            def obj(v: Any, pc: dict[str, Any] = pc, ac: Any = ac) -> bool:
                if not isinstance(v, dict):
                    return True
                for k, x in v.items():
                    f = pc.get(k) if isinstance(k, str) else None
                    if f is not None:
                        if not f(x):
                            return False
                    elif ac is not None and not ac(x):
                        return False
                return True

            checks.append(obj)
        if "items" in node:
            items = node["items"]
            if not isinstance(items, (dict, bool)):
                return never
            ic = compile_(items)
            checks.append(lambda v, ic=ic: not isinstance(v, list) or all(ic(x) for x in v))
        if not checks:
            return always
        if len(checks) == 1:
            return checks[0]
        checks_t = tuple(checks)
        return lambda v: all(c(v) for c in checks_t)

    return compile_(schema)


@lru_cache(maxsize=512)
def core_fast_check(version: str, strict: bool, group: str, api_version: str, kind: str) -> Any | None:
    """The fast path of :func:`core_validator` (see :func:`fast_check`)."""
    validator = core_validator(version, strict, group, api_version, kind)
    return None if validator is None else fast_check(validator.schema, version, strict)


@lru_cache(maxsize=512)
def core_validator(version: str, strict: bool, group: str, api_version: str, kind: str) -> Any | None:
    """Cached validator for one core kind, or None when the kind is not a core kind."""
    name = core_kinds(version, strict).get((group, api_version, kind))
    if name is None:
        return None
    return make_validator(_inlined(version, strict, name), version, strict)
