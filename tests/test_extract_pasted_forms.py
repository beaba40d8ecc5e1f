"""Settings pasted in more shapes (a TOML or INI file in sections, the changed lines of a diff cut out of
their file, env keys that open with a bound), a questionnaire's questions and answers, amounts weighed
before one is chosen ("maybe 6, probably 8, go with 8"), a count relative to an earlier one ("one more
than the 3"), a "card" per GPU, unit words of other languages, and "the five of them" after people."""

import pytest

from gpukb.recipes import generate
from gpukb.recipes.extract import normalise_text
from gpukb.recipes.foreign import translate


def gen(text):
    return generate(text, llm=False)


def test_sectioned_settings_describe_each_sub_table_as_one_thing():
    text = ("Port this launcher config please:\n\n```toml\n[run]\nname = \"t5-gang\"\nnamespace = \"nlp\"\n"
            "queue = \"research\"\n\n[roles.chief]\nreplicas = 1\ngpus = 4\n\n[roles.worker]\nreplicas = 5\ngpus = 4\n```\n"
            "as a Volcano job with the pytorch plugin")
    g = gen(text)
    assert g.recipe == "volcano-job"
    assert g.params["tasks"] == [{"name": "chief", "replicas": 1, "gpus": 4},
                                 {"name": "worker", "replicas": 5, "gpus": 4}], g.params["tasks"]
    assert (g.params["name"], g.params["namespace"], g.params["queue"]) == ("t5-gang", "nlp", "research")


def test_an_ini_file_is_read_when_it_is_no_toml():
    # (INI values are unquoted words: no TOML parser takes them)
    facts, _plate, blocks = translate("[job]\nname = asr-ft\nnamespace = speech\n\n[limits]\ngpus = 2\n")
    words = [f.words for f in facts]
    assert "named asr-ft" in words and "namespace speech" in words and "2 gpus" in words, words
    assert blocks


def test_a_section_line_alone_is_no_settings_file():
    facts, _plate, blocks = translate("see [docs] for details; gpus = 2 later")
    assert not [f for f in facts if f.fmt == "sectioned"] and not blocks


@pytest.mark.parametrize("env,param,value", [
    ("MIN_WORKERS=3\nMAX_WORKERS=12\n", "min_workers", 3),
    ("MIN_WORKERS=3\nMAX_WORKERS=12\n", "max_workers", 12),
    ("MIN_NODES=2\nMAX_NODES=5\n", "max_workers", 5),
])
def test_an_env_key_that_opens_with_a_bound_keeps_its_bound(env, param, value):
    g = gen(f"elastic pytorchjob `mt5-xl` in ns nlp from our env file:\n\n```\n{env}GPUS_PER_NODE=4\n```")
    assert g.params[param] == value and param in g.from_request, g.params


@pytest.mark.parametrize("said,value", [("min nodes 3, max nodes 9", (3, 9)), ("minimum workers: 2, maximum workers: 7", (2, 7))])
def test_a_bound_then_its_noun_then_the_amount(said, value):
    g = gen(f"elastic pytorchjob `gpt-ft` in ns research, {said}, 8 gpus per node")
    assert (g.params["min_workers"], g.params["max_workers"]) == value, g.params


def test_the_changed_lines_of_a_diff_are_read_even_cut_out_of_their_file():
    text = ("suggested change to the HPA for `asr-api` in ns `speech`:\n\n```diff\n"
            "-  minReplicas: 1\n+  minReplicas: 3\n-  maxReplicas: 6\n+  maxReplicas: 12\n"
            "-        averageValue: \"60\"\n+        averageValue: \"75\"\n```\nscaling on gpu utilisation. full object please")
    g = gen(text)
    assert g.recipe == "hpa-gpu-metric"
    assert (g.params["min_replicas"], g.params["max_replicas"], g.params["target_value"]) == (3, 12, "75"), g.params


