"""Property-based tests: any parameter input is either a clear ParameterError or a valid
manifest set with exactly the recipe's kinds and document count, and values never add structure."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpukb.errors import ParameterError
from gpukb.recipes import load_recipes, render_recipe

RECIPES_DIR = Path(__file__).resolve().parents[1] / "recipes"
RECIPES = load_recipes(RECIPES_DIR)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-10**6, max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=40),
    st.sampled_from(["---", "a\n---\nkind: Secret", "{{ x }}", "!!python/object", "&a", "*a", "a: b",
                     "team-a", "research", "1.2Ti", "8", "true", "g5", "1g.10gb", "s3://bucket/p"]),
)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=4), st.dictionaries(st.text(max_size=12), _SCALARS, max_size=3))


def _valid_value(spec: dict):
    """A strategy that often produces values satisfying the parameter's schema."""
    t = spec.get("type")
    if "enum" in spec:
        return st.sampled_from(spec["enum"])
    if t == "integer":
        lo = spec.get("minimum", 0)
        hi = min(spec.get("maximum", lo + 64), lo + 64)
        return st.integers(min_value=lo, max_value=hi)
    if t == "boolean":
        return st.booleans()
    if "default" in spec:
        return st.just(spec["default"])
    return _VALUES


def _params_for(recipe):
    props = recipe.properties
    mixed = {name: st.one_of(_valid_value(spec), _VALUES) for name, spec in props.items()}
    return st.fixed_dictionaries({}, optional=mixed)


def _assert_literal_strings(obj, rendered_text):
    docs = list(yaml.safe_load_all(rendered_text))
    return docs


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.id)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_params_give_error_or_valid_manifests(recipe, data):
    params = data.draw(_params_for(recipe))
    try:
        out = render_recipe(recipe, params)
    except ParameterError as exc:
        msg = str(exc)
        assert msg and "\n" not in msg
        assert exc.parameter is None or exc.parameter in recipe.properties or exc.parameter in params
        return
    docs = list(yaml.safe_load_all(out.yaml))
    from gpukb.recipes.check import _runs

    several = sum(1 for t in recipe.templates if next(iter(t)) == "$for")  # one document per list item
    assert len(docs) == len(recipe.templates) if not several else len(docs) >= len(recipe.templates) - several
    assert _runs([d["kind"] for d in docs]) == _runs(recipe.kinds) or several
    assert docs == out.documents
    assert "!!" not in out.yaml.replace("'!!", "").replace('"!!', "")
    errors = [i for i in out.issues if i["severity"] == "error"]
    assert out.valid, errors
    # every string parameter that was accepted appears verbatim as data somewhere (a parameter given its own
    # default may have nothing to act on: also_when_unsatisfiable with no also_spread_over)
    for name, value in params.items():
        if isinstance(value, str) and value and name in out.params and value != recipe.properties[name].get("default"):
            assert _contains_value(docs, value) or _contains_text(docs, value), (name, value)


def _contains_value(node, value) -> bool:
    if node == value:
        return True
    if isinstance(node, dict):
        return any(_contains_value(v, value) or k == value for k, v in node.items())
    if isinstance(node, list):
        return any(_contains_value(v, value) for v in node)
    return False


def _contains_text(node, value) -> bool:
    if isinstance(node, str):
        return value in node
    if isinstance(node, dict):
        return any(_contains_text(v, value) or (isinstance(k, str) and value in k) for k, v in node.items())
    if isinstance(node, list):
        return any(_contains_text(v, value) for v in node)
    return False


@settings(max_examples=200, deadline=None)
@given(cmd=st.lists(st.text(max_size=60), min_size=1, max_size=5))
def test_free_text_command_never_changes_structure(cmd):
    recipe = next(r for r in RECIPES if r.id == "gpu-pod")
    out = render_recipe(recipe, {"command": cmd})
    docs = list(yaml.safe_load_all(out.yaml))
    assert len(docs) == 1
    assert docs[0]["spec"]["containers"][0]["command"] == cmd
    assert set(docs[0]) == {"apiVersion", "kind", "metadata", "spec"}
