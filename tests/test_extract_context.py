"""Requests that give their reason before the ask, name things outside the manifest in passing, or
prefer one tool over another: the values and the recipe come from what is asked for, and every detail
not used is reported whole."""

from __future__ import annotations

import re

import pytest
import yaml

from gpukb.recipes import generate, load_recipes
from gpukb.recipes.extract import extract_params


@pytest.fixture(scope="module")
def recipes():
    return {r.id: r for r in load_recipes()}


def _gen(text: str):
    return generate(text, llm=False)


# -- a labelled reason is context: its numbers and words are not the values asked for

@pytest.mark.parametrize("text,recipe,want", [
    # a count in the reason is no rival of the count asked for
    ("CHG-4471, reason: customer SLA breach last night, the chat endpoint had one replica and it OOM'd.\n"
     "Please roll out the llama server in namespace prod-inference:\n"
     "- three replicas, each with two GPUs\n- model meta-llama/Llama-3.1-70B-Instruct\n",
     "gpu-inference-deployment", {"replicas": 3, "gpus": 2}),
    # a capacity type named in the reason is not asked for
    ("Reason: the on-demand g5 bill was 3x forecast last month. New Karpenter pool gpu-spot for cluster "
     "prod-eks: spot only, instance types g5.xlarge and g5.2xlarge, at most 24 GPUs.",
     "karpenter-gpu-nodepool", {"capacity_types": ["spot"]}),
    # a GPU count in the reason is no rival of the GPUs per worker
    ("Reason: last week's 3-node run sat half-scheduled for 6 hours holding 16 GPUs. Moving it to Volcano.\n"
     "Job pretrain-7b, queue research, three workers with eight GPUs each, all three must start together.",
     "volcano-job", {"gpus": 8, "workers": 3}),
    # words of the reason do not choose the recipe: "cohort" here is a group of people, not a Kueue cohort
    ("Context: the interns start on June 2nd and we only have budget for 4 GPUs for the whole cohort "
     "(12 people). Put a quota on namespace interns with 4 GPUs total.",
     "gpu-quota", {"gpus": 4}),
    # the utilisation asked for wins over the one the reason reports
    ("Reason: GPU util on the whisper fleet sits at 95% during EU mornings. Add an HPA for deployment "
     "whisper-large in namespace asr: at least 2 replicas, never above 10, target average GPU util 60.",
     "hpa-gpu-metric", {"target_value": "60"}),
])
def test_a_labelled_reason_gives_no_values_and_chooses_no_recipe(text, recipe, want):
    g = _gen(text)
    assert g.recipe == recipe
    assert {k: g.params[k] for k in want} == want


# -- amounts and wording

@pytest.mark.parametrize("said,seconds", [("a quarter of an hour", 900), ("three quarters of an hour", 2700),
                                          ("a quarter of a minute", 15)])
def test_a_part_of_an_hour_is_that_many_minutes(recipes, said, seconds):
    ext = extract_params(recipes["gpu-inference-deployment"], f"vllm deployment, 1 gpu, the weights take {said} to load")
    assert ext.values["model_load_seconds"] == seconds


def test_a_permission_said_as_allowed_to_is_the_flag(recipes):
    ext = extract_params(recipes["tenant-onboarding"], "new tenant speech, 16 GPUs, priority 5000, allowed to preempt "
                                                       "lower prio pods")
    assert ext.values["preempt"] is True


def test_a_pronoun_never_refers_back_to_a_verb():
    # "them" is the team, not "preempt" of "allowed to preempt"
    g = _gen("Onboarding checklist - new tenant \"speech\"\n* GPU budget: 16 GPUs\n* priority 5000\n"
             "* allowed to preempt lower prio pods\n* add them to the #speech-gpu Slack channel for quota notifications\n")
    assert g.params["preempt"] is True
    assert any("add them to the #speech-gpu Slack channel" in u for u in g.unused)


def test_a_passive_preemption_inside_the_queue(recipes):
    ext = extract_params(recipes["kueue-cluster-queue"], "Kueue for namespace cv: 32 GPUs. lower priority jobs inside "
                                                         "queue also can be preempted.")
    assert ext.values["within_cluster_queue"] == "LowerPriority"


# -- things outside the manifest

