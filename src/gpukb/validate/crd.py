"""CustomResourceDefinition schemas: conversion to JSON Schema and the built-in set.

``crd_to_jsonschema`` turns the ``openAPIV3Schema`` of every version of an
``apiextensions.k8s.io/v1`` CRD into a JSON Schema (Draft 2020-12) that
behaves like the API server's structural-schema validation:

* ``nullable: true`` allows ``null``; without it a ``null`` is rejected (the
  validator prunes ``null`` map values before validating a custom resource,
  as the API server does, so this matters for list items and direct use);
* ``x-kubernetes-int-or-string: true`` accepts an integer or a string;
* ``x-kubernetes-preserve-unknown-fields: true`` leaves the object open;
* ``x-kubernetes-embedded-resource: true`` accepts ``apiVersion``, ``kind``
  and ``metadata`` and leaves the object open;
* an object that declares ``properties`` (or nothing at all) and does not
  preserve unknown fields gets ``additionalProperties: false`` (the server
  rejects unknown fields under strict field validation, kubectl's default);
* the root gets ``apiVersion``, ``kind`` and ``metadata`` as the server adds
  them.

The schema is walked structurally: the values under ``properties`` are
schemas, so a field literally named ``properties``, ``type`` or ``items`` is
a field, never a keyword. CEL rules (``x-kubernetes-validations``) are not
evaluated.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from ..errors import ManifestError

__all__ = [
    "GVK",
    "crd_to_jsonschema",
    "convert_openapi_schema",
    "load_crd_schemas",
    "builtin_crd_schemas",
    "relax",
    "apply_defaults",
    "BUILTIN_DIR",
]

GVK = tuple  # (group, version, kind)

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "schemas" / "crds"

# Keywords copied unchanged from an OpenAPI v3 schema node.
_COPY = (
    "type",
    "enum",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
    "minProperties",
    "maxProperties",
    "required",
    "description",
    "default",
)


def convert_openapi_schema(node: Any, *, strict: bool = True, keep_descriptions: bool = False) -> Any:
    """Convert one OpenAPI v3 (Kubernetes structural) schema node to JSON Schema."""
    if not isinstance(node, dict):
        return {} if node is None else node
    out: dict[str, Any] = {}
    for key in _COPY:
        if key in node and (key != "description" or keep_descriptions):
            out[key] = node[key]
    if node.get("exclusiveMinimum") is True and "minimum" in node:
        out["exclusiveMinimum"] = out.pop("minimum")
    if node.get("exclusiveMaximum") is True and "maximum" in node:
        out["exclusiveMaximum"] = out.pop("maximum")

    props = node.get("properties")
    if isinstance(props, dict):
        # structural walk: every value is a schema, every key a field name
        out["properties"] = {
            name: convert_openapi_schema(sub, strict=strict, keep_descriptions=keep_descriptions)
            for name, sub in props.items()
        }
    if "items" in node:
        items = node["items"]
        if isinstance(items, list):  # not structural, but be lenient
            out["prefixItems"] = [convert_openapi_schema(s, strict=strict) for s in items]
        else:
            out["items"] = convert_openapi_schema(items, strict=strict, keep_descriptions=keep_descriptions)
    addl = node.get("additionalProperties")
    if isinstance(addl, dict):
        out["additionalProperties"] = convert_openapi_schema(addl, strict=strict, keep_descriptions=keep_descriptions)
    elif isinstance(addl, bool):
        out["additionalProperties"] = addl
    for key in ("allOf", "anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            out[key] = [convert_openapi_schema(s, strict=strict, keep_descriptions=keep_descriptions) for s in node[key]]
    if isinstance(node.get("not"), dict):
        out["not"] = convert_openapi_schema(node["not"], strict=strict, keep_descriptions=keep_descriptions)

    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = node.get("x-kubernetes-embedded-resource") is True

    if node.get("x-kubernetes-int-or-string") is True:
        out["type"] = ["integer", "string"]
        # the anyOf [integer, string] that usually comes with it is redundant now
        if out.get("anyOf") and all(isinstance(s, dict) and set(s) <= {"type"} for s in out["anyOf"]):
            del out["anyOf"]

    if embedded:
        props_out = out.setdefault("properties", {})
        props_out.setdefault("apiVersion", {"type": "string"})
        props_out.setdefault("kind", {"type": "string"})
        props_out.setdefault("metadata", {"type": "object"})
        out.setdefault("type", "object")
        out.pop("additionalProperties", None) if out.get("additionalProperties") is False else None
    elif (
        strict
        and not preserve
        and out.get("type") == "object"
        and "additionalProperties" not in out
    ):
        # declared properties (or none at all): everything else is unknown
        out["additionalProperties"] = False

    if node.get("nullable") is True:
        out = _allow_null(out)
    return out


def _allow_null(schema: dict[str, Any]) -> dict[str, Any]:
    t = schema.get("type")
    if isinstance(t, str) and "enum" not in schema:
        return {**schema, "type": [t, "null"]}
    if isinstance(t, list) and "enum" not in schema:
        return {**schema, "type": t + (["null"] if "null" not in t else [])}
    if "enum" in schema and None not in schema["enum"]:
        schema = {**schema, "enum": list(schema["enum"]) + [None]}
        if isinstance(t, str):
            schema["type"] = [t, "null"]
        return schema
    return {"anyOf": [{"type": "null"}, schema]}


def _root_fields(schema: dict[str, Any], group: str, version: str, kind: str) -> dict[str, Any]:
    schema = dict(schema)
    schema.setdefault("type", "object")
    props = dict(schema.get("properties") or {})
    api_version = f"{group}/{version}" if group else version
    props["apiVersion"] = {"type": "string", "const": api_version}
    props["kind"] = {"type": "string", "const": kind}
    meta = props.get("metadata")
    if not isinstance(meta, dict) or set(meta) <= {"type", "additionalProperties"}:
        props["metadata"] = {"type": "object"}
    schema["properties"] = props
    return schema


def crd_to_jsonschema(crd: dict[str, Any], *, strict: bool = True) -> dict[GVK, dict[str, Any]]:
    """Convert every version of an apiextensions.k8s.io/v1 CRD to a JSON Schema.

    Returns ``{(group, version, kind): schema}``. Raises ``ValueError`` when the
    document is not a CRD or lacks the fields needed.
    """
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        raise ValueError("not a CustomResourceDefinition")
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        raise ValueError("spec: missing")
    group = spec.get("group")
    kind = (spec.get("names") or {}).get("kind") if isinstance(spec.get("names"), dict) else None
    if not isinstance(group, str) or not isinstance(kind, str):
        raise ValueError("spec.group and spec.names.kind are required")
    out: dict[GVK, dict[str, Any]] = {}
    versions = spec.get("versions")
    if not isinstance(versions, list):
        raise ValueError("spec.versions: missing (only apiextensions.k8s.io/v1 CRDs are supported)")
    for i, ver in enumerate(versions):
        if not isinstance(ver, dict) or not isinstance(ver.get("name"), str):
            raise ValueError(f"spec.versions[{i}].name: missing")
        if ver.get("served") is False:
            continue
        raw = ((ver.get("schema") or {}).get("openAPIV3Schema")) if isinstance(ver.get("schema"), dict) else None
        if raw is None:
            converted: dict[str, Any] = {"type": "object"}
        else:
            converted = convert_openapi_schema(raw, strict=strict)
        schema = _root_fields(converted, group, ver["name"], kind)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["x-kubernetes-group-version-kind"] = [{"group": group, "version": ver["name"], "kind": kind}]
        out[(group, ver["name"], kind)] = schema
    return out


def _iter_crd_files(paths: Iterable[str | Path]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in (".yaml", ".yml", ".json")))
        elif p.is_file():
            files.append(p)
        else:
            raise ManifestError(str(raw), "no such CRD file or directory")
    return files


def load_crd_schemas(paths: Iterable[str | Path], *, strict: bool = True) -> dict[GVK, dict[str, Any]]:
    """Read CRD YAML/JSON files (directories recursively) and convert every CRD found.

    Documents that are not CRDs are ignored; a CRD that cannot be converted or
    a file that cannot be parsed raises :class:`ManifestError` naming the file.
    """
    from ..k8s.manifests import Limits, list_items, load_text, read_input

    limits = Limits.from_env()
    out: dict[GVK, dict[str, Any]] = {}
    for f in _iter_crd_files(paths):
        name, text = read_input(f, limits=limits, what="CRD")
        loaded = load_text(text, name, limits=limits)
        for doc in loaded.documents:
            if doc.parse_error is not None:
                raise ManifestError(name, doc.parse_error.message)
            if doc.problems:
                raise ManifestError(name, doc.problems[0].message)
            for _, item, problem in list_items(doc.data, limits=limits):
                if problem is not None:
                    raise ManifestError(name, problem)
                if not isinstance(item, dict) or item.get("kind") != "CustomResourceDefinition":
                    continue
                try:
                    out.update(crd_to_jsonschema(item, strict=strict))
                except ValueError as exc:
                    meta = item.get("metadata")
                    crd_name = meta.get("name", "?") if isinstance(meta, dict) else "?"
                    raise ManifestError(name, f"CRD {_label(crd_name)}: {exc}") from None
    return out


def _label(value: Any) -> str:
    from ..output import short

    return value if isinstance(value, str) and len(value) <= 80 else short(value)


def apply_defaults(instance: Any, schema: Any) -> Any:
    """A copy of ``instance`` with schema ``default`` values filled in for missing
    object fields, as the API server does for custom resources before validating.
    ``$ref`` targets are not followed (core definitions carry no defaults)."""
    import copy

    if not isinstance(schema, dict):
        return instance
    if isinstance(instance, dict):
        out = dict(instance)
        props = schema.get("properties")
        if isinstance(props, dict):
            for name, sub in props.items():
                if not isinstance(sub, dict):
                    continue
                if name not in out and "default" in sub:
                    out[name] = copy.deepcopy(sub["default"])
                if name in out:
                    out[name] = apply_defaults(out[name], sub)
        addl = schema.get("additionalProperties")
        if isinstance(addl, dict):
            known = set(props or {})
            for k in list(out):
                if k not in known:
                    out[k] = apply_defaults(out[k], addl)
        return out
    if isinstance(instance, list) and isinstance(schema.get("items"), dict):
        return [apply_defaults(v, schema["items"]) for v in instance]
    return instance


def relax(schema: Any) -> Any:
    """A copy of ``schema`` with every ``additionalProperties: false`` removed (non-strict mode)."""
    if isinstance(schema, dict):
        return {k: relax(v) for k, v in schema.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(schema, list):
        return [relax(v) for v in schema]
    return schema


@lru_cache(maxsize=1)
def builtin_crd_schemas() -> dict[GVK, dict[str, Any]]:
    """The hand-written schemas in ``gpukb/schemas/crds`` keyed by (group, version, kind)."""
    out: dict[GVK, dict[str, Any]] = {}
    for f in sorted(BUILTIN_DIR.glob("*.json")):
        with open(f, encoding="utf-8") as fh:
            schema = json.load(fh)
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            out[(gvk["group"], gvk["version"], gvk["kind"])] = schema
    return out