def test_a_questionnaire_reads_each_answer_as_the_value_its_question_names():
    text = ("Q: Which deployment?\nA: `reranker` in `search-prod`\nQ: Can it go to zero at night?\nA: yes\n"
            "Q: Upper bound?\nA: nine\nQ: Prometheus?\nA: http://prom.monitoring.svc:9090\n"
            "KEDA on the waiting requests please")
    g = gen(text)
    assert g.recipe == "keda-gpu-scaledobject"
    assert g.params["max_replicas"] == 9 and g.params["min_replicas"] == 0, g.params


@pytest.mark.parametrize("said", ["upper bound: 7", "upper limit of 7", "an upper bound of seven"])
def test_an_upper_bound_or_limit_is_a_maximum(said):
    g = gen(f"hpa for deployment `tts` in ns voice on gpu util, {said} replicas, target 65")
    assert g.params["max_replicas"] == 7, g.params


@pytest.mark.parametrize("text", [
    "indexed job `ocr-pages` in ns docs, 900 pages, one pod per page, how many at once... maybe 10, probably 30, go with 30. 1 gpu each",
    "indexed job `ocr-pages` in ns docs, 900 pages, one pod per page. how many at once? 30. 1 gpu each",
    "indexed job `ocr-pages` in ns docs, 900 pages, one pod per page, running at once: perhaps 12, let's go with 30. 1 gpu each",
])
def test_the_amount_chosen_after_weighing_others_stands(text):
    g = gen(text)
    assert g.params["parallelism"] == 30 and g.params["completions"] == 900, g.params


def test_a_weighed_amount_is_left_alone_without_a_choice():
    assert "maybe 10" in normalise_text("maybe 10 pods later, we will see")


@pytest.mark.parametrize("said,value", [("one more than the 3 we had", 4), ("two fewer than our 10", 8)])
def test_a_count_relative_to_an_earlier_one_is_the_amount_it_comes_to(said, value):
    g = gen(f"volcano job `sweep` in ns ml, queue ml-q, 4 pods with 2 gpus each, max retry {said}")
    assert g.params["max_retry"] == value, g.params


def test_no_more_than_is_still_a_bound():
    assert normalise_text("no more than 4 GPUs") == "no more than 4 GPUs"


def test_a_count_per_card_is_a_count_per_gpu():
    g = gen("time-slicing for the demo nodes, 6 per card")
    assert g.params["replicas"] == 6, g.params


@pytest.mark.parametrize("said,seconds", [("alle 45 Sekunden", 45), ("cada 2 minutos", 120)])
def test_unit_words_of_other_languages_are_units(said, seconds):
    g = gen(f"keda scaledobject for deployment `img-gen` in ns genai on DCGM_FI_DEV_GPU_UTIL, target 70, polling {said}")
    assert g.params["polling_interval"] == seconds, g.params


def test_the_n_of_them_after_people_is_no_share_of_gpus():
    g = gen("onboard tenant `geo-ai` (5 people): 16 GPUs in total, 64 cores, 256Gi memory; "
            "add the five of them to the namespace's RoleBinding")
    assert g.params["gpus"] == 16, g.params


def test_ids_a_pasted_command_printed_fill_the_parameters_shaped_for_them():
    text = ("```\n$ aws ec2 describe-subnets --filters Name=tag:Name,Values=train-b --query 'Subnets[].SubnetId'\n"
            "[\n    \"subnet-0123abcd4567ef890\"\n]\n$ aws ec2 describe-security-groups --query 'SecurityGroups[].GroupId'\n"
            "[\n    \"sg-0aaa1111bbbb22223\",\n    \"sg-0ccc3333dddd44445\"\n]\n```\n"
            "dynamic FSx for Lustre with those, storage class `fsx-ckpt`, 2400 GiB, PERSISTENT_2 at 250 MB/s/TiB")
    g = gen(text)
    assert g.recipe == "fsx-lustre-dynamic"
    assert g.params["subnet_id"] == "subnet-0123abcd4567ef890", g.params
    assert g.params["security_group_ids"] == ["sg-0aaa1111bbbb22223", "sg-0ccc3333dddd44445"], g.params


