"""The object a request opens with, named by a whole noun, outweighs a feature keyword of
another recipe that describes it."""

from __future__ import annotations

import pytest

from gpukb.recipes.match import match_recipes
from gpukb.recipes.model import load_recipes


@pytest.mark.parametrize("text,want", [
    ("create a ClusterPolicy that turns on RDMA and points the mig manager at layouts-cm",
     "gpu-operator-clusterpolicy"),
    ("ClusterPolicy with GPUDirect storage on and the mig manager reading configmap parts-cm",
     "gpu-operator-clusterpolicy"),
    ("please write a cluster policy with time-slicing disabled and the dcgm exporter on",
     "gpu-operator-clusterpolicy"),
    ("ScaledObject for the vllm deployment, scale on gpu utilization via prometheus", "keda-gpu-scaledobject"),
    ("MIG config with three 2g.20gb per gpu", "mig-config"),
])
def test_opening_object_wins(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text,want", [
    ("6 pods with 4 gpus each, at most one pod per node", "topology-spread-training"),
    ("llama-ft: 4 finetune pods with 2 gpus apiece, never two of them on the same node, one pod per node",
     "topology-spread-training"),
    ("a pod with 2 gpus", "gpu-pod"),
    ("two pods with one gpu each", "gpu-pod"),  # nothing else makes several pods: the pod recipe stays
])
def test_several_of_an_object_a_recipe_makes_one_of(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text, want", [
    ("DRA pod with 4 GPUs, namespace infer", "dra-gpu-claim-pod"),  # the recipe makes that pod itself
    ("resourceclaimtemplate mig-2g for a 2g.20gb mig device", "dra-gpu-claim-pod"),  # a name, not a noun
    ("vc queue batch-low: 8 GPUs, 64 cores, priority 10", "volcano-queue"),  # the head names its object
    ("a pod w 1 gpu, image python:3.11, also an init container that pulls from s3", "gpu-pod"),
    ("autoscale deployment llama-chat on vllm:gpu_cache_usage_perc, averageValue 750m, max 6 replicas",
     "hpa-gpu-metric"),  # a manifest field only that recipe renders
    ("torchjob on the a100 pool, 2 gpus per pod", "pytorchjob"),
])
def test_recipe_named_in_other_ways(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text, want", [
    # a recipe that renders several of a kind is asked for with the plural
    ("two priorityclasses: model-serving at 900000 and batch at 10", "priority-classes"),
    # what each member gets describes the members already named
    ("we want to go through the training operator. one master plus two workers, each pod with 8 A100s",
     "pytorchjob"),
    # a system the user already runs is described, not asked for
    ("Prometheus for us lives at http://prom.monitoring:9090. Want KEDA to scale tgi-server on "
     "DCGM_FI_DEV_GPU_UTIL, threshold 70", "keda-gpu-scaledobject"),
    # "queue name" is the name of the queue, not Kueue's label
    ("vc queue name=research gpus=16 cpu=128", "volcano-queue"),
])
def test_plurals_members_and_existing_systems(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


_PASTED_POD = """can you turn this into something that lands on the GPU nodes?
```
metadata:
  name: probe
spec:
  containers:
  - name: main
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    resources:
      limits:
        nvidia.com/gpu: 2
```"""


@pytest.mark.parametrize("text, want", [
    # a pasted manifest is read by its fields and kind, not by its words
    (_PASTED_POD, "gpu-pod"),
    # the object a request opens with, named by its kind
    ("pod on the A100s pls, call it smoke-a, and it has to tolerate the lab taint", "gpu-pod"),
    ("one pod which is using a MIG slice of 1g.10gb, name mig-probe", "gpu-pod"),
    # what a request forbids is not what it asks for
    ("limit namespace vision to 8 gpus and forbid NodePort services", "gpu-quota"),
    # an extra object after the main one's spec
    ("model server, containerPort 9000, /dev/shm 8Gi, name srv-a. also add a HorizontalPodAutoscaler",
     "gpu-inference-deployment"),
    # a verb's object with a hyphenated name is no noun it qualifies
    ("autoscale vllm-qwen on vllm:num_requests_waiting, max 4 replicas, call the HPA qwen-hpa", "hpa-gpu-metric"),
    # a keyword at the tail of a hyphenated name is part of the name; a count before a hyphen is not
    ("limit the cv-team namespace to 6 gpus in total", "gpu-quota"),
    ("two-GPU pod called probe-b in ns infra", "gpu-pod"),
])
def test_pasted_manifests_kinds_forbidden_and_extra_objects(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text,want", [
    # the sharing recipe renders the ClusterPolicy too: the operator's settings are its settings
    ("mig all-1g.10gb on every a100, gpu operator namespace gpu-ops, drivers and toolkit are preinstalled on the nodes",
     "mig-config"),
    ("four MPS clients per gpu; the gpu operator is in ns nvidia and the driver is pre-installed, don't let the "
     "operator install it", "mps-sharing"),
    ("time slicing x4, gpu operator lives in gpu-system, driver preinstalled and toolkit preinstalled", "time-slicing"),
    # a kind's noun names no recipe: a claim on a storage class is still the claim
    ("read-write-many claim of 2Ti for the shared checkpoints, storageclass cephfs-rwx", "rwx-dataset-pvc"),
])
def test_a_recipe_that_renders_more_wins_when_its_own_keyword_is_there(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


def test_what_a_verb_of_change_leads_to_is_the_object():
    from gpukb.recipes import generate

    g = generate("porting `sbatch -N 4 --gres=gpu:8 -p gpu --qos=high` into Volcano, in queue batch with priority class "
                 "high, 4 workers of 8 gpus", llm=False)
    assert g.recipe == "volcano-job", g.recipe
    g = generate("our deployment runs vllm today; we want to move it to a LeaderWorkerSet across 2 nodes of 8 gpus",
                 llm=False)
    assert g.recipe == "lws-vllm", g.recipe
    g = generate("we have time-slicing with 4 replicas today and want to switch to MPS, 4 clients per gpu", llm=False)
    assert g.recipe == "mps-sharing", g.recipe


def test_a_means_without_an_article_is_the_object_a_path_with_one_a_detail():
    from gpukb.recipes import generate

    g = generate("The new cluster only hands out GPUs through DRA. Give me a pod that gets 2 H100s that way", llm=False)
    assert g.recipe == "dra-gpu-claim-pod", g.recipe
    g = generate("leader worker set for llama 405b, 2 pods of 8 gpus, submitted through the Kueue queue serving",
                 llm=False)
    assert g.recipe == "lws-vllm", g.recipe


@pytest.mark.parametrize("text,want", [
    ("please scale the whisper deployment with keda, 0 to 4 replicas", "keda-gpu-scaledobject"),
    ("we want to share each L4 between notebooks using MPS, 4 clients", "mps-sharing"),
    ("scale the whisper deployment between 1 and 4 replicas on gpu util 70%", "hpa-gpu-metric"),
    # a path named with a comma between is no means: the object stays the job
    ("can you scale this pytorchjob to 1 master + 3 workers, and submit it via the volcano queue 'ml'", "pytorchjob"),
])
def test_the_tool_after_a_verb_of_scaling_or_sharing_is_the_object(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text,want", [
    ("gpfs claim 2Ti on fs1 in ns bio", "ibm-storage-scale"),
    ("lustre pvc for the existing fsx fs-0abc, 1200 GiB, mount name abcd", "fsx-lustre-static"),
])
def test_a_storage_keyword_before_a_kind_its_recipe_renders_names_that_recipe(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


def test_a_backend_named_as_a_detail_names_the_recipe_that_renders_the_claim_on_it():
    assert match_recipes("claim on our GPFS filesystem fs1, 3Ti, ns bio", load_recipes(), k=1)[0][0].id == \
        "ibm-storage-scale"
    assert match_recipes("rwx pvc 2Ti on efs-sc for the dataset", load_recipes(), k=1)[0][0].id == "rwx-dataset-pvc"


def test_a_gpu_model_or_product_label_names_no_recipe():
    from gpukb.recipes import match_recipes

    # the model and label are where the pod runs, not a MIG layout
    top = match_recipes("my jupyter session should get one full A100 (NVIDIA-A100-SXM4-40GB) to itself, no slices")[0][0]
    assert top.id == "gpu-pod", top.id
    # ... while a model still reads as a GPU in a recipe's phrase
    assert match_recipes("a pod spec that grabs two A10G cards, image nvidia/cuda:12.4.1-base-ubuntu22.04")[0][0].id == "gpu-pod"


@pytest.mark.parametrize("text, want", [
    # one component's recipe is named, yet every detail is a setting of the ClusterPolicy
    ("keep operator v26.3.3, driver version 580.65.06, runtime crio and the dcgm exporter servicemonitor switched on",
     "gpu-operator-clusterpolicy"),
    # the request reads as a GPU pod, but its details are those of the model cache recipe
    ("gpu pod sdxl-warm with 1 GPU, the model cache mounted at /cache with 80Gi, ephemeral request 100Gi and "
     "limit 200Gi", "model-cache-ephemeral"),
])
def test_a_recipe_that_reads_clearly_more_of_the_request_wins(text, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).recipe == want


@pytest.mark.parametrize("text, want", [
    # the tool turned away from is what was, the one after it what is asked for
    ("security rejected time-slicing for the shared pool since clients can read each other's memory; go with MPS, "
     "4 clients per card", "mps-sharing"),
    ("MIG didn't work for us on the L4s (not supported); share them by time-slicing 4 ways", "time-slicing"),
    ("we are moving away from volcano to kueue: clusterqueue for team cv with 16 gpus", "kueue-cluster-queue"),
])
def test_a_tool_the_request_turns_away_from_is_not_asked_for(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text, want", [
    # the kind given with its name says which object is asked for
    ("llama 70b at tensor parallel 8 on one node, 2 replicas.\nDeployment name llama-chat, image "
     "vllm/vllm-openai:v0.6.1", "gpu-inference-deployment"),
    ("MPIJob: nccl-allreduce\nworkers 4, 8 gpus each, run by torchrun style launcher", "mpijob"),
])
def test_a_kind_given_with_its_name_is_the_object_asked_for(text, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).recipe == want


