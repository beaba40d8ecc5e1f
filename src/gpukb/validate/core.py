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


@lru_cache(maxsize=512)
def core_validator(version: str, strict: bool, group: str, api_version: str, kind: str) -> Any | None:
    """Cached validator for one core kind, or None when the kind is not a core kind."""
    name = core_kinds(version, strict).get((group, api_version, kind))
    if name is None:
        return None
    return make_validator({"$ref": f"{DEFINITIONS_ID}#/$defs/{name}"}, version, strict)
