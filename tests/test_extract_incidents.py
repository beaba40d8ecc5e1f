"""Requests that tell a story before they ask: an incident told in the past, a listing pasted from
``kubectl get``, a name given with a verb ("call the run x"), a pasted setting the words replace
("4 nodes instead of 2"), and words that say how a thing is to be done ("accordingly"), not what."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.foreign import translate
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _values(recipe_id: str, text: str) -> dict:
    return extract_params(find_recipe(recipe_id, RECIPES), text).values


# An amount in an incident told in the past says what went wrong, not what to set
@pytest.mark.parametrize("recipe_id,text,want", [
    ("gpu-quota", "Last night an intern in namespace vision requested 32 GPUs for a sweep and blocked the demo, "
     "so put a hard limit on that namespace: at most 6 nvidia.com/gpu requests.", {"gpus": 6, "namespace": "vision"}),
    ("model-cache-ephemeral", "The whisper pod was evicted after it downloaded a 90 GB model into its container "
     "layer. New pod named whisper-cache, 1 GPU, a 120Gi model cache at /models and an ephemeral-storage limit "
     "of 10Gi.", {"cache_size": "120Gi", "ephemeral_limit": "10Gi", "name": "whisper-cache", "ephemeral_request": None}),
    ("dcgm-servicemonitor-alerts", "Two A100 nodes ran for 3 hours at 95C before anyone saw it. Add alerts when "
     "the GPU temperature stays above 83 C.", {"temperature_celsius": 83}),
])
def test_an_incident_told_gives_no_amount(recipe_id, text, want):
    values = _values(recipe_id, text)
    assert {k: values.get(k) for k in want} == want


def test_an_amount_only_the_incident_gives_is_left_unused():
    values = _values("gpu-quota", "A runaway job in namespace nlp grabbed 40 GPUs and starved everyone; put a quota "
                                  "on that namespace.")
    assert values.get("namespace") == "nlp"
    assert "gpus" not in values


@pytest.mark.parametrize("recipe_id,text,want", [
    # the object named before the incident is the one to build on
    ("indexed-job", "`embed-corpus` (400 shards) failed because one bad file crashed its pod over and over. "
     "Rerun it as an indexed job with 1 GPU each.", {"completions": 400}),
    # a request's own wording is no incident: "ephemeral storage requested at 80Gi"
    ("model-cache-ephemeral", "a GPU pod with ephemeral storage requested at 40Gi and a limit of 60Gi",
     {"ephemeral_request": "40Gi", "ephemeral_limit": "60Gi"}),
    # a ticket's header is no incident either
    ("gpu-quota", "OPS-12 | Requested 2026-01-10 by vision\nCap namespace vision at 10 GPUs.", {"gpus": 10}),
])
def test_what_is_no_incident_is_read(recipe_id, text, want):
    values = _values(recipe_id, text)
    assert {k: values.get(k) for k in want} == want


_HPA_LISTING = """$ kubectl get hpa -n search
NAME           REFERENCE             TARGETS   MINPODS   MAXPODS   REPLICAS   AGE
ranker-hpa     Deployment/ranker     61%/75%   3         12        5          40d

