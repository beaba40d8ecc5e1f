"""Requests that paste settings in other shapes (a diff hunk, a Helm values file, an inventory entry, a
settings table with remarks, a portal's JSON), correct themselves, or were dictated."""

from __future__ import annotations

from conftest import generate_request as _gen, read_params as _read


def test_a_diff_hunk_that_opens_inside_a_mapping_is_read_under_the_key_its_header_names():
    params = _read("gpu-inference-deployment", "apply this to our vLLM deployment and give me the whole thing:\n```diff\n"
             "@@ -3,9 +3,9 @@ metadata:\n   name: mistral-api\n   namespace: chat\n spec:\n-  replicas: 1\n+  replicas: 3\n"
             "   template:\n     spec:\n       containers:\n       - name: server\n"
             "-        image: vllm/vllm-openai:v0.5.0\n+        image: vllm/vllm-openai:v0.6.2\n"
             "         resources:\n           limits:\n             nvidia.com/gpu: 1\n```")
    assert (params["name"], params["namespace"], params["replicas"]) == ("mistral-api", "chat", 3), params
    assert params["image"] == "vllm/vllm-openai:v0.6.2"


def test_a_bare_document_separator_in_a_diff_keeps_both_objects():
    g = _gen("quota change for `vision-lab`, please regenerate both objects:\n```diff\n kind: ResourceQuota\n metadata:\n"
             "   namespace: vision-lab\n spec:\n   hard:\n-    requests.nvidia.com/gpu: \"4\"\n+    requests.nvidia.com/gpu: \"6\"\n"
             "---\n kind: LimitRange\n metadata:\n   namespace: vision-lab\n spec:\n   limits:\n   - type: Container\n"
             "     max:\n-      nvidia.com/gpu: \"2\"\n+      nvidia.com/gpu: \"3\"\n```")
    assert (g.params["gpus"], g.params["max_gpus_per_pod"]) == (6, 3), g.params


def test_a_signed_amount_is_a_change_and_a_period_or_a_ticket_is_no_name():
    g = _gen("Budget approved (+4 GPUs for Q3, see CAP-118). GPU quota for namespace `asr-team`: 10 GPUs total.")
    assert g.params["gpus"] == 10 and g.params["namespace"] == "asr-team", g.params
    g = _gen("resource quota, 8 GPUs, for FY26")
    assert g.params.get("namespace") != "fy26" and "namespace" not in g.from_request, g.params
    g = _gen("volcano queue from ticket OPS-77: 24 GPUs cap, weight 2")
    assert g.params["name"] != "ops-77", g.params


def test_a_settings_table_reads_its_values_and_leaves_its_remarks_unread():
    g = _gen("Karpenter pool, filled in:\n\n| setting | value | notes |\n|---|---|---|\n| pool name | `l4-serve` | |\n"
             "| GPU ceiling | 32 | four g6.12xlarge at peak |\n| capacity | spot | cheap |\n")
    assert g.params["name"] == "l4-serve" and g.params["gpu_limit"] == 32, g.params
    assert "instance_types" not in g.from_request, g.params
    assert any("g6.12xlarge" in u for u in g.unused), g.unused


def test_the_one_entry_of_a_pasted_collection_is_the_object_and_its_keys_find_their_parameters():
    params = _read("volcano-queue", "turn this group_vars entry into a Volcano queue:\n```yaml\nqueues:\n"
                   "  - name: speech-batch\n    gpu_cap: 20\n    gpu_guaranteed: 4\n    mem_cap: 2Ti\n```")
    assert params["name"] == "speech-batch", params
    assert (params["gpus"], params["guarantee_gpus"], params["memory"]) == (20, 4, "2Ti"), params


