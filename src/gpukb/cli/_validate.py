"""``gpukb validate`` and ``gpukb lint``."""
from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from ..errors import UsageError
from . import app

_FORMAT_HELP = "Output format: text (a table), json (same as --json) or sarif (SARIF 2.1.0 for CI)."
_FAIL_ON_HELP = "Exit 1 when a finding has this severity or worse: error (default) or warning."


def _format(fmt: str, as_json: bool, allowed: tuple[str, ...] = ("text", "json", "sarif")) -> str:
    fmt = (fmt or "text").lower()
    if fmt not in allowed:
        raise UsageError(f"--format {fmt!r} is not one of: {', '.join(allowed)}")
    return "json" if as_json and fmt == "text" else fmt


def _failed(report, fail_on: str) -> bool:
    fail_on = (fail_on or "error").lower()
    if fail_on not in ("error", "warning"):
        raise UsageError(f"--fail-on {fail_on!r} is not one of: error, warning")
    return bool(report.errors or (fail_on == "warning" and report.warnings))


def _rule_meta() -> dict:
    from ..rules import RULES

    return {r.id: {"title": r.title, "fix": r.fix, "doc_id": r.doc_id, "severity": r.severity} for r in RULES.values()}


def _emit(report, fmt: str, *, rules: dict | None = None, tool: str = "gpukb", fail_on: str = "error") -> int:
    from ..output import json_text, render_text, to_sarif

    if fmt == "json":
        sys.stdout.write(json_text(report.to_dict()) + "\n")
    elif fmt == "sarif":
        sys.stdout.write(json_text(to_sarif(report, tool=tool, rules=rules)) + "\n")
    else:
        render_text(report)
    sys.stdout.flush()
    return 1 if _failed(report, fail_on) else 0


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
    fail_on: str = typer.Option("error", "--fail-on", help=_FAIL_ON_HELP),
) -> int:
    """Validate manifests: Kubernetes and CRD schemas plus admission rules (what the API server or a webhook rejects).
    Exit 1 on any error. `gpukb lint` runs this and the GPU advice rules."""
    from ..validate import validate_files

    out = _format(fmt, as_json)
    _failed(__import__("gpukb").Report(), fail_on)  # reject a bad --fail-on before any work
    report = validate_files(
        list(files), k8s_version=k8s_version, crd_dirs=crd_dir, crd_files=crd, allow_unknown=allow_unknown, strict=strict
    )
    return _emit(report, out, rules=_rule_meta(), tool="gpukb validate", fail_on=fail_on)


@app.command("lint")
def lint_cmd(
    files: List[str] = typer.Argument(None, metavar="[FILE...]", help="Manifest files or directories (*.yaml, *.yml, recursive); '-' reads stdin."),
    profile: Optional[str] = typer.Option(
        None, "--profile",
        help="Cluster profile YAML: MIG strategy, time-slicing, GPU taints, node labels, schedulers, namespaces "
             "(format in the README). Rules that need one are skipped without it, and the output says which."),
    crd_dir: List[str] = typer.Option([], "--crd-dir", help="Folder of CustomResourceDefinition YAML for custom resources (repeatable)."),
    crd: List[str] = typer.Option([], "--crd", help="One CustomResourceDefinition file (repeatable)."),
    k8s_version: Optional[str] = typer.Option(None, "--k8s-version", help="Kubernetes minor version of the core schemas, e.g. 1.30 (default: newest shipped)."),
    list_rules: bool = typer.Option(False, "--list-rules", help="List every rule (id, category, severity, what it checks, symptom, fix, KB doc) and exit."),
    as_json: bool = typer.Option(False, "--json", help="Print the report (or the rule list) as JSON."),
    fmt: str = typer.Option("text", "--format", help=_FORMAT_HELP + " With --list-rules also markdown."),
    fail_on: str = typer.Option("error", "--fail-on", help=_FAIL_ON_HELP),
) -> int:
    """Everything that checks a GPU manifest in one run: schemas, admission rules and GPU advice (resources,
    scheduling, sharing/MIG, gang scheduling, tenancy, autoscaling, storage, inference). Exit 1 on any error."""
    from ..lint import lint_files

    out = _format(fmt, as_json, ("text", "json", "sarif", "markdown") if list_rules else ("text", "json", "sarif"))
    if list_rules:
        return _list_rules(out)
    if not files:
        raise UsageError("give at least one FILE (or '-' for stdin), or use --list-rules")
    _failed(__import__("gpukb").Report(), fail_on)
    report = lint_files(list(files), profile=profile, k8s_version=k8s_version, crd_dirs=crd_dir, crd_files=crd)
    return _emit(report, out, rules=_rule_meta(), tool="gpukb lint", fail_on=fail_on)


def _list_rules(fmt: str) -> int:
    from ..rules import RULES

    rules = sorted(RULES.values(), key=lambda r: (r.category, r.family, r.id))
    if fmt == "markdown":
        from ..output import rules_markdown

        sys.stdout.write(rules_markdown(rules))
        return 0
    if fmt in ("json", "sarif"):
        sys.stdout.write(json.dumps({"rules": [r.to_dict() for r in rules]}, ensure_ascii=False, indent=2) + "\n")
        return 0
    from rich.console import Console
    from rich.text import Text

    console = Console(soft_wrap=True, highlight=False)
    for r in rules:
        head = Text(r.id, style="bold")
        head.append(f"  [{r.category}, {r.severity}, {r.family}]  doc: {r.doc_id or '-'}"
                    + ("  (needs --profile)" if r.needs_profile else ""))
        console.print(head)
        console.print(Text(f"  checks:  {r.title}"))
        console.print(Text(f"  symptom: {r.symptom}"))
        console.print(Text(f"  fix:     {r.fix}"))
    console.print(Text(f"{len(rules)} rules"))
    return 0
