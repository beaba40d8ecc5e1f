"""Serving while re-ingesting: LiveEngine swaps, leases, cleanup, --watch.

Fast tests use the deterministic hash embedder and embedded Chroma. The slow
test runs several processes against a real `chroma run` server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO, make_hash_embedder, write_doc
from gpukb.config import load_settings
from gpukb.index import current_generation
from gpukb.ingest import ingest
from gpukb.leases import FileLeases, collect_generations
from gpukb.live import LiveEngine, current_stamp, watch_and_ingest



def _section_keys(home: Path, generation: str) -> set[str]:
    """The citable section keys of one generation."""
    from gpukb.meta import META_FILE, Sections

    return set(Sections(home / "generations" / generation / META_FILE))

def _bump(root: Path, n: int) -> None:
    """A doc whose section heading changes with every re-ingest."""
    write_doc(root, "scheduling", "rotating", id="sc-rotating", title="Rotating notes",
              intro="Notes that change with every ingest.",
              body=f"## Marker {n} quokka steps\n\nQuokka marker step {n}: cordon the node and wait.\n")


def _serving(settings, **kw):
    return settings.with_config(answer={"refuse_below": -1.0}, serving=kw) if kw else \
        settings.with_config(answer={"refuse_below": -1.0})


def test_live_engine_follows_a_reingest_without_reloading(tiny_settings, tiny_root):
    emb = make_hash_embedder()
    _bump(tiny_root, 1)
    g1 = ingest(tiny_settings, embedder=emb).generation
    live = LiveEngine(_serving(tiny_settings), embedder=emb)
    try:
        a1 = live.ask("quokka marker step cordon")
        assert a1.generation == g1 and live.generation == g1
        assert a1.citations and a1.citations[0].anchor == "marker-1-quokka-steps"
        assert live.refresh() is False  # nothing published: one stat, no swap
        _bump(tiny_root, 2)
        g2 = ingest(tiny_settings, embedder=emb).generation
        a2 = live.ask("quokka marker step cordon")
        assert a2.generation == g2 != g1 and live.swaps == 1
        assert a2.citations[0].anchor == "marker-2-quokka-steps"
        assert live.engine.embedder is emb  # the model was not loaded again
        assert "sc-rotating#marker-1-quokka-steps" in live.sections(g1)  # the previous one, for showing sources
        assert "sc-rotating#marker-2-quokka-steps" in live.sections(g2)
    finally:
        live.close()


def test_a_generation_that_cannot_be_opened_is_not_served(tiny_settings, tiny_root):
    emb = make_hash_embedder()
    g1 = ingest(tiny_settings, embedder=emb).generation
    live = LiveEngine(_serving(tiny_settings), embedder=emb)
    try:
        _bump(tiny_root, 1)
        g2 = ingest(tiny_settings, embedder=emb).generation
        shutil.rmtree(tiny_settings.home / "generations" / g2 / "bm25")  # damaged after publishing
        ans = live.ask("nvidia.com/gpu limits")
        assert ans.generation == g1 and ans.citations  # still served by the old generation
        assert current_generation(tiny_settings.home) == g2
    finally:
        live.close()


def test_cleanup_respects_leases_and_the_grace_period(tiny_settings, tiny_root):
    emb = make_hash_embedder()
    s = tiny_settings.with_config(serving={"lease_seconds": 60, "grace_seconds": 300})
    gens = []
    for n in range(3):
        _bump(tiny_root, n)
        gens.append(ingest(s, embedder=emb).generation)
    gdir = s.home / "generations"
    # without leases: the current and the previous generation are kept
    assert sorted(p.name for p in gdir.iterdir()) == sorted(gens[1:])

    lease = FileLeases(s.home, replica="replica-a")
    lease.renew({gens[1]})
    _bump(tiny_root, 3)
    gens.append(ingest(s, embedder=emb).generation)
    assert {p.name for p in gdir.iterdir()} == set(gens[1:])  # gens[1] is leased
    # the lease expires: gens[1] goes
    assert collect_generations(s, now=time.time() + 61) == [gens[1]]
    # a lease renewed, but past the grace period since it was superseded: it goes anyway
    lease.renew({gens[2]})
    _bump(tiny_root, 4)
    gens.append(ingest(s, embedder=emb).generation)
    assert gens[2] in {p.name for p in gdir.iterdir()}
    lease.renew({gens[2]})
    assert collect_generations(s, now=time.time() + 301) == [gens[2]]
    lease.release()
    assert not list((s.home / "leases").glob("*.json"))


def test_live_engine_holds_a_lease(tiny_settings):
    emb = make_hash_embedder()
    g1 = ingest(tiny_settings, embedder=emb).generation
    live = LiveEngine(_serving(tiny_settings), embedder=emb)
    try:
        live.ask("nvidia.com/gpu")
        assert FileLeases(tiny_settings.home).holders().get(g1, 0) > time.time() - 5
    finally:
        live.close()
    assert g1 not in FileLeases(tiny_settings.home).holders()


@pytest.mark.parametrize("poll", [0.2, None], ids=["polling", "watchfiles"])
def test_watch_reingests_on_change(tiny_settings, tiny_root, poll):
    emb = make_hash_embedder()
    embed = emb.embed_documents
    in_first, go_on = threading.Event(), threading.Event()

    def first_ingest_waits(texts, progress=False):
        in_first.set()
        go_on.wait(30)
        return embed(texts, progress=progress)

    emb.embed_documents = first_ingest_waits
    results: list = []
    errors: list = []
    stop = threading.Event()
    t = threading.Thread(target=watch_and_ingest, args=(tiny_settings,), daemon=True,
                         kwargs=dict(debounce=0.3, poll=poll, stop=stop, embedder=emb, on_result=results.append,
                                     on_error=errors.append, collect_every=3600))
    t.start()
    try:
        # a change while the first ingest runs is not lost
        assert in_first.wait(30)
        _bump(tiny_root, 99)
        go_on.set()
        deadline = time.time() + 30
        while len(results) < 2 and time.time() < deadline:
            time.sleep(0.1)
        assert len(results) == 2 and not results[0].noop
        assert "sc-rotating" in results[0].added_docs + results[1].added_docs
        time.sleep(0.5)  # let the watcher start
        # a burst of writes is one re-ingest once quiet (debounced)
        for n in range(3):
            _bump(tiny_root, n)
            time.sleep(0.05)
        deadline = time.time() + 30
        while len(results) < 3 and time.time() < deadline:
            time.sleep(0.1)
        assert len(results) >= 3 and results[-1].changed_docs == ["sc-rotating"]
        # a broken doc is reported; the previous generation keeps serving
        bad = tiny_root / "kb" / "storage" / "bad.md"
        bad.write_text("no front matter\n")
        deadline = time.time() + 30
        while not errors and time.time() < deadline:
            time.sleep(0.1)
        assert errors and current_generation(tiny_settings.home) == results[-1].generation
    finally:
        stop.set()
        t.join(timeout=30)
    assert not t.is_alive()


def test_threads_never_mix_generations(tiny_settings, tiny_root):
    """Questions from threads while the main thread re-ingests (embedded Chroma)."""
    emb = make_hash_embedder()
    _bump(tiny_root, 0)
    first = ingest(tiny_settings, embedder=emb)
    live = LiveEngine(_serving(tiny_settings), embedder=emb)
    keys = {first.generation: set(live.sections(first.generation))}
    answers: list = []
    failures: list = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            try:
                a = live.ask("quokka marker step cordon the node", k=3)
                answers.append((a.generation, [f"{c.doc_id}#{c.anchor}" for c in a.citations]))
            except Exception as exc:  # noqa: BLE001 - the test counts every failure
                failures.append(repr(exc))

    threads = [threading.Thread(target=client) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for n in range(1, 5):
            _bump(tiny_root, n)
            g = ingest(tiny_settings, embedder=emb).generation
            keys[g] = _section_keys(tiny_settings.home, g)
            time.sleep(0.3)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        live.close()
    assert not failures, failures[:3]
    assert len({g for g, _ in answers}) >= 2
    for g, cites in answers:
        assert set(cites) <= keys[g], (g, cites)


def test_current_stamp_changes_on_publish(tiny_settings, tiny_root):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    before = current_stamp(tiny_settings.home)
    _bump(tiny_root, 9)
    ingest(tiny_settings, embedder=emb)
    assert current_stamp(tiny_settings.home) != before


# -- many processes against a real Chroma server -------------------------------------------

WORKER = r"""
import json, os, sys, time
sys.path.insert(0, os.environ["GPUKB_TESTS"])
from conftest import make_hash_embedder
from gpukb.config import load_settings
from gpukb.live import LiveEngine

