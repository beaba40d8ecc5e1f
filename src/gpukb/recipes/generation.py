"""Plain-language generation: request in, rendered and validated manifest out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ParameterError, RecipeError, UsageError
from .extract import extract_params
from .match import match_recipes
from .model import Recipe, load_recipes
from .render import render_recipe

__all__ = ["Generated", "generate", "MIN_SCORE"]

MIN_SCORE = 1.0


@dataclass
class Generated:
    recipe: str
    params: dict[str, Any]
    yaml: str
    valid: bool
    issues: list[dict[str, Any]] = field(default_factory=list)
    from_request: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    score: float = 0.0
    title: str = ""
    alternatives: list[dict[str, Any]] = field(default_factory=list)
    documents: list[Any] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recipe": self.recipe,
            "title": self.title,
            "params": self.params,
            "yaml": self.yaml,
            "valid": self.valid,
            "issues": self.issues,
            "from_request": self.from_request,
            "defaults": self.defaults,
            "score": self.score,
            "alternatives": self.alternatives,
        }


def generate(request: str, recipes: list[Recipe] | None = None) -> Generated:
    """Pick a recipe for ``request``, fill its parameters from the text, render and validate.

    Raises RecipeError when no recipe matches the request, UsageError when it is empty.
    """
    if not isinstance(request, str) or not request.strip():
        raise UsageError("empty request: describe the manifest you want, e.g. \"volcano job, 4 workers x 8 GPUs\"")
    recipes = load_recipes() if recipes is None else recipes
    ranked = match_recipes(request, recipes, k=3)
    if not ranked or ranked[0][1] < MIN_SCORE:
        raise RecipeError("no recipe matches the request (see gpukb recipe list)")
    recipe, score = ranked[0]
    ext = extract_params(recipe, request)
    found = dict(ext.values)
    notes: list[dict[str, Any]] = []
    rendered = None
    for _ in range(len(found) + 1):
        try:
            rendered = render_recipe(recipe, found)
            break
        except ParameterError as exc:
            bad = exc.parameter
            if bad not in found:
                raise
            notes.append({"rule": "param-ignored", "severity": "warning", "path": f"params.{bad}",
                          "message": f"ignored {bad}={found[bad]!r} from the request: {exc.message}",
                          "doc_id": None})
            del found[bad]
    if rendered is None:  # pragma: no cover - loop always renders or raises
        raise RecipeError(f"could not render recipe {recipe.id}")
    defaults = {k: v for k, v in rendered.params.items() if k not in found}
    return Generated(
        recipe=recipe.id,
        title=recipe.title,
        params=rendered.params,
        yaml=rendered.yaml,
        valid=rendered.valid,
        issues=notes + rendered.issues,
        from_request=found,
        defaults=defaults,
        score=score,
        alternatives=[{"id": r.id, "title": r.title, "score": s} for r, s in ranked[1:]],
        documents=rendered.documents,
    )
