"""Roles listed together ("1 master + 4 workers") and what is said of each later, a per-pod bound
worded by who holds the GPUs ("nobody takes more than 4 at once"), a take-back that ends in "instead",
a mistyped modal before "be", form labels with a qualifier ("GPUs requested: 12"), paired names and
values ("uid/gid 1001/1001"), and sharing worded as what runs at once."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import extract_params, normalise_text
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


def _read(recipe_id: str, text: str) -> dict:
    return dict(extract_params(find_recipe(recipe_id, RECIPES), text).values)


def test_roles_listed_together_are_tasks_and_later_words_about_each_fill_it():
    got = _read("volcano-job", "Volcano job, gang scheduled: 1 master + 4 workers. The master only does rendezvous "
                               "so it doesn't need a GPU at all, the workers get 8 GPUs each. Queue ml-prod.")
    assert got["tasks"] == [{"replicas": 1, "name": "master", "gpus": 0}, {"replicas": 4, "name": "worker", "gpus": 8}]


def test_words_about_one_role_do_not_spill_into_the_segment_of_another():
    got = _read("volcano-job", "volcano job, one learner and a dozen actors; actors are cpu-only, the learner gets 8 gpus")
    assert got["tasks"] == [{"replicas": 1, "name": "learner", "gpus": 8}, {"replicas": 12, "name": "actor", "gpus": 0}]


def test_a_count_listed_with_a_role_is_no_task_unless_it_names_a_role():
    got = _read("volcano-job", "volcano job with 3 retries and 4 workers of 8 gpus")
    assert "tasks" not in got
    assert got["workers"] == 4 and got["gpus"] == 8


@pytest.mark.parametrize(("recipe_id", "text", "bound"), [
    ("gpu-quota", "cap genomics at 24 GPUs total, and nobody should take more than 4 at once in a single pod", 4),
    ("gpu-quota", "quota for rl-lab: twenty-four gpus total and nobody in there takes more as 8 at once", 8),
    ("tenant-onboarding", "onboard team vision: 16 gpus, no one may use more than 2 GPUs", 2),
])
def test_a_bound_worded_by_who_holds_the_gpus_is_the_per_pod_limit(recipe_id, text, bound):
    assert _read(recipe_id, text)["max_gpus_per_pod"] == bound


def test_a_bound_by_nobody_without_a_unit_needs_at_once():
    got = _read("gpu-quota", "quota for rl-lab: 24 gpus, nobody has more than 3 namespaces")
    assert "max_gpus_per_pod" not in got


def test_a_take_back_ending_in_instead_replaces_the_amount():
    got = _read("pytorchjob", "pytorchjob llama3-sft, ns nlp-ft. 4 nodes x 8 gpus... wait no, the 8-gpu boxes are "
                              "booked all week, do 4 gpus per node instead. still 4 nodes")
    assert got["gpus"] == 4 and got["nodes"] == 4


def test_wait_no_takes_an_amount_back():
    got = _read("gpu-quota", "quota for team-nlp: 16 gpus, wait no, 24 gpus")
    assert got["gpus"] == 24


@pytest.mark.parametrize("typed", ["shoud", "shuold", "sholud", "shold"])
def test_a_mistyped_modal_before_be_is_no_name(typed):
    got = _read("gpu-pod", f"one GPU pod, image pytorch/pytorch:2.3.1, the pod name {typed} be lena-exp1")
    assert got["name"] == "lena-exp1"


def test_a_form_label_with_a_qualifier_gives_the_count():
    got = _read("tenant-onboarding", "Team / tenant name: robotics\nGPUs requested: a dozen\nCPU cores: 96")
    assert got["gpus"] == 12 and got["cpu"] == 96


@pytest.mark.parametrize(("text", "want"), [
    ("Owner uid/gid: 1001 / 1001", "Owner uid 1001, gid 1001"),
    ("cpu/mem: 8/32Gi per pod", "cpu 8, mem 32Gi per pod"),
    ("elastic min/max 2/8 workers", "elastic min 2, max 8 workers"),
])
def test_paired_names_take_their_values_in_order(text, want):
    assert normalise_text(text) == want


def test_a_path_or_a_ratio_is_no_pair():
    text = "image nvcr.io/nvidia/pytorch:24.10 and 2/4 gpus"
    assert normalise_text(text) == text


def test_paired_uid_and_gid_fill_both():
    got = _read("ibm-storage-scale", "Storage Scale, file system gpfs-ai01, dependent fileset, 10Ti, claim team-scratch, "
                                     "owner uid/gid 1001 / 1002")
    assert got["uid"] == 1001 and got["gid"] == 1002


@pytest.mark.parametrize(("recipe_id", "text", "n"), [
    ("time-slicing", "Each T4 shall be advertised to the scheduler as 6 schedulable GPUs using time-slicing", 6),
    ("mps-sharing", "share each gpu with MPS for 3 inferense process at same time", 3),
    ("time-slicing", "time slicing so 4 notebooks can run concurrently on each T4", 4),
])
def test_sharing_worded_as_what_runs_at_once(recipe_id, text, n):
    assert _read(recipe_id, text)["replicas"] == n


def test_listed_values_keep_the_order_of_the_place_they_are_named_together():
    got = _read("karpenter-gpu-nodepool", "we want Karpenter to provision GPU nodes on demand instead of a static group. "
                                          "NodePool gpu-batch: g5.12xlarge only, spot and on-demand, 64 GPUs total")
    assert got["capacity_types"] == ["spot", "on-demand"]


@pytest.mark.parametrize(("said", "preempts"), [
    ("w/ preemption never", False), ("preemptionPolicy: Never", False), ("preempt lower", True),
])
def test_a_class_preemption_policy_named_with_its_value(said, preempts):
    got = _read("priority-classes", f"2 priorityclasses: gpu-high 100000 preempt lower, gpu-low 10 {said}")
    low = [c for c in got["classes"] if c["name"] == "gpu-low"][0]
    assert low["preempt"] is preempts


def test_a_take_back_to_a_decimal_size_keeps_the_decimal():
    assert "2.5" in normalise_text("a shared volume, ~3 TiB... hmm no, 2.5Ti is enough")
    got = _read("rwx-dataset-pvc", "shared read-only volume, ~3 TiB... hmm no, 2.5Ti is enough. storage class cephfs")
    assert got["size"] in ("2.5Ti", "2560Gi")


@pytest.mark.parametrize(("said", "want"), [("a TB and a half", "1.5 TB"), ("3 TiB and a half", "3.5 TiB")])
def test_a_size_and_a_half(said, want):
    assert normalise_text(f"a volume of {said} on fs_ai") == f"a volume of {want} on fs_ai"


def test_a_time_and_a_half_still_reads_as_hours():
    assert normalise_text("delete it two and a half hours after it finishes") == "delete it 2.5 hours after it finishes"


def test_a_count_written_with_x_before_a_profile():
    got = _read("dra-gpu-claim-pod", "resourceclaim-style pod pls, 2x 1g.10gb MIG devices, pod name mig-probe")
    assert got["count"] == 2 and got["mig_profile"] == "1g.10gb"


def test_retrying_said_as_trying_again():
    got = _read("indexed-job", "indexed job, 250 chunks, image ghcr.io/lin/whisper:v3, $(JOB_COMPLETION_INDEX). "
                               "If a chunk fails, try it again, up to 4 times.")
    assert got["backoff_limit_per_index"] == 4


def test_the_least_a_gang_starts_with_and_a_scheduler_named_in_code_marks():
    got = _read("coscheduling-podgroup", "PodGroup + Job `allgather-bench`: 12 members with 1 GPU each; the gang needs "
                                         "at least 10 of them up to start. Scheduled by our second scheduler `sched-gang`.")
    assert got["min_member"] == 10 and got["members"] == 12 and got["scheduler_name"] == "sched-gang"


@pytest.mark.parametrize("recipe_id", ["hpa-gpu-metric", "keda-gpu-scaledobject"])
def test_the_object_to_autoscale_in_code_marks_is_the_deployment(recipe_id):
    got = _read(recipe_id, "Can we autoscale `sdxl-api` in ns `imagegen` on GPU utilization? between 2 and 12 replicas")
    assert got["deployment"] == "sdxl-api"


@pytest.mark.parametrize("said", ["stop rejecting pods that ask for more than one share",
                                  "Pods must NOT be rejected when they ask for more than one shared GPU"])
def test_not_rejecting_requests_for_several_shares(said):
    got = _read("time-slicing", f"time-slicing x8 on the notebook nodes. {said}.")
    assert got["fail_requests_greater_than_one"] is False


@pytest.mark.parametrize(("said", "want"), [("Call the config ts-t4", "ts-t4"),
                                            ("Device plugin config `dev-timeslice`, config key `t4`", "dev-timeslice")])
def test_the_config_named_by_a_verb_or_in_code_marks(said, want):
    got = _read("time-slicing", f"time-slicing, 4 users per T4. {said}.")
    assert got["configmap_name"] == want


@pytest.mark.parametrize(("said", "n"), [("shards shouldn't be retried at all", 0), ("retryStrategy limit 1", 1),
                                         ("no retries, if one fails it fails", 0)])
def test_retries_per_index_said_as_none_or_as_a_limit(said, n):
    got = _read("indexed-job", f"indexed job, 40 chunks, 5 at once, image x/y:1. {said}.")
    assert got["backoff_limit_per_index"] == n


@pytest.mark.parametrize("noun", ["images", "prompts", "tiles", "pages"])
def test_the_work_items_an_indexed_job_runs_over_are_its_completions(noun):
    got = _read("indexed-job", f"indexed job for 500 {noun}, 25 at once, 1 gpu each, image ghcr.io/x/ocr:2.1")
    assert got["completions"] == 500 and got["parallelism"] == 25


def test_defaults_for_containers_without_requests():
    got = _read("gpu-quota", "quota for ns vision-lab: 32 GPUs, 64 cpu. defaults for containers w/o requests: 1 cpu / 2Gi")
    assert got["cpu"] == 64 and got["default_cpu"] == "1" and got["default_memory"] == "2Gi"
