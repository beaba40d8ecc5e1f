"""Several objects in one request fill a list-of-objects parameter; $sum and $coalesce."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpukb.errors import ParameterError, RecipeError
from gpukb.recipes import find_recipe, generate, load_recipes, render_recipe
from gpukb.recipes.extract import extract_params
from gpukb.recipes.template import evaluate

ROOT = Path(__file__).resolve().parents[1]
RECIPES = load_recipes(ROOT / "recipes")
VOLCANO = find_recipe("volcano-job", RECIPES)


def test_sum_and_coalesce_directives():
    scope = {"xs": [{"n": 2}, {"n": 3}], "a": None, "b": 7}
    assert evaluate({"$sum": {"$for": {"$param": "xs"}, "as": "x", "do": {"$param": "x.n"}}}, scope) == 5
    assert evaluate({"$sum": {"$param": "missing"}}, scope) == 0
    assert evaluate({"$coalesce": [{"$param": "a"}, {"$param": "b"}]}, scope) == 7
    assert evaluate({"$coalesce": [0, {"$param": "b"}]}, scope) == 0  # zero is a value, not an absence
    with pytest.raises(RecipeError):
        evaluate({"$sum": "text"}, scope)


@pytest.mark.parametrize("text, tasks", [
    ("volcano job with 1 launcher pod (no gpu) and 4 workers, 8 gpus on each worker",
     [{"name": "launcher", "replicas": 1, "gpus": 0}, {"name": "worker", "replicas": 4, "gpus": 8}]),
    ("vcjob: master task x1 with 1 gpu, worker task x3 with 2 gpus",
     [{"name": "master", "replicas": 1, "gpus": 1}, {"name": "worker", "replicas": 3, "gpus": 2}]),
    ("volcano: 2 ps pods with no gpu, 6 trainer pods 4 gpus each",
     [{"name": "ps", "replicas": 2, "gpus": 0}, {"name": "trainer", "replicas": 6, "gpus": 4}]),
    # rows of a name and its pods, after a colon or an equals sign, or as "name xN"
    ("vcjob:\n  driver: 1 replica, no GPU\n  trainer: 6 replicas, 4 GPUs each",
     [{"name": "driver", "replicas": 1, "gpus": 0}, {"name": "trainer", "replicas": 6, "gpus": 4}]),
    ("volcano job, tasks \"coord\" = 1 pod with 0 GPUs and \"sim\" = 5 pods x 2 GPUs",
     [{"name": "coord", "replicas": 1, "gpus": 0}, {"name": "sim", "replicas": 5, "gpus": 2}]),
    ("volcano job roles: chief x1 (2 gpu), evaluator x2 (1 gpu)",
     [{"name": "chief", "replicas": 1, "gpus": 2}, {"name": "evaluator", "replicas": 2, "gpus": 1}]),
    ("volcano job: chief 1 pod 0 gpu, learner 8 pods 8 gpu",
     [{"name": "chief", "replicas": 1, "gpus": 0}, {"name": "learner", "replicas": 8, "gpus": 8}]),
    # a task named by "task", "role" or "component", its pods read from its own words (one when unsaid)
    ("I need a volcano job with a task called reducer that has three pods and no GPUs, and a task called mapper "
     "with ten pods that use one GPU each",
     [{"name": "reducer", "replicas": 3, "gpus": 0}, {"name": "mapper", "replicas": 10, "gpus": 1}]),
    ("volcano job: a driver task with a single GPU and five worker pods with two GPUs each",
     [{"name": "driver", "replicas": 1, "gpus": 1}, {"name": "worker", "replicas": 5, "gpus": 2}]),
    ("volcano job, two roles: a scheduler that is only one pod and uses no GPU, and 3 worker pods with 4 GPUs each",
     [{"name": "scheduler", "replicas": 1, "gpus": 0}, {"name": "worker", "replicas": 3, "gpus": 4}]),
])
def test_named_tasks_each_with_replicas_and_gpus(text, tasks):
    ext = extract_params(VOLCANO, text)
    assert [dict(sorted(t.items())) for t in ext.values["tasks"]] == [dict(sorted(t.items())) for t in tasks]


@pytest.mark.parametrize("text", [
    "volcano job, 4 workers x 8 GPUs, queue research",
    "volcano job with 2 workers, retry it at most 2 times",
    "volcano job with six workers, start once at least four can run",
])
def test_one_group_of_pods_is_not_a_task_list(text):
    assert "tasks" not in extract_params(VOLCANO, text).values


def test_tasks_render_min_available_as_all_pods_and_keep_per_task_gpus():
    g = generate("volcano job with 1 launcher pod (no gpu) and 4 workers, 8 gpus on each worker, pytorch plugin",
                 RECIPES, llm=False)
    job = yaml.safe_load(g.yaml)
    assert g.valid and job["spec"]["minAvailable"] == 5
    assert [t["name"] for t in job["spec"]["tasks"]] == ["launcher", "worker"]
    assert [t["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
            for t in job["spec"]["tasks"]] == [0, 8]
    assert "pytorch" in job["spec"]["plugins"]


def test_min_available_above_the_tasks_pods_is_refused():
    with pytest.raises(ParameterError) as ei:
        render_recipe(VOLCANO, {"tasks": [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 2}],
                                "min_available": 4})
    assert ei.value.involved[:2] == ["min_available", "tasks"]
    assert render_recipe(VOLCANO, {"tasks": [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 2}],
                                   "min_available": 3}).valid


@pytest.mark.parametrize("text, lo, hi", [
    ("elastic pytorchjob that can scale between 2 and 6 workers, 4 gpus per worker", 2, 6),
    ("pytorchjob elastic 2-8 workers", 2, 8),
])
def test_elastic_pytorchjob_has_an_elastic_policy_and_workers_only(text, lo, hi):
    g = generate(text, RECIPES, llm=False)
    job = yaml.safe_load(g.yaml)
    assert g.recipe == "pytorchjob" and g.valid
    assert job["spec"]["elasticPolicy"] == {"rdzvBackend": "c10d", "minReplicas": lo, "maxReplicas": hi,
                                            "maxRestarts": 100}
    assert list(job["spec"]["pytorchReplicaSpecs"]) == ["Worker"]
    assert job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == hi
    with pytest.raises(ParameterError):
        render_recipe(find_recipe("pytorchjob", RECIPES), {"min_workers": 5, "max_workers": 3})


def test_gpu_pod_requires_any_gfd_label_and_tolerates_a_taint_key():
    g = generate("test pod, 1 gpu, only on nodes where nvidia.com/gpu.family=hopper, tolerate any taint with key dedicated",
                 RECIPES, llm=False)
    pod = yaml.safe_load(g.yaml)
    exprs = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"][0]["matchExpressions"]
    assert {"key": "nvidia.com/gpu.family", "operator": "In", "values": ["hopper"]} in exprs
    assert {"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"} in pod["spec"]["tolerations"]
    assert g.unused == [] and g.valid
    # a pair whose key is not a node label is not a label
    assert "node_labels" not in extract_params(find_recipe("gpu-pod", RECIPES), "gpu pod, image=cuda:12").values


def test_clusterpolicy_service_monitor_and_karpenter_role_and_expiry():
    g = generate("ClusterPolicy with pre-installed driver and the dcgm exporter servicemonitor on", RECIPES, llm=False)
    cp = yaml.safe_load(g.yaml)
    assert cp["spec"]["dcgmExporter"]["serviceMonitor"]["enabled"] is True
    assert cp["spec"]["driver"]["enabled"] is False
    g = generate("karpenter nodepool for p5, consolidate when underutilized after 5m, node role KarpenterNodeRole-prod, "
                 "never expire nodes", RECIPES, llm=False)
    docs = {d["kind"]: d for d in g.documents}
    assert docs["EC2NodeClass"]["spec"]["role"] == "KarpenterNodeRole-prod"
    assert docs["NodePool"]["spec"]["template"]["spec"]["expireAfter"] == "Never"
    assert docs["NodePool"]["spec"]["disruption"]["consolidateAfter"] == "5m"


PRIORITY = find_recipe("priority-classes", RECIPES)


def test_several_priority_classes_render_one_document_each():
    ext = extract_params(PRIORITY, "priority classes: alpha-one at 500, beta-two at 50 and gamma-three at 5 that never preempts")
    assert ext.values["classes"] == [{"name": "alpha-one", "value": 500}, {"name": "beta-two", "value": 50},
                                     {"name": "gamma-three", "value": 5, "preempt": False}]
    docs = render_recipe(PRIORITY, {"classes": ext.values["classes"]}).documents
    assert [(d["metadata"]["name"], d["value"], d["preemptionPolicy"]) for d in docs] == [
        ("alpha-one", 500, "PreemptLowerPriority"), ("beta-two", 50, "PreemptLowerPriority"), ("gamma-three", 5, "Never")]


def test_two_objects_fill_the_recipes_own_pair_highest_value_first():
    ext = extract_params(PRIORITY, "priorityclasses low-one 10 and top-one 900")
    assert "classes" not in ext.values
    assert (ext.values["production_name"], ext.values["production_value"]) == ("top-one", 900)
    assert (ext.values["research_name"], ext.values["research_value"]) == ("low-one", 10)


def test_kind_runs_collapse():
    from gpukb.recipes.check import _runs

    assert _runs(["A", "B", "B", "C", "B"]) == ["A", "B", "C", "B"]


PRIORITY = find_recipe("priority-classes", RECIPES)


@pytest.mark.parametrize("text, want", [
    ("priority classes alpha, beta and gamma with values 300, 200 and 100",
     [{"name": "alpha", "value": 300}, {"name": "beta", "value": 200}, {"name": "gamma", "value": 100}]),
    ("three classes: urgent / normal / batch-low, priorities 9000, 500 and -5",
     [{"name": "urgent", "value": 9000}, {"name": "normal", "value": 500}, {"name": "batch-low", "value": -5}]),
    ("values 40, 30 and 20 for tier-a, tier-b and tier-c please",
     [{"name": "tier-a", "value": 40}, {"name": "tier-b", "value": 30}, {"name": "tier-c", "value": 20}]),
])
def test_parallel_lists_pair_names_and_values_by_position(text, want):
    assert extract_params(PRIORITY, text).values.get("classes") == want


def test_parallel_pair_fills_the_recipes_own_pair_highest_first():
    ext = extract_params(PRIORITY, "two classes named low-x and hi-x, values 7 and 7000")
    assert (ext.values.get("production_name"), ext.values.get("production_value")) == ("hi-x", 7000)
    assert (ext.values.get("research_name"), ext.values.get("research_value")) == ("low-x", 7)


@pytest.mark.parametrize("text", [
    "priority classes alpha, beta and gamma with values 300 and 200",  # three names, two values
    "priority classes alpha and beta. Later, values 1 and 2 go elsewhere",  # another sentence
])
def test_parallel_lists_of_different_lengths_or_sentences_pair_nothing(text):
    assert "classes" not in extract_params(PRIORITY, text).values


def test_negative_value_of_one_named_class():
    ext = extract_params(PRIORITY, "classes: keep-me = 5000, cheap = 100, idle = -20")
    assert {"name": "idle", "value": -20} in ext.values["classes"]


def test_parallel_lists_name_the_field_by_the_unit_after_the_values():
    ext = extract_params(VOLCANO, "volcano job, tasks driver and executor with 1 and 5 replicas, 2 gpus each")
    assert [(t["name"], t["replicas"]) for t in ext.values["tasks"]] == [("driver", 1), ("executor", 5)]


@pytest.mark.parametrize("text, want", [
    ("volcano job, 3 workers; if any worker dies just restart that task",
     {"event": "PodFailed", "action": "RestartTask"}),
    ("vcjob for the sweep. If a pod is evicted, terminate the job",
     {"event": "PodEvicted", "action": "TerminateJob"}),
    ("volcano gang job: restart the whole job (not only the task) whenever a replica fails",
     {"event": "PodFailed", "action": "RestartJob"}),
])
def test_condition_and_action_read_into_policy_items(text, want):
    policies = extract_params(VOLCANO, text).values.get("policies") or []
    assert want in policies
    assert len({p["event"] for p in policies}) == len(policies)  # one action per event


def test_policies_said_are_the_whole_list_without_the_defaults_for_other_events():
    # (requests written by others list the lifecycle they want: the default's TaskCompleted item is not added)
    policies = extract_params(VOLCANO, "volcano job; on pod eviction abort the job").values["policies"]
    assert policies == [{"event": "PodEvicted", "action": "AbortJob"}]


@pytest.mark.parametrize("text", ["volcano job, restart the job up to 5 times", "volcano job with 2 pods, no restarts"])
def test_no_condition_no_policy(text):
    assert "policies" not in extract_params(VOLCANO, text).values


@pytest.mark.parametrize("text, tasks", [
    ("vcjob with a launcher task (1 pod, no gpu) and a trainer task (4 pods, 2 gpus each)",
     [("launcher", 1, 0), ("trainer", 4, 2)]),
    ("volcano job made of two tasks, chief (1 replica) and worker (5 replicas)", [("chief", 1, None), ("worker", 5, None)]),
])
def test_task_pods_in_brackets_after_the_task_name(text, tasks):
    ext = extract_params(VOLCANO, text)
    assert [(t["name"], t["replicas"], t.get("gpus")) for t in ext.values["tasks"]] == tasks
    assert "workers" not in ext.values  # "two tasks" counts the tasks


def test_masked_negated_aside():
    from gpukb.recipes.extract import mask_negated_asides
    text = "restart the pod (not the whole job) now"
    masked = mask_negated_asides(text)
    assert len(masked) == len(text) and "job" not in masked and "restart the pod" in masked


def test_a_task_named_again_takes_its_later_words():
    text = ("with slurm this was one tiny driver component without GPUs plus 2 nodes of 8 GPUs. Here: a volcano "
            "job with a driver task (2 pods, 1 GPU) and a worker task of 2 pods x 8 GPUs")
    tasks = extract_params(VOLCANO, text).values["tasks"]
    assert [(t["name"], t["replicas"], t["gpus"]) for t in tasks] == [("driver", 2, 1), ("worker", 2, 8)]


@pytest.mark.parametrize("text", [
    "vcjob bench-4x8: 4 workers, 8 gpus each, queue research",
    "volcano job, 3 workers x 4 GPUs, all 3 up together, retry max 5 times",
    "volcano job, 6 worker pods, one GPU each, a minimum of 4 pods start together",
])
def test_words_next_to_counts_are_no_tasks(text):
    assert "tasks" not in extract_params(VOLCANO, text).values


def test_the_tasks_words_end_where_the_last_task_does():
    """A count the list left out ("=5 priorityClassName") is not part of the tasks' words, so the
    setting in it is still read."""
    ext = extract_params(VOLCANO, "vcjob tasks: master x1 (1 gpu), worker x3 (8 gpu) maxRetry=5 priorityClassName=low")
    assert len(ext.values["tasks"]) == 2 and ext.values["max_retry"] == 5


@pytest.mark.parametrize("text, plugins", [
    ("volcano job, 2 workers x 4 gpus, the mpi plugin is not needed, pytorch plugin on", ["pytorch"]),
    ("volcano job, 3 workers. The pytorch plugin isn't relevant for us, but the tensorflow one is", ["tensorflow"]),
])
def test_a_plugin_ruled_out_by_the_words_after_it(text, plugins):
    ext = extract_params(VOLCANO, text)
    assert ext.values["plugins"] == plugins


def test_a_table_of_objects_reads_yes_and_no_cells_per_row():
    text = ("three PriorityClasses please\n\n| tier | value | preempts? |\n|---|---|---|\n"
            "| serve-hi | 900000 | yes |\n| train-mid | 400 | no |\n| idle-lo | 3 | no |\n")
    got = generate(text, RECIPES, llm=False)
    assert got.params["classes"] == [{"name": "serve-hi", "value": 900000, "preempt": True},
                                     {"name": "train-mid", "value": 400, "preempt": False},
                                     {"name": "idle-lo", "value": 3, "preempt": False}]
    assert not any(cell in got.unused for cell in ("train-mid", "400", "no"))  # every row is understood


def test_a_table_of_tasks():
    text = "volcano job\n\n| task | replicas | gpus |\n|---|---|---|\n| coord | 1 | 0 |\n| sim | 6 | 2 |\n"
    assert extract_params(VOLCANO, text).values["tasks"] == [{"name": "coord", "replicas": 1, "gpus": 0},
                                                             {"name": "sim", "replicas": 6, "gpus": 2}]


def test_a_number_below_zero_in_words():
    from gpukb.recipes.extract import digits_view

    view = digits_view("idle gets minus ten, batch negative 5")
    assert "-10" in view and "-5" in view and len(view) == len("idle gets minus ten, batch negative 5")
