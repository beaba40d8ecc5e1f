"""Requests that give their values as edits to the recipe's object by path (a JSON Patch, yq assignments, a
``kubectl patch``, a test's assertions), as code that builds the object (a Java builder, Go pointer helpers and
enumerated constants, cdk8s sizes), as a YAML paste with merged anchors or a launcher's config overrides, as a
task list, or as a table drawn with box characters."""

from __future__ import annotations

from conftest import generate_request as _gen, read_params as _read

from gpukb.recipes.extract import code_values, drawn_tables, launch_overrides, merged_entries, task_lists


def test_a_json_patch_against_the_default_sets_what_it_replaces():
    got = _gen("start from your plain GPU test pod and apply:\n\n```json\n[\n"
               '  {"op": "replace", "path": "/metadata/name", "value": "burn-in"},\n'
               '  {"op": "replace", "path": "/metadata/namespace", "value": "hw-qa"},\n'
               '  {"op": "replace", "path": "/spec/containers/0/resources/limits/nvidia.com~1gpu", "value": 2}\n'
               "]\n```\n")
    assert got.recipe == "gpu-pod", got.recipe
    assert (got.params["name"], got.params["namespace"], got.params["gpus"]) == ("burn-in", "hw-qa", 2), got.params


def test_yq_assignments_set_their_paths():
    params = _read("gpu-pod", "take the default GPU pod through this:\n\nyq '\n  .metadata.name = \"smoke-7\" |\n"
                              "  .metadata.namespace = \"lab-b\" |\n  .spec.containers[0].image = \"nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\"\n"
                              "' pod.yaml\n")
    assert (params["name"], params["namespace"], params["image"]) == \
        ("smoke-7", "lab-b", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"), params


def test_a_tests_assertions_give_the_values_and_what_must_be_absent():
    got = _gen("the volcano job must pass our CI check:\n\n```python\ndef test_job(rendered):\n    job = rendered[\"Job\"]\n"
               "    assert job[\"metadata\"] == {\"name\": \"rl-sweep\", \"namespace\": \"agents\"}\n"
               "    assert job[\"spec\"][\"queue\"] == \"agents-q\"\n"
               "    tasks = {t[\"name\"]: t for t in job[\"spec\"][\"tasks\"]}\n"
               "    assert tasks[\"worker\"][\"replicas\"] == 6\n"
               "    assert \"ssh\" not in job[\"spec\"][\"plugins\"]\n```\n")
    assert got.recipe == "volcano-job", got.recipe
    assert (got.params["name"], got.params["namespace"], got.params["queue"], got.params["workers"]) == \
        ("rl-sweep", "agents", "agents-q", 6), got.params
    # the name is the assertion's, never the key the test looks the object up by
    assert got.params["name"] != "job"


def test_a_kubectl_merge_patch_renames_and_retargets_the_object_it_patches():
    params = _read("hpa-gpu-metric", "kubectl patch hpa llm-server --type merge -p '{\n"
                                     "  \"metadata\": {\"name\": \"asr-hpa\", \"namespace\": \"speech\"},\n"
                                     "  \"spec\": {\"scaleTargetRef\": {\"name\": \"asr-api\"}, \"minReplicas\": 2, \"maxReplicas\": 7}}'\n")
    assert (params["name"], params["deployment"], params["namespace"], params["min_replicas"], params["max_replicas"]) == \
        ("asr-hpa", "asr-api", "speech", 2, 7), params


def test_a_cdk8s_escape_hatch_patch_sets_the_gpus():
    params = _read("gpu-inference-deployment",
                   "plain YAML for this cdk8s chart:\n\n```ts\nnew kplus.Deployment(this, 'tts', { metadata: { name: 'tts', "
                   "namespace: 'voice' }, replicas: 2 });\nApiObject.of(app).addJsonPatch(JsonPatch.add("
                   "'/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu', 4));\n```\n")
    assert params["gpus"] == 4, params


def test_code_values_unwraps_literals_builders_and_go_constants():
    assert code_values("Replicas: ptr.To[int32](6),") == "Replicas: 6,"
    assert code_values('"nvidia.com/gpu": resource.MustParse("4"),') == '"nvidia.com/gpu": "4",'
    assert code_values("memory: Size.gibibytes(96)") == 'memory: "96Gi"'
    assert code_values("MPIImplementation: kubeflowv2beta1.MPIImplementationTypeIntel,") == "MPIImplementation: Intel,"
    built = code_values('x = new PvcBuilder()\n    .withNewMetadata()\n    .withName("ro-data")\n'
                        '    .withStorageClassName("fast-rwx")\n    .addToRequests("storage", new Quantity("3Ti"))\n')
    assert 'name: "ro-data"' in built and 'storageClassName: "fast-rwx"' in built and 'storage: "3Ti"' in built
    assert ".withNewMetadata()" not in built
    # one setter alone is no builder: a sentence's ".withName(...)" stays as written
    assert code_values('call .withName("x") here') == 'call .withName("x") here'


def test_a_java_builder_gives_the_claims_settings():
    params = _read("rwx-dataset-pvc", "YAML for what this builds:\n\n```java\nPersistentVolumeClaim c = new PersistentVolumeClaimBuilder()\n"
                                      "    .withNewMetadata()\n        .withName(\"corpus-ro\")\n        .withNamespace(\"nlp-data\")\n"
                                      "    .endMetadata()\n    .withNewSpec()\n        .withAccessModes(\"ReadOnlyMany\")\n"
                                      "        .withStorageClassName(\"nfs-fast\")\n        .withNewResources()\n"
                                      "            .addToRequests(\"storage\", new Quantity(\"800Gi\"))\n        .endResources()\n"
                                      "    .endSpec()\n    .build();\n```\n")
    assert (params["name"], params["namespace"], params["access_mode"], params["storage_class"], params["size"]) == \
        ("corpus-ro", "nlp-data", "ReadOnlyMany", "nfs-fast", "800Gi"), params


def test_merged_anchors_give_the_entry_asked_for_with_its_overrides():
    text = ("I need the job for `sweep-b`:\n\n```yaml\nbase: &b\n  workers: 2\n  queue: default\nruns:\n"
            "  sweep-a:\n    <<: *b\n    workers: 8\n  sweep-b:\n    <<: *b\n    queue: rl\n```\n")
    merged = merged_entries(text)
    assert "workers: 2" in merged and "queue: rl" in merged and "workers: 8" not in merged
    # two entries and none named: which one is meant is not known, the paste stays as written
    assert merged_entries(text.replace("`sweep-b`", "one of these")) == text.replace("`sweep-b`", "one of these")


def test_a_launchers_override_wins_over_its_config_file():
    text = ("```yaml\ntrainer:\n  devices: 4\n  num_nodes: 2\n```\n\nlaunched as\n\n"
            "    python train.py trainer.num_nodes=5\n")
    out = launch_overrides(text)
    assert "num_nodes: 5" in out and "num_nodes: 2" not in out and "devices: 4" in out
    # a key=value in prose is no launcher's override
    assert launch_overrides("```yaml\ntrainer:\n  devices: 4\n```\nset trainer.devices=2 later") == \
        "```yaml\ntrainer:\n  devices: 4\n```\nset trainer.devices=2 later"


def test_an_accelerate_config_counts_processes_over_all_machines():
    params = _read("pytorchjob", "PyTorchJob `ft` in `lab`, from this accelerate config:\n\n```yaml\n"
                                 "distributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 8\nmixed_precision: bf16\n```\n")
    assert (params["nodes"], params["gpus"]) == (2, 4), params


def test_task_lists_to_do_and_selection():
    # every box still to do: each line is wanted
    assert task_lists("- [ ] PyTorchJob `x`\n- [ ] 8 GPUs per worker") == "- PyTorchJob `x`\n- 8 GPUs per worker"
    # ticked and unticked side by side: a short option left unticked is not chosen, a task still to do is wanted
    out = task_lists("- [x] spot is fine\n- [ ] A10G\n- [ ] turn the DCGM exporter on for this pool")
    assert out == "- spot is fine\n- no A10G\n- turn the DCGM exporter on for this pool"


def test_a_selection_list_leaves_out_the_options_not_ticked():
    got = _gen("NodePool `t4-pool` for cluster `edu-1`:\n- [x] spot is fine\n- [ ] on-demand\n- [x] T4 GPUs\n- [ ] A10G\n")
    assert got.params["gpu_names"] == ["t4"] and got.params["capacity_types"] == ["spot"], got.params


def test_a_box_drawn_table_reads_as_a_markdown_table():
    text = ("┌────────┬───────────┐\n│ field  │ value     │\n├────────┼───────────┤\n│ GPUs   │ 12        │\n"
            "└────────┴───────────┘")
    assert drawn_tables(text) == "│ field  │ value     │".replace("│", "|") + "\n|---|---|\n" + "| GPUs   | 12        |"
    params = _read("gpu-quota", "quota please:\n\n┌──────────────┬──────────────┐\n│ field        │ value        │\n"
                                "├──────────────┼──────────────┤\n│ namespace    │ vision-lab   │\n"
                                "│ GPUs         │ 10           │\n└──────────────┴──────────────┘\n")
    assert (params["namespace"], params["gpus"]) == ("vision-lab", 10), params


def test_a_required_fields_star_and_a_pod_cap():
    params = _read("gpu-quota", "Form submission\n  Namespace*:   bio-lab\n  Total GPUs*:  6\n  Pod cap:      30\n")
    assert (params["namespace"], params["gpus"], params["max_pods"]) == ("bio-lab", 6, 30), params


def test_retries_said_as_none_per_shard():
    params = _read("indexed-job", "indexed job `emb` in `search`, 64 shards, 8 at once; per-shard retries: none")
    assert params["backoff_limit_per_index"] == 0, params
    params = _read("indexed-job", "indexed job `emb` in `search`, 64 shards; no per-shard retries")
    assert params["backoff_limit_per_index"] == 0, params


def test_a_tool_call_gives_its_arguments_not_its_own_name():
    got = _gen('{"name": "make_manifest", "arguments": {"tenant": "ads-ranking", "gpu_budget": 6, "cpu_cores": 48, '
               '"notes": "a research team; also label the namespace cost-center=cc-77"}}')
    assert got.recipe == "tenant-onboarding", got.recipe
    assert got.params["tenant"] == "ads-ranking", got.params


def test_a_labels_key_is_no_name():
    params = _read("tenant-onboarding", "onboard tenant `geo-ml` with 4 GPUs, and label the namespace team-code=g7")
    assert params["tenant"] == "geo-ml", params


def test_one_piece_per_item_counts_the_items_but_one_gpu_per_item_is_a_pods():
    params = _read("indexed-job", "We have 30 folders of audio. Each folder is one piece of work and needs one GPU; "
                                  "at most 6 at a time.")
    assert (params["completions"], params["gpus"], params["parallelism"]) == (30, 1, 6), params
    params = _read("indexed-job", "120 shards, one GPU per shard, 10 at once, 1 retry per shard")
    assert (params["completions"], params["gpus"], params["backoff_limit_per_index"]) == (120, 1, 1), params


def test_a_bound_before_another_things_count_bounds_nothing_here():
    params = _read("topology-spread-training", "indexed job + headless service `seg` in `geo`, 4 workers, one per node; "
                                               "trainer = L.Trainer(devices=8, num_nodes=4, max_epochs=30)")
    assert params.get("max_skew") != 30, params
    # ... while a bound before what the recipe counts, or before nothing counted, still bounds it
    params = _read("coscheduling-podgroup", "coscheduling podgroup ring-test ns hpc 16 pods 2 gpus min 12 timeout 300s")
    assert params["members"] == 12 or params.get("min_member") == 12, params


def test_our_space_on_the_cluster_is_a_namespace():
    params = _read("indexed-job", "40 chunks, one GPU each. Our space on the cluster is called `speechlab`. Name: asr-batch.")
    assert (params["namespace"], params["name"]) == ("speechlab", "asr-batch"), params


def test_a_device_said_to_be_absent_names_no_device_class():
    params = _read("dra-gpu-claim-pod", "DRA pod `probe` in `canary`, the cluster has no device plugin, 2 GPUs")
    assert params.get("device_class") != "plugin", params


def test_numbered_answers_read_with_their_questions():
    got = _gen("Answers to your questions about the claim:\n\n> 1. Which file system? 2. Size? 3. Names?\n\n"
               "1. `fs_lab` on our ESS\n2. 12 TiB\n3. StorageClass `gpfs-lab`; claim `cryo` in namespace `bio`\n")
    assert got.recipe == "ibm-storage-scale", got.recipe
    assert (got.params["filesystem"], got.params["size"], got.params["claim_name"]) == ("fs_lab", "12Ti", "cryo"), got.params
    assert not [u for u in got.unused if "Which file system" in u], got.unused


def test_sql_rows_are_a_table_of_objects():
    got = _gen("make these PriorityClasses:\n\n```sql\nINSERT INTO tiers (name, value, can_preempt, description) VALUES\n"
               "  ('serve-hi', 900000, true, 'Inference'),\n  ('batch-lo', 100, false, 'Batch jobs');\n```\n")
    assert got.recipe == "priority-classes", got.recipe
    classes = {c["name"]: c for c in got.params["classes"]}
    assert classes["serve-hi"]["value"] == 900000 and classes["batch-lo"]["value"] == 100, classes
    assert classes["batch-lo"].get("preempt") is False, classes


def test_a_pasted_settings_number_is_read_by_its_own_key():
    params = _read("keda-gpu-scaledobject", "KEDA for `vit-serve` in `vision`:\n\n```json\n{\"deployment\": \"vit-serve\", "
                                            "\"replicas\": {\"min\": 1, \"max\": 6}, \"poll_seconds\": 20}\n```\n")
    assert params.get("polling_interval") == 20 and params.get("activation_threshold") != "20", params


def test_a_queue_owed_and_held_amounts_and_no_claw_back():
    params = _read("volcano-queue", "Volcano queue `nlp-core`: hard cap 48 GPUs, we're owed 32 when things are contended, "
                                    "and 8 held for us no matter what. Other teams do NOT get to claw back what we borrowed.")
    assert (params["gpus"], params["deserved_gpus"], params["guarantee_gpus"], params["reclaimable"]) == (48, 32, 8, False), params


def test_a_program_and_its_arguments_under_two_keys_are_one_command():
    got = _gen('Porting a Nomad task, one pod is all I need:\n\ntask "smoke" {\n  driver = "docker"\n  config {\n'
               '    image   = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"\n    command = "nvidia-smi"\n    args    = ["-L"]\n'
               '  }\n}\n')
    assert got.params["command"] == ["nvidia-smi", "-L"], got.params


def test_what_the_object_runs_as_on_the_cluster_is_its_name():
    params = _read("gpu-inference-deployment", "I want it on the cluster as `mistral-chat` in ns `assist`, 2 replicas "
                                               "behind a cluster-internal service, model mistralai/Mistral-7B-Instruct-v0.3")
    assert params["name"] == "mistral-chat", params


def test_sql_rows_over_several_lines_and_odd_quotes_never_break():
    from gpukb.recipes.extract import sql_rows

    table = sql_rows("INSERT INTO t (name, value) VALUES ('a\nb', 1), ('c', 2);")
    assert "| a b | 1 |" in table and "| c | 2 |" in table
    # a row the csv reader cannot split stays as written
    odd = "INSERT INTO t (name, value) VALUES ('a', 'x\"\ny\"z'), ('c');"
    assert sql_rows(odd) == odd