@pytest.mark.parametrize("text,detail", [
    ("pls pod with one MIG slice 1g.10gb, name mig-debug, namespace notebooks. also add networkpolicy so only our "
     "vpn range 10.8.0.0/16 can reach it", "add networkpolicy so only our vpn range 10.8.0.0/16 can reach it"),
    ("vllm deployment, model mistralai/Mistral-7B-Instruct-v0.3, 3 replicas, 1 gpu each, ns chat-prod.\n"
     "also pls page #oncall-ml on pagerduty if it goes down\n", "page #oncall-ml on pagerduty if it goes down"),
])
def test_a_detail_not_used_is_reported_to_its_last_word(text, detail):
    assert detail in _gen(text).unused


def test_a_quoted_name_of_an_outside_thing_names_no_object():
    g = _gen("Need DCGM ServiceMonitor + alert rules. Our kube-prometheus-stack release is called \"monitoring\". "
             "Scrape every 30 seconds. Route critical alerts to PagerDuty service \"gpu-oncall\".")
    assert g.recipe == "dcgm-servicemonitor-alerts"
    assert g.params["release"] == "monitoring"
    assert "gpu-oncall" not in g.yaml
    assert any("gpu-oncall" in u for u in g.unused)


# -- which recipe

def test_a_deployment_named_as_what_an_autoscaler_scales_is_no_deployment_to_write():
    g = _gen("ranking-api (the deployment name) in ns ranking needs to autoscale on gpu util, target 60%, between "
             "2 and 8 replicas")
    assert g.recipe == "hpa-gpu-metric"
    assert g.params["deployment"] == "ranking-api"


def test_a_deployment_named_with_its_own_details_is_still_the_deployment():
    g = _gen("llama 70b at tensor parallel 8 on one node, 2 replicas.\nDeployment name llama-chat, image "
             "vllm/vllm-openai:v0.6.1")
    assert g.recipe == "gpu-inference-deployment"


def test_the_tool_chosen_instead_of_another_is_the_recipe():
    g = _gen("small inference models on the A10 nodes - want MPS instead of timeslicing so they get proper memory "
             "isolation. 8 clients per gpu")
    assert g.recipe == "mps-sharing"
    assert g.params["replicas"] == 8


# -- settings written inline, and names of another object

@pytest.mark.parametrize("recipe_id,text,name,want", [
    ("hpa-gpu-metric", "hpa: deployment=reranker min=2 max=10 scale-down-window=15m", "scale_down_stabilization_seconds", 900),
    ("lws-vllm", "lws overrides: port=8000 shm=32Gi kueue_queue=serving", "queue", "serving"),
])
def test_an_inline_setting_in_other_words_sets_its_parameter(recipes, recipe_id, text, name, want):
    assert extract_params(recipes[recipe_id], text).values.get(name) == want


@pytest.mark.parametrize("text,want", [
    ('Workload name: sim-gang\nPods: 16\nGPUs per pod: 1\nScheduler: our second scheduler is "coscheduler", it runs '
     'in kube-system\n', "sim-gang"),
    ('only the scheduler-plugins second scheduler (its name is "sp-sched", running in kube-system). I need a gang '
     'job "allreduce-test" in ns perf: 8 pods with 2 GPUs each', "allreduce-test"),
])
def test_the_name_of_the_scheduler_is_not_the_name_of_the_gang(recipes, text, want):
    assert extract_params(recipes["coscheduling-podgroup"], text).values.get("name") == want


def test_a_share_of_their_own_allocation_is_a_share_of_what_they_were_given(recipes):
    ext = extract_params(recipes["gpu-quota"], "namespace fcst-prod gets half of the 16 GPUs in the shared pool, and "
                                               "nobody should grab more than a quarter of their own allocation in one "
                                               "container")
    assert ext.values["gpus"] == 8
    assert ext.values["max_gpus_per_pod"] == 2


def test_gpus_said_to_be_free_are_what_is_available_not_a_second_count():
    g = _gen("We need to embed 2.4 million documents. Only ten GPUs are free this week, so at most ten shards at a "
             "time, one GPU each. Call it embed-wiki.")
    assert g.recipe == "indexed-job"
    assert g.params["gpus"] == 1 and g.params["parallelism"] == 10


