"""Requests that carry their settings as form lines, config files, commands that create the object or design
notes, and prose around pasted scheduler output."""

from __future__ import annotations

from conftest import generate_request as _gen, read_params as _read


def test_a_labelled_line_sets_a_switch_or_a_count_its_label_names():
    params = _read("volcano-job", "Volcano job bench-7 for team perf, 3 workers x 2 GPUs, image ghcr.io/perf/bench:1\n"
                                  "- ssh between the pods: no, the launcher is gone\n- retries: 4 full restarts at most\n")
    assert params["ssh"] is False and params["max_retry"] == 4, params


def test_an_amount_is_never_counted_by_the_next_settings_key():
    params = _read("indexed-job", "indexed job from this:\n[job]\nname = \"ocr-pages\"\nimage = \"ghcr.io/ocr/run:2\"\n"
                                  "[work]\ntotal = 300\nin_flight = 30\nretries_per_shard = 2\n")
    assert params["backoff_limit_per_index"] == 2, params


def test_a_key_that_names_its_unit_of_time_gives_seconds():
    params = _read("indexed-job", "indexed job from this config:\nname = \"eval-shards\"\nshards = 40\n"
                                  "keep_finished_hours = 2\n")
    assert params["ttl_seconds"] == 7200, params


def test_an_entrypoint_key_or_word_gives_the_command():
    params = _read("indexed-job", "indexed job from this:\nname = \"emb\"\nshards = 8\n"
                                  "entrypoint = [\"python\", \"/app/embed.py\"]\n")
    assert params["command"] == ["python", "/app/embed.py"], params
    words = _read("pytorchjob", "pytorchjob ft-run, 2 nodes x 8 gpus, the entrypoint is just torchrun /opt/ft.py --cfg a.yaml")
    assert words["command"] == ["torchrun", "/opt/ft.py", "--cfg", "a.yaml"], words


def test_the_other_end_of_a_range_said_with_its_unit_once():
    params = _read("hpa-gpu-metric", "HPA for deployment rerank in ns search on DCGM_FI_DEV_GPU_UTIL, "
                                     "never fewer than 3 replicas, never more than 12 (the whole L4 pool), target 70")
    assert (params["min_replicas"], params["max_replicas"]) == (3, 12), params


def test_a_kubectl_create_command_is_read_as_the_object_it_creates():
    g = _gen("turn this into a manifest we can keep in git:\n"
             "  kubectl create quota vision-gpus -n vision --hard=requests.nvidia.com/gpu=12,pods=30,count/secrets=50\n")
    assert g.recipe == "gpu-quota"
    assert (g.params["namespace"], g.params["gpus"], g.params["max_pods"]) == ("vision", 12, 30), g.params
    assert any("count/secrets=50" in u for u in g.unused), g.unused  # the pair nothing reads is reported


def test_a_kubectl_run_line_gives_name_namespace_and_image_and_no_command_from_its_flags():
    g = _gen("a pod manifest doing what this did:\n  kubectl run smi-check -n gpu-qa --restart=Never "
             "--image=nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04 --limits='nvidia.com/gpu=1'\n")
    assert g.recipe == "gpu-pod"
    assert (g.params["name"], g.params["namespace"], g.params["gpus"]) == ("smi-check", "gpu-qa", 1), g.params
    assert g.params["image"] == "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"
    assert "smi-check" not in (g.params.get("command") or []), g.params


def test_a_product_name_with_a_colon_is_no_image():
    params = _read("gpu-pod", "moving our smoke test off Run:ai. pod gpu-smoke, 1 GPU, image ghcr.io/qa/smoke:3")
    assert params["image"] == "ghcr.io/qa/smoke:3", params


def test_a_form_with_checkboxes_and_remarks_is_read_line_by_line():
    params = _read("time-slicing", "what would the portal have rendered?\n"
                                   "  operatorNamespace:   gpu-operator\n"
                                   "  slicesPerGpu:        4          (max 8)\n"
                                   "  renameSharedResource: [ ]       (keep nvidia.com/gpu)\n"
                                   "  driverManagedByOperator: [ ]    (host driver 550)\n"
                                   "  toolkitManagedByOperator: [x]\n")
    assert params["replicas"] == 4 and params["driver_enabled"] is False and params["toolkit_enabled"] is True, params


