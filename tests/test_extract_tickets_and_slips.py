"""Requests written as tickets, runbooks and forms, by non-native speakers and with slips of the keyboard:
decimals said in words, "more as 4", docker's device lists, "the same thing as a Deployment", titles that
are no names, product names in capitals, field labels before a setting, and a launcher named in a sentence."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params, normalise_text
from gpukb.recipes.generation import generate
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _read(recipe_id: str, text: str) -> dict:
    return dict(extract_params(find_recipe(recipe_id, RECIPES), text).values)


@pytest.mark.parametrize(("said", "written"), [
    ("four point eight tebibytes", "4.8Ti"),
    ("one point two TiB", "1.2 TiB"),
    ("2 point 4 TiB", "2.4 TiB"),
])
def test_a_decimal_said_in_words_is_a_decimal(said, written):
    assert normalise_text(f"lustre, {said}, claim x") == f"lustre, {written}, claim x"


@pytest.mark.parametrize("text", ["the point is four nodes", "one point, two nodes"])
def test_point_between_words_that_are_no_decimal_stays(text):
    assert normalise_text(text) == text


def test_an_fsx_size_said_in_words_is_read_in_gib():
    got = _read("fsx-lustre-dynamic", "FSx for Lustre PERSISTENT_2, four point eight tebibytes, claim video-scratch")
    assert got["storage_gib"] == 4800


def test_a_comparison_worded_with_as_or_then_is_a_bound():
    got = _read("gpu-quota", "quota in namespace nlp-de: maximum 12 GPU, one pod may not take more as 4 GPU, "
                             "CPU maximal 96 cores, not more than 30 pods")
    assert (got["gpus"], got["max_gpus_per_pod"], got["cpu"], got["max_pods"]) == (12, 4, 96, 30)
    got = _read("indexed-job", "indexed job, 48 shards, dont retry a shard more then once, 6 at a time")
    assert got["backoff_limit_per_index"] == 1 and got["parallelism"] == 6


def test_docker_device_lists_count_gpus():
    assert _read("gpu-pod", "gpu pod dbg, docker run --gpus '\"device=0,1\"' nvidia/cuda:12.4.1-base-ubuntu22.04")["gpus"] == 2
    assert _read("gpu-pod", "gpu pod dbg, docker run --gpus device=0,1,2 nvidia/cuda:12.4.1-base-ubuntu22.04")["gpus"] == 3
    assert _read("pytorchjob", "pytorchjob, CUDA_VISIBLE_DEVICES=0,1,2,3 torchrun train.py, 2 nodes")["gpus"] == 4


def test_the_same_thing_as_a_kind_asks_for_that_kind():
    g = generate("we run this on a box: docker run --gpus 2 vllm/vllm-openai:v0.6.4 --model Qwen/Qwen2.5-14B-Instruct "
                 "--tensor-parallel-size 2. how do I do the same thing on k8s as a Deployment + Service? namespace "
                 "llm-prod, call it qwen14b", RECIPES, llm=False)
    assert g.recipe == "gpu-inference-deployment"
    assert (g.params["gpus"], g.params["name"], g.params["namespace"]) == (2, "qwen14b", "llm-prod")


def test_a_title_in_capitals_gives_way_to_a_name_written_as_one():
    text = ("Subject: New team: Robotics Perception\n\nPlease set them up on the shared cluster as tenant "
            "robotics-perception with 32 GPUs in total.")
    assert _read("tenant-onboarding", text)["tenant"] == "robotics-perception"
    # a title alone is still read, as the only name given
    assert _read("tenant-onboarding", "onboard team: Speech Recognition, 16 gpus")["tenant"] == "speech"


def test_a_product_name_in_capitals_is_no_namespace():
    text = ("A MIG layout named inf-split: one 4g.40gb and one 2g.20gb, mixed strategy. The GPU Operator lives in "
            "the `nvidia-gpu-operator` namespace (OpenShift).")
    assert _read("mig-config", text)["namespace"] == "nvidia-gpu-operator"


def test_restarts_counted_in_times_are_the_restart_budget():
    got = _read("pytorchjob", "elastic pytorchjob dlrm, min 2 workers, max 6, 4 GPUs per worker. "
                              "let torchrun restart the workers 20 times")
    assert (got["max_restarts"], got["min_workers"], got["max_workers"]) == (20, 2, 6)
    assert "workers" not in got
    assert _read("pytorchjob", "pytorchjob elastic 2-8 workers, up to 5 restarts")["max_restarts"] == 5


def test_a_skew_of_up_to_n():
    got = _read("topology-spread-training", "topology spread job moe, 8 training pods, spread across zones; "
                                            "a skew of up to 2 pods between zones is ok")
    assert got["max_skew"] == 2


def test_a_launcher_named_in_a_sentence_is_no_command_line():
    text = ("MPIJob nccl test\n- 4 workers, 8 GPUs each\n"
            "- Program: /opt/nccl_tests/build/all_reduce_perf -b 512M -e 8G -f 2 -g 1\n\n"
            "Acceptance criteria:\n- mpirun starts 32 ranks in total")
    assert _read("mpijob", text)["program"][0] == "/opt/nccl_tests/build/all_reduce_perf"
    assert _read("mpijob", "mpijob 2 workers, mpirun -np 16 ./all_reduce_perf -b 8 -e 1G")["program"] == [
        "./all_reduce_perf", "-b", "8", "-e", "1G"]


def test_expander_priorities_in_code_marks_and_without_a_verb():
    got = _read("cluster-autoscaler-priority-expander",
                "priority expander: node groups matching `.*a100-spot.*` get 60, `.*a100-reserved.*` get 40 and "
                "`.*a100-ondemand.*` get 10")
    assert got["priorities"] == {".*a100-spot.*": 60, ".*a100-reserved.*": 40, ".*a100-ondemand.*": 10}
    got = _read("cluster-autoscaler-priority-expander", "priority expander: .*a100-spot.* priority 60, .*a100-od.* priority 5")
    assert got["priorities"] == {".*a100-spot.*": 60, ".*a100-od.*": 5}


def test_a_field_label_before_its_setting_reads_as_the_setting():
    text = "ClusterPolicy requirements:\n- driver: pre-installed by DGX OS\n- container toolkit: also pre-installed"
    got = _read("gpu-operator-clusterpolicy", text)
    assert got["driver_enabled"] is False and got["toolkit_enabled"] is False
    # the colon of an unrelated label joins nothing ("toolkit" named, no setting after it)
    assert "toolkit_enabled" not in _read("gpu-operator-clusterpolicy", "ClusterPolicy: driver 550.90.07, MIG: mixed")


def test_the_same_thing_as_a_kubernetes_pod_asks_for_a_pod():
    g = generate("Today we run it with: docker run --gpus '\"device=0,1\"' --shm-size=16g ghcr.io/acme/trainer:3.2 "
                 "python finetune.py. Need the same thing as a Kubernetes pod in namespace acme-ml, name it finetune-01.",
                 RECIPES, llm=False)
    assert (g.recipe, g.params["gpus"], g.params["name"]) == ("gpu-pod", 2, "finetune-01")


def test_an_equivalent_named_before_it_is_no_change_of_kind():
    g = generate("in slurm i'd do `sbatch -N 4 --gres=gpu:8 --exclusive train.sh` - what's the pytorchjob equivalent? "
                 "4 nodes, 8 gpus per node", RECIPES, llm=False)
    assert g.recipe == "pytorchjob"


def test_a_path_keeps_its_closing_slash():
    got = _read("fsx-lustre-dynamic", "fsx lustre scratch 2, S3 import path s3://acme-training-data/tokenized/, claim x")
    assert got["s3_import_path"] == "s3://acme-training-data/tokenized/"


def test_no_right_before_a_setting_turns_it_off():
    assert _read("time-slicing", "time slicing, 4 replicas per gpu, no rename (keep nvidia.com/gpu)")["rename_by_default"] is False
    assert _read("time-slicing", "time slicing, 4 replicas per gpu, rename to gpu.shared")["rename_by_default"] is True


def test_a_participle_after_a_cue_is_no_name():
    got = _read("model-cache-ephemeral", "a generic ephemeral claim of 200Gi on the local-nvme storage class mounted "
                                         "at /models, 4 GPUs")
    assert got["storage_class"] == "local-nvme"


def test_a_manifest_key_written_with_its_number_beats_a_reading_by_nearness():
    got = _read("keda-gpu-scaledobject", "keda scaledobject for deployment llama-chat, cold start is 3 min, cooldownPeriod 600")
    assert got["cooldown_period"] == 600
    g = generate("keda scaledobject for deployment llama-chat, cold start is 3 min, cooldownPeriod 600", RECIPES, llm=False)
    assert any("3 min" in u for u in g.unused)  # the reading set aside is reported, not counted as used


def test_a_product_name_before_the_kind_noun_is_no_object_name():
    got = _read("keda-gpu-scaledobject", "scale the vLLM deployment on queue depth, threshold 5")
    assert got.get("deployment") != "vllm"


def test_a_service_on_a_port_and_a_probe_path_in_code_marks():
    assert _read("lws-vllm", "lws for llama 3.1 405b on vllm, 2 nodes per group, 8 gpus each, svc on 8000 for the "
                             "leader")["port"] == 8000
    got = _read("gpu-inference-deployment", "Deployment `sdxl-api`, 1 GPU, Readiness probe on `/healthz` port 7860")
    assert got["health_path"] == "/healthz"
