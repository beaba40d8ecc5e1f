"""``gpukb ingest``, ``gpukb ask``, ``gpukb kb check`` and ``gpukb status``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import GpukbError, UsageError
from . import app
from ._common import HomeOpt, JsonOpt, emit_json, settings

kb_app = typer.Typer(help="Check the curated knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")


@app.command()
def ingest(
    rebuild: bool = typer.Option(False, "--rebuild", help="Re-embed everything instead of reusing unchanged chunks."),
    json_out: bool = JsonOpt,
    home: Optional[Path] = HomeOpt,
    kb: Optional[Path] = typer.Option(None, "--kb", help="Knowledge base folder (default: kb/ of the project)."),
) -> None:
    """Build or update the search index (incremental by content hash)."""
    from ..config import load_settings
    from ..ingest import ingest as run

    s = load_settings(home=home, kb_dir=kb)
    summary = run(s, rebuild=rebuild, progress=None if not json_out else False)
    if json_out:
        emit_json(summary)
        return
    if summary.noop:
        typer.echo(f"Index is up to date: {summary.docs} docs, {summary.chunks} chunks ({summary.seconds:.2f}s).")
    else:
        typer.echo(
            f"Indexed {summary.docs} docs into {summary.chunks} chunks: {summary.embedded} embedded, "
            f"{summary.skipped} reused, {summary.removed} docs removed ({summary.seconds:.1f}s) -> {summary.home}")


@app.command()
def status(json_out: bool = JsonOpt, home: Optional[Path] = HomeOpt) -> None:
    """Say whether the index is missing, stale or current (does not load the model)."""
    from ..ingest import index_status

    st = index_status(settings(home))
    if json_out:
        emit_json(st)
    else:
        typer.echo(f"{st['state']}: {st['home']}")
    raise typer.Exit(0 if st["state"] == "current" else 1)


def _print_answer(ans, console) -> None:
    from rich.markdown import Markdown

    if ans.refused:
        console.print(ans.answer)
        return
    console.print(Markdown(ans.body))
    console.print()
    for c in ans.citations:
        where = f"{c.path}#{c.anchor}" if c.anchor else c.path
        console.print(f"[{c.n}] {c.title} — {c.section} ({where})", markup=False, highlight=False)
        for u in c.source_urls[:3]:
            console.print(f"     {u}", markup=False, highlight=False)
    if ans.recipes:
        console.print("\nRecipes: " + ", ".join(f"{r['id']} ({r['title']})" for r in ans.recipes),
                      markup=False, highlight=False)
    if ans.manifest:
        console.print(f"\nManifest from recipe {ans.manifest['recipe']} "
                      f"({'valid' if ans.manifest['valid'] else 'INVALID'}):", markup=False)
        console.print(ans.manifest["yaml"], markup=False, highlight=False)


@app.command()
def ask(
    question: str = typer.Argument(..., help="The question, or '-' to read one question per line from stdin."),
    json_out: bool = JsonOpt,
    k: int = typer.Option(5, "--k", min=1, max=50, help="Sections to retrieve and cite at most."),
    area: Optional[str] = typer.Option(None, "--area", help="Only search one KB area (e.g. gpu-sharing)."),
    mode: str = typer.Option("hybrid", "--mode", help="Retrieval mode: hybrid, vector or bm25."),
    home: Optional[Path] = HomeOpt,
) -> None:
    """Answer a question from the knowledge base, with numbered citations."""
    from ..engine import Engine
    from ..knowledge import AREAS
    from ..retrieval import MODES

    if area is not None and area not in AREAS:
        raise UsageError(f"--area must be one of: {', '.join(AREAS)}")
    if mode not in MODES:
        raise UsageError(f"--mode must be one of: {', '.join(MODES)}")
    from rich.console import Console

    engine = Engine(settings(home))
    console = Console()
    if question != "-":
        ans = engine.ask(question, k=k, area=area, mode=mode)
        if json_out:
            emit_json(ans)
        else:
            _print_answer(ans, console)
        return
    failed = 0
    for line in sys.stdin:
        q = line.strip()
        if not q:
            continue
        try:
            ans = engine.ask(q, k=k, area=area, mode=mode)
        except GpukbError as exc:
            failed += 1
            if json_out:
                sys.stdout.write(json.dumps({"question": q, "error": str(exc)}) + "\n")
            else:
                sys.stderr.write(f"Error: {exc}\n")
            continue
        if json_out:
            emit_json(ans, lines=True)
        else:
            console.rule(q)
            _print_answer(ans, console)
    if failed:
        raise typer.Exit(1)


@kb_app.command("check")
def kb_check(
    json_out: bool = JsonOpt,
    kb: Optional[Path] = typer.Option(None, "--kb", help="Knowledge base folder (default: kb/ of the project)."),
    no_validate: bool = typer.Option(False, "--no-validate", help="Only parse YAML blocks; do not schema-validate them."),
    max_age_days: int = typer.Option(365, "--max-age-days", min=1, help="Warn about docs reviewed longer ago than this."),
) -> None:
    """Check front matter, ids, links, sources, empty sections, YAML blocks,
    reviewed dates and applies_to versions; count troubleshooting entries."""
    from ..config import load_settings
    from ..knowledge import check_kb

    s = load_settings(kb_dir=kb)
    res = check_kb(s.kb_dir, validate_manifests=not no_validate, max_age_days=max_age_days)
    if json_out:
        emit_json(res)
    else:
        for p in res.problems:
            typer.echo(f"{p.path}: {p.field}: {p.message}")
        for p in res.warnings:
            typer.echo(f"warning: {p.path}: {p.field}: {p.message}")
        if res.entries_by_component:
            typer.echo("troubleshooting entries by component:")
            width = max(map(len, res.entries_by_component))
            for comp, n in res.entries_by_component.items():
                typer.echo(f"  {comp:<{width}}  {n}")
        typer.echo(f"{res.docs} docs, {res.sections} sections, {len(res.problems)} problem(s), "
                   f"{len(res.warnings)} warning(s), {sum(res.entries_by_component.values())} troubleshooting entries")
    raise typer.Exit(0 if res.ok else 1)
