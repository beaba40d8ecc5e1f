"""Definitions pasted from other systems (batch scripts, compose, launchers, chart values, JSON
exports) are read as what they say, fill what the request's words leave open, and what no
parameter takes is reported as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.recipes import generate
from gpukb.recipes.foreign import translate
from gpukb.recipes.model import load_recipes

ROOT = Path(__file__).resolve().parents[1]
RECIPES = load_recipes(ROOT / "recipes")


def _words(text: str) -> list[str]:
    return [f.words for f in translate(text)[0]]


def test_pbs_directives():
    script = "#!/bin/bash\n#PBS -N llm-sft\n#PBS -q gpuq\n#PBS -l select=2:ncpus=48:ngpus=8:mem=512gb\n"
    assert _words(script) == ["named llm-sft", "queue gpuq", "2 nodes", "48 cpus per node", "8 gpus per node",
                              "512Gi memory per node"]


def test_torque_nodes_and_pbs_array():
    assert _words("qsub -J 1-40%5 -l nodes=3:ppn=16:gpus=2 run.sh") == [
        "40 tasks, 5 at a time", "3 nodes", "16 cpus per node", "2 gpus per node"]


def test_lsf_slots_over_hosts_make_nodes():
    words = _words('bsub -J lm-eval -n 24 -R "span[ptile=8]" -gpu "num=8" -q short python eval.py --shard 0')
    assert "named lm-eval" in words and "3 nodes" in words and "8 gpus per node" in words
    assert "command: python eval.py --shard 0" in words and "queue short" in words


def test_lsf_job_array_with_a_limit():
    assert _words('bsub -J "embed[1-1000]%50" -gpu "num=1" ./embed.sh')[0] == "named embed, 1000 tasks, 50 at a time"


def test_compose_service_with_gpu_devices():
    compose = """services:
  redis:
    image: redis:7
  asr:
    image: ghcr.io/acme/asr:2.0
    command: ["python", "serve.py"]
    shm_size: 8gb
    ports: ["9090:8080"]
    deploy:
      resources:
        limits:
          cpus: "6"
        reservations:
          devices:
            - driver: nvidia
              device_ids: ["0", "1"]
              capabilities: [gpu]
"""
    words = _words(compose)
    assert words[:3] == ["named asr", "image ghcr.io/acme/asr:2.0", "command: python serve.py"]
    assert {"2 gpus", "6 cpus", "shm 8Gi", "port 8080"} <= set(words)


def test_sagemaker_launcher_and_instance_gpus():
    code = 'est = PyTorch(entry_point="train.py", instance_count=3, instance_type="ml.g5.48xlarge", role=role)'
    assert _words(code) == ["3 nodes", "8 gpus per node"]


def test_json_export_keys_read_as_words():
    assert _words('{"runName": "nightly-eval", "namespace": "ml", "gpuCount": 2, "preemptible": true}') == [
        "named nightly-eval", "namespace ml", "2 gpus", "preemptible on"]


def test_a_manifest_is_no_foreign_definition():
    assert _words('{"apiVersion": "v1", "kind": "Pod", "metadata": 1}') == []
    assert _words("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n") == []


# --- end to end: the recipe's own rules read the words; the request's words win


def test_pbs_script_as_a_pytorchjob():
    g = generate("Porting my PBS job to a PyTorchJob, namespace speech:\n```\n#PBS -N whisper-ft\n"
                 "#PBS -l select=3:ncpus=24:ngpus=4:mem=200gb\n#PBS -l walltime=12:00:00\n```", RECIPES, llm=False)
    assert g.recipe == "pytorchjob"
    assert {k: g.params[k] for k in ("name", "nodes", "gpus", "cpu", "memory", "namespace")} == {
        "name": "whisper-ft", "nodes": 3, "gpus": 4, "cpu": 24, "memory": "200Gi", "namespace": "speech"}
    assert any("walltime=12:00:00" in u for u in g.unused)  # no parameter takes it: reported as written


def test_lsf_array_as_an_indexed_job():
    g = generate('indexed job please, this is the LSF line:\nbsub -J "ocr[1-120]%10" -gpu "num=1" ./ocr_page.sh',
                 RECIPES, llm=False)
    assert g.recipe == "indexed-job"
    assert (g.params["name"], g.params["completions"], g.params["parallelism"]) == ("ocr", 120, 10)
    assert g.params["command"] == ["./ocr_page.sh"]


def test_compose_words_win_and_unread_lines_are_reported():
    g = generate("""turn this into a gpu pod, but with 2 GPUs:
