"""Composed answers: the direct answer first, nothing dangling, manifests only when asked."""

from __future__ import annotations

from gpukb.backends.base import Evidence
from gpukb.backends.extractive import ExtractiveGenerator, prose_words, split_units
from gpukb.engine import other_tool
from gpukb.evals import answer_defects, split_of


def ev(i, section, text, doc="doc-a", title="Doc A"):
    return Evidence(key=f"{doc}#{section}", doc_id=doc, title=title, section=section, anchor=section.lower(),
                    path=f"kb/x/{doc}.md", area="x", source_urls=["https://example.org"], text=text, rank=i)


SEC_QUOTA = """Cap a namespace's GPUs with a ResourceQuota on `requests.nvidia.com/gpu`. Extended resources take the `requests.` prefix only.

Apply this quota:

```yaml
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpu, namespace: team-a}
spec:
  hard:
    requests.nvidia.com/gpu: "8"
```

This block goes in the namespace of the team. More in [limits](other.md)."""

SEC_OTHER = "PriorityClass values order pods for preemption. Higher values preempt lower ones."


def test_answer_leads_with_the_direct_answer_and_keeps_its_block_whole():
    c = ExtractiveGenerator().compose("how do I cap team-a at 8 GPUs yaml", [ev(0, "Quota", SEC_QUOTA),
                                                                             ev(1, "Prio", SEC_OTHER, "doc-b")])
    assert c.text.startswith("Cap a namespace's GPUs")
    assert "```yaml" in c.text and "Apply this quota:" in c.text
    assert answer_defects(c.text) == []
    assert c.cited == [0]
    assert "Related: [Prio]" in c.text


def test_a_pointing_sentence_without_its_block_is_dropped():
    c = ExtractiveGenerator().compose("why is the quota key requests.nvidia.com/gpu",
                                      [ev(0, "Quota", SEC_QUOTA)])
    assert "Apply this quota:" not in c.text or "```" in c.text
    assert "This block goes" not in c.text and "More in" not in c.text
    assert answer_defects(c.text) == []


def test_no_lone_markers_and_a_second_section_only_for_comparisons():
    ts = ev(0, "Time-slicing", "Time-slicing shares a GPU between pods with no memory isolation. It suits notebooks.")
    mig = ev(1, "MIG", "MIG splits an A100 or H100 into isolated instances with their own memory.", "doc-mig")
    c = ExtractiveGenerator().compose("time-slicing or MIG for notebooks?", [ts, mig])
    assert c.cited == [0, 1] and "[2]" in c.text
    one = ExtractiveGenerator().compose("what is time-slicing", [ts, mig])
    assert one.cited == [0]
    for text in (c.text, one.text):
        assert answer_defects(text) == []


def test_numbers_from_another_example_stay_out_when_a_manifest_is_attached():
    sec = ev(0, "Volcano", "A Volcano Job gang-schedules its pods. For example four pods x 8 GPUs give WORLD_SIZE 32.")
    c = ExtractiveGenerator().compose("volcano job 2 workers", [sec], manifest_params={"workers": 2, "gpus": 4})
    assert "32" not in c.text and c.text.startswith("A Volcano Job")


def test_defect_checker_catches_each_kind():
    assert any("lone" in d for d in answer_defects("Text. [1]\n\n[1]"))
    assert any("cut" in d for d in answer_defects("families: More patterns"))
    assert any("points" in d for d in answer_defects("Add gang scheduling (below). [1]"))
    assert any("backtick" in d for d in answer_defects("Set `foo to bar. [1]"))
    assert any("manifest" in d for d in answer_defects("Intro.\n\nUse four pods x 8 GPUs = 32. [1]", {"gpus": 4}))
    assert any("parenthesis" in d for d in answer_defects("It has policies (e.g. Volcano also runs Spark. [1]"))
    assert answer_defects("Set `foo` to bar. [1]\n\n```yaml\na: 1\n```") == []
    assert answer_defects("See [quota (hard)](q.md#a-b) and `f(x` here (twice). [1]") == []