def test_a_unit_then_a_word_naming_the_count_then_the_count(recipes):
    ext = extract_params(recipes["kueue-cluster-queue"], "please make kueue queue for all namespaces, gpu total 64, strict "
                                                         "first in first out. high priority job can kick lower priority "
                                                         "job in same queue.")
    assert ext.values["gpus"] == 64
    assert ext.values["queueing_strategy"] == "StrictFIFO"
    assert ext.values["within_cluster_queue"] == "LowerPriority"


@pytest.mark.parametrize("text", [
    "dcgm alert rules, temperature above 85. The release of our kube-prometheus stack is called \"kps\".",
    "dcgm servicemonitor and alerts; the helm release of the monitoring stack is named kps",
])
def test_a_name_given_to_what_an_owner_is_of_belongs_to_the_owner(text):
    """"the release of our stack is called x": x is the release's, not the object's name, and neither
    a possessive nor an article ("release of our", "release of the") is ever a value."""
    g = _gen(text)
    assert g.params["release"] == "kps"
    assert g.params.get("name") != "kps"


def test_a_name_that_stays_is_the_name_after_the_verb(recipes):
    ext = extract_params(recipes["fsx-lustre-static"], "static lustre PV for fs-0123456789abcdef0, 1.2TiB; "
                                                      "name stays team-corpus")
    assert ext.values.get("name") == "team-corpus"


