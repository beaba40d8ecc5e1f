"""Requests pasted as a chat with a bot or an FAQ (each answer read with its question), as calls in a script
(keyword arguments read as settings), and amounts given as a part of a stated whole."""

from __future__ import annotations

from conftest import generate_request as _gen, read_params as _read


def test_an_answer_is_read_with_the_thing_its_question_asked_for():
    params = _read("mpijob", "assistant: Hello! What should the MPIJob be called?\nuser: nccl-sweep\n"
                             "assistant: How many worker pods?\nuser: six\n"
                             "assistant: And how many GPUs does each one get?\nuser: 4\n"
                             "assistant: Which namespace?\nuser: perf-lab\n")
    assert (params["name"], params["workers"], params["gpus"], params["namespace"]) == \
        ("nccl-sweep", 6, 4, "perf-lab"), params


def test_an_answer_giving_the_several_things_a_question_asked_for_sets_each():
    params = _read("gpu-pod", "Q: What image?\nA: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                              "Q: Pod name and namespace?\nA: smoke-a10 in qa-gpu\nQ: GPUs?\nA: one\n")
    assert (params["name"], params["namespace"], params["gpus"]) == ("smoke-a10", "qa-gpu", 1), params


def test_an_answer_that_picks_one_of_the_offered_options_is_that_option():
    params = _read("kueue-cluster-queue", "bot: Let's make a queue. Name?\nme: vision-cq\nbot: GPUs?\nme: 16\n"
                                          "bot: Ordering, strict FIFO or best-effort FIFO?\nme: strict, please\n")
    assert params["queueing_strategy"] == "StrictFIFO", params


def test_a_question_answered_no_sets_nothing_it_names():
    got = _gen("bot: What do you need?\nme: a Kueue queue\nbot: Name of the cluster queue?\nme: nlp-cq\n"
               "bot: GPUs in the queue?\nme: 24\n"
               "bot: Should it share unused quota with other queues through a cohort?\nme: no, keep it standalone\n")
    assert got.recipe == "kueue-cluster-queue" and "cohort" not in got.params, (got.recipe, got.params)
    assert got.params["gpus"] == 24 and got.params["name"] == "nlp-cq", got.params


def test_a_colleagues_thread_opened_by_the_one_who_wants_the_thing_is_no_questionnaire():
    from gpukb.recipes.foreign import translate

    thread = ("kim: need a pytorchjob for the ranker, name it ranker-ft, ns search-ml\n"
              "lou: how many workers?\nkim: 3\nlou: gpus each? 8?\nkim: 4 is plenty\n")
    assert not [f for f in translate(thread)[0] if f.fmt == "transcript"]
    asked = "lou: pytorchjob? name?\nkim: ranker-ft\nlou: how many workers?\nkim: 3\n"
    assert "workers: 3" in [f.words for f in translate(asked)[0] if f.fmt == "transcript"]


def test_keyword_arguments_of_a_pasted_call_are_settings():
    params = _read("gpu-pod", "turn this into a plain pod manifest please:\n\n"
                              "probe = KubernetesPodOperator(\n    task_id=\"probe\",\n    name=\"cuda-probe\",\n"
                              "    namespace=\"batch-jobs\",\n    image=\"nvcr.io/nvidia/cuda:12.6.2-base-ubuntu24.04\",\n"
                              "    cmds=[\"nvidia-smi\", \"-L\"],\n"
                              "    container_resources=k8s.V1ResourceRequirements(limits={\"nvidia.com/gpu\": \"2\"}),\n)\n")
    assert (params["name"], params["namespace"], params["gpus"]) == ("cuda-probe", "batch-jobs", 2), params
    assert params["command"] == ["nvidia-smi", "-L"], params


def test_a_builder_call_names_what_its_arguments_set_and_arithmetic_is_evaluated():
    params = _read("hpa-gpu-metric", "plain YAML for this please:\n"
                                     "hpa.new(name='asr', namespace='speech')\n"
                                     "+ hpa.replicas(min=3, max=9)\n"
                                     "+ hpa.scaleDown(stabilizationWindowSeconds=10 * 60)\n")
    assert (params["min_replicas"], params["max_replicas"]) == (3, 9), params
    assert params["scale_down_stabilization_seconds"] == 600, params


def test_a_count_out_of_a_whole_named_with_it_counts_the_part():
    params = _read("pytorchjob", "pytorchjob dpo-run: 3 workers, each taking 4 of the node's 8 GPUs")
    assert params["gpus"] == 4, params


def test_a_percentage_of_a_counted_thing_comes_to_a_count():
    params = _read("indexed-job", "indexed job over 400 shards, 1 gpu each, 20 at once; "
                                  "give up once 5% of the shards have failed")
    assert (params["completions"], params["max_failed_indexes"]) == (400, 20), params


def test_a_table_column_the_words_pick_is_the_one_built():
    got = _gen("GPU quota per stage; we only set up **qa** today, prod needs sign-off.\n\n"
               "| item | dev | qa | prod |\n|---|---|---|---|\n| namespace | vision-dev | vision-qa | vision-prod |\n"
               "| GPUs | 2 | 6 | 32 |\n| pods max | 10 | 20 | 80 |\n")
    assert got.recipe == "gpu-quota", got.recipe
    assert (got.params["namespace"], got.params["gpus"]) == ("vision-qa", 6), got.params


def test_a_table_whose_columns_the_words_do_not_pick_stays_whole():
    from gpukb.recipes.extract import chosen_column

    table = "| item | dev | qa |\n|---|---|---|\n| GPUs | 2 | 6 |\n"
    assert chosen_column("quota, compare these two:\n" + table) == "quota, compare these two:\n" + table
    assert "| GPUs | 6 |" in chosen_column("build qa only:\n" + table)


def test_a_value_ruled_out_in_its_clause_is_left_out_of_a_list():
    params = _read("karpenter-gpu-nodepool", "Karpenter nodepool serve-b, L40S or A10G, but not T4")
    assert params["gpu_names"] == ["l40s", "a10g"], params
    params = _read("karpenter-gpu-nodepool", "Karpenter pool h-only: H100 only. Never let it fall back to A100s.")
    assert params["gpu_names"] == ["h100"], params
    params = _read("karpenter-gpu-nodepool", "Karpenter pool mixed-b: no more than 16 GPUs, L4 or A10G nodes")
    assert params["gpu_names"] == ["l4", "a10g"], params


def test_a_template_is_read_with_the_values_given_for_its_placeholders():
    got = _gen("Render our standard quota with these values please:\n\n"
               "  kind: ResourceQuota\n    namespace: <NAMESPACE>\n    requests.nvidia.com/gpu: ${GPUS}\n"
               "    pods: {{ .Values.maxPods }}\n\nvalues:\n  GPUS = 12\n  .Values.maxPods = 30\n"
               "  NAMESPACE = speech-lab\n")
    assert got.recipe == "gpu-quota", got.recipe
    assert (got.params["namespace"], got.params["gpus"], got.params["max_pods"]) == ("speech-lab", 12, 30), got.params
    assert not any("GPUS" in u or "NAMESPACE" in u for u in got.unused), got.unused


def test_a_closing_summary_settles_a_value_the_words_before_it_weighed():
    from gpukb.recipes.extract import extract_params
    from gpukb.recipes.model import find_recipe

    got = extract_params(find_recipe("pytorchjob"),
                         "ok thinking out loud: a fixed six-node job, 8 GPUs each. I also thought about dropping to 4 "
                         "GPUs per pod to squeeze onto more nodes, but no, stay at 8 per pod.\n"
                         "Final answer: pytorchjob vit-pre, 6 workers, 8 GPUs each")
    assert got.values["gpus"] == 8 and "gpus" not in got.conflicts, (got.values, got.conflicts)


def test_an_amount_the_words_reject_yields_to_the_other():
    params = _read("lws-vllm", "LWS for the 405B model: one 8-GPU node isn't enough, so two nodes x 8 H100 per copy, "
                               "1 replica")
    assert (params["size"], params["replicas"]) == (2, 1), params
    params = _read("pytorchjob", "pytorchjob big-ft: 2 nodes won't fit the model, use 4 nodes, 8 gpus each")
    assert params["nodes"] == 4, params


def test_a_section_marked_or_picked_among_environments_is_the_one_built():
    got = _gen("Volcano queue per environment:\n\n[dev]\n  name: cv-dev, 8 GPUs cap\n\n"
               "[prod]   <- build this one\n  name: cv-prod, 48 GPUs cap\n")
    assert got.recipe == "volcano-queue" and (got.params["name"], got.params["gpus"]) == ("cv-prod", 48), got.params
    got = _gen("Volcano queues below; build prod only.\n\n## dev\n- name cv-dev, 8 GPUs cap\n\n"
               "## prod\n- name cv-prod, 48 GPUs cap\n")
    assert (got.params["name"], got.params["gpus"]) == ("cv-prod", 48), got.params