def test_below_and_above_as_comparisons_are_not_pointers():
    sec = ev(0, "Idle node", "A node at 0.25 GPU utilization is below `--scale-down-threshold` (0.5), yet it stays. "
                             "Pods that use above their request are evicted first.")
    c = ExtractiveGenerator().compose("idle gpu node never scales down", [sec])
    assert c.text.startswith("A node at 0.25 GPU utilization is below")
    assert answer_defects(c.text) == []
    for text in ("Usage above its quota is borrowed. [1]", "It needs Kubernetes below 1.25. [1]",
                 "Set it below 10 when in doubt. [1]"):
        assert answer_defects(text) == [], text
    for text in ("The table above lists them. [1]", "See below. [1]", "Use the settings below for that. [1]",
                 "As described above, it works. [1]"):
        assert any("points" in d for d in answer_defects(text)), text


def test_an_abbreviation_or_an_open_parenthesis_does_not_end_a_sentence():
    text = ("Volcano has its own Job CRD with policies (e.g. `PodEvicted` to `RestartJob`) and plugins. "
            "It also runs Spark, i.e. Batch work. Done (see A. Then B).")
    units = [u.text for u in split_units(text)]
    assert units == ["Volcano has its own Job CRD with policies (e.g. `PodEvicted` to `RestartJob`) and plugins.",
                     "It also runs Spark, i.e. Batch work.", "Done (see A. Then B)."]
    c = ExtractiveGenerator().compose("what does a volcano job policy do", [ev(0, "Volcano", text)])
    assert answer_defects(c.text) == []


def test_prose_words_do_not_count_code():
    assert prose_words("one two\n\n```yaml\na: b c d e f\n```") == 2


def test_other_infrastructure_tools_are_named():
    assert other_tool("terraform module for a GKE node pool with A100 GPUs") == "Terraform"
    assert other_tool("pulumi program for an EKS GPU node group") == "Pulumi"
    assert other_tool("how does karpenter pick a g5") is None


def test_split_follows_topic_clusters_and_paraphrases_follow_their_original():
    qs = {"a": {"id": "a", "expected_docs": ["doc-x"]}, "b": {"id": "b", "paraphrase_of": "a", "expected_docs": ["doc-y"]}}
    assert split_of(qs["b"], qs) == split_of(qs["a"], qs)
    assert {split_of({"id": str(i), "expected_docs": [f"d{i}"]}) for i in range(30)} == {"tune", "test"}


def test_refusal_threshold_is_calibrated_on_the_tune_part_only():
    from gpukb.evals import QuestionResult, calibrate_refusal

    def r(i, conf, refuse, split):
        return QuestionResult(id=str(i), area="x", question="q", expect_refuse=refuse, refused=False,
                              confidence=conf, split=split)

    tune = [r(i, 0.7 + i / 100, False, "tune") for i in range(20)] + [r(100 + i, 0.4 + i / 100, True, "tune")
                                                                       for i in range(5)]
    # The test part would pull the threshold up if it were used.
    test = [r(200, 0.9, True, "test"), r(201, 0.95, False, "test"), r(202, 0.5, False, "test")]
    c = calibrate_refusal(tune + test)
    assert 0.44 < c["threshold"] < 0.7 and c["refusals_correct"] == 1.0 and c["false_refusals"] == 0.0
    assert c["test_refusals_correct"] == 0.0 and c["test_false_refusals"] == 0.5
    assert calibrate_refusal(tune)["threshold"] == c["threshold"]


def test_a_bare_spec_asks_for_a_manifest_but_a_described_situation_does_not():
    from gpukb import recipes as rmod
    from gpukb.engine import _asks_for_manifest

    assert _asks_for_manifest(rmod, "volcano job, 4 workers × 8 GPUs, queue research", 5.0) == "spec"
    assert _asks_for_manifest(rmod, "volcano queue capping team research at 32 gpus", 5.0) == "spec"
    for situation in ("gpu operator on microk8s, toolkit cant find containerd config",
                      "kueue withinClusterQueue LowerPriority vs LowerOrNewerEqualPriority",
                      "jobset leader finishes but workers run forever",
                      "one replica of my model server per gpu node so a node dying only kills one",
                      "our quota has limits.nvidia.com/gpu: 8 and the team is happily running 16 gpus",
                      # a symptom reported in the present or past tense
                      "prometheus operator ignores the gpu-metrics podmonitor in ns obs",
                      "karpenter nodepool gpu-burst rejected the p5 instance type"):
        assert _asks_for_manifest(rmod, situation, 5.0) is None, situation
    assert _asks_for_manifest(rmod, "volcano job, 4 workers × 8 GPUs, queue research", 1.0) is None


