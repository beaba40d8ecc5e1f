"""Settings given as a tool's command-line options (Helm's --set, a cloud CLI's flags and its
Key=Value shorthand), as a Python dict literal, as an environment variable the manifest sets; values
struck out or stressed with Markdown or Slack marks; a paste that spells out a name the words only begin."""

import pytest

from gpukb.recipes import generate
from gpukb.recipes.extract import normalise_text
from gpukb.recipes.foreign import translate


def gen(text):
    return generate(text, llm=False)


def test_helm_set_options_are_settings_and_the_release_names_the_object():
    text = ("move this to plain manifests:\n\n    helm upgrade --install asr-server ./charts/asr -n voice \\\n"
            "      --set replicaCount=3 \\\n      --set image.repository=ghcr.io/acme/asr \\\n"
            "      --set image.tag=2.1.0 \\\n      --set resources.gpus=2\n\nit's a GPU inference deployment")
    g = gen(text)
    assert g.recipe == "gpu-inference-deployment"
    assert (g.params["name"], g.params["replicas"], g.params["gpus"]) == ("asr-server", 3, 2), g.params
    assert g.params["image"] == "ghcr.io/acme/asr:2.1.0"
    assert g.params["namespace"] == "voice"
    assert not any("--set" in u or "replicaCount" in u for u in g.unused), g.unused


def test_a_set_key_with_escaped_dots_is_one_key():
    facts, _plate, _blocks = translate('helm install x ./c --set nodeSelector."nvidia\\.com/gpu\\.product"=NVIDIA-L4')
    assert "node selector gpu product NVIDIA-L4" in [f.words for f in facts], [f.words for f in facts]


def test_cloud_cli_flags_and_their_shorthand_pairs_are_settings():
    text = ("we used to run\n\n```\naws fsx create-file-system --storage-capacity 2400 \\\n"
            "  --lustre-configuration DeploymentType=SCRATCH_2\n```\n\nnow an FSx StorageClass `scratch-fsx` "
            "with a claim `scratch` in namespace `ml`, created on demand")
    g = gen(text)
    assert g.recipe == "fsx-lustre-dynamic"
    assert (g.params["storage_gib"], g.params["deployment_type"]) == (2400, "SCRATCH_2"), g.params


def test_a_python_dict_literal_is_read_as_settings():
    text = ("from the sweep script:\n\n```python\nSWEEP = {\n    'num_shards': 12,\n    'max_concurrent_shards': 3,\n"
            "    'image': 'ghcr.io/lab/sweep:0.3',\n}\n```\nas an indexed job `sweep` in ns `lab`")
    g = gen(text)
    assert g.recipe == "indexed-job"
    assert (g.params["completions"], g.params["parallelism"]) == (12, 3), g.params
    assert g.params["image"] == "ghcr.io/lab/sweep:0.3"


def test_a_dict_literal_evaluates_no_code():
    facts, _plate, _blocks = translate("CFG = {'a': __import__('os').getcwd(), 'b': 2}")
    assert not [f for f in facts if f.fmt == "json"]


def test_an_env_variable_the_manifest_sets_takes_its_value():
    g = gen("pod `hf-eval` in ns `eval` with its own 200Gi ephemeral model cache volume, image ghcr.io/x/eval:1, "
            "run as `docker run --gpus 1 -e HF_HOME=/data/hf ghcr.io/x/eval:1` today")
    assert g.recipe == "model-cache-ephemeral"
    assert g.params["cache_path"] == "/data/hf", g.params


@pytest.mark.parametrize("said,gpus", [("~~16~~ 24 GPUs", 24), ("~16~ 24 GPUs", 24), ("**GPUs:** 24", 24)])
def test_struck_values_are_taken_back_and_bold_only_stresses(said, gpus):
    g = gen(f"GPU quota for namespace `ml-ops`: {said}")
    assert g.recipe == "gpu-quota"
    assert g.params["gpus"] == gpus, g.params


@pytest.mark.parametrize("struck", ["~~, at most 4 per pod~~", "~at most 4 per pod~"])
def test_a_struck_detail_is_not_asked_for(struck):
    g = gen(f"GPU quota for namespace `ml-ops`: 24 GPUs {struck}")
    assert g.params["gpus"] == 24 and "max_gpus_per_pod" not in g.from_request, g.params


def test_a_struck_choice_is_left_out():
    g = gen("karpenter nodepool `gpu-od` for cluster `ml`, capacity: on-demand ~~and spot~~")
    assert g.params["capacity_types"] == ["on-demand"], g.params


def test_an_approximate_amount_is_no_strike():
    assert normalise_text("~8 GPUs and ~16 CPUs") .count("8") == 1 and "16" in normalise_text("~8 GPUs and ~16 CPUs")


def test_a_paste_spells_out_the_name_the_words_only_begin():
    g = gen('kueue cluster queue for Speech Lab, 16 GPUs:\n```hcl\n  namespace = "speech-lab"\n  gpu_quota = 16\n```')
    assert g.params["namespace"] == "speech-lab", g.params


