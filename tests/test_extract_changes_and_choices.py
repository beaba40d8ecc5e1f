"""Requests that change values in a labelled list ("GPUs: 8 -> 12"), lay out options and pick one,
answer a form's yes/no fields, paste spreadsheet rows with tabs, quote a command that only reads what
exists, pick items of a pasted list by part of their names, or name a command with a subcommand."""

from gpukb.recipes import generate


def gen(text):
    return generate(text, llm=False)


def test_a_labelled_change_list_keeps_the_new_amounts_whatever_follows_them():
    g = gen("update the GPU quota for `speech-lab`:\n* GPUs: 8 -> 12\n* CPU: 64 => 96 cores\n* memory: none \u2192 512Gi")
    assert g.recipe == "gpu-quota"
    assert (g.params["gpus"], g.params["cpu"], g.params["memory"]) == (12, 96, "512Gi"), g.params
    assert g.params["namespace"] == "speech-lab"


def test_options_laid_out_then_one_chosen_give_only_the_chosen_values():
    text = ("Volcano job for `bert-pt` in namespace `nlp`, queue `nlp`.\nLayouts we compared:\n"
            "Option 1: 2 pods x 8 GPUs, needs whole nodes\nOption 2: 4 pods x 4 GPUs, half nodes\n"
            "Option 3: 8 pods x 2 GPUs, too chatty\nWe picked option 2.")
    g = gen(text)
    assert g.recipe == "volcano-job"
    assert (g.params["workers"], g.params["gpus"]) == (4, 4), g.params
    # without a choice the options stay two readings the request has to settle
    try:
        undecided = gen(text.replace("We picked option 2.", ""))
    except Exception as exc:  # the generator says the request gives two values
        assert "two values" in str(exc)
    else:
        assert (undecided.params.get("workers"), undecided.params.get("gpus")) != (4, 4)


def test_a_forms_yes_and_no_fields_are_read_as_said():
    g = gen("New tenant form\nTenant: vision\nGPU quota: 16\nCan preempt other tenants: no\nOwner: @kim")
    assert g.recipe == "tenant-onboarding"
    assert g.params["tenant"] == "vision" and g.params["gpus"] == 16
    assert g.params["preempt"] is False
    yes = gen("ClusterPolicy for the DGX racks\nDriver preinstalled: yes\nToolkit preinstalled: yes")
    assert (yes.params["driver_enabled"], yes.params["toolkit_enabled"]) == (False, False), yes.params


def test_a_spreadsheet_row_pasted_with_tabs_is_read_under_its_columns():
    text = ("PVC from the storage sheet please:\n\nname\tnamespace\tsize\tstorage class\n"
            "corpus-v2\tnlp\t4Ti\tcephfs\n")
    g = gen(text)
    assert g.recipe == "rwx-dataset-pvc"
    assert (g.params["name"], g.params["namespace"], g.params["size"], g.params["storage_class"]) == \
        ("corpus-v2", "nlp", "4Ti", "cephfs"), g.params


def test_a_command_that_only_reads_sets_nothing_and_a_pick_by_name_part_selects():
    text = ("$ aws ec2 describe-instance-types --filters Name=instance-type,Values=p4d.* \\\n"
            "    --query 'InstanceTypes[].[InstanceType]' --output text\n"
            "p4d.24xlarge\np4de.24xlarge\np5.48xlarge\n\n"
            "Karpenter NodePool `big-train` for cluster `ml`: we only want the p5 one, the 48xlarge, from that list.")
    g = gen(text)
    assert g.recipe == "karpenter-gpu-nodepool"
    assert g.params["name"] == "big-train"  # "Name=instance-type" is the filter's, no name
    assert g.params.get("instance_types") == ["p5.48xlarge"], g.params


def test_a_kept_value_said_like_today_is_asked_for():
    g = gen("KEDA ScaledObject `asr-gpu` for deployment `asr` in `voice`:\n- 60 per replica, same as today; "
            "don't wake up below 3\n- min 1, max 6")
    assert (g.params["threshold"], g.params["activation_threshold"]) == ("60", "3"), g.params


