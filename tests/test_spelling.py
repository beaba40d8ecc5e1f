"""Mistyped words read as the recipe term meant: one edit from one term, never a known word,
never a value the user chose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpukb.recipes.extract import extract_params
from gpukb.recipes.match import match_recipes
from gpukb.recipes.model import Recipe, load_recipes
from gpukb.recipes.spelling import Speller, within_one_edit


@pytest.mark.parametrize("a,b,ok", [
    ("namespace", "namepsace", True),   # two neighbours swapped
    ("replicas", "replcias", True),
    ("karpenter", "karpeter", True),    # a letter dropped
    ("quota", "quotaa", True),          # a letter added
    ("toleration", "toleratoin", True),
    ("priority", "priorrity", True),
    ("cohort", "cohrt", True),
    ("namespace", "nmaepsace", False),  # two edits
    ("quota", "quote", True),
])
def test_within_one_edit(a, b, ok):
    assert within_one_edit(a, b) is ok


def _speller() -> Speller:
    return Speller(terms=["namespace", "replicas", "quota", "karpenter", "pytorch", "trained", "three",
                          "timeslicing", "preempt"],
                   known=["there", "trainer", "thread"])


@pytest.mark.parametrize("text,want", [
    ("4 replcias in namepsace vision", "4 replicas in namespace vision"),
    ("a Karpneter pool", "a karpenter pool"),
    ("GPU quoat of 16", "GPU quota of 16"),
    ("kubeflow pytroch job", "kubeflow pytorch job"),
    ("timeslice the cards", "timeslicing the cards"),       # another form of a term
    ("it may preemtp others", "it may preempt others"),
])
def test_corrects_one_edit_from_a_term(text, want):
    assert _speller().text(text) == want


@pytest.mark.parametrize("text", [
    "there are 2 of them",              # a known word, though "three" is one swap away
    "a trainer task of 4 pods",         # known
    "a traineer task",                  # starts with a whole term ("trained" is not meant)
    "queue named quoat",                # a name the user gives
    "namespace 'replcias'",             # quoted
    "image repo/namepsace:v1",          # inside a token
    "team-quoat namespace",             # part of a hyphenated name
    "pods in namepsace-x",
])
def test_leaves_known_words_and_values(text):
    assert _speller().text(text) == text


def test_ambiguous_word_is_left_as_written():
    sp = Speller(terms=["slices", "slicer"], known=[])
    assert sp.text("four slicex") == "four slicex"


def _recipe(props: dict[str, Any], extract: dict[str, Any]) -> Recipe:
    return Recipe(id="fixture", title="fixture", area="test", description="", docs=[],
                  parameters={"type": "object", "properties": props}, templates=[], examples=[],
                  path=Path("fixture.yaml"), extract=extract)


def test_extraction_reads_a_mistyped_cue():
    r = _recipe({"namespace": {"type": "string", "pattern": "^[a-z0-9-]+$"},
                 "replicas": {"type": "integer", "minimum": 1, "maximum": 64}},
                {"namespace": [{"after": ["namespace"]}], "replicas": [{"count": ["replicas"]}]})
    got = extract_params(r, "run 6 replcias in the namepsace speech-team").values
    assert got == {"namespace": "speech-team", "replicas": 6}


def test_extraction_keeps_a_mistyped_looking_name():
    r = _recipe({"namespace": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
                {"namespace": [{"after": ["namespace", "named"]}]})
    assert extract_params(r, "namespace named replcias").values == {"namespace": "replcias"}


@pytest.mark.parametrize("text,want", [
    ("karpneter nodepool for g5 instances", "karpenter-gpu-nodepool"),
    ("kubeflow pytroch training job with 3 workers", "pytorchjob"),
    ("gpu quoat for the ml namespace, 16 gpus", "gpu-quota"),
    ("timeslice every card 6 ways", "time-slicing"),
    ("priorty classes for serving and batch", "priority-classes"),
])
def test_matching_reads_mistyped_recipe_words(text, want):
    assert match_recipes(text, load_recipes(), k=1)[0][0].id == want


@pytest.mark.parametrize("text,want", [
    ("a queu named research", "a queue named research"),   # four letters: a five-letter term missing one
    ("the locl queue", "the local queue"),
])
def test_four_letter_word_missing_a_letter(text, want):
    sp = Speller(terms=["queue", "local", "queued"], known=["lock"])
    assert sp.text(text) == want


def test_four_letter_words_are_not_changed_otherwise():
    sp = Speller(terms=["queue", "local", "pools"], known=[])
    # "quxe": a changed letter, not a missing one; "pool": a plural term's singular stays
    assert sp.text("pool loca quxe") == "pool local quxe"


@pytest.mark.parametrize("text", ["pod with 2 GPU's in namespace research", "pod with 2 gpu(s) in namespace research"])
def test_plural_spellings(text):
    from gpukb.recipes.model import find_recipe

    e = extract_params(find_recipe("gpu-pod"), text)
    assert e.values == {"gpus": 2, "namespace": "research"}


def test_a_shortened_term_is_that_term():
    from gpukb.recipes.spelling import Speller
    sp = Speller(["pytorchjob", "elasticpytorchjob", "volcano", "quota"], ["the", "job"])
    assert sp.correct("torchjob") == "pytorchjob"  # its tail (the shorter of two terms ending so)
    assert sp.correct("ptjob") == "pytorchjob"  # its letters in order, first and last three kept
    assert sp.correct("vlcno") is None  # the last three letters differ


def test_a_capitalised_word_inside_a_sentence_is_a_name():
    from gpukb.recipes.spelling import Speller
    sp = Speller(["stack", "quota"], ["the"])
    assert sp.text("route the alerts to Slack") == "route the alerts to Slack"
    assert sp.text("Quoat for team a") == "quota for team a"  # at the start it is a typo like any other


def test_a_word_without_vowels_is_the_one_term_with_those_consonants():
    sp = Speller(terms=["workers", "namespace", "image", "nodes", "needs"], known=["please"])
    assert sp.text("3 wrkrs in nmspc ml, img x") == "3 workers in namespace ml, image x"
    # chat shorthand is left alone, and so is a skeleton two terms share ("nodes", "needs" -> "nds")
    assert sp.text("pls thx, 2 nds") == "pls thx, 2 nds"


def test_a_mistyped_request_is_read_with_its_vowelless_words():
    from gpukb.recipes import generate

    g = generate("volcano job, 3 wrkrs x 2 gpus, img ghcr.io/acme/rl:1.4", llm=False)
    assert (g.params["workers"], g.params["image"]) == (3, "ghcr.io/acme/rl:1.4"), g.params


def test_a_five_letter_word_with_one_letter_changed_is_its_own_word():
    from gpukb.recipes.spelling import Speller
    sp = Speller(["stack", "quota", "replicas"], ["the"])
    assert sp.text("send the alerts to #gpu-oncall in slack") == "send the alerts to #gpu-oncall in slack"
    assert sp.correct("quoat") == "quota"  # two neighbours swapped is still a typo
    assert sp.correct("replicaz") == "replicas"  # a longer word with one letter changed too


def test_a_plural_term_takes_no_verb_ending():
    """"labels" + "ed" is no word: "labelled" stays as written, not one letter from "labelsed"."""
    from gpukb.recipes.spelling import Speller

    sp = Speller(["labels", "replicas"], [])
    assert sp.text("nodes labelled gpu=true, 3 replcias") == "nodes labelled gpu=true, 3 replicas"