```yaml
services:
  notebook:
    image: quay.io/jupyter/pytorch-notebook:cuda12
    ports: ["8888:8888"]
    environment:
      - JUPYTER_TOKEN=abc
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: 1
              capabilities: [gpu]
```""", RECIPES, llm=False)
    assert g.recipe == "gpu-pod"
    assert (g.params["name"], g.params["gpus"]) == ("notebook", 2)
    assert g.params["image"] == "quay.io/jupyter/pytorch-notebook:cuda12"
    assert any("8888:8888" in u for u in g.unused) and any("JUPYTER_TOKEN=abc" in u for u in g.unused)
    assert not any("capabilities" in u or "driver" in u for u in g.unused)  # the format's own wiring


def test_helm_values_image_is_repository_and_tag():
    g = generate("plain Deployment instead of the chart, named rerank:\n```yaml\nreplicaCount: 3\nimage:\n"
                 "  repository: nvcr.io/nvidia/tritonserver\n  tag: 24.10-py3\n```", RECIPES, llm=False)
    assert g.recipe == "gpu-inference-deployment"
    assert g.params["image"] == "nvcr.io/nvidia/tritonserver:24.10-py3" and g.params["replicas"] == 3


def test_a_change_the_words_make_to_a_pasted_amount_is_kept():
    g = generate("compose to k8s Deployment please, 2 replicas, and halve the shm, 16gb was overkill.\n\n"
                 "services:\n  llm:\n    image: vllm/vllm-openai:v0.6.3\n    shm_size: 16gb\n", RECIPES, llm=False)
    assert g.params["shm_size"] == "8Gi" and g.params["replicas"] == 2 and g.params["name"] == "llm"
    assert not any("shm_size" in u for u in g.unused)


@pytest.mark.parametrize("text", ["#PBS -l select=abc", "bsub", "services: [1, 2]", '{"a": 1}',
                                  "services:\n  a: {image: 1}\n  b: {image: 2}\n"])
def test_odd_definitions_give_no_facts_and_no_error(text):
    translate(text)  # never raises


def test_unread_options_keep_their_dash_and_quotes():
    g = generate('indexed job from this LSF line: bsub -J "tiles[1-64]%8" -P astro -gpu "num=1" ./tile.sh',
                 RECIPES, llm=False)
    assert (g.params["completions"], g.params["parallelism"]) == (64, 8)
    assert "-P astro" in g.unused, g.unused


def test_each_batch_directive_is_located_on_its_own_line():
    g = generate("as a pytorchjob please:\n```\n#PBS -N qa-eval\n#PBS -l select=2:ncpus=8:ngpus=2\n"
                 "#PBS -l walltime=02:00:00\n#PBS -M ops@example.com\n```", RECIPES, llm=False)
    assert (g.params["name"], g.params["nodes"], g.params["gpus"]) == ("qa-eval", 2, 2)
    assert "-l walltime=02:00:00" in g.unused and "-M ops@example.com" in g.unused, g.unused


def test_table_rows_read_as_field_lines_counts_and_named_objects():
    assert _words("| Setting | Value |\n|---|---|\n| Replicas | five |\n| GPUs / replica | 1 |") == [
        "Replicas: five", "1 GPUs per replica"]
    assert _words("| profile | count |\n|--|--|\n| 3g.40gb | 1 |\n| 1g.10gb | 2 |") == ["1 3g.40gb", "2 1g.10gb"]
    assert _words("| Object | Name | Notes |\n|-|-|-|\n| ClusterQueue | ml-cq | quota 8 GPUs |") == [
        "ClusterQueue: ml-cq", "quota 8 GPUs"]
    assert _words("a | b\nc | d") == []  # no table without pipes on both sides


def test_a_design_table_fills_a_deployment_and_every_row_is_understood():
    text = ("2.1 Serving\n\n| Component | Value |\n|-----------|-----------|\n| Service name  | asr-api |\n"
            "| Namespace | speech |\n| Container image | ghcr.io/acme/asr:2.0 |\n| Replicas | three |\n"
            "| GPUs / replica | 2 |\n| Port | 9000 |\n\nFronted by the shared gateway.")
    g = generate(text, RECIPES, llm=False)
    assert g.recipe == "gpu-inference-deployment"
    assert {k: g.params[k] for k in ("name", "namespace", "image", "replicas", "gpus", "port")} == {
        "name": "asr-api", "namespace": "speech", "image": "ghcr.io/acme/asr:2.0", "replicas": 3, "gpus": 2,
        "port": 9000}
    assert not any("|" in u for u in g.unused), g.unused
    assert any("gateway" in u for u in g.unused)


def test_a_table_of_mig_profiles_and_a_table_of_kueue_objects():
    g = generate("mig layout mix-a, mixed strategy, per GPU:\n\n| profile | count |\n|---|---|\n| 3g.40gb | 1 |\n"
                 "| 1g.10gb | 4 |", RECIPES, llm=False)
    assert g.params["mig_devices"] == {"3g.40gb": 1, "1g.10gb": 4}
    assert not any("|" in u for u in g.unused), g.unused
    g = generate("Kueue objects:\n\n| Object | Name | Notes |\n|---|---|---|\n| ResourceFlavor | a100 | |\n"
                 "| ClusterQueue | cv-cq | nominal quota 16 GPUs |\n| LocalQueue | cv-lq | in namespace cv |",
                 RECIPES, llm=False)
    assert (g.params["name"], g.params["local_queue"], g.params["flavor"], g.params["gpus"], g.params["namespace"]) == (
        "cv-cq", "cv-lq", "a100", 16, "cv"), g.params


def test_a_mig_parted_config_names_the_layout_and_its_devices():
    text = ("This is the mig-parted config we used on the bare metal boxes:\n\nversion: v1\nmig-configs:\n"
            "  inference-split:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n"
            "        \"2g.20gb\": 3\n\nPlease make the GPU operator equivalent.")
    assert _words(text) == ["layout inference-split", "3x 2g.20gb"]
    g = generate(text, RECIPES, llm=False)
    assert g.recipe == "mig-config"
    assert (g.params["config_name"], g.params["mig_devices"]) == ("inference-split", {"2g.20gb": 3})
    assert not any("2g.20gb" in u or "mig-configs" in u for u in g.unused), g.unused


def test_settings_files_read_key_by_key():
    # HCL or TOML assignments, a shell environment file, a flat or nested YAML settings file, JSON over lines
    hcl = 'values:\n```hcl\npool_name    = "gpu-h100"\nmax_gpus     = 24\nzones        = ["a", "b"]\n```'
    assert _words(hcl) == ["pool name gpu-h100", "max 24 gpus", "zones a, b"]
    yml = "from the platform repo:\nqueueName: vision-cq\nnamespace: vision\nlimits:\n  nvidia.com/gpu: 16\n"
    assert _words(yml) == ["queue name vision-cq", "namespace vision", "16 limits gpu"]
    js = '{\n  "jobName": "bert-eval",\n  "gpus": 2,\n  "command": ["python", "eval.py"]\n}'
    assert _words(js) == ["named bert-eval", "2 gpus", "command: python eval.py"]
    # a Kubernetes object, prose lines and labels written for people are no settings file
    assert _words("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n") == []
    assert _words("Replicas: 3\nGPUs: 2\n") == []


def test_a_settings_paste_fills_the_manifest_and_its_lines_count_as_understood():
    req = ('karpenter pool from our terraform vars:\n```hcl\nnodepool_name  = "gpu-l40s"\ncluster_name   = "ml-west"\n'
           'gpu_limit      = 40\ninstance_types = ["g6e.12xlarge", "g6e.48xlarge"]\n```')
    g = generate(req, RECIPES, llm=False)
    assert g.recipe == "karpenter-gpu-nodepool"
    assert (g.params["name"], g.params["cluster_name"], g.params["gpu_limit"]) == ("gpu-l40s", "ml-west", 40)
    assert g.params["instance_types"] == ["g6e.12xlarge", "g6e.48xlarge"]
    assert not [u for u in g.unused if "=" in u]
    pod = generate('gpu pod from this export:\n{"name": "nbody-check",\n "gpu": 1,\n "command": ["/bin/nbody", "-benchmark"]}',
                   RECIPES, llm=False)
    assert pod.params["name"] == "nbody-check" and pod.params["command"] == ["/bin/nbody", "-benchmark"]
    env = generate("indexed job from the runner env:\n  JOB=shard-eval\n  SHARDS=40\n  PARALLEL=5\n"
                   '  CMD=["python", "run.py"]\n', RECIPES, llm=False)
    assert (env.params["name"], env.params["completions"], env.params["parallelism"]) == ("shard-eval", 40, 5)
    assert env.params["command"] == ["python", "run.py"]


def test_a_document_held_as_text_in_a_setting_is_no_setting():
    # a values file whose key holds a whole config as a block scalar: its lines are no setting of the key
    words = _words("values:\nconfig:\n  map:\n    default: |-\n      version: v1\n      sharing: {}\n  name: ts-cfg\n")
    assert not [w for w in words if "version" in w or "v1" in w], words


def test_a_settings_table_wins_over_the_words_leading_into_it_and_its_own_raw_text():
    # the intro names a team ("speech"), the table the namespace; a quoted word in a key cell is no name
    quota = generate("Quota for the audio team:\n\n| namespace | GPUs | CPU |\n|---|---|---|\n| audio-tts | 6 | 48 |\n",
                     RECIPES)
    assert quota.recipe == "gpu-quota"
    assert quota.params["namespace"] == "audio-tts" and quota.params["gpus"] == 6 and quota.params["cpu"] == 48
    alerts = generate("DCGM alerts, please:\n\n| setting | value |\n|---|---|\n| name | fleet-gpu |\n"
                      "| \"busy\" means util above | ninety percent |\n", RECIPES)
    assert alerts.params["name"] == "fleet-gpu"


def test_a_table_row_of_one_setting_keyed_in_other_words():
    # "GPU cap" names the queue's cap (gpus), not its deserved share; the number is written out
    got = generate("Volcano queue for the robotics group:\n\n| name | GPU cap | CPU cap | weight |\n"
                   "|---|---|---|---|\n| robo | twenty-four | 192 | 3 |\n", RECIPES)
    assert got.recipe == "volcano-queue"
    assert (got.params["name"], got.params["gpus"], got.params["cpu"], got.params["weight"]) == ("robo", 24, 192, 3)
    assert not any("24" in u or "twenty" in u or "192" in u for u in got.unused)


def test_a_table_cell_saying_none_or_no_turns_the_setting_off():
    pool = generate("Karpenter NodePool:\n\n| setting | value |\n|---|---|\n| families | g6e |\n| taint | none |\n",
                    RECIPES)
    assert pool.params.get("taint") is False
    queue = generate("Kueue queue:\n\n| ClusterQueue | namespace | GPUs | GPU taint toleration |\n|---|---|---|---|\n"
                     "| batch-cq | batch | 8 | no |\n", RECIPES)
    assert queue.params["gpu_toleration"] is False and queue.params["gpus"] == 8


def test_a_column_per_amount_per_unit_reads_as_per_unit():
    got = generate("Triton for the ranker:\n\n| field | value |\n|---|---|\n| GPUs/replica | 2 |\n"
                   "| replicas | 3 |\n| ready endpoint | /v2/health/ready |\n", RECIPES)
    assert (got.params["gpus"], got.params["replicas"]) == (2, 3)
    assert got.params["health_path"] == "/v2/health/ready"


def test_a_product_label_written_out_beats_the_short_name_beside_it():
    got = generate("pod `bench` with 2 GPUs on the A100 40GB PCIe cards (node label NVIDIA-A100-PCIE-40GB)", RECIPES)
    assert got.params["gpu_product"] == "NVIDIA-A100-PCIE-40GB"
    assert generate("pod `bench` with 1 GPU on an A100 40GB", RECIPES).params["gpu_product"] == "NVIDIA-A100-SXM4-40GB"


def test_nodes_named_by_their_gpu_are_nodes_and_fine_tuning_on_nodes_is_a_training_job():
    got = generate("Fine-tune on 2 L40S nodes with all 4 GPUs of each, priority class batch-low", RECIPES)
    assert got.recipe == "pytorchjob"
    assert (got.params["nodes"], got.params["gpus"]) == (2, 4)


def test_an_object_excerpt_pasted_without_fences_yields_to_the_change_asked_after_it():
    from gpukb.recipes.extract import extract_params
    from gpukb.recipes.model import find_recipe

    got = extract_params(find_recipe("gpu-operator-clusterpolicy", RECIPES),
                         "our ClusterPolicy today (excerpt):\n  mig:\n    strategy: mixed\n  dcgmExporter:\n"
                         "    enabled: true\n\nnobody uses MIG here any more, so strategy none please")
    assert got.values["mig_strategy"] == "none"
    spread = generate("spread job `ft-spread`:\n\nspec:\n  parallelism: 4\n  template:\n    spec:\n"
                      "      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: kubernetes.io/hostname\n\n"
                      "make the skew 3 and run 9 pods", RECIPES)
    assert (spread.params["max_skew"], spread.params["workers"]) == (3, 9)


def test_settings_without_a_change_after_them_stay_the_requests_own():
    got = generate("topology spread job:\nspec:\n  parallelism: 6\n  template:\n    spec:\n"
                   "      topologySpreadConstraints:\n      - maxSkew: 2\n", RECIPES)
    assert got.params.get("max_skew") == 2


def test_a_setting_taken_away_and_another_settings_value_as_a_word():
    pool = generate("current NodePool (excerpt):\n  template:\n    spec:\n      taints:\n      - key: gpu\n"
                    "        effect: NoSchedule\n\nremove the taint, families g6 only", RECIPES)
    assert pool.params.get("taint") is False
    pvc = generate("PVC `corpus` in ns nlp on efs-sc, 1Ti; recreate it as ReadWriteMany", RECIPES)
    assert pvc.params["name"] == "corpus" and pvc.params["access_mode"] == "ReadWriteMany"


def test_shorthand_counts_classes_before_their_noun_and_a_namespace_at_a_sentence_end():
    dep = generate("vllm deploy for mistralai/Mistral-7B-Instruct-v0.3 x4 replicas 1 gpu each ns chat", RECIPES)
    assert dep.params["replicas"] == 4
    mig = generate("MIG layout a100-halves: two 3g.40gb per GPU. The operator runs in nvidia-ops.", RECIPES)
    assert mig.params["namespace"] == "nvidia-ops"
    cache = generate("pod w 1 gpu + 200gi ephemeral model cache on fast-ssd sc", RECIPES)
    assert cache.params["storage_class"] == "fast-ssd"
    queue = generate("Volcano queue vision: guarantee them 4 GPUs, cap them at 24, weight 2", RECIPES)
    assert (queue.params["guarantee_gpus"], queue.params["gpus"]) == (4, 24)


def test_a_setup_copied_from_another_team_yields_to_the_changes_after_but():
    got = generate("onboard `vision`: same bundle as team-b (16 GPUs, 128 CPU, 1Ti, priority 500), but with 24 GPUs",
                   RECIPES)
    assert got.recipe == "tenant-onboarding"
    assert (got.params["tenant"], got.params["gpus"], got.params["cpu"], got.params["priority_value"]) == (
        "vision", 24, 128, 500)


def test_a_plain_word_after_a_list_cue_yields_to_the_patterns_written_later():
    got = generate("We are 20% over budget. Cluster Autoscaler priority expander: prefer `.*l4-spot.*` and "
                   "fall back to `.*l4-od.*` only when spot is gone", RECIPES)
    assert got.recipe == "cluster-autoscaler-priority-expander"
    assert got.params["preferred_groups"] == [".*l4-spot.*"] and got.params["fallback_groups"] == [".*l4-od.*"]


def test_pasted_yaml_is_parsed_once_and_each_caller_gets_its_own_copy():
    import yaml

    from gpukb.recipes.foreign import load_yaml

    block = "spec:\n  replicas: 2\n  template: {gpus: 4}\n"
    first = load_yaml(block)
    first["spec"]["replicas"] = 99  # a reader that changes what it got
    assert load_yaml(block) == {"spec": {"replicas": 2, "template": {"gpus": 4}}}
    assert load_yaml("a: 1\n---\nb: 2\n", many=True) == [{"a": 1}, {"b": 2}]
    with pytest.raises(yaml.YAMLError):
        load_yaml("key: [unclosed\n")
    with pytest.raises(yaml.YAMLError):  # an error is raised again from the cache, not swallowed
        load_yaml("key: [unclosed\n")
