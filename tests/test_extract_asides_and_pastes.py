"""Requests that name a thing with an aside in brackets, take a number back with a bare "no", paste a
command before asking for its manifest (a launcher line that goes on with a backslash, a cloud CLI
call with quoted filters, a container run line whose sizes the words then restate), say a size
roughly, pick a few values out of a pasted list, paste the Job a gang is for, or name the gang's
least in their own words."""

import pytest

from gpukb.recipes import generate
from gpukb.recipes.extract import manifest_paths
from gpukb.recipes.model import load_recipes


def gen(text):
    return generate(text, llm=False)


@pytest.mark.parametrize("text,target", [
    ("asr-api (our Triton deployment in speech) should autoscale on GPU utilisation, target 70%, 1 to 5 replicas",
     "asr-api"),
    ("please autoscale rerank-svc (a Deployment, namespace search) on gpu util 60%, max 4", "rerank-svc"),
])
def test_a_name_then_its_kind_in_brackets_is_what_scales(text, target):
    g = gen(text)
    assert g.recipe == "hpa-gpu-metric"
    assert g.params["deployment"] == target and "deployment" in g.from_request, g.params


def test_a_namespace_in_brackets_is_no_name_of_a_namespace():
    g = gen("pytorchjob bert-ft (ns research) 2 nodes 8 gpus")
    assert g.params["namespace"] == "research" and g.params["name"] == "bert-ft", g.params


@pytest.mark.parametrize("text,param,value", [
    ("volcano job `sweep`, 6 workers.. no, 4 is plenty, 2 gpus each", "workers", 4),
    ("indexed job `embed`, 200 shards, 16 at once, no, 12 at once is safer, 1 gpu each", "parallelism", 12),
])
def test_a_bare_no_takes_the_number_back(text, param, value):
    g = gen(text)
    assert g.params[param] == value, g.params


def test_a_launcher_line_that_goes_on_ends_with_its_last_line():
    g = gen("On the old cluster:\n\n    mpirun -np 8 --bind-to none -x NCCL_DEBUG=WARN \\\n"
            "      /opt/bench/alltoall_perf -b 1M -e 1G\n\nWe need that as an MPIJob with 2 workers, name a2a.")
    assert g.recipe == "mpijob"
    assert g.params["program"] == ["/opt/bench/alltoall_perf", "-b", "1M", "-e", "1G"], g.params


def test_a_cloud_cli_filter_names_nothing():
    g = gen('$ aws ec2 describe-instance-types --filters "Name=instance-type,Values=p5.*" --output text\n'
            "p5.48xlarge  8\n\nKarpenter pool `h100-train` for p5.48xlarge, cluster `research`, on-demand only.")
    assert g.params["name"] == "h100-train", g.params


def test_values_picked_out_of_a_pasted_list_are_the_list():
    g = gen("Sizes we could use:\ng5.xlarge 1\ng5.2xlarge 1\ng5.12xlarge 4\ng5.48xlarge 8\n\n"
            "Of those we only want g5.2xlarge and g5.48xlarge in a Karpenter nodepool `a10g`, cluster `prod`.")
    assert g.params["instance_types"] == ["g5.2xlarge", "g5.48xlarge"], g.params


def test_a_list_said_once_is_kept_whole():
    g = gen("karpenter nodepool gpu-a for g5.xlarge, g5.2xlarge and g5.12xlarge; cluster ml; on-demand only")
    assert g.params["instance_types"] == ["g5.xlarge", "g5.2xlarge", "g5.12xlarge"], g.params


def test_a_plain_word_after_part_of_a_name_is_no_value():
    g = gen("We moved to DRA and want to stop using the device plugin on the eval nodes: a pod `judge` that gets "
            "one H100 through a ResourceClaimTemplate")
    assert g.recipe == "dra-gpu-claim-pod"
    assert "device_class" not in g.from_request, g.params


def test_a_rough_size_is_the_only_one_its_words_name():
    g = gen("vllm deployment mistral, 2 GPUs (won't fit on one), A100 80GB nodes only. give it 96 gigs of ram... "
            "actually make that 128, the tokenizer is hungry. cache the weights in an emptyDir at /models, ~200Gi. ns llm")
    assert g.params["cache_size"] == "200Gi" and g.params["memory"] == "128Gi", g.params


def test_what_a_pasted_run_line_says_gives_way_to_the_words():
    g = gen("Locally we do:\ndocker run --gpus 4 -v hf-cache:/opt/hf -e HF_HOME=/opt/hf --tmpfs /scratch:size=40g "
            "ghcr.io/acme/eval:3 ...\nOn k8s I'd like the same as a single pod `evalbox` in ns `eval`: 4 GPUs, the HF "
            "cache as a 500Gi volume that lives and dies with the pod, mounted at /opt/hf, 40Gi of scratch, and reserve "
            "100Gi of node disk with a hard ceiling of 200Gi so it doesn't get evicted.")
    assert g.recipe == "model-cache-ephemeral"
    assert g.params["cache_size"] == "500Gi" and g.params["scratch_size"] == "40Gi", g.params


def test_the_field_a_template_writes_a_parameter_into_names_that_parameter():
    recipe = next(r for r in load_recipes() if r.id == "coscheduling-podgroup")
    paths = manifest_paths(recipe)
    assert ("spec", "parallelism") in paths["members"]
    assert not any(("spec", "parallelism") == p for p in paths.get("min_member", []))
    g = gen("Current job:\n```yaml\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ring-test\nspec:\n"
            "  parallelism: 6\n  completions: 6\n  template:\n    spec:\n      containers:\n      - name: w\n"
            "        image: ghcr.io/acme/ring:1\n        resources:\n          limits:\n            nvidia.com/gpu: 2\n"
            "```\nMake it gang scheduled with the coscheduling plugin.")
    assert g.recipe == "coscheduling-podgroup"
    assert g.params["members"] == 6, g.params


