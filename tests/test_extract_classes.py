"""Classes of wording the schema-driven extraction reads, on small fixture recipes:
names with their object's kind noun, boolean negation and keep/omit phrasing, counts by
synonyms of the counted thing, enum paraphrases, verbatim values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpukb.recipes.extract import digits_view, extract_params
from gpukb.recipes.model import Recipe


def _recipe(props: dict[str, Any], extract: dict[str, Any] | None = None,
            templates: list[Any] | None = None, **extra: Any) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props, **extra}, templates=templates or [],
                  examples=[], path=Path("fixture.yaml"), extract=extract or {})


INT = {"type": "integer", "minimum": 0, "maximum": 100000}


# ---------------------------------------------------------------- counts by synonyms
def test_digits_view_keeps_offsets():
    text = "max eight, min twenty-four and team-one"
    view = digits_view(text)
    assert len(view) == len(text)
    assert view.startswith("max 8    , min 24")
    assert view.endswith("team-one")


def test_a_regex_rule_reads_number_words():
    r = _recipe({"max_replicas": INT}, {"max_replicas": [{"regex": r"\bmax\s+(\d+)\b"}]})
    ext = extract_params(r, "keep it at max ten please")
    assert ext.values == {"max_replicas": 10}
    assert ext.used()["max_replicas"].endswith("ten")


def test_a_count_by_a_synonym_of_its_unit():
    r = _recipe({"workers": INT, "gpus": INT},
                {"workers": [{"count": ["workers", "nodes"]}], "gpus": [{"count": ["gpus"]}]})
    assert extract_params(r, "3 boxes, 2 GPUs apiece").values == {"workers": 3, "gpus": 2}
    assert extract_params(r, "on 5 servers with 8 gpus each").values == {"workers": 5, "gpus": 8}


def test_a_synonym_another_parameter_counts_is_not_borrowed():
    r = _recipe({"replicas": INT, "size": INT},
                {"replicas": [{"count": ["replicas", "instances"]}], "size": [{"count": ["nodes", "hosts"]}]})
    assert extract_params(r, "2 instances").values == {"replicas": 2}


def test_times_counts_a_verb_cue():
    r = _recipe({"max_retry": INT}, {"max_retry": [{"count": ["retries", "retry"]}]})
    assert extract_params(r, "retry it at most 2 times").values == {"max_retry": 2}
    assert extract_params(r, "retry each shard up to three times").values == {"max_retry": 3}


@pytest.mark.parametrize("text, per_pod, total", [
    ("32 gpus total, no pod may request more than 4", 4, 32),
    ("sixteen gpus, one gpu per container max", 1, 16),
    ("at most 2 gpus per pod, 8 gpus for the team", 2, 8),
    ("24 gpus, each pod can use up to 8", 8, 24),
])
def test_a_per_unit_maximum_is_not_the_total(text, per_pod, total):
    r = _recipe({"gpus": INT, "max_gpus_per_pod": {"type": "integer", "minimum": 1, "maximum": 16}},
                {"gpus": [{"count": ["gpus", "gpu"]}]})
    assert extract_params(r, text).values == {"gpus": total, "max_gpus_per_pod": per_pod}


@pytest.mark.parametrize("text, lo, hi", [
    ("scaling 3 to 12 on gpu utilization", 3, 12),
    ("at least two replicas and max ten", 2, 10),
    ("autoscale it between 1 and 8", 1, 8),
    ("2 to 6 pods", 2, 6),
])
def test_a_min_max_pair_from_ranges_and_bounds(text, lo, hi):
    r = _recipe({"min_replicas": INT, "max_replicas": INT})
    assert extract_params(r, text).values == {"min_replicas": lo, "max_replicas": hi}


def test_bounds_on_a_unit_the_recipe_counts_itself_are_no_pair():
    r = _recipe({"workers": INT, "min_workers": INT, "max_workers": INT},
                {"workers": [{"count": ["workers"]}]})
    assert extract_params(r, "at least 2 workers").values.get("min_workers") is None


def test_a_port_from_listen_on():
    r = _recipe({"port": {"type": "integer", "minimum": 1, "maximum": 65535}})
    assert extract_params(r, "the server listens on 8080").values == {"port": 8080}


# ---------------------------------------------------------------- booleans: negation, keep/omit
BOOLS = {
    "driver_enabled": {"type": "boolean", "default": True,
                       "description": "Let the operator install the driver (false when the driver is pre-installed)."},
    "toolkit_enabled": {"type": "boolean", "default": True,
                        "description": "Keep the operator-managed toolkit (false when it is pre-installed)."},
}


@pytest.mark.parametrize("text, want", [
    ("skip installing the driver and leave out the toolkit too", {"driver_enabled": False, "toolkit_enabled": False}),
    ("keep the toolkit; the driver comes from our image, do not install it",
     {"driver_enabled": False, "toolkit_enabled": True}),
    ("the driver is baked into the AMI", {"driver_enabled": False}),
    ("the driver ships with our AMI so no need to deploy it", {"driver_enabled": False}),
    ("toolkit still managed by the operator", {"toolkit_enabled": True}),
    ("the operator should not install the driver", {"driver_enabled": False}),
])
def test_booleans_from_what_is_done_with_their_object(text, want):
    assert extract_params(_recipe(BOOLS), text).values == want


def test_a_pronoun_refers_to_the_nearest_object_named_before_it():
    ext = extract_params(_recipe(BOOLS), "the driver is ours; the toolkit, don't deploy it")
    assert ext.values == {"toolkit_enabled": False}


def test_a_negated_flag_phrase_gives_the_opposite_boolean():
    r = _recipe({"rename": {"type": "boolean", "default": False}}, {"rename": [{"flag": ["rename"]}]})
    assert extract_params(r, "time slicing, don't rename the resource").values == {"rename": False}
    assert extract_params(r, "time slicing, do not rename it").values == {"rename": False}
    assert extract_params(r, "time slicing and rename the resource").values == {"rename": True}


def test_a_negated_flag_of_another_type_selects_nothing():
    r = _recipe({"min_replicas": INT}, {"min_replicas": [{"flag": ["scale to zero"], "value": 0}]})
    assert extract_params(r, "don't scale to zero").values == {}


# ---------------------------------------------------------------- names with their kind noun
NAME = {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 60}
SC_TEMPLATES = [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": {"$param": "name"}}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": {"$format": "{name}-claim"}}},
]


def test_kind_phrases():
    from gpukb.recipes.extract import kind_phrases

    assert {"pvc", "claim", "persistent volume claim", "persistentvolumeclaim"} <= set(kind_phrases("PersistentVolumeClaim"))
    assert {"storageclass", "storage class", "sc"} <= set(kind_phrases("StorageClass"))
    assert "class" not in kind_phrases("StorageClass")
    assert {"nodepool", "node pool", "pool"} <= set(kind_phrases("NodePool"))


@pytest.mark.parametrize("text, want", [
    ("fsx storageclass ckpt-scratch, persistent", "ckpt-scratch"),
    ("a new storage class for fsx, call it lustre-fast", "lustre-fast"),
    ("fsx storage class, and a pvc named data-claim", "data"),  # the claim is <name>-claim
    ("fsx storage class named fast-one and a pvc", "fast-one"),
])
def test_a_name_binds_to_the_object_its_noun_names(text, want):
    r = _recipe({"name": NAME}, {"name": [{"name": True}]}, templates=SC_TEMPLATES)
    assert extract_params(r, text).values == {"name": want}


def test_a_name_given_to_an_object_formatted_differently_is_not_taken():
    r = _recipe({"name": NAME}, {"name": [{"name": True}]}, templates=SC_TEMPLATES)
    assert extract_params(r, "fsx storage class, and a pvc named scratch-data").values == {}


def test_a_plain_word_after_the_kind_noun_is_no_name():
    r = _recipe({"name": NAME}, {"name": [{"name": True}]},
                templates=[{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": {"$param": "name"}}}])
    assert extract_params(r, "a pod requesting two gpus").values == {}
    assert extract_params(r, "a pod dev-box with two gpus").values == {"name": "dev-box"}


def test_names_listed_after_named_fill_the_recipes_fixed_objects_in_order():
    props = {"high_name": NAME, "high_value": INT, "low_name": NAME, "low_value": INT,
             "classes": {"type": "array", "items": {"type": "object", "properties": {
                 "name": NAME, "value": INT}}}}
    rule = {"objects": [r"(?P<name>[a-z][a-z0-9-]*)\s+value\s+(?P<value>\d+)"], "min_items": 2,
            "slots": [{"name": "high_name", "value": "high_value"}, {"name": "low_name", "value": "low_value"}]}
    r = _recipe(props, {"classes": [rule]})
    assert extract_params(r, "a priorityclass pair named train-hi / train-lo").values == {
        "high_name": "train-hi", "low_name": "train-lo"}


def test_a_word_of_the_recipes_keywords_is_no_value():
    r = Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
               parameters={"type": "object", "properties": {"tenant": NAME}}, templates=[], examples=[],
               path=Path("fixture.yaml"), extract={"tenant": [{"after": ["tenant", "for"]}]},
               keywords=["tenant bundle"])
    assert extract_params(r, "tenant bundle for robotics-lab").values == {"tenant": "robotics-lab"}


# ---------------------------------------------------------------- enum values by paraphrase
def test_a_camelcase_enum_value_read_as_words():
    r = _recipe({"when_unsatisfiable": {"type": "string", "enum": ["DoNotSchedule", "ScheduleAnyway"]}},
                {"when_unsatisfiable": [{"enum": {"ScheduleAnyway": ["soft"]}}]})
    assert extract_params(r, "if it can't be satisfied just schedule anyway").values == {
        "when_unsatisfiable": "ScheduleAnyway"}


def test_a_plain_enum_word_only_beside_the_parameters_noun():
    r = _recipe({"capacity_types": {"type": "array", "items": {"type": "string", "enum": ["on-demand", "spot", "reserved"]}},
                 "gpus": INT},
                {"capacity_types": [{"enum": {"spot": ["spot"]}}]})
    assert extract_params(r, "a pool on reserved capacity").values == {"capacity_types": ["reserved"]}
    assert extract_params(r, "capacity type: reserved").values == {"capacity_types": ["reserved"]}
    assert "capacity_types" not in extract_params(r, "8 reserved gpus for the team").values


def test_an_enum_value_opening_a_compound_that_describes_the_parameter():
    r = _recipe({"topology_key": {"type": "string", "enum": ["kubernetes.io/hostname", "topology.kubernetes.io/zone"],
                                  "description": "Node label to spread over."}},
                {"topology_key": [{"enum": {"topology.kubernetes.io/zone": ["zone"], "kubernetes.io/hostname": ["node"]}}]})
    assert extract_params(r, "zone-spread training job").values == {"topology_key": "topology.kubernetes.io/zone"}
    assert extract_params(r, "zone-a training job").values == {}


@pytest.mark.parametrize("text, want", [
    ("nodepool on bottlerocket (latest)", "bottlerocket@latest"),
    ("al2023 latest please", "al2023@latest"),
    ("the bottlerocket v1.30.0 ami", "bottlerocket@v1.30.0"),
    ("just bottlerocket", "bottlerocket@v1.64.0"),
])
def test_a_value_joined_from_two_words(text, want):
    spec = {"type": "string", "pattern": "^(al2023@(v[0-9]{8}|latest)|bottlerocket@(v[0-9]+\\.[0-9]+\\.[0-9]+|latest))$"}
    r = _recipe({"ami_alias": spec, "node_role": {"type": "string", "pattern": "^[\\w+=,.@-]{1,64}$"}},
                {"ami_alias": [{"enum": {"bottlerocket@v1.64.0": ["bottlerocket"]}}], "node_role": [{"after": ["role"]}]})
    assert extract_params(r, text).values == {"ami_alias": want}


# ---------------------------------------------------------------- defaults yield to given values
QUEUE = {"gpus": {**INT, "default": 16}, "deserved_gpus": INT, "guarantee_gpus": INT}
QUEUE_RULES = [
    {"rule": {"$le": [{"$param": "deserved_gpus"}, {"$param": "gpus"}]}, "message": "deserved above capability"},
    {"rule": {"$le": [{"$param": "guarantee_gpus"}, {"$param": "deserved_gpus"}]}, "message": "guarantee above deserved"},
]


def test_a_default_yields_to_a_given_value_and_says_so():
    from gpukb.recipes.model import resolve_params

    notes: list[str] = []
    full = resolve_params(_recipe(QUEUE, **{"x-constraints": QUEUE_RULES}), {"deserved_gpus": 24}, notes)
    assert full["gpus"] == 24 and full["deserved_gpus"] == 24
    assert len(notes) == 1 and notes[0].startswith("gpus set to 24 (default 16)")


def test_two_given_values_that_conflict_stay_an_error():
    from gpukb.errors import ParameterError
    from gpukb.recipes.model import resolve_params

    with pytest.raises(ParameterError, match="deserved above capability"):
        resolve_params(_recipe(QUEUE, **{"x-constraints": QUEUE_RULES}), {"deserved_gpus": 24, "gpus": 8})


def test_a_capture_keys_a_mapping_value():
    spec = {"type": "object", "propertyNames": {"pattern": "^[1-7]g\\.[0-9]+gb$"},
            "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 7}}
    rule = {"regex": r"\ball-([1-7]g\.\d+gb)\b", "key_of": {"^1g": 7, "^3g": 2}, "shared": True}
    r = _recipe({"mig_devices": spec, "config_name": NAME | {"pattern": "^[a-z0-9][-a-z0-9.]*$"}},
                {"mig_devices": [rule], "config_name": [{"regex": r"\b(all-[1-7]g\.\d+gb)\b"}]})
    assert extract_params(r, "MIG all-3g.40gb please").values == {"mig_devices": {"3g.40gb": 2},
                                                                  "config_name": "all-3g.40gb"}


# ---------------------------------------------------------------- verbatim values and namespaces
def test_a_code_like_value_is_taken_whole():
    r = _recipe({"query": {"type": "string", "pattern": "^[^\\r\\n]+$"},
                 "metric": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_:]*$"}},
                {"metric": [{"regex": r"\b(vllm:[a-z0-9_]+)\b"}]})
    ext = extract_params(r, "custom query sum(rate(vllm:request_success_total[2m])) and threshold 20")
    assert ext.values == {"query": "sum(rate(vllm:request_success_total[2m]))"}


def test_a_quoted_value_with_spaces_goes_whole_to_the_parameter_named_before_it():
    r = _recipe({"command": {"type": "array", "items": {"type": "string"}},
                 "query": {"type": "string", "pattern": "^[^\\r\\n]+$"}})
    assert extract_params(r, "a pod running `sleep infinity`").values == {"command": ["sleep", "infinity"]}
    assert extract_params(r, 'query `sum(up{job="x"})` please').values == {"query": 'sum(up{job="x"})'}


def test_both_parts_of_a_two_part_name_around_its_value():
    r = _recipe({"default_cpu": {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?m?$"},
                 "default_memory": {"type": "string", "pattern": "^[0-9]+(Mi|Gi)$"},
                 "memory": {"type": "string", "pattern": "^[0-9]+(Mi|Gi|Ti)$"}},
                {"memory": [{"size": "quantity", "near": ["memory"]}]})
    ext = extract_params(r, "default container cpu 250m, default memory 512Mi and 64Gi memory in total")
    assert ext.values == {"default_cpu": "250m", "default_memory": "512Mi", "memory": "64Gi"}


@pytest.mark.parametrize("text, ns", [
    ("hpa for the llama deployment in inference-prod", "inference-prod"),
    ("autoscale the vllm-qwen deployment in serving on gpu util", "serving"),
    ("everything in ml-team please", "ml-team"),
])
def test_a_namespace_after_in(text, ns):
    r = _recipe({"namespace": NAME, "deployment": NAME})
    assert extract_params(r, text).values.get("namespace") == ns


@pytest.mark.parametrize("text", ["run 4 shards in parallel", "fsx in us-west-2", "pods in the cluster"])
def test_in_before_other_words_is_no_namespace(text):
    r = _recipe({"namespace": NAME})
    assert extract_params(r, text).values == {}


# ---------------------------------------------------------------- recipe choice
def _kw(rid: str, keywords: list[str]) -> Recipe:
    return Recipe(id=rid, title=rid, area="test", description="", docs=[],
                  parameters={"type": "object", "properties": {}}, templates=[], examples=[],
                  path=Path(f"{rid}.yaml"), keywords=keywords)


def test_a_keyword_that_qualifies_another_recipes_noun_is_a_detail():
    from gpukb.recipes.match import match_recipes

    recipes = [_kw("sharing", ["time slicing", "notebooks"]), _kw("pod", ["gpu pod", "pod with gpu", "test pod"])]
    assert match_recipes("a jupyter notebook pod with one A100", recipes, k=1)[0][0].id == "pod"
    assert match_recipes("time slicing so 4 notebooks share a gpu", recipes, k=1)[0][0].id == "sharing"


def test_an_image_reference_names_no_recipe():
    from gpukb.recipes.match import match_recipes

    recipes = [_kw("train", ["pytorch", "pytorchjob"]), _kw("pod", ["dev pod"])]
    assert match_recipes("dev pod, image jupyter/pytorch-notebook:latest", recipes, k=1)[0][0].id == "pod"


def test_a_parameter_naming_a_referenced_kind_takes_the_name_after_its_noun():
    r = _recipe({"mig_config": {**NAME, "description": "Name of a custom mig-parted ConfigMap for MIG Manager."}})
    assert extract_params(r, "clusterpolicy whose MIG manager uses the configmap team-mig-layouts").values == {
        "mig_config": "team-mig-layouts"}


def test_a_noun_two_parameters_objects_share_names_neither():
    from gpukb.recipes.extract import named_kinds

    r = _recipe({"name": NAME, "local_queue": NAME}, templates=[
        {"kind": "ClusterQueue", "metadata": {"name": {"$param": "name"}}},
        {"kind": "LocalQueue", "metadata": {"name": {"$param": "local_queue"}}}])
    kinds = named_kinds(r)["direct"]
    assert "queue" not in kinds["name"] and "queue" not in kinds["local_queue"]
    assert "localqueue" in kinds["local_queue"]


def test_of_two_recipes_matching_about_equally_the_one_understanding_more_wins():
    from gpukb.recipes.generation import generate

    def rec(rid: str, props: dict[str, Any]) -> Recipe:
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"k": "v"}}
        return Recipe(id=rid, title="shared thing", area="test", description="", docs=[],
                      parameters={"type": "object", "properties": props}, templates=[cm], examples=[],
                      path=Path(f"{rid}.yaml"), keywords=["shared thing"])

    plain = rec("aaa-plain", {})
    knows = rec("bbb-knows", {"widget_color": {"type": "string", "enum": ["turquoise", "magenta"]}})
    g = generate("shared thing, widget color turquoise", [plain, knows], llm=False)
    assert g.recipe == "bbb-knows" and g.params["widget_color"] == "turquoise"


@pytest.mark.parametrize("text, want", [
    ("leave the driver alone, it's preinstalled", {"driver_enabled": False}),
    ("the toolkit is ours and it's already installed", {"toolkit_enabled": False}),
    ("please don't touch the driver", {"driver_enabled": False}),
])
def test_a_state_or_verb_on_a_pronoun_or_leave_alone(text, want):
    assert extract_params(_recipe(BOOLS), text).values == want


# ---------------------------------------------------------------- lists, two-part names, none
GROUPS = {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z0-9.*^$_\\\\()|+?\\[\\]-]+$"}}


def test_a_list_of_regexes_before_a_closing_cue_and_after_one():
    r = _recipe({"preferred": GROUPS, "fallback": GROUPS, "namespace": NAME},
                {"preferred": [{"list": ["prefer", "first"]}], "fallback": [{"list": ["fall back to", "then"]}]})
    ext = extract_params(r, "node groups matching .*a10g-spot.* and .*l4-spot.* first, "
                            "fall back to .*a10g-ondemand.*, CA runs in namespace kube-system")
    assert ext.values == {"preferred": [".*a10g-spot.*", ".*l4-spot.*"], "fallback": [".*a10g-ondemand.*"],
                          "namespace": "kube-system"}


def test_both_name_parts_before_a_value_beat_one_part():
    r = _recipe({"namespace": NAME, "scheduler_namespace": NAME})
    assert extract_params(r, "scheduler config in namespace kube-system").values == {"scheduler_namespace": "kube-system"}


def test_none_of_a_counted_thing_before_a_bracket():
    r = _recipe({"gpus": INT}, {"gpus": [{"count": ["gpus"]}]})
    assert extract_params(r, "5 pods, no GPUs (CPU preprocessing)").values == {"gpus": 0}


def test_another_parameters_name_phrase_is_not_this_name():
    r = _recipe({"name": NAME, "mount_name": {"type": "string", "pattern": "^[a-z0-9]{8}$"}},
                {"name": [{"name": True}], "mount_name": [{"after": ["mount name"]}]})
    assert extract_params(r, "call it shared-ckpt, mount name abcd1234").values == {
        "name": "shared-ckpt", "mount_name": "abcd1234"}


def test_what_is_not_wanted_names_no_recipe_and_turns_its_boolean_off():
    from gpukb.recipes.match import match_recipes

    recipes = [_kw("policy", ["clusterpolicy"]), _kw("monitor", ["dcgm exporter", "dcgm"])]
    assert match_recipes("we don't want the dcgm exporter in the clusterpolicy", recipes, k=1)[0][0].id == "policy"
    r = _recipe({"dcgm_exporter": {"type": "boolean", "default": True, "description": "Run the DCGM exporter."}})
    assert extract_params(r, "we don't want the dcgm exporter").values == {"dcgm_exporter": False}


def test_twice_counts_two_times():
    r = _recipe({"backoff_limit_per_index": INT}, {"backoff_limit_per_index": [{"count": ["retries", "retry"]}]})
    assert extract_params(r, "each chunk retried twice at most").values == {"backoff_limit_per_index": 2}
    assert digits_view("stop once 20 fail") == "stop once 20 fail"


# ------------------------------------------------- naming phrases with a copula
NAME = {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63}


def test_a_naming_word_is_never_a_value():
    r = _recipe({"release": {**NAME, "default": "kube-prometheus-stack"}},
                {"release": [{"regex": r"\brelease\s+(?:is\s+)?([a-z0-9-]+)"}]})
    assert "release" not in extract_params(r, "the release is called").values


def test_a_cue_called_also_reads_is_called():
    r = _recipe({"name": NAME, "scheduler_name": NAME},
                {"scheduler_name": [{"after": ["scheduler called"]}]})
    assert extract_params(r, "our extra scheduler is called sched-two").values == {"scheduler_name": "sched-two"}


def test_where_an_object_runs_is_its_namespace():
    r = _recipe({"namespace": NAME, "scheduler_namespace": NAME})
    assert extract_params(r, "the second scheduler lives in kube-system").values == {
        "scheduler_namespace": "kube-system"}


def test_a_recipes_own_rules_keep_the_shared_ones_after_them():
    r = _recipe({"namespace": NAME}, {"namespace": [{"after": ["namespace"]}]})
    assert extract_params(r, "the operator sits in the gpu-ops namespace").values == {"namespace": "gpu-ops"}


# ------------------------------------------ a number after the object it belongs to
def test_a_number_at_after_the_object_of_a_two_part_integer():
    r = _recipe({"gpus": INT, "priority_value": {**INT, "default": 1000}})
    assert extract_params(r, "a priority class at 7000 for the team").values == {"priority_value": 7000}


def test_a_name_part_by_its_short_form():
    r = _recipe({"production_value": {**INT, "default": 10}, "research_value": {**INT, "default": 1}})
    assert extract_params(r, "prod at 900 and research at 9").values == {"production_value": 900,
                                                                      "research_value": 9}


def test_a_number_before_another_parameters_unit_is_not_counted_after_this_one():
    r = _recipe({"nodes": INT, "cpu": INT}, {"nodes": [{"count": ["nodes", "pods", "pod"]}]})
    assert extract_params(r, "2 nodes, give each pod 48 cpus").values == {"nodes": 2, "cpu": 48}


# ------------------------------------------------------ values written out whole
def test_an_enum_mapping_value_written_in_full():
    r = _recipe({"gpu_product": {"type": "string", "pattern": "^[A-Za-z0-9][-A-Za-z0-9_.]*$"}},
                {"gpu_product": [{"enum": {"NVIDIA-L4": ["l4"], "NVIDIA-L40S": ["l40s"]}}]})
    assert extract_params(r, "only on NVIDIA-L40S nodes").values == {"gpu_product": "NVIDIA-L40S"}


def test_a_product_label_the_table_does_not_list():
    r = _recipe({"gpu_product": {"type": "string", "pattern": "^[A-Za-z0-9][-A-Za-z0-9_.]*$"}})
    assert extract_params(r, "pin it to NVIDIA-A100-PCIE-40GB").values == {"gpu_product": "NVIDIA-A100-PCIE-40GB"}
    assert extract_params(r, "with the nvidia-device-plugin").values == {}


def test_an_unquoted_command_takes_its_arguments():
    r = _recipe({"command": {"type": "array", "items": {"type": "string"}}})
    assert extract_params(r, "command is python /app/run.py --steps 10. thanks").values == {
        "command": ["python", "/app/run.py", "--steps", "10"]}


def test_a_quoted_value_after_another_parameters_noun_is_not_the_name():
    r = _recipe({"name": NAME, "queue": NAME})
    assert extract_params(r, "put it in the queue 'vision'").values == {"queue": "vision"}


def test_a_percentage_goes_to_the_parameter_measured_in_per_cent():
    r = _recipe({"replicas": INT, "target_value": {"type": "string", "pattern": "^[0-9]+$",
                                                   "description": "Target (70 = 70 % utilization)."}})
    assert extract_params(r, "keep it near 55% busy").values == {"target_value": "55"}


def test_a_word_in_brackets_of_its_own_is_not_inside_code():
    r = _recipe({"deployment": NAME}, {"deployment": [{"regex": r"\bdeployment\s+\(?([a-z0-9-]+)"}]})
    assert extract_params(r, "scale the deployment (chat-api) on load").values == {"deployment": "chat-api"}


def test_a_tool_after_through_or_via_is_a_detail():
    from gpukb.recipes.match import match_recipes
    assert match_recipes("an MPIJob on 2 hosts, gang scheduled via the volcano queue hpc")[0][0].id == "mpijob"


# ------------------------------------------ description words by stem and synonym
def test_a_duration_by_the_descriptions_verb_in_other_words():
    r = _recipe({"ttl_seconds": {"type": "integer", "minimum": 0, "default": 86400,
                                 "description": "Delete the finished job after this many seconds."},
                 "timeout_seconds": {"type": "integer", "minimum": 0, "default": 60,
                                     "description": "How long to wait for the pods."}})
    assert extract_params(r, "clean it up 2 hours after it finishes").values == {"ttl_seconds": 7200}


def test_name_between_the_noun_and_the_value():
    r = _recipe({"name": NAME, "local_queue": NAME}, {"local_queue": [{"after": ["local queue"]}]})
    assert extract_params(r, "local queue name lq-1").values == {"local_queue": "lq-1"}


def test_a_description_opening_with_a_kind_names_that_kind():
    r = _recipe({"name": NAME, "queue": {**NAME, "description": "Kueue LocalQueue the pods are labelled with."}},
                templates=[{"kind": "Deployment", "metadata": {"name": {"$param": "name"}}}])
    assert extract_params(r, "send it to localqueue team-lq").values == {"queue": "team-lq"}


# ----------------------------------------------------------- names given verbatim
def test_x_as_the_name():
    r = _recipe({"name": NAME}, templates=[{"kind": "Deployment", "metadata": {"name": {"$param": "name"}}}])
    assert extract_params(r, "a deployment, use chat-v2 as the name").values == {"name": "chat-v2"}


def test_a_hugging_face_model_id_without_a_tag():
    r = _recipe({"model": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._/:-]*$"},
                 "image": {"type": "string", "pattern": "^[a-zA-Z0-9][a-zA-Z0-9._/:@-]*$"}})
    assert extract_params(r, "serve Qwen/Qwen2.5-7B-Instruct").values == {"model": "Qwen/Qwen2.5-7B-Instruct"}
    assert "model" not in extract_params(r, "image nvcr.io/nvidia/tritonserver:24.05-py3").values


def test_an_objects_name_given_a_value_is_not_singularised():
    items = {"type": "object", "properties": {"name": NAME, "value": INT}}
    r = _recipe({"classes": {"type": "array", "items": items}},
                {"classes": [{"objects": [r"(?P<name>[a-z][a-z0-9-]*)\s*(?P<_at>=)\s*(?P<value>\d+)"],
                              "min_items": 2}]})
    assert extract_params(r, "workers=10, notebooks=5").values == {
        "classes": [{"name": "workers", "value": 10}, {"name": "notebooks", "value": 5}]}


# ------------------------------------- permitting what a boolean's description rejects
def test_letting_the_rejected_action_happen_turns_the_guard_off():
    r = _recipe({"replicas": INT, "fail_big": {"type": "boolean", "default": True,
                                               "description": "Reject pods that ask for more than one GPU."}})
    assert extract_params(r, "and allow pods to ask for more than one").values == {"fail_big": False}
    assert extract_params(r, "never let pods ask for more than one").values == {"fail_big": True}


def test_a_rate_after_a_count_is_not_the_count():
    r = _recipe({"workers": INT}, {"workers": [{"count": ["pods", "nodes", "node"]}]})
    assert extract_params(r, "spread 6 training pods one per node").values == {"workers": 6}


# ----------------------------------------------- regular expressions and code values
REGEXES = {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z0-9.*^$_-]+$"}}


def test_regex_items_in_the_clause_beat_a_plain_word_before_the_cue():
    r = _recipe({"preferred": REGEXES}, {"preferred": [{"list": ["first"]}]})
    assert extract_params(r, "groups matching (regex .*g5.*) are used first; then others").values == {
        "preferred": [".*g5.*"]}


def test_nothing_else_leaves_the_others_out():
    r = _recipe({"other_groups": {"type": "boolean", "default": True, "description": "Add a catch-all."}})
    assert extract_params(r, "the spot ones, then on-demand, nothing else").values == {"other_groups": False}


def test_a_duration_inside_code_is_not_a_duration():
    r = _recipe({"query": {"type": "string", "pattern": "^[^\\n]+$"},
                 "cooldown_seconds": {"type": "integer", "minimum": 0, "default": 300}})
    assert extract_params(r, "query sum(rate(x_total[5m])), cooldown default").values == {
        "query": "sum(rate(x_total[5m]))"}


# ---------------------------------------------- shared modifiers and per-unit bounds
def test_a_first_name_part_reaches_over_a_list_of_values():
    SIZE = {"type": "string", "pattern": "^[0-9]+(m|Mi|Gi)?$"}
    r = _recipe({"default_cpu": SIZE, "default_memory": SIZE, "memory": SIZE})
    assert extract_params(r, "containers default to 250m cpu and 512Mi memory").values == {
        "default_cpu": "250m", "default_memory": "512Mi"}


def test_single_before_a_plural_is_no_count_and_bounds_each_unit():
    r = _recipe({"gpus": INT, "max_pods": INT, "max_gpus_per_pod": INT},
                {"max_pods": [{"count": ["pods"]}], "gpus": [{"count": ["gpus"]}]})
    assert extract_params(r, "8 gpus in total, individual pods up to 2 gpus").values == {
        "gpus": 8, "max_gpus_per_pod": 2}
    assert "max_pods" not in extract_params(r, "let single pods use up to 4 gpus").values


def test_a_gpu_word_between_a_keyword_and_its_noun_does_not_make_it_a_qualifier():
    from gpukb.recipes.match import match_recipes
    assert match_recipes("a sharded gpu job over 500 chunks, add a toleration and node affinity")[0][0].id == "indexed-job"


def test_a_keyword_with_with_reads_having_verbs_and_gpu_cards():
    from gpukb.recipes.match import match_recipes
    assert match_recipes("could I get a pod spec that uses 2 A10G cards")[0][0].id == "gpu-pod"


def test_a_gpu_models_memory_size_is_no_mig_profile():
    from gpukb.recipes.match import mask_values
    assert mask_values("two A100 80GB cards") == "two A100      cards"


@pytest.mark.parametrize("text, tenant", [
    ("onboarding bundle for the search team, 4 gpus", "search"),
    ("need an onboarding bundle for ads-ranking with 8 gpus", "ads-ranking"),
])
def test_a_word_of_the_recipes_keywords_after_its_keyword_is_no_name(text, tenant):
    from gpukb.recipes import find_recipe, load_recipes
    from gpukb.recipes.extract import extract_params
    r = find_recipe("tenant-onboarding", load_recipes())
    assert extract_params(r, text).values.get("tenant") == tenant


# ---------------------------------------------------------------- dozens, cue verbs, name relations
@pytest.mark.parametrize("text,want", [
    ("a cap of two dozen GPUs for the team", 24),
    ("half a dozen GPUs", 6),
    ("give them three dozen gpus", 36),
    ("a dozen gpus", 12),
])
def test_dozens_scale_the_number_before_them(text, want):
    r = _recipe({"gpus": INT}, {"gpus": [{"count": ["gpus", "gpu"]}]})
    assert extract_params(r, text).values == {"gpus": want}


NAME = {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"}


@pytest.mark.parametrize("text", [
    "tolerate taint spot-pool please",
    "pods should be tolerating taint spot-pool",
    "needs a toleration for the spot-pool taint",
])
def test_a_cue_verb_before_the_noun_is_not_the_value(text):
    r = _recipe({"toleration": NAME}, {"toleration": [{"before": ["taint"]},
                                                     {"after": ["tolerate", "tolerating", "taint", "toleration for"]}]})
    assert extract_params(r, text).values == {"toleration": "spot-pool"}


@pytest.mark.parametrize("text", [
    "the device name contains h100, pod name probe-x",
    "a gpu whose name matches a100; call it probe-x",
    "product name starts with nvidia, name probe-x",
])
def test_a_relation_after_name_is_a_condition_not_a_name(text):
    r = _recipe({"name": NAME}, {"name": [{"name": True}]})
    assert extract_params(r, text).values == {"name": "probe-x"}


@pytest.mark.parametrize("text,want", [
    ("the heavy one should be called big-pool", {"heavy_name": "big-pool"}),
    ("heavy class will be named big-pool with size 40", {"heavy_name": "big-pool", "heavy_size": 40}),
    ("light pool called small-pool, size 3; the heavy one is called big-pool", {"light_name": "small-pool", "light_size": 3,
                                                                               "heavy_name": "big-pool"}),
    ("the light one is named small-pool at size 2", {"light_name": "small-pool", "light_size": 2}),
])
def test_a_qualified_name_is_named_by_its_qualifier_and_carries_its_siblings(text, want):
    r = _recipe({"heavy_name": NAME, "heavy_size": INT, "light_name": NAME, "light_size": INT})
    got = extract_params(r, text).values
    assert {k: got.get(k) for k in want} == want, got


@pytest.mark.parametrize("text", ["the low one is called lab", "the other one, with 4 gpus", "this one should run"])
def test_one_standing_for_a_noun_is_no_count(text):
    assert " one " in digits_view(text) or digits_view(text).find("one") >= 0


@pytest.mark.parametrize("text", [
    "try .*a-spot.* and .*b-spot.* first",
    "prefer .*a-spot.*, .*b-spot.* over everything",
    "favour grp-a and grp-b first, nothing else",
])
def test_a_list_closed_by_its_own_cue_keeps_its_last_item(text):
    r = _recipe({"groups": {"type": "array", "items": {"type": "string", "pattern": r"^[\w.*-]+$"}}},
                {"groups": [{"list": ["try", "prefer", "favour", "first"]}]})
    got = extract_params(r, text).values["groups"]
    assert len(got) == 2 and got[0] in (".*a-spot.*", "grp-a"), got


QTY = {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)?m?$", "description": "Target average value per pod."}


@pytest.mark.parametrize("text,want", [
    ("scale it when pods are averaging 500m each", "500m"),
    ("the per-pod average should sit near 2.5", "2.5"),
    ("target 40 on average, max 6 replicas", "40"),
])
def test_a_number_kept_as_a_string_is_read_near_its_description_words(text, want):
    r = _recipe({"target_value": QTY, "max_replicas": INT},
                {"max_replicas": [{"count": ["replicas"]}]})
    assert extract_params(r, text).values.get("target_value") == want


@pytest.mark.parametrize("text,want", [
    ("exporter w/o the dashboards", False),
    ("w/ dashboards please", True),
])
def test_shorthand_with_and_without(text, want):
    r = _recipe({"dashboards": {"type": "boolean"}})
    assert extract_params(r, text).values == {"dashboards": want}


@pytest.mark.parametrize("text", [
    "10 pods, but at least 7 of them must be scheduled together",
    "run 10 pods; it may start as soon as 7 can be scheduled",
    "10 pods and no fewer than 7 placed together",
])
def test_a_lower_bound_in_the_words_of_a_min_parameter(text):
    r = _recipe({"pods": INT, "min_pods": {**INT, "description": "Pods that must be schedulable together."}},
                {"pods": [{"count": ["pods"]}]})
    assert extract_params(r, text).values == {"pods": 10, "min_pods": 7}


@pytest.mark.parametrize("text", [
    "agent and the network plugin are already there",
    "agent and plugin both come preinstalled",
    "the agent, plugin are baked into the image",
])
def test_a_state_shared_by_listed_objects_with_modifiers_and_quantifiers(text):
    pre = "(false when the {} is pre-installed)"
    r = _recipe({"agent_enabled": {"type": "boolean", "default": True, "description": "Install it " + pre.format("agent")},
                 "plugin_enabled": {"type": "boolean", "default": True, "description": "Install it " + pre.format("plugin")}})
    assert extract_params(r, text).values == {"agent_enabled": False, "plugin_enabled": False}


@pytest.mark.parametrize("text,want", [
    ("don't rebuild the whole cache when a file changes", "Keep"),
    ("never rebuild the entire cache", "Keep"),
    ("please rebuild the cache on change", "Rebuild"),
    ("do not keep the old files around", "Rebuild"),
])
def test_ruling_out_one_of_two_actions_chooses_the_other(text, want):
    r = _recipe({"policy": {"type": "string", "enum": ["Rebuild", "Keep"]}},
                {"policy": [{"enum": {"Rebuild": ["rebuild the cache"], "Keep": ["keep the old files"]}}]})
    assert extract_params(r, text).values == {"policy": want}


CMD = {"type": "array", "items": {"type": "string"}, "minItems": 1}


@pytest.mark.parametrize("text,want", [
    ("the command is: python /srv/eval.py", ["python", "/srv/eval.py"]),
    ("a job that runs python eval.py --fast", ["python", "eval.py", "--fast"]),
    ("it executes ./bench.sh -n 4", ["./bench.sh", "-n", "4"]),
    ("runs the stress test (gpu_burn -d 60) on each node", ["gpu_burn", "-d", "60"]),
    ("command: /opt/run.sh", ["/opt/run.sh"]),
])
def test_an_unquoted_command_after_its_noun_or_a_verb(text, want):
    r = _recipe({"command": CMD, "nodes": INT}, {"nodes": [{"count": ["nodes", "node"]}]})
    assert extract_params(r, text).values.get("command") == want


@pytest.mark.parametrize("text", ["a job that runs on 4 nodes", "it runs fast", "runs nightly"])
def test_a_verb_without_a_command_like_word_gives_no_command(text):
    r = _recipe({"command": CMD, "nodes": INT}, {"nodes": [{"count": ["nodes", "node"]}]})
    assert "command" not in extract_params(r, text).values


@pytest.mark.parametrize("text,want", [
    ("8 gpus, 64 cores, 512Gi", "512Gi"),
    ("cap: 2Ti and 16 gpus", "2Ti"),
])
def test_the_only_size_parameter_takes_a_bare_size(text, want):
    r = _recipe({"gpus": INT, "cpu": INT, "memory": {"type": "string", "pattern": r"^[0-9]+(Mi|Gi|Ti)$"}},
                {"gpus": [{"count": ["gpus"]}], "cpu": [{"count": ["cores"]}],
                 "memory": [{"size": "quantity", "near": ["memory", "ram"]}]})
    assert extract_params(r, text).values.get("memory") == want


def test_a_bare_size_stays_unassigned_when_two_parameters_take_sizes():
    r = _recipe({"memory": {"type": "string", "pattern": r"^[0-9]+Gi$"}, "shm": {"type": "string", "pattern": r"^[0-9]+Gi$"}},
                {"memory": [{"size": "quantity", "near": ["memory", "ram"]}],
                 "shm": [{"size": "quantity", "near": ["shm"]}]})
    assert "memory" not in extract_params(r, "pod with 64Gi").values


@pytest.mark.parametrize("text", [
    "put it on the fast-ssd class",
    "20Ti on our fast-ssd storage class",
    "use the 'fast-ssd' class please",
])
def test_a_name_like_word_before_its_cue_noun(text):
    r = _recipe({"storage_class": NAME}, {"storage_class": [{"after": ["storageclass", "storage class", "class"]}]})
    assert extract_params(r, text).values == {"storage_class": "fast-ssd"}


def test_a_plain_word_before_the_cue_noun_is_no_name():
    r = _recipe({"storage_class": NAME}, {"storage_class": [{"after": ["storageclass", "storage class", "class"]}]})
    assert extract_params(r, "a volume of the default class").values == {}


@pytest.mark.parametrize("text,want", [
    ("Grace wait 90 seconds, timeout 10 minutes", {"grace_wait_seconds": 90, "timeout_seconds": 600}),
    ("grace waits 90s", {"grace_wait_seconds": 90}),
    ("it waits 5 minutes before timing out", {"timeout_seconds": 300}),
])
def test_a_cue_word_form_shared_by_two_durations_does_not_decide(text, want):
    r = _recipe({"timeout_seconds": {**INT, "description": "How long it waits."},
                 "grace_wait_seconds": {**INT, "description": "Grace period to wait."}},
                {"timeout_seconds": [{"duration": True, "near": ["timeout", "waits", "timing out"]}]})
    got = extract_params(r, text).values
    assert {k: got.get(k) for k in want} == want, got


@pytest.mark.parametrize("text", ["min 2 / max 8 workers", "minimum 2, maximum 8 workers", "min=2 max=8 workers",
                                  "2 to 8 workers"])
def test_a_min_max_pair_written_with_both_words(text):
    r = _recipe({"min_workers": INT, "max_workers": INT})
    assert extract_params(r, text).values == {"min_workers": 2, "max_workers": 8}


DUR = {"type": "string", "pattern": r"^(([0-9]+(s|m|h))+|Never)$", "description": "Node lifetime before it is replaced."}


@pytest.mark.parametrize("text,want", [
    ("let nodes live 168h before they get replaced", "168h"),
    ("node lifetime: 48h", "48h"),
    ("replace them after 30m", "30m"),
])
def test_a_duration_kept_as_a_string_is_read_near_its_description_words(text, want):
    r = _recipe({"expire_after": DUR})
    assert extract_params(r, text).values == {"expire_after": want}


@pytest.mark.parametrize("text", ["8 trainers with 4 gpus each", "eight learners, 4 gpus each"])
def test_trainers_and_learners_count_as_workers(text):
    r = _recipe({"workers": INT, "gpus": INT}, {"workers": [{"count": ["workers", "worker"]}],
                                                "gpus": [{"count": ["gpus each", "gpus"]}]})
    assert extract_params(r, text).values == {"workers": 8, "gpus": 4}


@pytest.mark.parametrize("text,want", [
    ("200 csv files; each chunk may retry 3 times", {"chunks": 200, "retries": 3}),
    ("retry each chunk 3 times over 200 chunks", {"chunks": 200, "retries": 3}),
    ("200 chunks, a chunk can be attempted 3 times", {"chunks": 200}),
])
def test_times_counts_the_action_not_the_thing_before_it(text, want):
    r = _recipe({"chunks": INT, "retries": INT}, {"chunks": [{"count": ["chunks", "chunk", "files"]}],
                                                  "retries": [{"count": ["retries", "retry"]}]})
    got = extract_params(r, text).values
    assert {k: got.get(k) for k in want} == want, got


@pytest.mark.parametrize("text", ["job tolerating the 'spot' taint", "tolerate the \"spot\" taint, name it etl-a"])
def test_a_quoted_word_before_another_parameters_noun_is_no_name(text):
    r = _recipe({"name": NAME, "toleration": NAME},
                {"name": [{"name": True}], "toleration": [{"after": ["tolerate", "tolerating", "taint"]}]})
    assert extract_params(r, text).values.get("toleration") == "spot"
    assert extract_params(r, text).values.get("name") in (None, "etl-a")


LKEY = {"type": "string", "pattern": r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"}
LVAL = {"type": "string", "pattern": r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"}


@pytest.mark.parametrize("text", [
    "select the pods by label app.kubernetes.io/name=trainer",
    "pod label app.kubernetes.io/name: trainer, name job-a",
])
def test_a_key_value_pair_fills_key_and_value_siblings(text):
    r = _recipe({"pod_label_key": LKEY, "pod_label_value": LVAL, "name": NAME}, {"name": [{"name": True}]})
    got = extract_params(r, text).values
    assert got["pod_label_key"] == "app.kubernetes.io/name" and got["pod_label_value"] == "trainer"
    assert got.get("name") in (None, "job-a")


@pytest.mark.parametrize("text", ["port name http-api, app name web", "the queue name is batch-q; name web"])
def test_another_parameters_noun_before_name_keeps_the_name_its(text):
    r = _recipe({"name": NAME, "port": NAME, "queue": NAME})
    got = extract_params(r, text).values
    assert got.get("name") in (None, "web") and set(got.values()) & {"http-api", "batch-q"}


@pytest.mark.parametrize("text", ["template mig-2g-claim", "pool gpu-4t-burst please", "claim a100-80g-data"])
def test_a_size_inside_a_hyphenated_name_is_no_size(text):
    r = _recipe({"memory": {"type": "string", "pattern": r"^[0-9]+(Mi|Gi|Ti)$"}},
                {"memory": [{"size": "quantity", "near": ["memory", "ram", "claim", "pool", "template"]}]})
    assert extract_params(r, text).values == {}
