"""Output formats for check reports: a text table, JSON, SARIF 2.1.0, and the
Markdown rule reference (``docs/lint-rules.md``).

Everything printed passes through :func:`clean`: terminal control characters
from manifest values never reach the terminal.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from .findings import Report

__all__ = ["render_text", "to_sarif", "rules_markdown", "clean", "short", "json_text", "FORMATS"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_C1 = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def clean(text: str) -> str:
    """``text`` without terminal control characters (escape sequences, bells)."""
    return _CONTROL.sub("\ufffd", text)


def json_text(obj: Any, *, indent: int | None = 2) -> str:
    """JSON with non-ASCII kept readable, but C1 control characters (which some
    terminals obey like escape sequences) and line separators escaped."""
    text = json.dumps(obj, ensure_ascii=False, indent=indent, default=str)
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def short(value: Any, limit: int = 60) -> str:
    """A one-line quote of ``value`` for a message, at most about ``limit``
    characters. Only the part shown is ever formatted, so a value of any size
    (a huge string, a deeply aliased tree) costs no more than ``limit``."""
    out: list[str] = []
    room = [max(8, limit)]

    def put(text: str) -> bool:
        if room[0] <= 0:
            return False
        if len(text) > room[0]:
            out.append(text[: room[0]])
            room[0] = 0
            return False
        out.append(text)
        room[0] -= len(text)
        return True

    def walk(v: Any) -> bool:
        if isinstance(v, str):
            return put(repr(v[: room[0] + 2]) if len(v) > room[0] else repr(v))
        if isinstance(v, bool) or v is None or isinstance(v, float):
            return put(repr(v))
        if isinstance(v, int):
            return put(repr(v) if v.bit_length() < 200 else f"<{v.bit_length()}-bit integer>")
        if isinstance(v, dict):
            if not put("{"):
                return False
            for n, (k, x) in enumerate(v.items()):
                if (n and not put(", ")) or not walk(k) or not put(": ") or not walk(x):
                    return False
            return put("}")
        if isinstance(v, (list, tuple)):
            if not put("["):
                return False
            for n, x in enumerate(v):
                if (n and not put(", ")) or not walk(x):
                    return False
            return put("]")
        return put(f"<{type(v).__name__}>")

    complete = walk(value)
    text = clean("".join(out)).replace("\n", "\\n")
    return text if complete else text[: max(0, limit - 3)] + "..."

FORMATS = ("text", "json", "sarif")
TABLE_ROWS = 300  # more findings than this print one line each instead of a table

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

        console = Console(width=max(80, shutil.get_terminal_size((160, 24)).columns), highlight=False)
    rows = list(_rows(report))
    ndocs = sum(len(f.documents) for f in report.files)
    if len(rows) > TABLE_ROWS:
        # A table measures every cell before printing; past a few hundred rows
        # one line per finding is as readable and takes milliseconds.
        write = console.file.write
        for path, idx, what, f in rows:
            line = f"{path}[{idx}] {what} {f.path or '-'}: {f.severity} {f.rule}: {f.message}"
            write(clean(line).replace("\n", " ") + "\n")
        rows_printed = True
    else:
        rows_printed = False
    if rows and not rows_printed:
        table = Table(show_lines=False, header_style="bold", expand=False)
        # Ids never wrap (people search for them); free text folds.
        table.add_column("file", overflow="fold", ratio=2)
        table.add_column("doc", no_wrap=True)
        table.add_column("kind/name", overflow="fold", ratio=2)
        table.add_column("path", overflow="fold", ratio=3)
        table.add_column("rule", no_wrap=True)
        table.add_column("message", overflow="fold", ratio=5)
        style = {"error": "red", "warning": "yellow", "info": "cyan"}
        for path, idx, what, f in rows:
            msg = f.message + (f"\nfix: {f.fix}" if f.fix else "") + (f"\nsee: {f.doc_id}" if f.doc_id else "")
            table.add_row(Text(clean(path)), idx, Text(clean(what)), Text(clean(f.path or "-")),
                          Text(f.rule, style=style.get(f.severity, "")), Text(clean(msg)))
        console.print(table)
    for note in report.notices:
        console.print(Text("note: " + clean(note), style="cyan"))
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
    from . import __version__

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


def rules_markdown(rules: Iterable[Any]) -> str:
    """The rule reference as Markdown, grouped by category then family."""
    rules = list(rules)
    lines = [
        "# gpukb rules",
        "",
        "Every check gpukb runs on a manifest is a rule in one registry (`src/gpukb/rules/`, one module per family).",
        "`gpukb validate` runs the schemas and the **admission** rules (what the API server or an operator's webhook",
        "rejects). `gpukb lint` runs the schemas, the admission rules and the **advice** rules (what is accepted but",
        "leaves GPU pods Pending, wastes GPUs or lets tenants interfere), so one command is enough.",
        "`gpukb lint --list-rules [--json]` prints this table; `gpukb lint --list-rules --format markdown` regenerates",
        "this file. Exit code 1 when any finding reaches `--fail-on` (default `error`).",
        "",
        "Rules marked *profile* need facts about the cluster (`--profile cluster.yaml`; the format is in the README).",
        "Without a profile they are skipped, and the output says which were skipped.",
        "",
        "Schema findings use the ids `schema`, `unknown-kind`, `missing-kind`, `not-an-object` and `yaml-parse`;",
        "`duplicate-key` marks a key given twice in one mapping (the API server and kubectl reject it), and",
        "`list-limit` a `kind: List` nested too deep or too long to check.",
    ]
    for cat in ("admission", "advice"):
        fams = sorted({r.family for r in rules if r.category == cat})
        for fam in fams:
            lines += ["", f"## {cat}: {fam}", "",
                      "| id | severity | checks | symptom (as the cluster reports it) | fix | KB doc |",
                      "| --- | --- | --- | --- | --- | --- |"]
            for r in sorted((r for r in rules if r.category == cat and r.family == fam), key=lambda r: r.id):
                sev = r.severity + (", *profile*" if r.needs_profile else "")
                cells = [f"`{r.id}`", sev, r.title, f"`{r.symptom}`" if r.symptom else "", r.fix,
                         f"`{r.doc_id}`" if r.doc_id else ""]
                lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