SEC_RESTART = """The device plugin reads its config file only when it starts. Editing the ConfigMap changes nothing on running nodes.

Long sections carry other facts too, such as which label selects a named config and where the Helm chart keeps it.

Restart the plugin so it reads the new replicas:

```bash
kubectl rollout restart daemonset/nvidia-device-plugin-daemonset -n gpu-operator
```"""


def test_a_goal_or_symptom_gets_the_sections_fix_but_a_concept_question_gets_prose():
    sec = ev(0, "Config not applied", SEC_RESTART)
    for q in ("raised time-slicing replicas in the configmap, allocatable didn't move",
              "plugin still advertises the old count after editing its configmap"):
        c = ExtractiveGenerator(max_words=40).compose(q, [sec])
        assert "kubectl rollout restart" in c.text and "Restart the plugin" in c.text, (q, c.text)
        assert answer_defects(c.text) == []
    concept = ExtractiveGenerator(max_words=40).compose("why does editing change nothing on running nodes", [sec])
    assert "```" not in concept.text


def test_a_second_section_answers_what_the_first_leaves_open():
    quota = ev(0, "Quota", "Cap a namespace's GPUs with a ResourceQuota on requests.nvidia.com/gpu.")
    prio = ev(1, "Priority", "A PriorityClass with a higher value lets production pods preempt research pods.",
              "doc-b")
    c = ExtractiveGenerator().compose("cap team-a gpus with a quota and let production preempt research pods",
                                      [quota, prio])
    assert c.cited == [0, 1] and "PriorityClass" in c.text
    one = ExtractiveGenerator().compose("cap team-a gpus with a namespace quota", [quota, prio])
    assert one.cited == [0]


def test_a_pasted_log_asks_for_no_second_section():
    quota = ev(0, "Quota", "Cap a namespace's GPUs with a ResourceQuota on requests.nvidia.com/gpu.")
    prio = ev(1, "Priority", "A PriorityClass with a higher value lets production pods preempt research pods; the "
              "kubelet reports eviction events and image pull progress.", "doc-b")
    log = ("  I0412 09:13:02.118 kubelet.go:88] preempting research pods, eviction of production images pulled\n"
           "  Warning  Evicted   2m   kubelet   priority preemption research production\n")
    q = "how do I cap gpus per namespace with a quota? we saw this in the logs:\n" + log
    assert ExtractiveGenerator().compose(q, [quota, prio]).cited == [0]
    # the same words asked in prose do ask for the second section
    asked = "cap team-a gpus with a namespace quota and let production preempt research pods"
    assert ExtractiveGenerator().compose(asked, [quota, prio]).cited == [0, 1]


def test_with_a_manifest_the_lead_is_the_next_section_with_something_to_say():
    # every sentence of the top section quotes another example's numbers
    example = ev(0, "Example", "Run 1 master and 3 workers with 8 GPUs each for 32 GPUs.")
    spec = ev(1, "Spec", "A PyTorchJob has Master and Worker replica specs; each has a Pod template.")
    other = ev(2, "Labels", "GPU nodes carry the label nvidia.com/gpu.present.", "doc-b")
    q = "pytorchjob 4 workers on gpu nodes with labels"  # the unrelated section shares more words
    c = ExtractiveGenerator().compose(q, [example, spec, other], manifest_params={"workers": 4, "gpus": 8})
    assert c.text.startswith("A PyTorchJob has Master") and c.cited[0] == 1
    assert "32" not in c.text and answer_defects(c.text, {"workers": 4, "gpus": 8}) == []
    # without a manifest the best section leads as before
    plain = ExtractiveGenerator().compose(q, [example, spec, other])
    assert plain.cited[0] == 0


