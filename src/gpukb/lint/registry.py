"""The declarative rule registry.

A rule is data (id, family, severity, what it checks, the symptom as the
cluster prints it, the fix and the KB doc that explains it) plus a check
function ``check(ctx) -> iterable of Hit``. Family modules register rules
with :func:`rule`; importing :mod:`gpukb.lint` imports every family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple

from ..findings import Severity

if TYPE_CHECKING:  # pragma: no cover
    from .context import LintContext

__all__ = ["Rule", "Hit", "RULES", "rule", "FAMILIES"]

FAMILIES = (
    "resources",
    "scheduling",
    "sharing",
    "gang",
    "tenancy",
    "autoscaling",
    "storage",
    "inference",
)


class Hit(NamedTuple):
    path: str
    message: str
    severity: Severity | None = None  # overrides the rule's severity (e.g. error only with a profile)


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    severity: Severity
    title: str  # what it checks
    symptom: str  # what the cluster prints, verbatim where the text is fixed
    fix: str
    doc_id: str
    check: Callable[["LintContext"], Iterable[Hit]]
    needs_profile: bool = False  # quiet unless the profile gives the context

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "family": self.family,
            "severity": self.severity,
            "title": self.title,
            "symptom": self.symptom,
            "fix": self.fix,
            "doc_id": self.doc_id,
            "needs_profile": self.needs_profile,
        }


RULES: dict[str, Rule] = {}


def rule(
    id: str,
    *,
    family: str,
    severity: Severity,
    title: str,
    symptom: str,
    fix: str,
    doc_id: str,
    needs_profile: bool = False,
) -> Callable[[Callable[["LintContext"], Iterable[Hit]]], Callable[["LintContext"], Iterable[Hit]]]:
    """Register a check function as a rule."""
    if family not in FAMILIES:
        raise ValueError(f"unknown rule family {family!r}")

    def deco(fn: Callable[["LintContext"], Iterable[Hit]]) -> Callable[["LintContext"], Iterable[Hit]]:
        if id in RULES:
            raise ValueError(f"duplicate lint rule id {id!r}")
        RULES[id] = Rule(id, family, severity, title, symptom, fix, doc_id, fn, needs_profile)
        return fn

    return deco
