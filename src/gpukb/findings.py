"""Result types shared by the validator and the linter.

Every finding has one shape whatever produced it: the document it is in,
the JSON path inside that document, a rule id, a severity and a message.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]

__all__ = ["Finding", "DocumentResult", "FileResult", "Report", "Severity"]


@dataclass
class Finding:
    rule: str
    severity: Severity
    path: str  # JSON path inside the document, e.g. "spec.template.spec.containers[0].resources"
    message: str
    doc_id: str | None = None  # KB doc that explains the problem
    fix: str | None = None


@dataclass
class DocumentResult:
    index: int  # position of the document in its file (0-based)
    apiVersion: str | None
    kind: str | None
    name: str | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")


@dataclass
class FileResult:
    path: str
    documents: list[DocumentResult] = field(default_factory=list)


@dataclass
class Report:
    files: list[FileResult] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # e.g. rules skipped for want of a cluster profile

    @property
    def errors(self) -> int:
        return sum(d.errors for f in self.files for d in f.documents)

    @property
    def warnings(self) -> int:
        return sum(d.warnings for f in self.files for d in f.documents)

    def to_dict(self) -> dict[str, Any]:
        # Spelled out rather than dataclasses.asdict, which deep-copies every
        # value and is the slowest step of a large run's JSON output.
        return {
            "files": [
                {"path": f.path, "documents": [
                    {"index": d.index, "apiVersion": d.apiVersion, "kind": d.kind, "name": d.name,
                     "findings": [_finding_dict(x) for x in d.findings]}
                    for d in f.documents]}
                for f in self.files],
            "errors": self.errors,
            "warnings": self.warnings,
            "notices": list(self.notices),
        }


def _finding_dict(f: Finding) -> dict[str, Any]:
    out = {"rule": f.rule, "severity": f.severity, "path": f.path, "message": f.message, "doc_id": f.doc_id,
           "fix": f.fix}
    for extra in fields(f)[len(out):]:  # fields added later keep appearing
        out[extra.name] = getattr(f, extra.name)
    return out