@pytest.mark.parametrize("text,param", [
    ("volcano job `retrain`, 5 workers x 2 GPUs, gang minimum 4 pods", "min_available"),
    ("coscheduling podgroup for 10 pods, minimum gang size 8", "min_member"),
])
def test_the_gangs_least_named_as_such(text, param):
    g = gen(text)
    assert g.params[param] == int(text.split()[-2] if text.endswith("pods") else text.split()[-1]), g.params


def test_a_table_of_expressions_and_priorities():
    g = gen("Cluster autoscaler priority expander, in this order:\n\n  pattern            priority\n"
            "  .*h100-resv.*      90\n  .*a100-spot.*      40\n\nno catch-all.")
    assert g.params["priorities"] == {".*h100-resv.*": 90, ".*a100-spot.*": 40}, g.params


@pytest.mark.parametrize("text,recipe", [
    ("KEDA is not installed on that cluster, so an HPA for deployment `ranker` on gpu util 70%, 1 to 4 replicas",
     "hpa-gpu-metric"),
    ("We don't have volcano here; coscheduling podgroup for an 8 pod job please", "coscheduling-podgroup"),
])
def test_a_tool_ruled_out_after_its_name_is_not_asked_for(text, recipe):
    assert gen(text).recipe == recipe


def test_a_pasted_key_under_the_key_it_belongs_to():
    g = gen("Our scheduler-plugins values:\n```yaml\nscheduler:\n  name: gang-sched\n  namespace: sched-system\n```\n"
            "Coscheduling podgroup for a 4 pod job `align`, 2 GPUs per pod.")
    assert g.params["scheduler_name"] == "gang-sched" and g.params["scheduler_namespace"] == "sched-system", g.params


def test_a_numbered_list_of_expressions_and_priorities():
    g = gen("Priority expander config, order:\n1. reserved groups (match `.*h100-resv.*`), priority 80\n"
            "2. spot groups `.*gpu-spot.*`, 40\n3. on-demand groups `.*gpu-od.*`, 5\nNo catch-all.")
    assert g.params["priorities"] == {".*h100-resv.*": 80, ".*gpu-spot.*": 40, ".*gpu-od.*": 5}, g.params


def test_how_pods_share_a_node_is_no_count_of_them():
    g = gen("Training with 6 pods, 8 GPUs each, spread one pod per node (never two pods on the same node, strictly), "
            "name `bert-spread`, namespace nlp")
    assert g.recipe == "topology-spread-training"
    assert g.params["workers"] == 6, g.params


@pytest.mark.parametrize("text,param,value", [
    ("volcano job `rollout`, 10 workers with 2 GPUs, the gang has to be at least 8 pods", "min_available", 8),
    ("spread the 9 training pods of `vit-l` over zones, uneven by one at most, 4 GPUs each", "max_skew", 1),
])
def test_a_bound_in_other_words(text, param, value):
    g = gen(text)
    assert g.params[param] == value, g.params


def test_preempting_lower_said_plainly_and_any_as_a_plain_word():
    g = gen("ClusterQueue `shared-cq` for jobs from any namespace, 16 GPUs on flavor `a100`; within the queue higher "
            "priority may preempt lower. LocalQueue `shared` in ns `lab`.")
    assert g.params["within_cluster_queue"] == "LowerPriority", g.params
    assert "reclaim_within_cohort" not in g.from_request, g.params


@pytest.mark.parametrize("text,recipe", [
    ("TEI for search:\n* image ghcr.io/huggingface/text-embeddings-inference:1.5\n* listens on port 80, health at "
     "/health\n* 1 GPU, 8Gi RAM\n* weights cached in a 20Gi volume at /data\n* name tei-e5, ns search",
     "gpu-inference-deployment"),
])
def test_an_embeddings_server_is_an_inference_deployment(text, recipe):
    assert gen(text).recipe == recipe


def test_a_bare_cap_on_replicas_and_a_quarter_hour_beside_a_correction():
    g = gen("HPA (KEDA isn't installed there) for deployment `summ` in `docs`, scale on vllm:num_requests_waiting, "
            "target 6 per pod; never fewer than 2 replicas, capped at 6, sorry, capped at 9. Scale-down should wait a "
            "quarter of an hour.")
    assert g.recipe == "hpa-gpu-metric"
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (2, 9), g.params
    assert g.params["scale_down_stabilization_seconds"] == 900, g.params


def test_a_second_spread_said_not_to_be_strict_stays_soft():
    g = gen("8 training pods with 4 GPUs each, strictly one pod per node, and also balance them between the zones, "
            "but that one is not strict. Name `asr-ft`, namespace speech")
    assert g.recipe == "topology-spread-training"
    assert g.params["when_unsatisfiable"] == "DoNotSchedule", g.params
    assert g.params["also_when_unsatisfiable"] == "ScheduleAnyway", g.params


def test_a_standalone_exporter_and_a_window_in_words():
    g = gen("dcgm-exporter runs standalone in `metrics`, release `prom`; ServiceMonitor plus GPU alerts, flag GPUs "
            "as idle if they average under 5% over a three-hour window")
    assert g.recipe == "dcgm-servicemonitor-alerts"
    assert g.params["exporter_namespace"] == "metrics", g.params
    assert g.params["idle_window_seconds"] == 10800, g.params


def test_an_amount_restated_in_brackets_is_not_reported():
    g = gen("karpenter nodepool `gpu` for cluster `ml`, expire nodes after 30 days (720h), on-demand only")
    assert g.params["expire_after"] == "720h", g.params
    assert not any("720h" in u for u in g.unused), g.unused
