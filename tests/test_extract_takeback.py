"""Amounts taken back in words the writer puts anywhere after them: "4 GPUs max... make it 6",
"sixteen in total. hmm, actually we agreed on twelve", "cooldown 30 min ... too long, make it 10 minutes",
"a 1g.10gb... wait no, make it a 2g.20gb", "(8 GPUs, 64 CPUs) ... raise the cap to twelve GPUs". The first amount no parameter read after the take-back
replaces the closest amount of the same kind before it; other amounts are never touched."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _read(recipe_id: str, text: str):
    return extract_params(find_recipe(recipe_id, RECIPES), text)


@pytest.mark.parametrize("recipe_id,text,name,want", [
    ("volcano-queue", "volcano queue 'labs' capped at 8 GPUs... make it 10, the new hires start soon", "gpus", 10),
    ("gpu-quota", "namespace vision gets twenty GPUs in total. hmm, actually the budget review said fourteen.",
     "gpus", 14),
    ("keda-gpu-scaledobject", "KEDA for the asr deployment, 1 to 5 replicas, cooldown 20 min. on reflection 20 min is "
     "far too long for a demo, make it 5 minutes", "cooldown_period", 300),
    ("dra-gpu-claim-pod", "a MIG slice through DRA, 1g.10gb... wait no, the tokenizer alone needs more, make it a "
     "3g.40gb", "mig_profile", "3g.40gb"),
    ("time-slicing", "time-slicing on the lab nodes:\n- 2 replicas per GPU \u2192 edit: 3 after the review\n"
     "- configmap ts-lab", "replicas", 3),
    ("pytorchjob", "pytorchjob with 4 GPUs per node... no, our nodes are the small ones with 2. so 2 per node, 3 nodes",
     "gpus", 2),
    # a verb of change leading to the new amount
    ("gpu-quota", "re: the quota for namespace speech (6 GPUs, 48 CPUs). could you raise the cap to ten GPUs, the rest "
     "stays", "gpus", 10),
    ("keda-gpu-scaledobject", "keda for deployment tts, 0 to 4 replicas, cooldown 900s. please lower it to 300s",
     "cooldown_period", 300),
])
def test_taken_back_amount_replaces_the_first(recipe_id, text, name, want):
    assert _read(recipe_id, text).values[name] == want


@pytest.mark.parametrize("recipe_id,text,name,want", [
    # what "make it" leads to is no amount: the memory stays
    ("gpu-inference-deployment", "serving deployment qa-bot with 2 replicas, 1 GPU each, 48 gigs of RAM, and make it "
     "scale down to 0 at night", "memory", "48Gi"),
    # an amount judged after the take-back is the one taken back, not the new one
    ("dcgm-servicemonitor-alerts", "idle-GPU alert when utilization is under 5 percent over one hour, hmm, let's say "
     "three hours, one is too noisy", "idle_window_seconds", 10800),
    # another quantity after "correction": "one node at a time" is no MIG device count
    ("mig-config", "seven 1g.10gb per A100, config name a100-sevens. Small correction from me: roll it out one node "
     "at a time", "mig_devices", {"1g.10gb": 7}),
    # what the verb of change governs is another setting
    ("mps-sharing", "MPS, four replicas per card. also set CUDA_MPS_PINNED_DEVICE_MEM_LIMIT to 20 for each client",
     "replicas", 4),
])
def test_other_amounts_after_a_take_back_change_nothing(recipe_id, text, name, want):
    assert _read(recipe_id, text).values[name] == want


def test_the_correction_is_what_the_value_came_from():
    ext = _read("volcano-queue", "volcano queue 'labs' capped at 8 GPUs... make it 10, the new hires start soon")
    a, b = ext.spans["gpus"]
    assert ext.text[a:b] == "10"


# A value taken back at once, right after it: the value after the take-back replaces it, whatever its kind
@pytest.mark.parametrize("recipe_id,text,want", [
    ("gpu-quota", "ResourceQuota for team-x: 32 GPUs total, max 8 per pod - sorry, I meant 2 per pod.",
     {"gpus": 32, "max_gpus_per_pod": 2}),
    ("time-slicing", "time slicing with 4 replicas per GPU -- no, 6 replicas", {"replicas": 6}),
    ("gpu-quota", "quota ns vision: 40 gpus total, per-container limit 4 - no, 2.", {"gpus": 40, "max_gpus_per_pod": 2}),
    ("gpu-operator-clusterpolicy", "ClusterPolicy with mig strategy mixed - correction: single, driver disabled",
     {"mig_strategy": "single", "driver_enabled": False}),
    ("karpenter-gpu-nodepool", "karpenter nodepool gpu-a, instance family g5 - correction, g6e, cluster prod",
     {"instance_families": ["g6e"], "cluster_name": "prod"}),
    ("gpu-pod", "a gpu pod in ns ml - sorry, ml-prod, 2 gpus", {"namespace": "ml-prod", "gpus": 2}),
])
def test_value_taken_back_at_once(recipe_id, text, want):
    values = _read(recipe_id, text).values
    assert {k: values.get(k) for k in want} == want


@pytest.mark.parametrize("recipe_id,text,want", [
    # the amount after the take-back counts another thing: no correction
    ("mpijob", "MPI job hpl, 3 workers, 4 GPUs per worker, sorry, 6 workers", {"workers": 6, "gpus": 4}),
    # a common word before the take-back is no value to replace
    ("karpenter-gpu-nodepool", "karpenter nodepool p5-pool for cluster ml, spot only - actually, p5 family",
     {"capacity_types": ["spot"]}),
])
def test_no_value_for_a_value_of_another_kind(recipe_id, text, want):
    values = _read(recipe_id, text).values
    assert {k: values.get(k) for k in want} == want


# A setting named again with its new amount and the old one: "actually parallelism 5 not 10"
@pytest.mark.parametrize("recipe_id,text,want", [
    ("indexed-job", "indexed job, 50 completions 10 parallel, 1 gpu per pod, name scoring.\nactually parallelism 5 not "
     "10, quota is tight", {"parallelism": 5, "completions": 50}),
    ("pytorchjob", "pytorchjob, master + 3 workers, 4 gpus each.\noops workers shud be 7 not 3",
     {"workers": 7, "gpus": 4}),
    ("volcano-job", "volcano job 4 workers 2 gpus each; sorry, gpus should be 4 not 2", {"workers": 4, "gpus": 4}),
])
def test_a_setting_named_with_its_new_and_old_amount(recipe_id, text, want):
    values = _read(recipe_id, text).values
    assert {k: values.get(k) for k in want} == want


def test_an_amount_not_said_of_a_setting_changes_nothing():
    # "10 not 12 people" names nothing the request set before
    values = _read("gpu-quota", "quota 8 gpus for ns ml, 2 per pod. the team is 10 not 12 people").values
    assert (values.get("gpus"), values.get("max_gpus_per_pod")) == (8, 2)
