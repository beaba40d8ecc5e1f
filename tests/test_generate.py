"""Plain-language generation, recipe matching and the dev request set."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
import yaml

from gpukb.cli import main
from gpukb.errors import GpukbError, ParameterError
from gpukb.recipes import generate, load_recipes, match_recipes, recipe_search_text, wants_manifest
from gpukb.recipes.evals import evaluate_requests, resolve_path
from gpukb.recipes.extract import extract_params

ROOT = Path(__file__).resolve().parents[1]
RECIPES = load_recipes(ROOT / "recipes")


def _recipe(rid):
    return next(r for r in RECIPES if r.id == rid)


def test_generate_volcano_request():
    g = generate("volcano job, 4 workers × 8 GPUs, queue research", RECIPES)
    assert g.recipe == "volcano-job"
    assert g.valid
    assert g.from_request == {"workers": 4, "gpus": 8, "queue": "research"}
    assert "name" in g.defaults and "workers" not in g.defaults
    assert set(g.from_request) | set(g.defaults) == set(g.params)
    job = yaml.safe_load(g.yaml)
    assert job["spec"]["minAvailable"] == 4
    d = g.to_dict()
    for key in ("recipe", "params", "yaml", "valid", "issues", "from_request", "defaults"):
        assert key in d


@pytest.mark.parametrize(
    "request_text, recipe_id, expected",
    [
        ("cap team-a at 8 GPUs", "gpu-quota", {"namespace": "team-a", "gpus": 8}),
        ("pytorchjob 2 nodes 4 gpus each image nvcr.io/nvidia/pytorch:24.05-py3", "pytorchjob",
         {"nodes": 2, "gpus": 4, "image": "nvcr.io/nvidia/pytorch:24.05-py3"}),
        ("fsx lustre 1.2TiB scratch_2 in subnet subnet-0abc", "fsx-lustre-dynamic",
         {"storage_gib": 1200, "deployment_type": "SCRATCH_2", "subnet_id": "subnet-0abc"}),
        ("RWX volume for a 2 TB dataset shared by 32 pods", "rwx-dataset-pvc", {"size": "2Ti"}),
    ],
)
def test_brief_examples(request_text, recipe_id, expected):
    g = generate(request_text, RECIPES)
    assert g.recipe == recipe_id
    for k, v in expected.items():
        assert g.from_request.get(k) == v, (k, g.from_request)
    assert g.valid


def test_a_stated_value_beyond_the_schema_is_an_error_not_a_default():
    # 300 GPUs per worker breaks the schema's maximum: never the default in its place, an error naming it
    with pytest.raises(ParameterError) as e:
        generate("volcano job with 2 workers and 300 gpus per worker", RECIPES)
    assert e.value.parameter == "gpus" and "300" in str(e.value) and "maximum of 16" in str(e.value)


def test_values_from_text_never_add_structure():
    g = generate('gpu pod named "x\n---\nkind: Secret" with 1 gpu', RECIPES)
    docs = list(yaml.safe_load_all(g.yaml))
    assert [d["kind"] for d in docs] == ["Pod"]


def test_no_match_raises():
    with pytest.raises(GpukbError):
        generate("what's the weather in Paris tomorrow", RECIPES)
    with pytest.raises(GpukbError):
        generate("   ", RECIPES)


def test_extraction_rules():
    r = _recipe("mig-config")
    ext = extract_params(r, "mig mixed with 2 x 3g.40gb and one 1g.10gb")
    assert ext.values["mig_devices"] == {"3g.40gb": 2, "1g.10gb": 1}
    assert ext.values["mig_strategy"] == "mixed"
    r = _recipe("gpu-inference-deployment")
    ext = extract_params(r, "vllm server, model loading takes 25 minutes, three replicas")
    assert ext.values["model_load_seconds"] == 1500
    assert ext.values["replicas"] == 3
    r = _recipe("karpenter-gpu-nodepool")
    ext = extract_params(r, "karpenter pool for g6e.12xlarge, g6e.24xlarge on spot")
    assert ext.values["instance_types"] == ["g6e.12xlarge", "g6e.24xlarge"]
    assert ext.values["capacity_types"] == ["spot"]


def test_match_recipes_and_search_text():
    top = match_recipes("karpenter nodepool for gpus", RECIPES, k=3)
    assert top[0][0].id == "karpenter-gpu-nodepool"
    assert len(top) <= 3 and all(s > 0 for _, s in top)
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)
    assert match_recipes("", RECIPES) == []
    text = recipe_search_text(_recipe("volcano-job"))
    assert "Volcano" in text and "gang" in text


@pytest.mark.parametrize(
    "text, want",
    [
    ("what does DRA actually give us that nvidia.com/gpu doesn't?", False),  # a question about what it gives
    ("we need Mistral served, give us the deployment", True),
        ("give me a volcano job yaml", True),
        ("manifest for a pytorchjob with 4 workers", True),
        ("write a ResourceQuota capping team-a at 8 GPUs", True),
        ("generate an fsx storageclass", True),
        ("why does my 4-node PyTorchJob deadlock half-scheduled", False),
        ("time-slicing or MIG for notebooks?", False),
        ("what is the nvidia.com/mig.config label", False),
        ("make a karpenter nodepool for g5 spot", True),
        ("can you write a kueue clusterqueue for 16 gpus", True),
        ("show me a pytorchjob with 2 workers", True),
        # goals and questions about the cluster, not requests for a file
        ("can i give a pod half a gpu? tried nvidia.com/gpu: 0.5", False),
        ("want only one replica of my model server per gpu node", False),
        ("need a selector for nodes whose driver branch is at least 550, which label", False),
        ("our old claim manifests put deviceClassName under requests, do they still work on v1?", False),
        ("a pytorchjob without yaml, just tell me the fields", False),
    ],
)
def test_wants_manifest(text, want):
    assert wants_manifest(text) is want


def test_resolve_path():
    docs = [{"kind": "A", "spec": {"l": [{"x.y/z": 1}]}}]
    assert resolve_path(docs, {}, "A.spec.l[0][x.y/z]") == 1
    assert resolve_path(docs, {"p": 2}, "params.p") == 2


# Per request file: (fully correct at least, silent drops at most, changed values at most); None is
# not held. The fresh sets were written by others and measured once held out before any tuning on them.
_FLOORS: dict[str, tuple[float, int | None, int | None]] = {
    "core.yaml": (0.9, None, None),  # the tuned core set
    "natural.yaml": (0.89, None, None),  # written by others: not below the measured level
    "fresh.yaml": (0.97, 0, None),
    "fresh2.yaml": (0.95, None, None),
    "fresh3.yaml": (0.93, None, None),
    "fresh4.yaml": (0.95, None, None),
    "fresh5.yaml": (0.95, None, None),  # held out once (0.743), tuned on since
    "fresh6.yaml": (0.97, None, None),  # held out once (0.738)
    "fresh7.yaml": (0.85, None, None),  # held out once (0.735)
    "fresh8.yaml": (0.95, None, None),  # held out once (0.802)
    # held out once (0.561); left open: "the operator shouldn't manage either" (two components)
    "fresh9.yaml": (0.85, 0, 0),
    "fresh10.yaml": (0.93, 0, 0),  # held out once (0.761)
    "fresh11.yaml": (0.95, None, None),  # held out once (0.835)
    "fresh12.yaml": (0.88, 0, 0),  # held out once (0.743)
    "fresh13.yaml": (0.97, None, None),  # held out once (0.788)
    "fresh14.yaml": (0.93, None, None),  # held out once (0.629)
    # held out once (0.554); left open: values described as what runs today ("kubectl get ... shows image x;
    # ... on y"), a value said after "but" ("storage: 200Gi ... but 500Gi"), a layout named in a kubectl label
    "fresh15.yaml": (0.82, 0, 1),
    # held out once (0.737, 0 silent drops, 3 changed values); left open: "one pod of difference" read as a
    # count, a layout named only in a kubectl label line, a value described as what runs today
    "fresh16.yaml": (0.86, 0, 0),
    # held out once (0.569, 2 silent drops, 14 changed values: Slurm lines, pasted values, state sentences)
    "fresh17.yaml": (0.85, 1, 2),
    # held out once (0.506, 1 silent drop, 10 changed values: recipe named by one object, settings of another;
    # launcher programs; values relative to a paste)
    "fresh18.yaml": (0.80, 1, 1),
    # held out once (0.565, 1 silent drop, 10 changed values; 0.576 after the first mechanisms of its round)
    "fresh19.yaml": (0.84, 0, 0),
    # held out once (0.587 and 0.763 after later extraction changes; 0.533 and 0.742 on the code they were
    # written against), tuned on since
    "fresh20.yaml": (0.83, 0, 0),
    "fresh21.yaml": (0.92, 0, 1),
    # held out once (0.579 and 0.632; 0.558 and 0.621 on the code they were written against), tuned on since
    "fresh22.yaml": (0.80, 0, 4),
    # (a pasted device plugin ConfigMap to change, "stop rejecting pods ...": once read as time-slicing, the recipe
    # it is, instead of MPS, its pasted key and old replica count show as two changed values, no longer hidden by
    # the wrong recipe)
    "fresh23.yaml": (0.81, 1, 6),
    # held out once (0.656 and 0.570; 0.656 and 0.581 on the code they were written against), tuned on since
    "fresh24.yaml": (0.84, 1, 2),
    "fresh25.yaml": (0.76, 1, 4),
    # held out once (0.656 and 0.608; 0.615 and 0.608 on the code they were written against), tuned on since
    "fresh26.yaml": (0.79, 2, 2),
    "fresh27.yaml": (0.73, 4, 4),
    # held out once (0.783 and 0.578; 0.772 and 0.578 on the code they were written against), tuned on since
    "fresh28.yaml": (0.91, 1, 3),
    "fresh29.yaml": (0.78, 2, 10),
    # held out once (0.670 and 0.516; 0.670 and 0.484 on the code they were written against), tuned on since
    "fresh30.yaml": (0.82, 1, 4),
    "fresh31.yaml": (0.69, 2, 5),
    # held out once (0.581 and 0.734; 0.570 and 0.691 on the code they were written against), tuned on since
    "fresh32.yaml": (0.66, 5, 9),
    "fresh33.yaml": (0.82, 3, 8),
    # held out once (0.606 and 0.585; 0.574 and 0.564 on the code they were written against), tuned on since
    "fresh34.yaml": (0.67, 1, 11),
    "fresh35.yaml": (0.72, 2, 14),
    # held out once (0.702 and 0.596; 0.702 and 0.574 on the code they were written against), tuned on since
    "fresh36.yaml": (0.81, 1, 6),
    "fresh37.yaml": (0.78, 0, 8),
    # held out once (0.745 and 0.596; 0.745 and 0.585 on the code they were written against), tuned on since
    "fresh38.yaml": (0.83, 1, 6),
    # (one request now gets its LeaderWorkerSet, and its replicas, derived from "as many copies as 32 GPUs
    # allow", count as a changed value where the wrong recipe counted none)
    # (75/94; one request's choice between rwx-dataset-pvc and the storage recipes is within 0.03 of score)
    "fresh39.yaml": (0.78, 2, 8),
    # held out once (0.857 and 0.680), tuned on since
    "fresh40.yaml": (1.0, 0, 0),
    "fresh41.yaml": (0.92, 0, 1),
    "fresh42.yaml": (0.96, 0, 1),  # held out once (0.800)
    # held out once (0.733, 1 silent drop, 3 changed values), in the test part; the class of one miss (a namespace
    # read as a take-back: "in ns scratch w/ 1 H100") is handled since
    "fresh43.yaml": (0.86, 0, 4),
    "fresh44.yaml": (1.0, 0, 0),  # held out once (0.800), tuned on since
    # held out once (0.714, 0 silent drops, 7 changed values in 6 requests), in the test part; the class of one
    # changed value ("max 4 -> raise to 10", the change said in words after the arrow) is handled since; a
    # queue capped at "four 8-GPU nodes (thirty-two GPUs)" was an error while "three of those nodes" read as 3
    # GPUs, and since "3 GPUs nodes" counts nodes it is a changed value (8, not the total 32)
    "fresh45.yaml": (0.71, 0, 7),
    "fresh46.yaml": (0.92, 0, 2),  # held out once (0.850), tuned on since
    # held out once (0.605, 1 silent drop, 11 changed values in 10 requests), in the test part: never tuned on
    "fresh47.yaml": (0.6, 1, 11),
    # held out once (0.696, 1 silent drop, 10 changed values in 7 requests), in the test part; the classes of
    # four of its misses (a change by a share, "max from 6 to 10", families swapped, a block of current fields
    # before "twice the current replicas") are handled since
    "fresh48.yaml": (0.78, 1, 5),
    # held out once (0.733, 0 silent drops, 4 changed values in 4 requests), in the test part; one request that
    # ended in an error (an aside's 40 GPUs) now reads the aside as state and fails on another value; the classes of
    # two others ("the llm-gateway deployment" naming the object; "students namespace: a jupyter pod", an article
    # after a label's colon) are handled since
    "fresh49.yaml": (0.77, 0, 4),
    # held out once (0.644, 1 silent drop, 7 changed values), in the test part; its misses were listed after that
    # measurement, and the classes of seven are handled since (a value taken back at once, another team's or
    # cluster's setup stated first, a clause the writer dismisses)
    "fresh50.yaml": (0.80, 1, 3),
    # held out once (0.578, 4 silent drops, 7 changed values), in the test part; its misses were listed after that
    # measurement, and the classes of five are handled since ("parallelism 5 not 10", a fenced batch script, a
    # tie between two durations, "name please x"), and later four more ("deploy" as a noun, a kubectl listing of
    # one object, a pasted HPA's own name, kubectl's "-n")
    "fresh51.yaml": (0.8, 4, 2),
    # held out once (0.500, 3 silent drops, 11 changed values), in the test part; its misses were listed after
    # that measurement, and the classes of twelve are handled since (an incident told in the past, a root-cause
    # section, "call the run x", "4 nodes instead of 2", a name the words give over a kubectl one, the volume's
    # size over the data's, a word of manner as a name, "isaac-sim" read whole, "avg=5", a terse line's amount)
    "fresh52.yaml": (0.8, 3, 4),
    # held out once (0.450, 9 silent drops, 9 changed values), in the test part; its misses were listed after
    # that measurement, and the classes of fourteen are handled since (a GPU amount read as a CPU default, a
    # value ruled out then mentioned again, "two more than any other", how many fail, "config name", "was X in
    # hers", an inner launcher, a Slurm array index, a Lustre mount source, a product's proper name, a named
    # claim, "the reranker deploy", who handed a value over, a past count beside the asked one)
    "fresh53.yaml": (0.8, 5, 4),
    # held out once (0.325 on the code before the claim_name option, 0.375 after it; 12 silent drops and 18
    # changed values on both), in the test part: never tuned on (0.425 and 10 silent drops with later rounds of
    # changes made for other sets' misses) (one request, shown with its output in an
    # earlier report, gets its launcher's program since "-bind-to none" is read as a flag and its value); its misses
    # were read after that, and the classes of four are handled since (a manifest key with its number over a
    # reading by nearness, a product's name before the kind noun, a path's closing slash, "no rename")
    "fresh54.yaml": (0.52, 10, 12),
    # held out once (0.525, 3 silent drops, 5 changed values, on the code before and after a first round of
    # changes), in the test part; its misses were read after that measurement, and the classes of five of them are
    # handled since (a claim named in code marks after "pvc", "lq `x`", "make it 3 workers not 2, and bump gpus
    # per worker to 4", an mpirun line over several lines with a host list)
    "fresh55.yaml": (0.67, 3, 4),
    # held out once (0.500, 0 silent drops, 5 changed values, on the code before and after a first round of
    # changes; 0.525 once a check written in the writer's key order was corrected), in the test part; its misses
    # were read after that measurement and the classes of thirteen of them are handled since (a pasted chat
    # thread and its last word on a value, CSV rows, "cluster queue named x", "PVC named x", "3 GPU workers",
    # "64 cores and 512Gi", "concurrency: 25", an Argo loop's item, "keep the server on 8000")
    "fresh56.yaml": (0.82, 0, 0),
    # held out (0.550, 0 silent drops, 10 changed values, on the code before any change made with it; 0.650 once
    # fourteen checks written as "contains" on a whole mapping or list were pointed at the value they meant), in
    # the test part; its misses were read after that measurement, and the classes of eight are handled since
    # (decimals said in words, "more as 4", docker's device lists, a field label before its setting, a title
    # after a name written as one, a product's name as a namespace, a launcher in a sentence, restarts in times)
    "fresh57.yaml": (0.85, 0, 4),
    # held out (0.775, 0 silent drops, 2 changed values, on the code before any change made with it), in the test
    # part; its misses were read after that measurement, and the classes of eight are handled since (roles listed
    # together and said of again, a bound worded by who holds the GPUs, "wait no ... instead", a mistyped modal
    # before "be", a form label with a qualifier, paired names and values, sharing worded as what runs at once)
    "fresh58.yaml": (0.97, 0, 1),
    # held out (0.750, 0 silent drops, 2 changed values, on the code both before and after the changes made with
    # fresh58), in the test part; its misses were read after that measurement, and the classes of six are handled
    # since (a take-back to a decimal size, "a TB and a half", "2x 1g.10gb devices", "try it again, up to 4 times",
    # "needs at least 10 of them up to start", a scheduler or a deployment to autoscale named in code marks)
    "fresh59.yaml": (0.9, 0, 1),
    # held out (0.675 and 0.550, 0 silent drops, 11 changed values together, on the code before any change made
    # with them), in the test part; their misses were read after that measurement, and the classes of most are
    # handled since (the one name an autoscaler request gives, "at least N up", a word said of every object,
    # expander tiers in brackets, a second spread "on top of that", a queue's share "under contention", a
    # total divided, a new object's size, kubectl describe output, a two-column Markdown table, pasted chart values)
    "fresh60.yaml": (0.97, 0, 0),
    "fresh61.yaml": (0.87, 0, 3),
    # held out (0.600, 6 silent drops, 9 changed values) on the code both before and after the changes made with
    # fresh60 and fresh61, in the test part; its misses were read after that second measurement
    "fresh62.yaml": (0.7, 1, 8),
    # held out (0.675, 0 silent drops, 4 changed values, on the code before any change made with it), in the tune
    # part; its misses were read after that measurement, and the classes of all are handled since (a sign-off
    # after a value, amounts in words as names, "retried no more than once", a floor and a ceiling, a quoted
    # "space", a team's handle, processors, money, "switch itself off", a cloud CLI's describe output, ...)
    "fresh63.yaml": (0.97, 0, 0),
    # held out (0.550, 0 silent drops, 10 changed values) on the code both before and after the changes made with
    # fresh63, in the test part
    "fresh64.yaml": (0.55, 0, 10),
    # held out (0.650, 0 silent drops, 7 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (a name with its kind in brackets, a bare "no" taking a
    # number back, a launcher line continued with a backslash, a cloud CLI's quoted filters, values picked out of
    # a pasted list, "the device plugin", a rough size, a pasted Job's parallelism, a docker run line restated
    # in words, "the same as a single pod", "gang minimum", an expander table)
    "fresh65.yaml": (0.9, 0, 2),
    # held out (0.700, 1 silent drop, 9 changed values) on the code both before and after the changes made with
    # fresh65 and fresh67, in the test part
    "fresh66.yaml": (0.7, 1, 9),
    # held out (0.675, 0 silent drops, 2 changed values) on the code before its round, 0.700 after the fresh65
    # changes, in the tune part; its misses were read after that (a tool ruled out after its name, a key under
    # the key it belongs to, a numbered expander list, "never two pods on the same node", "the gang has to be at
    # least", "uneven by two", "preempt lower", "any" as a plain word, an embeddings server, a bare cap)
    "fresh67.yaml": (0.9, 0, 2),
    # held out (0.567, 0 silent drops, 7 changed values) on the code both before and after the changes made with
    # fresh65 and fresh67, in the test part
    "fresh68.yaml": (0.55, 0, 7),
    # held out (0.575, 1 silent drop, 6 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (a period said as an adverb, one pod per item counted as
    # the items, a second scheduler's profile, shared GPUs under their own resource name, "before we call it
    # dead", a label key selected by with its pasted value, an exporter installed into a namespace, "3 per replica",
    # "I was going to say", "all 16 or nothing", "8 of those should stay guaranteed", "borrows at most 16")
    "fresh69.yaml": (0.8, 1, 3),
    # held out (0.650, 2 silent drops, 16 changed values) on the code both before and after the changes made with
    # fresh69, in the test part
    "fresh70.yaml": (0.65, 2, 16),
    # held out (0.325, 0 silent drops, 28 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (dictated names with "dash", upper bounds said as "must
    # not exceed" or "never more than ... at the same time", "12Ti.. no 14Ti", "no wait, finance says 10", a
    # cue inside another parameter's longer cue, "the drivers on these nodes are preinstalled", a pasted
    # NodePool's capacity type)
    "fresh71.yaml": (0.65, 0, 10),
    # held out (0.475, 1 silent drop, 19 changed values) on the code both before and after the changes made with
    # fresh71, in the test part
    "fresh72.yaml": (0.475, 1, 19),
    # held out (0.425, 0 silent drops, 9 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (env keys that open with a bound, a TOML file in sections,
    # a diff's changed lines cut out of their file, a questionnaire, "maybe 16, probably 24, go with 24", "one more
    # than the 4", "per card", "alle 30 Sekunden", "the seven of them" after people, IDs a pasted command printed,
    # several exports on one line)
    "fresh73.yaml": (0.65, 0, 7),
    # held out (0.550, 1 silent drop, 8 changed values) on the code before the changes made with fresh73, 0.550
    # (1, 9) after them, in the test part: one request more right (IDs a pasted aws command printed), one less (a
    # questionnaire that read as a chat thread before)
    "fresh74.yaml": (0.55, 1, 9),
    # held out (0.425, 0 silent drops, 9 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (Helm --set options, a cloud CLI's flags and Key=Value
    # shorthand, a Python dict literal, a kustomization's patch target, horovodrun, HF_HOME set by docker run -e,
    # struck-out values, bold labels, "CPU / RAM: 96 cores / 768Gi", a paste that spells out a name the words
    # begin, "the usual namespace", "the release label", "each physical GPU in the pool is shared by ten")
    "fresh75.yaml": (0.7, 0, 5),
    # held out (0.375, 1 silent drop, 8 changed values) on the code before the changes made with fresh75, 0.450
    # (1, 7) after them, in the test part
    "fresh76.yaml": (0.45, 1, 7),
    # held out (0.400, 2 silent drops, 20 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (a labelled change list, options and a choice, a form's
    # yes/no fields, tab-separated rows, a cloud CLI that only reads, a Makefile's variables, TODO comments to do,
    # "320 / 40 shares", a nodegroup named after "in", lifecycle policies said as the whole list)
    "fresh77.yaml": (0.6, 1, 8),
    # held out (0.450, 0 silent drops, 16 changed values) on the same code, in the test part; 0.450 (0, 14) after
    # the changes made with fresh77
    "fresh78.yaml": (0.45, 0, 14),
    # held out (0.300, 0 silent drops, 29 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (a diff hunk opening inside a mapping, a bare document
    # separator in a diff, a settings table with a notes column, Helm values read key by key, an inventory's one
    # entry, a portal's JSON keys, comments beside keys, "+12 GPUs", "for H2", ticket keys, dictated symbols and
    # versions, "not 40 chunks, 48", "replicas 1 to 6", "leave ssh out", "q perf", "living in")
    "fresh79.yaml": (0.62, 0, 15),
    # held out (0.425, 1 silent drop, 16 changed values) on the same code, in the test part; 0.475 (1, 16) after
    # the changes made with fresh79
    "fresh80.yaml": (0.47, 1, 16),
    # held out (0.275, 1 silent drop, 18 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (labelled lines naming a switch or a count, TOML lines run
    # together, a key's unit of time, entrypoint keys, the other end of a range, kubectl and vcctl commands that
    # create the object, a form's checkboxes, a design note's non-goals, a cluster's size, inline HCL objects, a
    # Vertex job's worker pools, Azure ML's processes per instance, prose after a pasted scheduler message, a
    # kustomization's strategic-merge patch over a pasted base, a command the words restate)
    "fresh81.yaml": (0.52, 2, 6),
    # held out (0.300, 0 silent drops, 18 changed values) on the same code, in the test part; 0.325 (0, 19) after
    # the changes made with fresh81
    "fresh82.yaml": (0.32, 0, 19),
    # held out (0.225, 2 silent drops, 25 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (calls in pasted Python, a count out of a node's GPUs, a
    # template with its values, a settings table with a column per environment, a value ruled out of a list, a
    # closing summary, an amount the words reject; the last lets a 405B request render, where its replicas, a
    # count no rule reads from "so one copy for now", show as a changed value instead of the size conflict)
    "fresh83.yaml": (0.32, 2, 17),
    # held out (0.325, 0 silent drops, 28 changed values) on the same code, in the test part; 0.375 (0, 26) after
    # the changes made with fresh83 (two of them, environment sections and the GPU taint named with another, made
    # after two of its failures were seen)
    "fresh84.yaml": (0.37, 0, 26),
    # held out (0.350, 1 silent drop, 21 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (ranked node-group tiers, shell exports with arithmetic,
    # typed settings models, forms with dot leaders, a range the writer resolves, tries in total, amounts in
    # scientific notation or as units of a size, words of another language, a taint's effect, PBS chunks, a
    # card's model number, a comment line's end, equal autoscaler bounds, an image's docker: transport, a part of
    # an amount named before, a Dockerfile's base image, a label's key=value, an aside's closing bracket, GPUs
    # free in a pool, a place in code marks, "our H100 one, `x`", "the command as above", "an instance 3g.40gb")
    "fresh85.yaml": (0.70, 0, 7),
    # held out (0.300, 1 silent drop, 37 changed values) on the same code, in the test part; 0.425 (1, 25) after
    # the changes made with fresh85, its misses unread
    "fresh86.yaml": (0.42, 1, 25),
    # held out (0.275, 2 silent drops, 21 changed values) on the code before any change made with it, in the tune
    # part; its misses were read after that measurement (edits by path: JSON Patch, yq, kubectl merge patches, test
    # assertions, cdk8s escape hatches; builder code and Go pointer helpers; merged YAML anchors; launcher
    # overrides; accelerate's processes per machine; task lists; box-drawn tables; required-field stars; a count's
    # cap; retries said as none; tool calls; numbered answers; SQL rows; a label's key; one piece per item; a bound
    # before another thing counted; a pasted number's own key; a queue's share, guarantee and claw-back)
    "fresh87.yaml": (0.65, 2, 4),
    # held out (0.225, 3 silent drops, 22 changed values) on the same code, in the test part; 0.300 (4, 16) after
    # the changes made with fresh87
    "fresh88.yaml": (0.30, 4, 16),
    # held out (0.200, 0 silent drops, 33 changed values) on the same code, in the test part, written while the
    # changes were made and never read; 0.300 (0, 23) after them
    "fresh89.yaml": (0.30, 0, 23),
    "tune-classes.yaml": (0.95, None, None),
}
# tuned sets whose drops and changed values are held by their floors above, not at zero
_OPEN_TUNE = (
    "fresh9.yaml", "fresh15.yaml", "fresh16.yaml", "fresh17.yaml", "fresh18.yaml", "fresh19.yaml",
    "fresh20.yaml", "fresh21.yaml", "fresh22.yaml", "fresh23.yaml", "fresh24.yaml", "fresh25.yaml",
    "fresh26.yaml", "fresh27.yaml", "fresh28.yaml", "fresh29.yaml", "fresh30.yaml", "fresh31.yaml",
    "fresh32.yaml", "fresh33.yaml", "fresh34.yaml", "fresh35.yaml", "fresh36.yaml", "fresh37.yaml",
    "fresh38.yaml", "fresh39.yaml", "fresh40.yaml", "fresh41.yaml", "fresh42.yaml", "fresh44.yaml", "fresh46.yaml",
    "fresh65.yaml", "fresh67.yaml", "fresh69.yaml", "fresh71.yaml", "fresh73.yaml", "fresh75.yaml",
    "fresh77.yaml", "fresh79.yaml", "fresh81.yaml", "fresh83.yaml", "fresh85.yaml", "fresh87.yaml",
)


def test_dev_set_target():
    """Floors, not targets: the tuned core set stays at 90 %+; the requests written
    by others must not regress below their measured level; every output validates;
    on the tune split no stated detail is silently dropped or changed (but in the
    newest tuned sets, held at their level), and held-out sets stay at their measured level."""
    report = evaluate_requests(ROOT / "evals" / "requests", RECIPES)
    assert report["cases"] >= 200
    assert report["valid_rate"] == 1.0
    tune = [r for r in report["results"] if r["split"] == "tune" and r["file"] not in _OPEN_TUNE]
    assert not [r["request"] for r in tune if r.get("silent_drops") or r.get("changed_values")]
    for name, (rate, drops, changed) in _FLOORS.items():
        rows = [r for r in report["results"] if r["file"] == name]
        failed = [(r["request"], r["failures"]) for r in rows if not r["correct"]]
        assert sum(r["correct"] for r in rows) / len(rows) >= rate, (name, failed[:5])
        if drops is not None:
            assert sum(r.get("silent_drops", 0) for r in rows) <= drops, name
        if changed is not None:
            assert sum(r.get("changed_values", 0) for r in rows) <= changed, name
    natural_test = [r for r in report["results"] if r["file"] == "natural.yaml" and r["split"] == "test"]
    assert sum(r["correct"] for r in natural_test) / len(natural_test) >= 0.80


def test_cli_generate_json(capsys):
    rc = main(["generate", "volcano job, 4 workers x 8 GPUs, queue research", "--json",
               "--recipes-dir", str(ROOT / "recipes")])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["recipe"] == "volcano-job" and out["valid"] is True
    assert out["from_request"]["queue"] == "research"
    assert "defaults" in out and "issues" in out


def test_cli_generate_jsonl(capsys, monkeypatch):
    lines = [json.dumps("cap team-a at 8 GPUs"), json.dumps({"request": "mpijob 2 workers 4 gpus"}),
             "not json {", json.dumps("tell me a joke about cats")]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    rc = main(["generate", "--json", "-", "--recipes-dir", str(ROOT / "recipes")])
    out = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    assert rc == 1  # one line had no matching recipe
    assert out[0]["recipe"] == "gpu-quota" and out[1]["recipe"] == "mpijob"
    assert "error" in out[3]
    assert len(out) == 4


def test_cli_generate_no_match(capsys):
    rc = main(["generate", "bake a chocolate cake", "--recipes-dir", str(ROOT / "recipes")])
    err = capsys.readouterr().err
    assert rc == 1 and err.startswith("Error: no recipe matches")


# ------------------------------------------------------- used / unused / missing


def test_every_detail_is_used_or_reported():
    g = generate("pytorchjob elastic with 8 workers, image my/img:1", RECIPES)
    assert g.used["workers"] == "8 workers" and "image" in g.used
    assert any("elastic" in u for u in g.unused)
    assert {m["param"] for m in g.missing} >= {"gpus"}
    assert all({"param", "question", "default"} <= set(m) for m in g.missing)


@pytest.mark.parametrize("text,detail", [
    ("keda scaledobject for the api deployment, max 6, plus a cron trigger at 7am", "cron trigger"),
    ("scaledobject for deployment chat, 1 to 4 replicas, also a kafka trigger", "kafka trigger"),
])
def test_a_title_word_after_an_unknown_modifier_is_reported_with_it(text, detail):
    g = generate(text, RECIPES)
    assert any(detail in u for u in g.unused), g.unused


def test_a_request_naming_only_the_recipe_has_nothing_unused():
    g = generate("volcano job, 4 workers x 8 GPUs, queue research", RECIPES)
    assert g.unused == [] and set(g.used) == {"workers", "gpus", "queue"}


def test_a_user_value_is_never_changed_a_conflict_is_an_error():
    with pytest.raises(ParameterError) as e:
        generate("volcano job with 2 workers, minAvailable 5", RECIPES)
    msg = str(e.value)
    assert "min_available=5" in msg and "minAvailable 5" in msg and "\n" not in msg


def test_parameter_names_work_as_cues_and_booleans_read_negation():
    g = generate("volcano job 2 workers max_retry 7 no ssh", RECIPES)
    assert g.params["max_retry"] == 7 and g.params["ssh"] is False
    assert g.used["ssh"] == "no ssh"


def test_negated_tool_does_not_pick_its_recipe():
    from gpukb.recipes import match_recipes

    top = match_recipes("gang scheduling without volcano, using the coscheduling plugin, 4 pods", RECIPES, k=1)
    assert top[0][0].id == "coscheduling-podgroup"


def test_generate_json_has_the_contract_keys():
    d = generate("indexed job with 4 completions", RECIPES).to_dict()
    assert {"recipe", "params", "yaml", "valid", "issues", "used", "unused", "missing"} <= set(d)


def test_a_parameter_given_two_numbers_is_an_error_naming_both():
    from gpukb.errors import ParameterError
    with pytest.raises(ParameterError) as exc:
        generate("vllm inference deployment, 1 gpu per replica, though each replica really needs 2 gpus", llm=False)
    assert "gpus" in str(exc.value) and "1" in str(exc.value) and "2" in str(exc.value)


@pytest.mark.parametrize("text, n", [("time slicing so every card looks like 3", 3),
                                     ("time-slicing: each physical gpu shows up as 6 gpus", 6),
                                     ("time slicing x5 on the a10 nodes", 5)])
def test_time_slicing_replicas_from_what_one_gpu_appears_as(text, n):
    assert generate(text, llm=False).params["replicas"] == n


@pytest.mark.parametrize("text, recipe_id", [
    ("cluster policy - mig manager on with configmap team-mig, mixed mig strategy", "gpu-operator-clusterpolicy"),
    ("ClusterPolicy: keep the mig manager but read mig-parted config from my-layouts", "gpu-operator-clusterpolicy"),
    ("mig: 7 x 1g.10gb on every a100, gpu operator already installed with preinstalled driver", "mig-config"),
    ("gpu operator whose mig manager reads configmap other-layouts", "gpu-operator-clusterpolicy"),
])
def test_a_head_naming_the_object_before_a_colon_or_dash_binds_the_recipe(text, recipe_id):
    assert match_recipes(text, RECIPES, k=1)[0][0].id == recipe_id


def test_a_title_word_inside_a_detail_not_understood_stays_in_it():
    g = generate("GPU time-slicing with 2 replicas per card, and cap GPU memory usage at 10GB per pod", recipes=RECIPES)
    assert any("GPU memory usage" in u for u in g.unused), g.unused


def test_priority_classes_with_plain_names_in_a_list():
    g = generate("three priority classes: web 900, batch 500, and idle 10", recipes=RECIPES)
    assert g.recipe == "priority-classes"
    assert [(c["name"], c["value"]) for c in g.params["classes"]] == [("web", 900), ("batch", 500), ("idle", 10)]


def test_not_understood_details_never_carry_half_a_bracket():
    g = generate("pod with 4 gpus for the namespace that would go over its gpu quota (6 used of 8)", recipes=RECIPES)
    for u in g.unused:
        assert u.count("(") == u.count(")"), g.unused


@pytest.mark.parametrize("text, detail", [
    # the recipe's kind or a parameter's name inside a detail stays in it
    ("fsx static pv for fs-0123456789abcdef0 in eu-west-1, and move the PV to the eu-west-1a zone only", "move the PV to the eu-west-1a zone"),
    ("mpijob 2 workers x 4 gpus, and put the launcher on the cpu-only nodes", "put the launcher on the cpu-only nodes"),
    # a bracket, quote or percent sign that closes the detail is part of it
    ("mps sharing 4 ways and set the active thread limit to 40%", "set the active thread limit to 40%"),
    ("ClusterPolicy with the dcgm servicemonitor on, plus turn on GDS (nvidia-fs)", "turn on GDS (nvidia-fs)"),
])
def test_a_detail_not_understood_is_reported_as_one_clause(text, detail):
    g = generate(text, RECIPES, llm=False)
    assert any(detail in u for u in g.unused), g.unused


def test_cue_words_right_before_a_used_value_are_not_reported():
    g = generate("pytorchjob whisper-ft, 2 workers, /dev/shm 32Gi, 4 gpus per pod", RECIPES, llm=False)
    assert g.params["shm_size"] == "32Gi" and g.unused == [], g.unused


@pytest.mark.parametrize("text, param", [
    ("time slice each gpu 500 ways for the notebook users", "replicas"),
    ("gpu pod with 64 gpus", "gpus"),
    ("priority classes, production at 3 billion and research at 10", "production_value"),
])
def test_a_stated_number_outside_the_schema_is_an_error_not_a_default(text, param):
    with pytest.raises(ParameterError) as e:
        generate(text, RECIPES, llm=False)
    assert e.value.parameter == param and "maximum" in str(e.value)


@pytest.mark.parametrize("text, key", [
    ("volcano job 2 workers x 4 gpus, tolerate the taint 'night-only'", "night-only"),
    ("indexed job, 16 shards, toleration for 'batch-pool'", "batch-pool"),
    ("pytorchjob 2 nodes x 8 gpus, tolerate key=preemptible", "preemptible"),
    ("vllm deployment for llama, our nodes carry the taint 'serve-only' so tolerate it", "serve-only"),
])
def test_a_taint_to_tolerate_in_the_ways_people_write_it(text, key):
    assert generate(text, RECIPES, llm=False).params["extra_toleration"] == key


def test_a_further_match_that_reads_clearly_more_of_the_request_wins():
    # the ClusterPolicy recipe matches the toggles best, the MPS recipe reads them and the sharing too
    g = generate("mps x3, ns=gpu-ops, driver preinstalled and toolkit preinstalled", RECIPES, llm=False)
    assert g.recipe == "mps-sharing" and g.params["replicas"] == 3 and g.params["driver_enabled"] is False
    # an object named at the head stays when the other reads only a little more
    g = generate("a PyTorchJob with 2 nodes, gang scheduled through the volcano queue \"batch-a\"", RECIPES, llm=False)
    assert g.recipe == "pytorchjob"


def test_values_read_for_unannotated_parameters_are_counted(tmp_path):
    """A value the request gives but the case's annotation leaves out is counted, so values read from
    nothing the user stated ("the image ships OpenMPI" as an image) show up in the eval."""
    (tmp_path / "one.yaml").write_text(
        "cases:\n"
        "  - request: 'gpu pod with 2 gpus in namespace lab'\n"
        "    recipe: gpu-pod\n"
        "    params: {gpus: 2}\n"
        "  - request: 'gpu pod with 2 gpus in namespace lab'\n"
        "    recipe: gpu-pod\n"
        "    params: {gpus: 2, namespace: lab}\n")
    report = evaluate_requests(tmp_path, RECIPES)
    assert [r["unannotated"] for r in report["results"]] == [["namespace"], []]
    assert report["unannotated_values"] == 1


def test_one_amount_in_two_units_is_the_same_value():
    from gpukb.recipes.evals import _check, _same_quantity

    assert _same_quantity("2.5Ti", "2560Gi") and not _same_quantity("2.5Ti", "2500Gi")
    doc = [{"kind": "ResourceQuota", "spec": {"hard": {"requests.memory": "2.5Ti"}}}]
    assert _check(doc, {}, {"path": "ResourceQuota.spec.hard[requests.memory]", "equals": "2560Gi"}) is None
    assert _check(doc, {}, {"path": "ResourceQuota.spec.hard[requests.memory]", "equals": "2Ti"}) is not None


def test_objects_with_more_fields_than_annotated_change_nothing_but_a_differing_field_does():
    from gpukb.recipes.evals import _items_hold

    want = [{"name": "master", "replicas": 1}, {"name": "worker", "replicas": 4}]
    assert _items_hold([{"name": "master", "replicas": 1}, {"name": "worker", "replicas": 4, "gpus": 2}], want)
    assert not _items_hold([{"name": "master", "replicas": 1}, {"name": "worker", "replicas": 3, "gpus": 2}], want)
    assert not _items_hold([{"name": "master", "replicas": 1}], want)


def test_an_overlong_request_is_refused_by_the_library_itself():
    from gpukb.errors import InputError
    from gpukb.recipes.generation import MAX_REQUEST_CHARS

    big = "tenant onboarding\n" + "\n".join(f"Field number {i}: {i}" for i in range(2000))
    assert len(big) > MAX_REQUEST_CHARS
    with pytest.raises(InputError, match="characters long"):
        generate(big, RECIPES, llm=False)


def test_one_unread_detail_of_a_clause_is_reported_whole():
    # a word inside the detail was read for a parameter; the detail is still reported as written
    g = generate("dcgm alerts above 80 C, and page the on-call rotation \"gpu-oncall\" through opsgenie",
                 RECIPES, llm=False)
    assert any("page the on-call rotation" in u and "through opsgenie" in u for u in g.unused), g.unused


@pytest.mark.parametrize("detail, unused, want", [
    # reported per clause, without the words that open a fragment or the closing mark
    ("but only on the T4 nodes, not the A100s", ["only on the T4 nodes", "not the A100s"], True),
    ("also want infiniband on the workers.", ["want infiniband on the workers"], True),
    ("and 64Gi of RAM", ["64Gi of RAM"], True),
    # a clause missing, or a detail reported only in part, is not reported
    ("but only on the T4 nodes, not the A100s", ["only on the T4 nodes"], False),
    ("EFA networking must be enabled on them", ["EFA networking"], False),
    ("page the on-call team", [], False),
])
def test_an_unsupported_detail_counts_as_reported_clause_by_clause(detail, unused, want):
    from gpukb.recipes.evals import _reported

    assert _reported(detail, unused) is want
