"""Cross-parameter constraints declared as data (``x-constraints``) and checked by one mechanism."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpukb.cli import main
from gpukb.errors import ParameterError, RecipeError
from gpukb.recipes import find_recipe, generate, load_recipe_file, load_recipes, render_recipe

ROOT = Path(__file__).resolve().parents[1]
RECIPES = load_recipes(ROOT / "recipes")

_SMALL = {
    "id": "pair",
    "title": "A pair of bounds",
    "area": "autoscaling",
    "description": "A ConfigMap holding a lower and an upper bound.",
    "docs": ["autoscaling-gpu-metrics-hpa-keda"],
    "parameters": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "low": {"type": "integer", "default": 1, "description": "Lower bound."},
            "high": {"type": "integer", "default": 4, "description": "Upper bound."},
            "extra": {"type": "integer", "description": "Optional value."},
        },
        "x-constraints": [
            {"rule": {"$le": [{"$param": "low"}, {"$param": "high"}]}, "message": "low must not be above high"},
            {"rule": {"$le": [{"$param": "extra"}, {"$param": "high"}]}, "message": "extra must fit under high",
             "only_given": True},
        ],
    },
    "templates": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "pair"},
                   "data": {"low": {"$str": {"$param": "low"}}, "high": {"$str": {"$param": "high"}}}}],
    "examples": [{"name": "default", "params": {}}],
}


def _write(tmp_path: Path, data: dict) -> Path:
    d = tmp_path / "recipes" / "autoscaling"
    d.mkdir(parents=True)
    (tmp_path / "recipes" / "_fragments").mkdir()
    p = d / "pair.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


def test_a_broken_constraint_names_every_parameter_in_one_line(tmp_path):
    r = load_recipe_file(_write(tmp_path, _SMALL))
    assert render_recipe(r, {"low": 4, "high": 4}, validate=False).params["low"] == 4
    with pytest.raises(ParameterError) as ei:
        render_recipe(r, {"low": 5, "high": 4}, validate=False)
    msg = str(ei.value)
    assert "low must not be above high" in msg and "low=5" in msg and "high=4" in msg
    assert ei.value.involved == ["low", "high"] and "\n" not in msg


def test_only_given_constraints_let_defaults_adapt(tmp_path):
    r = load_recipe_file(_write(tmp_path, _SMALL))
    render_recipe(r, {"low": 1}, validate=False)  # extra absent: rule skipped
    with pytest.raises(ParameterError):
        render_recipe(r, {"extra": 9, "high": 4}, validate=False)
    # high is a default here, so the only_given rule does not apply
    assert render_recipe(r, {"extra": 9}, validate=False).params["extra"] == 9


@pytest.mark.parametrize("rule, needle", [
    ({"$le": [{"$param": "low"}, {"$param": "nope"}]}, "nope"),
    ({"$eval": "x"}, "unknown directive"),
])
def test_a_constraint_on_undeclared_parameters_or_directives_is_a_recipe_error(tmp_path, rule, needle):
    data = yaml.safe_load(yaml.safe_dump(_SMALL))
    data["parameters"]["x-constraints"] = [{"rule": rule, "message": "bad rule"}]
    with pytest.raises(RecipeError) as ei:
        load_recipe_file(_write(tmp_path, data))
    assert "x-constraints[0]" in str(ei.value) and needle in str(ei.value)


@pytest.mark.parametrize("recipe_id, params, names", [
    ("hpa-gpu-metric", {"min_replicas": 6, "max_replicas": 3}, ["min_replicas", "max_replicas"]),
    ("keda-gpu-scaledobject", {"min_replicas": 5, "max_replicas": 2}, ["min_replicas", "max_replicas"]),
    ("kueue-cluster-queue", {"gpus": 4, "cohort": "research", "lending_limit": 10}, ["lending_limit", "gpus"]),
    ("volcano-job", {"workers": 3, "min_available": 5}, ["min_available", "workers"]),
    ("coscheduling-podgroup", {"members": 4, "min_member": 6}, ["min_member", "members"]),
    ("lws-vllm", {"size": 2, "gpus": 8, "tensor_parallel": 16, "pipeline_parallel": 2},
     ["tensor_parallel", "pipeline_parallel", "size", "gpus"]),
    ("indexed-job", {"completions": 10, "max_failed_indexes": 11}, ["max_failed_indexes", "completions"]),
    ("gpu-quota", {"gpus": 4, "max_gpus_per_pod": 8}, ["max_gpus_per_pod", "gpus"]),
    ("volcano-queue", {"gpus": 16, "deserved_gpus": 24}, ["deserved_gpus", "gpus"]),
])
def test_recipes_refuse_values_that_cannot_work_together(recipe_id, params, names):
    r = find_recipe(recipe_id, RECIPES)
    with pytest.raises(ParameterError) as ei:
        render_recipe(r, params, validate=False)
    assert ei.value.involved == names
    for n in names:
        assert f"{n}={params[n]}" in str(ei.value)


def test_hpa_min_alone_raises_the_default_max():
    r = find_recipe("hpa-gpu-metric", RECIPES)
    hpa = render_recipe(r, {"min_replicas": 6}).documents[0]
    assert hpa["spec"]["maxReplicas"] == 6


def test_generate_refuses_a_conflict_naming_the_words(capsys):
    with pytest.raises(ParameterError) as ei:
        generate("hpa for vllm, min 6 max 3 replicas", RECIPES, llm=False)
    assert "min_replicas" in str(ei.value) and "max_replicas" in str(ei.value)
    assert main(["generate", "Kueue ClusterQueue with 4 GPUs nominal, cohort research, lendingLimit 10"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error:") and "lending_limit" in err[0]


def test_quantity_directive_compares_sizes_in_any_unit():
    from gpukb.recipes.template import evaluate

    assert evaluate({"$le": [{"$quantity": "900Mi"}, {"$quantity": "1Gi"}]}, {}) is True
    assert evaluate({"$le": [{"$quantity": "2Ti"}, {"$quantity": "2000Gi"}]}, {}) is False
    with pytest.raises(RecipeError, match=r"\$quantity"):
        evaluate({"$quantity": "lots"}, {})


def test_a_default_limit_yields_to_a_larger_given_request():
    """"cap ... at 120Gi" read as the ephemeral request, above the default limit of 100Gi: the limit
    takes the request's size and says so, instead of a manifest the API server rejects."""
    recipe = find_recipe("model-cache-ephemeral", RECIPES)
    notes: list[str] = []
    from gpukb.recipes.model import resolve_params

    full = resolve_params(recipe, {"ephemeral_request": "160Gi"}, notes)
    assert full["ephemeral_limit"] == "160Gi"
    assert notes and "ephemeral_limit set to 160Gi" in notes[0]
    with pytest.raises(ParameterError, match="ephemeral_request"):
        resolve_params(recipe, {"ephemeral_request": "160Gi", "ephemeral_limit": "100Gi"})
    assert resolve_params(recipe, {"ephemeral_request": "20Gi"})["ephemeral_limit"] == "100Gi"
