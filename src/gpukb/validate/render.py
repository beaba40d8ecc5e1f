"""Render a :class:`~gpukb.findings.Report` as a text table, JSON or SARIF 2.1.0."""

from __future__ import annotations

from typing import Any, Iterable

from ..findings import Report

__all__ = ["render_text", "to_sarif", "FORMATS"]

FORMATS = ("text", "json", "sarif")

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _rows(report: Report) -> Iterable[tuple[str, str, str, Any]]:
    for f in report.files:
        for d in f.documents:
            what = "/".join(x for x in (d.kind, d.name) if x) or "-"
            for finding in d.findings:
                yield f.path, str(d.index), what, finding


def render_text(report: Report, *, console: Any = None, title: str = "findings") -> None:
    """Print a table (file, document, kind/name, path, rule, message) and a summary line."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if console is None:
        import shutil

        console = Console(width=max(100, shutil.get_terminal_size((160, 24)).columns), highlight=False)
    rows = list(_rows(report))
    ndocs = sum(len(f.documents) for f in report.files)
    if rows:
        table = Table(show_lines=False, header_style="bold")
        for col in ("file", "doc", "kind/name", "path", "rule", "message"):
            table.add_column(col, overflow="fold")
        style = {"error": "red", "warning": "yellow", "info": "cyan"}
        for path, idx, what, f in rows:
            msg = f.message + (f"\nfix: {f.fix}" if f.fix else "") + (f"\nsee: {f.doc_id}" if f.doc_id else "")
            table.add_row(
                Text(path), idx, Text(what), Text(f.path or "-"), Text(f.rule, style=style.get(f.severity, "")), Text(msg)
            )
        console.print(table)
    infos = sum(1 for *_, f in rows if f.severity == "info")
    summary = (
        f"{report.errors} error(s), {report.warnings} warning(s)"
        + (f", {infos} note(s)" if infos else "")
        + f" in {ndocs} document(s), {len(report.files)} file(s)"
    )
    console.print(Text(summary, style="bold red" if report.errors else ("yellow" if report.warnings else "green")))


def to_sarif(report: Report, *, tool: str = "gpukb", rules: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """A SARIF 2.1.0 log with one result per finding.

    ``rules`` maps rule id -> {"title", "fix", "doc_id", "severity"} for the
    rule metadata (the linter passes its registry).
    """
    from .. import __version__

    rules = rules or {}
    used: dict[str, dict[str, Any]] = {}
    results = []
    for path, idx, what, f in _rows(report):
        if f.rule not in used:
            meta = rules.get(f.rule, {})
            entry: dict[str, Any] = {"id": f.rule, "shortDescription": {"text": meta.get("title") or f.rule}}
            if meta.get("fix"):
                entry["help"] = {"text": meta["fix"]}
            if meta.get("doc_id") or f.doc_id:
                entry["properties"] = {"doc_id": meta.get("doc_id") or f.doc_id}
            used[f.rule] = entry
        uri = "stdin" if path == "<stdin>" else path
        logical = f"documents[{idx}]" + (("." + f.path) if f.path and not f.path.startswith("[") else f.path or "")
        result = {
            "ruleId": f.rule,
            "level": _SARIF_LEVEL.get(f.severity, "note"),
            "message": {"text": f"{what}: {f.message}" + (f" Fix: {f.fix}" if f.fix else "")},
            "locations": [
                {
                    "physicalLocation": {"artifactLocation": {"uri": uri}},
                    "logicalLocations": [{"fullyQualifiedName": logical, "kind": "element"}],
                }
            ],
        }
        line = getattr(f, "line", None)
        if isinstance(line, int):
            result["locations"][0]["physicalLocation"]["region"] = {"startLine": line}
        results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": tool,
                        "version": __version__,
                        "rules": list(used.values()),
                    }
                },
                "results": results,
            }
        ],
    }
