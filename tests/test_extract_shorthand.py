"""Terse and kubectl-flavoured requests: "deploy" as kubectl's noun for a Deployment, a terse line that
ends with its amount, ``key=value`` for a target, ``kubectl ... -n x`` for the namespace, and a pasted
object's name when another parameter's name stands in for it by default."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.generation import generate
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _values(recipe_id: str, text: str) -> dict:
    return extract_params(find_recipe(recipe_id, RECIPES), text).values


@pytest.mark.parametrize("text,recipe_id", [
    ("deploy name=asr-svc ns=speech img=ghcr.io/x/asr:2.0 replicas=2 gpu=1 port=9000", "gpu-inference-deployment"),
    ("hi, I need deploy for our ranking model please, 2 replica with one GPU, namespace search",
     "gpu-inference-deployment"),
    # the verb stays a verb
    ("please deploy a pod with 1 gpu in namespace ml", "gpu-pod"),
])
def test_deploy_as_a_noun_is_a_deployment(text, recipe_id):
    assert generate(text, RECIPES).recipe == recipe_id


@pytest.mark.parametrize("text,want", [
    ("hpa for deploy chat, min 1 max 6 on gpu util", {"deployment": "chat"}),
    ("hpa for my vllm deploy `chat-13b` ns serving, gpu util target 50", {"deployment": "chat-13b"}),
])
def test_deploy_names_the_deployment_to_scale(text, want):
    values = _values("hpa-gpu-metric", text)
    assert {k: values.get(k) for k in want} == want


def test_a_terse_line_ends_with_its_amount():
    values = _values("hpa-gpu-metric", "hpa for deploy `ocr` ns `vision`\nscale on gpu util, target 55\nmin 3 max 9\nty")
    assert {k: values.get(k) for k in ("target_value", "min_replicas", "max_replicas")} == {
        "target_value": "55", "min_replicas": 3, "max_replicas": 9}
    assert "scale_down_stabilization_seconds" not in values  # no "55 min"


def test_an_average_given_as_a_setting():
    values = _values("hpa-gpu-metric", "hpa chat ns=serving target=deploy/chat min=1 max=6 "
                                       "metric=vllm:num_requests_waiting avg=4")
    assert values.get("target_value") == "4"


def test_the_namespace_of_a_kubectl_command():
    text = ("Current quota:\n```\n$ kubectl describe resourcequota team-cap -n nlp\nName:       team-cap\n"
            "Namespace:  nlp\n```\nMake the hard limit 12 GPUs, same namespace.")
    values = _values("gpu-quota", text)
    assert values.get("namespace") == "nlp" and values.get("gpus") == 12


def test_the_words_namespace_beats_the_kubectl_one():
    text = "$ kubectl get pvc -n old-team\nI need a shared RWX dataset volume of 2Ti in namespace new-team"
    assert _values("rwx-dataset-pvc", text).get("namespace") == "new-team"


def test_a_pasted_hpa_keeps_its_own_name():
    text = ("Today:\n```\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: ocr-hpa\n"
            "  namespace: vision\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n"
            "    name: ocr-server\n  minReplicas: 1\n  maxReplicas: 3\n```\nNew version: min 2, max 8, same name.")
    values = _values("hpa-gpu-metric", text)
    assert {k: values.get(k) for k in ("name", "deployment", "min_replicas", "max_replicas")} == {
        "name": "ocr-hpa", "deployment": "ocr-server", "min_replicas": 2, "max_replicas": 8}


@pytest.mark.parametrize("text,want", [
    ("all 8 workers read the same 2 TB corpus copy, so I need a shared RWX volume of 3Ti called corpus in ns nlp",
     "3Ti"),
    ("the 500 GB tokenized set needs a shared claim with 1Ti for all readers", "1Ti"),
])
def test_the_size_of_the_volume_over_the_size_of_the_data(text, want):
    assert _values("rwx-dataset-pvc", text).get("size") == want