def test_two_printed_ids_for_a_single_value_fill_nothing():
    text = ("```\n$ aws ec2 describe-subnets --query 'Subnets[].SubnetId'\n[\n    \"subnet-0123abcd4567ef890\",\n"
            "    \"subnet-0fedcba987654321a\"\n]\n```\ndynamic FSx for Lustre, storage class `fsx-a`, 1200 GiB")
    g = gen(text)
    assert "subnet_id" not in g.from_request, g.params


def test_several_exports_on_one_line_are_several_settings():
    text = ("```\nexport JOB=embed-all NS=search GPUS=1\nexport COMPLETIONS=2000 PARALLEL=50\n```\n"
            "that's our batch env; an indexed job for it please")
    g = gen(text)
    assert g.recipe == "indexed-job"
    assert (g.params["name"], g.params["namespace"], g.params["gpus"], g.params["completions"]) == (
        "embed-all", "search", 1, 2000), g.params


@pytest.mark.parametrize("said", ["the driver is baked into our AMI, and the toolkit too",
                                  "the driver is preinstalled on the hosts, the container toolkit as well"])
def test_a_second_component_said_too_shares_the_state(said):
    g = gen(f"ClusterPolicy for the new pool: {said}")
    assert g.params["driver_enabled"] is False and g.params["toolkit_enabled"] is False, g.params


def test_a_component_said_too_after_no_state_changes_nothing():
    g = gen("ClusterPolicy: enable the driver, and the toolkit too")
    assert "toolkit_enabled" not in g.from_request or g.params["toolkit_enabled"] is True, g.params


def test_an_amount_chosen_late_in_a_thread_message_counts_what_the_thread_counted():
    g = gen("[10:01] ana: need a pytorchjob `seg-ft` in ns geo, 8 gpus per node\n[10:02] ben: how many nodes?\n"
            "[10:03] ana: 4 nodes\n[10:05] ben: the cluster is busy this week, so let's go with 2\n[10:06] ana: 👍")
    assert g.params["nodes"] == 2 and g.params["gpus"] == 8, g.params


@pytest.mark.parametrize("said", ["the queue is tight this week", "our queue is busy lately"])
def test_a_state_said_of_a_queue_is_no_queue_name(said):
    g = gen(f"pytorchjob `seg-ft` in ns geo, 4 nodes, 8 gpus per node; {said}")
    assert "queue" not in g.from_request, g.params


def test_a_quoted_state_word_is_still_a_name():
    g = gen("pytorchjob `seg-ft` in ns geo, 4 nodes, 8 gpus per node, queue 'busy'")
    assert g.params["queue"] == "busy", g.params


@pytest.mark.parametrize("said", ["one three g forty gig and two two g twenty gig per gpu",
                                  "3g 40gb x1 and 2g 20gb x2 per GPU", "one 3g-40gb plus two 2g-20gb on each GPU"])
def test_a_mig_profile_said_or_typed_loosely_is_the_profile(said):
    g = gen(f"MIG layout `serve-mix` for the A100 80GB nodes: {said}, mixed strategy")
    assert g.params["mig_devices"] == {"3g.40gb": 1, "2g.20gb": 2}, g.params


def test_no_mig_profile_is_made_of_a_size_that_is_none():
    assert normalise_text("a pod with 2 g of scratch and 3g 13gb") == "a pod with 2 g of scratch and 3g 13gb"


@pytest.mark.parametrize("key,words", [("InstanceCount", "3 instances"), ("NUM_GPUS", "3 gpus"),
                                       ("worker_count", "3 workers"), ("number_of_replicas", "3 replicas")])
def test_a_settings_key_that_counts_says_what_it_counts(key, words):
    facts, _plate, _blocks = translate(f"```json\n{{\"{key}\": 3, \"jobName\": \"x\"}}\n```")
    assert words in [f.words for f in facts], [f.words for f in facts]


def test_one_pod_per_former_instance_is_a_rate_not_a_count():
    g = gen("pytorchjob `rank-ft` in ns search, the old setup had 4 instances; one pod per former instance, 8 gpus each")
    assert g.params["nodes"] == 4, g.params
