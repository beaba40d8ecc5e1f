"""Which recipe a request asks for, told by the shape of its words rather than its vocabulary: a tool
preferred over another, a GPU cut into MIG pieces said in the passive, an object a kubectl command looks
at, and the object a verb of change leads to over the one a paste describes from before."""

from __future__ import annotations

import pytest

from gpukb.recipes import generate, load_recipes

RECIPES = load_recipes()


@pytest.mark.parametrize("text,want", [
    # what is passed over is not asked for
    ("we'd prefer MPS over time-slicing on the notebook pool, 3 clients per GPU", "mps-sharing"),
    ("time-slicing rather than MPS for the dev nodes please, 4 replicas per GPU", "time-slicing"),
    ("MPS instead of time-slicing for the inference nodes, since time-slicing gives no memory limits; 5 per GPU",
     "mps-sharing"),
    # a GPU cut into MIG pieces, the GPU said first
    ("our H100s are too big for the interns. can every card be split into seven small pieces (1g.10gb)?",
     "mig-config"),
    # the object a kubectl command looks at
    ("afterwards `kubectl describe hpa whisper-scale -n audio` should show it scaling the whisper deployment "
     "between 1 and 4 pods on vllm:num_requests_waiting", "hpa-gpu-metric"),
    # what a verb of change leads to, over the recipe the paste reads like
    ("this is how it runs on the box today:\n\ndocker run --gpus 4 -p 8000:8000 vllm/vllm-openai:v0.6.4 "
     "--model meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 4\n\nconvert it to a Deployment + Service "
     "in namespace llm", "gpu-inference-deployment"),
])
def test_recipe_chosen(text, want):
    assert generate(text, RECIPES, llm=False).recipe == want


@pytest.mark.parametrize("text,want", [
    # a command acting on a deployment is about the deployment another object scales, not a new one
    ("kubectl autoscale deployment sdxl --min=1 --max=5 -n images scales on CPU; redo it as an HPA on the "
     "custom metric vllm:num_requests_waiting, target 4 per pod", "hpa-gpu-metric"),
])
def test_a_kind_acted_on_names_no_recipe(text, want):
    assert generate(text, RECIPES, llm=False).recipe == want


@pytest.mark.parametrize("text,want", [
    # the tool named decides between recipes of one area that would both do the job
    ("for our deployment `asr` I want it to autoscale with keda, on the prometheus metric of GPU utilization; "
     "above 60 percent average go up, minimum 1 replica, maximum 5", "keda-gpu-scaledobject"),
    ("scale the ranker deployment on gpu utilization via KEDA, 2 to 8 replicas", "keda-gpu-scaledobject"),
    # a tool named as what not to use names nothing; the recipe whose tool is named stays
    ("hpa on gpu utilization for deployment ranker, 2 to 8 replicas, not keda", "hpa-gpu-metric"),
    ("an HPA on gpu util for the ranker deployment; we looked at KEDA but want plain HPA", "hpa-gpu-metric"),
])
def test_the_tool_a_request_names_picks_the_recipe(text, want):
    assert generate(text, RECIPES).recipe == want


@pytest.mark.parametrize("text,want", [
    # a pod that wants GPUs and names no DRA gets the device plugin's request, however much it says "device"
    ("a test pod named probe, image nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04, device count 2 from the nvidia driver",
     "gpu-pod"),
    ("pod `dra-probe` that asks for its 2 GPUs through the new resource claims, not the device plugin", "dra-gpu-claim-pod"),
    ("ResourceClaim-based pod for 2 gpus with at least 40Gi each", "dra-gpu-claim-pod"),
    # tensor parallel inside one pod is a Deployment; one copy over several machines is a LeaderWorkerSet
    ("serve Qwen/Qwen2.5-32B-Instruct with vLLM, --tensor-parallel-size 2, 3 replicas in ns chat", "gpu-inference-deployment"),
    ("serve meta-llama/Llama-3.1-405B-Instruct-FP8 with vLLM across two H100 nodes, 8 GPUs each, one copy", "lws-vllm"),
    ("Leader-worker set with vLLM, two copies of the model, each copy on two pods of four GPUs", "lws-vllm"),
    # an autoscaler only when the request scales something
    ("deploy Qwen/Qwen2.5-7B-Instruct on vLLM (vllm/vllm-openai:v0.6.6), 3 replicas, 1 GPU each, namespace chat",
     "gpu-inference-deployment"),
    ("scale the qwen-chat deployment between 1 and 6 replicas on vllm:num_requests_waiting with KEDA", "keda-gpu-scaledobject"),
])
def test_a_recipe_for_another_way_is_chosen_only_when_named(text, want):
    assert generate(text, RECIPES, llm=False).recipe == want


def test_named_only_reads_keywords_tools_kinds_and_its_pattern():
    from gpukb.recipes.match import _names_recipe

    dra = next(r for r in RECIPES if r.id == "dra-gpu-claim-pod")
    lws = next(r for r in RECIPES if r.id == "lws-vllm")
    assert dra.named_only is True and isinstance(lws.named_only, str)
    assert _names_recipe(dra, "a pod through DRA") and _names_recipe(dra, "the claim\ntemplate for it")
    assert not _names_recipe(dra, "a pod with 2 devices, driver nvidia")  # "Pod" is a plain kind, no name
    assert _names_recipe(lws, "each copy spans 2 nodes") and _names_recipe(lws, "a LeaderWorkerSet")
    assert not _names_recipe(lws, "vLLM with --tensor-parallel-size 4, 2 replicas")