def test_the_words_still_change_a_pasted_name():
    g = gen('same kueue cluster queue but in namespace speech:\n```hcl\n  namespace = "speech-lab"\n  gpu_quota = 16\n```')
    assert g.params["namespace"] == "speech", g.params


def test_the_usual_namespace_names_none():
    g = gen("MIG layout `two-halves`: 2 x 3g.40gb per GPU; the operator is not in the usual namespace but in `nv-op`")
    assert g.params["namespace"] == "nv-op", g.params


def test_paired_labels_with_a_unit_word_after_the_first_amount():
    assert "CPU 32 cores, RAM 256Gi" in normalise_text("CPU / RAM: 32 cores / 256Gi")


def test_a_kustomization_names_the_patched_object_and_its_namespace():
    text = ("our overlay:\n\n```yaml\nnamespace: asr-prod\npatches:\n  - target:\n      kind: Deployment\n"
            "      name: whisper-api\n    patch: |-\n      - op: replace\n        path: /spec/replicas\n        value: 3\n```\n\n"
            "replace the fixed count with an HPA between 1 and 6 replicas on GPU utilization, target 70")
    g = gen(text)
    assert g.recipe == "hpa-gpu-metric"
    assert (g.params["deployment"], g.params["namespace"]) == ("whisper-api", "asr-prod"), g.params
    assert (g.params["min_replicas"], g.params["max_replicas"]) == (1, 6)


def test_horovodrun_is_a_launcher_whose_hosts_are_no_image():
    text = ("as an MPIJob `bert-hvd` in ns `nlp`, image `registry.lab/hvd:1.2`, 4 workers with 4 GPUs each:\n\n"
            "    horovodrun -np 16 -H n1:4,n2:4,n3:4,n4:4 python train.py --epochs 3")
    g = gen(text)
    assert g.recipe == "mpijob"
    assert g.params["image"] == "registry.lab/hvd:1.2", g.params
    assert g.params["program"] == ["python", "train.py", "--epochs", "3"], g.params


def test_a_published_charts_release_is_a_release_not_the_objects_name():
    facts, _plate, _blocks = translate("helm upgrade --install mon prometheus-community/kube-prometheus-stack -n monitoring")
    words = [f.words for f in facts]
    assert "release mon" in words and "named mon" not in words, words
    g = gen("our kube-prometheus-stack came from\n\n    helm upgrade --install mon prometheus-community/kube-prometheus-stack "
            "-n monitoring\n\nso the release label it selects on is `mon`. ServiceMonitor and GPU alert rules for DCGM "
            "in `monitoring` please")
    assert g.params["release"] == "mon", g.params


@pytest.mark.parametrize("said", ["each physical GPU in the lab pool is shared by up to six notebooks",
                                  "every card is shared by six users"])
def test_how_many_share_one_gpu_is_the_time_slicing_replicas(said):
    g = gen(f"time-slicing for the notebook nodes: {said}")
    assert g.recipe == "time-slicing" and g.params["replicas"] == 6, g.params


def test_an_image_tag_is_no_count_of_what_the_image_is_named_after():
    g = gen("indexed job `clip-embed` in ns media, image ghcr.io/media/clip:3, 1 gpu per shard, 300 shards")
    assert g.params["image"] == "ghcr.io/media/clip:3" and g.params["completions"] == 300, g.params
    g = gen("indexed job `clip-embed` in ns media, image ghcr.io/media/clip:3, 1 gpu per shard")
    assert g.params["image"] == "ghcr.io/media/clip:3" and "completions" not in g.from_request, g.params


def test_a_fence_around_prose_is_the_requests_own_words():
    from gpukb.recipes.extract import unfenced_prose

    text = ("```\nchore(quota): cap the vision namespace on the shared cluster\n\nThe vision team may use at most "
            "twelve GPUs in their namespace from now on.\n- namespace: vision\n```")
    g = gen(text)
    assert g.recipe == "gpu-quota" and (g.params["gpus"], g.params["namespace"]) == (12, "vision"), g.params
    # code, settings, commands and columns keep their fence
    for fenced in ("```\nname: a\nnamespace: b\n```", "```\nsrun --gres=gpu:4 python train.py --epochs 90 now\n"
                   "and then we run it again with many more words\n```",
                   "```\nWarning  FailedScheduling  3m  default-scheduler  0/4 nodes are available\nmore words in here too ok\n```",
                   "```yaml\nthis is a sentence of many words\nand so is this one here too\n```"):
        assert unfenced_prose(fenced) == fenced, fenced


def test_an_env_file_keeps_its_fence_and_still_gives_the_env_variable():
    text = ("```\nexport POD=llm-eval NS=eval\nexport HF_HOME=/data/hf CACHE_SIZE=400Gi\n```\n"
            "my env. a pod whose HF cache is its own volume, created and deleted with the pod")
    g = gen(text)
    assert g.recipe == "model-cache-ephemeral"
    assert (g.params["cache_path"], g.params["cache_size"]) == ("/data/hf", "400Gi"), g.params
