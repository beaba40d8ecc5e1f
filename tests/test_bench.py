import os

import pytest

from gpukb.bench import scaled_kb
from gpukb.chunking import chunk_docs
from gpukb.knowledge import load_kb


def test_scaled_kb_copies_with_unique_ids(tiny_root, tmp_path):
    n = scaled_kb(tiny_root / "kb", tmp_path / "kb", 3)
    assert n == 9
    docs = load_kb(tmp_path / "kb")  # raises on duplicate ids or broken front matter
    assert len({d.id for d in docs}) == 9


def test_text_perturbation_makes_new_texts_and_order_keeps_them(tiny_root, tmp_path):
    cfg = {"max_tokens": 230, "overlap_tokens": 20}
    _, base = chunk_docs(load_kb(tiny_root / "kb"), cfg)
    scaled_kb(tiny_root / "kb", tmp_path / "t" / "kb", 2, perturb="text")
    scaled_kb(tiny_root / "kb", tmp_path / "o" / "kb", 2, perturb="order")
    _, text = chunk_docs(load_kb(tmp_path / "t" / "kb"), cfg)
    _, order = chunk_docs(load_kb(tmp_path / "o" / "kb"), cfg)
    distinct = lambda cs: len({c.sha for c in cs})
    assert distinct(order) == distinct(base)
    assert distinct(text) > distinct(base)


@pytest.mark.slow
def test_serving_bench_starts_the_bot_and_the_app_and_gets_answers(tiny_root, tmp_path):
    """``gpukb bench --only serving`` on a three-doc index (real model): the bot
    answers a signed mention through a local Web API, the app answers in
    Chromium (or says why it could not run), beside a cold ``gpukb ask``."""
    from gpukb.bench import run_serving_bench
    from gpukb.config import load_settings
    from gpukb.errors import IndexMissingError
    from gpukb.ingest import ingest

    qdir = tiny_root / "evals" / "questions"
    qdir.mkdir(parents=True)
    qdir.joinpath("q.yaml").write_text(
        "- {id: q1, area: multi-tenancy, question: how do I cap a namespace's GPUs with a quota, "
        "expected_docs: [mt-quota]}\n"
        "- {id: q2, area: storage, question: how do pods on many nodes share one dataset, expected_docs: [st-rwx]}\n")
    s = load_settings(home=tmp_path / "home", root=tiny_root)
    with pytest.raises(IndexMissingError, match="gpukb ingest"):
        run_serving_bench(s)
    ingest(s)
    res = run_serving_bench(s, cold_runs=1, timeout=120)

    assert res["question"] and res["cold_ask_runs"] == 1 and res["cold_ask_s_median"] > 0
    bot = res["bot"]
    assert "error" not in bot, bot
    assert bot["answers"] == bot["questions"] == 3 and bot["apologies"] == 0
    assert "nvidia.com/gpu" in bot["first_answer_text"]
    assert bot["first_answer_after_start_s"] >= bot["first_answer_latency_s"] > 0
    assert bot["peak_rss_mb"] > 0 and res["bot_first_answer_vs_cold_ask"] > 0 and res["bot_rss_vs_cold_ask"] > 0
    app = res["app"]
    if "skipped" in app:  # no Playwright or Chromium here: the reason is reported
        assert not os.environ.get("CI"), app["skipped"]
        assert res["app_first_answer_vs_cold_ask"] is None
        return
    assert "error" not in app and "log_has_traceback" not in app, app
    assert app["answers"] == 2 and "nvidia.com/gpu" in app["first_answer_text"]
    assert app["first_answer_after_start_s"] >= app["first_answer_latency_s"] > 0 and app["second_answer_s"] > 0
    assert app["peak_rss_mb"] > 0 and res["app_first_answer_vs_cold_ask"] > 0 and res["app_rss_vs_cold_ask"] > 0


def test_child_peak_rss_is_the_child_not_the_forked_bench_process():
    import os
    import sys

    from gpukb.bench import _child

    ballast = bytearray(400 * 1024 * 1024)  # a bench process holding a large index
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched: resident
    _, _, small, rc = _child([sys.executable, "-c", "pass"], dict(os.environ))
    _, _, big, rc2 = _child([sys.executable, "-c", "import time; b = bytearray(150 << 20); b[::4096] = b'y' * len(b[::4096]); time.sleep(0.2)"],
                            dict(os.environ))
    del ballast
    assert rc == rc2 == 0
    assert small < 100 and big >= 150
