"""The one rule engine for manifests: admission rules and advice in one registry.

Rules live in one module per family and register themselves in
:data:`RULES` (:mod:`gpukb.rules.registry`). :func:`run_rules` runs the rules
of some categories over one document: each check function runs once, rules
that declare kinds run only on those kinds, and a finding that repeats for
several containers of one pod is reported once, naming every container.

Rules that need cluster facts (MIG strategy, time-slicing, GPU taints, node
labels, schedulers, tenant namespaces) read the optional profile
(:mod:`gpukb.rules.profile`) and stay quiet without it;
:func:`skipped_for_profile` names them so the CLI can say so.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..findings import Finding
from ..k8s.walk import group_of, json_path
from . import admission, autoscaling, gang, inference, resources, scheduling, sharing, storage, tenancy  # noqa: F401
from .context import DocumentIndex, LintContext
from .profile import ClusterProfile, load_profile, profile_from_dict
from .registry import CATEGORIES, FAMILIES, RULES, Hit, Rule

__all__ = [
    "RULES", "Rule", "Hit", "FAMILIES", "CATEGORIES", "DocumentIndex", "LintContext", "ClusterProfile",
    "load_profile", "profile_from_dict", "run_rules", "rules_of", "skipped_for_profile", "merge_containers",
]


def rules_of(categories: Iterable[str] = CATEGORIES) -> list[Rule]:
    """Registered rules of the given categories, in registration order."""
    cats = set(categories)
    return [r for r in RULES.values() if r.category in cats]


def run_rules(
    doc: dict[str, Any],
    *,
    index: DocumentIndex | None = None,
    profile: ClusterProfile | None = None,
    categories: Iterable[str] = CATEGORIES,
    prefix: str = "",
) -> list[Finding]:
    """Findings of the rules of ``categories`` for one Kubernetes object."""
    if not isinstance(doc.get("kind"), str) or not isinstance(doc.get("apiVersion"), str):
        return []
    group = group_of(doc)[0]
    kind = doc["kind"]
    ctx = LintContext(doc, index if index is not None else DocumentIndex([doc]), profile)
    out: list[Finding] = []
    for check, rules, wanted in _checks_for(group, kind, tuple(categories)):
        for hit in check(ctx):
            found = wanted.get(hit.rule or rules[0].id)
            if found is None:
                continue
            r = found
            path = hit.path
            if prefix:
                path = (prefix + path if path.startswith("[") else f"{prefix}.{path}") if path else prefix
            out.append(Finding(rule=r.id, severity=hit.severity or r.severity, path=path, message=hit.message,
                               doc_id=r.doc_id, fix=r.fix))
    return merge_containers(out)


_Checks = list[tuple[Any, list[Rule], dict[str, Rule]]]
_CHECKS: dict[tuple[str, str, tuple[str, ...], int], _Checks] = {}


def _checks_for(group: str, kind: str, categories: tuple[str, ...]) -> _Checks:
    """The check functions (with their rules, by id) that apply to a kind,
    worked out once per kind and registry size instead of once per document."""
    key = (group, kind, categories, len(RULES))
    found = _CHECKS.get(key)
    if found is None:
        by_check: dict[Any, list[Rule]] = {}
        for r in rules_of(categories):
            if r.applies_to(group, kind):
                by_check.setdefault(r.check, []).append(r)
        if len(_CHECKS) > 4096:
            _CHECKS.clear()
        found = _CHECKS[key] = [(check, rules, {r.id: r for r in rules}) for check, rules in by_check.items()]
    return found


_CONTAINER = re.compile(r"^container '([^']*)'(?::\s*|\s+)")


def merge_containers(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and message, naming every container it concerns."""
    merged: dict[tuple[str, str, str], tuple[Finding, list[str]]] = {}
    out: list[Finding] = []
    for f in findings:
        m = _CONTAINER.match(f.message)
        if not m:
            out.append(f)
            continue
        key = (f.rule, f.severity, f.message[m.end():])
        if key in merged:
            merged[key][1].append(m.group(1))
            continue
        merged[key] = (f, [m.group(1)])
        out.append(f)
    for (_, _, rest), (f, names) in merged.items():
        if len(names) > 1:
            sep = ": " if f.message[len(f"container '{names[0]}'"):].startswith(":") else " "
            f.message = "containers " + ", ".join(f"'{n}'" for n in dict.fromkeys(names)) + sep + rest
    return out


def skipped_for_profile(kinds: Iterable[tuple[str, str]], profile: ClusterProfile | None) -> list[Rule]:
    """Rules that would look at these (group, kind)s but need a cluster profile."""
    if profile is not None:
        return []
    present = set(kinds)
    return [r for r in RULES.values() if r.needs_profile
            and (not r.kinds or any(r.applies_to(g, k) for g, k in present))]
