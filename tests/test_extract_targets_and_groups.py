"""Requests that name what an autoscaler scales in general words, a gang's least size said as "at least N
up", a word said of every listed object at once, and preemption asked as a yes/no question."""

import pytest

from gpukb.recipes import generate


def gen(text):
    return generate(text, llm=False)


@pytest.mark.parametrize("text,deployment", [
    ("The HPA on `sd-inference` (ns imagegen) currently goes 1->4 replicas; make it min 2, max 10, target 80% gpu util",
     "sd-inference"),
    ("Our embedding service `embedder` (namespace `search`) runs one T4 per pod. autoscale it between 2 and 6 "
     "replicas, aiming at 75% average GPU utilization", "embedder"),
    ("our embedding service `e5-embed` in `rag`: can KEDA scale it down to nothing when idle, up to 5 pods, "
     "scale on vllm:num_requests_running, 10 per pod", "e5-embed"),
])
def test_the_one_name_given_is_what_the_autoscaler_scales(text, deployment):
    g = gen(text)
    assert g.params["deployment"] == deployment, g.params


def test_an_autoscalers_own_name_is_not_its_target():
    g = gen("hpa named foo-hpa, 2 to 5 replicas on gpu util")
    assert g.params["name"] == "foo-hpa" and "deployment" not in g.from_request, g.params


@pytest.mark.parametrize("text,zero", [
    ("keda for `e5-embed`: scale it down to nothing when nobody's calling it, up to 5 pods", True),
    ("put `codegen-api` on KEDA off the vLLM queue so it can go all the way down to zero, never more than five replicas", True),
    ("keda scaledobject for deployment sdxl, max twelve replicas. Don't drop to zero before 20 minutes", False),
])
def test_scaling_down_to_nothing_is_no_replicas_at_all(text, zero):
    g = gen(text)
    assert (g.params.get("min_replicas") == 0 and "min_replicas" in g.from_request) is zero, g.params


def test_machines_spoken_of_after_a_correction_are_no_second_value():
    g = gen("pytorchjob, 3 nodes w/ 8 gpus each, actually make that 4 gpus per node, the 8-gpu boxes are all taken. "
            "call it whisper-ft.")
    assert (g.params["nodes"], g.params["gpus"]) == (3, 4), g.params


@pytest.mark.parametrize("text,param", [
    ("Volcano job gnn-train, queue graph. 6 workers with 2 GPUs each, and the job shouldn't start unless at least 4 "
     "of them can be placed.", "min_available"),
    ("Volcano job fold-v3, six workers with 8 GPUs each, queue bio-long. It makes progress as long as at least 4 "
     "workers are up, so don't make the gang wait for all six.", "min_available"),
    ("coscheduling: Job hvd-sweep in research, 6 pods with 2 GPUs each; at least 4 need to be up before starting, "
     "the rest can trickle in.", "min_member"),
])
def test_at_least_n_up_is_the_least_a_gang_starts_with(text, param):
    g = gen(text)
    assert g.params[param] == 4, g.params


def test_a_word_said_of_every_listed_object_fills_each():
    g = gen("could we have one priority class per tenant? nlp-tenant at 5000, vision-tenant at 4000 and speech-tenant "
            "at 3000. none of them is allowed to kick out anybody else's pods, they just wait in line.")
    assert [(c["name"], c["value"], c.get("preempt")) for c in g.params["classes"]] == [
        ("nlp-tenant", 5000, False), ("vision-tenant", 4000, False), ("speech-tenant", 3000, False)]
    assert {d["preemptionPolicy"] for d in g.documents} == {"Never"}
    g = gen("priority classes: web 900, batch 500 and idle 10. all of them may preempt lower ones.")
    assert [(c["name"], c["value"], c.get("preempt")) for c in g.params["classes"]] == [
        ("web", 900, True), ("batch", 500, True), ("idle", 10, True)]
    # a class's own word stays its own
    g = gen("priority classes: prod-a at 1000 (may preempt), dev-b at 10. none of them should be the global default")
    assert [c.get("preempt") for c in g.params["classes"]] == [True, None], g.params


@pytest.mark.parametrize("text,preempt", [
    ("New tenant request form\nTeam name: genomics\nGPUs needed: twelve\nMay their jobs bump lower-priority work? Yes\n"
     "Priority value: 5000", True),
    ("New tenant request form\nTeam name: genomics\nGPUs needed: twelve\nMay their jobs bump lower-priority work? No\n"
     "Priority value: 5000", False),
    ("New team onboarding: robotics. GPU budget: twenty GPUs. priority: 2500, and they're allowed to bump "
     "lower-priority work", True),
    ("onboard team x, 8 gpus, priority 100, not allowed to preempt anyone", False),
])
def test_preemption_asked_and_answered(text, preempt):
    g = gen(text)
    assert g.params["preempt"] is preempt and "preempt" in g.from_request, g.params
