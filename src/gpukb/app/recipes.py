"""The Recipes page: find a recipe (search, area), fill its parameter form
(or let a plain-language request fill it), and get the rendered YAML with its
validation and lint findings, a download button and how to apply it."""

from __future__ import annotations

import io
from typing import Any

import streamlit as st

__all__ = ["render", "filter_recipes", "generation_summary", "ALL_AREAS"]

ALL_AREAS = "All areas"
K_SEARCH, K_AREA, K_RECIPE, K_REQUEST, K_RESULT = "rq_search", "rq_area", "rq_recipe", "rq_request", "rq_generated"


def filter_recipes(recipes: list[Any], query: str = "", area: str | None = None) -> list[Any]:
    """Recipes in ``area`` whose id, title, description or keywords contain every word of ``query``."""
    words = [w for w in (query or "").lower().split() if w][:20]
    out = []
    for r in recipes:
        if area and r.area != area:
            continue
        hay = " ".join([r.id, r.title, r.description, *r.keywords, *getattr(r, "kinds", [])]).lower()
        if all(w in hay for w in words):
            out.append(r)
    return out


def generation_summary(g: Any) -> dict[str, Any]:
    """What a plain-language request filled: the recipe, the parameters taken
    from the request (``used``: param -> words), what was not understood
    (``unused``), what is still missing (``missing``) and notes."""
    used = getattr(g, "used", None)
    if not used:
        used = {k: v for k, v in (getattr(g, "from_request", None) or {}).items()}
    return {
        "recipe": g.recipe,
        "title": getattr(g, "title", "") or g.recipe,
        "used": dict(used or {}),
        "unused": list(getattr(g, "unused", None) or []),
        "missing": list(getattr(g, "missing", None) or []),
        "notes": [i.get("message", "") for i in (getattr(g, "issues", None) or [])
                  if isinstance(i, dict) and i.get("rule") == "param-ignored"],
        "params": dict(g.params),
    }


def _fill_from_request() -> None:
    """Button callback: generate from the request, select the recipe, fill the form."""
    from gpukb import generate

    from .forms import set_form_values
    from .state import recipes, short_error

    text = (st.session_state.get(K_REQUEST) or "").strip()
    if not text:
        st.session_state[K_RESULT] = {"error": "Describe the manifest you want first."}
        return
    try:
        all_recipes = recipes()
        g = generate(text[:4000], all_recipes)
    except Exception as exc:
        st.session_state[K_RESULT] = {"error": short_error(exc)}
        return
    recipe = next((r for r in all_recipes if r.id == g.recipe), None)
    if recipe is None:
        st.session_state[K_RESULT] = {"error": f"recipe {g.recipe!r} not found"}
        return
    st.session_state[K_SEARCH] = ""
    st.session_state[K_AREA] = ALL_AREAS
    st.session_state[K_RECIPE] = recipe.id
    set_form_values(st.session_state, recipe, g.params)
    st.session_state[K_RESULT] = generation_summary(g)


def _reset_form(recipe: Any) -> None:
    from .forms import set_form_values

    set_form_values(st.session_state, recipe, {})


def _render_generated() -> None:
    from .ask import escape_label

    res = st.session_state.get(K_RESULT)
    if not res:
        return
    if "error" in res:
        st.error(res["error"])
        return
    lines = [f"Filled **{escape_label(res['title'])}** (`{res['recipe']}`) from your request. "
             "Correct anything in the form below."]
    if res["used"]:
        used = "; ".join(_used_item(k, v, res["params"]) for k, v in res["used"].items())
        lines.append(f"- **Used:** {used}")
    else:
        lines.append("- **Used:** nothing from the request; the form shows the defaults.")
    if res["unused"]:
        lines.append("- **Not understood:** " + "; ".join(f"“{escape_label(u)}”" for u in res["unused"]))
    if res["missing"]:
        lines.append("- **Missing (defaults used):** " + "; ".join(_missing_item(m) for m in res["missing"]))
    for note in res["notes"]:
        lines.append(f"- {escape_label(note)}")
    st.info("\n".join(lines), icon=":material/auto_fix_high:")


