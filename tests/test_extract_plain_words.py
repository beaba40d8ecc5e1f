"""Requests in plain words: a chat sign-off after the last value, amounts said as words, a floor and a
ceiling, a place called a "space", a team's handle, money beside the settings, turning a service off
when idle, a cloud CLI's describe output, a table whose first column holds a name that is also a cue
word, and where an already-installed component lives."""

import json

import pytest

from gpukb.recipes import generate


def gen(text):
    return generate(text, llm=False)


@pytest.mark.parametrize("text,namespace", [
    ("rwx pvc `shared-ds`, 800Gi, sc nfs-csi, ns data thx", "data"),
    ("read-write-many claim `ckpt`, 2Ti on sc cephfs in ns training, cheers", "training"),
])
def test_a_sign_off_after_the_last_value_leaves_it_alone(text, namespace):
    g = gen(text)
    assert g.params["namespace"] == namespace and "namespace" in g.from_request, g.params


@pytest.mark.parametrize("text", [
    "DRA pod `probe` that claims a couple of GPUs, L40S only",
    "a pod that claims a pair of H100s through DRA, name it dra-pair",
])
def test_an_amount_in_words_is_never_a_name(text):
    g = gen(text)
    assert g.recipe == "dra-gpu-claim-pod"
    assert g.params["count"] == 2, g.params
    assert g.params.get("claim_template") not in ("couple", "pair"), g.params


@pytest.mark.parametrize("text,n", [
    ("indexed job `ocr`, 300 pages, 10 at a time. A page that fails may be retried no more than once.", 1),
    ("indexed job `ocr`, 300 pages, 10 at a time, each page retried at most one time", 1),
])
def test_a_single_retry_said_in_words(text, n):
    g = gen(text)
    assert g.params["backoff_limit_per_index"] == n and "backoff_limit_per_index" in g.from_request, g.params


def test_a_floor_and_a_ceiling_are_the_least_and_the_most():
    g = gen("Eval pod `judge`, 2 GPUs, 150Gi model cache, and local ephemeral storage with a floor of 40Gi and a "
            "ceiling of 120Gi.")
    assert (g.params["ephemeral_request"], g.params["ephemeral_limit"]) == ("40Gi", "120Gi"), g.params
    g = gen("keda scaledobject for deployment `asr`, replica floor 1 and ceiling 9, prometheus http://prom:9090, "
            "threshold 3")
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (1, 9), g.params


def test_a_quoted_place_called_a_space_is_the_namespace():
    g = gen("Serve the ranking model from image ghcr.io/acme/ranker:2.0 in the `search-ml` space, one GPU, name ranker")
    assert g.params["namespace"] == "search-ml", g.params


def test_a_teams_handle_names_it_and_processors_are_cpus():
    g = gen("Please onboard a new group. Their handle is `geo-vision`; approved: 2 GPUs, 16 processors, 64 GB memory.")
    assert g.recipe == "tenant-onboarding"
    assert (g.params["tenant"], g.params["cpu"]) == ("geo-vision", 16), g.params


@pytest.mark.parametrize("text", [
    "Our transcription API (deployment `asr-api`, namespace `voice`) should turn itself off when nobody uses it "
    "at night and wake up with traffic. Budget is $12k a month. Never run more than 4 copies.",
    "The `asr-api` deployment in `voice` burns money when idle (about 3000 USD a month): can it shut itself down "
    "when idle and come back on demand? It should not have more than 4 copies.",
])
def test_turning_itself_off_when_idle_is_scaling_to_zero_and_money_is_no_setting(text):
    g = gen(text)
    assert g.recipe == "keda-gpu-scaledobject", g.recipe
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (0, 4), g.params
    assert not any(str(v) in ("12000", "3000") for v in g.params.values()), g.params


def test_volcano_tasks_listed_after_a_double_dash():
    g = gen("volcano job `sim` in `rl` with two tasks -- `env` 6 pods x 1 GPU, `policy` 2 pods x 4 GPUs")
    tasks = {t["name"]: (t["replicas"], t["gpus"]) for t in g.params["tasks"]}
    assert tasks == {"env": (6, 1), "policy": (2, 4)}, g.params


def test_the_scheduler_named_as_it_runs_and_where():
    g = gen("Our second scheduler runs as `gang-sched` in the `sched-system` namespace. Coscheduling job `ddp` in "
            "ns `ml`, 4 pods with 2 GPUs each, all 4 must start together.")
    assert (g.params["scheduler_name"], g.params["scheduler_namespace"], g.params["namespace"]) == \
        ("gang-sched", "sched-system", "ml"), g.params


@pytest.mark.parametrize("text,fail", [
    ("time-slicing with 4 replicas per GPU, and accept requests asking for more than one", False),
    ("time-slicing with 4 replicas per GPU; never let a pod ask for more than one", True),
])
def test_allowing_requests_for_more_than_one_shared_gpu(text, fail):
    g = gen(text)
    assert g.params["fail_requests_greater_than_one"] is fail, g.params


def test_a_cloud_describe_output_wrapping_its_one_object_in_a_list():
    out = {"FileSystems": [{"FileSystemId": "fs-0123456789abcdef0", "StorageCapacity": 4800,
                            "LustreConfiguration": {"MountName": "abcd1234", "DeploymentType": "PERSISTENT_2"}}]}
    g = gen("static PV for this one, region us-east-1, claim `corpus` in ns `nlp`:\n\n" + json.dumps(out, indent=2))
    assert g.recipe == "fsx-lustre-static"
    assert (g.params["storage_gib"], g.params["mount_name"]) == (4800, "abcd1234"), g.params


def test_a_table_row_named_like_a_cue_word_is_still_a_row():
    g = gen("priority classes please:\n\n| class | value | may preempt? |\n|---|---|---|\n| serving | 900000 | yes |\n"
            "| production | 50000 | yes |\n| research | 100 | no |\n")
    rows = {c["name"]: (c["value"], c["preempt"]) for c in g.params["classes"]}
    assert rows == {"serving": (900000, True), "production": (50000, True), "research": (100, False)}, g.params


def test_a_health_check_path_said_in_the_plural():
    g = gen("gpu deployment `scorer` from nvcr.io/nvidia/tritonserver:24.08-py3; it answers health checks at "
            "/v2/health/ready on port 8000")
    assert g.params["health_path"] == "/v2/health/ready", g.params


def test_where_an_installed_exporter_lives():
    g = gen("ServiceMonitor for dcgm-exporter; it is a standalone install in ns `gpu-mon`, put the monitor in "
            "`monitoring`, release kps")
    assert g.params["exporter_namespace"] == "gpu-mon", g.params