@pytest.mark.parametrize("text", [
    "split every A100 into two 3g.40gb halves for the interns",
    "cut each H100 into seven 1g.10gb pieces; the driver is preinstalled (DGX OS)",
    "three 2g.20gb instances per GPU on the A100 80GB nodes",
])
def test_a_gpu_divided_by_a_mig_profile_asks_for_the_layout(text):
    from gpukb.recipes import generate

    assert generate(text, llm=False).recipe == "mig-config"


@pytest.mark.parametrize("text", [
    "pod on one of the 3g.40gb slices of our MIG-partitioned A100s, image nvcr.io/nvidia/pytorch:24.05-py3",
    "a debug pod with a 1g.10gb slice on the partitioned cards",
])
def test_a_pod_on_an_already_partitioned_gpu_is_a_pod(text):
    from gpukb.recipes import generate

    assert generate(text, llm=False).recipe == "gpu-pod"


@pytest.mark.parametrize("text", [
    "6 training pods with 4 gpus each, allow a skew of 1 between zones",
    "make sure the 3 parts of the training job land on 3 different machines, 8 GPUs each",
])
def test_spreading_said_plainly_asks_for_topology_spread(text):
    from gpukb.recipes import generate

    assert generate(text, llm=False).recipe == "topology-spread-training"
