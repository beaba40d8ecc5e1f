"""Requests dictated by voice ("llama dash seven b"), upper bounds said as what must not happen ("must
not exceed 20"), corrections after "..", a cue that is one part of another parameter's longer cue
("permit waiting" beside "wait"), and a name part's first letters ("time" of timeout) as weak cues."""

import pytest

from gpukb.recipes import generate
from gpukb.recipes.extract import normalise_text


def gen(text):
    return generate(text, llm=False)


@pytest.mark.parametrize("said,written", [
    ("call it llama dash eval dash nightly", "call it llama-eval-nightly"),
    ("namespace team hyphen vision please", "namespace team-vision please"),
    ("the job is called r dash n n dash sweep", "the job is called r-nn-sweep"),
])
def test_a_dictated_dash_joins_the_words_of_a_name(said, written):
    assert normalise_text(said) == written


def test_the_word_dash_alone_is_no_hyphen():
    assert normalise_text("a grafana dashboard and a dash of salt") == "a grafana dashboard and a dash of salt"


def test_a_dictated_name_and_namespace_are_read_whole():
    g = gen("make an indexed job called video dash embed in the media dash ml namespace with four hundred "
            "completions one GPU each twenty at a time")
    assert g.params["name"] == "video-embed" and g.params["namespace"] == "media-ml", g.params
    assert g.params["completions"] == 400 and g.params["parallelism"] == 20, g.params


@pytest.mark.parametrize("text,param,value", [
    ("ResourceQuota for ns vision-lab: GPUs must not exceed 12, 96 cpu", "gpus", 12),
    ("quota for namespace speech: the total GPU requests shall not exceed 40", "gpus", 40),
    ("namespace quota for team-nlp: 16 GPUs, and the pod count is not to exceed 120", "max_pods", 120),
    ("quota for ns nlp, 8 gpus, pods never exceed 50", "max_pods", 50),
])
def test_an_upper_bound_said_as_what_must_not_happen_is_the_amount(text, param, value):
    g = gen(text)
    assert g.recipe == "gpu-quota"
    assert g.params[param] == value and param in g.from_request, g.params


def test_the_pair_of_bounds_holds_when_the_upper_one_is_said_as_must_not_exceed():
    g = gen("pytorchjob `asr-big`, elastic: at least 3 workers, and the worker count must not exceed 9, 8 gpus each")
    assert (g.params["min_workers"], g.params["max_workers"]) == (3, 9), g.params


@pytest.mark.parametrize("text,param,value", [
    ("rwx pvc `corpus` in ns nlp, 6Ti.. no 8Ti, storage class cephfs", "size", "8Ti"),
    ("rwx pvc `corpus` in ns nlp, 6Ti, no 8Ti, storage class cephfs", "size", "8Ti"),
    ("hpa for deployment `asr` in ns speech on gpu util, 2 to 12 replicas, no wait, the budget says 6, target 70",
     "max_replicas", 6),
])
def test_a_bare_no_before_another_amount_takes_the_first_back(text, param, value):
    g = gen(text)
    assert g.params[param] == value, g.params


def test_a_cue_inside_another_parameters_longer_cue_belongs_to_that_one():
    g = gen("PodGroup `gang-a` in ns ml, 6 pods, 1 GPU each; set the permit waiting time to 3 minutes, and the "
            "group may wait 15 minutes before the pods are rejected")
    assert g.params["permit_waiting_seconds"] == 180, g.params
    assert g.params["schedule_timeout_seconds"] == 900, g.params


def test_never_more_than_n_running_at_once_is_the_parallelism_not_the_count():
    g = gen("indexed job `tile-embed`: the input is 2,400 map tiles, one pod per tile, never more than 30 tiles "
            "running at the same time, 1 GPU per pod")
    assert g.params["parallelism"] == 30 and g.params["completions"] == 2400, g.params


@pytest.mark.parametrize("text", [
    "time-slicing, 4 replicas per GPU. The driver on these nodes is preinstalled.",
    "time-slicing with 4 replicas; the drivers in our AMI are already pre-installed",
])
def test_an_installed_thing_with_its_place_between_is_still_in_that_state(text):
    g = gen(text)
    assert g.params["driver_enabled"] is False and "driver_enabled" in g.from_request, g.params


def test_on_before_a_place_is_no_switch():
    g = gen("time-slicing 4 replicas per GPU; the drivers on those hosts came with the image")
    assert g.params.get("driver_enabled") is not True or "driver_enabled" not in g.from_request, g.params


def test_a_list_value_in_a_pasted_manifest_is_not_asked_for():
    g = gen("""Our current pool:

```yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: l4-od
spec:
  template:
    spec:
      requirements:
      - key: karpenter.sh/capacity-type
        operator: In
        values: ["on-demand"]
```

Make a new karpenter pool `l4-spot` for cluster ml-prod with L4 GPUs on spot capacity only, at most 16 GPUs.""")
    assert g.params["capacity_types"] == ["spot"], g.params


def test_flags_of_a_launcher_are_no_program():
    g = gen("MPIJob nccl-sweep in ns bench, 4 workers with 8 GPUs each, Intel MPI so use the Hydra mpirun options. "
            "Program: `/opt/nccl-tests/all_reduce_perf -b 8 -e 8G`")
    assert g.params["program"][0] == "/opt/nccl-tests/all_reduce_perf", g.params


@pytest.mark.parametrize("text,param,value", [
    ("rwx pvc, 10Ti on cephfs; the namespace we need is vision-data and the name we'd like is shared-imgs",
     "name", "shared-imgs"),
    ("rwx pvc, 10Ti on cephfs; the namespace we need is vision-data and the name we'd like is shared-imgs",
     "namespace", "vision-data"),
])
def test_the_thing_someone_wants_is_named_by_what_follows(text, param, value):
    g = gen(text)
    assert g.params[param] == value and param in g.from_request, g.params


def test_a_family_and_its_pinned_version_after_a_comma_are_one_alias():
    g = gen("karpenter pool l40s-infer on cluster prod-usw2-ml, L40S GPUs, AMI: Bottlerocket, pinned to v1.32.0, "
            "at most 48 GPUs")
    assert g.params["ami_alias"] == "bottlerocket@v1.32.0", g.params


def test_a_quoted_gpu_product_label_names_no_job():
    g = gen("Moving our training run to k8s as a PyTorchJob: 2 nodes with 8 GPUs each, "
            "the nodes show up as `NVIDIA-A100-SXM4-80GB`")
    assert "name" not in g.from_request, g.params
    assert g.params["gpu_product"] == "NVIDIA-A100-SXM4-80GB", g.params
