"""A pasted setting that no rule reads is keyed by the parameter it sets in other words: the
parameter whose name (and description) shares the most of the key's words takes the value, when
its schema accepts it; a key that fits no parameter, or two equally, sets nothing."""

from __future__ import annotations

import pytest

from gpukb.recipes.extract import _setting_by_key, extract_params
from gpukb.recipes.model import find_recipe, load_recipes

RECIPES = load_recipes()


@pytest.mark.parametrize("recipe_id,text,name,want", [
    ("karpenter-gpu-nodepool", "our eks module had:\n\n    instance_types = [\"g6.xlarge\"]\n    disk_size      = 250\n\n"
     "same thing as a Karpenter NodePool please", "root_volume_gib", 250),
    ("topology-spread-training", "the old scheduler's spec:\n\n  replicas: 6\n  spread:\n    by: zone\n"
     "    max_imbalance: 3\n\nwhat is that on Kubernetes?", "max_skew", 3),
    ("fsx-lustre-dynamic", "from terraform:\n\n  storage_capacity            = 2400\n"
     "  per_unit_storage_throughput = 125\n  deployment_type             = \"PERSISTENT_2\"\n\nas a StorageClass + PVC",
     "throughput", 125),
])
def test_setting_keyed_in_other_words(recipe_id, text, name, want):
    assert extract_params(find_recipe(recipe_id, RECIPES), text).values.get(name) == want


def test_setting_the_schema_rejects_sets_nothing():
    # throughput is one of a few fixed values: 333 is none of them
    assert _setting_by_key(find_recipe("fsx-lustre-dynamic", RECIPES), "333 per unit storage throughput", set()) is None


@pytest.mark.parametrize("words", ["42 colour of the logo", "backup retention days 7"])
def test_setting_no_parameter_fits_sets_nothing(words):
    assert _setting_by_key(find_recipe("fsx-lustre-dynamic", RECIPES), words, set()) is None


def test_setting_already_read_is_kept():
    assert _setting_by_key(find_recipe("fsx-lustre-dynamic", RECIPES), "500 per unit storage throughput",
                           {"throughput"}) is None
