"""Rendering a recipe: parameters in, YAML documents out, validated."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..errors import RecipeError
from .model import Recipe, resolve_params
from .template import OMIT, _Ctx, dump_documents, evaluate

__all__ = ["Rendered", "render_recipe", "render_documents", "validate_rendered"]


@dataclass
class Rendered:
    recipe: str
    params: dict[str, Any]
    yaml: str
    documents: list[Any]
    valid: bool
    issues: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # defaults that yielded to given values

    def to_dict(self) -> dict[str, Any]:
        return {
            "recipe": self.recipe,
            "params": self.params,
            "yaml": self.yaml,
            "valid": self.valid,
            "issues": self.issues,
            "notices": self.notices,
        }


def render_documents(recipe: Recipe, params: dict[str, Any]) -> list[Any]:
    """Evaluate the templates for already-resolved parameters."""
    ctx = _Ctx(str(recipe.path), recipe.fragments_dir)
    docs = []
    for i, t in enumerate(recipe.templates):
        doc = evaluate(t, dict(params), ctx, f"templates[{i}]")
        # a {$for: ...} entry is one document per item of a list parameter
        several = isinstance(t, dict) and next(iter(t), None) == "$for" and isinstance(doc, list)
        for d in (doc if several else [doc]):
            if d is OMIT or not isinstance(d, dict):
                raise RecipeError("a template document must render to a mapping", path=str(recipe.path),
                                  field=f"templates[{i}]")
            docs.append(d)
    return docs


def validate_rendered(docs: list[Any]) -> list[dict[str, Any]]:
    """Schema findings for rendered documents, as dicts (doc index added)."""
    try:
        from ..validate import validate_documents
    except ImportError:
        return [{"rule": "validator-unavailable", "severity": "error", "path": "",
                 "message": "the manifest validator is not installed", "doc_id": None, "index": None}]
    issues: list[dict[str, Any]] = []
    for res in validate_documents(docs):
        for f in res.findings:
            d = dataclasses.asdict(f) if dataclasses.is_dataclass(f) else dict(f)
            d["index"] = res.index
            d["kind"] = res.kind
            issues.append(d)
    return issues


def render_recipe(recipe: Recipe, params: dict[str, Any] | None = None, *, validate: bool = True) -> Rendered:
    """Render ``recipe`` with ``params`` (defaults applied).

    Raises ParameterError for bad parameters. ``valid`` is True when validation
    found no errors (always True when ``validate`` is False).
    """
    notices: list[str] = []
    full = resolve_params(recipe, params, notices)
    docs = render_documents(recipe, full)
    text = dump_documents(docs)
    issues: list[dict[str, Any]] = []
    if validate:
        issues = validate_rendered(docs)
    valid = not any(i.get("severity") == "error" for i in issues)
    return Rendered(recipe=recipe.id, params=full, yaml=text, documents=docs, valid=valid, issues=issues,
                    notices=notices)
