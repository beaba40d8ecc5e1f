"""The one rule registry for everything that checks a manifest.

A rule is data (id, family, category, severity, the kinds it applies to, what
it checks, the symptom as the cluster prints it, the fix and the KB doc that
explains it) plus a check function ``check(ctx) -> iterable of Hit``.

Two categories:

* ``admission``: what the API server or an operator's admission webhook would
  reject. ``gpukb validate`` runs these after the schemas.
* ``advice``: what is accepted but hurts (Pending pods, wasted GPUs, tenants
  interfering). ``gpukb lint`` runs both categories and the schemas.

One check function may report several related rule ids (``Hit.rule``); it is
then registered once per id with :func:`rule_group` and runs once per
document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Literal, NamedTuple

from ..findings import Severity

if TYPE_CHECKING:  # pragma: no cover
    from .context import LintContext

__all__ = ["Rule", "Hit", "RULES", "rule", "rule_group", "FAMILIES", "CATEGORIES", "Category"]

FAMILIES = (
    "resources",
    "scheduling",
    "sharing",
    "gang",
    "tenancy",
    "autoscaling",
    "storage",
    "inference",
    "workloads",
    "training",
)
CATEGORIES = ("admission", "advice")
Category = Literal["admission", "advice"]

Check = Callable[["LintContext"], Iterable["Hit"]]


class Hit(NamedTuple):
    path: str
    message: str
    severity: Severity | None = None  # overrides the rule's severity (e.g. error only with a profile)
    rule: str | None = None  # for a check registered with rule_group: which of its rules fired


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    severity: Severity
    title: str  # what it checks
    symptom: str  # what the cluster prints, verbatim where the text is fixed
    fix: str
    doc_id: str | None
    check: Check
    needs_profile: bool = False  # quiet unless the profile gives the context
    category: Category = "advice"
    kinds: tuple[str, ...] = field(default=())  # "group/Kind" ("" group = core); empty = every kind

    def applies_to(self, group: str, kind: str) -> bool:
        return not self.kinds or f"{group}/{kind}" in self.kinds

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "family": self.family,
            "category": self.category,
            "severity": self.severity,
            "title": self.title,
            "symptom": self.symptom,
            "fix": self.fix,
            "doc_id": self.doc_id,
            "needs_profile": self.needs_profile,
            "kinds": list(self.kinds),
        }


RULES: dict[str, Rule] = {}


def _register(r: Rule) -> None:
    if r.family not in FAMILIES:
        raise ValueError(f"unknown rule family {r.family!r}")
    if r.category not in CATEGORIES:
        raise ValueError(f"unknown rule category {r.category!r}")
    if r.id in RULES:
        raise ValueError(f"duplicate rule id {r.id!r}")
    RULES[r.id] = r


def rule(
    id: str,
    *,
    family: str,
    severity: Severity,
    title: str,
    symptom: str,
    fix: str,
    doc_id: str | None,
    needs_profile: bool = False,
    category: Category = "advice",
    kinds: Iterable[str] = (),
) -> Callable[[Check], Check]:
    """Register a check function as a rule."""

    def deco(fn: Check) -> Check:
        _register(Rule(id, family, severity, title, symptom, fix, doc_id, fn, needs_profile, category, tuple(kinds)))
        return fn

    return deco


def rule_group(rules: dict[str, dict[str, object]], *, family: str, category: Category = "admission",
               kinds: Iterable[str] = ()) -> Callable[[Check], Check]:
    """Register one check function that reports several rules (``Hit.rule`` names which).

    ``rules`` maps each rule id to its data: severity (default error), title,
    symptom, fix, doc_id, and optionally family and kinds."""

    def deco(fn: Check) -> Check:
        for rid, meta in rules.items():
            _register(Rule(
                rid, str(meta.get("family", family)), meta.get("severity", "error"),  # type: ignore[arg-type]
                str(meta["title"]), str(meta.get("symptom", "")), str(meta.get("fix", "")),
                meta.get("doc_id"), fn, False, category,  # type: ignore[arg-type]
                tuple(meta.get("kinds", kinds)),  # type: ignore[arg-type]
            ))
        return fn

    return deco