It scales on CPU. Make it scale on GPU utilization (DCGM_FI_DEV_GPU_UTIL) with a target of 65, keep min and max."""


def test_a_kubectl_listing_of_one_object_reads_as_its_settings():
    facts, _boiler, blocks = translate(_HPA_LISTING)
    words = [f.words for f in facts if f.fmt == "kubectl-table"]
    # status columns (TARGETS, REPLICAS, AGE) say nothing to set
    assert words == ["name ranker-hpa", "deployment ranker", "min replicas 3", "max replicas 12"]
    assert len(blocks) == 1


def test_a_kubectl_listing_fills_what_the_words_leave_open():
    values = _values("hpa-gpu-metric", _HPA_LISTING)
    assert {k: values.get(k) for k in ("name", "deployment", "min_replicas", "max_replicas", "target_value")} == {
        "name": "ranker-hpa", "deployment": "ranker", "min_replicas": 3, "max_replicas": 12, "target_value": "65"}
    assert "scale_down_stabilization_seconds" not in values  # "it scales" counts nothing


def test_a_kubectl_listing_of_several_objects_says_nothing():
    text = ("kubectl get hpa\nNAME    REFERENCE        MINPODS   MAXPODS\na-hpa   Deployment/a     1         4\n"
            "b-hpa   Deployment/b     2         8\n")
    facts, _boiler, _blocks = translate(text)
    assert not [f for f in facts if f.fmt == "kubectl-table"]


@pytest.mark.parametrize("recipe_id,text,want", [
    ("indexed-job", "80 shards, 1 GPU each, 8 at a time; call the run score-v2, namespace eval",
     {"name": "score-v2", "completions": 80}),
    ("pytorchjob", "pytorchjob with 2 workers of 8 GPUs, name the job llama-sft-3", {"name": "llama-sft-3"}),
    # a hyphenated name is taken whole: "in-h100" is no word "in"
    ("gpu-pod", "a gpu pod, call the pod probe-in-h100 please", {"name": "probe-in-h100"}),
])
def test_a_name_given_with_a_verb(recipe_id, text, want):
    values = _values(recipe_id, text)
    assert {k: values.get(k) for k in want} == want


def test_naming_another_object_names_only_that_one():
    values = _values("kueue-cluster-queue", "kueue quota for team-a, 32 gpus, name the local queue team-a-lq")
    assert values.get("local_queue") == "team-a-lq"
    assert values.get("name") != "local"


@pytest.mark.parametrize("text", ["gpu pod name isaac-sim", "gpu pod name: isaac-sim", "gpu pod named isaac-sim"])
def test_a_name_that_starts_like_a_verb_is_kept_whole(text):
    assert _values("gpu-pod", text).get("name") == "isaac-sim"


def test_a_pasted_amount_the_words_replace_is_not_read():
    text = ("trainer:\n  name: asr-ft\n  image: ghcr.io/x/asr:1.0\n  nodes: 2\n  gpusPerNode: 4\n\n"
            "Make the PyTorchJob for this, but with 3 nodes instead of 2 and 8 GPUs per node.")
    values = _values("pytorchjob", text)
    assert values.get("nodes") == 3 and values.get("gpus") == 8
    assert "workers" not in values  # the paste's "2 nodes" would have set the workers besides the master


def test_a_new_name_beats_the_name_a_kubectl_command_shows():
    text = ("$ kubectl get pv lustre-old -o yaml | grep volumeHandle\n    volumeHandle: fs-0123456789abcdef0\n\n"
            "Bring the same file system over as a PV and PVC called ckpt-data in namespace train.")
    assert _values("fsx-lustre-static", text).get("name") == "ckpt-data"


@pytest.mark.parametrize("recipe_id,text", [
    ("kueue-cluster-queue", "Set up the ClusterQueue accordingly: 24 gpus, cohort pool-a"),
    ("kueue-cluster-queue", "make the clusterqueue properly with 16 gpus"),
    ("gpu-inference-deployment", "make the deployment asap, 2 replicas, image ghcr.io/x/y:1"),
])
def test_a_word_of_manner_is_no_name(recipe_id, text):
    assert "name" not in _values(recipe_id, text)


def test_a_root_cause_section_is_what_happened():
    text = ("Root cause: a kernel update broke the preinstalled driver on half the nodes. Action: let the operator "
            "manage the driver from now on; ClusterPolicy with the driver enabled, version 550.90.07.")
    values = _values("gpu-operator-clusterpolicy", text)
    assert values.get("driver_enabled") is True and values.get("driver_version") == "550.90.07"


def test_what_runs_today_still_carries_over_when_the_words_say_nothing_of_it():
    text = "Current state: the driver is preinstalled on every node. We want a new ClusterPolicy with the toolkit disabled."
    values = _values("gpu-operator-clusterpolicy", text)
    assert values.get("driver_enabled") is False and values.get("toolkit_enabled") is False
