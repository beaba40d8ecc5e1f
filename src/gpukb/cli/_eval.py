"""``gpukb eval`` and ``gpukb bench``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import typer

from . import app
from ._common import HomeOpt, JsonOpt, emit_json, settings


_SIDE_BY_SIDE = (("must_include", "must_include"), ("refusals correct", "refusals_correct"),
                 ("false refusals", "false_refusals"), ("citations valid", "citations_valid"),
                 ("answers with dangling text", "dangling"), ("median prose words", "median_words"),
                 ("latency p50 ms", "p50_ms"), ("latency p95 ms", "p95_ms"),
                 ("fallback to extractive", "fallbacks"), ("notices", "notices"))


def _side_by_side_markdown(compared: dict) -> list[str]:
    names = list(compared)
    lines = ["", "## Answers side by side (same retrieval)", "",
             "| metric | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, key in _SIDE_BY_SIDE:
        lines.append(f"| {label} | " + " | ".join(str(compared[n].get(key, "")) for n in names) + " |")
    return lines


def _report_markdown(rep, recipes: dict | None, calib: dict | None, compared: dict | None = None,
                     generator: str | None = "extractive") -> str:
    s = rep.summary
    lines = ["# gpukb eval report", "", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "",
             f"## Answers (hybrid retrieval + {generator} answer)", "",
             "| metric | value |", "|---|---|"]
    for k in ("questions", "hit@1", "hit@5", "mrr", "ndcg@5", "must_include", "refusals_correct",
              "false_refusals", "citations_valid", "median_words", "ask_p50_ms", "ask_p95_ms"):
        if k in s:
            lines.append(f"| {k} | {s[k]} |")
    lines += ["", "## Retrieval side by side", "", "| mode | hit@1 | hit@3 | hit@5 | MRR | nDCG@5 |", "|---|---|---|---|---|---|"]
    for mode, m in rep.retrieval_modes.items():
        lines.append(f"| {mode} | {m['hit@1']} | {m['hit@3']} | {m['hit@5']} | {m['mrr']} | {m['ndcg@5']} |")
    lines += ["", "## Per area", "", "| area | n | hit@5 | MRR | must_include | refusals / false refusals |",
              "|---|---|---|---|---|---|"]
    for area, b in rep.per_area.items():
        ref = b.get("refusals_correct", b.get("false_refusals", ""))
        lines.append(f"| {area} | {b['questions']} | {b.get('hit@5', '')} | {b.get('mrr', '')} | "
                     f"{b.get('must_include', '')} | {ref} |")
    if compared:
        lines += _side_by_side_markdown(compared)
    if recipes:
        lines += ["", "## Recipe generation", ""]
        for k, v in recipes.items():
            if not isinstance(v, (list, dict)):
                lines.append(f"- {k}: {v}")
    if calib:
        lines += ["", "## Refusal calibration", "", f"- suggested `answer.refuse_below`: {calib['threshold']} "
                  f"(tune part: refusals correct {calib['refusals_correct']}, false refusals {calib['false_refusals']}"
                  + (f"; test part: {calib['test_refusals_correct']}, {calib['test_false_refusals']}"
                     if "test_refusals_correct" in calib else "") + ")"]
    failed = [r for r in rep.results if (r.expect_refuse and not r.refused) or (not r.expect_refuse and not r.must_include_ok)]
    if failed:
        lines += ["", "## Failures", ""]
        for r in failed:
            why = "not refused" if r.expect_refuse else ("refused" if r.refused else f"missing {r.missing}")
            lines.append(f"- `{r.id}` {r.question!r}: {why}")
    return "\n".join(lines) + "\n"


@app.command("eval")
def eval_cmd(
    json_out: bool = JsonOpt,
    questions: Optional[Path] = typer.Option(None, "--questions", help="Question set (default evals/questions/)."),
    requests: Optional[Path] = typer.Option(None, "--requests", help="Recipe requests (default evals/requests/)."),
    calibrate: bool = typer.Option(False, "--calibrate", help="Also suggest the refusal threshold from this run."),
    no_report: bool = typer.Option(False, "--no-report", help="Do not write evals/reports/."),
    generator: Optional[str] = typer.Option(
        None, "--generator", help="Also answer every question with this generator (llm, openai, ollama, or an "
                                  "installed one) and report its answer metrics next to the extractive ones."),
    home: Optional[Path] = HomeOpt,
) -> None:
    """Measure retrieval (BM25 vs vector vs hybrid), answers, refusals and recipe generation."""
    from ..backends import generator_for
    from ..engine import Engine
    from ..evals import calibrate_refusal, compare_generators, llamaindex_vector_baseline, load_questions, run_eval

    s = settings(home)
    qs = load_questions(questions or s.root / "evals" / "questions")
    engine = Engine(s)
    gen_label = getattr(engine.generator, "label", None) or getattr(engine.generator, "name", "extractive")
    compared = None
    if generator:
        gens = {"extractive": generator_for(s, "extractive")}
        if generator != "extractive":
            gens[generator] = generator_for(s, generator)
    rep = run_eval(engine, qs, baseline=llamaindex_vector_baseline(engine), progress=not json_out)
    if generator:
        compared = compare_generators(engine, qs, gens, progress=not json_out)
    recipes = None
    req_path = requests or s.root / "evals" / "requests"
    if req_path.exists():
        from ..recipes import evaluate_requests

        recipes = evaluate_requests(req_path)
    rep.recipes = recipes
    calib = calibrate_refusal(rep.results) if calibrate else None
    out = rep.to_dict()
    if calib:
        out["calibration"] = calib
    if compared:
        out["generators"] = compared
    if not no_report:
        rdir = s.root / "evals" / "reports"
        rdir.mkdir(parents=True, exist_ok=True)
        (rdir / "eval.json").write_text(json.dumps(out, indent=1, default=str))
        (rdir / "eval.md").write_text(_report_markdown(rep, recipes, calib, compared, gen_label))
    if json_out:
        emit_json({k: v for k, v in out.items() if k != "results"} | {"results": out["results"]})
    else:
        typer.echo(_report_markdown(rep, recipes, calib, compared, gen_label))


@app.command()
def bench(
    json_out: bool = JsonOpt,
    scale: int = typer.Option(1, "--scale", min=1, max=200, help="Multiply the KB this many times (synthetic, perturbed)."),
    home: Optional[Path] = HomeOpt,
    cold_runs: int = typer.Option(3, "--cold-runs", min=0, max=10, help="How many cold `gpukb ask` processes to time."),
    perturb: str = typer.Option("text", "--perturb", help="Scaled copies get new text (text) or only a new section order (order: no re-embedding)."),
    only: str = typer.Option("all", "--only", help="all (default), index (ingest and queries), lint (8,000 documents), robustness (hostile inputs) "
                                          "or serving (first answer after start and peak RSS of the Slack bot and the app)."),
    live: bool = typer.Option(False, "--live", help="Only measure serving during re-ingest vs idle (throughput, p95, errors)."),
    reingests: int = typer.Option(3, "--reingests", min=1, max=100, help="With --live: re-ingests to serve through."),
) -> None:
    """Measure ingest and query speed against baselines run side by side, lint speed
    on 8,000 documents, time and memory on hostile inputs, and (``--live``)
    serving while another process re-ingests."""
    from ..bench import run_bench, run_lint_bench, run_live_bench, run_robustness_bench, run_serving_bench

    from ..errors import UsageError

    if perturb not in ("text", "order"):
        raise UsageError("--perturb must be text or order")
    if only not in ("all", "index", "lint", "robustness", "serving"):
        raise UsageError("--only must be all, index, lint, robustness or serving")
    s = settings(home)
    res: dict = {}
    if live:
        res = run_live_bench(s, reingests=reingests, progress=not json_out)
        name = "bench-live"
    else:
        if only in ("all", "index"):
            res = run_bench(s, scale=scale, cold_runs=cold_runs, progress=not json_out, perturb=perturb)
        if only in ("all", "lint"):
            res["lint"] = run_lint_bench()
        if only in ("all", "robustness"):
            res["robustness"] = run_robustness_bench()
        if only in ("all", "serving"):
            res["serving"] = run_serving_bench(s, cold_runs=cold_runs, progress=not json_out)
        name = f"bench-x{scale}-{perturb}" if only == "all" else f"bench-{only}"
    rdir = s.root / "evals" / "reports"
    rdir.mkdir(parents=True, exist_ok=True)
    (rdir / f"{name}.json").write_text(json.dumps(res, indent=1))
    if json_out:
        emit_json(res)
        return
    for section, values in res.items():
        typer.echo(f"{section}:")
        if isinstance(values, dict):
            for k, v in values.items():
                if isinstance(v, dict):
                    typer.echo(f"  {k}:")
                    for a, b in v.items():
                        typer.echo(f"    {a}: {b}")
                elif isinstance(v, list) and v and isinstance(v[0], dict):
                    typer.echo(f"  {k}:")
                    for item in v:
                        typer.echo("    " + ", ".join(f"{a}={b}" for a, b in item.items()))
                else:
                    typer.echo(f"  {k}: {v}")
        else:
            typer.echo(f"  {values}")