def test_helm_values_name_the_release_object_and_a_comment_sets_nothing():
    g = _gen("We're dropping the `serving-base` chart, translate these values to a Deployment + Service:\n```yaml\n"
             "fullnameOverride: rerank-api\nnamespace: search\nimage:\n  repository: ghcr.io/acme/rerank\n  tag: \"2.1\"\n"
             "resources:\n  gpu: 1\nprobes:\n  startupBudgetSeconds: 600  # the weights take ~3 min to download\n"
             "podAnnotations:\n  team: search\n```")
    assert (g.params["name"], g.params["namespace"], g.params["gpus"]) == ("rerank-api", "search", 1), g.params
    assert g.params["model_load_seconds"] == 600, g.params
    assert any("podAnnotations" in u or "team: search" in u for u in g.unused), g.unused


def test_a_quoted_key_of_pasted_json_is_never_a_value_but_a_quoted_name_in_prose_is():
    g = _gen('please create the kueue objects from this portal request:\n{"owner": "vision", "clusterQueue": "vision-cq", '
             '"localQueue": "vision-lq", "namespace": "vision-train", "gpuQuota": 16}')
    assert g.params["name"] == "vision-cq" and g.params["local_queue"] == "vision-lq", g.params
    g = _gen("podgroup named 'shard-gang': 4 pods, each with 2 GPUs")
    assert g.params["name"] == "shard-gang", g.params


def test_a_plain_word_after_a_demonstrative_is_no_name():
    g = _gen("render this item as a Volcano Queue: 12 GPUs cap, weight 3")
    assert g.params.get("name") != "item", g.params


def test_an_amount_denied_in_a_correction_gives_way_to_the_next_one():
    g = _gen("Indexed job `ocr-pages` in `docs-ml`, one GPU per shard, 30 shards, 6 running at once. "
             "Image ghcr.io/acme/ocr:4. Hmm wait, not 30 shards, 36 - the last scan batch was split again.")
    assert (g.params["completions"], g.params["parallelism"]) == (36, 6), g.params


def test_dictated_symbols_and_versions_are_read_as_written():
    g = _gen("ok um make an MPI job called nccl dash sweep in the perf namespace two workers eight gee pee use each "
             "image is nvcr dot io slash nvidia slash pytorch colon twenty four point zero five "
             "and the program is python slash opt slash sweep dot py")
    assert (g.params["name"], g.params["namespace"]) == ("nccl-sweep", "perf"), g.params
    assert (g.params["workers"], g.params["gpus"]) == (2, 8), g.params
    assert g.params["image"] == "nvcr.io/nvidia/pytorch:24.05", g.params
    assert g.params["program"][:2] == ["python", "/opt/sweep.py"], g.params


def test_a_cue_word_inside_a_path_cues_nothing():
    g = _gen("Deployment for triton, readiness probe path /v2/health/ready, 1 GPU")
    assert g.params["health_path"] == "/v2/health/ready", g.params


def test_a_range_after_its_noun_and_an_upper_bound_after_a_lower_one_count_that_noun():
    g = _gen("KEDA scaledobject for deployment `asr-api` in `voice`, replicas 2 to 9, DCGM_FI_DEV_GPU_UTIL target 70")
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (2, 9), g.params
    g = _gen("KEDA scaledobject for deployment `asr-api` in `voice`: scale down to zero replicas at night and up to 5 "
             "in office hours, on vllm:num_requests_waiting with target 4")
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (0, 5), g.params
    assert "activation_threshold" not in g.from_request, g.params


def test_shorthand_and_plain_negations_of_a_plugin():
    g = _gen("vcjob `ring-test`, 3 wkrs x 4 gpu, q hpc, leave ssh out")
    assert (g.params["queue"], g.params["ssh"]) == ("hpc", False), g.params


def test_names_given_in_other_word_orders_or_two_at_once():
    g = _gen('Please make one pod with a claim template for me. Pod is "probe-a", 1 GPU. The template name I prefer "one-gpu".')
    assert (g.params["name"], g.params["claim_template"]) == ("probe-a", "one-gpu"), g.params
    g = _gen("FSx static volume for fs-0123456789abcdef0 in us-west-2, mount name abcd1234, 1200 GiB. "
             "Call the PV ds-fsx and the claim ds-data, namespace vision.")
    assert (g.params["name"], g.params["claim_name"]) == ("ds-fsx", "ds-data"), g.params


