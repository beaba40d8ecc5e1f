"""GPU manifest linter: one command runs everything that checks a manifest.

``gpukb lint`` = schemas (:mod:`gpukb.validate`) + admission rules + advice
rules, all from the one registry in :mod:`gpukb.rules`. ``gpukb validate``
runs the schemas and the admission rules only.

Files are read by the one manifest loader (:mod:`gpukb.k8s.manifests`):
unparseable YAML becomes a ``yaml-parse`` finding; a missing path raises
:class:`~gpukb.errors.ManifestError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, TextIO

from ..findings import DocumentResult, Report
from ..rules import RULES, ClusterProfile, Rule, load_profile, profile_from_dict

__all__ = [
    "lint_files",
    "lint_documents",
    "RULES",
    "Rule",
    "ClusterProfile",
    "load_profile",
    "profile_from_dict",
    "ALL_CATEGORIES",
]

ALL_CATEGORIES = ("admission", "advice")


def _profile(profile: ClusterProfile | str | Path | dict | None) -> ClusterProfile | None:
    if profile is None or isinstance(profile, ClusterProfile):
        return profile
    if isinstance(profile, dict):
        return profile_from_dict(profile)
    return load_profile(profile)


def lint_documents(
    docs: list[Any],
    *,
    profile: ClusterProfile | str | Path | dict | None = None,
    k8s_version: str | None = None,
    extra_schemas: dict | None = None,
) -> list[DocumentResult]:
    """Lint parsed documents: schemas, admission and advice rules; one
    DocumentResult per document (index = position).

    ``profile`` is a :class:`ClusterProfile`, a path to a profile YAML or a dict.
    """
    from ..validate import validate_documents

    return validate_documents(list(docs), k8s_version=k8s_version, extra_schemas=extra_schemas,
                              categories=ALL_CATEGORIES, profile=_profile(profile))


def lint_files(
    paths: list[str],
    *,
    profile: ClusterProfile | str | Path | dict | None = None,
    stdin: TextIO | None = None,
    k8s_version: str | None = None,
    crd_dirs: Iterable[str] = (),
    crd_files: Iterable[str] = (),
) -> Report:
    """Lint manifest files (``-`` = stdin, directories recursively). Cross-document
    rules see the documents of all files together. ``Report.notices`` names
    the rules skipped for want of a cluster profile."""
    from ..validate import validate_files

    return validate_files(paths, k8s_version=k8s_version, crd_dirs=crd_dirs, crd_files=crd_files, stdin=stdin,
                          categories=ALL_CATEGORIES, profile=_profile(profile))