s = load_settings().with_config(answer={"refuse_below": -1.0})
live = LiveEngine(s, embedder=make_hash_embedder())
live.start_heartbeat(1.0)
n = int(sys.argv[1])
qs = ["quokka marker step cordon the node", "request nvidia.com/gpu in limits", "ReadWriteMany shared dataset",
      "GPU quota requests.nvidia.com/gpu"]
with open(sys.argv[2], "w") as out:
    print("ready", flush=True)
    for i in range(n):
        t = time.perf_counter()
        try:
            a = live.ask(qs[i % len(qs)], k=3)
            rec = {"gen": a.generation, "cites": [f"{c.doc_id}#{c.anchor}" for c in a.citations],
                   "ms": 1000 * (time.perf_counter() - t)}
        except Exception as exc:
            rec = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        out.write(json.dumps(rec) + "\n")
        out.flush()
live.close()
"""


@pytest.mark.slow
def test_processes_never_mix_generations_against_a_chroma_server(tmp_path, tiny_root):
    from contextlib import ExitStack

    from conftest import chroma_server

    server = ExitStack()
    url = server.enter_context(chroma_server(tmp_path / "srv"))
    workers: list[subprocess.Popen] = []
    try:
        # short leases and grace so cleanup really runs while the workers serve
        s = load_settings(home=tmp_path / "home", root=tiny_root, chroma_url=url).with_config(
            serving={"lease_seconds": 5, "grace_seconds": 20})
        emb = make_hash_embedder()
        _bump(tiny_root, 0)
        first = ingest(s, embedder=emb)
        keys = {first.generation: _section_keys(s.home, first.generation)}
        script = tmp_path / "worker.py"
        script.write_text(WORKER)
        env = {**os.environ, "GPUKB_HOME": str(s.home), "GPUKB_ROOT": str(tiny_root), "GPUKB_CHROMA_URL": url,
               "GPUKB_TESTS": str(REPO / "tests"), "PYTHONPATH": str(REPO / "src")}
        per_worker, n_workers = 180, 3
        outs = [tmp_path / f"w{i}.jsonl" for i in range(n_workers)]
        for i in range(n_workers):
            workers.append(subprocess.Popen([sys.executable, str(script), str(per_worker), str(outs[i])], env=env,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for w in workers:
            assert w.stdout is not None and w.stdout.readline().strip() == "ready"
        reingests = 0
        collected: list[str] = []
        n = 1
        while any(w.poll() is None for w in workers) or reingests < 3:
            _bump(tiny_root, n)
            n += 1
            res = ingest(s, embedder=emb)
            reingests += 1
            collected += res.collected
            keys[res.generation] = _section_keys(s.home, res.generation)
            time.sleep(0.5)
            assert reingests < 400, "workers did not finish"
        for w in workers:
            assert w.wait(timeout=120) == 0, w.stderr.read() if w.stderr else ""
        records = [json.loads(line) for o in outs for line in o.read_text().splitlines()]
        errors = [r for r in records if "error" in r]
        assert len(records) == per_worker * n_workers >= 500
        assert not errors, errors[:5]
        served = {r["gen"] for r in records}
        assert len(served) >= 2, "answers came from one generation only"
        for r in records:
            assert set(r["cites"]) <= keys[r["gen"]], r
        assert collected, "no superseded generation was cleaned up"
        ms = sorted(r["ms"] for r in records)
        print(f"\n{len(records)} answers from {n_workers} processes during {reingests} re-ingests, "
              f"{len(served)} generations served, {len(collected)} collected, errors {len(errors)}, "
              f"p50 {ms[len(ms) // 2]:.1f} ms, p95 {ms[int(0.95 * len(ms))]:.1f} ms")
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
        server.close()
