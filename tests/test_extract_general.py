"""Schema-driven extraction shared by every recipe, on small fixture recipes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpukb.recipes.extract import extract_params, normalise_text, parse_number
from gpukb.recipes.model import Recipe


def _recipe(props: dict[str, Any], extract: dict[str, Any] | None = None) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props}, templates=[], examples=[],
                  path=Path("fixture.yaml"), extract=extract or {})


INT = {"type": "integer", "minimum": 0, "maximum": 100000}
SIZE = {"type": "string", "pattern": "^[0-9]+(Mi|Gi|Ti)$"}


@pytest.mark.parametrize("words, n", [("forty", 40), ("twenty-four", 24), ("sixty four", 64), ("seven", 7),
                                      ("a dozen", 12), ("a hundred", 100), ("12", 12)])
def test_number_words(words, n):
    assert parse_number(words) == n


@pytest.mark.parametrize("text, out", [
    ("memory 32 gigs", "memory 32GB"),
    ("2 terabytes of data", "2TB of data"),
    ("value 1,000,000 please", "value 1000000 please"),
    ("ids 1,2 and 3", "ids 1,2 and 3"),
    ("3 gibibytes", "3Gi"),
])
def test_normalised_units_and_digit_groups(text, out):
    assert normalise_text(text) == out


def test_value_before_the_parameter_name():
    r = _recipe({"max_failed_indexes": INT, "completions": INT})
    ext = extract_params(r, "run 100 completions, give up after 10 failed indexes")
    assert ext.values == {"completions": 100, "max_failed_indexes": 10}


def test_word_numbers_count():
    r = _recipe({"shards": INT}, {"shards": [{"count": ["shards"]}]})
    assert extract_params(r, "forty shards please").values == {"shards": 40}


@pytest.mark.parametrize("text, secs", [("delete it an hour after it finishes", 3600),
                                        ("delete it two days after it finishes", 172800),
                                        ("delete it 90 s after it finishes", 90)])
def test_seconds_in_the_name_implies_a_duration(text, secs):
    r = _recipe({"ttl_seconds": {**INT, "maximum": 10**7, "description": "Delete the finished job after this many seconds."}})
    assert extract_params(r, text).values == {"ttl_seconds": secs}


def test_an_article_between_cue_and_value_is_skipped():
    r = _recipe({"extra_toleration": {"type": "string", "pattern": "^[a-z][-a-z]*$"}},
                {"extra_toleration": [{"after": ["tolerate", "taint"]}]})
    assert extract_params(r, "pods must tolerate the dedicated taint").values == {"extra_toleration": "dedicated"}


def _kw_recipe(rid: str, keywords: list[str], description: str = "") -> Recipe:
    return Recipe(id=rid, title=rid, area="test", description=description, docs=[],
                  parameters={"type": "object", "properties": {}}, templates=[], examples=[],
                  path=Path(f"{rid}.yaml"), keywords=keywords)


def test_the_recipe_named_first_wins_over_a_detail_named_later():
    from gpukb.recipes.match import match_recipes

    recipes = [_kw_recipe("hpa", ["hpa", "autoscaler"]),
               _kw_recipe("deploy", ["deployment", "model server", "triton"])]
    assert match_recipes("HPA for the triton deployment, min 2 max 4", recipes, k=1)[0][0].id == "hpa"
    assert match_recipes("triton deployment with an HPA", recipes, k=1)[0][0].id == "deploy"


@pytest.mark.parametrize("text, want", [
    ("scale my vllm deployment between 1 and 6 pods with keda", "keda"),  # my ...: an object already there
    ("vllm deployment, 1 to 6 pods, scaled with keda", "deploy"),
    ("scale our existing triton deployment on queue depth with keda", "keda"),
    ("keda scaler where the vllm triton deployment is the target", "keda"),  # a relative clause is a detail
])
def test_an_object_the_user_already_has_is_not_the_object_asked_for(text, want):
    from gpukb.recipes.match import match_recipes

    recipes = [_kw_recipe("keda", ["keda", "scaledobject"]),
               _kw_recipe("deploy", ["deployment", "vllm", "triton"])]
    assert match_recipes(text, recipes, k=1)[0][0].id == want


@pytest.mark.parametrize("text, word, detail", [
    ("cluster policy where the mig manager reads a configmap", "mig", True),
    ("cluster policy, mig manager on", "mig", False),
    ("patch my vllm deployment", "deployment", True),
    ("patch the vllm deployment", "deployment", False),
    ("autoscale the vllm deployment", "deployment", True),  # what a scaling verb scales is its target
    ("we'd like to try kueue for our lab", "kueue", False),  # "to" before a verb is no preposition
    ("pods in the prod queue", "queue", True),
    ("pytorchjob, 2 nodes (gang scheduled through volcano)", "volcano", True),  # an aside in brackets
    ("pytorchjob (2 nodes), volcano gang", "volcano", False),
])
def test_details_of_the_object_asked_for(text, word, detail):
    from gpukb.recipes.match import is_detail

    assert is_detail(text, text.index(word)) is detail


@pytest.mark.parametrize("text, want", [
    ("distributed job with nvlink topology awareness", "train"),  # words of a feature after "with"
    ("topology awareness placement, distributed", "spread"),
    ("distributed fine-tune where the placement has topology awareness", "train"),  # a relative clause
])
def test_word_overlap_in_a_detail_weighs_less(text, want):
    from gpukb.recipes.match import match_recipes

    recipes = [_kw_recipe("train", [], "distributed fine-tune"),
               _kw_recipe("spread", [], "topology awareness placement topology")]
    assert match_recipes(text, recipes, k=1)[0][0].id == want


def test_a_keyword_inside_a_given_name_names_no_recipe():
    from gpukb.recipes.match import mask_given_names, match_recipes

    recipes = [_kw_recipe("spread", ["spread pods", "one pod per node"]), _kw_recipe("ddp", ["ddp", "torchrun"])]
    assert match_recipes("spread pods one per node, job name ddp-spread", recipes, k=1)[0][0].id == "spread"
    assert match_recipes("ddp job, spread pods evenly", recipes, k=1)[0][0].id == "ddp"
    masked = mask_given_names('job named ddp-x and "vllm-a" here')
    assert "ddp" not in masked and "vllm" not in masked and len(masked) == len('job named ddp-x and "vllm-a" here')


def test_a_shared_keyword_names_no_recipe_first():
    from gpukb.recipes.match import match_recipes

    recipes = [_kw_recipe("a", ["gang", "alpha"]), _kw_recipe("b", ["gang", "beta"]), _kw_recipe("c", ["podgroup"])]
    assert match_recipes("gang job as a podgroup", recipes, k=1)[0][0].id == "c"


def test_singular_and_plural_name_parts_are_the_same_cue():
    from gpukb.recipes.extract import distinctive_cues

    assert "member" not in distinctive_cues("min_member", ["members", "min_member"])
    assert "failed" in distinctive_cues("max_failed_indexes", ["max_failed_indexes", "backoff_limit_per_index"])


@pytest.mark.parametrize("text, want", [
    ("never retry", {"max_retry": 0}),
    ("no retries please", {"max_retry": 0}),
    ("no more than 4 retries", {"max_retry": 4}),
])
def test_nothing_of_a_counted_thing_is_zero(text, want):
    r = _recipe({"max_retry": INT}, {"max_retry": [{"count": ["retries", "retry"]}]})
    assert extract_params(r, text).values == want


def test_no_groups_is_an_empty_list_and_a_minimum_forbids_zero():
    r = _recipe({"fallback_groups": {"type": "array", "items": {"type": "string"}},
                 "gpus": {"type": "integer", "minimum": 1}},
                {"fallback_groups": [{"list": ["fallback groups", "fallback"]}]})
    assert extract_params(r, "no fallback groups and no gpus").values == {"fallback_groups": []}


@pytest.mark.parametrize("text, want", [("other queues can't reclaim from it", False),
                                        ("ssh plugin off", False), ("with ssh", True)])
def test_plain_language_booleans(text, want):
    r = _recipe({"reclaimable": {"type": "boolean"}, "ssh": {"type": "boolean"}})
    vals = extract_params(r, text).values
    assert want in vals.values() and len(vals) == 1


def test_a_word_that_names_another_parameter_is_not_a_value():
    r = _recipe({"model": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._/:-]*$"}, "cache_size": SIZE},
                {"cache_size": [{"size": "quantity", "near": ["cache"]}]})
    assert extract_params(r, "emptyDir 50Gi model cache").values == {"cache_size": "50Gi"}
    assert extract_params(r, "model llama-3 please").values == {"model": "llama-3"}


def test_inference_deployment_model_cache_is_an_emptydir_with_a_size_limit():
    from gpukb.recipes import find_recipe, generate, load_recipes

    recipes = load_recipes(Path(__file__).resolve().parents[1] / "recipes")
    g = generate("vLLM model server, 1 GPU, emptyDir 50Gi model cache", recipes)
    assert g.recipe == "gpu-inference-deployment" and g.valid
    spec = g.documents[0]["spec"]["template"]["spec"]
    assert {"name": "model-cache", "emptyDir": {"sizeLimit": "50Gi"}} in spec["volumes"]
    bare = generate("vLLM model server with 1 GPU", recipes).documents[0]["spec"]["template"]["spec"]
    assert [v["name"] for v in bare["volumes"]] == ["dshm"]
    assert find_recipe("gpu-inference-deployment", recipes).properties["cache_size"]["pattern"]


# ------------------------------------------------------------ quantities assigned in one pass
_SIZES = _recipe(
    {"req": {"type": "string", "pattern": "^[0-9]+(Mi|Gi|Ti)$", "description": "ephemeral-storage request."},
     "lim": {"type": "string", "pattern": "^[0-9]+(Mi|Gi|Ti)$", "description": "ephemeral-storage limit."},
     "cache": {"type": "string", "pattern": "^[0-9]+(Mi|Gi|Ti)$", "description": "Size of the generic volume."}},
    {"req": [{"size": "quantity", "near": ["request", "ephemeral"]}],
     "lim": [{"size": "quantity", "near": ["limit", "max"]}],
     "cache": [{"size": "quantity", "near": ["cache", "volume"]}]})


@pytest.mark.parametrize("text, req, lim", [
    ("request 80Gi, limit 160Gi", "80Gi", "160Gi"),
    ("limit 160Gi, request 80Gi", "80Gi", "160Gi"),
    ("request=20Gi limit=60Gi", "20Gi", "60Gi"),
    ("an ephemeral request of 300Gi but a limit of only 100Gi", "300Gi", "100Gi"),
    ("request 40Gi / limit 80Gi ephemeral storage", "40Gi", "80Gi"),
])
def test_sizes_sharing_a_unit_go_to_their_own_cues(text, req, lim):
    vals = extract_params(_SIZES, text).values
    assert (vals.get("req"), vals.get("lim")) == (req, lim)


def test_a_quantity_goes_to_the_parameter_it_is_closest_to_once():
    vals = extract_params(_SIZES, "a 300Gi generic ephemeral volume, request 40Gi, limit 80Gi").values
    assert vals == {"cache": "300Gi", "req": "40Gi", "lim": "80Gi"}


def test_durations_sharing_a_unit_go_to_their_own_cues():
    r = _recipe({"poll": {"type": "integer", "minimum": 1, "maximum": 3600},
                 "cool": {"type": "integer", "minimum": 0, "maximum": 86400}},
                {"poll": [{"duration": True, "near": ["poll", "every"]}],
                 "cool": [{"duration": True, "near": ["cooldown"]}]})
    assert extract_params(r, "threshold 70, poll every 30s, cooldown 5 min").values == {"poll": 30, "cool": 300}
    assert extract_params(r, "cooldown 5 min, poll every 30s").values == {"poll": 30, "cool": 300}


def test_an_explicit_rule_before_the_size_rule_wins():
    r = _recipe({"req": SIZE, "lim": SIZE},
                {"req": [{"regex": r"\bREQ=(\d+Gi)"}, {"size": "quantity", "near": ["request"]}],
                 "lim": [{"size": "quantity", "near": ["limit"]}]})
    assert extract_params(r, "limit 10Gi REQ=5Gi request").values == {"req": "5Gi", "lim": "10Gi"}


def test_a_size_naming_the_gpu_model_is_not_memory():
    r = _recipe({"memory": SIZE})
    assert extract_params(r, "8 x A100 80GB each, 96 cores and 1Ti ram per pod").values["memory"] == "1Ti"


def test_no_counted_thing_gives_zero_only_when_the_word_ends_the_phrase():
    r = _recipe({"gpus": INT, "x": {"type": "string"}})
    assert extract_params(r, "pod with a limit, no GPU").values.get("gpus") == 0
    assert "gpus" not in extract_params(r, "no gpu toleration on the flavor").values


def test_a_name_bound_to_another_object_is_that_objects_name():
    name_spec = {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}
    r = _recipe({"name": name_spec, "claim_template": name_spec},
                {"name": [{"name": True}], "claim_template": [{"after": ["claim template named"]}]})
    assert extract_params(r, "one GPU, claim template named big-gpu").values == {"claim_template": "big-gpu"}
    assert extract_params(r, "pod named smi, claim template named big-gpu").values == {
        "name": "smi", "claim_template": "big-gpu"}


def test_object_names_given_verbatim_stay_verbatim():
    item = {"type": "object", "properties": {"name": {"type": "string"}, "value": INT}}
    r = _recipe({"classes": {"type": "array", "items": item}},
                {"classes": [{"objects": [r"(?P<name>[a-z][\w-]*)\s+(?P<value>\d+)\b(?P<_v>)"]}]})
    vals = extract_params(r, "classes: prod-llm 2000 and dev-notebooks 50, workers 3").values
    assert [c["name"] for c in vals["classes"]][:2] == ["prod-llm", "dev-notebooks"]
    assert vals["classes"][2]["name"] == "worker"


def _operator_recipe() -> Recipe:
    b = {"type": "boolean"}
    return _recipe({
        "driver_enabled": {**b, "description": "Install the driver (false when the driver is pre-installed)."},
        "toolkit_enabled": {**b, "description": "Install the toolkit (false when it is pre-installed)."},
        "preempts": {**b, "description": "May preempt lower-priority pods."},
    })


@pytest.mark.parametrize("text, want", [
    ("driver is preinstalled, the toolkit stays managed", {"driver_enabled": False}),
    ("pre-installed drivers and toolkit", {"driver_enabled": False, "toolkit_enabled": False}),
    ("driver and toolkit are already installed", {"driver_enabled": False, "toolkit_enabled": False}),
    ("toolkit already on the nodes", {"toolkit_enabled": False}),
    ("driver is not preinstalled", {}),
    ("the driver is preinstalled and the toolkit is managed", {"driver_enabled": False}),
])
def test_a_state_the_description_names_sets_the_boolean(text, want):
    got = extract_params(_operator_recipe(), text).values
    assert {k: v for k, v in got.items() if k != "preempts"} == want


@pytest.mark.parametrize("text, want", [
    ("these pods can also preempt others", True),
    ("let their jobs preempt lower work", True),
    ("they should never preempt", False),
    ("they must not preempt", False),
])
def test_a_verb_cue_allowed_or_forbidden(text, want):
    assert extract_params(_operator_recipe(), text).values.get("preempts") is want


def test_a_count_before_a_value_naming_what_is_counted():
    r = _recipe({"gpus": {**INT, "minimum": 1}, "profile": {"type": "string", "pattern": "^[1-7]g\\.[0-9]+gb$"}},
                {"gpus": [{"count": ["mig devices", "gpus"]}], "profile": [{"regex": r"\b([1-7]g\.\d+gb)\b"}]})
    assert extract_params(r, "two 1g.10gb mig devices").values == {"gpus": 2, "profile": "1g.10gb"}
    assert extract_params(r, "two 1g.10gb slices").values == {"profile": "1g.10gb"}  # not the counted unit


def test_a_mig_profile_is_not_a_size():
    r = _recipe({"min_memory": {**SIZE, "description": "Minimum GPU memory."}},
                {"min_memory": [{"size": "quantity", "near": ["memory", "mig"]}]})
    assert extract_params(r, "one 1g.10gb mig device").values == {}
    assert extract_params(r, "mig device with 10Gi memory").values == {"min_memory": "10Gi"}


@pytest.mark.parametrize("text, want", [
    ("spot + on-demand", ["spot", "on-demand"]),
    ("on-demand and spot both fine", ["on-demand", "spot"]),
    ("spot only, no on-demand", ["spot"]),
])
def test_a_list_of_enum_values_takes_every_value_named(text, want):
    r = _recipe({"capacity": {"type": "array", "items": {"type": "string", "enum": ["on-demand", "spot", "reserved"]},
                              "uniqueItems": True}},
                {"capacity": [{"enum": {"spot": ["spot only", "spot"]}}]})
    assert extract_params(r, text).values == {"capacity": want}


GUARDED = {"type": "boolean", "default": True,
           "description": "Reject pods that ask for more than one shared GPU (extra text)."}


@pytest.mark.parametrize("text, value", [
    ("pods are allowed to request more than one shared GPU", False),
    ("a pod may grab more than one shared gpu, that is fine", False),
    ("pods must not use more than one shared gpu", True),
    ("workloads are not permitted to claim more than one shared gpu", True),
])
def test_guarded_boolean_reads_permission_with_the_actions_other_verbs(text, value):
    r = _recipe({"fail_over_one": GUARDED})
    assert extract_params(r, text).values.get("fail_over_one") is value


COUNTED = {"gpus": {"type": "integer", "minimum": 0, "maximum": 16, "description": "GPUs per pod."}}


@pytest.mark.parametrize("text, other", [
    ("deployment with 2 gpus per replica, and every replica needs 6 gpus", 6),
    ("give it 4 GPUs. the model itself needs 8 GPUs", 8),
])
def test_a_number_given_twice_differently_is_a_conflict(text, other):
    r = _recipe(COUNTED, {"gpus": [{"count": ["gpus", "gpu"]}]})
    ext = extract_params(r, text)
    assert ext.conflicts["gpus"][0] == other


@pytest.mark.parametrize("text", [
    "4 gpus per pod, 16 gpus in total",  # a total
    "2 gpus on each of the 8 nodes, 16 gpus overall",  # a total said another way
    "8 gpus, yes 8 gpus",  # the same value twice
])
def test_totals_rates_and_repeats_are_no_conflict(text):
    r = _recipe(COUNTED, {"gpus": [{"count": ["gpus", "gpu"]}]})
    assert not extract_params(r, text).conflicts


@pytest.mark.parametrize("text, value", [
    ("no spot capacity please, keep it simple", None),
    ("we never want spot here", None),
    ("spot capacity is fine", "spot"),
])
def test_an_enum_value_ruled_out_is_not_chosen(text, value):
    r = _recipe({"capacity": {"type": "string", "enum": ["spot", "on-demand"]}},
                {"capacity": [{"enum": {"spot": ["spot"], "on-demand": ["on-demand", "on demand"]}}]})
    assert extract_params(r, text).values.get("capacity") == value


REGEX_LIST = {"type": "array", "items": {"type": "string", "pattern": r"^[A-Za-z0-9.*^$_-]+$"}}


@pytest.mark.parametrize("text, want", [
    ("prefer pools like .*h100-od.* and .*h100-spot.*, then the rest", [".*h100-od.*", ".*h100-spot.*"]),
    ("my top choice is gpu-big-.* please", ["gpu-big-.*"]),
])
def test_regex_items_of_the_clause_beat_a_plain_word_after_the_cue(text, want):
    r = _recipe({"preferred": REGEX_LIST}, {"preferred": [{"list": ["prefer", "top"]}]})
    assert extract_params(r, text).values.get("preferred") == want


@pytest.mark.parametrize("text, out", [
    ("value three million please", "value 3000000 please"),
    ("give it 2.5 thousand", "give it 2500 "),
    ("a volume of half a TB", "a volume of 0.5 TB"),
    ("wait one whole minute", "wait 1 minute"),
    ("a million thanks to half an hour", "1000000 thanks to half an hour"),
])
def test_amounts_written_with_words(text, out):
    assert normalise_text(text).strip() == out.strip()


def test_scaled_words_reach_integer_and_size_parameters():
    r = _recipe({"value": INT | {"maximum": 10 ** 9}, "disk": SIZE}, {"disk": [{"size": "quantity", "near": ["disk"]}]})
    ext = extract_params(r, "value of four million, disk half a TiB")
    assert ext.values == {"value": 4000000, "disk": "512Gi"}


@pytest.mark.parametrize("text", [
    "a single pod can't take more than 3 gpus",
    "no pod should ever exceed 3 GPUs",
    "each container must not use more than three",
])
def test_most_per_unit_from_a_forbidden_excess(text):
    r = _recipe({"max_gpus_per_pod": INT})
    assert extract_params(r, text).values.get("max_gpus_per_pod") == 3


def test_a_tie_between_two_quantities_goes_to_the_one_more_cues_point_at():
    from gpukb.recipes.model import find_recipe, load_recipes

    recipe = find_recipe("dcgm-servicemonitor-alerts", load_recipes())
    # both durations follow "for"; the idle window's other cue, "utilization", stands with the second
    text = ("dcgm servicemonitor in ns gpu-operator scraping every 15s, alert when GPU temperature is above 85C for "
            "5 minutes, and when utilization stays below 10% for 30 minutes")
    assert extract_params(recipe, text).values["idle_window_seconds"] == 1800