def test_sections_of_the_manifest_recipe_docs_lead(tiny_settings):
    from types import SimpleNamespace

    from conftest import make_hash_embedder
    from gpukb.engine import Engine
    from gpukb.ingest import ingest

    ingest(tiny_settings, embedder=make_hash_embedder())
    eng = Engine(tiny_settings, embedder=make_hash_embedder())
    recipe = SimpleNamespace(id="r", docs=["doc-main", "doc-aux"])
    eng.recipes = lambda: ([recipe], None)  # type: ignore[method-assign]
    evidence = [ev(0, "A", "x", "doc-other"), ev(1, "B", "y", "doc-aux"), ev(2, "C", "z", "doc-main")]
    got = eng._manifest_docs_first(evidence, SimpleNamespace(recipe="r"))
    assert [e.doc_id for e in got] == ["doc-main", "doc-aux", "doc-other"]
    assert [e.rank for e in got] == [0, 1, 2]
    assert eng._manifest_docs_first(evidence, None) is evidence
    assert eng._manifest_docs_first(evidence, SimpleNamespace(recipe="unknown")) == evidence


def test_must_include_counts_the_attached_manifest_the_user_reads():
    from types import SimpleNamespace

    from gpukb.evals import _answer_checks

    q = {"must_include": [["minAvailable: 4"]], "expected_docs": ["gang-volcano"]}
    bare = SimpleNamespace(body="A Volcano Job with four workers. [1]", manifest=None, citations=[])
    assert _answer_checks(q, bare, {})[0] is False
    with_yaml = SimpleNamespace(body=bare.body, manifest={"yaml": "spec:\n  minAvailable: 4\n"}, citations=[])
    assert _answer_checks(q, with_yaml, {})[0] is True


def test_a_second_section_has_a_budget_of_its_own():
    long_lead = " ".join(["Cap a namespace's GPUs with a ResourceQuota on requests.nvidia.com/gpu."] +
                         [f"Quota detail number {i} keeps namespaces apart on shared GPU nodes." for i in range(9)])
    quota = ev(0, "Quota", long_lead)
    prio = ev(1, "Priority", "A PriorityClass with a higher value lets production pods preempt research pods. "
              "Set preemptionPolicy Never on the research class.", "doc-b")
    q = "cap team-a gpus with a quota and let production preempt research pods"
    c = ExtractiveGenerator(max_words=60, second_words=40).compose(q, [quota, prio])
    assert c.cited == [0, 1] and "PriorityClass" in c.text and "preemptionPolicy Never" in c.text
    squeezed = ExtractiveGenerator(max_words=60, second_words=10).compose(q, [quota, prio])
    assert "preemptionPolicy Never" not in squeezed.text


def test_a_sentence_ending_in_a_colon_never_stays_for_items_that_drop():
    sec = ev(0, "Events", "The PodGroup stays Pending. Look at its events for the reason:\n\n"
             "- `quota insufficient`: the queue is full (next section).\n- `overused`: see below.")
    c = ExtractiveGenerator().compose("podgroup pending: reason quota insufficient or overused?", [sec])
    assert "for the reason:" not in c.text and answer_defects(c.text) == []


SEC_ANTI = """Each replica of this Deployment refuses nodes that already run a pod labeled `app: web`, so no two replicas share a node. A node failure then takes out only one replica.

```yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: web}}
```"""


def test_a_lead_that_describes_this_manifest_brings_it_or_goes():
    c = ExtractiveGenerator().compose("keep two web replicas off the same node, how", [ev(0, "Anti", SEC_ANTI)])
    assert c.text.startswith("Each replica of this Deployment") and "podAntiAffinity" in c.text
    # with no room for the block, a section that describes its manifest yields to the next one
    other = ("Required pod anti-affinity on `kubernetes.io/hostname` keeps two replicas off one node. "
             "Extra replicas stay Pending when every node already runs one.")
    c = ExtractiveGenerator(max_code_lines=5).compose("keep two web replicas off the same node, how",
                                                      [ev(0, "Anti", SEC_ANTI), ev(1, "Rule", other, "doc-b")])
    assert "this Deployment" not in c.text and c.text.startswith("Required pod anti-affinity")
    assert answer_defects(c.text) == []