def test_where_a_thing_lives_and_what_a_phrase_after_for_is_about():
    g = _gen("Kueue ClusterQueue `shared-batch` for nightly scoring jobs: 8 GPUs of flavor `t4-spot`, "
             "LocalQueue `nightly` living in `scoring`")
    assert g.params["namespace"] == "scoring", g.params
    assert g.params["name"] == "shared-batch", g.params


def test_a_scheduler_profile_named_in_passing_is_the_scheduler_not_the_job():
    g = _gen("Gang job without Volcano: the coscheduling profile is called `gang-sched`. Job name `smoke-ddp`, "
             "4 pods x 1 GPU")
    assert (g.params["name"], g.params["scheduler_name"]) == ("smoke-ddp", "gang-sched"), g.params


def test_what_failed_is_no_name_and_a_json_key_says_nothing_alone():
    g = _gen('the onboarding step failed, please produce it from this: {"team": "robotics", "gpuQuota": 8, '
             '"canPreempt": false}')
    assert (g.params["tenant"], g.params["preempt"]) == ("robotics", False), g.params


def test_an_environment_variable_the_recipe_sets_gives_its_parameter():
    g = _gen("pod `lora-ft` in `art`, 1 GPU, from this compose service:\n```yaml\nservices:\n  ft:\n"
             "    image: ghcr.io/acme/lora:1.0\n    environment:\n      HF_HOME: /data/hf\n    volumes:\n"
             "      - type: tmpfs\n        target: /scratch\n        tmpfs:\n          size: 24g\n```\n"
             "with a per-pod model cache volume of 100Gi on class `fast-rwo`")
    assert g.recipe == "model-cache-ephemeral", g.recipe
    assert (g.params["cache_path"], g.params["scratch_size"]) == ("/data/hf", "24Gi"), g.params


def test_a_version_without_its_v_and_a_key_path_word_are_read_as_meant():
    g = _gen("Karpenter pool `l4-spot` for cluster `edge`, g6 family, spot only, Bottlerocket, pinned to 1.29.0")
    assert g.params["ami_alias"] == "bottlerocket@v1.29.0", g.params
    params = _read("gpu-operator-clusterpolicy", "manage the ClusterPolicy directly, these are our values:\n```yaml\n"
                   "mig:\n  strategy: single\nmigManager:\n  config:\n    name: team-mig-layouts\n```")
    assert params["mig_config"] == "team-mig-layouts", params


def test_an_adverb_between_a_modal_and_its_verb_changes_nothing():
    g = _gen("three priority classes: `p-high` at 900000 that can preempt, `p-mid` at 5000 that can also preempt, "
             "and `p-low` at 10 that never preempts")
    assert [c.get("preempt") for c in g.params["classes"]] == [True, True, False], g.params


def test_a_pasted_command_list_keeps_an_argument_with_spaces_whole():
    g = _gen("translate these values into the volcano job `ocr-train` (4 workers, 1 GPU each):\n```yaml\n"
             "image:\n  repository: ghcr.io/acme/ocr\n  tag: \"2\"\nreplicaCount: 4\n"
             "command: [\"/bin/sh\", \"-c\", \"python -m ocr.train --cfg base.yaml\"]\n```")
    assert g.params["command"] == ["/bin/sh", "-c", "python -m ocr.train --cfg base.yaml"], g.params


def test_a_dictated_version_keeps_its_v():
    g = _gen("um make an MPI job called bench dash two in the perf namespace two workers and the image is "
             "ghcr dot io slash acme slash bench colon v one point four")
    assert g.params["image"] == "ghcr.io/acme/bench:v1.4", g.params


def test_two_expressions_that_share_one_priority_each_get_it():
    g = _gen("cluster autoscaler priority expander: `.*a100-spot.*` and `.*h100-spot.*` priority 90, "
             "then `.*a100-od.*` at 10")
    assert g.params["priorities"] == {".*a100-spot.*": 90, ".*h100-spot.*": 90, ".*a100-od.*": 10}, g.params
