"""Several named sub-objects of one recipe: each value binds to the sub-object named before it,
quoted names read bare, and no false conflict is raised on the recipe-level count."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.model import find_recipe


@pytest.mark.parametrize("text", [
    "volcano job with a `ps` task of 2 pods and a `trainer` task of 4 pods, 8 gpus each",
    "volcano job with task 'ps' (2 pods, no gpu) and task 'trainer' (4 pods, 8 gpus each)",
    'volcano job: "ps" task with 2 pods, "trainer" task of 4 pods with 8 gpus each',
])
def test_quoted_task_names(text):
    e = extract_params(find_recipe("volcano-job"), text)
    tasks = {t["name"]: t for t in e.values["tasks"]}
    assert tasks["ps"]["replicas"] == 2 and tasks["trainer"]["replicas"] == 4
    assert tasks["trainer"]["gpus"] == 8
    assert "workers" not in e.conflicts and "name" not in e.values


def test_task_names_with_a_job_name_outside():
    e = extract_params(find_recipe("volcano-job"),
                       "volcano job named tf-legacy, 'launcher' task with 1 pod and no gpus, 'worker' task of 3 pods with 2 gpus each")
    assert e.values["name"] == "tf-legacy"
    assert [(t["name"], t["replicas"]) for t in e.values["tasks"]] == [("launcher", 1), ("worker", 3)]


@pytest.mark.parametrize("text", [
    'three priority classes: "high" at 1000000, "medium" at 1000 and "low" at 10, low never preempts',
    "priority classes: one named high at 5000, one named medium at 500 and one named low at 50",
])
def test_cue_words_given_as_names(text):
    e = extract_params(find_recipe("priority-classes"), text)
    assert [c["name"] for c in e.values["classes"]] == ["high", "medium", "low"]
    assert [c["value"] for c in e.values["classes"]][0] in (1000000, 5000)


def test_two_named_classes_fill_the_pair():
    e = extract_params(find_recipe("priority-classes"), 'priority classes named "high" (value 1000) and "low" (value 10)')
    assert (e.values["production_name"], e.values["production_value"]) == ("high", 1000)
    assert (e.values["research_name"], e.values["research_value"]) == ("low", 10)


def test_kueue_flavor_and_local_queue_names():
    e = extract_params(find_recipe("kueue-cluster-queue"),
                       "kueue: a flavor named a100-flavor and a local queue named team-lq in namespace ml, 16 gpus")
    assert e.values["flavor"] == "a100-flavor" and e.values["local_queue"] == "team-lq"
    assert e.values["namespace"] == "ml" and e.values["gpus"] == 16


@pytest.mark.parametrize("text,workers", [
    ("spread 6 workers, at most one worker per node, 2 gpus each", 6),
    ("12 training pods, one pod per node, 8 gpus each", 12),
    ("one pod per node across 4 nodes", 4),
    ("one pod per node", 1),  # a rate is the count when it is the only one
])
def test_a_count_at_a_rate_is_not_the_total(text, workers):
    assert extract_params(find_recipe("topology-spread-training"), text).values.get("workers", 1) == workers
