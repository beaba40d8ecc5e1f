"""A total of GPUs said beside the per-machine amount, and a combination of values ruled out as a
whole: neither is a second value of the parameter next to it."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _read(recipe_id: str, text: str):
    return extract_params(find_recipe(recipe_id, RECIPES), text)


# A total spread over machines agrees with the per-machine amount: no conflict, nothing left unread
@pytest.mark.parametrize("recipe,text,count", [
    ("mpijob", "to match the paper we need sixteen GPUs across two machines, i.e. two workers with eight GPUs each, "
               "image horovod/horovod:0.28.1", "workers"),
    ("mpijob", "MPIJob: 2 nodes of eight GPUs, 16 GPUs in all, image x/y:2", "workers"),
    ("pytorchjob", "pytorchjob on sixteen GPUs across two machines, eight each, image a/b:1", "nodes"),
])
def test_a_total_over_machines_agrees_with_the_per_machine_amount(recipe, text, count):
    ext = _read(recipe, text)
    assert ext.values.get("gpus") == 8 and ext.values.get(count) == 2
    assert "gpus" not in ext.conflicts


def test_a_total_over_machines_alone_is_split_over_them():
    ext = _read("pytorchjob", "we want 24 GPUs spread over three nodes for the pytorchjob, image a/b:1")
    assert ext.values.get("gpus") == 8 and ext.values.get("nodes") == 3


def test_a_different_per_machine_amount_still_conflicts():
    ext = _read("mpijob", "mpijob: 16 GPUs across two machines, 4 GPUs per worker, image a/b:1")
    assert ext.values.get("gpus") != 8 or "gpus" in ext.conflicts


def test_what_the_cluster_has_is_no_total_of_the_job():
    ext = _read("pytorchjob", "pytorchjob with 3 workers, 4 GPUs each; we have 64 GPUs across 8 nodes in the cluster")
    assert ext.values.get("gpus") == 4


# A pair ruled out as a pair: the value said alone is what is wanted
@pytest.mark.parametrize("text,want", [
    ("karpenter nodepool gpu-train, spot only, not spot plus on-demand", ["spot"]),
    ("karpenter nodepool: spot only -- not spot+on-demand like the first draft", ["spot"]),
    ("karpenter nodepool for inference, on-demand only (not a spot/on-demand mix)", ["on-demand"]),
])
def test_a_combination_ruled_out_is_not_each_value_ruled_out(text, want):
    assert _read("karpenter-gpu-nodepool", text).values.get("capacity_types") == want


def test_a_single_value_ruled_out_still_reads():
    assert _read("karpenter-gpu-nodepool", "karpenter nodepool for training, never on spot") \
        .values.get("capacity_types") == ["on-demand"]
    assert _read("karpenter-gpu-nodepool", "karpenter nodepool with spot + on-demand") \
        .values.get("capacity_types") == ["spot", "on-demand"]


# A second spread said after the first is its own constraint; its soft words do not soften the first
@pytest.mark.parametrize("text,first,second,second_mode", [
    ("eight training pods with one GPU each, spread evenly across nodes (max skew one per hostname) and across "
     "zones if possible, image a/b:1", "kubernetes.io/hostname", "topology.kubernetes.io/zone", "ScheduleAnyway"),
    ("16 workers spread across hosts and also across AZs if it's possible", "kubernetes.io/hostname",
     "topology.kubernetes.io/zone", "ScheduleAnyway"),
    ("training job, 12 workers, spread across zones, and also one per node, strictly", "topology.kubernetes.io/zone",
     "kubernetes.io/hostname", "DoNotSchedule"),
])
def test_a_second_spread_is_its_own_constraint(text, first, second, second_mode):
    ext = _read("topology-spread-training", text)
    assert ext.values.get("topology_key") == first
    assert ext.values.get("also_spread_over") == second
    assert ext.values.get("when_unsatisfiable", "DoNotSchedule") == "DoNotSchedule"
    assert ext.values.get("also_when_unsatisfiable", "ScheduleAnyway") == second_mode


@pytest.mark.parametrize("text,key", [
    ("spread 6 training workers with 4 GPUs across zones", "topology.kubernetes.io/zone"),
    ("spread 4 training pods across nodes, one per node", "kubernetes.io/hostname"),
])
def test_one_spread_stays_one(text, key):
    ext = _read("topology-spread-training", text)
    assert ext.values.get("topology_key") == key and "also_spread_over" not in ext.values


def test_a_second_spread_renders_a_second_constraint():
    from gpukb.recipes.render import render_recipe

    out = render_recipe(find_recipe("topology-spread-training", RECIPES),
                        {"also_spread_over": "topology.kubernetes.io/zone"})
    job = [d for d in out.documents if d["kind"] == "Job"][0]
    keys = [(c["topologyKey"], c["whenUnsatisfiable"]) for c in job["spec"]["template"]["spec"]["topologySpreadConstraints"]]
    assert out.valid
    assert keys == [("kubernetes.io/hostname", "DoNotSchedule"), ("topology.kubernetes.io/zone", "ScheduleAnyway")]


# Explicit priorities for node groups: any number of tiers, the numbers as given
@pytest.mark.parametrize("text,want", [
    ("Set up the CA priority expander. Priorities: node groups matching .*gpu-spot.* get 50, .*gpu-ondemand-g5.* "
     "get 20, and .*gpu-ondemand-p4d.* gets 10 as the last resort.",
     {".*gpu-spot.*": 50, ".*gpu-ondemand-g5.*": 20, ".*gpu-ondemand-p4d.*": 10}),
    ("priority expander: gpu-l4-spot with priority 30, gpu-l4-od with priority 15, keep the catch-all",
     {"gpu-l4-spot": 30, "gpu-l4-od": 15}),
])
def test_explicit_priorities_are_read_as_given(text, want):
    ext = _read("cluster-autoscaler-priority-expander", text)
    assert ext.values.get("priorities") == want
    assert "preferred_groups" not in ext.values and "fallback_groups" not in ext.values


def test_two_tiers_in_words_still_read_as_preferred_and_fallback():
    ext = _read("cluster-autoscaler-priority-expander", "cluster autoscaler priority expander: prefer gpu-a10g-spot, "
                                                        "then gpu-a10g-od")
    assert ext.values.get("preferred_groups") == ["gpu-a10g-spot"] and "priorities" not in ext.values


def test_priorities_render_as_integer_keys_with_shared_tiers():
    import yaml

    from gpukb.recipes.render import render_recipe

    out = render_recipe(find_recipe("cluster-autoscaler-priority-expander", RECIPES),
                        {"priorities": {".*a.*": 20, ".*b.*": 20, ".*c.*": 5}})
    assert out.valid
    tiers = yaml.safe_load(out.documents[0]["data"]["priorities"])
    assert tiers == {20: [".*a.*", ".*b.*"], 5: [".*c.*"], 1: [".*"]}


def test_a_number_before_the_counted_noun_is_that_nouns():
    # "pods one pod per node": the "one" belongs to the rate after it, not to the "pods" before it
    assert _read("topology-spread-training", "spread 8 training pods one pod per node").values.get("workers") == 8


def test_a_group_setting_with_a_number_is_no_priority():
    ext = _read("cluster-autoscaler-priority-expander",
                "Cluster Autoscaler should expand cheap-gpu-.* groups before anything else, fall back to "
                "premium-gpu-.*, and cap scale-up at 10 nodes per minute")
    assert "priorities" not in ext.values
    assert ext.values.get("preferred_groups") == ["cheap-gpu-.*"]


# A bound said as "the minimum of X is N", and the other scheduler's name for a gang's minimum
@pytest.mark.parametrize("recipe,text,want", [
    ("hpa-gpu-metric", "HPA for deployment whisper on gpu util: the minimum of replicas is 2, the maximum of replicas "
                       "is 10", {"min_replicas": 2, "max_replicas": 10}),
    ("keda-gpu-scaledobject", "keda scaledobject for deployment chat on vllm queue depth: minimum replicas should be 1, "
                              "max at 8", {"min_replicas": 1, "max_replicas": 8}),
    ("coscheduling-podgroup", "coscheduling podgroup for 6 pods, 1 GPU each, minAvailable 4", {"min_member": 4}),
    ("volcano-job", "volcano job 4 workers x 2 gpus, minMember 3", {"min_available": 3}),
])
def test_a_bound_in_other_words(recipe, text, want):
    values = _read(recipe, text).values
    assert {k: values.get(k) for k in want} == want


def test_bounds_that_contradict_are_an_error_not_a_guess():
    from gpukb.errors import GpukbError
    from gpukb.recipes.generation import generate

    with pytest.raises(GpukbError, match="min_replicas"):
        generate("HPA for the deployment whisper: the minimum of replicas is eight, the maximum of replicas is four, "
                 "on GPU utilization.", RECIPES)


def test_a_resource_name_in_a_table_stays_whole():
    ext = _read("gpu-quota", "ResourceQuota for namespace vision:\n\n| resource | hard |\n|---|---|\n"
                             "| requests.nvidia.com/gpu | 32 |\n| requests.cpu | 256 |\n| requests.memory | 1Ti |\n")
    assert ext.values.get("gpus") == 32 and ext.values.get("cpu") == 256
    assert "default_cpu" not in ext.values  # "request" inside "requests.cpu" is no cue of a default request


def test_an_amount_per_unit_in_a_table_still_reads():
    ext = _read("gpu-inference-deployment", "inference deployment, 3 replicas:\n\n| setting | value |\n|---|---|\n"
                                            "| GPUs / replica | 2 |\n| image | vllm/vllm-openai:v0.6.3 |\n")
    assert ext.values.get("gpus") == 2 and ext.values.get("replicas") == 3


@pytest.mark.parametrize("recipe,text", [
    ("gpu-quota", "cap namespace interns at 8 GPUs, each pod limited to 2 GPUs"),
    ("tenant-onboarding", "onboard team x with 16 GPUs, every container capped at 2 GPUs"),
])
def test_a_per_pod_cap_said_as_limited_to(recipe, text):
    assert _read(recipe, text).values.get("max_gpus_per_pod") == 2


# A group counted as a head and its workers has both in its size (the leader is one of its pods)
@pytest.mark.parametrize("text,size", [
    ("leaderworkerset for vllm: a head node and three worker nodes, 8 gpus each", 4),
    ("we serve it on a Ray cluster today, 1 head + 1 worker, each an 8xH100 node; move it to a LeaderWorkerSet", 2),
    ("lws vllm, groups of 2 pods (leader plus one worker), 8 GPUs per pod", 2),
])
def test_a_head_and_its_workers_are_the_group(text, size):
    values = _read("lws-vllm", text).values
    assert values.get("size") == size and values.get("gpus") == 8


def test_a_master_and_workers_stay_apart_where_the_recipe_counts_workers():
    assert _read("pytorchjob", "pytorchjob 1 master + 3 workers, 8 gpus each").values.get("workers") == 3


def test_a_node_sized_by_its_gpu_model_gives_gpus_not_nodes():
    values = _read("mpijob", "mpijob on two 8x A100 boxes")
    assert values.values.get("gpus") == 8 and values.values.get("workers") == 2
    assert _read("pytorchjob", "pytorchjob on 4 H100 nodes, 8 gpus each").values.get("nodes") == 4


# Node-group tiers: a pattern in brackets after the words that rank it, and a list that ends at the next rank
@pytest.mark.parametrize("text,first,then", [
    ("CA expander config: spot pool first (.*spot.*), then on-demand (.*ondemand.*)", [".*spot.*"], [".*ondemand.*"]),
    ("expander priorities: first .*p5-spot.*, second .*p5-od.*, nothing else", [".*p5-spot.*"], [".*p5-od.*"]),
])
def test_tiers_read_from_the_words_that_rank_them(text, first, then):
    values = _read("cluster-autoscaler-priority-expander", text).values
    assert values.get("preferred_groups") == first and values.get("fallback_groups") == then


# Names and amounts in the words people use for them
@pytest.mark.parametrize("recipe,text,want", [
    ("fsx-lustre-dynamic", "fsx lustre storage class `fsx-sc` with pvc `train-tmp`, SCRATCH_2 1.2 TiB, subnet "
                           "subnet-0123456789abcdef0, sg sg-0123456789abcdef0", {"name": "fsx-sc", "claim_name": "train-tmp"}),
    ("fsx-lustre-static", "static FSx for Lustre fs-0123456789abcdef0 in eu-west-1, mount name abcd1234, 1.2 TiB, "
                          "PVC name `datasets`", {"claim_name": "datasets"}),
    ("kueue-cluster-queue", "kueue: cq `vision-cq`, 16 gpus nominal, lq `vision` in ns vision",
     {"name": "vision-cq", "local_queue": "vision"}),
    ("volcano-job", "volcano job: 2 workers x 4 gpus, minAvailable has to be all 2", {"min_available": 2}),
    ("pytorchjob", "pytorchjob bert-ft with 4 workers, bump gpus per worker to 2", {"workers": 4, "gpus": 2}),
])
def test_names_and_amounts_as_people_say_them(recipe, text, want):
    values = _read(recipe, text).values
    assert {k: values.get(k) for k in want} == want


def test_the_size_of_the_data_is_no_setting_beside_sizes_that_are():
    values = _read("model-cache-ephemeral", "model-cache pod: the weights are about 25 GB; generic ephemeral volume "
                                            "60Gi, ephemeral-storage limit 8Gi, 1 gpu").values
    assert values.get("cache_size") == "60Gi" and values.get("ephemeral_limit") == "8Gi"
    assert "ephemeral_request" not in values
    # ... and the only size there is still sets the cache
    assert _read("model-cache-ephemeral", "model cache pod, the model is about 40 GB, 1 gpu").values.get("cache_size") == "40Gi"


# A launcher's flags: their plain-word values are no program, hosts are no image, settings passed on stay reported
def test_a_launcher_flag_with_a_word_value_is_no_program():
    values = _read("mpijob", "MPIJob, two workers with eight GPUs each, image horovod/horovod:0.28.1, launcher command "
                             "`mpirun -np 16 -bind-to none -map-by slot -mca pml ob1 python train.py --epochs 90`").values
    assert values.get("program") == ["python", "train.py", "--epochs", "90"]


def test_a_launcher_over_several_lines_with_hosts():
    from gpukb.recipes.generation import generate

    g = generate("Porting this from our runbook:\n\n```\nmpirun -np 16 -H node1:8,node2:8 \\\n  -x NCCL_DEBUG=INFO "
                 "-x NCCL_IB_HCA=mlx5 \\\n  python /workspace/train_hvd.py --epochs 90\n```\n\nimage "
                 "horovod/horovod:0.28.1. Need it as an MPIJob in ns hvd, two workers with 8 GPUs each.", RECIPES)
    assert g.params["program"] == ["python", "/workspace/train_hvd.py", "--epochs", "90"]
    assert g.params["image"] == "horovod/horovod:0.28.1"
    assert any("NCCL_IB_HCA" in u for u in g.unused)
