"""Amounts stated as a change of an amount said before ("double the limit", "twice the GPUs",
"three times that", "cut that in half", "scrape twice as often", "2 more workers"), numbers under a
negation that set no count, and objects whose host already has them ("the AMI ships the driver")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.model import Recipe

INT = {"type": "integer", "minimum": 0, "maximum": 100000}
SIZE = {"type": "string", "pattern": r"^[0-9]+(Mi|Gi|Ti)$"}


def _recipe(props: dict[str, Any], extract: dict[str, Any] | None = None) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props}, templates=[], examples=[],
                  path=Path("fixture.yaml"), extract=extract or {})


_POOL = _recipe({"gpu_limit": INT, "parallelism": INT, "gpus": INT, "replicas": INT, "workers": INT},
                {"gpu_limit": [{"regex": r"\bcapped\s+at\s+(\d+)\s+gpus\b"}],
                 "parallelism": [{"regex": r"\b(\d+)\s+at\s+a\s+time\b"}],
                 "gpus": [{"count": ["gpu", "gpus"]}],
                 "replicas": [{"count": ["replica", "replicas"]}],
                 "workers": [{"count": ["worker", "workers"]}]})


@pytest.mark.parametrize("text,name,want", [
    ("the pool is capped at 16 GPUs and we keep hitting it, please double the limit", "gpu_limit", 32),
    ("it runs 4 at a time; can you double the parallelism?", "parallelism", 8),
    ("same as my old pod (2 GPUs) but with twice the GPUs", "gpus", 4),
    ("staging runs 2 replicas; for prod we need three times that", "replicas", 6),
    ("we have 3 workers with 8 GPUs, add 2 more workers", "workers", 5),
    ("the pool is capped at 16 GPUs, cut that in half", "gpu_limit", 8),
])
def test_a_change_scales_the_amount_stated_before(text, name, want):
    assert extract_params(_POOL, text).values[name] == want


@pytest.mark.parametrize("text", [
    "please double-check: 2 GPUs per pod",  # no change asked
    "3 workers; double the memory",  # the named amount was never stated
])
def test_no_change_without_a_stated_amount_it_names(text):
    got = extract_params(_POOL, text).values
    assert got.get("gpus", 2) == 2 and got.get("workers", 3) == 3


def test_an_amount_stated_after_the_change_is_not_scaled():
    assert extract_params(_POOL, "double the GPUs, 4 GPUs per pod").values["gpus"] == 4


def test_twice_as_often_halves_an_interval():
    r = _recipe({"scrape_interval_seconds": INT},
                {"scrape_interval_seconds": [{"regex": r"\bevery\s+(\d+)\s*s\b"}]})
    assert extract_params(r, "it scrapes every 60s and misses spikes; scrape twice as often").values == {
        "scrape_interval_seconds": 30}


def test_a_size_scales_as_a_quantity():
    r = _recipe({"size": SIZE}, {"size": [{"size": "quantity", "near": ["pvc", "is"]}]})
    assert extract_params(r, "our PVC is 800Gi and full; make a new one 1.5x the size").values == {"size": "1200Gi"}


@pytest.mark.parametrize("text", [
    "6 workers x 8 GPUs where no two workers share a node",
    "4 workers, all-or-nothing: I don't want 3 workers sitting idle",
])
def test_a_number_under_a_negation_is_no_second_count(text):
    got = extract_params(_POOL, text)
    assert "workers" not in got.conflicts and got.values["workers"] in (4, 6)


def test_bounds_that_disagree_still_conflict():
    got = extract_params(_POOL, "never drops below 10 workers but never grows past 4 workers")
    assert "workers" in got.conflicts


_OPERATOR = _recipe({
    "driver_enabled": {"type": "boolean", "default": True,
                       "description": "Let the operator install the driver (false when the driver is pre-installed)."},
    "toolkit_enabled": {"type": "boolean", "default": True,
                        "description": "Let the operator install the toolkit (false when it is pre-installed)."},
}, {"driver_enabled": [{"acted": ["driver"]}], "toolkit_enabled": [{"acted": ["toolkit", "container toolkit"]}]})


@pytest.mark.parametrize("text,want", [
    ("the EKS AMI already ships the driver and the container toolkit", {"driver_enabled": False,
                                                                        "toolkit_enabled": False}),
    ("AKS installs the driver itself", {"driver_enabled": False}),
    ("the operator should install the driver", {"driver_enabled": True}),
])
def test_what_the_host_already_has_is_not_the_operators(text, want):
    got = extract_params(_OPERATOR, text).values
    assert {k: got.get(k) for k in want} == want


def test_a_state_kept_reads_as_on():
    r = _recipe({"toolkit_enabled": {"type": "boolean"}}, {"toolkit_enabled": [{"boolean": ["toolkit"]}]})
    assert extract_params(r, "driver off; toolkit should stay on").values == {"toolkit_enabled": True}
    assert extract_params(r, "the toolkit must remain disabled").values == {"toolkit_enabled": False}


# ------------------------------------------------------------ on the bundled recipes
@pytest.fixture(scope="module")
def recipes():
    from gpukb.recipes import load_recipes

    return {r.id: r for r in load_recipes(Path(__file__).resolve().parents[1] / "recipes")}


def test_a_name_in_brackets_after_the_objects_noun(recipes):
    got = extract_params(recipes["indexed-job"], "our nightly job (whisper-nightly, namespace audio) runs 48 chunks").values
    assert got["name"] == "whisper-nightly" and got["namespace"] == "audio"


def test_mount_as_names_the_volume(recipes):
    got = extract_params(recipes["fsx-lustre-static"],
                         "fsx file system fs-0123abcd4567ef890 in us-east-1 that I want to mount as shared-scratch").values
    assert got["name"] == "shared-scratch"


def test_the_exporters_namespace_and_the_monitors_are_told_apart(recipes):
    got = extract_params(recipes["dcgm-servicemonitor-alerts"],
                         "svc in ns dcgm, port name metrics; put SM+rules in ns monitoring").values
    assert got["exporter_namespace"] == "dcgm" and got["namespace"] == "monitoring"


def test_a_list_before_its_cue_with_a_verb_between(recipes):
    got = extract_params(recipes["cluster-autoscaler-priority-expander"],
                         "the gpu-a10g-spot and gpu-l4-spot groups come first and gpu-a10g-od is the fallback").values
    assert got["preferred_groups"] == ["gpu-a10g-spot", "gpu-l4-spot"] and got["fallback_groups"] == ["gpu-a10g-od"]


def test_a_date_is_no_amount(recipes):
    got = extract_params(recipes["indexed-job"], "postmortem for the 2024-07-08 failure: an Indexed Job over 1200 "
                                                 "shards where each shard is retried 4 times on its own").values
    assert got["backoff_limit_per_index"] == 4 and got["completions"] == 1200


def test_an_ellipsis_line_in_a_pasted_manifest_keeps_the_rest(recipes):
    paste = ("```yaml\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: bert-ft\nspec:\n"
             "  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n        spec:\n"
             "          containers:\n          - name: pytorch\n            image: ghcr.io/acme/bert-ft:0.9\n"
             "    Worker:\n      replicas: 3\n      ...\n```\nRedo this with 4 GPUs per pod, same name and image.")
    got = extract_params(recipes["pytorchjob"], paste).values
    assert got["name"] == "bert-ft" and got["image"] == "ghcr.io/acme/bert-ft:0.9" and got["gpus"] == 4


def test_never_below_or_above_bounds_a_min_max_pair():
    r = _recipe({"min_replicas": INT, "max_replicas": INT})
    got = extract_params(r, "keep it around 60%, never below 2 replicas or above 10").values
    assert got["min_replicas"] == 2 and got["max_replicas"] == 10


def test_a_cue_followed_by_equals_keys_the_value_after_it():
    r = _recipe({"namespace": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}},
                {"namespace": [{"after": ["namespace", "ns"]}, {"before": ["namespace", "ns"]}]})
    assert extract_params(r, "hpa ns=chat").values.get("namespace") in (None, "chat")
    assert extract_params(r, "the ml-serving namespace").values == {"namespace": "ml-serving"}


def test_a_change_verb_followed_by_more_sentences_still_names_the_target(recipes):
    from gpukb.recipes import generate

    g = generate("switch the notebook nodes from time-slicing to MPS, 3 clients per GPU. ConfigMap name mps-notebooks.",
                 list(recipes.values()), llm=False)
    assert g.recipe == "mps-sharing" and g.params["replicas"] == 3


def test_a_regex_rule_with_a_value_selects_it():
    r = _recipe({"policy": {"type": "string", "enum": ["Never", "LowerPriority", "Any"]}},
                {"policy": [{"regex": r"\breclaim\w*\b[^.]{0,40}?\blower[\s-]?prio\w*", "value": "LowerPriority"}]})
    assert extract_params(r, "reclaim from borrowers only when they are lower-priority").values == {"policy": "LowerPriority"}
    assert extract_params(r, "reclaim from anyone").values == {}


@pytest.mark.parametrize("text,want", [
    ("cohort shared-h100, 24 GPUs nominal, borrow at most 8 more, and reclaim from borrowers only when those are "
     "lower priority", {"reclaim_within_cohort": "LowerPriority"}),
    ("cohort university, 16 GPUs; happy to lend them while idle but we want them back", {"reclaim_within_cohort": "Any"}),
    ("kueue clusterqueue for all namespaces, 64 gpu, the high priority job can kick out the lower one inside the same queue",
     {"within_cluster_queue": "LowerPriority"}),
])
def test_kueue_preemption_policies_in_plain_words(recipes, text, want):
    got = extract_params(recipes["kueue-cluster-queue"], text).values
    assert {k: got.get(k) for k in want} == want


def test_half_of_that_is_a_share_of_the_gpus_counted_before(recipes):
    got = extract_params(recipes["volcano-queue"], "queue research: never more than 32 of the GPUs; when the cluster is "
                                                   "busy they're entitled to half of that").values
    assert got["gpus"] == 32 and got["deserved_gpus"] == 16


def test_a_namespace_closing_its_sentence(recipes):
    got = extract_params(recipes["dcgm-servicemonitor-alerts"],
                         "need the ServiceMonitor + rules in ns monitoring. our exporter is standalone, in ns dcgm").values
    assert got["namespace"] == "monitoring" and got["exporter_namespace"] == "dcgm"


# ---------------------------------------------------------------- amounts relative to another parameter

def _real(recipe_id: str, text: str):
    from gpukb.recipes.model import find_recipe, load_recipes

    return extract_params(find_recipe(recipe_id, load_recipes()), text).values


@pytest.mark.parametrize("recipe_id,text,want", [
    # per GPU: that many times the GPUs of the same object (a quota's total, a replica's own)
    ("gpu-quota", "quota for namespace optics: 10 GPUs, 6 CPUs per GPU and 48Gi of RAM per GPU",
     {"gpus": 10, "cpu": 60, "memory": "480Gi"}),
    ("gpu-inference-deployment", "deployment ranker, 3 replicas with 2 GPUs each, 10 cores per GPU",
     {"replicas": 3, "gpus": 2, "cpu": 20}),
    # a parameter named right before a factor of another amount
    ("tenant-onboarding", "onboard team geo: 8 GPUs, CPU four times the GPU count, 512Gi of memory",
     {"gpus": 8, "cpu": 32}),
    ("volcano-queue", "volcano queue labs, capability 12 GPUs, deserved at half of the GPU cap", {"gpus": 12, "deserved_gpus": 6}),
])
def test_amount_relative_to_another_parameter(recipe_id, text, want):
    got = _real(recipe_id, text)
    assert {k: got.get(k) for k in want} == want


def test_half_of_the_gpus_with_nothing_named_before_sets_nothing():
    assert _real("volcano-queue", "volcano queue labs with 12 GPUs; half of the GPUs are idle at night").get("gpus") == 12


# ---------------------------------------------------------------- changes by an amount, swaps, "from A to B"

@pytest.mark.parametrize("recipe_id,text,want", [
    # a verb of change and "by": an amount added, a share more or less, a fraction
    ("gpu-inference-deployment", "the whisper deployment runs 3 replicas with 1 GPU each; grow replicas by 2", {"replicas": 5}),
    ("gpu-quota", "ns speech has 20 GPUs of quota at the moment, please raise it by 10%", {"gpus": 22}),
    ("gpu-quota", "namespace vision: trim the 48 gpus by a quarter", {"gpus": 36}),
    ("gpu-inference-deployment", "deployment ranker in ns search, 6 replicas today, scale it down by half", {"replicas": 3}),
    ("gpu-quota", "ns audio quota, currently 30 gpus: reduce by 6 gpus", {"gpus": 24}),
    # a share more or less with no "than": of the amount the request gives
    ("kueue-cluster-queue", "clusterqueue for team-geo, nominal was 40 gpus; leadership approved 25 percent more", {"gpus": 50}),
    ("gpu-quota", "our quota in ns nlp sits at 20 GPUs. Next quarter we get 20% less.", {"gpus": 16}),
    # the amount today after the change, in brackets
    ("karpenter-gpu-nodepool", "nodepool gpu-batch: triple the gpu limit (currently 8)", {"gpu_limit": 24}),
    ("gpu-quota", "ns robotics: increase the gpu quota by 50% (now at 12)", {"gpus": 18}),
])
def test_a_change_by_an_amount_applies_to_the_amount_given(recipe_id, text, want):
    got = _real(recipe_id, text)
    assert {k: got.get(k) for k in want} == want


def test_a_change_by_a_share_that_is_not_whole_is_reported_not_rounded():
    from gpukb.recipes import generate

    g = generate("ns speech has 10 GPUs of quota now, raise it by 33%", llm=False)
    assert g.params.get("gpus") != 13 and any("33%" in u for u in g.unused), (g.params, g.unused)


@pytest.mark.parametrize("recipe_id,text,want", [
    # a bound or a single setting named before "from A to B" changes; it is no range
    ("hpa-gpu-metric", "hpa for deployment tts-serve on gpu util: maximum from 5 to 9, minimum 1", {"max_replicas": 9, "min_replicas": 1}),
    ("hpa-gpu-metric", "hpa for deployment tts-serve on gpu util: min replicas from 2 to 3, target from 80 to 65",
     {"min_replicas": 3, "target_value": "65"}),
    # an amount going down is a change too
    ("gpu-inference-deployment", "deployment ranker: replicas from 8 to 3, 1 gpu each", {"replicas": 3}),
    # a rising range after a plain noun stays a range
    ("hpa-gpu-metric", "hpa for deployment tts-serve on gpu util, replicas from 2 to 12", {"min_replicas": 2, "max_replicas": 12}),
])
def test_a_setting_changed_from_one_value_to_another(recipe_id, text, want):
    got = _real(recipe_id, text)
    assert {k: got.get(k) for k in want} == want


@pytest.mark.parametrize("text,want", [
    ("karpenter nodepool gpu-big: swap the g6 and g6e families for p5, on-demand only", ["p5"]),
    ("karpenter nodepool gpu-big with families g5, g6e; replace g5 with p4d", ["g6e", "p4d"]),
    ("karpenter nodepool gpu-big, p5 instead of p4d", ["p5"]),
])
def test_items_given_up_for_others_leave_the_list(text, want):
    assert _real("karpenter-gpu-nodepool", text)["instance_families"] == want


@pytest.mark.parametrize("recipe_id,text,want", [
    ("pytorchjob", "pytorchjob t5-ft in ns nlp runs 3 workers of 4 gpus; we want one more worker", {"workers": 4}),
    ("gpu-inference-deployment", "deployment embed in ns rag, 2 replicas with 1 gpu; another 3 replicas please", {"replicas": 5}),
    ("kueue-cluster-queue", "clusterqueue team-b, nominal 40 gpus, cut it by ten", {"gpus": 30}),
    ("gpu-inference-deployment", "deployment embed in ns rag: going from 4 replicas to 7, 1 gpu each", {"replicas": 7}),
    # something added that no amount counts changes no amount
    ("pytorchjob", "pytorchjob t5-ft: 3 workers, 4 gpus each, plus another sidecar for metrics", {"workers": 3, "gpus": 4}),
    # what runs today, then what is wanted next
    ("pytorchjob", "pytorchjob t5-ft: we have 2 workers today, need another 2 workers, 4 gpus each", {"workers": 4, "gpus": 4}),
])
def test_amounts_added_in_words(recipe_id, text, want):
    got = _real(recipe_id, text)
    assert {k: got.get(k) for k in want} == want


@pytest.mark.parametrize("text", [
    "ns audio: 16 gpus, and let the quota automatically grow by 4 gpus when usage passes 90%",
    "quota for ns audio with 16 gpus; raise it by 2 gpus every month if the team uses all of it",
])
def test_a_change_that_happens_by_itself_is_a_rule_reported_not_an_amount(text):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert g.params["gpus"] == 16 and any("by " in u for u in g.unused), (g.params, g.unused)


@pytest.mark.parametrize("recipe_id,text,want", [
    # the amount today in brackets after "now"
    ("gpu-inference-deployment", "the asr deployment in ns speech should get twice the replicas it runs now (3)", {"replicas": 6}),
    # "up from A to B", "down from A to B": a change
    ("indexed-job", "indexed job embed: 400 shards, parallelism down from 20 to 8, 1 gpu each", {"parallelism": 8}),
    # an arrow change followed by what it applies to
    ("time-slicing", "time-slicing: replicas 2 -> 6 on the l4 nodes", {"replicas": 6}),
])
def test_a_change_with_its_base_or_its_scope_after_it(recipe_id, text, want):
    got = _real(recipe_id, text)
    assert {k: got.get(k) for k in want} == want