def _words(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def _value(v: Any) -> str:
    import json

    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _used_item(name: str, words: Any, params: dict[str, Any]) -> str:
    """``name`` = value ← “words from the request”."""
    from .ask import escape_label

    value = f" = `{_value(params[name])}`" if name in params else ""
    said = escape_label(_words(words))
    return f"`{name}`{value} ← “{said}”" if said and said != _value(params.get(name)) else f"`{name}`{value}"


def _missing_item(m: Any) -> str:
    """A detail the request did not give: its question, parameter and the default used."""
    from .ask import escape_label

    if not isinstance(m, dict):
        return escape_label(str(m))
    text = escape_label(str(m.get("question") or m.get("param") or ""))
    extra = [f"`{m['param']}`"] if m.get("param") else []
    if "default" in m and m["default"] is not None:
        extra.append(f"default `{_value(m['default'])}`")
    return text + (f" ({', '.join(extra)})" if extra else "")


def _render_output(recipe: Any, params: dict[str, Any], docs_by_id: dict[str, Any]) -> None:
    from gpukb import lint_files, render_recipe

    from .state import short_error
    from .views import doc_link, findings_of, render_findings

    try:
        rendered = render_recipe(recipe, params)
    except Exception as exc:
        st.error(f"Cannot render: {short_error(exc)}")
        return
    errors = [i for i in rendered.issues if i.get("severity") == "error"]
    if rendered.valid:
        st.success("Valid: every document passes schema validation.", icon=":material/check_circle:")
    else:
        st.error(f"Does not validate: {len(errors)} error(s).", icon=":material/error:")
    for i in rendered.issues:
        st.markdown(f"- **{i.get('severity')}** `{i.get('rule')}` document {int(i.get('index') or 0) + 1} "
                    f"`{i.get('path') or ''}`: {i.get('message')}")
    st.code(rendered.yaml, language="yaml")
    st.download_button("Download YAML", data=rendered.yaml, file_name=f"{recipe.id}.yaml",
                       mime="application/x-yaml", icon=":material/download:", type="primary",
                       key="rq_download", on_click="ignore")
    st.markdown("**Lint**")
    try:
        report = lint_files(["-"], stdin=io.StringIO(rendered.yaml))
        render_findings(findings_of(report), docs_by_id, empty="No GPU lint findings.")
    except Exception as exc:
        st.warning(f"Lint did not run: {short_error(exc)}")
    st.markdown("**How to apply**")
    st.code(f"kubectl apply -f {recipe.id}.yaml", language="bash")
    if recipe.docs:
        st.markdown("Read first: " + " · ".join(doc_link(d, None, docs_by_id) for d in recipe.docs))


def render() -> None:
    """The Recipes page."""
    from gpukb.wiki import valid_doc_id

    from .ask import escape_label
    from .forms import render_form
    from .state import kb_by_id, recipes, short_error

    st.title("Recipes")
    st.caption("Parameterised, validated manifests. Describe what you need, or pick a recipe and fill its form.")
    try:
        all_recipes = recipes()
    except Exception as exc:
        st.error(f"The recipes cannot be loaded: {short_error(exc)}")
        return
    if not all_recipes:
        st.info("No recipes found.")
        return
    try:
        docs_by_id = kb_by_id()
    except Exception:
        docs_by_id = {}

    with st.container(border=True):
        st.text_input("Describe the manifest you want",
                      placeholder="e.g. volcano job, 4 workers x 8 GPUs, queue research",
                      key=K_REQUEST, max_chars=4000)
        st.button("Fill the form", on_click=_fill_from_request, icon=":material/auto_fix_high:", key="rq_fill")
        _render_generated()

    ids = [r.id for r in all_recipes]
    wanted = valid_doc_id(st.query_params.get("recipe"), ids)
    if wanted and st.session_state.get("rq_linked") != wanted:
        st.session_state["rq_linked"] = wanted
        st.session_state[K_RECIPE] = wanted
        st.session_state[K_SEARCH] = ""
        st.session_state[K_AREA] = ALL_AREAS

    areas = sorted({r.area for r in all_recipes})
    c1, c2 = st.columns([3, 2])
    query = c1.text_input("Search recipes", key=K_SEARCH, placeholder="e.g. mig, quota, karpenter")
    area = c2.selectbox("Area", [ALL_AREAS, *areas], key=K_AREA)
    shown = filter_recipes(all_recipes, query, None if area == ALL_AREAS else area)
    if not shown:
        st.info("No recipe matches the search.")
        return
    by_id = {r.id: r for r in shown}
    if st.session_state.get(K_RECIPE) not in by_id:
        st.session_state[K_RECIPE] = shown[0].id
    rid = st.selectbox(f"Recipe ({len(shown)} of {len(all_recipes)})", list(by_id), key=K_RECIPE,
                       format_func=lambda i: f"{by_id[i].title} — {i}")
    recipe = by_id[rid]

    st.subheader(recipe.title)
    st.markdown(escape_label(recipe.description))
    st.caption(f"Area: {recipe.area} · Kinds: {', '.join(recipe.kinds)}")

    left, right = st.columns([1, 1], gap="large")
    with left:
        st.markdown("**Parameters**")
        params, errors = render_form(recipe)
        st.button("Reset to defaults", on_click=_reset_form, args=(recipe,), key="rq_reset",
                  icon=":material/restart_alt:")
    with right:
        st.markdown("**Manifest**")
        if errors:
            st.warning("Fix the parameters marked in red to render the manifest.", icon=":material/edit:")
        else:
            _render_output(recipe, params, docs_by_id)