def test_the_list_an_opening_sentence_introduces_comes_with_it():
    sec = ev(0, "Not admitted", "The Workload waits because admitted jobs already use the quota. Fix, depending on intent:\n\n"
             "- Wait: it is admitted when running jobs finish.\n"
             "- Let it borrow: put the ClusterQueue in a cohort with a `borrowingLimit`.\n"
             "- Raise `nominalQuota` of the flavor.\n\n"
             "A variant of the message names the sum of all pod sets, which one flavor can never offer, and means the "
             "request itself is too large for every flavor of the queue, whatever runs today.")
    c = ExtractiveGenerator().compose("kueue workload not admitted, the cluster has free gpus, why and what do I change?",
                                      [sec])
    assert "Fix, depending on intent:" in c.text
    # the fixes share no word with the question, yet they are the answer it asks for
    assert "cohort" in c.text and "nominalQuota" in c.text
    assert answer_defects(c.text) == []


SEC_SYMPTOM = ("Half the workers of a job run and the rest wait, holding their GPUs. The scheduler places pods one at a "
               "time. See the next section.")
SEC_FIX = "Enable gang scheduling with minMember set to the worker count, so all pods start together or none do."


def test_the_section_the_lead_sends_the_reader_on_to_goes_on_with_the_answer():
    gen = ExtractiveGenerator()
    lead = ev(0, "Half-scheduled job", SEC_SYMPTOM)
    fix = Evidence(**{**ev(1, "Fix a half-scheduled job", SEC_FIX).__dict__, "pointed_from": lead.key})
    question = "half of my workers are running and the rest wait forever"
    out = gen.compose(question, [lead, fix])
    assert "minMember" in out.text and out.cited == [0, 1] and "next section" not in out.text
    # the same section, not pointed at, is only a related link for this question
    plain = gen.compose(question, [lead, ev(1, "Fix a half-scheduled job", SEC_FIX)])
    assert "minMember" not in plain.text.split("Related:")[0] and plain.cited == [0]


def test_the_engine_follows_the_next_section_and_links_of_the_lead(tiny_root, tiny_settings):
    import textwrap

    from conftest import make_hash_embedder, write_doc
    from gpukb.engine import Engine
    from gpukb.ingest import ingest

    write_doc(tiny_root, "troubleshooting", "gang", id="ts-gang", title="Gang troubles",
              body=textwrap.dedent(f"""\
                ## Half-scheduled job

                {SEC_SYMPTOM}

                ## Fix a half-scheduled job

                {SEC_FIX}

                ## Queue closed

                A closed queue rejects jobs. For the fix, see [the fix section](#fix-a-half-scheduled-job).

                ## Unrelated

                Nothing here points anywhere. See [requesting GPUs](../device-plugin/requesting.md#request-a-gpu-in-limits).
                """))
    ingest(tiny_settings, embedder=make_hash_embedder())
    eng = Engine(tiny_settings, embedder=make_hash_embedder())

    def evidence(*keys):
        return [Evidence.from_section(key, eng.index.sections[key], rank=i) for i, key in enumerate(keys)]

    got = eng._with_pointed(evidence("ts-gang#half-scheduled-job", "dp-requesting#request-a-gpu-in-limits"))
    assert [e.key for e in got] == ["ts-gang#half-scheduled-job", "ts-gang#fix-a-half-scheduled-job",
                                    "dp-requesting#request-a-gpu-in-limits"]
    assert got[1].pointed_from == "ts-gang#half-scheduled-job" and [e.rank for e in got] == [0, 1, 2]
    linked = eng._with_pointed(evidence("ts-gang#queue-closed", "ts-gang#unrelated", "ts-gang#fix-a-half-scheduled-job"))
    assert [e.key for e in linked] == ["ts-gang#queue-closed", "ts-gang#fix-a-half-scheduled-job", "ts-gang#unrelated"]
    assert linked[1].pointed_from == "ts-gang#queue-closed"
    # a link to another doc is further reading, not the rest of the answer
    quiet = evidence("ts-gang#unrelated", "dp-requesting#request-a-gpu-in-limits")
    assert eng._with_pointed(quiet) == quiet


SEC_EXAMPLE = """Ask for GPUs in `resources.limits` as `nvidia.com/gpu`; requests may only repeat the same value.

```yaml
apiVersion: v1
kind: Pod
metadata:
  name: cuda-check
spec:
  containers:
    - name: cuda
      image: nvidia/cuda:12.4.0-base-ubuntu22.04
      resources:
        limits:
          nvidia.com/gpu: 1
```

`kubectl logs cuda-check` prints `Test PASSED` once the pod ran."""


