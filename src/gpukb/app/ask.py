"""The Ask page: a question in, a cited answer out, with its sources,
matching recipes and (when asked for) a rendered manifest."""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

__all__ = ["render", "citation_label", "citation_location", "section_text", "answer_markdown",
           "escape_label", "ALL_AREAS"]

ALL_AREAS = "All areas"
_RESULT_KEY = "ask_result"

# A Markdown link whose target is neither absolute nor an in-page anchor
# (e.g. ``[LimitRange](limitrange.md)`` between KB docs): keep the text only.
_RELATIVE_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\((?!https?://|#|mailto:)[^)\s]*\)")
_LABEL_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")


def escape_label(text: str) -> str:
    """Escape Markdown so a title shows literally in a widget label."""
    return _LABEL_SPECIAL.sub(r"\\\1", text)


def citation_label(c: Any) -> str:
    """``[n] title — section`` (the section is left out when it repeats the title)."""
    if c.section and c.section != c.title:
        return f"[{c.n}] {c.title} — {c.section}"
    return f"[{c.n}] {c.title}"


def citation_location(c: Any) -> str:
    """``path#anchor`` of the cited section, or the path for a whole document."""
    return f"{c.path}#{c.anchor}" if c.anchor else c.path


def section_text(engine: Any, c: Any, generation: str | None = None) -> str:
    """The cited section's text from the index (the answer's generation when the
    engine still has it open), or ``""`` when it is not there."""
    try:
        by_generation = getattr(engine, "sections", None)
        sections = by_generation(generation) if callable(by_generation) else engine.index.sections
        sec = sections.get(f"{c.doc_id}#{c.anchor}")
    except Exception:  # a missing or unreadable sections file must not break the page
        return ""
    if not isinstance(sec, dict):
        return ""
    return str(sec.get("text") or "")


def answer_markdown(body: str) -> str:
    """The answer body as shown: links to other KB files become plain text."""
    return _RELATIVE_LINK.sub(r"\1", body or "")


def _ask(engine: Any, question: str, area: str | None) -> dict[str, Any]:
    """Run one question; the result (or a one-line error) goes in session state."""
    from gpukb.errors import GpukbError

    try:
        ans = engine.ask(question, area=area)
    except GpukbError as exc:
        return {"question": question, "error": str(exc)}
    except Exception as exc:  # never let a traceback reach the page
        return {"question": question, "error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
    return {"question": question, "answer": ans}


def _render_sources(engine: Any, citations: list[Any], generation: str | None = None) -> None:
    st.subheader("Sources")
    for c in citations:
        with st.expander(escape_label(citation_label(c))):
            st.markdown(f"`{citation_location(c)}`")
            source = getattr(c, "source", "") or ""
            if source and source != "bundled":
                info = engine.settings.source(source) if hasattr(engine, "settings") else None
                trust = f" — {info.trust}" if info is not None and info.trust else ""
                st.caption(f"From the team source `{source}`{escape_label(trust)}")
            if c.source_urls:
                st.markdown("Upstream sources:\n\n" + "\n".join(f"- <{u}>" for u in c.source_urls))
            text = section_text(engine, c, generation)
            if text:
                st.divider()
                st.markdown(answer_markdown(text))


def _render_extras(ans: Any) -> None:
    if ans.recipes:
        st.subheader("Recipes")
        st.markdown("\n".join(f"- **{escape_label(r['title'])}** — `{r['id']}`" for r in ans.recipes))
        st.caption("Render one with `gpukb recipe render ID --set key=value`.")
    m = ans.manifest
    if m:
        st.subheader("Manifest")
        label = f"from recipe `{m.get('recipe')}`"
        if m.get("valid"):
            st.success(f"Valid manifest {label}.")
        else:
            st.warning(f"The manifest {label} does not validate.")
            for issue in m.get("issues") or []:
                st.markdown(f"- {escape_label(str(issue))}")
        st.code(m.get("yaml") or "", language="yaml")


def _render_result(engine: Any, result: dict[str, Any]) -> None:
    if "error" in result:
        st.error(result["error"])
        return
    ans = result["answer"]
    if ans.refused:
        msg = "I don't know: the gpukb knowledge base does not cover this."
        if ans.closest:
            msg += "\n\nClosest topics:\n" + "\n".join(f"- {escape_label(t)}" for t in ans.closest)
        st.info(msg, icon=":material/help:")
        st.caption(f"{ans.seconds:.2f} s")
        return
    st.markdown(answer_markdown(ans.body))
    st.caption(f"{ans.seconds:.2f} s · {len(ans.citations)} source(s)")
    if ans.citations:
        _render_sources(engine, ans.citations, getattr(ans, "generation", None))
    _render_extras(ans)


def render() -> None:
    """The Ask page."""
    from gpukb.errors import GpukbError
    from gpukb.knowledge import AREAS

    from .state import get_engine, index_hint

    st.title("Ask gpukb")
    st.caption("Cited answers about running GPU and AI workloads on Kubernetes, from the curated gpukb knowledge base.")

    try:
        engine = get_engine()
    except GpukbError as exc:
        st.error(str(exc))
        hint = index_hint(exc)
        if hint:
            st.info(hint)
        return
    except Exception as exc:  # e.g. the model cannot load; one line, no traceback
        st.error(f"Could not start the answering engine: {type(exc).__name__}: {exc}".splitlines()[0])
        return

    with st.form("ask", clear_on_submit=False, border=False):
        question = st.text_input("Question", placeholder="e.g. how do I cap team-a at 8 GPUs",
                                 max_chars=4000)
        col_area, col_go = st.columns([3, 1], vertical_alignment="bottom")
        area = col_area.selectbox("Area", [ALL_AREAS, *AREAS], index=0)
        submitted = col_go.form_submit_button("Ask", type="primary")

    if submitted:
        if not question.strip():
            st.session_state.pop(_RESULT_KEY, None)
            st.warning("Type a question first.")
            return
        with st.spinner("Searching the knowledge base…"):
            st.session_state[_RESULT_KEY] = _ask(engine, question.strip(),
                                                 None if area == ALL_AREAS else area)

    result = st.session_state.get(_RESULT_KEY)
    if result:
        _render_result(engine, result)
