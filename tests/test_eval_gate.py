"""The development eval set as a regression gate (real model, real index).

Floors sit at the brief's targets: hit@5, MRR, must_include facts,
refusals, false refusals, answer length and recipe generation.
"""

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(real_index_home):
    from gpukb.config import load_settings
    from gpukb.engine import Engine
    from gpukb.evals import load_questions, run_eval

    engine = Engine(load_settings(home=real_index_home, root=REPO))
    return run_eval(engine, load_questions(REPO / "evals" / "questions"), modes=("bm25", "hybrid"))


def test_dev_set_size(report):
    answerable = [r for r in report.results if not r.expect_refuse]
    assert len(answerable) >= 150 and len(report.results) - len(answerable) >= 15


def test_retrieval_targets(report):
    s = report.summary
    assert s["hit@5"] >= 0.95, s
    assert s["mrr"] >= 0.80, s


def test_answer_targets(report):
    s = report.summary
    assert s["refusals_correct"] >= 0.90, s
    assert s["false_refusals"] <= 0.05, s
    assert s["median_words"] <= 200, s
    assert s["must_include"] >= 0.90, s


def test_every_area_is_answerable(report):
    for area, b in report.per_area.items():
        if area == "out-of-scope":
            continue
        assert b["hit@5"] >= 0.85, (area, b)


def test_recipe_requests():
    from gpukb.recipes import evaluate_requests

    res = evaluate_requests(REPO / "evals" / "requests")
    assert res["valid_rate"] == 1.0
    assert res["fully_correct_rate"] >= 0.70, {k: v for k, v in res.items() if k != "results"}