def test_a_sentence_about_an_example_object_goes_with_its_example():
    gen = ExtractiveGenerator()
    question = "how do I ask for a gpu in limits and check that the pod ran"
    with_block = gen.compose(question, [ev(0, "Request GPUs", SEC_EXAMPLE)])
    assert "```yaml" in with_block.text and "kubectl logs cuda-check" in with_block.text
    # with a manifest attached, the section's own example is left out, and so is what it says of it
    without = gen.compose(question, [ev(0, "Request GPUs", SEC_EXAMPLE)], manifest_params={"gpus": 1})
    assert "```" not in without.text and "cuda-check" not in without.text and "nvidia.com/gpu" in without.text


def test_names_of_the_users_own_things_are_left_out_of_what_is_weighed():
    from gpukb.engine import without_own_names

    vocab = {"pod", "share", "gpu", "singl", "want", "server", "run", "one", "set", "oper"}
    # a list of three, or of two in brackets: the words the KB does not know go, the known ones stay
    got = without_own_names("my pods (open-webui, vscode-server, sd-webui) want one gpu", vocab)
    assert "webui" not in got and "vscode" not in got and "server" in got and "want one gpu" in got
    got = without_own_names("we run llama.cpp, whisper.cpp and a comfyui pod on one gpu", vocab)
    assert "whisper" not in got and "llama" not in got and "a comfyui pod on one gpu" in got
    assert "ollama" not in without_own_names("share one gpu (jupyter and ollama)", vocab)
    # a lone name may be what the question is about; a list pasted in a manifest holds values
    assert without_own_names("how do I set up keycloak-operator realms", vocab) == \
        "how do I set up keycloak-operator realms"
    pasted = 'NodePool:\n  requirements:\n    values: ["p4d", "g5", "p5"]\npod wants one gpu'
    assert without_own_names(pasted, vocab) == pasted
    # a list of phrases describes kinds of work: nothing is left out
    tiers = "four tiers: production inference, urgent retraining, scheduled research jobs and best-effort notebooks"
    assert without_own_names(tiers, vocab) == tiers


SEC_VOLCANO = ("Volcano gives gang scheduling with minAvailable and queues with weights; it runs as a second scheduler "
               "(schedulerName: volcano).")
SEC_KUEUE = "Kueue keeps the default scheduler and admits whole jobs against ClusterQueue quotas."
SEC_DRIVER = ("Upgrading the driver: the upgrade controller drains one node at a time when maxParallelUpgrades is 1, "
              "and waitForCompletion holds the drain until selected jobs finish.")


def test_each_question_of_a_message_gets_its_section():
    from gpukb.text import sub_questions

    two = "Volcano or Kueue for gang scheduling our training? And how are driver upgrades rolled out across nodes?"
    assert len(sub_questions(two)) == 2
    # a statement after the question asks nothing more; nor does a part of one or two words
    assert len(sub_questions("will the upgrade restart all nodes at once? ideally one node at a time")) == 1
    assert len(sub_questions("Volcano or Kueue? why?")) < 2
    pool = [ev(0, "Volcano", SEC_VOLCANO), ev(1, "Kueue", SEC_KUEUE, "doc-b"), ev(2, "Driver", SEC_DRIVER, "doc-c")]
    c = ExtractiveGenerator().compose(two, pool)
    assert "maxParallelUpgrades" in c.text and 2 in c.cited
    assert answer_defects(c.text) == []
    # asked alone, the first question leaves the driver section out
    alone = ExtractiveGenerator().compose("Volcano or Kueue for gang scheduling our training?", pool)
    assert "maxParallelUpgrades" not in alone.text


