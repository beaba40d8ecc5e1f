"""Requests that give their values through a pasted shell script (exports, arithmetic, a heredoc), a typed
settings model, a form with dot leaders, a range the writer resolves, amounts in other notations, and a few
words of another language."""

from __future__ import annotations

from conftest import generate_request as _gen, read_params as _read


def test_a_script_exports_several_variables_per_line_and_works_out_arithmetic():
    got = _gen("finish this please:\n\nexport RANKS=3 SLOTS=4   # A30 boxes\nexport NS=hpc-bench\n"
               "cat <<EOF | kubectl apply -f -\napiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata:\n"
               "  name: osu-bw-$((RANKS * SLOTS))\n  namespace: ${NS}\nspec:\n  slotsPerWorker: ${SLOTS}\n"
               "  mpiReplicaSpecs:\n    Launcher:\n      # TODO launcher command -n 1\n    Worker:\n"
               "      replicas: ${RANKS}\nEOF\n")
    assert got.recipe == "mpijob", got.recipe
    assert (got.params["name"], got.params["namespace"], got.params["workers"], got.params["gpus"]) == \
        ("osu-bw-12", "hpc-bench", 3, 4), got.params


def test_a_typed_settings_model_gives_its_defaults_not_its_types():
    params = _read("fsx-lustre-static", "our mount is described by this model:\n\n@dataclass\nclass Mount:\n"
                                        "    filesystem_id: str = \"fs-0123456789abcdef0\"\n"
                                        "    region: str = \"us-west-2\"\n    mount_name: str = \"q2w3e4r5\"\n"
                                        "    namespace: str = \"genome-lab\"\n    storage_gib: int = 2400\n")
    assert (params["filesystem_id"], params["region"], params["mount_name"], params["namespace"],
            params["storage_gib"]) == ("fs-0123456789abcdef0", "us-west-2", "q2w3e4r5", "genome-lab", 2400), params


def test_an_environment_variable_with_the_models_prefix_overrides_its_default():
    params = _read("mig-config", "class Mig(BaseSettings):\n    model_config = SettingsConfigDict(env_prefix=\"GPU_\")\n"
                                 "    namespace: str = \"gpu-operator\"\n    configmap_name: str = \"mig-layouts\"\n\n"
                                 "prod overrides:\nGPU_NAMESPACE=nvidia-system\n")
    assert params["namespace"] == "nvidia-system", params
    assert params["configmap_name"] == "mig-layouts", params


def test_a_form_with_dot_leaders_reads_each_label_with_its_value():
    params = _read("dcgm-servicemonitor-alerts", "Request form\n  Prometheus release .......... kps-main\n"
                                                 "  Rules namespace ............. monitoring\n"
                                                 "  Exporter namespace .......... nvidia-dcgm\n")
    assert (params["release"], params["namespace"], params["exporter_namespace"]) == \
        ("kps-main", "monitoring", "nvidia-dcgm"), params


def test_a_range_reads_as_the_end_the_writer_takes():
    top = _read("volcano-queue", "queue vision: finance okayed between 16 and 32 GPUs as the cap, go with the upper end")
    low = _read("kueue-cluster-queue", "cluster queue nlp-cq: anywhere from 8 to 12 GPUs nominal is fine; "
                                       "I'll take the lower end for now")
    mid = _read("keda-gpu-scaledobject", "KEDA on deployment ocr-api, GPU utilisation target somewhere between 50 "
                                         "and 70 %, use the midpoint")
    assert top["gpus"] == 32, top
    assert low["gpus"] == 8, low
    assert mid["threshold"] == "60", mid


def test_tries_in_total_count_the_first_run():
    params = _read("indexed-job", "indexed job, 40 shards, each shard gets 3 attempts in total")
    assert params["backoff_limit_per_index"] == 2, params


def test_amounts_in_scientific_notation_and_as_units_of_a_size():
    ttl = _read("indexed-job", "indexed job, 50 shards, remove the finished Job after 7.2e3 s")
    fsx = _read("fsx-lustre-dynamic", "dynamic FSx for Lustre, capacity: 4 x 1200 GiB, claim scratch-fs")
    assert ttl["ttl_seconds"] == 7200, ttl
    assert fsx["storage_gib"] == 4800, fsx


def test_words_of_another_language_mixed_in_give_amounts_and_order():
    params = _read("gpu-inference-deployment", "Hallo! Bitte ein Deployment für unseren vLLM Server, mit vier "
                                               "Replikate, namespace chat-api, 1 GPU pro pod, danke")
    tiers = _read("cluster-autoscaler-priority-expander", "Hola, el expander por favor: primero `.*h100-spot.*`, "
                                                          "luego `.*h100-od.*`, y sin catch-all. Gracias")
    assert params["replicas"] == 4, params
    assert (tiers["preferred_groups"], tiers["fallback_groups"]) == ([".*h100-spot.*"], [".*h100-od.*"]), tiers


def test_a_taints_effect_is_never_the_key_to_tolerate():
    params = _read("indexed-job", "indexed job shard-run for 10 shards; the pool has an extra `batch-only` NoExecute "
                                  "taint, so tolerate that as well")
    assert params.get("extra_toleration") == "batch-only", params


