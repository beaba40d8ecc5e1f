"""Ways engineers write details that the shared extraction reads: manifest field names,
corrections, spelled-out durations, negated states, bounds and kubectl taint syntax."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpukb.recipes.extract import extract_params, manifest_fields, normalise_text
from gpukb.recipes.model import Recipe

INT = {"type": "integer", "minimum": 0, "maximum": 100000}


def _recipe(props: dict[str, Any], templates: list[Any] | None = None) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props}, templates=templates or [], examples=[],
                  path=Path("fixture.yaml"), extract={})


_SCALER = [{"apiVersion": "example.io/v1", "kind": "Scaler", "metadata": {"name": "x"},
            "spec": {"lowestPodCount": {"$param": "floor"},
                     "highestPodCount": {"$max": [{"$param": "ceiling"}, {"$param": "floor"}]},
                     "graceWindowSeconds": {"$if": {"$param": "grace"}, "then": {"$param": "grace"}, "else": 30},
                     "targetRef": {"kind": "Deployment", "name": {"$param": "target"}},
                     "pollEvery": {"$mul": [{"$param": "poll"}, 2]}}}]
_SCALER_PROPS = {"floor": INT, "ceiling": INT, "grace": INT, "target": {"type": "string"}, "poll": INT}


def test_manifest_fields_name_the_parameter_that_alone_fills_them():
    fields = manifest_fields(_recipe(_SCALER_PROPS, _SCALER))
    assert fields == {"floor": ["lowestPodCount"], "ceiling": ["highestPodCount"], "grace": ["graceWindowSeconds"]}
    # a computed field ("pollEvery" = 2 x poll) and a nested object ("targetRef") name no parameter


@pytest.mark.parametrize("text, want", [
    ("scaler with lowestPodCount 2 and highestPodCount 9", {"floor": 2, "ceiling": 9}),
    ("graceWindowSeconds: 45, highestPodCount=12", {"grace": 45, "ceiling": 12}),
])
def test_values_after_manifest_field_names(text, want):
    got = extract_params(_recipe(_SCALER_PROPS, _SCALER), text).values
    assert {k: got.get(k) for k in want} == want


@pytest.mark.parametrize("text, out", [
    ("cap at twelve.. no wait, make it 20 gpus", "cap at 20 gpus"),
    ("3 nodes, sorry, 5 nodes", "5 nodes"),
    ("24 GPUs - actually make that 32", "32 GPUs"),
    ("workers: 6 (I mean 7)", "workers: 7"),
    # two different quantities are no correction
    ("2 nodes, actually 8 GPUs on each", "2 nodes, actually 8 GPUs on each"),
    ("3 replicas. Actually, add a PDB too", "3 replicas. Actually, add a PDB too"),
])
def test_a_number_taken_back_is_replaced(text, out):
    assert normalise_text(text) == out


def test_hundreds_in_words():
    assert normalise_text("a hundred gigs of scratch") == "100GB of scratch"
    assert normalise_text("two hundred replicas") == "200 replicas"


GO_DURATION = {"type": "string", "pattern": "^([0-9]+(s|m|h))+$"}


@pytest.mark.parametrize("text, want", [
    ("drain idle nodes after 45 minutes", "45m"),
    ("drain idle nodes once they have sat there for two days", "48h"),
    ("drain idle nodes after 90 seconds", "90s"),
    ("drain idle nodes after 20m", "20m"),
])
def test_spelled_out_duration_for_a_go_duration_parameter(text, want):
    r = _recipe({"drain_after": {**GO_DURATION, "description": "How long a node stays idle before it is drained."}})
    assert extract_params(r, text).values == {"drain_after": want}


@pytest.mark.parametrize("text, want", [
    ("queue q7, and it must not be borrowable", False),
    ("queue q7 which shouldn't be borrowable", False),
    ("queue q7, it isn't borrowable", False),
    ("queue q7, borrowable: true", True),
])
def test_negated_state_with_a_verb(text, want):
    r = _recipe({"borrowable": {"type": "boolean", "default": True}, "name": {"type": "string"}})
    assert extract_params(r, text).values.get("borrowable") is want


@pytest.mark.parametrize("text", ["elastic, minimum three trainers maximum 9", "at least 3 trainers, at most 9"])
def test_bounds_with_the_unit_after_the_first(text):
    r = _recipe({"min_trainers": INT, "max_trainers": INT})
    assert extract_params(r, text).values == {"min_trainers": 3, "max_trainers": 9}


TAINT = {"type": "string", "pattern": "^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$",
         "description": "Another taint key to tolerate (effect NoSchedule)."}


@pytest.mark.parametrize("text", [
    "pod that tolerates pool=h200:NoExecute",
    "it has to tolerate the pool=h200 taint",
    "nodes carry a pool=reserved:NoSchedule taint",
    "tolerate pool:NoSchedule please",
])
def test_kubectl_taint_syntax_gives_the_key(text):
    r = _recipe({"extra_toleration": TAINT, "image": {"type": "string"}})
    got = extract_params(r, text).values
    assert got.get("extra_toleration") == "pool"
    assert "image" not in got  # "h200:NoExecute" is the taint's value and effect, not an image


def _with_rules(props: dict[str, Any], extract: dict[str, Any]) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props}, templates=[], examples=[],
                  path=Path("fixture.yaml"), extract=extract)


_PLUGINS = {"plugins": {"type": "array", "items": {"type": "string", "enum": ["alpha", "beta"]}},
            "ssh": {"type": "boolean", "default": True}}


@pytest.mark.parametrize("text, want", [
    ("job with the beta plugin. No ssh plugin please.", ["beta"]),
    ("job with no plugins at all", []),
])
def test_no_one_thing_of_a_kind_is_not_none_of_them(text, want):
    r = _with_rules(_PLUGINS, {"plugins": [{"list": ["plugins", "plugin"]}]})
    assert extract_params(r, text).values.get("plugins") == want


def test_single_quotes_and_backticks_read_as_quotes_in_recipe_patterns():
    r = _with_rules({"release": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
                    {"release": [{"regex": r'\brelease\s+(?:label\s+)?(?:is\s+)?"?([a-z0-9][-a-z0-9]*)'}]})
    assert extract_params(r, "the release label is 'prod-stack'").values == {"release": "prod-stack"}
    assert extract_params(r, "the release label is `prod-stack`").values == {"release": "prod-stack"}


NAME = {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}


def test_called_after_another_objects_qualifier_and_its_noun():
    r = _recipe({"name": NAME, "scheduler_name": NAME})
    got = extract_params(r, "gang of 4 pods; our scheduler profile is called sched-x").values
    assert got.get("scheduler_name") == "sched-x" and "name" not in got


def test_namespace_of_a_hyphenated_object():
    r = _recipe({"namespace": NAME, "exporter_namespace": NAME})
    got = extract_params(r, "we run acme-exporter standalone in namespace obs").values
    assert got == {"exporter_namespace": "obs"}


@pytest.mark.parametrize("text, want", [
    ("launch them in a cluster placement group", None),
    ("nodes for cluster prod-east", "prod-east"),
    ("nodes for cluster research, 4 of them", "research"),
])
def test_a_plain_word_heading_a_longer_noun_is_no_name(text, want):
    r = _with_rules({"cluster_name": NAME}, {"cluster_name": [{"after": ["cluster"]}]})
    assert extract_params(r, text).values.get("cluster_name") == want


CMD = {"type": "array", "items": {"type": "string"}, "maxItems": 64}


@pytest.mark.parametrize("text, want", [
    ('job, command: ["torchrun", "/opt/run.py", "--cfg", "a.yaml"], 2 gpus', ["torchrun", "/opt/run.py", "--cfg", "a.yaml"]),
    ("job running args: [sleep, infinity]", ["sleep", "infinity"]),
    ("job, command: ['python', '-m', 'http.server', '8080']", ["python", "-m", "http.server", "8080"]),
])
def test_a_list_written_as_yaml_or_json(text, want):
    r = _recipe({"command": CMD, "name": NAME, "gpus": INT})
    assert extract_params(r, text).values["command"] == want


@pytest.mark.parametrize("text, out", [
    ("pod in dev, 4 gpus -- sorry, make that 2 -- on L4 nodes", "pod in dev, 2 gpus -- on L4 nodes"),
    ("64 cores, 128Gi mem (actually make it 256Gi), prio 10", "64 cores, 256Gi mem, prio 10"),
    ("memory 128Gi, actually 192", "memory 192Gi"),
])
def test_taken_back_amounts_with_dashes_and_attached_units(text, out):
    assert normalise_text(text) == out


def test_a_fractional_binary_size_stays_as_written():
    r = _recipe({"memory": {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)?(Mi|Gi|Ti)$"}})
    assert extract_params(r, "quota with 1.5Ti memory").values == {"memory": "1.5Ti"}
    assert extract_params(r, "quota with 1.5 TiB memory").values == {"memory": "1.5Ti"}


def test_a_value_that_ends_a_sentence():
    r = _with_rules({"families": {"type": "array", "items": {"type": "string"}}},
                    {"families": [{"regex": r"\b(g5|p5|p4de)(?!\w|\.\w)", "all": True}]})
    assert extract_params(r, "pool for p5 and p4de. thanks").values == {"families": ["p5", "p4de"]}
    assert extract_params(r, "pool for p5.48xlarge").values == {}


def test_a_name_before_its_cue_beats_a_plain_word_after_it():
    r = _recipe({"namespace": NAME, "gpus": INT})
    assert extract_params(r, "cv-research ns needs a quota of 12 gpus").values == {"namespace": "cv-research", "gpus": 12}
    assert extract_params(r, "quota in ns research for 8 gpus").values == {"namespace": "research", "gpus": 8}


def test_a_namespace_qualifier_alone_names_no_namespace():
    r = _recipe({"namespace": NAME, "exporter_namespace": NAME})
    got = extract_params(r, "exporter is standalone in ns obs").values
    assert got == {"exporter_namespace": "obs"}


@pytest.mark.parametrize("text, want", [
    ("debug pod, image python:3.11-slim, command: sleep infinity", ["sleep", "infinity"]),
    ("pod with command: python train.py --epochs 3. thanks", ["python", "train.py", "--epochs", "3"]),
])
def test_after_a_command_field_the_clause_is_the_command(text, want):
    r = _recipe({"command": CMD, "image": {"type": "string"}})
    assert extract_params(r, text).values["command"] == want


def test_a_lone_w_between_words_is_with():
    assert normalise_text("a pod w 1 gpu please") == "a pod with 1 gpu please"
    assert normalise_text("nodes w two cards") == "nodes with two cards"
    assert normalise_text("the w key") == "the w key"


def test_bounds_after_the_unit_and_a_few_words():
    r = _recipe({"min_trainers": INT, "max_trainers": INT, "gpus": INT})
    got = extract_params(r, "trainers can float between three and ten, 2 gpus each").values
    assert got == {"min_trainers": 3, "max_trainers": 10, "gpus": 2}


_POLICY = {"type": "array", "items": {"type": "object", "required": ["when", "do"], "additionalProperties": False,
                                      "properties": {"when": {"type": "string", "enum": ["NodeLost", "PodGone"]},
                                                     "do": {"type": "string", "enum": ["Retry", "GiveUp"]}}}}


def test_enum_pairs_written_as_a_mapping():
    r = _recipe({"rules": _POLICY})
    got = extract_params(r, "rules: NodeLost -> GiveUp, PodGone => Retry").values
    assert got == {"rules": [{"when": "NodeLost", "do": "GiveUp"}, {"when": "PodGone", "do": "Retry"}]}


def test_a_list_after_its_own_noun():
    r = _with_rules({"preferred_groups": {"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9.*-]+$"}}},
                    {"preferred_groups": [{"list": ["prefer"]}]})
    got = extract_params(r, "prefer node groups pool-a1 and pool-b2, then the rest").values
    assert got == {"preferred_groups": ["pool-a1", "pool-b2"]}


def test_a_value_in_apposition_before_the_sentence_ends():
    r = _recipe({"tenant": NAME, "gpus": INT})
    got = extract_params(r, "onboard a new tenant, genomics. They get 16 GPUs.").values
    assert got == {"tenant": "genomics", "gpus": 16}


@pytest.mark.parametrize("text, out", [
    ("plus a hundred and twenty-eight cores", "plus 128 cores"),
    ("a production class at five hundred thousand", "a production class at 500000"),
    ("a volume of three thousand six hundred GiB", "a volume of 3600 GiB"),
    ("sixty-four gigs of memory", "64GB of memory"),
    ("one 3g.40gb slice, -e 8G", "one 3g.40gb slice, -e 8G"),  # sizes already in digits stay as written
    ("budget an hour and a half", "budget 1.5 hours"),
    ("one and a half days", "1.5 days"),
    ("gpus 32 -> scratch that, 24", "gpus 24"),
])
def test_amounts_in_several_words(text, out):
    assert normalise_text(text) == out


def test_kubectl_namespace_flag():
    r = _recipe({"namespace": NAME, "command": CMD})
    assert extract_params(r, "job llm-sft -n train, run nvidia-smi").values.get("namespace") == "train"
    assert "namespace" not in extract_params(r, "just run nvidia-smi please").values


def test_a_list_of_mappings_written_as_yaml():
    r = _recipe({"rules": _POLICY})
    got = extract_params(r, "job with rules: [{when: NodeLost, do: GiveUp}, {when: PodGone, do: Retry}]").values
    assert got == {"rules": [{"when": "NodeLost", "do": "GiveUp"}, {"when": "PodGone", "do": "Retry"}]}


@pytest.mark.parametrize("text", ["nodes not tainted please", "the pool should not have the taint"])
def test_negated_state_as_a_participle_or_after_have(text):
    r = _recipe({"taint": {"type": "boolean", "default": True}})
    assert extract_params(r, text).values == {"taint": False}


def test_a_value_after_must_be():
    r = _recipe({"min_member": INT, "members": INT})
    assert extract_params(r, "the job has 3 members but min member must be 5").values == {"members": 3, "min_member": 5}


def test_a_flag_named_with_its_value():
    r = _with_rules({"rename": {"type": "boolean", "default": True}}, {"rename": [{"flag": ["renameByDefault"]}]})
    assert extract_params(r, "config with renameByDefault: false").values == {"rename": False}
    assert extract_params(r, "config with renameByDefault").values == {"rename": True}


def test_a_flags_value_is_no_function_word():
    r = _recipe({"command": CMD, "gpus": INT})
    assert extract_params(r, "a pod that runs nvidia-smi -q on one of the nodes").values["command"] == ["nvidia-smi", "-q"]


def test_the_name_after_what_the_cue_is_of():
    r = _recipe({"name": NAME, "deployment": NAME})
    got = extract_params(r, "autoscale deployment web-a, and name of the hpa is web-hpa").values
    assert got.get("name") == "web-hpa"


def test_a_name_after_the_cue_noun():
    r = _with_rules({"extra_toleration": TAINT}, {"extra_toleration": [{"after": ["tolerate", "taint"]}]})
    assert extract_params(r, "tolerate the pool taint l40s-pool").values == {"extra_toleration": "l40s-pool"}
    assert extract_params(r, "tolerate the spot taint").values == {"extra_toleration": "spot"}


def test_unused_details_keep_their_punctuation():
    from gpukb.recipes import generate
    g = generate("karpenter nodepool for g5, spot only. Tag the instances with cost-center=ml.")
    assert any("cost-center=ml" in u for u in g.unused), g.unused


def test_tol_is_tolerate():
    assert normalise_text("job, tol spot-gpu, ttl 2h") == "job, tolerate spot-gpu, ttl 2h"
    assert normalise_text("mpijob 2x8, tol=hpc") == "mpijob 2x8, tolerate=hpc"


def test_initials_of_a_parameter_with_a_value():
    r = _recipe({"local_queue": NAME, "cluster_queue": NAME, "gpus": INT})
    got = extract_params(r, "kueue setup: cq=shared-cq, lq=everyone, gpus=40").values
    assert got == {"cluster_queue": "shared-cq", "local_queue": "everyone", "gpus": 40}


def test_a_value_in_brackets_after_the_cue_and_after_a_comparison():
    r = _recipe({"namespace": NAME, "gpus": INT})
    assert extract_params(r, "the interns' namespace (intern-sandbox) gets 2 gpus").values == {
        "namespace": "intern-sandbox", "gpus": 2}
    r = _recipe({"temperature_celsius": INT})
    assert extract_params(r, "alerts: temperature > 78").values == {"temperature_celsius": 78}


def test_the_longer_enum_value_whose_words_all_stand_there():
    r = _with_rules({"mode": {"type": "string", "enum": ["Never", "LowerPriority", "LowerOrLaterEqualPriority"]}},
                    {"mode": [{"enum": {"LowerPriority": ["preempt lower priority"]}}]})
    assert extract_params(r, "may preempt lower priority or later equal-priority ones").values == {
        "mode": "LowerOrLaterEqualPriority"}
    assert extract_params(r, "may preempt lower priority ones").values == {"mode": "LowerPriority"}


def test_an_item_taken_back_leaves_the_list():
    r = _with_rules({"types": {"type": "array", "items": {"type": "string"}},
                     "families": {"type": "array", "items": {"type": "string"}}},
                    {"types": [{"regex": r"\b([a-z]\d[a-z]*\.\d*x?large)\b", "all": True}],
                     "families": [{"regex": r"\b(p4d|p5)(?![\w.])", "all": True}]})
    got = extract_params(r, "nodes: p4d.24xlarge + p5.48xlarge (scratch the p5, no capacity)").values
    assert got == {"types": ["p4d.24xlarge"]}


def test_a_per_unit_cap_said_as_nothing_bigger():
    r = _recipe({"gpus": INT, "max_gpus_per_pod": INT})
    got = extract_params(r, "16 GPUs, nothing bigger than 4 GPUs in a single pod").values
    assert got == {"gpus": 16, "max_gpus_per_pod": 4}
    assert extract_params(r, "quota 24 gpus, max/pod 8").values == {"gpus": 24, "max_gpus_per_pod": 8}


def test_a_later_amount_that_says_which_earlier_one_it_replaces():
    assert normalise_text("job on 2 nodes with 8 gpus each - sorry, 16 nodes, not 2 - in ns x") == \
        "job on 16 nodes with 8 gpus each - in ns x"
    assert normalise_text("4 workers, sorry, 6 workers, not 4.") == "6 workers."


def test_names_for_a_fixed_pair_after_call_them():
    from gpukb.recipes import generate
    g = generate("the usual prio pair but call them serving-critical and batch-low")
    assert (g.params["production_name"], g.params["research_name"]) == ("serving-critical", "batch-low")


def test_bounds_a_few_words_apart():
    r = _recipe({"min_trainers": INT, "max_trainers": INT})
    got = extract_params(r, "keep at least 3 trainers alive and scale up to a max of 9").values
    assert got == {"min_trainers": 3, "max_trainers": 9}


def test_a_per_unit_cap_allowed_to_a_single_unit_counts_no_units():
    r = _recipe({"gpus": INT, "max_gpus_per_pod": INT, "max_pods": INT})
    got = extract_params(r, "4 GPUs in total, but a single pod should be allowed up to 8").values
    assert got == {"gpus": 4, "max_gpus_per_pod": 8}


def test_a_field_name_written_as_one_word():
    r = _recipe({"mount_name": {"type": "string", "pattern": "^[a-z0-9]+$"}})
    assert extract_params(r, "the mountname is just 'fsx'").values == {"mount_name": "fsx"}


def test_a_qualifier_then_its_number():
    from gpukb.recipes import generate
    g = generate("priorityclasses: prod 500000, research 100")
    assert (g.params["production_value"], g.params["research_value"]) == (500000, 100)


def test_pasted_error_output_is_no_spec():
    r = _with_rules({"namespace": NAME, "gpus": INT}, {"gpus": [{"count": ["gpus", "gpu"]}]})
    text = ('jobs in vision-lab keep bouncing with: Error from server (Forbidden): exceeded quota: gpu-quota, '
            'requested: requests.nvidia.com/gpu=4, used: requests.nvidia.com/gpu=8 -- can the GPU quota for '
            'that namespace go up to 16?')
    assert extract_params(r, text).values == {"namespace": "vision-lab", "gpus": 16}


def test_a_value_right_after_another_keys_equals_sign_is_that_keys():
    r = _with_rules({"gpus": INT, "replicas": INT}, {"replicas": [{"count": ["replicas"]}]})
    assert extract_params(r, "size=3 gpus=4 replicas=2").values == {"gpus": 4, "replicas": 2}


def test_shorthand_for_workers_and_each():
    assert normalise_text("mpijob 16 wkrs x 4gpu, 2 gpu ea") == "mpijob 16 workers x 4gpu, 2 gpu each"


def test_a_correction_that_names_what_it_corrects():
    assert normalise_text("port 8001.. no wait, http is 8000, keep it") == "port 8000, keep it"


def test_a_count_of_gpus_before_an_object_noun_counts_the_object():
    r = _with_rules({"gpus": INT}, {"gpus": [{"count": ["gpus", "gpu"]}]})
    assert extract_params(r, "one gpu pod with six GPUs").values == {"gpus": 6}


def test_a_kind_noun_is_no_value():
    r = _recipe({"mig_config": NAME})
    assert extract_params(r, "mig config cm = a100-layouts").values == {"mig_config": "a100-layouts"}


def test_a_list_written_as_yaml_after_the_recipes_own_cue():
    r = _with_rules({"preferred_groups": {"type": "array", "items": {"type": "string"}}},
                    {"preferred_groups": [{"list": ["prefer"]}]})
    assert extract_params(r, "expander prefer=[a10-spot-1, a10-spot-2]").values == {
        "preferred_groups": ["a10-spot-1", "a10-spot-2"]}


def test_a_correction_whose_new_value_is_introduced_by_a_verb_phrase():
    assert normalise_text("grpc on 9001... actually no, grpc is on 9000 here") == "grpc on 9000 here"
    assert normalise_text("port 7000.. no wait, the metrics port is 7001") == "port 7001"


def test_a_plural_cue_is_followed_by_its_verb_not_a_name():
    r = _recipe({"model": {"type": "string"}})
    assert extract_params(r, "warming up the models takes ages").values == {}
    assert extract_params(r, "serve model mistral-7b").values == {"model": "mistral-7b"}


def test_times_counts_an_action_never_the_things_counted():
    r = _with_rules({"completions": INT, "retries": INT},
                    {"completions": [{"count": ["shards", "shard", "files"]}],
                     "retries": [{"count": ["retries", "retry"]}]})
    got = extract_params(r, "80 audio files, and retry every shard at most 3 times").values
    assert got == {"completions": 80, "retries": 3}


def test_a_cue_written_as_a_field_label_beats_a_word_after_another_cue():
    r = _with_rules({"team": NAME}, {"team": [{"after": ["team", "onboarding"]}]})
    assert extract_params(r, "Onboarding ticket: team: vision, please").values == {"team": "vision"}


def test_the_value_after_to_verb_is():
    r = _recipe({"command": {"type": "array", "items": {"type": "string"}}})
    got = extract_params(r, "the command to run is python serve.py --port 80").values
    assert got == {"command": ["python", "serve.py", "--port", "80"]}


def test_regular_expressions_stay_with_the_list_cue_they_follow():
    arr = {"type": "array", "items": {"type": "string", "pattern": "^[.*a-z0-9-]+$"}}
    r = _with_rules({"first": arr, "then": arr},
                    {"first": [{"list": ["prefer"]}], "then": [{"list": ["then", "fall back to"]}]})
    got = extract_params(r, "prefer the big groups (regex .*big.*) and then fall back to .*small.* and .*tiny.*").values
    assert got == {"first": [".*big.*"], "then": [".*small.*", ".*tiny.*"]}


def test_a_mapping_key_read_out_in_words():
    r = _recipe({"labels": {"type": "object", "propertyNames": {"pattern": r"^example\.com/[a-z.]+$"},
                            "additionalProperties": {"type": "string", "pattern": "^[a-z0-9]+$"}}})
    assert extract_params(r, "only where example.com/gpu.arch is hopper").values == {
        "labels": {"example.com/gpu.arch": "hopper"}}


def test_weeks_and_every_in_durations():
    r = _with_rules({"lifetime": {"type": "string", "pattern": "^[0-9]+h$"}},
                    {"lifetime": [{"duration": True, "near": ["replace", "replaced"]}]})
    assert extract_params(r, "nodes get replaced every week").values == {"lifetime": "168h"}
    assert extract_params(r, "replace them after 2 weeks").values == {"lifetime": "336h"}


def test_near_phrases_match_other_forms_of_their_verb():
    r = _with_rules({"window": INT}, {"window": [{"duration": True, "near": ["scale down"]}]})
    assert extract_params(r, "hold 10 minutes before scaling down").values == {"window": 600}


def test_a_kind_noun_links_to_its_name_in_several_ways():
    r = _recipe({"configmap_name": NAME},
                [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": {"$param": "configmap_name"}}}])
    for text in ("cm name layouts-a", "cm=layouts-a", "the config map should be called layouts-a"):
        assert extract_params(r, text).values == {"configmap_name": "layouts-a"}, text



def test_a_colon_after_a_kind_noun_opens_the_details_not_a_name():
    r = _with_rules({"name": NAME, "shards": INT}, {"shards": [{"count": ["shards"]}]})
    r.templates.append({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": {"$param": "name"}}})
    assert extract_params(r, "preprocessing job: twenty-four shards").values == {"shards": 24}


def test_a_two_word_kind_name_is_no_value_of_its_first_word():
    r = _recipe({"config_key": NAME, "configmap_name": NAME},
                [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": {"$param": "configmap_name"}}}])
    got = extract_params(r, "the config map should be called shared-a").values
    assert got == {"configmap_name": "shared-a"}


def test_a_pasted_kubectl_run_gives_name_image_namespace_and_command():
    r = _recipe({"name": NAME, "namespace": NAME, "image": {"type": "string"},
                 "command": {"type": "array", "items": {"type": "string"}}})
    got = extract_params(r, "make this a manifest: `kubectl run smi-check --image=nvcr.io/nvidia/cuda:12.4.1-base "
                            "--restart=Never -n lab -- nvidia-smi -L`").values
    assert got == {"name": "smi-check", "image": "nvcr.io/nvidia/cuda:12.4.1-base", "namespace": "lab",
                   "command": ["nvidia-smi", "-L"]}


def test_a_correction_that_names_the_field_it_sets():
    assert normalise_text("min 1 max 4 replicas, no wait, make max 6") == "min 1 max 6 replicas"


def test_profiles_added_up_without_counts_are_one_of_each():
    r = _with_rules({"devices": {"type": "object", "additionalProperties": {"type": "integer"}}},
                    {"devices": [{"pairs": r"(\d+)\s*x\s*([1-7]g\.\d+gb)"},
                                 {"pairs": r"(?:(?<=\+)\s*|(?<![\w.+])(?=[1-7]g\.\d+gb\s*\+))()([1-7]g\.\d+gb)(?![\w.])",
                                  "count_default": 1}]})
    assert extract_params(r, "split it as 2g.20gb + 1g.10gb").values == {"devices": {"2g.20gb": 1, "1g.10gb": 1}}


def test_a_cue_word_inside_a_dotted_name_is_no_cue():
    r = _recipe({"config_key": NAME})
    assert extract_params(r, "nodes pick it with the device-plugin.config label").values == {}
    assert extract_params(r, "config key a10-four").values == {"config_key": "a10-four"}


def test_the_users_own_component_does_not_keep_the_operators():
    from gpukb.recipes import generate

    g = generate("ClusterPolicy with the dcgm-exporter switched off, we run our own exporter", llm=False)
    assert g.params["dcgm_exporter"] is False


def test_a_correction_whose_new_value_is_followed_by_a_verb():
    assert normalise_text("16 gpus... actually no, 8 is plenty") == "8 gpus is plenty"


def test_an_enum_value_written_as_the_api_spells_it_inside_a_clause():
    from gpukb.recipes import generate

    g = generate("volcano job, 2 workers x 2 gpus: on PodFailed just abort it (AbortJob)", llm=False)
    assert {"event": "PodFailed", "action": "AbortJob"} in g.params["policies"]


def test_bounds_of_an_elastic_job_in_words():
    from gpukb.recipes import generate

    g = generate("elastic pytorchjob: never fewer than three workers, scale up to nine, 1 gpu each", llm=False)
    assert (g.params["min_workers"], g.params["max_workers"]) == (3, 9)


def test_a_cache_path_later_in_the_clause():
    from gpukb.recipes import generate

    g = generate("pod named cache-test that mounts its weights cache at /srv/hf, scratch 20 gigs, 1 gpu", llm=False)
    assert g.params["cache_path"] == "/srv/hf"


def test_a_value_right_after_another_fields_own_name_is_that_fields():
    from gpukb.recipes import generate

    g = generate("karpenter nodepool g6e, expireAfter 48h, consolidateAfter: 15m", llm=False)
    assert (g.params["expire_after"], g.params["consolidate_after"]) == ("48h", "15m")


def test_compound_go_durations_in_one_unit():
    assert normalise_text("cooldown 1h30m, poll 2m30s") == "cooldown 90m, poll 150s"


def test_a_boolean_named_for_all_of_something_is_no_noun_of_one():
    from gpukb.recipes import generate

    g = generate("kueue cluster queue, our namespace is ranking, 8 gpus; we want it back from lower-priority borrowers",
                 llm=False)
    assert g.params["all_namespaces"] is False and g.params["reclaim_within_cohort"] == "LowerPriority"


def test_helm_values_and_dotted_fields_name_the_parameter_by_its_manifest_path():
    from gpukb.recipes import generate

    g = generate("clusterpolicy like: helm install gpu-operator nvidia/gpu-operator --set driver.enabled=false "
                 "--set toolkit.enabled=false --set mig.strategy=mixed", llm=False)
    assert (g.params["driver_enabled"], g.params["toolkit_enabled"], g.params["mig_strategy"]) == (False, False, "mixed")


def test_cards_count_as_gpus_and_cfg_is_config():
    from gpukb.recipes import generate

    g = generate("pytorchjob: we have three nodes with four cards each", llm=False)
    assert (g.params["nodes"], g.params["gpus"]) == (3, 4)
    assert normalise_text("time slicing cfg, 4 replicas") == "time slicing config, 4 replicas"


def test_a_ticket_field_for_the_per_pod_cap():
    from gpukb.recipes import generate

    g = generate("Summary: GPU quota for team-y\nDetails:\n- GPUs: 12\n- ns: team-y\n- max per pod: 2", llm=False)
    assert (g.params["gpus"], g.params["max_gpus_per_pod"], g.params["namespace"]) == (12, 2, "team-y")


def test_where_an_object_runs_with_a_word_between():
    from gpukb.recipes import generate

    g = generate("our DCGM exporter is standalone in the `metrics-sys` namespace, scrape every 30s", llm=False)
    assert g.params["exporter_namespace"] == "metrics-sys"


def test_a_level_of_spread_and_a_taint_tainted_with():
    from gpukb.recipes import generate

    assert generate("spread 8 training pods x 1 gpu, zone-level spread", llm=False).params["topology_key"] == \
        "topology.kubernetes.io/zone"
    assert generate("gpu pod on the pool tainted with night-shift", llm=False).params["extra_toleration"] == "night-shift"
    assert generate("gpu pod, 1 gpu, tol: lab-only", llm=False).params["extra_toleration"] == "lab-only"


def test_a_pasted_manifest_fills_what_the_words_leave_open():
    from gpukb.recipes import generate

    text = ("this is what we run:\n```\napiVersion: v1\nkind: Pod\nmetadata:\n  name: smi-old\nspec:\n  containers:\n"
            "  - name: main\n    image: nvcr.io/nvidia/cuda:12.2.0-base-ubuntu22.04\n    resources:\n      limits:\n"
            "        nvidia.com/gpu: 1\n```\ngpukb version please, with the image nvcr.io/nvidia/cuda:12.6.2-base-ubuntu24.04")
    g = generate(text, llm=False)
    assert (g.recipe, g.params["name"], g.params["image"], g.params["gpus"]) == (
        "gpu-pod", "smi-old", "nvcr.io/nvidia/cuda:12.6.2-base-ubuntu24.04", 1)


def test_a_kubectl_create_line_and_what_the_words_change():
    from gpukb.recipes import generate

    g = generate("we made it with `kubectl create quota q -n lab --hard=requests.nvidia.com/gpu=4,requests.cpu=32`; "
                 "redo it with gpukb and raise the GPUs to 10", llm=False)
    assert (g.params["namespace"], g.params["gpus"], g.params["cpu"]) == ("lab", 10, 32)


def test_a_quoted_argument_stays_whole_and_a_ticket_summary_names_the_object():
    from gpukb.recipes import generate

    g = generate("gpu pod that runs python -c 'import torch; print(1)', 1 gpu", llm=False)
    assert g.params["command"] == ["python", "-c", "import torch; print(1)"]
    g = generate("Summary: PyTorchJob for the weekly eval\nDetails:\n- name: eval-wk\n- 2 pods total, 4 GPUs per pod",
                 llm=False)
    assert (g.recipe, g.params["nodes"], g.params["gpus"]) == ("pytorchjob", 2, 4)


def test_corrections_over_a_range_and_of_another_amount():
    assert normalise_text("hpa, 2..10 replicas - no, make the max 14") == "hpa, 2..14 replicas"
    assert normalise_text("4 nodes x 4 gpus, shm 32g. actually make it 6 nodes") == "6 nodes x 4 gpus, shm 32g."


def test_a_time_of_day_is_no_image_and_shared_memory_is_shm():
    from gpukb.recipes import generate

    g = generate("pytorchjob, 2 nodes x 4 gpus, shared memory of 24 gigs, run it every night at 03:30", llm=False)
    assert g.params["shm_size"] == "24Gi" and "03:30" not in str(g.params.get("image"))
    assert any("every night at 03:30" in u for u in g.unused), g.unused


def test_a_pasted_settings_block_fills_what_its_keys_name_and_reports_the_rest():
    from gpukb.recipes import generate

    # the one entry of a pasted collection is the object to carry over: its keys say which settings
    g = generate("we had this in eksctl:\n```\nmanagedNodeGroups:\n  - instanceType: g6e.12xlarge\n    volumeSize: 400\n"
                 "    iam:\n      withAddonPolicies:\n        cloudWatch: true\n```\n"
                 "make it a karpenter gpu nodepool, on-demand only", llm=False)
    assert g.params["instance_types"] == ["g6e.12xlarge"] and g.params["root_volume_gib"] == 400, g.params
    assert g.params["capacity_types"] == ["on-demand"]
    assert any("cloudWatch" in u for u in g.unused), g.unused
    g = generate("old device plugin values:\n```\nconfig:\n  map:\n    default: |-\n      version: v1\n```\n"
                 "time-slicing with config key shared-a, 4 replicas", llm=False)
    assert g.params["config_key"] == "shared-a"


def test_command_line_flags_are_read_by_their_words():
    from gpukb.recipes import generate

    g = generate("serve it the way we run it by hand: `docker run --gpus 4 --shm-size=32g vllm/vllm-openai:v0.6.4` "
                 "as a deployment", llm=False)
    assert (g.params["gpus"], g.params["shm_size"]) == (4, "32Gi"), g.params
    g = generate("pytorchjob equivalent of `torchrun --nnodes 3 --nproc-per-node 2 train.py`", llm=False)
    assert (g.recipe, g.params["nodes"], g.params["gpus"]) == ("pytorchjob", 3, 2), g.params
    # a number right before a flag is not that flag's value: "-N 5 --gpus-per-node=2"
    g = generate("pytorchjob, -N 5 --gpus-per-node=2", llm=False)
    assert (g.params["nodes"], g.params["gpus"]) == (5, 2), g.params


def test_slurm_job_options_map_to_the_training_recipes():
    from gpukb.recipes import generate

    g = generate("port this batch script to an MPIJob:\n#SBATCH --nodes=3\n#SBATCH --gres=gpu:h100:4", llm=False)
    assert (g.recipe, g.params["workers"], g.params["gpus"]) == ("mpijob", 3, 4), g.params
    assert "gpu:" not in str(g.params.get("image")), g.params  # a GRES spec is no image


def test_tainted_with_key_and_a_range_until_and_a_maximum_after_the_cue():
    from gpukb.recipes import generate

    g = generate("gpu pod, one gpu, the l4 pool is tainted with key l4-only", llm=False)
    assert g.params["extra_toleration"] == "l4-only", g.params
    g = generate("hpa for deployment ocr, replicas from two till seven, on gpu utilization", llm=False)
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (2, 7), g.params
    g = generate("volcano queue named labs, the GPUs at most 24", llm=False)
    assert g.params["gpus"] == 24, g.params


def test_an_em_dash_breaks_the_clause_for_a_correction():
    assert normalise_text("queue with 12 gpus \u2014 no, make it 20 \u2014 and weight 3") == "queue with 20 gpus, and weight 3"


def test_a_two_word_cue_is_also_read_the_other_way_round():
    # "gpu limit" is also "the limit of GPUs"; "to be" joins a cue and its number
    r = Recipe(id="fixture-limit", title="fixture", area="test", description="", docs=[],
               parameters={"type": "object", "properties": {"gpu_limit": INT}}, templates=[], examples=[],
               path=Path("fixture.yaml"), extract={"gpu_limit": [{"count": ["gpu limit"]}]})
    assert extract_params(r, "the limit of GPUs to be 96").values == {"gpu_limit": 96}


def test_what_runs_today_yields_to_what_is_asked_for():
    from gpukb.recipes import generate

    g = generate("kubectl get deploy sdxl -n art -o yaml shows image ghcr.io/acme/sdxl:1.0 and 2 GPUs. Regenerate that "
                 "deployment with gpukb, same GPUs, but on ghcr.io/acme/sdxl:1.1", llm=False)
    assert (g.recipe, g.params["image"], g.params["gpus"]) == ("gpu-inference-deployment", "ghcr.io/acme/sdxl:1.1", 2), \
        g.params
    g = generate("rwx pvc for the dataset: currently it is 1Ti on class cephfs; we need 3Ti", llm=False)
    assert (g.params["size"], g.params["storage_class"]) == ("3Ti", "cephfs"), g.params
    g = generate("our current pvc is 400Gi on cephfs; make a new shared rwx one called corpus-v3 but 1Ti", llm=False)
    assert (g.params["size"], g.params["name"]) == ("1Ti", "corpus-v3"), g.params
    # a sentence that only says what is in use keeps its values
    g = generate("karpenter gpu nodepool, spot only. We use the Bottlerocket image, pinned to bottlerocket@v1.30.0.",
                 llm=False)
    assert g.params["ami_alias"] == "bottlerocket@v1.30.0", g.params


def test_kubectl_get_names_the_object_by_its_resource_or_short_name():
    from gpukb.recipes import generate

    g = generate("`kubectl get vcjob sweep-3 -o yaml` shows 2 workers. Redo that volcano job with gpukb in queue hpo",
                 llm=False)
    assert (g.recipe, g.params["name"], g.params["queue"]) == ("volcano-job", "sweep-3", "hpo"), g.params
    g = generate("kubectl describe pvc/ckpt-store -n ml shows 1Ti; make the rwx claim 2Ti instead", llm=False)
    assert (g.params["name"], g.params["namespace"], g.params["size"]) == ("ckpt-store", "ml", "2Ti"), g.params


def test_an_article_one_and_a_bound_are_no_second_value():
    from gpukb.recipes import generate

    g = generate("one gpu pod with 4 GPUs, ns smoke", llm=False)
    assert g.params["gpus"] == 4, g.params
    g = generate("quota for ns vision: 8 GPUs total, but allow up to 4 GPUs in a single pod", llm=False)
    assert (g.params["gpus"], g.params["max_gpus_per_pod"]) == (8, 4) and "max_pods" not in g.from_request, g.params
    g = generate("onboard team geo: namespace geo, 16 GPUs, no single container bigger than 2 GPUs", llm=False)
    assert g.recipe == "tenant-onboarding" and g.params["gpus"] == 16, g.params


def test_a_verb_after_the_cue_noun_is_no_name():
    from gpukb.recipes import generate

    g = generate("I already did `kubectl create ns geo-lab`; now set up everything else a team needs: 8 GPUs, 64 cpu",
                 llm=False)
    assert (g.recipe, g.params["tenant"]) == ("tenant-onboarding", "geo-lab"), g.params


def test_the_name_of_the_object_quoted_right_after():
    from gpukb.recipes import generate

    g = generate("KEDA ScaledObject for the deployment 'embedder', at most six replicas, and the name of the object "
                 "'embedder-so'", llm=False)
    assert (g.params["name"], g.params["deployment"]) == ("embedder-so", "embedder"), g.params


def test_karpenter_zones_are_a_requirement():
    from gpukb.recipes import generate

    g = generate("karpenter gpu nodepool, g6e only, and keep the nodes in eu-west-1a and eu-west-1b", llm=False)
    assert g.params["zones"] == ["eu-west-1a", "eu-west-1b"], g.params
    req = g.documents[0]["spec"]["template"]["spec"]["requirements"]
    assert {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a", "eu-west-1b"]} in req


def test_a_slurm_job_array_is_an_indexed_job():
    from gpukb.recipes import generate

    g = generate("port this to kubernetes: sbatch --array=0-49%5 --gres=gpu:1 embed.sh", llm=False)
    assert (g.recipe, g.params["completions"], g.params["parallelism"], g.params["gpus"]) == ("indexed-job", 50, 5, 1)


def test_a_correction_of_a_count_in_words_and_percent_in_words():
    assert normalise_text("mpijob with four workers, 8 gpus each. actually make it two workers") == \
        "mpijob with 2 workers, 8 gpus each."
    assert normalise_text("keep gpu util near sixty-five percent") == "keep gpu util near 65%"


def test_object_references_bump_to_and_a_pasted_target():
    from gpukb.recipes import generate

    g = generate("kubectl -n serving set image deploy/chat chat=vllm/vllm-openai:v0.7.1 is how we do it now; give me the "
                 "gpukb deployment with that image and 2 GPUs", llm=False)
    assert (g.params["name"], g.params["image"], g.params["namespace"]) == ("chat", "vllm/vllm-openai:v0.7.1", "serving")
    assert "model" not in g.from_request, g.params  # "vllm/vllm" inside the image is no model
    g = generate("hpa for deploy/ocr-api, 1 to 3 replicas on gpu util 50%", llm=False)
    assert g.params["deployment"] == "ocr-api", g.params
    g = generate("quota for ns vision: please bump the gpus to 12 and cap pods at 40", llm=False)
    assert g.params["gpus"] == 12, g.params
    g = generate("our deployment today:\n```\nkind: Deployment\nmetadata:\n  name: rerank\nspec:\n  replicas: 1\n```\n"
                 "a keda scaledobject for it please, 0 to 4 replicas", llm=False)
    assert (g.recipe, g.params["deployment"]) == ("keda-gpu-scaledobject", "rerank"), g.params


def test_a_flag_followed_by_off_or_on():
    from gpukb.recipes import generate

    g = generate("time slicing 4x, renamebydefault off", llm=False)
    assert g.params["rename_by_default"] is False, g.params
    g = generate("time slicing 4x, renameByDefault on", llm=False)
    assert g.params["rename_by_default"] is True, g.params


def test_runs_a_hyphenated_command_and_a_queue_that_grows():
    from gpukb.recipes import generate

    g = generate("one gpu pod that just runs nvidia-smi and exits", llm=False)
    assert g.params["command"] == ["nvidia-smi"], g.params
    g = generate("a gpu pod that runs long-running jobs", llm=False)
    assert "command" not in g.from_request, g.params
    g = generate('volcano queue "lab" guaranteed 4 GPUs, can grow to 24 when idle', llm=False)
    assert (g.params["guarantee_gpus"], g.params["gpus"]) == (4, 24), g.params


def test_passive_not_installed_cannot_borrow_and_n_of_the_model():
    from gpukb.recipes import generate

    g = generate("ClusterPolicy where the driver is not installed by the operator, we manage it", llm=False)
    assert g.params["driver_enabled"] is False, g.params
    g = generate("kueue clusterqueue for ns vision, 24 gpus, in cohort lab, and they must not borrow", llm=False)
    assert g.params["borrowing_limit"] == 0, g.params
    g = generate("pytorchjob over 2 machines, every machine with 4 of the A100", llm=False)
    assert (g.params["nodes"], g.params["gpus"]) == (2, 4), g.params


def test_a_percentage_of_something_else_and_temp_over_and_kind_in_namespace():
    from gpukb.recipes import generate

    g = generate("dcgm alerts: gpu temp over 88, and disk usage above 90 percent; servicemonitor in observability",
                 llm=False)
    assert (g.params["temperature_celsius"], g.params["namespace"]) == (88, "observability"), g.params
    assert "idle_util_percent" not in g.from_request and any("90 percent" in u for u in g.unused), (g.params, g.unused)


def test_helm_values_pasted_fill_the_fields_they_name_and_a_later_verb_names_the_kind():
    from gpukb.recipes import generate

    g = generate("our operator values:\n```\ndriver:\n  enabled: false\ntoolkit:\n  enabled: false\n```\n"
                 "can you write me the equivalent ClusterPolicy", llm=False)
    assert g.recipe == "gpu-operator-clusterpolicy", g.recipe
    assert (g.params["driver_enabled"], g.params["toolkit_enabled"]) == (False, False), g.params
    assert not any("enabled" in u for u in g.unused), g.unused


def test_on_second_thought_takes_a_count_back():
    assert normalise_text("mpijob, three workers with 4 gpus each. On second thought, make it five workers.") == \
        "mpijob, 5 workers with 4 gpus each.."


def test_a_hyphenated_name_right_after_the_quota_noun_is_its_namespace():
    from gpukb.recipes import generate

    g = generate("quota cv-lab gpus=12, max 4/pod", llm=False)
    assert (g.recipe, g.params["namespace"], g.params["gpus"]) == ("gpu-quota", "cv-lab", 12), g.params


def test_quoted_task_names_before_the_task_noun():
    from gpukb.recipes import generate

    g = generate('I need one volcano job with two tasks: the "ps" task with 2 pod without GPU, and the "trainer" task '
                 'with 3 pod, each one 4 GPU', llm=False)
    assert g.params["tasks"] == [{"name": "ps", "replicas": 2, "gpus": 0}, {"name": "trainer", "replicas": 3, "gpus": 4}], \
        g.params


def test_a_fenced_command_line_reads_as_words_and_a_verb_is_no_name():
    from gpukb.recipes import generate

    g = generate("```\nkubectl autoscale deployment whisper --min=2 --max=6 -n asr\n```\nsame thing but as an HPA on "
                 "gpu utilization", llm=False)
    assert (g.params["deployment"], g.params["namespace"]) == ("whisper", "asr"), g.params
    g = generate("dcgm servicemonitor; the serviceMonitorSelector wants release=kps", llm=False)
    assert g.params["release"] == "kps", g.params


def test_named_tiers_with_priority_in_brackets_and_key_equals_values():
    from gpukb.recipes import generate

    g = generate("In Slurm we had QOS 'gold' (priority 7000, can preempt) and 'bronze' (priority 5, never preempts). "
                 "Mirror them as PriorityClasses", llm=False)
    assert [(c["name"], c["value"]) for c in g.params["classes"]] == [("gold", 7000), ("bronze", 5)], g.params
    g = generate("prio classes prod=3000000 research=200", llm=False)
    assert (g.params["production_value"], g.params["research_value"]) == (3000000, 200), g.params
    g = generate("volcano queue 'cv', hard cap of 30 GPUs, entitled to twelve when busy, guarantee them four", llm=False)
    assert (g.params["gpus"], g.params["deserved_gpus"], g.params["guarantee_gpus"]) == (30, 12, 4), g.params


def test_a_range_with_the_unit_after_its_first_bound_and_a_role_count():
    from gpukb.recipes import generate

    g = generate("keda scaledobject for deployment tts, from zero replicas until five", llm=False)
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (0, 5), g.params
    g = generate("volcano job: master task with 1 pod and no gpu, worker task with 4 pods and 8 gpus each", llm=False)
    assert g.params["tasks"][1]["replicas"] == 4, g.params


@pytest.mark.parametrize("text, want", [
    # a verb of settling replaces the earlier amount of the same unit, a few sentences back
    ("pvc of 1.5 TiB for the corpus. Shared by the team. We said 1.5 TiB but let's go with 3 TiB.", "3 TiB"),
    ("a ReadWriteMany claim, around four terabytes. class is nfs. Hmm, make it six terabytes.", "6TB"),
    # a bare amount closing its clause replaces the last number, when a word of taking back stands between
    ("indexed job, 40 in parallel. Hmm, on reflection, make it 30.", "30 in parallel"),
])
def test_a_later_verb_of_settling_replaces_the_earlier_amount(text, want):
    assert want in normalise_text(text)


@pytest.mark.parametrize("text", [
    "train on 8 nodes, let's do 2 per node",      # more words follow: a rate, not a correction
    "deploy it with 2 gpus, make it 4 replicas",  # another unit: another amount
    "Make it 4 replicas and 2 GPUs each",         # nothing earlier to replace
])
def test_a_verb_of_settling_without_an_earlier_amount_of_its_kind_changes_nothing(text):
    assert normalise_text(text) == text


def test_a_name_bound_to_the_noun_it_follows():
    from gpukb.recipes import generate

    g = generate("DRA pod for one A100; the claim template should be called a100-solo, pod called solo-runner", llm=False)
    assert (g.params["claim_template"], g.params["name"]) == ("a100-solo", "solo-runner"), g.params
    g = generate("volcano job with 8 workers of 2 gpus, submitted to the queue of name speech", llm=False)
    assert g.params["queue"] == "speech" and "name" not in g.from_request, g.params
    g = generate("pod with 1 gpu that tolerates the taint called batch-only", llm=False)
    assert g.params["extra_toleration"] == "batch-only" and "name" not in g.from_request, g.params
    g = generate("static lustre pv for fs-0a1b2c3d4e5f67890 in eu-west-1, mnt name x7y8z9ab, 1200 GiB", llm=False)
    assert g.params["mount_name"] == "x7y8z9ab", g.params


def test_a_quoted_value_inside_an_expression_is_no_name_and_a_word_closing_its_clause_after_ns_is_the_namespace():
    from gpukb.recipes import generate

    g = generate('keda for deployment ocr-gpu, query sum(rate(ocr_requests_total{app="ocr"}[1m])), threshold 10',
                 llm=False)
    assert "name" not in g.from_request and "ocr" in g.params["query"], g.params
    g = generate("hpa for asr-server ns speech, 2-6 replicas on gpu util 70, call it asr-hpa", llm=False)
    assert (g.params["namespace"], g.params["name"], g.params["deployment"]) == ("speech", "asr-hpa", "asr-server"), \
        g.params


def test_a_launcher_line_gives_the_program_and_slurm_n_counts_the_nodes():
    from gpukb.recipes import generate

    g = generate("mpijob please: mpirun -np 32 -x NCCL_DEBUG=WARN python bench.py --size 4G, 4 workers x 8 gpus",
                 llm=False)
    assert g.params["program"] == ["python", "bench.py", "--size", "4G"], g.params
    g = generate("gpu pod, like `srun --gres=gpu:2 python check_env.py` on our old cluster", llm=False)
    assert (g.params["command"], g.params["gpus"]) == (["python", "check_env.py"], 2), g.params
    g = generate("coscheduling gang for `sbatch -N 5 --gres=gpu:2 run.sh`, all or nothing", llm=False)
    assert (g.params["members"], g.params["gpus"]) == (5, 2), g.params
    # a launcher followed by no program gives none
    g = generate("gpu pod with 1 gpu; on slurm i use srun -N 1 and it works", llm=False)
    assert "command" not in g.from_request, g.params


def test_a_launched_command_ends_with_its_line_and_words_about_it_are_no_command():
    from gpukb.recipes import generate

    # the next line's words are no arguments
    g = generate("Slurm version of the benchmark:\n  srun -N 4 --ntasks-per-node=8 --gres=gpu:8 /opt/bench/ar_perf -b 8\n"
                 "Image is ghcr.io/hpc/bench:v1 (built on Intel MPI). Turn it into an MPIJob called ar.", llm=False)
    assert g.params["program"] == ["/opt/bench/ar_perf", "-b", "8"], g.params
    # an indented command line, then a blank line, then words
    g = generate("LSF job:\n\n    bsub -J cfd -n 6 -gpu \"num=2\" mpirun ./cfd_solver\n\nIt's built with Intel MPI. "
                 "The MPIJob please.", llm=False)
    assert g.params["program"] == ["./cfd_solver"], g.params
    # "the mpirun line" speaks of the command; a flag's value may hold commas
    g = generate("The mpirun line we use today:\n\n  mpirun -np 16 -H node1:8,node2:8 python train.py --epochs 9\n\n"
                 "Please make it an MPIJob.", llm=False)
    assert g.params["program"] == ["python", "train.py", "--epochs", "9"], g.params
    # an LSF slot count is no namespace
    g = generate('bsub -J hvd -n 32 -R "span[ptile=4]" -gpu "num=4" mpirun python t.py\nthat is the LSF version; '
                 "an MPIJob please", llm=False)
    assert "namespace" not in g.from_request and g.params["program"] == ["python", "t.py"], g.params


def test_pasted_fields_fill_patterned_strings_and_amounts_relative_to_the_paste_are_scaled():
    from gpukb.recipes import generate

    g = generate("make our nodepool like this one, g6 family\n```yaml\nspec:\n  disruption:\n"
                 "    consolidateAfter: 45m\n```", llm=False)
    assert g.params["consolidate_after"] == "45m", g.params
    g = generate("today's volcano queue:\n```yaml\nspec:\n  capability:\n    nvidia.com/gpu: \"6\"\n    cpu: \"24\"\n```\n"
                 "name it burst and triple everything in capability", llm=False)
    assert (g.params["gpus"], g.params["cpu"]) == (18, 72), g.params
    g = generate("```yaml\nresources:\n  limits:\n    ephemeral-storage: 300Gi\n    nvidia.com/gpu: 2\n```\n"
                 "halve the ephemeral limit for the model cache pod", llm=False)
    assert g.params["ephemeral_limit"] == "150Gi" and g.params["gpus"] == 2, g.params


def test_a_fenced_block_is_no_inline_quote_and_a_quoted_word_after_in_is_the_namespace():
    from gpukb.recipes import generate

    g = generate("our trigger today:\n```yaml\ntriggers:\n- type: prometheus\n  metadata:\n    threshold: \"15\"\n```\n"
                 "make it a ScaledObject for deployment `asr-gw` in `speech`", llm=False)
    assert (g.params["deployment"], g.params["namespace"], g.params["threshold"]) == ("asr-gw", "speech", "15"), g.params
    assert "query" not in g.from_request and "name" not in g.from_request, g.params


@pytest.mark.parametrize("text, want, gone", [
    ("a lustre fs of 7.2 TB, oh wait, the budget only covers 3600 GiB", "3600 GiB", "7.2"),
    ("an eight terabyte claim? Sorry, 6Ti, the archive shrank.", "6 Ti", "8"),
    ("alert after three hours, hmm, let's say five hours", "5 hours", "3 hours"),
])
def test_a_take_back_a_few_words_before_an_amount_of_the_same_kind(text, want, gone):
    out = normalise_text(text)
    assert want in out and gone not in out, out


@pytest.mark.parametrize("text", [
    "poll every 30 seconds, and wait 10 minutes before going back to zero",  # "wait" the verb
    "a pvc of 100Gi for the cache. Actually we also want the scratch dir at 50Gi",  # another amount
])
def test_no_take_back_without_one(text):
    assert normalise_text(text) == text


def test_a_number_word_fills_a_string_field_that_holds_a_number_but_zero_does_not():
    from gpukb.recipes import generate

    g = generate("keda for deployment rerank, up to six replicas, four queued requests per replica", llm=False)
    assert g.params["threshold"] == "4", g.params
    g = generate("KEDA for deployment asr, scale to zero when idle, trigger when more than 12 requests waiting",
                 llm=False)
    assert g.params["threshold"] != "0", g.params


def test_negated_group_restart_unlimited_requests_and_a_node_lifetime():
    from gpukb.recipes import generate

    g = generate("lws for llama 405b, 2 pods of 8 gpus per group; if a worker crashes do not restart the whole group",
                 llm=False)
    assert g.params["restart_policy"] == "None", g.params
    g = generate("time-slicing, 4 replicas per gpu, allow more than 1 per container", llm=False)
    assert g.params["fail_requests_greater_than_one"] is False, g.params
    g = generate("karpenter nodepool for g5, nodes should not live longer than 72h", llm=False)
    assert g.params["expire_after"] == "72h", g.params


@pytest.mark.parametrize("text, want", [
    ("lws for llama, tp 2, actually tp 4, pp 2, shm 16gi", "for llama, tp 4, , pp 2"),
    ("mps, 6 clients per gpu... no, 5. configmap mps-five", "5 clients per gpu"),
])
def test_a_take_back_with_a_bare_number_or_its_cue_word(text, want):
    assert want in normalise_text(text)


def test_what_happened_before_and_what_a_command_printed_yield_to_the_request():
    from gpukb.recipes import generate

    g = generate("Training pods were evicted twice last month on nodes with 8 GPUs. For namespace asr, give me a pod "
                 "with 2 GPUs and an ephemeral-storage limit of 300Gi", llm=False)
    assert g.params["gpus"] == 2 and g.params["ephemeral_limit"] == "300Gi", g.params
    g = generate("for reference:\n```\n$ kubectl get sc gpfs-old -o yaml\nparameters:\n  volBackendFs: oldfs\n```\n"
                 "now a class on file system newfs and a 5Ti claim in ns bio", llm=False)
    assert g.params["filesystem"] == "newfs", g.params


def test_a_value_quoted_right_after_its_cue_goes_before_a_plain_word():
    from gpukb.recipes import generate

    g = generate("The vision team (budget set for the year) needs onboarding: tenant 'cv-lab' with 8 GPUs", llm=False)
    assert g.params["tenant"] == "cv-lab", g.params


def test_an_enum_number_with_a_filler_word_a_schema_literal_and_a_cloud_cli_json_field():
    from gpukb.recipes import generate

    g = generate("new FSx Lustre of the scratch type 1, 7200 GiB, class fsx-s1", llm=False)
    assert (g.params["deployment_type"], g.params["storage_gib"]) == ("SCRATCH_1", 7200), g.params
    g = generate("static pv for fsx fs-0a1b2c3d4e5f60718 in eu-west-1, mountname fsx, 1200gib", llm=False)
    assert g.params["mount_name"] == "fsx", g.params
    g = generate('```\n$ aws fsx describe-file-systems\n"FileSystemId": "fs-0a1b2c3d4e5f60718",\n'
                 '"LustreConfiguration": { "MountName": "zq7x8c9v" }\n```\nstatic PV + PVC for it in eu-west-1', llm=False)
    assert g.params["mount_name"] == "zq7x8c9v", g.params


def test_a_bound_on_one_pod_is_the_per_pod_parameter_not_the_total():
    from gpukb.recipes import generate

    g = generate("quota for namespace chem like our slurm account GrpTRES=gres/gpu=40; no single job may use more than "
                 "8 GPUs", llm=False)
    assert (g.params["gpus"], g.params["max_gpus_per_pod"]) == (40, 8), g.params


def test_cue_words_for_a_scheduler_a_tier_value_and_parallelism():
    from gpukb.recipes import generate

    g = generate("coscheduling gang of 8 pods with 2 gpus, our second scheduler is sched-x in kube-system", llm=False)
    assert g.params["scheduler_name"] == "sched-x", g.params
    g = generate("onboard team 'vision' with 8 GPUs; the priority of their pods should be 300", llm=False)
    assert g.params["priority_value"] == 300, g.params
    g = generate("indexed job over sixty shards, not more than six of them at the same time", llm=False)
    assert (g.params["completions"], g.params["parallelism"]) == (60, 6), g.params


def test_a_pasted_enum_value_yields_to_the_words_and_scratch_is_no_take_back_where_a_scratch_volume_exists():
    from gpukb.recipes import generate

    g = generate("our pvc:\n```yaml\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data-rw\nspec:\n"
                 "  accessModes: [ReadWriteMany]\n```\nanother one called data-ro, 1Ti, ReadOnlyMany", llm=False)
    assert g.params["access_mode"] == "ReadOnlyMany", g.params
    g = generate("pod with model cache 300gi on sc gp3, 1 gpu, scratch 40gi", llm=False)
    assert g.params["scratch_size"] == "40Gi", g.params


def test_a_verb_of_change_on_a_field_and_a_value_moved_from_one_to_another():
    from gpukb.recipes import generate

    g = generate("podgroup today:\n```\nminMember: 2\n```\nraise minMember to 3, 4 pods of 1 gpu", llm=False)
    assert g.params["min_member"] == 3, g.params
    g = generate("time-slicing 4 replicas, and move the key from 'any' to 'a100-ts'", llm=False)
    assert g.params["config_key"] == "a100-ts", g.params


def test_a_number_cut_by_a_lookahead_is_none_and_an_elastic_range_with_until():
    from gpukb.recipes import generate

    g = generate("elastic pytorch job, at least 3 workers and grow until 6 workers, 2 gpus each, restart at most 15 times",
                 llm=False)
    assert (g.params["min_workers"], g.params["max_workers"], g.params["max_restarts"]) == (3, 6, 15), g.params


def test_what_we_installed_yields_and_more_cue_words():
    from gpukb.recipes import generate

    g = generate("we installed with `helm install gpu-operator nvidia/gpu-operator --set dcgmExporter.enabled=true`; "
                 "give me the ClusterPolicy with the dcgm exporter turned off", llm=False)
    assert g.params["dcgm_exporter"] is False, g.params
    g = generate("mig layout: on each GPU three instances of the profile 2g.20gb", llm=False)
    assert g.params["mig_devices"] == {"2g.20gb": 3}, g.params
    g = generate("keda so for asr-api, query sum(rate(asr_total[1m])), only activate above 4", llm=False)
    assert (g.params["deployment"], g.params["activation_threshold"]) == ("asr-api", "4"), g.params


def test_a_list_ending_at_its_own_and_a_k_count_and_wait_the_verb():
    from gpukb.recipes import generate

    g = generate("priority expander: prefer the node groups gpu-a and gpu-a-2, and after them gpu-b.", llm=False)
    assert g.params["preferred_groups"] == ["gpu-a", "gpu-a-2"], g.params
    g = generate("indexed job, 2k shards, 40 at a time, 1 gpu each", llm=False)
    assert g.params["completions"] == 2000, g.params
    g = generate("keda for deployment tts, up to six replicas. Wait half an hour before scaling back to zero.", llm=False)
    assert g.params["cooldown_period"] == 1800, g.params


def test_what_a_command_printed_and_what_i_use_today_are_no_request():
    from gpukb.recipes import generate

    g = generate("```\n$ kubectl get node n1 -L nvidia.com/mig.config\nNAME STATUS MIG.CONFIG\nn1 Ready all-disabled\n```\n"
                 "I want a layout called `serve-mix` with one 4g.40gb and three 1g.10gb per GPU", llm=False)
    assert g.params["config_name"] == "serve-mix", g.params
    g = generate("On slurm I use `--tmp=300G`. Here: a pod with 1 GPU, a 40Gi scratch dir, ephemeral limit 100Gi",
                 llm=False)
    assert g.params["scratch_size"] == "40Gi", g.params
    g = generate("onboard 'chem' like GrpTRES=gres/gpu=48; their jobs use at most 4 GPUs per node", llm=False)
    assert g.params["gpus"] == 48, g.params


def test_a_long_enum_phrase_with_words_between_and_slurm_cpus():
    from gpukb.recipes import generate

    g = generate("kueue clusterqueue for ns bio, 8 gpus, cohort lab; a pending job may reclaim its quota from "
                 "lower-priority borrowers", llm=False)
    assert g.params["reclaim_within_cohort"] == "LowerPriority", g.params
    g = generate("`sbatch -N 2 --ntasks-per-node=4 --cpus-per-task=6 --gres=gpu:4 run.sh` as a pytorchjob", llm=False)
    assert g.params["cpu"] == 24, g.params
    g = generate("inference deployment like `salloc -N1 --gres=gpu:1 -c 12`, two copies", llm=False)
    assert g.params["cpu"] == 12, g.params


def test_a_number_another_parameters_own_rule_reads_is_not_taken_by_a_description_cue():
    from gpukb.recipes import generate

    g = generate("KEDA ScaledObject for deployment ranker, it wakes up from zero only when more than 3 requests are "
                 "waiting, at most six replicas", llm=False)
    assert g.params["activation_threshold"] == "3" and "threshold" not in g.from_request, g.params


def test_a_quoted_object_name_a_few_words_before_its_value():
    from gpukb.recipes import generate

    g = generate("Two priority classes: 'live-traffic' for the customer endpoints at 800000, and 'backfill' at 50 for "
                 "the rest", llm=False)
    import yaml

    docs = [d for d in yaml.safe_load_all(g.yaml) if d and d.get("kind") == "PriorityClass"]
    assert [(d["metadata"]["name"], d["value"]) for d in docs] == [("live-traffic", 800000), ("backfill", 50)], g.params


def test_slurm_n_is_no_kubectl_namespace_flag_and_spread_wording_names_the_spread_recipe():
    from gpukb.recipes import generate

    g = generate("like `sbatch -N 12 --gres=gpu:4`, spread the pods evenly, at most one per node", llm=False)
    assert g.recipe == "topology-spread-training" and "namespace" not in g.from_request, (g.recipe, g.params)
    g = generate("gpu pod with 1 gpu, kubectl -n ml-dev", llm=False)
    assert g.params["namespace"] == "ml-dev", g.params


def test_a_negation_rules_out_the_object_of_its_verb():
    from gpukb.text import mask_negated

    assert mask_negated("we do not run volcano, gang of 4 pods") == "we do not run        , gang of 4 pods"
    assert mask_negated("gang scheduling without volcano") == "gang scheduling without        "


def test_a_query_is_an_expression_not_the_word_after_query_the_verb():
    from gpukb.recipes import generate

    g = generate("KEDA for Deployment embedder, max 8 replicas, query Prometheus every 30s", llm=False)
    assert "query" not in g.from_request and g.params["polling_interval"] == 30, g.params
    g = generate("keda on query sum(rate(emb_total[2m])) for deployment embedder", llm=False)
    assert g.params["query"] == "sum(rate(emb_total[2m]))", g.params


def test_a_take_back_replaces_counts_profiles_and_amounts_across_sentences():
    from gpukb.recipes import generate

    g = generate("MPIJob across 5 nodes with 4 gpus each. Hmm, scratch that, we only have 3 nodes free.", llm=False)
    assert g.params["workers"] == 3, g.params
    g = generate("time-slicing, 6 replicas per GPU. On second thought, 4: the models are bigger than we thought.",
                 llm=False)
    assert g.params["replicas"] == 4, g.params
    g = generate("gpu pod sanity-check with one 3g.40gb MIG slice. Sorry, 2g.20gb is enough.", llm=False)
    assert "nvidia.com/mig-2g.20gb" in g.yaml and "3g.40gb" not in g.yaml, g.yaml


def test_a_change_verb_on_a_named_object_gives_it_its_new_value():
    from gpukb.recipes import generate
    import yaml

    g = generate("two priority classes: live at 500000 and batch at 50. Oh, and raise live to 900000.", llm=False)
    docs = [d for d in yaml.safe_load_all(g.yaml) if d and d.get("kind") == "PriorityClass"]
    assert [(d["metadata"]["name"], d["value"]) for d in docs] == [("live", 900000), ("batch", 50)], g.params


def test_an_estimate_is_no_second_value_and_todays_count_is_no_rival():
    from gpukb.recipes import generate

    g = generate("indexed job: about 3,000 files cut into 300 chunks, 1 gpu per chunk, 10 at a time", llm=False)
    assert g.params["completions"] == 300 and g.params["parallelism"] == 10, g.params
    g = generate("our mpijob today has 2 workers with 8 GPUs. We want 3 workers, 2 GPUs per worker now.", llm=False)
    assert g.params["gpus"] == 2 and g.params["workers"] == 3, g.params


def test_amounts_pasted_as_config_scale_or_grow_as_the_words_say():
    from gpukb.recipes import generate

    g = generate("convert this compose service to a deployment, but double the shm:\n\nservices:\n  api:\n"
                 "    image: ghcr.io/acme/api:1.0\n    shm_size: 8gb\n", llm=False)
    assert g.params["shm_size"] == "16Gi", g.params
    g = generate("rwx pvc like this one but 2x the size:\n\nmetadata:\n  name: feats\nspec:\n  resources:\n"
                 "    requests:\n      storage: 200Gi\n", llm=False)
    assert g.params["size"] == "400Gi", g.params
    g = generate("our helm values:\n\nworkers:\n  count: 2\n  gpusPerWorker: 2\n  queue: nlp\n\nvolcano job from this, "
                 "with 2 more GPUs per worker", llm=False)
    assert g.params["gpus"] == 4, g.params


def test_a_bound_on_one_container_fills_the_per_pod_limit():
    from gpukb.recipes import generate

    for text in ("tenant onboarding for nlp-lab: 16 gpus, max 4/ctr", "gpu quota ns asr, 24 gpus, 2 maximum per one pod",
                 "gpu quota for ns asr: 24 gpus in total, and one user's container can't take more than 2.",
                 "onboard team vision with 32 GPUs and cap any single container at 8 GPUs"):
        g = generate(text, llm=False)
        assert g.params["max_gpus_per_pod"] in (2, 4, 8) and "max_gpus_per_pod" in g.from_request, (text, g.params)


def test_a_plain_namespace_after_a_named_object():
    from gpukb.recipes import generate

    g = generate("rwx pvc imagenet-21k ns vision 2Ti sc cephfs", llm=False)
    assert g.params["namespace"] == "vision" and g.params["name"] == "imagenet-21k", g.params


def test_priority_class_pairs_in_list_and_field_forms():
    from gpukb.recipes import generate

    for text in ("Priority classes:\n1. prod class: live-hi, value 700000\n2. research class: sweep-lo, value 5",
                 "prio classes: prod=live-hi value=700000, research=sweep-lo value=5",
                 "two priority classes, live-hi with the value 700000 and sweep-lo with the value 5"):
        g = generate(text, llm=False)
        got = (g.params["production_name"], g.params["production_value"], g.params["research_name"],
               g.params["research_value"])
        assert got == ("live-hi", 700000, "sweep-lo", 5), (text, g.params)
    g = generate("priority classes live-hi at 700000 and sweep-lo at 5; sweep-lo may preempt nothing", llm=False)
    assert g.params["research_preempts"] is False, g.params


def test_the_new_name_and_settings_over_the_described_object():
    from gpukb.recipes import generate

    g = generate("Our notebook pod nb-1 currently runs on any node with 1 GPU. Rename it to nb-ampere and require "
                 "nvidia.com/gpu.family=ampere.", llm=False)
    assert g.params["name"] == "nb-ampere", g.params
    g = generate("The corpus PVC is 500Gi on nfs-a and it is full. Please create a new one, corpus-v2, 2Ti on "
                 "cephfs-rwx, in namespace nlp.", llm=False)
    assert (g.params["name"], g.params["size"], g.params["storage_class"]) == ("corpus-v2", "2Ti", "cephfs-rwx"), \
        g.params


def test_an_enum_value_said_of_today_yields_to_the_one_asked_for():
    from gpukb.recipes import generate

    g = generate("Currently the operator assumes docker on these nodes. We want a ClusterPolicy for cri-o now, driver "
                 "preinstalled.", llm=False)
    assert g.params["default_runtime"] == "crio", g.params


def test_both_bounds_after_the_noun_of_a_min_max_pair():
    from gpukb.recipes import generate

    g = generate("elastic pytorchjob please, workers minimum 3 and maximum 6, 8 gpus per worker", llm=False)
    assert (g.params["min_workers"], g.params["max_workers"]) == (3, 6), g.params


def test_the_name_of_the_object_shall_be():
    from gpukb.recipes import generate

    g = generate("FSx for Lustre, PERSISTENT_2, 2400 GiB; the name of the storage class shall be fsx-train.", llm=False)
    assert g.params["name"] == "fsx-train", g.params


def test_a_path_parameter_takes_a_path_after_its_key_and_lim_is_limit():
    from gpukb.recipes import generate

    g = generate("model-cache pod gpus=1 ephemeral req=40Gi lim=90Gi cachePath=/weights", llm=False)
    assert (g.params["cache_path"], g.params["ephemeral_limit"]) == ("/weights", "90Gi"), g.params


def test_a_count_then_a_modal_verb_then_at_a_time():
    from gpukb.recipes import generate

    g = generate("indexed job over 40 parts, but only five may run at the same time, one gpu each", llm=False)
    assert (g.params["completions"], g.params["parallelism"]) == (40, 5), g.params


def test_the_same_thing_with_another_tool_asks_for_that_tool():
    from gpukb.recipes import generate

    g = generate("We have this HPA today but it cannot go to zero. Same thing with KEDA please:\n\napiVersion: "
                 "autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: asr\n  namespace: speech\nspec:\n"
                 "  minReplicas: 1\n  maxReplicas: 4\n", llm=False)
    assert g.recipe == "keda-gpu-scaledobject", g.recipe


def test_a_layout_said_again_after_a_take_back_replaces_the_first():
    from gpukb.recipes import generate

    g = generate("split each H100 into two 3g.40gb and one 1g.10gb... no wait, simpler: two 3g.40gb only", llm=False)
    assert g.params["mig_devices"] == {"3g.40gb": 2}, g.params


def test_a_name_field_label_beats_a_team_phrase_and_gerunds_name_no_deployment():
    from gpukb.recipes import generate

    g = generate("Volcano queue for the speech team:\n- name: asr-batch\n- cap: 16 GPUs\n- weight 2", llm=False)
    assert g.params["name"] == "asr-batch", g.params
    g = generate("kubectl get hpa says our tts-api deployment scaling from 1 to 3 on gpu util; now 2 to 6 please",
                 llm=False)
    assert g.params["deployment"] == "tts-api", g.params
    g = generate("please redeploy it as transcriber in namespace media: image vllm/vllm-openai:v0.6.3, 1 gpu, model "
                 "cache 50Gi at /models/hf", llm=False)
    assert g.params["name"] == "transcriber" and g.params.get("model") != "s/hf", g.params


def test_a_hyphenated_name_before_the_kind_noun_opening_the_request():
    from gpukb.recipes import generate

    g = generate("Title: whisper-large deployment\n- replicas: 2\n- gpus: 1", llm=False)
    assert g.params["name"] == "whisper-large", g.params
    g = generate("our whisper-large deployment needs an HPA on gpu util, 1 to 3 replicas", llm=False)
    assert g.params.get("name") != "whisper-large", g.params


def test_a_word_of_two_count_groups_links_neither_and_users_share_a_gpu():
    from gpukb.recipes import generate

    g = generate("We have six L4 boxes. Share each GPU with MPS between four users, config map l4-mps.", llm=False)
    assert g.params["replicas"] == 4, g.params


def test_list_values_said_of_today_yield_and_a_pasted_keys_boolean_stays_with_its_key():
    from gpukb.recipes import generate

    g = generate("Our current karpenter pool 'cpu-like' runs on-demand only. We need a new pool gpu-cheap for g6 on "
                 "spot, 16 gpus max, cluster ml", llm=False)
    assert g.params["capacity_types"] == ["spot"], g.params
    g = generate("clusterpolicy from our helm values:\n\ndevicePlugin:\n  enabled: false\ntoolkit:\n  enabled: true\n"
                 "mig:\n  strategy: single\n", llm=False)
    assert g.params["toolkit_enabled"] is True, g.params


def test_a_plain_namespace_before_a_reporting_verb():
    from gpukb.recipes import generate

    g = generate("kubectl describe quota in ns vision shows 8 GPUs right now. We need 24 GPUs, max 4 per pod.", llm=False)
    assert g.params["namespace"] == "vision" and g.params["gpus"] == 24, g.params


def test_one_time_a_profile_and_a_place_things_are_put():
    from gpukb.recipes import generate

    g = generate("We need one time 7g.80gb on the big node's GPUs, config name whole-card", llm=False)
    assert g.recipe == "mig-config" and g.params["mig_devices"] == {"7g.80gb": 1}, (g.recipe, g.params)
    g = generate("dcgm servicemonitor and alerts, exporter in ns dcgm; put the SM and the rules in observability",
                 llm=False)
    assert g.params["namespace"] == "observability", g.params


def test_an_estimated_size_yields_to_a_stated_one():
    from gpukb.recipes import generate

    g = generate("model-cache pod: the checkpoint is roughly 90 GB, so give it a 120Gi cache that dies with the pod "
                 "and let it use up to 200Gi of local disk; 1 gpu, image ghcr.io/acme/infer:1.2", llm=False)
    assert (g.params["cache_size"], g.params["ephemeral_limit"]) == ("120Gi", "200Gi"), g.params


def test_a_settling_verb_with_a_two_word_noun_replaces_the_count_of_that_noun():
    from gpukb.recipes import generate

    g = generate("volcano job: a master task of 1 pod with 1 GPU and a worker task of 2 pods with 4 GPUs each. Hmm, "
                 "make it 3 worker pods, plugins pytorch", llm=False)
    tasks = {t["name"]: t for t in g.params["tasks"]}
    assert tasks["worker"]["replicas"] == 3, g.params


def test_gpu_before_a_counted_noun_counts_that_noun():
    from gpukb.recipes import generate

    g = generate("indexed job: 300 audio files over 30 gpu workers", llm=False)
    assert g.params.get("gpus", 1) != 30, g.params


def test_wake_from_zero_and_a_cap_on_replicas():
    from gpukb.recipes import generate

    g = generate("KEDA for deployment ranker in ns rank: wake from zero once more than 3 requests wait, cap at 7 "
                 "replicas", llm=False)
    assert (g.params["activation_threshold"], g.params["max_replicas"]) == ("3", 7), g.params


def test_a_passive_verb_after_a_cue_is_no_value_and_x_as_the_cue_is():
    from gpukb.recipes import generate

    g = generate("mpijob, 2 workers x 4 gpus; our image is based on OpenMPI 4", llm=False)
    assert "image" not in g.from_request, g.params
    g = generate("time-slicing, 4 replicas per GPU, configmap ts-lab, and use l4-lab as the key", llm=False)
    assert g.params["config_key"] == "l4-lab", g.params


def test_no_value_from_inside_a_query_an_id_an_adjective_a_participle_or_a_mode():
    from gpukb.recipes import generate

    g = generate('keda for deploy chat using the query sum(rate(reqs_total{namespace="edge"}[1m])), max 3 replicas',
                 llm=False)
    assert "namespace" not in g.from_request, g.params
    g = generate("existing fsx volume fs-0123abcd4567ef890, 1200 GiB, us-east-1, mount name abcdefgh", llm=False)
    assert g.params.get("name") != "fs-0123abcd4567ef890", g.params
    g = generate("GPU-only pod with 1 gpu, ns lab", llm=False)
    assert g.params.get("name") != "gpu-only", g.params
    g = generate("Their jobs run gang-scheduled. A volcano job called ddp-x with 2 workers of 4 GPUs", llm=False)
    assert "command" not in g.from_request, g.params
    g = generate("a Job in Indexed completion mode, 16 completions, 4 at once, 1 gpu", llm=False)
    assert "namespace" not in g.from_request, g.params


def test_no_name_or_namespace_from_descriptions_quantifiers_and_verbs():
    from gpukb.recipes import generate

    g = generate("read-only-many claim for the test set, 100Gi, class cephfs", llm=False)
    assert g.params.get("name") != "read-only-many" and g.params["access_mode"] == "ReadOnlyMany", g.params
    g = generate("kueue clusterqueue lab-cq that admits from every namespace, 8 gpus", llm=False)
    assert g.params.get("namespace") != "every", g.params
    g = generate("MPIJob, 2 workers x 4 GPUs; the image ships OpenMPI already", llm=False)
    assert "image" not in g.from_request, g.params
    g = generate("single-GPU pod using nvcr.io/nvidia/cuda:12.2.0-base-ubuntu22.04", llm=False)
    assert g.params.get("name") != "single-gpu", g.params


def test_od_is_on_demand_and_an_ami_pinned_to_a_version():
    from gpukb.recipes import generate

    g = generate("karpenter pool for g6, spot + od, 16 gpus, cluster lab", llm=False)
    assert g.params["capacity_types"] == ["spot", "on-demand"], g.params
    g = generate("karpenter gpu nodepool, cluster lab, use Bottlerocket pinned to v1.30.0", llm=False)
    assert g.params["ami_alias"] == "bottlerocket@v1.30.0", g.params


def test_a_rate_word_is_no_kind_between_a_count_and_its_noun():
    from gpukb.recipes import generate

    g = generate("I want 8 ranks, one per node, never two on the same host, 2 GPUs on each node", llm=False)
    assert g.params["workers"] == 8, g.params


def test_a_difference_of_one_pod_is_a_skew_not_a_count():
    from gpukb.recipes import generate

    g = generate("we want our 8 training pods spread over zones, at most two pods of difference, 1 gpu each", llm=False)
    assert (g.params["workers"], g.params["max_skew"]) == (8, 2), g.params


def test_a_pasted_table_is_fenced_and_its_header_is_no_name():
    from gpukb.recipes import generate
    from gpukb.recipes.extract import fence_pastes

    text = ("need it on the big cards:\n$ kubectl get nodes -L nvidia.com/gpu.product\n"
            "NAME       STATUS   GPU.PRODUCT\nbox-1      Ready    NVIDIA-H100-80GB-HBM3\nbox-2      Ready    NVIDIA-L4\n"
            "\nThe pod is called probe-7, two GPUs")
    fenced = fence_pastes(text)
    assert "```\nNAME       STATUS" in fenced and "Ready    NVIDIA-L4\n```" in fenced
    assert "$ kubectl get nodes -L nvidia.com/gpu.product\n```" in fenced  # the command stays words
    assert fence_pastes(fenced) == fenced
    # YAML and prose are left as they are
    assert fence_pastes("make it so:\nspec:\n  replicas: 2\n") == "make it so:\nspec:\n  replicas: 2\n"
    g = generate(text, llm=False)
    assert g.params.get("name") == "probe-7" and g.params["gpus"] == 2, g.params
    assert not any("```" in u for u in g.unused), g.unused


def test_the_one_row_a_kubectl_get_printed_is_the_object_spoken_of():
    from gpukb.recipes import generate

    g = generate("$ kubectl get deploy -n asr\nNAME        READY   UP-TO-DATE   AVAILABLE   AGE\nstt-large   3/3     3    3   5d\n"
                 "\nautoscale this on gpu utilization, target 70", llm=False)
    assert (g.recipe, g.params["deployment"], g.params["namespace"]) == ("hpa-gpu-metric", "stt-large", "asr"), g.params
    # two rows: the table names no one object
    g = generate("$ kubectl get deploy -n asr\nNAME        READY   UP-TO-DATE   AVAILABLE   AGE\nstt-large   3/3     3    3   5d\n"
                 "stt-small   1/1     1    1   5d\n\nhpa on gpu utilization for it, target 70", llm=False)
    assert g.params.get("deployment") not in ("stt-large", "stt-small", "it"), g.params


def test_a_pronoun_is_no_name():
    from gpukb.recipes import generate

    g = generate("keda scaledobject: scale this to zero when idle, at most 4 replicas, ns chat", llm=False)
    assert g.params.get("deployment") != "this", g.params


def test_a_form_field_ends_at_its_line():
    from gpukb.recipes import generate

    g = generate("OPS-12 serve the ranker\nModel: BAAI/bge-reranker-large\nReplicas: 4\nGPUs per replica: 1\nNamespace: search",
                 llm=False)
    assert (g.params["replicas"], g.params["gpus"], g.params["namespace"]) == (4, 1, "search"), g.params
    g = generate("LWS ticket\nmodel: Qwen/Qwen2.5-72B-Instruct\nreplicas: 3\npods per group: 2, 8 GPUs each", llm=False)
    assert (g.params["replicas"], g.params["size"], g.params["gpus"]) == (3, 2, 8), g.params
    assert normalise_text("a\nb: 1\nc: 2") == normalise_text("a;\nb: 1;\nc: 2")


def test_both_bounds_of_a_pair_in_one_phrase():
    from gpukb.recipes import generate

    g = generate("hpa for deployment ocr on gpu util 55, never fewer than 3 or more than 12 pods", llm=False)
    assert (g.params["min_replicas"], g.params["max_replicas"], g.params["target_value"]) == (3, 12, "55"), g.params
    g = generate("keda scaledobject for deployment ocr, no less than 1 and never more than 5 copies", llm=False)
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (1, 5), g.params
    g = generate("elastic pytorchjob, at least 3 and at most 9 workers, 2 gpus each", llm=False)
    assert (g.params["min_workers"], g.params["max_workers"]) == (3, 9), g.params


@pytest.mark.parametrize("text, want", [
    ("indexed job, 48 chunks, Maximum six pods at same time, 1 GPU each", (48, 6)),
    ("sharded job: 70 pieces, 7 in flight at once", (70, 7)),
    ("indexed job 30 shards, at most 3 pods at any one time", (30, 3)),
])
def test_ways_to_say_how_many_run_at_once(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert (g.params["completions"], g.params["parallelism"]) == want, g.params


def test_a_batch_scripts_job_name_and_a_helm_values_driver_toggle():
    from gpukb.recipes import generate

    g = generate("turn this into an MPIJob:\n#SBATCH --job-name=allreduce-bench\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:4",
                 llm=False)
    assert (g.params["name"], g.params["workers"]) == ("allreduce-bench", 2), g.params
    g = generate("ClusterPolicy equal to these helm values:\n\ndriver:\n  enabled: false\ntoolkit:\n  enabled: true", llm=False)
    assert (g.params["driver_enabled"], g.params.get("toolkit_enabled", True)) == (False, True), g.params


def test_a_forms_labels_name_the_parameters():
    from gpukb.recipes import generate

    g = generate("Intake form, new team\n\n  Team name:        imaging\n  Headcount:        7\n  GPU budget:       32\n"
                 "  CPU:              256\n  Max GPUs per job: 2\n  Cost center:      88-R", llm=False)
    assert (g.params["tenant"], g.params["gpus"], g.params["cpu"], g.params["max_gpus_per_pod"]) == ("imaging", 32, 256, 2), g.params
    # a pasted object's lowercase keys are no form: its state is not the request's value
    g = generate("need the RWX version on efs-dyn, 3x the size:\n\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n"
                 "  name: corpus\nspec:\n  storageClassName: gp3\n  resources:\n    requests:\n      storage: 100Gi", llm=False)
    assert g.params.get("storage_class") != "100Gi", g.params


def test_groups_described_by_their_parts_pick_among_the_pasted_names():
    from gpukb.recipes import generate

    g = generate('$ aws eks list-nodegroups --cluster-name lab\n{\n  "nodegroups": [\n    "cpu-base",\n    "gpu-h100-spot",\n'
                 '    "gpu-l40s-spot",\n    "gpu-h100-ondemand"\n  ]\n}\ncluster autoscaler: prefer the spot groups, then the h100 '
                 'on-demand one', llm=False)
    assert g.params["preferred_groups"] == ["gpu-h100-spot", "gpu-l40s-spot"], g.params
    assert g.params["fallback_groups"] == ["gpu-h100-ondemand"], g.params
    # names written out are kept as written
    g = generate("cluster autoscaler priority expander, prefer gpu-x-spot, then gpu-x-od", llm=False)
    assert (g.params["preferred_groups"], g.params["fallback_groups"]) == (["gpu-x-spot"], ["gpu-x-od"]), g.params


def test_priority_tiers_as_a_table_and_the_one_pronoun():
    from gpukb.recipes import generate

    g = generate("Two tiers like our old scheduler had:\n  realtime-serve   900000\n  overnight        50     <- must never preempt",
                 llm=False)
    assert (g.params["production_name"], g.params["production_value"]) == ("realtime-serve", 900000), g.params
    assert (g.params["research_name"], g.params["research_value"]) == ("overnight", 50), g.params
    g = generate("priority classes: call the high one chat-live with priority 500000 and the low one sweep at 10", llm=False)
    assert (g.params["production_name"], g.params["production_value"], g.params["research_name"],
            g.params["research_value"]) == ("chat-live", 500000, "sweep", 10), g.params


@pytest.mark.parametrize("text", [
    "mps, 6 clients per card, without the driver or the container toolkit",
    "time slicing x3; our hosts already have the nvidia driver and the toolkit installed",
    "mig config all-1g.10gb. The driver comes with the OS image, and so does the toolkit.",
])
def test_a_state_said_of_several_stack_components_is_said_of_each(text):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert (g.params["driver_enabled"], g.params["toolkit_enabled"]) == (False, False), (g.recipe, g.params)


def test_a_reply_quoting_a_proposal_changes_only_what_it_says():
    from gpukb.recipes import generate

    g = generate("> plan: vllm deployment for Qwen/Qwen2.5-7B-Instruct in ns chat, 2 replicas, 1 GPU each\n"
                 "lgtm, but 4 replicas please", llm=False)
    assert (g.params["replicas"], g.params["gpus"], g.params["namespace"]) == (4, 1, "chat"), g.params
    # a message that is all quote is read as it stands
    g = generate("> vllm deployment for Qwen/Qwen2.5-7B-Instruct, 2 replicas", llm=False)
    assert g.params["replicas"] == 2


@pytest.mark.parametrize("text, param, bad", [
    ("keda for whisper-api, scale back to zero after an hour idle", "deployment", "back"),
    ("cluster autoscaler expander: prefer .*gpu-spot.*, and if none, fall back to .*gpu-od.*", "fallback_groups", ["back"]),
    ("onboard team vision: 16 GPUs. nobody there will ever need more than 4 GPUs in one pod", "tenant", "ever"),
])
def test_adverbs_are_never_names(text, param, bad):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert g.params.get(param) != bad, g.params


def test_a_name_assigned_or_renamed_to_is_taken():
    from gpukb.recipes import generate

    g = generate("mig layout, seven 1g.10gb per A100, with the configmap renamed to a100-layouts", llm=False)
    assert g.params["configmap_name"] == "a100-layouts", g.params
    g = generate("kueue cq name=research-cq, lq=everyone, 16 gpus", llm=False)
    assert g.params["local_queue"] == "everyone", g.params


def test_reading_a_request_with_another_recipe_never_fails():
    """Any recipe may be asked to read any request (to compare what each understands); an
    object listed with a field its sorted slot has no place for is no error."""
    from gpukb.recipes.model import load_recipes

    recipes = {r.id: r for r in load_recipes()}
    ext = extract_params(recipes["priority-classes"], "onboard vision: 8 GPUs, priority 3000 and they may preempt")
    assert "production_name" not in ext.values


@pytest.mark.parametrize("text, param, units, gpus", [
    ("volcano job: 6 workers, 48 GPUs in total, queue ml", "workers", 6, 8),
    ("vllm deployment for Qwen/Qwen2.5-7B-Instruct, 3 replicas, a budget of 6 gpus", "replicas", 3, 2),
    ("pytorchjob, 4 nodes with 8 gpus each, 32 gpus in total", "nodes", 4, 8),
])
def test_a_total_of_gpus_is_split_over_the_pods(text, param, units, gpus):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert (g.params[param], g.params["gpus"]) == (units, gpus), g.params
    assert not any("total" in u for u in g.unused), g.unused


@pytest.mark.parametrize("text, why", [
    ("volcano job: 5 workers, 12 GPUs in total", "do not split evenly over 5"),
    ("pytorchjob with 16 GPUs in total", "say how many pods"),
])
def test_a_total_is_never_read_as_a_per_pod_amount(text, why):
    from gpukb.errors import ParameterError
    from gpukb.recipes import generate

    with pytest.raises(ParameterError, match=why) as err:
        generate(text, llm=False)
    assert err.value.parameter == "gpus"


@pytest.mark.parametrize("text, want", [
    ("gpu pod, 1 gpu. Namespace is tracking.", "tracking"),
    ("rwx claim 200Gi on efs-sc that I can mount from my namespace, speech-lab, please", "speech-lab"),
    ("one gpu pod with the cuda base image in my sandbox bob-exp", "bob-exp"),
    ("rwx pvc of 2Ti on filestore-rwx; it must live in genomics.", "genomics"),
    ("pytorchjob, 2 nodes x 8 gpus. Our namespace on the new cluster is nlp-lab.", "nlp-lab"),
])
def test_a_teams_own_place_is_the_namespace(text, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params["namespace"] == want


@pytest.mark.parametrize("text, want", [
    ("hpa for sdxl on DCGM_FI_DEV_GPU_UTIL at 70, and name the hpa itself sdxl-hpa", "sdxl-hpa"),
    ("the vllm deployment for Qwen/Qwen2.5-7B-Instruct crashed; recreate it as qwen-chat with 2 GPUs", "qwen-chat"),
])
def test_the_name_an_object_is_to_get(text, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params["name"] == want


def test_a_name_given_to_another_object_stays_with_it():
    from gpukb.recipes import generate

    g = generate("dra pod that claims one 1g.10gb MIG device; call the template small-mig", llm=False)
    assert g.params.get("name") != "small-mig" and g.params["claim_template"].startswith("small-mig"), g.params


@pytest.mark.parametrize("text, want", [
    ("volcano queue serve, 40 gpus, and no other queue should be allowed to reclaim what it borrows", False),
    ("volcano queue serve, 40 gpus; nobody can ever reclaim from it", False),
    ("volcano queue scratch, 8 gpus, other queues may reclaim from it", True),
])
def test_a_permission_denied_to_everyone_is_a_negation(text, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params["reclaimable"] is want


@pytest.mark.parametrize("text, param, want", [
    ("indexed job over 300 pages, keep 12 running, 1 gpu each; if more than 9 pages end up failing, stop", "max_failed_indexes", 9),
    ("indexed job over 300 pages, keep 12 running, 1 gpu each", "parallelism", 12),
    ("rwx pvc corpus, 500Gi on efs-sc; every trainer reads it and no one ever writes to it", "access_mode", "ReadOnlyMany"),
    ("keda: scale whisper-asr (ns speech) to zero after 30 minutes idle, max 4", "min_replicas", 0),
])
def test_everyday_phrasings_of_job_volume_and_scaler_settings(text, param, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params[param] == want


@pytest.mark.parametrize("text, param", [
    ("hpa for the sdxl deployment that scales all the way down to zero at night, max 4", "min_replicas"),
    ("namespace lab: 4 GPUs of quota, but single pods should be able to use up to 6 GPUs", "max_gpus_per_pod"),
])
def test_a_stated_value_the_recipe_cannot_take_is_an_error_not_a_default(text, param):
    from gpukb.errors import ParameterError
    from gpukb.recipes import generate

    with pytest.raises(ParameterError) as err:
        generate(text, llm=False)
    assert err.value.parameter == param


def test_list_items_in_code_marks():
    from gpukb.recipes import generate

    g = generate("autoscaler priority expander: prefer `.*h100-spot.*` and `.*a100-spot.*`, fall back to `.*h100-od.*`",
                 llm=False)
    assert g.params["preferred_groups"] == [".*h100-spot.*", ".*a100-spot.*"], g.params
    assert g.params["fallback_groups"] == [".*h100-od.*"], g.params


def test_another_parameters_noun_is_no_name():
    from gpukb.recipes import generate

    g = generate("gpu quota: raise it to 12 GPUs and cap cpu at 200 cores", llm=False)
    assert g.params["namespace"] != "cpu" and (g.params["gpus"], g.params["cpu"]) == (12, 200), g.params


def test_no_single_is_a_quantifier_not_a_count():
    from gpukb.recipes import generate

    g = generate("quota for ns vision: 32 GPUs. No single pod should take more than 4 GPUs, and cap the namespace "
                 "at 100 pods.", llm=False)
    assert (g.params["max_gpus_per_pod"], g.params["max_pods"]) == (4, 100), g.params


@pytest.mark.parametrize("text, want", [
    ("quota for ns lab: a quarter of the 64 GPUs", 16),
    ("onboard team speech with half of vision's 24 GPUs", 12),
])
def test_a_share_of_an_amount(text, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params["gpus"] == want


def test_queue_written_as_q_equals():
    from gpukb.recipes import generate

    g = generate("vcjob 2x4 a100, q=batch-hi, ns=cv", llm=False)
    assert (g.params["queue"], g.params["workers"], g.params["gpus"]) == ("batch-hi", 2, 4), g.params


@pytest.mark.parametrize("text, want", [
    ("pytorchjob bert-pt on 3 8-GPU nodes, ns nlp", {"nodes": 3, "gpus": 8}),
    ("our 128-GPU fleet is shared; give namespace speech a quota of 24 GPUs", {"gpus": 24, "namespace": "speech"}),
    ("hpa for deployment sdxl-api in imagegen, gpu util 60, 1 to 4 pods", {"namespace": "imagegen", "deployment": "sdxl-api"}),
])
def test_sized_nodes_capacity_and_an_objects_place(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert {k: g.params[k] for k in want} == want, g.params


@pytest.mark.parametrize("text, param, want", [
    ("raise the quota for ns vision from 8 GPUs to 16", "gpus", 16),
    ("bump the vllm deployment for Qwen/Qwen2.5-7B-Instruct from 2 replicas to 4", "replicas", 4),
    ("hpa for llama, scale from 2 to 8 replicas on gpu util 70", "min_replicas", 2),  # a range stays a range
])
def test_a_change_from_one_value_to_another_gives_the_new_one(text, param, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params[param] == want


def test_dont_reads_as_the_enum_words_and_a_scalers_target_place():
    from gpukb.recipes import generate

    g = generate("spread 6 workers x 4 gpus over nodes, one per node, and don't schedule them if it can't be spread",
                 llm=False)
    assert g.params["when_unsatisfiable"] == "DoNotSchedule", g.params
    g = generate("keda scaledobject for whisper-asr in speech, 1 to 5 replicas, threshold 3", llm=False)
    assert (g.params["deployment"], g.params["namespace"]) == ("whisper-asr", "speech"), g.params


def test_a_gang_of_all_n_and_the_time_it_has_to_form():
    from gpukb.recipes import generate

    g = generate("coscheduling gang of 6 pods x 4 gpus; all 6 should start together, give it 3 minutes to form", llm=False)
    assert (g.params["min_member"], g.params["schedule_timeout_seconds"]) == (6, 180), g.params


def test_a_scaler_for_a_deployment():
    from gpukb.recipes import generate

    g = generate("keda scaler for sdxl-api, 0 to 3 replicas", llm=False)
    assert g.params["deployment"] == "sdxl-api", g.params


def _assert_reads(text: str, param: str, want: Any) -> None:
    """The request ``text`` generates ``param`` as ``want``."""
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert g.params[param] == want, (g.recipe, g.params)


def _assert_reads_all(text: str, want: dict[str, Any]) -> None:
    """The request ``text`` generates every parameter of ``want`` as given."""
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert {k: g.params[k] for k in want} == want, (g.recipe, g.params)


@pytest.mark.parametrize("text, param, want", [
    ("karpenter gpu pool on g6e, no on-demand, cap 16 gpus", "capacity_types", ["spot"]),
    ("volcano queue cv: cap 40 gpus, 8 are always reserved for them", "guarantee_gpus", 8),
    ("clusterqueue for ns nlp, 16 gpus nominal in cohort lab, may borrow up to another 4", "borrowing_limit", 4),
])
def test_capacity_type_by_what_is_ruled_out_and_reserved_or_extra_amounts(text, param, want):
    from gpukb.recipes import generate

    assert generate(text, llm=False).params[param] == want


@pytest.mark.parametrize("text, param, want", [
    # digits after a word and a dash belong to a name (a ticket, a node), never an amount
    ("FIN-771 Limit GPU spend of the marketing-analytics namespace\nGPU hard limit: twenty\nMax GPUs per container: 2",
     "gpus", 20),
    ("OPS-48 gpu quota for ns vision, 16 GPUs", "gpus", 16),
    # a form's label that names a kind of the recipe's objects fills that object's name
    ("HPC-77: NCCL benchmark across 2 nodes\nJob: nccl-mpi-bench\nNamespace: hpc-bench\nWorkers: 2\nGPUs per worker: 8",
     "name", "nccl-mpi-bench"),
    ("kueue setup\nClusterQueue: llm-cq\nLocalQueue: llm-lq\nNamespace: llm-training\nGPU quota: 64", "local_queue", "llm-lq"),
    ("kueue setup\nClusterQueue: llm-cq\nLocalQueue: llm-lq\nNamespace: llm-training\nGPU quota: 64", "name", "llm-cq"),
    # a prose label under a heading line, with a full stop after its value; a word for a limit
    ("Description:\n  Create a Karpenter NodePool \"batch-l4\" using g6.xlarge.\n  Capacity type: spot.\n"
     "  GPU ceiling for the pool: 24.\nRollback: delete the NodePool", "gpu_limit", 24),
])
def test_form_labels_name_kinds_and_limits_and_ticket_numbers_are_no_amounts(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("deploy vllm/vllm-openai:v0.6.3 as llama3-8b-chat serving meta-llama/Meta-Llama-3-8B-Instruct, 3 replicas, 1 gpu each",
     "name", "llama3-8b-chat"),
    ("tenant bundle: they get 24 GPUs, at most 4 in a single pod. The team name should be \"speech\".", "tenant", "speech"),
    ("pytorchjob, 2 workers x 4 gpus. The job name is bert-ft", "name", "bert-ft"),
    # words of time and ability are never a name
    ("Onboarding the new vision team next Monday. They get 16 GPUs; the tenant is cv-team.", "tenant", "cv-team"),
])
def test_a_name_given_as_what_an_image_is_deployed_as_or_as_the_kinds_name(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("priority classes: inference-critical = 2M, batch = 10k", "production_value", 2000000),
    ("priority classes: inference-critical = 2M, batch = 10k", "research_value", 10000),
    ("indexed job embed: 10k shards, 50 at a time, 1 gpu each", "completions", 10000),
    ("RWX pvc imagenet-21k, 5Ti, storage class efs-sc", "name", "imagenet-21k"),  # inside a name it stays
    ("karpenter nodepool gpu-p5 for p5.48xlarge, cap it at 48 gpus, no wait, 64 total", "gpu_limit", 64),
    ("triton deployment, 16 CPU and 64 gigs memory and one GPU. Shared memory make it 16 gig", "memory", "64Gi"),
    ("triton deployment, 16 CPU and 64 gigs memory and one GPU. Shared memory make it 16 gig", "shm_size", "16Gi"),
    ("pytorchjob bert-ft, 2 gpus per pod, set the worker count to 6", "workers", 6),
])
def test_suffixed_amounts_bare_corrections_and_a_clause_naming_what_it_sets(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, want", [
    # a count another parameter's own word claims is that parameter's, never a second value of this one
    ("kueue queue for ns speech with 24 GPU H100, cohort research, can borrow maximum 8 GPUs and lend no more than 4",
     {"gpus": 24, "borrowing_limit": 8, "lending_limit": 4}),
    ("Create a Volcano queue genai that can use up to 64 GPUs; 8 GPUs must always be reserved for it even when idle.",
     {"gpus": 64, "guarantee_gpus": 8}),
])
def test_a_count_said_of_another_parameter_is_no_second_value(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert {k: g.params.get(k) for k in want} == want, (g.recipe, g.params)


def test_two_counts_of_one_parameter_are_still_a_conflict():
    from gpukb.errors import GpukbError
    from gpukb.recipes import generate

    with pytest.raises(GpukbError, match="two values"):
        generate("kueue clusterqueue for ns speech with 24 GPUs, and a quota of 16 GPUs for the queue", llm=False)


@pytest.mark.parametrize("text, param, want", [
    # a later message settles on another amount, restating the first one bare
    ("Thread:\nAlice: karpenter pool for g5 spot, limit 32 GPUs\nBob: 32 is too much for finance, do 16\n"
     "Alice: ok 16 then. name it g5-spot", "gpu_limit", 16),
    ("karpenter pool g5-spot, limit 32 GPUs. hmm, 32 is a lot, make it 24", "gpu_limit", 24),
    # requirement keywords as labels keep their negation
    ("MUST: time-slicing with 4 replicas per GPU\nMUST NOT: rename the resource", "rename_by_default", False),
    ("MUST: time-slicing with 4 replicas per GPU\nSHOULD: rename the resource", "rename_by_default", True),
    # relative to a pasted object: the environment said after "but ... in"
    ("Same as the prod one but with 4 GPUs and in staging:\n```yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
     "  name: embed-api\n  namespace: prod\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n"
     "      - name: server\n        image: ghcr.io/acme/embed:1.4\n        resources:\n          limits:\n"
     "            nvidia.com/gpu: 1\n```", "namespace", "staging"),
])
def test_threads_requirement_labels_and_changes_to_a_pasted_object(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("Need HPA for deployment sdxl in ns genai scaling 2\u219210 replicas on DCGM_FI_DEV_GPU_UTIL, target 70%",
     "max_replicas", 10),
    ("Need HPA for deployment sdxl in ns genai scaling 2\u219210 replicas on DCGM_FI_DEV_GPU_UTIL, target 70%",
     "min_replicas", 2),
    # "one replica handles ~40": any one of them, no count
    ("Mixtral needs 2 H100s per replica. We expect 120 QPS, one replica handles ~40, so 3 replicas. "
     "Deployment mixtral-serve in ns llm.", "replicas", 3),
    ("inference deployment with one replica, 2 gpus", "replicas", 1),
    # an object the user has, named before its kind
    ("we need the same llama-8b deployment but 6 replicas for the launch event", "name", "llama-8b"),
    ("copy our bert-ft pytorchjob but with 8 workers", "name", "bert-ft"),
])
def test_arrow_ranges_a_generic_one_and_a_name_before_its_kind(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, want", [
    ("KEDA: scale deployment tgi-mistral in ns chat from 0 up to 5 based on the prometheus metric tgi_queue_size, "
     "10 waiting per replica", {"min_replicas": 0, "max_replicas": 5}),
    ("I think we need MIG on the A100s? like 7 small slices per card (1g.10gb) so the interns each get one, "
     "layout name intern-slices", {"mig_devices": {"1g.10gb": 7}, "config_name": "intern-slices"}),
])
def test_a_scaling_range_without_its_noun_and_slices_per_card(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert {k: g.params.get(k) for k in want} == want, (g.recipe, g.params)


@pytest.mark.parametrize("text, param, want", [
    ("this ResourceQuota from the wiki is for 8 gpus, bump it to 12 and change the namespace to cv-lab:\n```yaml\n"
     "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: gpu-quota\n  namespace: research\nspec:\n  hard:\n"
     "    requests.nvidia.com/gpu: \"8\"\n```", "gpus", 12),
    ("volcano job sweep, 4 workers, queue mlops instead of theirs", "queue", "mlops"),
])
def test_a_raise_of_the_amount_just_said_and_a_value_before_instead(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("Let us cap vision at 24 GPUs.\n\n-----Original Message-----\nFrom: Sam\n"
     "Please set up a Kueue ClusterQueue for namespace vision with 16 GPUs.", "gpus", 24),
    ("make it 3 replicas please, and name it mistral-chat\n\nOn Tue, Priya wrote:\n"
     "Can we get a vLLM deployment for mistral-7b, 2 replicas, 1 GPU each, namespace chat?", "replicas", 3),
    ("make it 3 replicas please, and name it mistral-chat\n\nOn Tue, Priya wrote:\n"
     "Can we get a vLLM deployment for mistral-7b, 2 replicas, 1 GPU each, namespace chat?", "namespace", "chat"),
])
def test_a_mail_reply_wins_over_the_earlier_messages_under_it(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    # a question the writer answers at once
    ("clusterpolicy: driver 550.90.07, preinstalled drivers? no \u2014 let the operator install it. toolkit on",
     "driver_enabled", True),
    ("clusterpolicy: driver 550.90.07, preinstalled drivers? yes. toolkit on", "driver_enabled", False),
    # a state said of several components after them
    ("MPS with six clients per card. The driver and toolkit on these nodes are baked into the machine image.",
     "toolkit_enabled", False),
    # a blank line ends the command of a pasted script
    ("old slurm job for HPL:\n\n#SBATCH -N 4\n#SBATCH --gpus-per-node=8\nmpirun -np 32 ./xhpl\n\n"
     "need the MPIJob version, name hpl-bench", "program", ["./xhpl"]),
])
def test_answered_questions_states_of_listed_components_and_paragraph_ends(text, param, want):
    _assert_reads(text, param, want)


def test_a_blank_line_inside_a_fence_is_no_sentence_end():
    assert normalise_text("see:\n```\na: 1\n\nb: 2\n```\n\nthanks") == "see: ``` a: 1 b: 2 ``` thanks"


@pytest.mark.parametrize("text, param, want", [
    ("cluster queue shared-cq, 4 GPUs. Local queue should just be called default.", "local_queue", "default"),
    ("cluster queue shared-cq, 4 GPUs. Local queue should just be called default.", "name", "shared-cq"),
    ("ClusterQueue for namespace batch with 32 GPUs. Pending jobs may preempt lower-priority ones in the same queue, "
     "or equal-priority ones that were submitted later.", "within_cluster_queue", "LowerOrNewerEqualPriority"),
])
def test_a_word_given_after_called_and_the_wider_preemption_policy(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("nodepool gpu-inference keeps nodes around forever. current disruption block:\n\n  disruption:\n"
     "    consolidationPolicy: WhenEmpty\n    consolidateAfter: 10m\n\nswitch to WhenEmptyOrUnderutilized after 30m",
     "consolidate_after", "30m"),
    ("karpenter nodepool with the g5 family only, max 8 GPUs in total, nodes should live maximum one week (168h), "
     "and after they are empty wait 5 minutes before removing them.", "consolidate_after", "5m"),
    ("karpenter nodepool with the g5 family only, max 8 GPUs in total, nodes should live maximum one week (168h), "
     "and after they are empty wait 5 minutes before removing them.", "expire_after", "168h"),
])
def test_the_wait_before_consolidation_said_after_the_policy_or_the_emptiness(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("We have 48 A100s in the cluster and the batch queue shouldn't be able to take more than half of them. "
     "Give it priority 10.", "gpus", 24),
    ("We have this HPA today but it cannot go to zero. Same thing with KEDA please, but allow scaling to zero, "
     "deployment whisper in ns audio, max 4", "min_replicas", 0),
])
def test_a_share_of_the_amount_just_counted_and_scaling_to_zero(text, param, want):
    _assert_reads(text, param, want)


def test_stop_running_a_component_turns_it_off():
    from gpukb.recipes import generate

    g = generate("gpu-operator: stop running the bundled dcgm-exporter, we scrape with our own", llm=False)
    assert g.params["dcgm_exporter"] is False, (g.recipe, g.params)


def test_the_same_thing_for_a_new_object_names_it():
    from gpukb.recipes import generate

    g = generate("$ kubectl get deploy -n serving\nNAME          READY   UP-TO-DATE   AVAILABLE\n"
                 "qwen-72b      2/2     2            2\n\nneed the same thing for qwen-7b: 1 GPU per pod, 4 replicas, "
                 "model Qwen/Qwen2.5-7B-Instruct, same namespace", llm=False)
    assert (g.params["name"], g.params["namespace"], g.params["replicas"]) == ("qwen-7b", "serving", 4), g.params


@pytest.mark.parametrize("text, want", [
    ("team budget (GPUs):\n- vision: 16\n- nlp: 24\n- speech: 8\nmake the kueue clusterqueue for nlp (namespace nlp) "
     "with its share", 24),
    ("GPU budget split for Q1:\n| team | GPUs |\n|---|---|\n| nlp | 24 |\n| vision | 16 |\n"
     "start with the quota for nlp please (namespace nlp)", 24),
])
def test_the_named_teams_row_of_a_gpu_budget_is_its_amount(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert g.params["gpus"] == want, (g.recipe, g.params)
    assert "24" not in g.unused, g.unused


def test_a_pod_difference_abbreviated_is_the_skew_not_a_count():
    from gpukb.recipes import generate

    g = generate("pls spread my 6 training pods over zones, max 1 pod diff between zones, each pod 2 gpus", llm=False)
    assert (g.params["workers"], g.params["max_skew"]) == (6, 1), g.params


def test_what_an_object_sits_on_today_yields_to_the_regenerated_amount():
    from gpukb.recipes import generate

    g = generate("our embedding server (ghcr.io/acme/bge:0.3) sits on 6 replicas burning money overnight \u2014 "
                 "regenerate the deployment with 2 replicas, 1 GPU apiece, still pinned to NVIDIA-L4 nodes", llm=False)
    assert (g.params["replicas"], g.params["gpus"]) == (2, 1), g.params


@pytest.mark.parametrize("text, param, want", [
    # a later message of a chat thread restates the amount: it wins over the first one
    ("tom: can I get an indexed job for the ocr shards, 200 shards, 10 at a time, 1 gpu each\n"
     "nina: 10 at a time will take all week, we have room for 25\n"
     "tom: ok 25 in parallel then. name it ocr-shards", "parallelism", 25),
    ("From: Priya\n> volcano queue for team speech please, 16 GPUs, weight 2\nFrom: Omar\n"
     "> finance signed off on 24 GPUs for speech, not 16\nFrom: Priya\n> great, thanks", "gpus", 24),
    ("[09:14] kim: clusterqueue for ns vision, 32 gpus nominal\n[09:20] lee: that is the whole pool, 20 gpus max\n"
     "[09:21] kim: fine, 20 gpus nominal it is\n", "gpus", 20),
])
def test_a_later_message_of_a_thread_overrides_an_earlier_one(text, param, want):
    _assert_reads(text, param, want)


def test_a_thread_reply_that_states_no_amount_does_not_override_one():
    from gpukb.recipes import generate

    g = generate("ana: clusterqueue for ns recsys, 32 gpus nominal, lending limit 8\n"
                 "ben: are you sure you want to lend at all?\nana: yes, keep 8 lending\n", llm=False)
    assert (g.params["gpus"], g.params["lending_limit"]) == (32, 8), g.params
    assert not {"ana", "ben"} & set(g.unused), g.unused


@pytest.mark.parametrize("text", [
    # a form's labels and pasted YAML keys take no turns
    "Name: a\nValue: 100\nName: b\nValue: 10\npriority classes for these two",
    "values.yaml today:\ndriver:\n  enabled: false\ntoolkit:\n  enabled: true\nmig:\n  strategy: mixed\ndriver:\n"
    "  version: 550\nclusterpolicy from this",
])
def test_forms_and_yaml_keys_are_not_a_thread(text):
    from gpukb.recipes import load_recipes
    from gpukb.recipes.extract import _thread_turns

    recipe = {r.id: r for r in load_recipes()}["priority-classes"]
    assert _thread_turns(recipe, text) == []


@pytest.mark.parametrize("text, want", [
    ("GPU split for next quarter:\n- vision: 32 GPUs, weight 2\n- speech: 8 GPUs, weight 1\n"
     "do the volcano queue for speech now, the other one later", {"name": "speech", "gpus": 8, "weight": 1}),
    ("| team | GPUs |\n|------|------|\n| robotics | 12 |\n| mapping | 20 |\n"
     "first onboard mapping please, the other one next week", {"tenant": "mapping", "gpus": 20}),
    ("serving plan:\n  - embed: 2 replicas x 1 GPU\n  - rerank: 3 replicas x 2 GPUs\n"
     "rerank deployment first, image ghcr.io/acme/rerank:1.2", {"name": "rerank", "replicas": 3, "gpus": 2}),
])
def test_the_row_named_again_outside_a_list_is_the_object_asked_for(text, want):
    _assert_reads_all(text, want)


def test_a_pasted_files_keys_are_not_rows_of_objects():
    from gpukb.recipes import generate

    g = generate("values.yaml today:\n```yaml\nnameOverride: ranker\nreplicaCount: 2\nservice:\n  port: 8001\n```\n"
                 "plain Deployment + Service instead, 3 replicas, keep the port", llm=False)
    assert g.params["name"] != "port", g.params


@pytest.mark.parametrize("text, want", [
    ("ibm storage scale claim, 10 TiB, fileset independent with an inode limit of 1M", "limit of 1M"),
    ("keda scaledobject for deployment sdxl, max twelve replicas. Don't drop to zero before 20 minutes", "Don't drop"),
])
def test_what_is_not_understood_is_shown_as_written(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert any(want in u for u in g.unused), g.unused


@pytest.mark.parametrize("text, param, want", [
    ("elastic pytorchjob, 4 gpus per worker: run with as few as 3 workers and grow up to 12", "min_workers", 3),
    ("spread 10 pods over zones, max skew one, 4 gpus each, and it's fine if it can't be perfectly even",
     "when_unsatisfiable", "ScheduleAnyway"),
    ("spread 6 pods over nodes, 2 gpus each, and never leave them stuck; doubling up is fine", "when_unsatisfiable",
     "ScheduleAnyway"),
    ("spread 6 pods over nodes, 2 gpus each, refuse to schedule rather than double up", "when_unsatisfiable",
     "DoNotSchedule"),
    ("clusterqueue for ns cv with 16 gpus, workloads must be admitted strictly in submission order", "queueing_strategy",
     "StrictFIFO"),
    ("a claim many pods mount at once, 2Ti on cephfs, none of them write to it", "access_mode", "ReadOnlyMany"),
    ("dcgm alerts for the staging cluster: temp threshold 80 instead of 90", "temperature_celsius", 80),
    ("priority classes: prod 900, research 100, and research may evict lower pods too", "research_preempts", True),
    ("two priority classes: top-tier at value two million and batch-tier at value 50", "production_value", 2000000),
    ("topology spread job, 8 replicas, no, make it 12 so it's 4 per zone, 1 gpu each", "workers", 12),
    ("driver is baked into our AMI so the operator must not install the driver. Toolkit yes, mig strategy single",
     "toolkit_enabled", True),
    ("we run vllm: deploy image vllm/vllm-openai:v0.6.4 as summarizer, 2 replicas, 1 GPU each", "name", "summarizer"),
    ("need a smoke pod, l40s-smoke, 1 gpu, image nvidia/cuda:12.4.1-base-ubuntu22.04", "name", "l40s-smoke"),
    ("The vendor-x namespace must be strictly limited: 4 GPUs total, at most 1 per container", "namespace", "vendor-x"),
])
def test_phrasings_of_bounds_policies_thresholds_and_names(text, param, want):
    _assert_reads(text, param, want)


def test_a_host_and_port_is_no_image():
    from gpukb.recipes import generate

    g = generate("clients get timeouts on embed.search:8080; it used to run ghcr.io/acme/embed:2.1 with one GPU. "
                 "recreate it as a deployment named embed, 2 replicas, port 8080", llm=False)
    assert g.params["image"] == "ghcr.io/acme/embed:2.1", g.params


@pytest.mark.parametrize("text, param, want", [
    # a cue in the next sentence is not this amount's
    ("pod on the cache volume at /models, 120 gigs. Scratch emptyDir capped at 30Gi, no GPUs", "scratch_size", "30Gi"),
    # what an old setup ran with is state: the amount asked for wins
    ("the previous cluster ran with twelve workers at one GPU each; on the new nodes I'd rather have three workers "
     "with four GPUs each, an MPIJob named hvd-new", "workers", 3),
])
def test_sentence_bound_cues_and_what_an_old_setup_ran_with(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, want", [
    # values given as shell environment lines
    ("export WORKERS=3\nexport GPUS_PER_WORKER=8\nexport JOB_NAME=llm-sft\nturn these into a pytorchjob",
     {"workers": 3, "gpus": 8, "name": "llm-sft"}),
    # a form label's rate base that another parameter counts names no parameter here
    ("GPUs per replica: 2\nReplicas: 5\nName: asr-api\nimage: nvcr.io/nvidia/tritonserver:24.08-py3\ngpu deployment please",
     {"gpus": 2, "replicas": 5, "name": "asr-api"}),
    # a change written as a diff: the added line is what is wanted
    ("for our volcano queue speech:\n- capability gpus: 16\n+ capability gpus: 40\n", {"gpus": 40}),
    ("deployment ranker, 1 gpu each\n  - replicas: 3\n  + replicas: 6\n", {"replicas": 6}),
    # a unified diff of manifest fields in a fence: context lines give the path, the added line the value
    ("```diff\n spec:\n   capability:\n-    nvidia.com/gpu: '8'\n+    nvidia.com/gpu: '20'\n```\nthat is volcano queue "
     "vision, keep it reclaimable", {"gpus": 20}),
    ("```diff\n-  maxReplicaCount: 3\n+  maxReplicaCount: 12\n```\nfor the KEDA ScaledObject of deployment asr-gw",
     {"max_replicas": 12}),
    # a field's amount changed in place with an arrow; with no field before it an arrow is a range
    ("kubectl edit quota -n speech: requests.nvidia.com/gpu 8 -> 12", {"gpus": 12}),
    ("keda scaledobject for deployment summarizer, 0->6 replicas", {"min_replicas": 0, "max_replicas": 6}),
])
def test_env_lines_rate_labels_and_diffs(text, want):
    _assert_reads_all(text, want)


def test_a_value_said_not_to_be_needed_is_not_chosen():
    from gpukb.recipes import generate

    g = generate("mig layout a100-halves: two 3g.40gb per GPU; mixed strategy isn't needed, every slice is the same",
                 llm=False)
    assert g.params["mig_strategy"] != "mixed" and "mig_strategy" not in g.from_request, g.params


@pytest.mark.parametrize("text, want", [
    # ordinals order the groups; a list closing with one cue starts after another's cue word
    ("priority expander order: gpu-l4-spot first, gpu-l4-od second, no catch-all",
     {"preferred_groups": ["gpu-l4-spot"], "fallback_groups": ["gpu-l4-od"], "other_groups": False}),
    # a table of tiers keeps its regular expressions' stars, and a row's label is no item of the row before
    ("CA priority expander, tiers:\n\n| tier | groups |\n|---|---|\n| 1st | .*h200-res.*, .*h100-res.* |\n"
     "| 2nd | .*h100-spot.* |\n", {"preferred_groups": [".*h200-res.*", ".*h100-res.*"], "fallback_groups": [".*h100-spot.*"]}),
])
def test_ordered_node_groups_by_ordinals_and_tier_tables(text, want):
    _assert_reads_all(text, want)


def test_a_table_cell_loses_its_markdown_marks_not_a_regex_star():
    from gpukb.recipes.foreign import _cell

    assert [_cell(c) for c in (" **nlp** ", "`h100`", ".*a100-spot.*", "*x*")] == ["nlp", "h100", ".*a100-spot.*", "x"]


def test_env_lines_leave_no_export_words_and_a_chosen_row_names_the_namespace():
    from gpukb.recipes import generate

    g = generate("export WORKERS=2\nexport GPUS_PER_WORKER=4\nexport JOB_NAME=vit-ft\nthese as a pytorchjob", llm=False)
    assert (g.params["workers"], g.params["gpus"], g.params["name"]) == (2, 4, "vit-ft"), g.params
    assert not any("export" in u for u in g.unused), g.unused
    g = generate("GPU split:\n- vision: 32 GPUs\n- audio: 12 GPUs\nthe gpu quota for audio first, max 4 per container",
                 llm=False)
    assert (g.params["namespace"], g.params["gpus"]) == ("audio", 12), g.params


@pytest.mark.parametrize("text, param, want", [
    ("kim: clusterqueue for ns audio, 16 gpus nominal\nlee: finance approved 20 for audio\nkim: ok 20 then", "gpus", 20),
    ("ana: time slice the T4s 2 ways\nben: 2 is too few, go 6\nana: ok 6", "replicas", 6),
])
def test_a_reply_settling_on_a_bare_amount_sets_the_threads_amount(text, param, want):
    _assert_reads(text, param, want)


def test_a_bare_settle_with_two_earlier_amounts_changes_neither():
    from gpukb.recipes import generate

    g = generate("kim: indexed job, 100 shards, 10 at a time, 1 gpu each\nlee: can we go faster?\nkim: ok 20", llm=False)
    assert (g.params["completions"], g.params["parallelism"]) == (100, 10), g.params


@pytest.mark.parametrize("text, param, want", [
    # "name is x" names the object; "scheduler name is x" names the scheduler, not the object
    ("indexed job, 40 shards, 4 at a time, 1 gpu each; its name is shard-embed", "name", "shard-embed"),
    ("new tenant please. name is 'vision', 12 gpus, 96 cpu", "tenant", "vision"),
    ("coscheduling gang, 4 pods x 2 gpus, scheduler name is plugin-sched, job named gang-test", "name", "gang-test"),
    # a team asking for itself ("onboard us as x"), and a team named before the word for it
    ("could you onboard us as `geo-ml`? 8 gpus, 64 cores", "tenant", "geo-ml"),
    ("The new speech-rec team joins next week; give them up to 6 GPUs, no job above 2", "tenant", "speech-rec"),
])
def test_names_said_with_is_and_teams_naming_themselves(text, param, want):
    _assert_reads(text, param, want)


def test_a_take_back_in_brackets_before_a_dash_replaces_the_amount():
    _assert_reads("80 shards, run eight of them at a time (actually ten - the quota allows ten), one gpu per shard, "
                  "indexed job named ocr-run", "parallelism", 10)


@pytest.mark.parametrize("text", [
    # prose wrapped at the line's width after a colon is one sentence, not a form's field line
    "volcano gang job with the mpi plugin: a launcher task with 1 pod and no gpu, a worker task with\n"
    "3 pods of 4 gpus. name hvd-gang",
    # a task's pods in number words
    "Volcano gang: a launcher task with one pod and no GPU (it only starts ranks)\nand a worker task with "
    "three pods of 4 GPUs each. Job name hvd-gang.",
])
def test_tasks_over_a_wrapped_line_and_in_number_words(text):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert g.recipe == "volcano-job"
    assert [(t["name"], t["replicas"], t["gpus"]) for t in g.params["tasks"]] == [("launcher", 1, 0), ("worker", 3, 4)]


def test_an_amount_another_parameter_took_raises_nothing():
    # wrapped prose: "8 more GPUs" is the borrowing limit, not 8 added to the nominal quota
    _assert_reads_all("Each team gets a ClusterQueue. Team geo (namespace `geo`) gets a nominal quota of\n12 GPUs. "
                      "It sits in cohort \"earth\" and may borrow up to 4 more GPUs\nwhen the others are idle.",
                      {"gpus": 12, "borrowing_limit": 4})


@pytest.mark.parametrize("text, want", [
    ("debug pod, 1 gpu, name probe-1; the nodes carry a `reserved-ml` taint (NoExecute) too", "reserved-ml"),
    ("mpijob hvd-x, 2 workers x 4 gpus, and it must tolerate our hpc taint", "hpc"),
    ("gpu deployment asr, 2 replicas, 1 gpu each; pods must tolerate the 'inference-only' taint", "inference-only"),
])
def test_a_taint_named_before_the_word_taint(text, want):
    from gpukb.recipes import generate

    g = generate(text, llm=False)
    assert g.params.get("extra_toleration") == want, (g.recipe, g.params)


@pytest.mark.parametrize("text, want", [
    ("quota on ns vision: 12 GPUs, 1Ti memory; containers without requests default to 1 CPU and 6Gi",
     {"default_memory": "6Gi", "memory": "1Ti"}),
    ("resourcequota for speech, 8 gpus, 64 cpu; containers default to cpu 2 / memory 3Gi",
     {"default_memory": "3Gi", "default_cpu": "2"}),
    # a cap on pods after a per-container cap is no default
    ("quota for sandbox 4 gpus, nobody gets more than 1 gpu per container, no more than 20 pods there total",
     {"default_cpu": "1"}),
])
def test_a_default_memory_said_with_the_default_cpu(text, want):
    _assert_reads_all(text, want)


@pytest.mark.parametrize("text, want", [
    # a checklist's items end where the next one starts: "3 workers" / "- 8 x A100" is no range
    ("Launch checklist:\n- Master + 2 workers\n- 4 x H100 per pod\n- image: ghcr.io/acme/train:1.0\npytorchjob please",
     {"workers": 2, "gpus": 4}),
    # a settings line with a range counts like the words
    ("keda scaledobject, values:\n  deployment: asr\n  threshold: 3\n  replicas: 1-5\n",
     {"min_replicas": 1, "max_replicas": 5, "threshold": "3"}),
    # a whole PromQL expression after its cue is taken as written, its metric inside it too
    ("keda for deployment ocr in ns docs, query `sum(rate(ocr_pages_total{tier=\"gpu\"}[5m]))`, threshold 8",
     {"query": 'sum(rate(ocr_pages_total{tier="gpu"}[5m]))'}),
])
def test_checklist_items_settings_ranges_and_whole_queries(text, want):
    _assert_reads_all(text, want)


def test_node_group_tiers_name_the_priorities():
    _assert_reads_all("priority expander for CA in ns kube-system\n- tier 1: gpu-l4-spot, gpu-l40s-spot\n"
                      "- tier 2: gpu-l4-od\n", {"preferred_groups": ["gpu-l4-spot", "gpu-l40s-spot"],
                                               "fallback_groups": ["gpu-l4-od"]})


@pytest.mark.parametrize("text, param, want", [
    ("indexed job, 30 shards, 1 gpu each; retry every failed shard twice, then give up on it", "backoff_limit_per_index", 2),
    ("volcano gang job, 3 pods x 4 gpus, queue batch; retry the entire job at most once", "max_retry", 1),
])
def test_tries_counted_in_words(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    ("HPA for deployment ranker on vllm:num_requests_waiting, aiming for an average of 4 waiting requests per pod, "
     "2 to 8 replicas", "target_value", "4"),
    ("keda scaledobject for deployment ocr-api, scale to zero when idle, 6 queued per replica, max 5", "threshold", "6"),
])
def test_a_per_pod_target_said_as_an_aim(text, param, want):
    _assert_reads(text, param, want)


def test_a_difference_between_zones_is_the_skew():
    _assert_reads_all("6 training pods, 2 gpus each, spread over zones; a difference of up to 2 pods between zones is fine",
                      {"workers": 6, "max_skew": 2})


@pytest.mark.parametrize("text, param, want", [
    ("[PLAT-9] Onboard team geo-ml. AC: namespace geo-ml exists; GPU quota 16; no pod over 4 GPUs", "gpus", 16),
    ("Onboarding checklist for team asr: * quota: 12 GPUs * per-container GPU cap of 4", "gpus", 12),
    ("keda scaledobject for deployment asr-gw, scale to zero when idle, at most 6 copies", "max_replicas", 6),
])
def test_limits_said_after_their_words(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    # a ticket's context section says what runs today; the criteria say what is wanted
    ("OPS-12 Autoscale reranker on GPU utilization\n\nContext: at peak the 3 fixed replicas are pegged at 97%.\n\n"
     "Acceptance criteria:\n- HPA on deployment reranker\n- 3 to 9 replicas\n- target 70% average GPU utilization",
     "target_value", "70"),
    ("the reranker replicas are hovering at 90% GPU all afternoon. HPA for deployment reranker, 2 to 6 replicas, "
     "aim for 65% utilization", "target_value", "65"),
])
def test_what_runs_today_in_a_ticket_yields(text, param, want):
    _assert_reads(text, param, want)


def test_a_total_given_as_the_reason_bounds_nothing():
    from gpukb.recipes import generate

    g = generate("This PR adds the Volcano job for the speech run.\n\nChanges:\n- `asr-large` in `speech`\n"
                 "- 1 master (1 GPU) + 2 workers (8 GPUs each), pytorch plugin\n\nWhy: the run needs 17 GPUs for a week.",
                 llm=False)
    assert g.recipe == "volcano-job" and g.params["tasks"][1]["replicas"] == 2


def test_an_amount_beyond_its_bounds_outside_a_reason_is_still_an_error():
    from gpukb.errors import ParameterError
    from gpukb.recipes import generate

    with pytest.raises(ParameterError):
        generate("time slice every gpu 300 ways, we have lots of tiny notebook pods", llm=False)


@pytest.mark.parametrize("text, param, want", [
    # one thing per unit is no count of the things
    ("indexed job, 300 array tasks, 20 at a time, 1 gpu. each task processes one shard of the data", "completions", 300),
    ("indexed job, 64 array tasks, 8 in parallel; each task handles a single shard", "completions", 64),
])
def test_one_thing_per_unit_is_no_count(text, param, want):
    _assert_reads(text, param, want)


@pytest.mark.parametrize("text, param, want", [
    # a gang's minimum said as a part of the whole
    ("coscheduling podgroup for job asr, 10 pods with 2 gpus; it is fine if 7 of the 10 pods start together",
     "min_member", 7),
    ("podgroup 'sweep': 6 pods total, minimum 4 of them must be scheduled together, 1 gpu each", "min_member", 4),
    ("volcano job, 8 workers x 1 gpu; 5 of the 8 workers can start together", "min_available", 5),
])
def test_a_gang_minimum_said_as_a_part(text, param, want):
    _assert_reads(text, param, want)


_NAMED = Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                parameters={"type": "object", "properties": {
                    "namespace": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
                    "tenant": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
                    "toleration": {"type": "boolean", "default": True}}},
                templates=[], examples=[], path=Path("fixture.yaml"),
                extract={"namespace": [{"after": ["namespace"]}, {"before": ["namespace"]}],
                         "tenant": [{"after": ["onboarding", "team"]}],
                         "toleration": [{"flag": ["no toleration"], "value": False}]})


@pytest.mark.parametrize("text,name,want", [
    # a cue that ends a phrase names no value after its colon
    ("scaler for chat in the serving namespace: go to zero at night", "namespace", "serving"),
    ("put it in our batch namespace: nothing else runs there", "namespace", "batch"),
    # the message a request came in is no name
    ("Onboarding ticket OPS-12, team vision", "tenant", "vision"),
    # a negated flag with words that describe its noun between
    ("no GPU taint toleration on this one", "toleration", False),
    ("without any toleration please", "toleration", False),
])
def test_phrase_heads_tickets_and_negated_flags(text, name, want):
    assert extract_params(_NAMED, text).values.get(name) == want



def test_parts_of_a_core_and_hyphenated_durations_are_normalised():
    assert "500m CPU" in normalise_text("give them half a core each")
    assert "250m CPU" in normalise_text("a quarter of a vCPU is enough")
    assert "15 minute" in normalise_text("a 15-minute scale-down window")
    assert "5-10 minutes" in normalise_text("wait 5-10 minutes")  # a range keeps its hyphen


_POOL_TYPES = Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                     parameters={"type": "object", "properties": {
                         "capacity": {"type": "string", "enum": ["spot", "on-demand"]},
                         "types": {"type": "array", "items": {"type": "string", "enum": ["spot", "on-demand", "reserved"]}},
                         "max_pods": {"type": "integer", "minimum": 1, "maximum": 1000,
                                      "description": "Most pods the namespace may run."},
                         "default_cpu": {"type": "string", "pattern": r"^[0-9]+m?$",
                                         "description": "Default CPU for containers that set none."}}},
                     templates=[], examples=[], path=Path("fixture.yaml"),
                     extract={"capacity": [{"enum": {"spot": ["spot"], "on-demand": ["on-demand"]}}],
                              "types": [{"enum": {"spot": ["spot"], "on-demand": ["on-demand"], "reserved": ["reserved"]}}],
                              "max_pods": [{"count": ["pods", "pod"]}]})


def test_a_value_after_except_is_ruled_out():
    got = extract_params(_POOL_TYPES, "any capacity except spot, please").values
    assert got.get("capacity") != "spot" and "spot" not in (got.get("types") or [])
    assert extract_params(_POOL_TYPES, "capacity spot please").values.get("capacity") == "spot"


def test_an_amount_before_another_parameters_counted_noun_is_not_read_by_a_description_cue():
    got = extract_params(_POOL_TYPES, "one gpu per container, and no more than 20 pods there").values
    assert got.get("max_pods") == 20 and "default_cpu" not in got


def test_a_take_back_word_that_is_a_value_takes_nothing_back():
    # "scratch" here is the namespace's name, not "scratch the p5"
    r = _recipe({"namespace": {"type": "string"}, "gpus": INT})
    for text in ("gpu pod in ns scratch w/ 1 H100", "in namespace scratch with 2 gpus"):
        got = extract_params(r, text)
        assert got.values.get("namespace") == "scratch", text
        assert set(got.spans) <= set(got.values) | {"gpu_product"}, text


def test_the_object_named_before_its_kind_is_its_name():
    from gpukb.recipes.generation import generate

    g = generate("the chat-gw deployment keeps falling over; run it as 4 replicas of mistralai/Mistral-7B-Instruct-v0.3, "
                 "1 GPU each", llm=False)
    assert g.from_request.get("name") == "chat-gw"
    # what the object is, not what it is called
    g = generate("the fine-tuning deployment of Qwen/Qwen2.5-7B-Instruct needs 2 replicas", llm=False)
    assert "name" not in g.from_request