def _overview_and_example():
    overview = Evidence(key="lws#", doc_id="lws", title="LeaderWorkerSet", section="LeaderWorkerSet", anchor="",
                        path="kb/x/lws.md", area="x", source_urls=["https://example.org"], rank=0,
                        text="A LeaderWorkerSet runs a group of pods as one unit: a leader and size - 1 workers.")
    other = ev(1, "Queueing", "Kueue admits a LeaderWorkerSet group as one Workload.", doc="kueue", title="Kueue")
    example = ev(2, "Example", "Set size to the nodes one model spans:\n\n```yaml\napiVersion: leaderworkerset.x-k8s.io/v1\n"
                 "kind: LeaderWorkerSet\nspec:\n  leaderWorkerTemplate:\n    size: 2\n```", doc="lws", title="LeaderWorkerSet")
    return overview, other, example


def test_an_overview_lead_goes_on_with_its_docs_example_for_a_how_to_question():
    overview, other, example = _overview_and_example()
    c = ExtractiveGenerator().compose("what is a leaderworkerset and how do I use it for serving?", [overview, other, example])
    assert c.cited == [0, 2] and "size: 2" in c.text


def test_an_overview_alone_answers_what_something_is():
    overview, other, example = _overview_and_example()
    c = ExtractiveGenerator().compose("what is a leaderworkerset?", [overview, other, example])
    assert c.cited == [0] and "```" not in c.text


def test_a_short_answer_goes_on_with_a_section_as_close_in_meaning():
    import dataclasses

    quota = ev(0, "Quota", "Cap a namespace's GPUs with a ResourceQuota on requests.nvidia.com/gpu.")
    lent = ev(1, "Lending", "Idle quota is lent to other teams through a Kueue cohort with a borrowingLimit.", "doc-b")
    q = "cap the gpus of a namespace with a quota"
    close = [dataclasses.replace(quota, unit_similarity=(0.62,)), dataclasses.replace(lent, unit_similarity=(0.55,))]
    assert ExtractiveGenerator().compose(q, close).cited == [0, 1]
    # far from the question by meaning, or with nothing known of its sentences: the short answer stays short
    far = [close[0], dataclasses.replace(lent, unit_similarity=(0.2,))]
    assert ExtractiveGenerator().compose(q, far).cited == [0]
    assert ExtractiveGenerator().compose(q, [quota, lent]).cited == [0]
    # a lead that already says enough is not padded
    long_lead = dataclasses.replace(close[0], text=close[0].text + " " + " ".join(
        f"Quota rule {i} limits requests.nvidia.com/gpu for namespace teams and gpu pods." for i in range(8)))
    assert ExtractiveGenerator().compose(q, [long_lead, close[1]]).cited == [0]


LABELS = """Label values are always strings.

| Label | Meaning | Example |
|---|---|---|
| `nvidia.com/gpu.product` | GPU model name | `Tesla-T4`, `A100-SXM4-40GB` |
| `nvidia.com/gpu.count` | number of GPUs on the node | `2` |
| `nvidia.com/gpu.memory` | memory per GPU in MiB, as reported by the driver at startup | `15360` |
| `nvidia.com/gpu.family` | architecture family of the cards | `turing`, `ampere` |
| `nvidia.com/gpu.machine` | machine type; the cloud instance type in public clouds | `DGX-1` |
| `nvidia.com/gpu.replicas` | schedulable replicas, equal to the count unless the GPUs are shared | `4` |
| `nvidia.com/gpu.mode` | compute or display mode of the cards | `compute` |
"""

COMPARE = """Pick the mode by the isolation the tenants need.

| | Time-slicing | MPS | MIG |
| --- | --- | --- | --- |
| Memory isolation | none | a capped share per replica | hardware partitions |
| Fault isolation | none, one crash hits every pod on the card | software limits only | hardware partitions |
| Compute share | equal time per process on the card | capped per replica | fixed slices |
| GPUs | any NVIDIA GPU including older ones | full GPUs with MIG off | data-center GPUs only such as A100, A30, H100, H200 and B200 |
| Config | `sharing.timeSlicing` in the plugin config | `sharing.mps` in the plugin config | `nvidia.com/mig.config` label with `mig.strategy` |
| Resource | `nvidia.com/gpu` or `nvidia.com/gpu.shared` | the same as time-slicing | `nvidia.com/gpu` or `nvidia.com/mig-<profile>` |
"""


