"""Manifest recipes: parameterised, schema-checked templates and plain-language generation.

A recipe (``recipes/<area>/<id>.yaml``) holds metadata, a JSON Schema of its
parameters, templates (YAML trees with ``$``-directives, see
:mod:`gpukb.recipes.template`), text-extraction rules and named examples whose
rendered output is checked in as ``recipes/<area>/golden/<id>--<example>.yaml``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "Recipe": "gpukb.recipes.model",
    "load_recipes": "gpukb.recipes.model",
    "load_recipe_file": "gpukb.recipes.model",
    "find_recipe": "gpukb.recipes.model",
    "resolve_params": "gpukb.recipes.model",
    "parse_param_value": "gpukb.recipes.model",
    "golden_path": "gpukb.recipes.model",
    "Rendered": "gpukb.recipes.render",
    "render_recipe": "gpukb.recipes.render",
    "Generated": "gpukb.recipes.generation",
    "generate": "gpukb.recipes.generation",
    "match_recipes": "gpukb.recipes.match",
    "wants_manifest": "gpukb.recipes.match",
    "recipe_search_text": "gpukb.recipes.match",
    "extract_params": "gpukb.recipes.extract",
    "check_recipes": "gpukb.recipes.check",
    "RecipeCheck": "gpukb.recipes.check",
    "evaluate_requests": "gpukb.recipes.evals",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gpukb.recipes' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
