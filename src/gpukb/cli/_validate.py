"""``gpukb validate`` and ``gpukb lint``."""
from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from ..errors import UsageError
from . import app

_FORMAT_HELP = "Output format: text (a table), json (same as --json) or sarif (SARIF 2.1.0 for CI)."


def _format(fmt: str, as_json: bool) -> str:
    fmt = (fmt or "text").lower()
    if fmt not in ("text", "json", "sarif"):
        raise UsageError(f"--format {fmt!r} is not one of: text, json, sarif")
    return "json" if as_json and fmt == "text" else fmt


def _emit(report, fmt: str, *, rules: dict | None = None, tool: str = "gpukb") -> int:
    from ..validate.render import render_text, to_sarif

    if fmt == "json":
        sys.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n")
    elif fmt == "sarif":
        sys.stdout.write(json.dumps(to_sarif(report, tool=tool, rules=rules), ensure_ascii=False, indent=2) + "\n")
    else:
        render_text(report)
    sys.stdout.flush()
    return 1 if report.errors else 0


@app.command("validate")
def validate_cmd(
    files: List[str] = typer.Argument(..., metavar="FILE...", help="Manifest files or directories (*.yaml, *.yml, recursive); '-' reads stdin."),
    crd_dir: List[str] = typer.Option([], "--crd-dir", help="Folder of CustomResourceDefinition YAML to validate custom resources against (repeatable)."),
    crd: List[str] = typer.Option([], "--crd", help="One CustomResourceDefinition file (repeatable)."),
    k8s_version: Optional[str] = typer.Option(None, "--k8s-version", help="Kubernetes minor version of the core schemas, e.g. 1.30 (default: newest shipped)."),
    allow_unknown: bool = typer.Option(False, "--allow-unknown", help="Report kinds without a schema as notes instead of errors."),
    strict: bool = typer.Option(True, "--strict/--no-strict", help="Reject unknown fields (default) or accept them."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    fmt: str = typer.Option("text", "--format", help=_FORMAT_HELP),
) -> int:
    """Validate manifests against Kubernetes and CRD schemas plus API-server/webhook rules. Exit 1 on any error."""
    from ..validate import validate_files

    out = _format(fmt, as_json)
    report = validate_files(
        list(files), k8s_version=k8s_version, crd_dirs=crd_dir, crd_files=crd, allow_unknown=allow_unknown, strict=strict
    )
    return _emit(report, out, tool="gpukb validate")


@app.command("lint")
def lint_cmd(
    files: List[str] = typer.Argument(None, metavar="[FILE...]", help="Manifest files or directories (*.yaml, *.yml, recursive); '-' reads stdin."),
    profile: Optional[str] = typer.Option(None, "--profile", help="Cluster profile YAML (MIG strategy, time-slicing, GPU taints, node labels, schedulers, namespaces)."),
    list_rules: bool = typer.Option(False, "--list-rules", help="List every lint rule (id, severity, what it checks, symptom, fix, KB doc) and exit."),
    as_json: bool = typer.Option(False, "--json", help="Print the report (or the rule list) as JSON."),
    fmt: str = typer.Option("text", "--format", help=_FORMAT_HELP),
) -> int:
    """GPU-specific findings: resources, scheduling, sharing/MIG, gang scheduling, tenancy, autoscaling, storage. Exit 1 on any error."""
    from ..lint import RULES, lint_files

    out = _format(fmt, as_json)
    if list_rules:
        return _list_rules(out)
    if not files:
        raise UsageError("give at least one FILE (or '-' for stdin), or use --list-rules")
    report = lint_files(list(files), profile=profile)
    rules = {r.id: {"title": r.title, "fix": r.fix, "doc_id": r.doc_id, "severity": r.severity} for r in RULES.values()}
    return _emit(report, out, rules=rules, tool="gpukb lint")


def _list_rules(fmt: str) -> int:
    from ..lint import RULES

    rules = sorted(RULES.values(), key=lambda r: (r.family, r.id))
    if fmt in ("json", "sarif"):
        sys.stdout.write(json.dumps({"rules": [r.to_dict() for r in rules]}, ensure_ascii=False, indent=2) + "\n")
        return 0
    from rich.console import Console
    from rich.text import Text

    console = Console(soft_wrap=True, highlight=False)
    for r in rules:
        head = Text(r.id, style="bold")
        head.append(f"  [{r.severity}, {r.family}]  doc: {r.doc_id}" + ("  (needs --profile)" if r.needs_profile else ""))
        console.print(head)
        console.print(Text(f"  checks:  {r.title}"))
        console.print(Text(f"  symptom: {r.symptom}"))
        console.print(Text(f"  fix:     {r.fix}"))
    console.print(Text(f"{len(rules)} rules"))
    return 0
