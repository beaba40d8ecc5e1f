"""``gpukb ingest``, ``gpukb ask``, ``gpukb kb check`` and ``gpukb status``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import BackendError, GpukbError, IndexError_, InputError, UsageError
from ..output import clean
from . import app
from ._common import HomeOpt, JsonOpt, emit_json, printable, settings, stdin_lines

kb_app = typer.Typer(help="Check the curated knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")


@app.command()
def ingest(
    rebuild: bool = typer.Option(False, "--rebuild", help="Re-embed everything instead of reusing unchanged chunks."),
    json_out: bool = JsonOpt,
    home: Optional[Path] = HomeOpt,
    kb: Optional[Path] = typer.Option(None, "--kb", help="Knowledge base folder (default: kb/ of the project)."),
    wait: bool = typer.Option(False, "--wait", help="If another ingest is running on this home, wait for it instead of failing."),
    verify: bool = typer.Option(False, "--verify", help="Check every index file's checksum first (reads the whole "
                                "index) and rebuild if any changed in place."),
    watch: bool = typer.Option(False, "--watch", help="Keep running: re-ingest when a source changes (debounced)."),
    debounce: float = typer.Option(2.0, "--debounce", min=0.0, max=3600.0, help="With --watch: seconds of quiet before re-ingesting."),
    poll: Optional[float] = typer.Option(None, "--poll", min=0.2, max=3600.0,
                                         help="With --watch: poll every N seconds instead of file system events (network volumes)."),
) -> None:
    """Build or update the search index (incremental by content hash). A damaged index is rebuilt."""
    from ..config import load_settings
    from ..ingest import ingest as run

    s = load_settings(home=home, kb_dir=kb)
    if watch:
        _watch(s, json_out, debounce, poll, rebuild)
        return
    summary = run(s, rebuild=rebuild, progress=None if not json_out else False, wait=wait, verify=verify)
    if json_out:
        emit_json(summary)
        return
    _print_summary(summary)


def _print_summary(summary) -> None:
    # team docs left out (summary.warnings) were already logged by the ingest
    if summary.repaired:
        typer.echo(clean(f"The index was damaged ({'; '.join(summary.repaired[:3])}); rebuilt it."))
    if summary.noop:
        typer.echo(f"Index is up to date: {summary.docs} docs, {summary.chunks} chunks ({summary.seconds:.2f}s).")
    else:
        typer.echo(
            f"Indexed {summary.docs} docs into {summary.chunks} chunks: {summary.embedded} embedded, "
            f"{summary.skipped} reused, {summary.removed} docs removed ({summary.seconds:.1f}s) -> {summary.home}")
    if len(summary.sources) > 1 and not summary.noop:
        typer.echo("Sources: " + ", ".join(f"{k} {v} docs" for k, v in summary.sources.items()))
    if summary.collected:
        typer.echo(f"Removed superseded generations: {', '.join(summary.collected)}")


def _watch(s, json_out: bool, debounce: float, poll: Optional[float], rebuild: bool) -> None:
    import signal
    import threading

    from ..errors import GpukbError
    from ..ingest import ingest as run
    from ..live import watch_and_ingest, watched_paths

    if rebuild:
        run(s, rebuild=True, progress=None if not json_out else False)
    stop = threading.Event()

    def _stop(signum, frame) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)

    def done(summary) -> None:
        if json_out:
            emit_json(summary, lines=True)
        elif not summary.noop or summary.collected:
            _print_summary(summary)

    def failed(exc: BaseException) -> None:
        lines = exc.lines() if isinstance(exc, GpukbError) else [str(exc)]
        if json_out:
            sys.stdout.write(json.dumps({"error": " / ".join(lines)}) + "\n")
            sys.stdout.flush()
        for line in lines:
            sys.stderr.write(f"Error: {line}\n")
        sys.stderr.write("The previous index keeps serving; waiting for the next change.\n")

    if not json_out:
        typer.echo(f"Watching {', '.join(str(p) for p in watched_paths(s))} "
                   f"({'polling every %gs' % poll if poll else 'file system events'}, debounce {debounce:g}s). Ctrl-C stops.")
    watch_and_ingest(s, debounce=debounce, poll=poll, stop=stop, on_result=done, on_error=failed)


@app.command()
def status(
    json_out: bool = JsonOpt,
    home: Optional[Path] = HomeOpt,
    verify: bool = typer.Option(False, "--verify", help="Also compare every index file with its sha256 (reads them all)."),
) -> None:
    """Say whether the index is missing, damaged, stale or current (does not load the model).
    Exit 0 only when current."""
    from ..ingest import index_status

    st = index_status(settings(home), deep=verify)
    if json_out:
        emit_json(st)
    else:
        typer.echo(clean(f"{st['state']}: {st['home']}"))
        for problem in st.get("problems", []):
            typer.echo(clean(f"  {problem}"))
        if st["state"] == "damaged":
            typer.echo("run `gpukb ingest` to rebuild it")
    raise typer.Exit(0 if st["state"] == "current" else 1)


def _print_notices(ans) -> None:
    for n in getattr(ans, "notices", None) or []:
        sys.stderr.write(f"note: {clean(str(n))}\n")


def _say(console, text: str) -> None:
    """Print text as is: never read as Rich markup, control characters removed."""
    from rich.text import Text

    console.print(Text(clean(text)), highlight=False)


def _print_answer(ans, console) -> None:
    from rich.markdown import Markdown

    _print_notices(ans)
    if ans.refused:
        _say(console, ans.answer)
        return
    console.print(Markdown(clean(ans.body)))
    console.print()
    for c in ans.citations:
        where = f"{c.path}#{c.anchor}" if c.anchor else c.path
        team = f" [{c.source}]" if getattr(c, "source", "") not in ("", "bundled") else ""
        _say(console, f"[{c.n}] {c.title} — {c.section} ({where}){team}")
        for u in c.source_urls[:3]:
            _say(console, f"     {u}")
    if ans.recipes:
        _say(console, "\nRecipes: " + ", ".join(f"{r['id']} ({r['title']})" for r in ans.recipes))
    if ans.manifest:
        _say(console, f"\nManifest from recipe {ans.manifest['recipe']} "
                      f"({'valid' if ans.manifest['valid'] else 'INVALID'}):")
        _say(console, ans.manifest["yaml"])


@app.command()
def ask(
    question: str = typer.Argument(..., help="The question, or '-' to read one question per line from stdin."),
    json_out: bool = JsonOpt,
    k: int = typer.Option(5, "--k", min=1, max=50, help="Sections to retrieve and cite at most."),
    area: Optional[str] = typer.Option(None, "--area", help="Only search one KB area (e.g. gpu-sharing)."),
    mode: str = typer.Option("hybrid", "--mode", help="Retrieval mode: hybrid, vector or bm25."),
    source: Optional[list[str]] = typer.Option(None, "--source", help="Only answer from this knowledge source (repeatable; see ingest/sources.yaml)."),
    home: Optional[Path] = HomeOpt,
) -> None:
    """Answer a question from the knowledge base, with numbered citations."""
    from ..knowledge import AREAS
    from ..questions import check_question
    from ..retrieval import MODES

    if area is not None and area not in AREAS:
        raise UsageError(f"--area must be one of: {', '.join(AREAS)}")
    if mode not in MODES:
        raise UsageError(f"--mode must be one of: {', '.join(MODES)}")
    from rich.console import Console

    sources = list(source or []) or None
    if sources:
        known = [x.name for x in settings(home).sources if x.enabled]
        unknown = [x for x in sources if x not in known]
        if unknown:
            raise UsageError(f"--source {unknown[0]!r} is not a knowledge source; one of: {', '.join(known)}")
    extra = {"sources": sources} if sources else {}
    console = Console(highlight=False)
    if question != "-":
        q = check_question(question)  # before the model and the index load
        ans = _engine(home).ask(q, k=k, area=area, mode=mode, **extra)
        if json_out:
            emit_json(ans)
        else:
            _print_answer(ans, console)
        return
    failed = 0
    engine = None
    for n, line, problem in stdin_lines():
        q = ""
        try:
            if problem is not None:
                raise InputError(f"line {n}: {problem}")
            if not line.strip():
                continue
            q = check_question(line)
            if engine is None:
                engine = _engine(home)
            ans = engine.ask(q, k=k, area=area, mode=mode, **extra)
        except (IndexError_, BackendError):
            raise  # the index or the model is unusable: no later line can do better
        except Exception as exc:  # one bad line never ends the batch
            if not isinstance(exc, GpukbError):
                if os.environ.get("GPUKB_DEBUG"):
                    raise
                exc = GpukbError(f"internal error ({type(exc).__name__}: {printable(str(exc), 120)})")
            failed += 1
            if json_out:
                emit_json({"question": q or printable(line or ""), "line": n, "error": str(exc)}, lines=True)
            else:
                sys.stderr.write(clean(f"Error: {exc}") + "\n")
            continue
        if json_out:
            emit_json(ans, lines=True)
        else:
            from rich.text import Text

            console.rule(Text(clean(q)))
            _print_answer(ans, console)
    if failed:
        raise typer.Exit(1)


def _engine(home: Optional[Path]):
    from ..engine import Engine

    return Engine(settings(home))


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
    team = _team_reports(s) if s.team_sources else []
    team_ok = all(not r.problems for r in team)
    if json_out:
        emit_json({**res.to_dict(), "ok": res.ok and team_ok, "sources": [r.to_dict() for r in team]})
    else:
        for p in res.problems:
            typer.echo(clean(f"{p.path}: {p.field}: {p.message}"))
        for p in res.warnings:
            typer.echo(clean(f"warning: {p.path}: {p.field}: {p.message}"))
        if res.entries_by_component:
            typer.echo("troubleshooting entries by component:")
            width = max(map(len, res.entries_by_component))
            for comp, n in res.entries_by_component.items():
                typer.echo(f"  {comp:<{width}}  {n}")
        typer.echo(f"{res.docs} docs, {res.sections} sections, {len(res.problems)} problem(s), "
                   f"{len(res.warnings)} warning(s), {sum(res.entries_by_component.values())} troubleshooting entries")
        for r in team:
            typer.echo(f"\nsource {r.name} ({r.path}): {r.docs} docs" + (f"; trust: {r.trust}" if r.trust else ""))
            for p in r.notes:
                typer.echo(f"  {p.path}: {p.message}")
            for p in r.problems:
                typer.echo(f"  {p.path}: {p.field}: {p.message} (left out of the index)")
            for p in r.warnings:
                typer.echo(f"  warning: {p.path}: {p.field}: {p.message}")
            typer.echo(f"  {len(r.problems)} problem(s), {len(r.warnings)} warning(s), "
                       f"{len(r.notes)} override(s)/extension(s)")
    raise typer.Exit(0 if res.ok and team_ok else 1)


def _team_reports(s) -> list:
    """Team sources as the ingest sees them: what each doc lacks, what it overrides."""
    from ..sources import load_knowledge

    return [r for r in load_knowledge(s, strict=False).reports if r.kind == "team"]
