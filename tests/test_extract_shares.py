"""Amounts stated as a share of a total said before them ("the cluster has 64 GPUs and research is
funded for three eighths of it"), sharers per card ("16 cards for 80 students, an equal share of
one"), and bounds said as "never below" / "never past"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpukb.recipes.extract import extract_params, normalise_text
from gpukb.recipes.model import Recipe

INT = {"type": "integer", "minimum": 0, "maximum": 100000}


def _recipe(props: dict[str, Any], extract: dict[str, Any] | None = None) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props}, templates=[], examples=[],
                  path=Path("fixture.yaml"), extract=extract or {})


_QUOTA = _recipe({"gpus": INT, "cpu": INT}, {"gpus": [{"count": ["gpu", "gpus", "a100", "a100s"]}],
                                            "cpu": [{"count": ["cpu", "cores"]}]})


@pytest.mark.parametrize("text,want", [
    ("the shared cluster has 64 GPUs and ml-research is funded for three eighths of it. 96 cores", 24),
    ("The cluster has 48 GPUs and they are funded for one sixth. CPU 96 cores", 8),
    ("We pay for 16 A100s. Research's own share should be a quarter of them.", 4),
    ("namespace cv-prod gets 75% of our 64-GPU cluster", 48),
    ("we rent 32 GPUs; the team gets two thirds of them", None),  # not a whole number: nothing computed
])
def test_share_of_a_stated_total(text, want):
    ext = extract_params(_QUOTA, text)
    if want is None:
        assert ext.values.get("gpus") != 21
    else:
        assert ext.values.get("gpus") == want, (normalise_text(text), ext.values)


def test_a_rate_is_no_total_and_and_a_half_is_no_share():
    # "one GPU each" is a rate: the share is of the six nodes
    assert "4 L4 nodes" in normalise_text("we pay for six L4 nodes (one GPU each). Use two thirds of that fleet.")
    # "an hour and a half" is a duration, not half of the GPUs said before it
    assert "2 GPUs" not in normalise_text("a server with 4 GPUs; model load can take an hour and a half.")


_SHARING = _recipe({"replicas": {"type": "integer", "minimum": 2, "maximum": 48}},
                   {"replicas": [{"count": ["replicas", "per gpu"]}]})


@pytest.mark.parametrize("text,want", [
    ("Course lab: 16 L4 cards for 80 students, every student gets an equal time-sliced share of one card.", 5),
    ("We have 12 T4s for the notebook platform and 96 users; every user should get an equal MPS share of a card.", 8),
])
def test_sharers_per_card(text, want):
    assert extract_params(_SHARING, text).values.get("replicas") == want


def test_uneven_sharers_compute_nothing():
    assert "per GPU" not in normalise_text("10 cards for 25 users, each an equal share of a card")


_SCALE = _recipe({"min_replicas": INT, "max_replicas": INT})
_ELASTIC = _recipe({"min_workers": INT, "max_workers": INT},
                   {"min_workers": [{"regex": r"\bno\s+fewer\s+than\s+(\d+)\s+workers\b"}]})


@pytest.mark.parametrize("text,want", [
    ("never below 1 replica, at most 6 replicas", {"min_replicas": 1, "max_replicas": 6}),
    ("never below 2 replicas or above 10", {"min_replicas": 2, "max_replicas": 10}),
    ("keep a floor of 3 replicas", {"min_replicas": 3}),
    # one bound read by the recipe's own rule, the other in the same phrase
    ("no fewer than 2 workers, never past 8", {"min_workers": 2, "max_workers": 8}),
])
def test_bounds_in_words(text, want):
    got = extract_params(_ELASTIC if "workers" in text else _SCALE, text).values
    assert {k: got.get(k) for k in want} == want, got


@pytest.fixture(scope="module")
def recipes():
    from gpukb.recipes import load_recipes

    return {r.id: r for r in load_recipes(Path(__file__).resolve().parents[1] / "recipes")}


_POOL = _recipe({"gpu_limit": INT}, {"gpu_limit": [{"count": ["gpus", "gpu"]}]})


@pytest.mark.parametrize("text,want", [
    ("the pool must never cost more than eight p4d.24xlarge at a time", 64),
    ("cap it at 4 p5.48xlarge", 32),
    ("cap it at 4 x9.bigxlarge", None),  # an instance type of unknown size computes nothing
])
def test_cap_counted_in_machines_of_a_known_type(text, want):
    assert extract_params(_POOL, text).values.get("gpu_limit") == want


def test_an_incident_told_is_no_value(recipes):
    text = ("INC-4410 post-mortem: a runaway sweep in team-recsys grabbed 40 GPUs and starved the canaries.\n"
            "AI-1: hard cap team-recsys at 12 GPUs in total, no single container above 4 GPUs.")
    got = extract_params(recipes["gpu-quota"], text).values
    assert got["gpus"] == 12 and got["max_gpus_per_pod"] == 4
    # the 12 is read once: not also as a CPU default while the told 40 held the GPU count
    assert "default_cpu" not in got


def test_decimal_comma_before_a_unit():
    assert "9.6 TiB" in normalise_text("PERSISTENT_2, 9,6 TiB, throughput 500")
    assert "1,200 GiB" not in normalise_text("1,200 GiB")  # a thousands separator stays one


def test_cue_verbs_in_other_forms(recipes):
    got = extract_params(recipes["rwx-dataset-pvc"], "shared PVC for the dataset, 3 TiB, only reading for all the pods").values
    assert got["access_mode"] == "ReadOnlyMany"
    # "shared" is no form of a count word "share": the 8 replicas stay the only count
    got = extract_params(recipes["time-slicing"], "each GPU advertises 8 replicas; someone will ask for 2 shared GPUs, "
                                                 "let that through").values
    assert got["replicas"] == 8


def test_a_minimum_the_recipe_rejects_rises_to_the_next_value_it_takes():
    from gpukb.recipes import generate, load_recipes

    rs = load_recipes(Path(__file__).resolve().parents[1] / "recipes")
    g = generate("FSx Lustre dynamic, SCRATCH_2, at least 4 TiB, subnet subnet-0a1b2c3d4e5f60718, "
                 "security group sg-0123abcd4567ef890", rs)
    assert g.params["storage_gib"] == 4800 and any("at least 4000" in n for n in g.notices)
    # stated as an exact amount, it is an error that names the value, never another size
    with pytest.raises(Exception, match="storage_gib"):
        generate("FSx Lustre dynamic, SCRATCH_2, 4 TiB, subnet subnet-0a1b2c3d4e5f60718, "
                 "security group sg-0123abcd4567ef890", rs)


@pytest.mark.parametrize("text,want", [
    ("the autoscaler should prefer anything matching `p4d-spot-.*`, and only when those can't scale fall back to "
     "`p4d-ondemand`.", (["p4d-spot-.*"], ["p4d-ondemand"])),
    ("the top tier should be `gpu-spot-p3-.*`, with `gpu-od-p3-.*` as the fallback.", (["gpu-spot-p3-.*"], ["gpu-od-p3-.*"])),
    ("priority expander that tries the reserved groups (^gpu-ri-.*) first and then spot (^gpu-spot-.*)",
     (["^gpu-ri-.*"], ["^gpu-spot-.*"])),
    ("expand cheap-gpu-.* groups before anything else, fall back to premium-gpu-.*", (["cheap-gpu-.*"], ["premium-gpu-.*"])),
])
def test_group_patterns_after_pronouns_in_marks_and_brackets(recipes, text, want):
    got = extract_params(recipes["cluster-autoscaler-priority-expander"], text).values
    assert (got.get("preferred_groups"), got.get("fallback_groups")) == want


def test_a_count_served_by_each_gpu(recipes):
    got = extract_params(recipes["mps-sharing"], "set up MPS so each GPU serves 6 small inference pods").values
    assert got["replicas"] == 6


def test_the_cluster_size_in_brackets_is_what_exists(recipes):
    got = extract_params(recipes["volcano-queue"], "GPU allocation (64 GPUs in the cluster): the `vision` queue is "
                                                   "capped at 24 GPUs, is entitled to 16, has 8 reserved even when idle").values
    assert (got["gpus"], got["deserved_gpus"], got["guarantee_gpus"]) == (24, 16, 8)


@pytest.mark.parametrize("text,want", [
    ("the team reads the 900 GB imagenet copy from many pods at once. Request 1200Gi on cephfs", "1200Gi"),
    ("we keep the 2 TB tokenized set there; provision 3Ti with storage class nfs-rwx", "3Ti"),
    ("a 2Ti RWX volume for the 1.5 TB corpus", "2Ti"),  # no size asked for: the first one stands
])
def test_the_size_asked_for_beats_a_size_that_describes_the_data(recipes, text, want):
    got = extract_params(recipes["rwx-dataset-pvc"], text).values
    assert got["size"] == want


@pytest.mark.parametrize("text,want", [
    ("clusterpolicy, driver preinstalled, no need the dcgm exporter", {"dcgm_exporter": False}),
    ("clusterpolicy: no need for the toolkit, the AMI has it", {"toolkit_enabled": False}),
    ("clusterpolicy, we need the dcgm exporter", {"dcgm_exporter": True}),
    ("gpu operator clusterpolicy, driver 580.95.05, and don't use MIG at all.", {"mig_strategy": "none"}),
    ("clusterpolicy where we never want mig", {"mig_strategy": "none"}),
    ("clusterpolicy with the mig mixed strategy", {"mig_strategy": "mixed"}),
])
def test_a_thing_not_needed_or_not_used_is_turned_off(recipes, text, want):
    got = extract_params(recipes["gpu-operator-clusterpolicy"], text).values
    assert {k: got.get(k) for k in want} == want


def test_the_identifier_after_a_role_is_the_role_not_the_word_before_it(recipes):
    got = extract_params(recipes["karpenter-gpu-nodepool"],
                         "karpenter nodepool for p5, the nodes use the IAM role KarpenterNodeRole-ml-train").values
    assert got["node_role"] == "KarpenterNodeRole-ml-train"


def test_a_form_field_fills_the_parameter_its_label_describes(recipes):
    text = "Workload: sim\nPods: 16\nMinimum that must start together: 12\nGPUs per pod: 1\nOffice: building 3"
    ext = extract_params(recipes["volcano-job"], text)
    assert ext.values["min_available"] == 12
    # a label that describes no parameter fills nothing
    assert not any("building" in str(v) for v in ext.values.values())


@pytest.mark.parametrize("text,want", [
    ("rename the two classes to `tier-hi` and `tier-lo`, with values 750000 and 5.",
     ("tier-hi", 750000, "tier-lo", 5)),
    ("two priority classes, serve-critical and batch-scavenger, values 2000000 and 10 respectively",
     ("serve-critical", 2000000, "batch-scavenger", 10)),
])
def test_a_pair_named_and_valued_in_order(recipes, text, want):
    got = extract_params(recipes["priority-classes"], text).values
    assert (got["production_name"], got["production_value"], got["research_name"], got["research_value"]) == want


@pytest.mark.parametrize("text,want", [
    ("priority classes. Post-mortem: the research class can't preempt anything. "
     "AI: research pods may preempt lower-priority pods.", True),
    ("priority classes; the research pods can never preempt anything", False),
])
def test_a_flag_said_of_the_objects_subject(recipes, text, want):
    assert extract_params(recipes["priority-classes"], text).values.get("research_preempts") is want


@pytest.mark.parametrize("text", ["Namespace: research-dra\nDevices: 2x A100-SXM4-80GB", "DRA claim pod, 2 x A100-SXM4-80GB"])
def test_a_count_before_a_full_product_name_counts_gpus(recipes, text):
    got = extract_params(recipes["dra-gpu-claim-pod"], text).values
    assert got["count"] == 2 and "device_class" not in got  # "2x" is a multiplier, no device class


def test_a_duration_its_topic_governs_from_further_off_in_the_sentence(recipes):
    text = ("karpenter pool for g6e. Consolidation: packing underutilized nodes is fine, but only once they have "
            "stayed that way for 45 minutes. Nodes expire after 7 days.")
    got = extract_params(recipes["karpenter-gpu-nodepool"], text).values
    assert (got["consolidate_after"], got["expire_after"]) == ("45m", "168h")


@pytest.mark.parametrize("recipe,text,want", [
    ("pytorchjob", "pytorchjob, 8 GPUs per pod, 64 GPUs in total", {"gpus": 8, "nodes": 8}),
    ("gpu-inference-deployment", "inference deployment, 2 GPUs per replica, 12 GPUs budget", {"gpus": 2, "replicas": 6}),
])
def test_the_pods_are_the_total_over_what_each_takes(recipes, recipe, text, want):
    got = extract_params(recipes[recipe], text).values
    assert {k: got.get(k) for k in want} == want


def test_the_noun_a_list_value_names_is_understood(recipes):
    ext = extract_params(recipes["karpenter-gpu-nodepool"], "karpenter gpu nodepool, node role is MyNodeRole, g6e family")
    assert ext.values["instance_families"] == ["g6e"]
    from gpukb.recipes import generate, load_recipes

    g = generate("karpenter gpu nodepool, node role is MyNodeRole, g6e family",
                 load_recipes(Path(__file__).resolve().parents[1] / "recipes"))
    assert "family" not in " ".join(g.unused)


def test_memory_per_core_is_times_the_cores(recipes):
    got = extract_params(recipes["gpu-quota"], "quota for ns vision: 24 GPUs, 192 CPU cores and 4 GiB of memory "
                                               "per core").values
    assert (got["cpu"], got["memory"]) == (192, "768Gi")
    got = extract_params(recipes["gpu-quota"], "quota for ns vision: 8 GPUs, 16Gi memory per GPU").values
    assert got["memory"] == "128Gi"


def test_a_single_place_a_bound_is_per_is_no_count(recipes):
    got = extract_params(recipes["gpu-quota"], "Namespace: speech\nGPUs: 12\nMax GPUs in a single pod: 4").values
    assert got["max_gpus_per_pod"] == 4 and "max_pods" not in got


def test_a_bundle_yields_to_the_smaller_recipe_when_nothing_else_is_asked():
    from gpukb.recipes import generate, load_recipes

    rs = load_recipes(Path(__file__).resolve().parents[1] / "recipes")
    assert generate("Namespace: speech-lab\nGPUs: 12\nCPU: 96\nMemory: 768Gi", rs).recipe == "gpu-quota"
    # the bundle's own words or objects keep the bundle
    assert generate("onboard the speech team: namespace speech-lab, 12 GPUs, 96 CPUs, 768Gi", rs).recipe == \
        "tenant-onboarding"
    assert generate("new team speech: namespace speech-lab with a quota of 12 GPUs and its own PriorityClass",
                    rs).recipe == "tenant-onboarding"


@pytest.mark.parametrize("recipe_id,text,want", [
    # a name before its kind, then "(ns X)": the namespace cue is no name
    ("hpa-gpu-metric", "autoscale the `asr-gateway` deployment (ns speech) on gpu utilization",
     {"deployment": "asr-gateway", "namespace": "speech"}),
    # a list value ruled out a few words after the negation
    ("karpenter-gpu-nodepool", "gpu pool for p5.48xlarge; compliance says it must not run on spot, on-demand only",
     {"capacity_types": ["on-demand"]}),
    # a per-container bound written as a comparison
    ("gpu-quota", "12 GPUs for namespace vision, every container <= 4 gpus", {"gpus": 12, "max_gpus_per_pod": 4}),
    # "caps at" is the limit of the pair of request and limit
    ("model-cache-ephemeral", "runner pod w/ 1 gpu that wants 40 gigs ephemeral and caps at 90 gigs, puts the model "
                              "cache on its own 300Gi volume", {"ephemeral_request": "40Gi", "ephemeral_limit": "90Gi",
                                                                "cache_size": "300Gi"}),
    # the least that may start, said as a permission
    ("volcano-job", "volcano job with 8 workers x 2 gpus, okay if only 5 workers start", {"workers": 8, "min_available": 5}),
    ("coscheduling-podgroup", "gang of 10 pods, fine when just 7 of them get scheduled", {"members": 10, "min_member": 7}),
    # shards that die or crash are failed indexes
    ("indexed-job", "1000 shards with 1 gpu each, abort the job if more than 30 shards crash",
     {"completions": 1000, "max_failed_indexes": 30}),
    # "should still schedule" when a spread cannot be balanced
    ("topology-spread-training", "spread the 4 workers over zones, and if that can't be balanced they should still "
                                 "schedule", {"when_unsatisfiable": "ScheduleAnyway"}),
])
def test_bounds_and_permissions_in_plain_words(recipes, recipe_id, text, want):
    got = extract_params(recipes[recipe_id], text).values
    assert {k: got.get(k) for k in want} == want, got


def test_several_shares_of_one_stated_total_and_a_reservation(recipes):
    text = ("Volcano queue vision: the cluster has 40 GPUs. Cap vision at half of them, entitle it to a quarter of the "
            "cluster when busy, and reserve 2 GPUs for it even when idle. Other queues must never be able to take back "
            "what vision borrowed.")
    got = extract_params(recipes["volcano-queue"], text).values
    assert {k: got.get(k) for k in ("gpus", "deserved_gpus", "guarantee_gpus", "reclaimable")} == \
        {"gpus": 20, "deserved_gpus": 10, "guarantee_gpus": 2, "reclaimable": False}, got
    # said plainly, other queues may take back what it borrowed
    assert extract_params(recipes["volcano-queue"], "queue vision, 20 gpus; other queues can take back what it "
                                                    "borrowed").values.get("reclaimable") is True


def test_a_bundle_reads_a_per_pod_cap_as_the_recipe_it_contains(recipes):
    text = 'Onboarding checklist for tenant "vision"\n* GPU budget: 24 GPUs\n* per-pod cap: 8 GPUs\n* priority 3000'
    for rid, name in (("tenant-onboarding", "tenant"), ("gpu-quota", None)):
        got = extract_params(recipes[rid], text).values
        assert (got.get("gpus"), got.get("max_gpus_per_pod")) == (24, 8), (rid, got)
