"""Amounts and names that belong to something else than the parameter nearby: a GPU amount next to
a container default, a value ruled out once and mentioned again, a difference between nodes, a
count of failures, a value someone else had, a launcher inside a launcher, a product's proper
name after "called", and a claim named on its own."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params, normalise_text
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _values(recipe_id: str, text: str) -> dict:
    return extract_params(find_recipe(recipe_id, RECIPES), text).values


# A number counted in GPUs is no default CPU, whether the GPU word comes after it or before it
@pytest.mark.parametrize("text", [
    "quota for namespace ads: 10 GPUs total, every container defaults to 2 GPU and may not exceed 4",
    "quota for namespace ads: 10 GPUs total; default GPU per container is 0, max 4 per container",
])
def test_a_gpu_amount_is_no_default_cpu(text):
    assert "default_cpu" not in _values("gpu-quota", text)


def test_a_cpu_default_still_reads():
    values = _values("gpu-quota", "quota for namespace ads: 10 GPUs; containers that set nothing should default to 2 CPU and 8Gi")
    assert values.get("default_cpu") == "2"


# A value ruled out stays out when it is mentioned again in the story
@pytest.mark.parametrize("text", [
    "karpenter nodepool for p5 training, never on spot - a spot interruption killed our last run",
    "karpenter nodepool for p5 training; we never run on spot instances, since spot capacity vanished twice",
])
def test_a_value_ruled_out_stays_out(text):
    assert _values("karpenter-gpu-nodepool", text).get("capacity_types") == ["on-demand"]


def test_a_difference_between_nodes_is_the_skew_not_a_count():
    values = _values("topology-spread-training", "spread my 12 training pods (one GPU each) so that no node has "
                                                 "more than one more than any other")
    assert values.get("workers") == 12
    assert values.get("max_skew") == 1


def test_what_happened_last_time_gives_no_second_count():
    values = _values("topology-spread-training", "my job has 8 pods with one GPU each and last time they all "
                                                 "landed on two nodes; spread them across nodes")
    assert values.get("workers") == 8


# How many fail is not how many there are; the threshold to give up at is its own parameter
def test_a_count_of_failures_is_not_the_count():
    values = _values("indexed-job", "indexed job over three hundred trials, 1 gpu each. A few trials failing is "
                                    "fine, if 2 trials fail keep going, but give up if more than 25 fail")
    assert values.get("completions") == 300
    assert values.get("max_failed_indexes") == 25


def test_failures_per_shard_are_not_the_failed_indexes():
    values = _values("indexed-job", "indexed job, 400 shards, 1 gpu each; give up on a shard after 2 failures and "
                                    "stop everything if more than 12 shards fail")
    assert values.get("max_failed_indexes") == 12
    assert values.get("backoff_limit_per_index") == 2


def test_the_image_someone_else_had_yields_to_ours():
    values = _values("mpijob", "like Omar's job, 2 workers x 8 gpus. img was nvcr.io/nvidia/pytorch:24.01-py3 in "
                               "his but use ours, registry.example.com/nlp/bert:1.2")
    assert values.get("image") == "registry.example.com/nlp/bert:1.2"


def test_an_inner_launcher_runs_the_program():
    values = _values("mpijob", "on Slurm we ran `srun -N 4 --gpus-per-node=8 mpirun python bench.py --steps 100`; "
                               "make it an MPIJob")
    assert values.get("program") == ["python", "bench.py", "--steps", "100"]


def test_a_slurm_array_index_is_the_completion_index():
    values = _values("indexed-job", "port this array job: #SBATCH --array=0-31 and "
                                    "`srun python score.py --part $SLURM_ARRAY_TASK_ID`")
    assert values.get("command") == ["python", "score.py", "--part", "$(JOB_COMPLETION_INDEX)"]


def test_a_lustre_mount_source_gives_the_mount_name():
    values = _values("fsx-lustre-static", "we mount it with `mount -t lustre fs-0123456789abcdef1.fsx.eu-west-1."
                                          "amazonaws.com@tcp:/ab12cd34 /mnt/fsx`; make a PV and PVC")
    assert values.get("mount_name") == "ab12cd34"
    assert values.get("region") == "eu-west-1"


# "config name" is the ConfigMap the ClusterPolicy points at, unless a ConfigMap is named too
@pytest.mark.parametrize("recipe_id", ["time-slicing", "mps-sharing"])
def test_config_name_is_the_configmap(recipe_id):
    values = _values(recipe_id, "share each GPU 4 ways, config name shared-l4")
    assert values.get("configmap_name") == "shared-l4"
    both = _values(recipe_id, "share each GPU 4 ways, config name l4-four, configmap sharing-cm")
    assert both.get("configmap_name") == "sharing-cm" and both.get("config_key") == "l4-four"


def test_a_product_called_by_its_proper_name_names_nothing():
    values = _values("ibm-storage-scale", "our center runs GPFS (it's called IBM Storage Scale now); a 1Ti claim "
                                          "on file system fs1 please")
    assert "name" not in values


def test_who_handed_a_value_over_stands_between_cue_and_value():
    values = _values("ibm-storage-scale", "GPFS claim of 1Ti on gpfs0; the cluster id the storage team gave us is "
                                          "9988776655443322")
    assert values.get("cluster_id") == "9988776655443322"


# A claim is named on its own; the claim used to be <name>-claim whatever the request said
@pytest.mark.parametrize("recipe_id,text", [
    ("fsx-lustre-static", "existing FSx file system fs-0123456789abcdef0 in us-east-1, mount name abcd1234, "
                          "call the claim team-data"),
    ("fsx-lustre-dynamic", "scratch FSx StorageClass fsx-tmp in subnet subnet-0123456789abcdef0, PVC `team-data`"),
    ("ibm-storage-scale", "GPFS storage class on gpfs0 and a 2Ti claim; name the claim team-data"),
])
def test_the_claim_takes_the_name_given_to_it(recipe_id, text):
    from gpukb.recipes.render import render_documents

    recipe = find_recipe(recipe_id, RECIPES)
    values = extract_params(recipe, text).values
    assert values.get("claim_name") == "team-data"
    docs = render_documents(recipe, values)
    claims = [d for d in docs if d.get("kind") == "PersistentVolumeClaim"]
    assert [c["metadata"]["name"] for c in claims] == ["team-data"]


def test_deploy_after_a_word_naming_it_is_a_deployment():
    assert "reranker deployment from" in normalise_text("same as the reranker deploy from yesterday")
    assert normalise_text("we need to deploy from the registry") == "we need to deploy from the registry"