def test_a_command_keeps_its_subcommand_before_its_options():
    g = gen("gpu pod `nvlink-check` with 8 GPUs that should just run nvidia-smi nvlink -s, then exit")
    assert g.params["command"] == ["nvidia-smi", "nvlink", "-s"], g.params
    assert gen("gpu pod `smi` with 1 GPU that runs nvidia-smi and exits").params["command"] == ["nvidia-smi"]


def test_a_pasted_files_todo_comments_are_done_when_asked():
    text = ("please do the TODOs and give me the Deployment:\n```yaml\nname: ranker\nnamespace: search\n"
            "replicas: 2   # TODO: raise to 4 for the launch\ngpus: 1\nimage: ghcr.io/acme/ranker:3\n"
            "shmSize: 8Gi  # TODO: nobody knows why\n```")
    g = gen(text)
    assert g.recipe == "gpu-inference-deployment"
    assert (g.params["name"], g.params["replicas"], g.params["gpus"]) == ("ranker", 4, 1), g.params
    assert g.params.get("shm_size") == "8Gi"  # a TODO that names no value leaves the setting as it is
    # without the ask, a TODO is only a comment
    assert gen(text.replace("please do the TODOs and give", "give")).params["replicas"] == 2


def test_a_makefile_variable_is_read_where_a_command_uses_it():
    text = ("MPIJob `nccl` in `perf`, 2 workers with 8 GPUs each, same program as our Makefile:\n"
            "NP ?= 16\nARGS := -b 8 -e 8G\nmpirun -np $(NP) all_reduce_perf ${ARGS} -g 1")
    g = gen(text)
    assert g.recipe == "mpijob"
    assert g.params["program"] == ["all_reduce_perf", "-b", "8", "-e", "8G", "-g", "1"], g.params


def test_a_place_followed_by_another_kind_of_place_is_no_namespace():
    g = gen("time-slicing, 4 replicas per GPU, on the T4 nodes in the t4-pool nodegroup")
    assert g.recipe == "time-slicing" and g.params.get("namespace") != "t4-pool", g.params
    assert gen("gpu pod `probe` with 1 GPU in the ml-prod namespace").params["namespace"] == "ml-prod"


def test_a_name_followed_by_the_head_word_of_another_parameters_cue_is_that_parameters():
    g = gen("`llm-warmup` (namespace `genai`) keeps filling its disk. Pod with 1 GPU; put the model cache on a "
            "300Gi volume from the `nvme-fast` class mounted at /models")
    assert g.recipe == "model-cache-ephemeral"
    assert (g.params["name"], g.params["storage_class"]) == ("llm-warmup", "nvme-fast"), g.params


def test_a_count_with_two_descriptions_of_the_thing_counted():
    g = gen("LeaderWorkerSet `big-chat` in `llm`: each copy spread over two 8-GPU H100 nodes, TP 8 and PP 2")
    assert (g.params["size"], g.params["gpus"]) == (2, 8), g.params
    # (a function word ending another parameter's cue is no head word: "'summarizer' with 4 GPUs" names the object)
    assert gen("llm server deployment 'summarizer' with 4 GPUs").params["name"] == "summarizer"


def test_lifecycle_policies_said_are_the_whole_list():
    g = gen("volcano job `sweep`, 8 workers x 4 GPUs: if a pod is evicted restart the job, if a pod fails abort the job")
    assert g.params["policies"] == [{"event": "PodEvicted", "action": "RestartJob"},
                                    {"event": "PodFailed", "action": "AbortJob"}], g.params


def test_a_division_written_out_is_its_quotient():
    g = gen("time-slicing for the T4 pool: 96 students on 12 cards, so each GPU shows up as 96 / 12 shares")
    assert g.params["replicas"] == 8, g.params


def test_a_thing_said_not_allowed_is_left_out():
    for text in ("karpenter nodepool `gpu-train` for cluster `ml-eks`, spot not allowed",
                 "karpenter nodepool `gpu-train` for cluster `ml-eks`\nSpot allowed: no\nInstance types: g5.12xlarge",
                 "karpenter nodepool `gpu-train` for cluster `ml-eks`; spot instances are forbidden"):
        assert gen(text).params["capacity_types"] == ["on-demand"], text