def test_a_design_notes_non_goals_ask_for_nothing():
    text = ("## GPU queue for the speech team\n### Goals\n- ClusterQueue speech-cq for namespace speech, "
            "16 GPUs nominal, cohort research\n### Non-goals\n- The 64 A100s of the old pool; later.\n"
            "### Proposal\nOne ClusterQueue and a LocalQueue speech.\n")
    params = _read("kueue-cluster-queue", text)
    assert params["gpus"] == 16, params
    # the section ends with its paragraph: what follows asks again
    from gpukb.recipes.extract import non_goal_spans

    text = "**Out of scope**: the 64 old A100s.\n\nRoll it out to the canary cluster first.\n"
    (a, b), = non_goal_spans(text)
    assert "64" in text[a:b] and "Roll" not in text[a:b]
    g = _gen(text.replace("**Out", "HPA for deployment rerank in ns search on DCGM_FI_DEV_GPU_UTIL, 2 to 6 replicas.\n\n**Out"))
    assert any("64 old A100s" in u for u in g.unused) and any("canary" in u for u in g.unused), g.unused


def test_the_size_of_a_whole_cluster_is_no_count_of_the_job():
    params = _read("pytorchjob", "the old 400-node cluster gets switched off soon. pytorchjob mae-pretrain, "
                                 "3 nodes x 8 gpus, image ghcr.io/v/mae:1")
    assert params["nodes"] == 3, params


def test_a_command_continued_over_lines_loses_its_backslashes():
    params = _read("pytorchjob", "pytorchjob dpo-run, 2 nodes x 8 gpus:\n\nsrun torchrun --nproc_per_node=8 \\\n"
                                 "     --rdzv_backend=c10d \\\n     /opt/dpo/train.py --cfg a.yaml\n")
    assert params["command"] == ["torchrun", "--nproc_per_node=8", "--rdzv_backend=c10d", "/opt/dpo/train.py",
                                 "--cfg", "a.yaml"], params


def test_prose_after_a_pasted_scheduler_message_is_still_read():
    g = _gen("every afternoon:\n  Warning  FailedScheduling  1m  default-scheduler  0/4 nodes are available: "
             "4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found.\n\n"
             "The notebooks barely use the GPU, so let's time-slice: every GPU shows up as 5 GPUs. Name the ConfigMap "
             "ts-lab.")
    assert g.recipe == "time-slicing" and g.params["replicas"] == 5 and g.params["configmap_name"] == "ts-lab", g.params


def test_a_ci_steps_inputs_are_read_without_their_holder_and_beat_a_shorter_name():
    params = _read("keda-gpu-scaledobject", "the ScaledObject this step would have applied:\n"
                   "    - name: Autoscale ranker\n      uses: acme/actions/keda@v2\n      with:\n"
                   "        deployment: ranker-vllm\n        namespace: search\n        max-replicas: 5\n"
                   "        metric: vllm:num_requests_waiting\n")
    assert params["deployment"] == "ranker-vllm" and params["max_replicas"] == 5, params


def test_question_words_run_together_or_a_lone_zero_read_as_the_kb_writes_them():
    from gpukb.engine import in_kb_words

    vocab = {"node", "group", "pool", "scale", "half", "way"}
    pairs = {("node", "group"), ("node", "pool")}
    assert in_kb_words("my nodegroup is at 0", vocab, pairs) == "my node group is at zero"
    assert in_kb_words("preempted halfway through", vocab, pairs) == "preempted halfway through"  # no such pair
    kept = "--replicas=0, 0/5 nodes, 0.5 GPU, nvidia.com/gpu: 0"
    assert in_kb_words(kept, vocab) == kept


def test_what_a_change_left_behind_is_no_subject_of_the_question():
    from gpukb.engine import in_kb_words

    assert in_kb_words("after moving from time-slicing to MIG pods stay Pending", set()) == \
        "after moving to MIG pods stay Pending"
    assert in_kb_words("we migrated from the old Volcano setup over to Kueue", set()) == "we migrated over to Kueue"
    kept = "copy the dataset from s3 to fsx, then"
    assert in_kb_words(kept, set()) == kept


def test_code_given_inline_keeps_its_interpreter():
    params = _read("gpu-pod", "pod smoke-1 with 1 gpu, image nvcr.io/nvidia/pytorch:24.10-py3, and just run "
                              "python -c \"import torch; print(torch.cuda.is_available())\"")
    assert params["command"] == ["python", "-c", "import torch; print(torch.cuda.is_available())"], params