def test_a_cards_model_number_is_no_count_of_gpus():
    got = _gen("a gpu pod viz-dev in namespace render that must land on the RTX 8000 boxes "
               "(gpu.product Quadro-RTX-8000), and in the cluster I only need 2")
    assert got.recipe == "gpu-pod" and got.params.get("gpus") != 8000, (got.recipe, got.params)


def test_an_amount_said_as_a_part_of_one_named_before_reads_as_what_it_works_out_to():
    params = _read("volcano-queue", "queue speech. Cap: 48 GPUs. Deserved share: a quarter of the cap. Guarantee 4.")
    assert (params["gpus"], params["deserved_gpus"], params["guarantee_gpus"]) == (48, 12, 4), params


def test_a_dockerfiles_base_image_yields_to_the_image_built_from_it():
    got = _gen("FROM nvcr.io/nvidia/pytorch:24.10-py3\nRUN pip install -r requirements.txt\nCOPY . /app\n\n"
               "Built and pushed as ghcr.io/acme/trainer:7.1. Run it as a gpu pod trainer-smoke with one GPU.")
    assert got.recipe == "gpu-pod", got.recipe
    assert got.params["image"] == "ghcr.io/acme/trainer:7.1", got.params


def test_a_label_written_key_equals_value_gives_both_halves():
    params = _read("dcgm-servicemonitor-alerts", "DCGM alerts\n  Release: kps\n  Exporter Service label: "
                                                 "app.kubernetes.io/component=gpu-metrics\n  Port name: metrics\n")
    assert (params["service_label_key"], params["service_label_value"]) == \
        ("app.kubernetes.io/component", "gpu-metrics"), params


def test_equal_autoscaler_bounds_give_a_fixed_replica_count():
    got = _gen("convert this to a plain GPU Deployment with a Service:\n\nkind: InferenceService\nmetadata:\n"
               "  name: ranker\nspec:\n  predictor:\n    minReplicas: 3\n    maxReplicas: 3\n"
               "    containers:\n      - image: vllm/vllm-openai:v0.6.3\n        resources:\n"
               "          limits: {nvidia.com/gpu: \"1\"}\n")
    assert got.recipe == "gpu-inference-deployment", got.recipe
    assert got.params["replicas"] == 3, got.params


def test_a_command_in_an_aside_leaves_the_asides_bracket_out():
    params = _read("indexed-job", "indexed job, 12 shards (so each pod runs python shard.py --index "
                                  "$(JOB_COMPLETION_INDEX))")
    assert params["command"][-1] == "$(JOB_COMPLETION_INDEX)", params


def test_a_place_in_code_marks_after_in_is_the_namespace_and_a_modes_name_is_not():
    params = _read("indexed-job", "indexed job `ocr-batch` in `doc-ai`, 30 shards; keep the GPUs in "
                                  "exclusive-process compute mode")
    assert (params["name"], params["namespace"]) == ("ocr-batch", "doc-ai"), params


def test_a_thing_described_then_named_in_code_marks_is_that_name():
    params = _read("kueue-cluster-queue", "Kueue queue for team vision, 16 GPUs nominal; the flavor should be our "
                                          "A100 one, `a100-40gb-spot`")
    assert params["flavor"] == "a100-40gb-spot", params


def test_gpus_said_to_be_free_in_a_pool_are_what_exists_not_an_amount_asked_for():
    got = _gen("volcano job asr-pt, 1 master + 2 workers, 8 GPUs per pod; only 24 A100s free in that pool so "
               "that's all we can have")
    assert got.recipe == "volcano-job", got.recipe
    assert any(t.get("gpus") == 8 for t in got.params["tasks"]), got.params


def test_a_count_of_other_things_than_a_totals_leaves_the_total_alone():
    params = _read("volcano-queue", "queue vision. Hard cap of four 8-GPU nodes (thirty-two GPUs). Deserved share: "
                                    "three of those nodes.")
    assert params.get("deserved_gpus") != 3, params


def test_the_command_as_above_is_the_command_line_pasted_before_it():
    params = _read("indexed-job", "today we run this by hand:\n\n  torchrun --standalone shard_eval.py --fold 3\n\n"
                                  "As an indexed Job eval-folds with 5 folds, command exactly as above.")
    assert params["command"] == ["torchrun", "--standalone", "shard_eval.py", "--fold", "3"], params


def test_an_article_counts_one_instance_of_a_profile():
    params = _read("mig-config", "MIG layout mixed-a: per GPU an instance 4g.40gb and three 1g.10gb")
    assert params["mig_devices"] == {"4g.40gb": 1, "1g.10gb": 3}, params


def test_one_pod_per_machine_on_machines_counted_once_is_that_many_pods():
    spread = _read("topology-spread-training", "we train on four DGX boxes today; k8s version please, one pod per box")
    rough = _read("indexed-job", "12 shards; roughly one worker per node, a difference of 2 pods between nodes is fine")
    assert spread["workers"] == 4, spread
    assert rough["completions"] == 12, rough
