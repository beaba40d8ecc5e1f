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