@pytest.mark.parametrize("text, want", [
    # what runs today said before an arrow to the new amount
    ("vllm deployment qa-bot in ns support: replicas currently 2 -> 5, gpus per pod 1 -> 2",
     {"name": "qa-bot", "replicas": 5, "gpus": 2, "namespace": "support"}),
    ("vllm deployment summarizer in ns web, replicas now 1 -> 4 asap",
     {"name": "summarizer", "replicas": 4, "namespace": "web"}),
    # ... with what runs and the change said in words around the arrow
    ("vllm deployment tts in ns voice: replicas are at 2 today -> bump to 6, 1 gpu each",
     {"name": "tts", "replicas": 6, "gpus": 1, "namespace": "voice"}),
    ("quota for ns ml: gpus is 16 now -> raise it to 24", {"namespace": "ml", "gpus": 24}),
    # a plain word after the kind is its name when where it lives follows
    ("indexed job ocr in namespace batch, 200 shards, 1 gpu each, 10 at a time",
     {"name": "ocr", "namespace": "batch", "completions": 200, "parallelism": 10}),
    # ... or its details do
    ("vllm deployment qwen with 2 replicas, per replica 4 gpus", {"name": "qwen", "replicas": 2, "gpus": 4}),
    ("pytorchjob bert with four workers, 8 gpus each", {"name": "bert", "workers": 4, "gpus": 8}),
    ("indexed job ocr, 200 shards, 1 gpu each", {"name": "ocr", "completions": 200}),
])
def test_an_amount_changed_by_an_arrow_and_a_plain_name_before_its_place(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


def test_a_word_ending_like_a_verb_after_the_kind_is_no_name():
    g = _gen("vllm deployment running in ns web with 2 gpus")
    assert g.params.get("name") != "running"
    for text in ("vllm deployment with 2 replicas", "pytorchjob please with 4 workers"):
        assert "name" not in _gen(text).used


def test_a_choice_said_with_its_verb_picks_the_recipe():
    g = _gen("Time-slicing or MPS for the small models? We settled on MPS for the memory limits. "
             "6 clients per GPU, configmap \"mps-6way\"")
    assert g.recipe == "mps-sharing"


def test_a_plan_given_up_yields_to_the_one_wanted():
    g = _gen("MIG on the A100 80GB nodes: we were going to do seven 1g.10gb per card but they are too small, "
             "so two 3g.40gb per GPU instead")
    assert g.recipe == "mig-config" and g.params["mig_devices"] == {"3g.40gb": 2}


@pytest.mark.parametrize("text, want", [
    ("so last week we had the vllm thing at 2 replicas and it fell over during the demo, manager approved going to "
     "4 replicas, each one needs 2 L40S GPUs, name is demo-chat in namespace sales-ai", {"replicas": 4, "gpus": 2}),
    ("we ran the sweep with 16 workers last time and it starved everyone, so this time 4 workers x 2 gpus, "
     "volcano job sweep-b", {"workers": 4, "gpus": 2}),
    ("deploy our embedding service: image ghcr.io/acme/embed:2.1, 3 replicas, 1 T4 each, port 8080, namespace "
     "search. the old version had 6 replicas on CPU, ignore that", {"replicas": 3, "gpus": 1}),
])
def test_a_story_of_what_ran_ends_where_the_decision_since_begins(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


@pytest.mark.parametrize("text, want", [
    ("resource quota for ns interns: they had 8 GPUs last semester, this semester give them 4, and at most 1 per pod",
     {"gpus": 4, "max_gpus_per_pod": 1}),
    ("quota for team-x: last quarter 16 gpus, this quarter 8", {"gpus": 8}),
    ("coscheduling podgroup for 8 pods, 1 gpu each; last attempt we set minMember to 8 and it never started, so make "
     "it 6, timeout 5 minutes", {"min_member": 6, "members": 8}),
    ("quota for ns cv: last time we set 16 gpus and it was never used, so we go with 8 now", {"gpus": 8}),
])
def test_an_amount_said_again_without_its_unit_after_what_ran_is_the_one_wanted(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want
    assert not any(re.search(r"\b(?:give them 4|quarter 8)\b", u) for u in g.unused)


def test_a_bare_amount_after_two_amounts_of_what_ran_names_neither():
    g = _gen("pytorchjob bert: last time we ran 8 nodes with 4 gpus each, this time 6")
    assert 6 not in (g.params.get("nodes"), g.params.get("gpus"))
    assert any("this time 6" in u for u in g.unused)  # reported, not guessed


def test_a_layout_named_in_what_runs_today_yields_to_the_one_wanted():
    g = _gen("the mig layout we use on the training nodes is all-1g.10gb but for the new inference nodes we want "
             "2 x 3g.40gb per gpu, call the config infer-split, mixed strategy")
    assert g.params["mig_devices"] == {"3g.40gb": 2} and g.params["config_name"] == "infer-split"


def test_a_permission_on_nothing_is_none():
    g = _gen("priority classes: production 100000, research 1000; research may preempt nothing")
    assert g.params.get("research_preempts") is not True


@pytest.mark.parametrize("text, param, wrong", [
    # a possessive pronoun, a verdict or a function word is never a name
    ("pytorchjob, 2 machines with 8 GPUs each, name llama-ft, namespace is mine (ns-priya)", "namespace", "mine"),
    ("throwaway gpu pod with 4 gpus called nccl-manual, default namespace is ok", "namespace", "ok"),
    ("dcgm alerts over 90 degrees. The helm release of our prometheus stack is called \"monitoring\", so the rules "
     "need that release label or they're never loaded.", "release", "or"),
])
def test_a_pronoun_a_verdict_or_a_function_word_is_no_value(text, param, wrong):
    g = _gen(text)
    assert g.params.get(param) != wrong


@pytest.mark.parametrize("text, want", [
    ("Splitting our A100 budget via Kueue. Total is 48 GPUs; the ClusterQueue gets 24 of them, LocalQueue in namespace nlp",
     {"gpus": 24}),
    ("we have 8 nodes; the pytorchjob should use 4 of them, 8 gpus each, name bert", {"nodes": 4, "gpus": 8}),
    # a verb after the cue noun is no name ("the cohort pools 64 GPUs")
    ("kueue: the whole cohort pools 64 GPUs; this queue gets 16 of them, cohort labs", {"gpus": 16, "cohort": "labs"}),
    # of a rate ("8 pods x 8 GPUs") it is not a count of GPUs
    ("volcano gang job: 8 worker pods x 8 GPUs, though it's ok to start once 6 of them can be placed",
     {"workers": 8, "gpus": 8}),
])
def test_a_count_of_them_is_out_of_the_total_said_before(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want
    assert "altogether" not in " ".join(g.unused)


def test_a_bound_said_of_pods_in_the_plural_with_each_is_per_pod():
    g = _gen("We need a namespace called 'genai-lab' with a GPU quota of 8 A100s, and pods shouldn't take more than "
             "2 GPUs each.")
    assert (g.recipe, g.params["gpus"], g.params["max_gpus_per_pod"]) == ("gpu-quota", 8, 2)


def test_a_bundle_that_reads_more_of_the_request_wins_however_far_behind_its_words():
    """A quota with a priority class and its permission to preempt is a tenant onboarding, though the
    request never says "onboard": the bundle renders the quota's objects and reads the rest."""
    g = _gen("Hi! Our team is starting to use the cluster. We need a namespace called 'genai-lab' with a GPU quota "
             "of 8 A100s, and pods shouldn't take more than 2 GPUs each. Priority 3000, and they may preempt lower ones.")
    assert g.recipe == "tenant-onboarding"
    assert {k: g.params.get(k) for k in ("tenant", "gpus", "max_gpus_per_pod", "priority_value", "preempt")} == \
        {"tenant": "genai-lab", "gpus": 8, "max_gpus_per_pod": 2, "priority_value": 3000, "preempt": True}


@pytest.mark.parametrize("text, want", [
    ("ns asr has a quota of 20 GPUs today, but from next month we get 14.", {"gpus": 14, "namespace": "asr"}),
    ("our ResourceQuota in ns asr says 20 GPUs; after the budget cut we only get 12", {"gpus": 12}),
    ("queue for team-nlp currently at 32 gpus, going down to 24", {"gpus": 24}),
    ("kueue clusterqueue rec: was 16 gpus, new number is 20", {"gpus": 20}),
    ("queue for team-nlp currently at 32 gpus, now 24", {"gpus": 24}),
    ("kueue: the cohort shares 64 GPUs, we want 16 for the ClusterQueue nlp", {"gpus": 16, "name": "nlp"}),
])
def test_the_new_amount_after_what_an_object_has_now_is_the_one_wanted(text, want):
    """What an object reports or was ("says 20 GPUs", "was 16 gpus") is what runs today; the bare
    number of the turn after it ("..., going down to 24") is the amount wanted."""
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


@pytest.mark.parametrize("text", [
    "gpu quota for ns speech-tts with 14 GPUs. Also cap a single pod at 4 GPUs.",
    "gpu quota for ns speech-tts: we get 14 GPUs now. cap single pod to 4 gpu",
    "ns speech-tts has a quota of 20 GPUs today, but from next month we get 14. Also cap a single pod at 4 GPUs.",
])
def test_a_single_pod_under_a_cap_is_the_item_capped_not_a_count_of_one(text):
    g = _gen(text)
    assert (g.recipe, g.params["gpus"], g.params["max_gpus_per_pod"]) == ("gpu-quota", 14, 4)
    assert "max_pods" not in g.params
    assert not any("single pod" in u for u in g.unused)  # the words that say what 4 bounds are used


@pytest.mark.parametrize("text, want", [
    ("Kueue ClusterQueue for team-vision: 16 A100 GPUs nominal quota. Note: the whole cluster is 96 GPUs, this is "
     "only their slice.", {"gpus": 16}),
    ("resource quota for namespace asr-prod with 12 GPUs; the cluster has 200 GPUs in all", {"gpus": 12}),
    ("our cluster is 8 nodes of 8 A100. quota for team-z 12 gpus", {"gpus": 12, "namespace": "team-z"}),
])
def test_the_size_of_the_whole_cluster_is_what_exists_not_an_amount_asked_for(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


def test_an_aside_is_never_whom_an_object_is_for():
    g = _gen("Please set up a ClusterQueue research with 32 GPUs nominal. For reference, team-b's queue has 48.")
    assert (g.params.get("name"), g.params.get("gpus")) == ("research", 32)
    assert g.params.get("namespace") != "reference"


def _requirements(g) -> dict[str, list[str]]:
    pool = next(d for d in yaml.safe_load_all(g.yaml) if d["kind"] == "NodePool")
    return {r["key"]: r.get("values") for r in pool["spec"]["template"]["spec"]["requirements"]}


@pytest.mark.parametrize("text, names", [
    ("karpenter nodepool for H100 or H200 nodes, on-demand, at most 64 GPUs", ["h100", "h200"]),
    ("new karpenter pool for L40S, no spot", ["l40s"]),
])
def test_a_gpu_model_named_for_a_karpenter_pool_is_required_by_its_gpu_name_label(text, names):
    g = _gen(text)
    req = _requirements(g)
    assert (g.recipe, g.params.get("gpu_names")) == ("karpenter-gpu-nodepool", names)
    assert req["karpenter.k8s.aws/instance-gpu-name"] == names
    # a default family would carry other GPUs: no instance type would match both
    assert "karpenter.k8s.aws/instance-family" not in req
    assert g.valid


@pytest.mark.parametrize("text, families", [
    ("karpenter gpu nodepool for g5 and g6", ["g5", "g6"]),
    ("karpenter pool h100-spot, spot", ["g5", "g6"]),  # a model inside a name is no model asked for
    ('need a karpenter nodepool "a100-pool" for cluster ml-prod-eks, p4d only', ["p4d"]),
])
def test_a_pool_without_a_gpu_model_keeps_its_instance_families(text, families):
    g = _gen(text)
    req = _requirements(g)
    assert "gpu_names" not in g.params
    assert req["karpenter.k8s.aws/instance-family"] == families
    assert "karpenter.k8s.aws/instance-gpu-name" not in req


@pytest.mark.parametrize("text, want", [
    ("deployment foo with a single replica and 2 GPUs", {"name": "foo", "replicas": 1, "gpus": 2}),
    ("job ocr with one gpu and 20 shards", {"name": "ocr", "gpus": 1}),
])
def test_a_plain_word_after_the_kind_names_the_object_when_one_of_something_follows(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


@pytest.mark.parametrize("text, want", [
    ("vllm deployment chat-api: double the current 2 replicas, 1 GPU each", {"replicas": 4, "gpus": 1}),
    ("gpu quota ns nlp: triple the existing 4 GPUs", {"gpus": 12}),
    ("gpu quota ns nlp: 25% more than the current 16 GPUs", {"gpus": 20}),
    ("gpu quota ns nlp: 20 percent fewer than our 40 GPUs", {"gpus": 32}),
])
def test_an_amount_relative_to_the_current_one_is_worked_out(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


def test_a_share_that_is_not_whole_is_reported_not_rounded():
    g = _gen("gpu quota ns nlp: 33% more than 16 GPUs")
    assert any("33%" in u for u in g.unused)


@pytest.mark.parametrize("text, name", [
    ("pytorchjob bert: three times the 2 workers we have now, 4 gpus each", "bert"),
    ("deployment api: go from 3 to 5 replicas, 1 gpu each", "api"),
    ("deployment spec: 2 replicas, 1 gpu each, image vllm/vllm-openai:v0.6.0", "-spec"),  # a heading, no name
    ("give me the PyTorchJob equivalent: 4 nodes, 8 gpus each", "-equivalent"),
])
def test_a_name_heading_the_line_of_its_details_names_the_object(text, name):
    got = _gen(text).params.get("name")
    assert got != name[1:] if name.startswith("-") else got == name


@pytest.mark.parametrize("text", [
    "priority class batch-low, value 100, must not preempt anything",
    "a PriorityClass called batch-low with value 100 that never preempts",
])
def test_one_priority_class_asked_for_is_one_class_not_a_pair(text):
    g = _gen(text)
    assert g.params.get("classes") == [{"name": "batch-low", "value": 100, "preempt": False}]
    assert [d["metadata"]["name"] for d in yaml.safe_load_all(g.yaml)] == ["batch-low"]


def test_one_class_named_by_its_role_in_the_pair_fills_that_role():
    g = _gen("make priority class pair, production name gpu-prod with value 900000, research keep the default "
             "name but value 50")
    assert "classes" not in g.params
    assert (g.params["production_name"], g.params["production_value"], g.params["research_value"]) == \
        ("gpu-prod", 900000, 50)


@pytest.mark.parametrize("text, want", [
    ("time slicing 4 replicas per gpu for the notebook nodes, rename resources off", False),
    ("time slicing 4 replicas, rename on", True),
])
def test_on_or_off_after_a_flag_and_its_noun_says_which(text, want):
    assert _gen(text).params["rename_by_default"] is want


@pytest.mark.parametrize("text,want", [
    ("resource quota for namespace speech: 12 gpus. FYI the research namespace sits on 48, leave it", 12),
    ("gpu quota ns speech with 12 gpus; for context, team-vision got 30 GPUs last quarter", 12),
    ("quota ns speech, 12 GPUs. For comparison the batch namespace has 64 GPUs.", 12),
])
def test_an_aside_about_something_else_gives_no_amount(text, want):
    g = _gen(text)
    assert g.params["gpus"] == want, (g.params, g.unused)


@pytest.mark.parametrize("text, want", [
    # a change relative to what runs now, with other amounts said plainly beside it
    ("vllm deployment chat-bot in ns web currently runs 2 replicas; we need three times the current replicas "
     "and 2 GPUs per replica", {"replicas": 6, "gpus": 2}),
    # a block of current fields, one per line, then the new values
    ("vllm deployment summarizer, ns docs. Current settings:\n  replicas: 2\n  gpus: 1\n"
     "  model: Qwen/Qwen2.5-7B-Instruct\nPlease switch to model mistralai/Mistral-7B-Instruct-v0.3 with double the "
     "current replicas", {"replicas": 4, "gpus": 1, "model": "mistralai/Mistral-7B-Instruct-v0.3"}),
])
def test_what_runs_now_is_the_base_of_a_change_and_not_what_is_asked(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


@pytest.mark.parametrize("text, want", [
    # a setting changed by name: the one it changes to is asked for, the other runs today
    ("change the mig layout on the h100 nodes from all-1g.10gb to all-3g.40gb",
     {"config_name": "all-3g.40gb", "mig_devices": {"3g.40gb": 2}}),
    # a verb of change after a label is no value of it
    ("mig config: switch from all-1g.10gb to all-2g.20gb", {"config_name": "all-2g.20gb"}),
])
def test_a_setting_changed_from_one_name_to_another(text, want):
    g = _gen(text)
    assert {k: g.params.get(k) for k in want} == want


# -- another team's or cluster's setup, or what something had, is context: its amounts are no values

@pytest.mark.parametrize("text,recipe,want", [
    ("Our old Slurm cluster had 12 nodes with 4 gpus each. Make a pytorchjob train-x with 6 nodes, 8 gpus each.",
     "pytorchjob", {"nodes": 6, "gpus": 8}),
    ("Another team's queue has 64 GPUs; ours should be a ClusterQueue ml-q with 32 GPUs.",
     "kueue-cluster-queue", {"gpus": 32, "name": "ml-q"}),
    ("the nlp team gets 40 gpus but we need 16 - make a quota for ns vision", "gpu-quota",
     {"gpus": 16, "namespace": "vision"}),
    ("The infra team's nodepool has a limit of 128 gpus. Make a karpenter nodepool ml-pool with a limit of 32 gpus, "
     "g5 family.", "karpenter-gpu-nodepool", {"gpu_limit": 32}),
    ("The research team runs 3 replicas of llama. We need a vllm deployment chat with 2 replicas, 1 gpu each.",
     "gpu-inference-deployment", {"replicas": 2, "gpus": 1}),
    ("Other clusters run 4 replicas. Make a vllm deployment chat with 2 replicas, 1 gpu each.",
     "gpu-inference-deployment", {"replicas": 2}),
])
def test_someone_elses_setup_is_context(text, recipe, want):
    g = _gen(text)
    assert g.recipe == recipe
    assert {k: g.params.get(k) for k in want} == want


@pytest.mark.parametrize("text,recipe,want", [
    ("GPFS fileset for the vision group: the archive cluster serves 5 groups with 80Ti each; not relevant here. "
     "For us: a 10Ti PVC on storage class gpfs-scratch.", "ibm-storage-scale", {"size": "10Ti"}),
    ("Team B runs 16 workers - ignore that. Volcano job sim, 4 workers, 2 gpus each, queue sims.", "volcano-job",
     {"workers": 4, "gpus": 2}),
    ("Our other cluster (still on 1.28) runs the big job with 32 nodes and 8 GPUs each. New PyTorchJob ft-x in "
     "namespace ml, 4 nodes, 4 GPUs per pod.", "pytorchjob", {"nodes": 4, "gpus": 4}),
])
def test_what_the_writer_dismisses_is_context(text, recipe, want):
    g = _gen(text)
    assert g.recipe == recipe
    assert {k: g.params.get(k) for k in want} == want
    assert any(re.search(r"not relevant|ignore that|Our other cluster", u) for u in g.unused)  # reported, not dropped


def test_a_team_that_is_asked_for_keeps_its_amounts():
    # no one else to set it against: "the ml team gets 16 GPUs" is the ask
    g = _gen("Quota for ns ml: the ml team gets 16 GPUs, max 4 per pod")
    assert (g.params.get("gpus"), g.params.get("max_gpus_per_pod")) == (16, 4)


# -- "default" is a namespace's name when a namespace word stands beside it, and a plain word elsewhere

@pytest.mark.parametrize("text,recipe,want", [
    ("a gpu pod in the default namespace with 1 gpu", "gpu-pod", "default"),
    ("vllm deployment chat, 1 gpu, ns default", "gpu-inference-deployment", "default"),
    ("gpu quota for namespace default: 8 gpus", "gpu-quota", "default"),
    ("gpu pod with default settings, 1 gpu, namespace ml", "gpu-pod", "ml"),
    ("MIG layout all-1g.10gb for the A100 nodes. Our operator runs in gpu-operator, not the default ns.",
     "mig-config", "gpu-operator"),
])
def test_the_namespace_called_default(text, recipe, want):
    g = _gen(text)
    assert (g.recipe, g.params.get("namespace")) == (recipe, want)


@pytest.mark.parametrize("text,want", [
    # the label's own word names it; "a jupyter pod" after the colon is what is asked for
    ("students namespace: a jupyter pod with 1 gpu", "students"),
    ("interns namespace: a notebook pod, one T4", "interns"),
    ("namespace: students. a jupyter pod with 1 gpu", "students"),
])
def test_an_article_after_a_label_starts_the_ask_not_its_value(text, want):
    g = _gen(text)
    assert (g.recipe, g.params.get("namespace")) == ("gpu-pod", want)


@pytest.mark.parametrize("text,want", [
    # one thing, then its count: "one pod, 1 gpu" asks for a GPU pod as "a pod with 1 gpu" does
    ("in the speech namespace: one pod, 1 gpu", {"namespace": "speech", "gpus": 1}),
    # the team's namespace is named after the team
    ("for the speech team's namespace: one pod, 1 gpu, image nvcr.io/nvidia/pytorch:24.05-py3",
     {"namespace": "speech", "gpus": 1}),
])
def test_a_pod_and_its_count_after_a_comma(text, want):
    g = _gen(text)
    assert g.recipe == "gpu-pod"
    assert {k: g.params.get(k) for k in want} == want


def test_pods_counted_with_their_gpus_stay_a_quota():
    assert _gen("quota for ns ml: 10 pods, 16 gpus").recipe == "gpu-quota"


@pytest.mark.parametrize("text,recipe,want", [
    # a batch script pasted in a fence is the job to translate, like the same lines unfenced
    ("We are leaving Slurm. Today the job is:\n```\n#SBATCH --job-name=bert-pre\n#SBATCH --nodes=4\n"
     "#SBATCH --gres=gpu:4\nsrun torchrun --nproc_per_node=4 pretrain.py\n```\nWhat is the PyTorchJob equivalent in "
     "namespace nlp? image ghcr.io/x/bert:1.0", "pytorchjob", {"name": "bert-pre", "nodes": 4, "gpus": 4}),
])
def test_a_fenced_batch_script_is_read(text, recipe, want):
    g = _gen(text)
    assert g.recipe == recipe
    assert {k: g.params.get(k) for k in want} == want


def test_a_verb_that_reports_is_no_name():
    # "kubectl get clusterqueue shows:": "shows" names no ClusterQueue
    g = _gen("kubectl get clusterqueue shows:\n```\nNAME  COHORT\nml-cq  shared\n```\nreplace it with a version with "
             "nominalQuota 12 GPUs")
    assert g.params.get("name") != "shows"


@pytest.mark.parametrize("text,recipe,name,want", [
    # a "please" between the cue and its value
    ("time slicing, each GPU divided in 4. The configmap name please `ts-cm`, in namespace gpu-operator.",
     "time-slicing", "configmap_name", "ts-cm"),
    ("gpu pod name pls dbg-1, 1 gpu", "gpu-pod", "name", "dbg-1"),
])
def test_please_between_a_cue_and_its_value(text, recipe, name, want):
    g = _gen(text)
    assert (g.recipe, g.params.get(name)) == (recipe, want)
