"""Requests pasted as a chat thread or as spreadsheet rows, and words that name what a value belongs to:
a thread's last word on a value is the value, CSV rows read like a table, a longer cue of another
parameter says whose name follows, and a verb after its subject is no name."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import _chat_lines, extract_params, is_chat
from gpukb.recipes.generation import generate
from gpukb.recipes.model import find_recipe, load_recipes
from gpukb.recipes.template import evaluate
from gpukb.errors import GpukbError

RECIPES = load_recipes()


def _read(recipe_id: str, text: str):
    return extract_params(find_recipe(recipe_id, RECIPES), text)


# ------------------------------------------------------------------ chat threads

THREAD = """[09:14] omar: we need the queue for the speech team
[09:15] lena: how much quota? 24 gpus?
[09:15] omar: finance says 16 max
[09:16] lena: ok, 16 then. namespace speech
[09:17] omar: cohort shared-a100, thanks"""


def test_a_thread_is_told_from_a_form():
    assert is_chat(THREAD)
    form = "namespace: speech\ngpus: 16\nname: speech-cq\nimage: x"
    assert not is_chat(form)
    assert _chat_lines(form) == form


def test_a_thread_loses_its_handles_and_each_message_ends_as_a_sentence():
    text = _chat_lines(THREAD)
    assert "omar:" not in text and "[09:15]" not in text
    assert "finance says 16 max." in text


def test_a_threads_last_word_on_a_value_is_the_value():
    ext = _read("kueue-cluster-queue", THREAD)
    assert ext.values.get("gpus") == 16
    assert ext.values.get("namespace") == "speech" and ext.values.get("cohort") == "shared-a100"
    assert "gpus" not in ext.conflicts


def test_a_bare_amount_answers_what_the_thread_counts():
    thread = ("ada: mpi job for the allreduce test\nbo: how many workers?\nada: 4\nbo: hmm, make it 3, one node is down\n"
              "ada: ok. 8 gpus each, image nccl/tests:2.21")
    ext = _read("mpijob", thread)
    assert ext.values.get("workers") == 3 and ext.values.get("gpus") == 8


def test_the_same_numbers_outside_a_thread_still_conflict():
    ext = _read("kueue-cluster-queue", "kueue queue for speech: 24 gpus. finance says 16 gpus max")
    assert ext.values.get("gpus") != 16 or "gpus" in ext.conflicts


def test_a_command_at_the_end_of_a_message_keeps_its_last_argument():
    thread = ("ana: mpi job please\nraj: program: /opt/bench -b 8 -e 1G\nana: name it bench-1\n"
              "raj: 2 workers")
    ext = _read("mpijob", thread)
    assert ext.values.get("program") == ["/opt/bench", "-b", "8", "-e", "1G"]
    assert ext.values.get("name") == "bench-1"


# ------------------------------------------------------------------ CSV rows

def test_one_csv_row_reads_as_settings_under_their_columns():
    ext = _read("kueue-cluster-queue", "namespace,gpus,cpu,memory,cohort\nvision,24,96,384Gi,shared\n"
                                       "make the kueue objects for this")
    assert ext.values.get("namespace") == "vision" and ext.values.get("gpus") == 24
    assert ext.values.get("cpu") == 96 and ext.values.get("memory") == "384Gi" and ext.values.get("cohort") == "shared"


def test_csv_rows_of_objects_name_one_object_each():
    for sheet in ("name,value\nserve-critical,900000\nbatch-low,50\n",
                  "name,value,preempts\nserve-critical,900000,yes\nbatch-low,50,no\n"):
        g = generate(sheet + "PriorityClasses for these rows", RECIPES)
        classes = {d["metadata"]["name"]: d["value"] for d in g.documents if d.get("kind") == "PriorityClass"}
        assert classes == {"serve-critical": 900000, "batch-low": 50}


def test_a_csv_rows_last_cell_does_not_run_into_the_next_row():
    ext = _read("volcano-job", "role,replicas,gpus\nps,1,0\nworker,4,8\nvolcano job for these, queue q1")
    assert ext.values.get("workers") != 8 and "workers" not in ext.conflicts


def test_prose_with_commas_is_no_csv():
    ext = _read("pytorchjob", "pytorchjob, 2 nodes, 8 gpus each,\nimage a/b:1, namespace ml")
    assert ext.values.get("nodes") == 2 and ext.values.get("namespace") == "ml"


# ------------------------------------------------------------------ whose value is it

def test_a_longer_cue_of_another_parameter_says_whose_name_follows():
    ext = _read("kueue-cluster-queue", "kueue cluster queue named infra-cq with 8 gpus")
    assert ext.values.get("name") == "infra-cq" and "local_queue" not in ext.values
    ext = _read("kueue-cluster-queue", "kueue: local queue named jobs-q, 8 gpus")
    assert ext.values.get("local_queue") == "jobs-q"


@pytest.mark.parametrize("text", [
    "gpu quota for namespace ml-infra: 16 gpus; the team burned 2,000 gpu-hours last month",
    "gpu quota for namespace ml-infra: 16 gpus. team uses the A100s mostly",
])
def test_a_verb_after_its_subject_is_no_name(text):
    ext = _read("gpu-quota", text)
    assert ext.values.get("namespace") == "ml-infra"


def test_a_fields_word_before_the_value_is_skipped():
    ext = _read("gpu-inference-deployment", "vllm deployment, 2 gpus, gpu product label NVIDIA-L40S")
    assert ext.values.get("gpu_product") == "NVIDIA-L40S"


def test_a_size_beside_a_cpu_count_is_the_memory():
    ext = _read("pytorchjob", "pytorchjob, 2 nodes x 8 gpus, 48 cores and 384Gi per pod")
    assert ext.values.get("memory") == "384Gi" and ext.values.get("cpu") == 48


def test_gpu_workers_count_workers_not_gpus():
    ext = _read("lws-vllm", "leaderworkerset: a leader + 3 GPU workers, 4 GPUs each, model org/model-x")
    assert ext.values.get("gpus") == 4 and ext.values.get("size") == 4 and "gpus" not in ext.conflicts


@pytest.mark.parametrize("recipe,param", [("volcano-job", "min_available"), ("coscheduling-podgroup", "min_member")])
def test_all_n_scheduled_together_is_the_gang_size(recipe, param):
    ext = _read(recipe, "gang job, 6 workers with 1 gpu each, all 6 pods have to be scheduled together")
    assert ext.values.get(param) == 6


def test_a_claim_named_after_its_kind():
    assert _read("fsx-lustre-dynamic", "dynamic fsx for lustre, 2.4 TiB, PVC named ds-train").values.get(
        "claim_name") == "ds-train"
    assert _read("ibm-storage-scale", "storage scale volume 5Ti, persistentvolumeclaim called gpfs-ds").values.get(
        "claim_name") == "gpfs-ds"


def test_a_range_of_replicas_is_no_replica_count():
    ext = _read("gpu-inference-deployment", "vllm deployment that stays between two and eight replicas")
    assert "replicas" not in ext.values


def test_a_task_arrays_index_is_the_completion_index():
    ext = _read("indexed-job", "indexed job over 40 shards, 4 at a time, runs python embed.py --part {{item}}")
    assert ext.values.get("command") == ["python", "embed.py", "--part", "$(JOB_COMPLETION_INDEX)"]
    ext = _read("indexed-job", "indexed job, 12 chunks, command: bash run.sh $PBS_ARRAY_INDEX")
    assert ext.values.get("command") == ["bash", "run.sh", "$(JOB_COMPLETION_INDEX)"]


def test_concurrency_and_a_count_field_of_an_indexed_job():
    ext = _read("indexed-job", "indexed job form\n- number of input files: 300\n- concurrency: 30\n- gpus per file: 1")
    assert ext.values.get("completions") == 300 and ext.values.get("parallelism") == 30


# ------------------------------------------------------------------ templates

def test_for_sorts_a_mappings_items_by_a_field():
    out = evaluate({"$object": [{"$for": {"$param": "p"}, "as": "t", "sort": "-value",
                                        "do": {"key": {"$param": "t.value"}, "value": {"$param": "t.key"}}}]},
                          {"p": {"a": 5, "b": 50, "c": 20}})
    assert list(out) == [50, 20, 5]


def test_for_sort_on_a_missing_field_is_an_error():
    with pytest.raises(GpukbError):
        evaluate({"$for": {"$param": "p"}, "as": "t", "sort": "weight", "do": {"$param": "t"}}, {"p": [1, 2]})


def test_the_priority_expander_writes_the_highest_priority_first():
    g = generate("cluster autoscaler priority expander: .*od.* gets 10, .*spot.* gets 90", RECIPES)
    text = g.documents[0]["data"]["priorities"]
    assert text.index("90:") < text.index("10:")


def test_a_sheets_description_column_describes_each_class():
    g = generate("name,value,description\nweb-critical,900000,user facing\nbatch-low,50,nightly jobs\n"
                 "PriorityClasses from this sheet", RECIPES)
    desc = {d["metadata"]["name"]: d.get("description") for d in g.documents if d.get("kind") == "PriorityClass"}
    assert desc == {"web-critical": "user facing", "batch-low": "nightly jobs"}


@pytest.mark.parametrize("text,port", [
    ("serve mistral with vllm on 1 gpu, the old flask app listened on 5000 but put this one on 8001", 8001),
    ("vllm deployment, 1 gpu; the api listens on 5000 today, keep the server on 8000 instead", 8000),
])
def test_where_the_object_itself_is_to_listen(text, port):
    assert _read("gpu-inference-deployment", text).values.get("port") == port


def test_a_labelled_field_names_the_tenant_over_an_object_named_after_it_elsewhere():
    text = ("## Onboarding: vision team\n\n- namespace: `vision`\n- GPU quota: 16\n"
            "- hook the local queue up to the cluster queue `shared-a100`\n")
    assert _read("tenant-onboarding", text).values.get("tenant") == "vision"