def test_a_long_table_answers_with_the_rows_asked_about():
    gen = ExtractiveGenerator(max_words=60)
    out = gen.compose("which node label has the gpu model?", [ev(0, "Main labels", LABELS)]).text
    assert "| Label | Meaning | Example |" in out and "`nvidia.com/gpu.product` | GPU model name" in out
    assert "gpu.memory" not in out and "gpu.mode" not in out
    # a table that fits is shown whole
    whole = ExtractiveGenerator(max_words=400).compose("which node label has the gpu model?",
                                                       [ev(0, "Main labels", LABELS)]).text
    assert "gpu.memory" in whole and "gpu.mode" in whole


def test_a_question_naming_the_columns_gets_the_first_rows_that_fit():
    gen = ExtractiveGenerator(max_words=60)
    out = gen.compose("time-slicing vs MPS vs MIG?", [ev(0, "At a glance", COMPARE)]).text
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0].startswith("| | Time-slicing | MPS | MIG |")
    assert rows[1].startswith("| Memory isolation")
    assert all(not r.startswith(("| Resource", "| Config")) for r in rows)
    assert prose_words(out) <= 60 + 5  # (the citation marker and the lead's words)


def test_a_message_that_lists_its_questions_gives_each_item():
    from gpukb.text import listed_questions

    msg = ("three quick questions about queues:\n1) Volcano or Kueue for gang scheduling?\n"
           "2) how are driver upgrades rolled out across nodes?\n3) does it need a DaemonSet?\nthanks!")
    lead_in, items = listed_questions(msg)
    assert lead_in.startswith("three quick questions") and len(items) == 3
    assert items[2] == "does it need a DaemonSet?"  # (what follows the last item is no part of it)
    # inline markers, letters and "Q1:" count up as well
    assert len(listed_questions("two things: (a) what is MIG? (b) how do I enable it")[1]) == 2
    assert len(listed_questions("Q1: what is MPS?\nQ2: can a quota count its replicas?")[1]) == 2
    # options to choose between ask nothing of their own; nor do markers that do not count up
    assert listed_questions("Options: (a) plain ResourceQuota (b) Kueue ClusterQueues (c) one pool per team. "
                            "Which one?")[1] == []
    assert listed_questions("see 2) why is it slow? and 5) what about MIG?")[1] == []


def test_each_listed_question_is_answered_from_its_own_section_in_order():
    import dataclasses

    msg = "two questions:\n1. how are driver upgrades rolled out across nodes?\n2. Volcano or Kueue for gang scheduling?"
    pool = [ev(0, "Volcano", SEC_VOLCANO), ev(1, "Kueue", SEC_KUEUE, "doc-b"), ev(2, "Driver", SEC_DRIVER, "doc-c")]
    # the engine tags the section it retrieved for each item; the answer follows the list's order
    tagged = [dataclasses.replace(pool[2], answers=(1,)), dataclasses.replace(pool[0], answers=(2,)), pool[1]]
    c = ExtractiveGenerator().compose(msg, tagged)
    assert c.text.startswith("**1.**") and "**2.**" in c.text
    assert c.text.index("maxParallelUpgrades") < c.text.index("**2.**")
    assert c.cited[:2] == [0, 1]
    assert answer_defects(c.text) == []
    # untagged (another caller), each item takes the section that shares its telling words
    c = ExtractiveGenerator().compose(msg, pool)
    assert c.text.index("maxParallelUpgrades") < c.text.index("**2.**") and 2 in c.cited
    # the same two questions as prose keep the usual composition
    plain = ExtractiveGenerator().compose("how are driver upgrades rolled out across nodes? Volcano or Kueue for gang "
                                          "scheduling?", pool)
    assert "**1.**" not in plain.text


def test_lay_words_get_the_kbs_words_beside_them():
    from gpukb.engine import in_kb_words, lay_words

    assert "(GPU)" in lay_words("my notebook can't see the graphics card")
    assert "preempted" in lay_words("the job keeps getting kicked off halfway through")
    assert "namespace" in lay_words("our team's space on the cluster is full")
    # the user's own words stay, and a question in the KB's words is left as it is
    assert "graphics card" in lay_words("my notebook can't see the graphics card")
    assert lay_words("how do I request two GPUs in a pod") == "how do I request two GPUs in a pod"
    assert "(Pending)" in in_kb_words("my job never starts", set())
