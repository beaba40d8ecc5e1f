"""GPU manifest linter.

Rules live in one module per family (resources, scheduling, sharing, gang,
tenancy, autoscaling, storage, inference) and register themselves in
:data:`RULES` (see :mod:`gpukb.lint.registry`). Each finding carries the rule
id, severity, JSON path, message, the fix and the KB doc id.

Rules that need cluster facts (MIG strategy, time-slicing, GPU taints, node
labels, schedulers, tenant namespaces) read the optional profile
(:mod:`gpukb.lint.profile`) and stay quiet without it. Cross-document rules
(PVC access modes, PodGroup members, GPU quotas per namespace) look at every
document of the run.

Files are read like the validator reads them (:mod:`gpukb.validate.manifests`):
unparseable YAML becomes a ``yaml-parse`` finding; a missing path raises
:class:`~gpukb.errors.ManifestError`. Documents that are not Kubernetes
objects are skipped silently (the validator reports them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from ..findings import DocumentResult, FileResult, Finding, Report
from . import autoscaling, gang, inference, resources, scheduling, sharing, storage, tenancy  # noqa: F401  (registration)
from .context import LintContext
from .profile import ClusterProfile, load_profile, profile_from_dict
from .registry import RULES, Hit, Rule

__all__ = [
    "lint_files",
    "lint_documents",
    "RULES",
    "Rule",
    "ClusterProfile",
    "load_profile",
    "profile_from_dict",
]


def _profile(profile: ClusterProfile | str | Path | dict | None) -> ClusterProfile | None:
    if profile is None or isinstance(profile, ClusterProfile):
        return profile
    if isinstance(profile, dict):
        return profile_from_dict(profile)
    return load_profile(profile)


def _flatten(doc: Any) -> list[tuple[str, dict[str, Any]]]:
    """(path prefix, object) for a document; a v1 List yields its items."""
    if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
        return [(f"items[{i}]", item) for i, item in enumerate(doc["items"]) if isinstance(item, dict)]
    return [("", doc)] if isinstance(doc, dict) else []


def _lint_one(doc: dict[str, Any], all_docs: list[dict[str, Any]], profile: ClusterProfile | None, prefix: str) -> list[Finding]:
    if not isinstance(doc.get("kind"), str) or not isinstance(doc.get("apiVersion"), str):
        return []
    ctx = LintContext(doc, all_docs, profile)
    out: list[Finding] = []
    for r in RULES.values():
        for hit in r.check(ctx):
            path = hit.path
            if prefix:
                path = f"{prefix}.{path}" if path else prefix
            out.append(
                Finding(
                    rule=r.id,
                    severity=hit.severity or r.severity,
                    path=path,
                    message=hit.message,
                    doc_id=r.doc_id,
                    fix=r.fix,
                )
            )
    return out


def _results(docs: list[Any], all_docs: list[dict[str, Any]], profile: ClusterProfile | None, indices: list[int]) -> list[DocumentResult]:
    out = []
    for index, doc in zip(indices, docs):
        d = doc if isinstance(doc, dict) else {}
        meta = d.get("metadata") if isinstance(d.get("metadata"), dict) else {}
        findings: list[Finding] = []
        for prefix, obj in _flatten(doc):
            findings.extend(_lint_one(obj, all_docs, profile, prefix))
        out.append(
            DocumentResult(
                index=index,
                apiVersion=d.get("apiVersion") if isinstance(d.get("apiVersion"), str) else None,
                kind=d.get("kind") if isinstance(d.get("kind"), str) else None,
                name=str(meta.get("name")) if meta.get("name") is not None else None,
                findings=findings,
            )
        )
    return out


def lint_documents(docs: list[Any], *, profile: ClusterProfile | str | Path | dict | None = None) -> list[DocumentResult]:
    """Lint parsed documents; one DocumentResult per document (index = position).

    ``profile`` is a :class:`ClusterProfile`, a path to a profile YAML or a dict.
    """
    prof = _profile(profile)
    all_docs = [obj for doc in docs for _, obj in _flatten(doc)]
    return _results(list(docs), all_docs, prof, list(range(len(docs))))


def lint_files(
    paths: list[str],
    *,
    profile: ClusterProfile | str | Path | dict | None = None,
    stdin: TextIO | None = None,
) -> Report:
    """Lint manifest files (``-`` = stdin, directories recursively). Cross-document
    rules see the documents of all files together."""
    from ..validate.manifests import load_paths

    prof = _profile(profile)
    loaded = load_paths(paths, stdin=stdin)
    all_docs = [obj for f in loaded for d in f.documents if d.parse_error is None for _, obj in _flatten(d.data)]
    report = Report()
    for f in loaded:
        fr = FileResult(path=f.path)
        for d in f.documents:
            if d.parse_error is not None:
                fr.documents.append(DocumentResult(d.index, None, None, None, [d.parse_error]))
            else:
                fr.documents.extend(_results([d.data], all_docs, prof, [d.index]))
        report.files.append(fr)
    return report
