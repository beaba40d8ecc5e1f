"""Requests that give a period as an adverb ("weekly"), a count as one of a thing for each of another
("one pod per file" after "500 files"), a second scheduler as a profile, shared GPUs under a resource
name of their own, or one word of a parameter's name before a plain noun ("product descriptions")."""

import pytest

from gpukb.recipes import generate


def gen(text):
    return generate(text, llm=False)


@pytest.mark.parametrize("text,value", [
    ("karpenter nodepool gpu-spot for L4s, recycle the nodes weekly", "168h"),
    ("karpenter nodepool gpu-od, g6 instances, replace nodes daily so they pick up new AMIs", "24h"),
])
def test_a_period_said_as_an_adverb_is_a_duration(text, value):
    g = gen(text)
    assert g.recipe == "karpenter-gpu-nodepool"
    assert g.params["expire_after"] == value and "expire_after" in g.from_request, g.params


@pytest.mark.parametrize("text,param,value", [
    ("We have 500 audio files to transcribe. Indexed job, one pod per file, one GPU each, 20 in parallel",
     "completions", 500),
    ("indexed job over 2,000 parquet shards, one pod per shard, at most 40 at once, 1 gpu", "completions", 2000),
    ("one pod per node for my six-node DDP job, 8 GPUs each, spread across hosts, call it ddp-x", "workers", 6),
    ("we've got 320 audio files to transcribe, 1 pod each, one GPU per pod, at most 16 at a time, indexed job asr-run",
     "completions", 320),
])
def test_one_of_a_thing_for_each_of_another_counts_as_many_as_those(text, param, value):
    g = gen(text)
    assert g.params[param] == value and param in g.from_request, g.params


def test_one_per_item_with_no_count_of_the_items_sets_no_count():
    g = gen("indexed job `embed`, one pod per shard, 1 gpu each")
    assert "completions" not in g.from_request, g.params


def test_one_word_of_a_parameters_name_then_a_plain_noun_is_no_value():
    g = gen("indexed job: 300 shards of product descriptions to embed, one GPU each, 10 at a time")
    assert "gpu_product" not in g.from_request, g.params


@pytest.mark.parametrize("text,value", [
    ("coscheduling for job ray-shuffle, six pods with 2 GPUs each, at least 4 together. Our second scheduler "
     "profile is `sched-gang`", "sched-gang"),
    ("gang-schedule job `ring` with the coscheduling plugin: 4 pods, 1 gpu each, scheduler profile: gang-sched",
     "gang-sched"),
])
def test_a_second_schedulers_profile_name_is_its_scheduler_name(text, value):
    g = gen(text)
    assert g.recipe == "coscheduling-podgroup"
    assert g.params["scheduler_name"] == value, g.params


def test_a_profile_that_enables_a_plugin_names_no_scheduler():
    g = gen("coscheduling PodGroup `eval-gang` in ns eval, minMember 6, 6 pods with 1 GPU each, scheduler named "
            "`sp-sched`. Scheduler profile enabling the Coscheduling plugin with permitWaitingTimeSeconds 60")
    assert g.params["scheduler_name"] == "sp-sched", g.params


@pytest.mark.parametrize("text,recipe", [
    ("CUDA MPS on the A100s, 8 clients per GPU, and advertise the shared GPUs under a different resource name",
     "mps-sharing"),
    ("time-slicing, 4 replicas per T4, shared GPUs under a separate resource name please", "time-slicing"),
])
def test_shared_gpus_under_a_resource_name_of_their_own_rename_them(text, recipe):
    g = gen(text)
    assert g.recipe == recipe
    assert g.params["rename_by_default"] is True and "rename_by_default" in g.from_request, g.params


def test_what_people_call_something_gives_no_name():
    g = gen("pytorchjob, 4 workers x 4 GPUs, torchrun may restart the group at most 50 times before we call it dead. "
            "Run name vitl-ablate-07, namespace vision-research.")
    assert g.params["name"] == "vitl-ablate-07", g.params
    assert gen("pytorchjob with 2 workers, 8 gpus each, call it bert").params["name"] == "bert"


def test_the_label_key_selected_by_takes_its_value_from_pasted_labels():
    g = gen("We installed dcgm-exporter ourselves from its helm chart, into namespace `gpu-mon`. kubectl get svc "
            "--show-labels shows\n\nNAME  TYPE  LABELS\ndcgm  ClusterIP  app.kubernetes.io/name=dcgm,tier=infra\n\n"
            "Select it by app.kubernetes.io/name. ServiceMonitor and alert rules go in `monitoring`.")
    assert g.recipe == "dcgm-servicemonitor-alerts"
    assert g.params["service_label_key"] == "app.kubernetes.io/name", g.params
    assert g.params["service_label_value"] == "dcgm", g.params
    assert g.params["exporter_namespace"] == "gpu-mon" and g.params["namespace"] == "monitoring", g.params


def test_a_count_per_replica_is_the_scaling_target():
    g = gen("KEDA ScaledObject for deployment `chat` in ns `gw`: scale on vLLM waiting requests, 3 per replica, "
            "1 to 12 replicas")
    assert g.params["threshold"] == "3", g.params


@pytest.mark.parametrize("text,param,value", [
    ("volcano job sweep, 8 workers, 1 gpu each. I was going to say min 6, but no, all 8 or nothing",
     "min_available", 8),
    ("coscheduling for job ring: 6 pods, 1 gpu each, all 6 pods or none", "min_member", 6),
])
def test_all_of_the_gang_or_nothing_is_its_least(text, param, value):
    g = gen(text)
    assert g.params[param] == value and param in g.from_request, g.params


def test_what_the_writer_was_about_to_say_is_no_value():
    g = gen("volcano job sweep with 1 gpu per worker, queue hpo. I was going to say 12 workers")
    assert "workers" not in g.from_request, g.params
    assert gen("volcano job sweep with 1 gpu per worker, queue hpo. We were going to ask for 12 workers, but the "
               "queue is small: 8 workers").params["workers"] == 8
    # (what the writer was about to say ends where the clause turns: "..., but let's do ...")
    g = gen("I was gonna ask for 6 replicas but let's do a KEDA scaledobject on deployment asr-gw in ns speech, "
            "2 queued requests per pod, min 1 max 6")
    assert g.params["deployment"] == "asr-gw" and g.params["namespace"] == "speech", g.params


def test_some_of_a_share_kept_guaranteed_is_the_guarantee():
    g = gen("Volcano queue `cv`: capped at 32 GPUs; under contention they get 16, and 8 of those should stay "
            "guaranteed even when idle")
    assert g.recipe == "volcano-queue"
    assert g.params["guarantee_gpus"] == 8 and g.params["deserved_gpus"] == 16, g.params


def test_a_queue_that_borrows_at_most_n_has_that_borrowing_limit():
    g = gen("Kueue ClusterQueue nlp-cq, flavor h100, 32 GPUs nominal, cohort research. Borrows at most 16 GPUs, "
            "lends at most 8.")
    assert g.params["borrowing_limit"] == 16 and g.params["lending_limit"] == 8, g.params
    assert g.params["gpus"] == 32, g.params
