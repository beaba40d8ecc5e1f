"""Checking recipe files: structure, examples, golden outputs and manifest validity."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import GpukbError, RecipeError
from .model import FRAGMENTS_DIR, Recipe, golden_path, load_recipe_file

__all__ = ["RecipeCheck", "check_recipes", "recipe_files"]


@dataclass
class RecipeCheck:
    id: str
    path: str
    ok: bool = True
    examples: int = 0
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "ok": self.ok, "examples": self.examples, "problems": self.problems}


def recipe_files(recipes_dir: Path) -> list[Path]:
    return sorted(p for p in Path(recipes_dir).glob("*/*.yaml") if p.parent.name != FRAGMENTS_DIR)


def _check_one(recipe: Recipe, *, update_golden: bool, validate: bool) -> list[str]:
    from .render import render_recipe

    problems: list[str] = []
    where = str(recipe.path)
    for i, ex in enumerate(recipe.examples):
        name = ex["name"]
        try:
            rendered = render_recipe(recipe, ex.get("params") or {}, validate=validate)
        except GpukbError as exc:
            problems.append(f"{where}: examples[{i}] ({name}): {exc}")
            continue
        gp = golden_path(recipe, name)
        if update_golden:
            gp.parent.mkdir(parents=True, exist_ok=True)
            gp.write_text(rendered.yaml, encoding="utf-8")
        elif not gp.is_file():
            problems.append(f"{where}: examples[{i}] ({name}): golden file {gp} is missing (run gpukb recipe validate --update-golden)")
        elif gp.read_text(encoding="utf-8") != rendered.yaml:
            problems.append(f"{where}: examples[{i}] ({name}): rendered output differs from {gp}")
        kinds = [d.get("kind") for d in rendered.documents]
        if _runs(kinds) != _runs(recipe.kinds):  # a $for entry renders a run of one kind
            problems.append(f"{where}: examples[{i}] ({name}): rendered kinds {kinds} differ from the templates' {recipe.kinds}")
        for issue in rendered.issues:
            if issue.get("severity") == "error":
                problems.append(
                    f"{where}: examples[{i}] ({name}): document {issue.get('index')} ({issue.get('kind')}) "
                    f"{issue.get('path') or '(root)'}: {issue.get('message')}"
                )
    return problems


def check_recipes(
    recipes_dir: Path | None = None,
    ids: list[str] | None = None,
    *,
    update_golden: bool = False,
    validate: bool = True,
) -> list[RecipeCheck]:
    """Check recipe files (all, or those with ``ids``); one RecipeCheck per file."""
    if recipes_dir is None:
        from ..config import load_settings

        recipes_dir = load_settings().recipes_dir
    recipes_dir = Path(recipes_dir)
    if not recipes_dir.is_dir():
        raise RecipeError("recipes folder not found", path=str(recipes_dir))
    files = recipe_files(recipes_dir)
    if ids:
        wanted = set(ids)
        files = [p for p in files if p.stem in wanted]
        missing = wanted - {p.stem for p in files}
        if missing:
            import difflib

            known = [p.stem for p in recipe_files(recipes_dir)]
            m = sorted(missing)[0]
            close = difflib.get_close_matches(m, known, n=3)
            raise RecipeError(f"no recipe with id {m!r}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    out: list[RecipeCheck] = []
    seen: dict[str, str] = {}
    for p in files:
        chk = RecipeCheck(id=p.stem, path=str(p))
        try:
            recipe = load_recipe_file(p)
        except RecipeError as exc:
            chk.ok = False
            chk.problems.append(str(exc))
            out.append(chk)
            continue
        if recipe.id in seen:
            chk.problems.append(f"{p}: id: duplicate recipe id {recipe.id!r} (also in {seen[recipe.id]})")
        seen[recipe.id] = str(p)
        if p.parent.name != recipe.area:
            chk.problems.append(f"{p}: area: {recipe.area!r} does not match its folder {p.parent.name!r}")
        chk.examples = len(recipe.examples)
        chk.problems += _check_one(recipe, update_golden=update_golden, validate=validate)
        chk.ok = not chk.problems
        out.append(chk)
    return out


def _runs(kinds: list[Any]) -> list[Any]:
    """Kinds with consecutive repeats collapsed: [A, B, B, C] -> [A, B, C]."""
    return [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]