def test_inline_hcl_objects_are_read_key_by_key():
    params = _read("karpenter-gpu-nodepool", "plain YAML instead of this please:\n"
                   "resource \"kubernetes_manifest\" \"pool\" {\n  manifest = {\n    metadata = { name = \"l4-serve\" }\n"
                   "    spec = {\n      limits     = { \"nvidia.com/gpu\" = \"24\" }\n"
                   "      disruption = { consolidationPolicy = \"WhenEmpty\", consolidateAfter = \"10m\" }\n"
                   "      subnetSelectorTerms = [{ tags = { \"karpenter.sh/discovery\" = \"serve-west\" } }]\n"
                   "    }\n  }\n}\n")
    assert params["gpu_limit"] == 24 and params["consolidate_after"] == "10m", params
    assert params["cluster_name"] == "serve-west", params


def test_a_vertex_custom_jobs_worker_pools_give_pods_gpus_image_and_command():
    from gpukb.recipes.foreign import translate

    body = ('{"displayName": "clip-ft", "jobSpec": {"workerPoolSpecs": [\n'
            '  {"machineSpec": {"acceleratorCount": 4}, "replicaCount": "1",\n'
            '   "containerSpec": {"imageUri": "us-docker.pkg.dev/p/clip:2", "command": ["python", "-m", "clip.ft"], '
            '"args": ["--epochs=3"]}},\n'
            '  {"machineSpec": {"acceleratorCount": 4}, "replicaCount": "2",\n'
            '   "containerSpec": {"imageUri": "us-docker.pkg.dev/p/clip:2", "command": ["python", "-m", "clip.ft"], '
            '"args": ["--epochs=3"]}}]}}')
    said = {f.words for f in translate("port this Vertex job:\n" + body)[0]}
    assert {"named clip-ft", "1 master and 2 workers", "4 gpus per pod", "image us-docker.pkg.dev/p/clip:2",
            "command: python -m clip.ft --epochs=3"} <= said, said
    params = _read("pytorchjob", "same job as a PyTorchJob please, image mirrored to harbor.lab/p/clip:2:\n" + body)
    assert params["command"] == ["python", "-m", "clip.ft", "--epochs=3"] and params["gpus"] == 4, params


def test_a_kustomize_overlays_strategic_merge_patch_changes_the_pasted_base():
    params = _read("gpu-inference-deployment", "just give me the final prod Deployment:\n\n# base/deployment.yaml\n"
                   "metadata:\n  name: embed-api\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n"
                   "        - name: server\n          image: vllm/vllm-openai:v0.6.3\n          resources:\n"
                   "            limits: {nvidia.com/gpu: 1}\n\n# overlays/prod/kustomization.yaml\n"
                   "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: embed-prod\n"
                   "resources:\n  - ../../base\npatches:\n  - target: {kind: Deployment, name: embed-api}\n    patch: |-\n"
                   "      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: embed-api\n"
                   "      spec:\n        replicas: 4\n        template:\n          spec:\n            containers:\n"
                   "              - name: server\n                resources:\n                  limits: {nvidia.com/gpu: 2}\n")
    assert (params["namespace"], params["replicas"], params["gpus"]) == ("embed-prod", 4, 2), params


def test_a_command_the_words_restate_beats_the_pasted_launcher_line():
    params = _read("pytorchjob", "same job on k8s, PyTorchJob lm-ft, 2 nodes x 8 gpus:\n\n#SBATCH --nodes=2\n"
                   "srun torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d /opt/lm/ft.py --cfg a.yaml\n\n"
                   "The rendezvous flags can go, so the command is just `torchrun /opt/lm/ft.py --cfg a.yaml`.")
    assert params["command"] == ["torchrun", "/opt/lm/ft.py", "--cfg", "a.yaml"], params
    prose = _read("mpijob", "mpijob hvd-rec, 4 workers x 8 gpus, image ghcr.io/r/hvd:4; the program becomes "
                            "python /opt/train_hvd.py --epochs 12. Keep it simple.")
    assert prose["program"] == ["python", "/opt/train_hvd.py", "--epochs", "12"], prose
    idle = _read("pytorchjob", "pytorchjob lm-ft, 2 nodes x 8 gpus, image ghcr.io/x/lm:2, the program is running fine on Slurm")
    assert idle.get("command") != ["running", "fine", "on", "Slurm"], idle
