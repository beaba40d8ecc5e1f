"""The Ask page: a chat. Each answer carries inline numbered citations that
link to the cited wiki section, a Sources list whose entries expand to the
cited section's text, the manifest when one was asked for, and 👍/👎
feedback. A refusal says so and links the closest topics."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import quote

import streamlit as st

__all__ = ["render", "citation_label", "citation_location", "section_text", "answer_markdown",
           "link_citations", "escape_label", "ALL_AREAS", "CHAT_KEY"]

ALL_AREAS = "All areas"
CHAT_KEY = "ask_chat"
MAX_TURNS = 30  # older turns are dropped from the page (memory is bounded)

# A Markdown link whose target is neither absolute nor an in-page anchor.
_RELATIVE_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\((?![a-z][a-z0-9+.-]*:|#|/)([^)\s]*)\)")
_LABEL_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")
_MARKER = re.compile(r"(?<![\]\\])\[(\d{1,2})\](?!\()")


def escape_label(text: str) -> str:
    """Escape Markdown so a title shows literally in a widget label."""
    return _LABEL_SPECIAL.sub(r"\\\1", str(text))


def citation_label(c: Any) -> str:
    """``[n] title — section`` (the section is left out when it repeats the title)."""
    if c.section and c.section != c.title:
        return f"[{c.n}] {c.title} — {c.section}"
    return f"[{c.n}] {c.title}"


def citation_location(c: Any) -> str:
    """``path#anchor`` of the cited section, or the path for a whole document."""
    return f"{c.path}#{c.anchor}" if c.anchor else c.path


def _indexed_section(engine: Any, c: Any, generation: str | None = None) -> str:
    """The cited section's text from the index (the answer's generation while
    the engine still has it open), or ``""``: team docs are not KB files."""
    try:
        by_generation = getattr(engine, "sections", None)
        sections = by_generation(generation) if callable(by_generation) else engine.index.sections
        sec = sections.get(f"{c.doc_id}#{c.anchor}")
    except Exception:  # a missing or unreadable index must not break the page
        return ""
    return str(sec.get("text") or "") if isinstance(sec, dict) else ""


def section_text(docs_by_id: dict[str, Any], c: Any, link=None, engine: Any = None,
                 generation: str | None = None) -> str:
    """The cited section's Markdown from the KB (doc id + anchor), or ``""``.

    With ``link(doc_id, anchor)``, links to other KB docs become wiki links
    (and links that resolve to no doc keep their text only). A section of a
    team doc (not a KB file) comes from the index through ``engine``."""
    from gpukb.wiki import doc_index, rewrite_links
    from gpukb.wiki import section_text as _section

    doc = docs_by_id.get(str(getattr(c, "doc_id", "")))
    if doc is None or (getattr(c, "source", "") or "bundled") != "bundled":
        if engine is not None:
            return _indexed_section(engine, c, generation)
        return ""
    text = _section(doc.body, getattr(c, "anchor", "") or "") or ""
    if link is not None and text:
        text = rewrite_links(text, doc, doc_index(list(docs_by_id.values())), link)
    return text


def outside_code(text: str, fn) -> str:
    """``fn`` applied to the text outside code fences and inline code."""
    from gpukb.wiki import outside_code as _outside

    return _outside(text or "", fn)


def answer_markdown(body: str, docs_by_path: dict[str, Any] | None = None, link=None) -> str:
    """The answer body as shown: links to KB files become wiki deep links when
    they resolve (``docs_by_path``: ``area/slug.md`` -> doc), plain text otherwise."""

    def sub(m: re.Match) -> str:
        label, target = m.group(1), m.group(2)
        if docs_by_path is not None and link is not None:
            path, _, frag = target.partition("#")
            path = path[3:] if path.startswith("kb/") else path
            doc = docs_by_path.get(path)
            if doc is not None:
                return f"[{label}]({link(doc.id, frag)})"
        return label

    return outside_code(body or "", lambda part: _RELATIVE_LINK.sub(sub, part))


def link_citations(body: str, citations: list[Any], link) -> str:
    """Turn ``[n]`` markers (outside code) into links to the cited wiki sections."""
    by_n = {c.n: c for c in citations}

    def sub(m: re.Match) -> str:
        c = by_n.get(int(m.group(1)))
        if c is None:
            return m.group(0)
        title = citation_label(c).replace('"', "'")
        return f'[\\[{c.n}\\]]({link(c.doc_id, c.anchor)} "{title}")'

    return outside_code(body or "", lambda part: _MARKER.sub(sub, part))


def _ask(engine: Any, question: str, area: str | None) -> dict[str, Any]:
    """Run one question; the answer or a one-line error."""
    from .state import short_error

    try:
        return {"answer": engine.ask(question, area=area)}
    except Exception as exc:  # never let a traceback reach the page
        return {"error": short_error(exc)}


def _ask_streaming(engine: Any, question: str, area: str | None) -> dict[str, Any]:
    """Like :func:`_ask`, showing the text while a streaming generator writes it;
    the finished, checked answer then replaces it."""
    from .state import short_error

    box = st.empty()
    final: dict[str, Any] = {}

    def deltas():
        for item in engine.ask_stream(question, area=area):
            if isinstance(item, str):
                yield item
            else:
                final["answer"] = item

    try:
        with box.container():
            st.write_stream(deltas())
    except Exception as exc:  # never let a traceback reach the page
        return {"error": short_error(exc)}
    finally:
        box.empty()
    if "answer" not in final:
        return {"error": "no answer"}
    return {"answer": final["answer"]}


# ---------------------------------------------------------------------------
# rendering one turn


def _kb() -> tuple[dict[str, Any], dict[str, Any]]:
    from gpukb.wiki import doc_index

    from .state import kb_docs

    try:
        docs = kb_docs()
    except Exception:  # the answer still shows, without section texts
        return {}, {}
    return {d.id: d for d in docs}, doc_index(docs)


def _render_sources(citations: list[Any], by_id: dict[str, Any], link, engine: Any = None,
                    generation: str | None = None) -> None:
    st.markdown("**Sources**")
    for c in citations:
        with st.expander(escape_label(citation_label(c))):
            st.markdown(f"[Open in the wiki]({link(c.doc_id, c.anchor)}) · `{citation_location(c)}`")
            source = getattr(c, "source", "") or ""
            if source and source != "bundled":
                info = engine.settings.source(source) if hasattr(engine, "settings") else None
                trust = f" — {info.trust}" if info is not None and info.trust else ""
                st.caption(f"From the team source `{escape_label(source)}`{escape_label(trust)}")
            if c.source_urls:
                st.markdown("Upstream: " + " · ".join(f"<{u}>" for u in c.source_urls))
            text = section_text(by_id, c, link, engine, generation)
            if text:
                st.divider()
                st.markdown(answer_markdown(text), unsafe_allow_html=False)


def _render_manifest(m: dict[str, Any], key: str) -> None:
    recipe = str(m.get("recipe") or "manifest")
    st.markdown(f"**Manifest** from recipe `{recipe}`")
    if m.get("valid"):
        st.success("The manifest validates.", icon=":material/check_circle:")
    else:
        st.warning("The manifest does not validate:", icon=":material/warning:")
        for issue in m.get("issues") or []:
            if isinstance(issue, dict):
                st.markdown(f"- `{issue.get('path') or '(document)'}`: {escape_label(issue.get('message', ''))}")
            else:
                st.markdown(f"- {escape_label(str(issue))}")
    st.code(m.get("yaml") or "", language="yaml")
    st.download_button("Download YAML", data=m.get("yaml") or "", file_name=f"{recipe}.yaml",
                       mime="application/x-yaml", key=f"dl-{key}", icon=":material/download:",
                       on_click="ignore")


def _on_feedback(turn_id: str) -> None:
    from .state import feedback_store, short_error

    turn = next((t for t in st.session_state.get(CHAT_KEY, []) if t["id"] == turn_id), None)
    value = st.session_state.get(f"fb-{turn_id}")
    if turn is None or value is None or "answer" not in turn:
        return
    ans = turn["answer"]
    try:
        feedback_store().record(question=turn["question"], answer=ans.answer, citations=ans.citations,
                                verdict="helpful" if value == 1 else "not_helpful", source="app",
                                answer_key=turn_id)
        turn["feedback"] = "Thanks for the feedback."
    except Exception as exc:
        turn["feedback"] = f"Feedback not saved: {short_error(exc)}"


def _render_answer(turn: dict[str, Any], by_id: dict[str, Any], by_path: dict[str, Any], engine: Any = None) -> None:
    from .state import app_link

    if "error" in turn:
        st.error(turn["error"])
        return
    ans = turn["answer"]
    if ans.refused:
        by_title = {d.title: d for d in by_id.values()}
        msg = "**I don't know:** the gpukb knowledge base does not cover this."
        if ans.closest:
            items = []
            for t in ans.closest:
                d = by_title.get(t)
                items.append(f"- [{escape_label(t)}]({app_link(d.id)})" if d else f"- {escape_label(t)}")
            msg += "\n\nClosest topics:\n" + "\n".join(items)
        st.info(msg, icon=":material/help:")
        st.caption(f"{ans.seconds:.2f} s")
        return
    body = answer_markdown(ans.body, by_path, app_link)
    st.markdown(link_citations(body, ans.citations, app_link), unsafe_allow_html=False)
    for notice in getattr(ans, "notices", None) or []:
        st.caption(f":material/info: {escape_label(str(notice))}")
    st.caption(f"{ans.seconds:.2f} s · {len(ans.citations)} source(s)")
    if ans.citations:
        _render_sources(ans.citations, by_id, app_link, engine, getattr(ans, "generation", None))
    if ans.recipes:
        st.markdown("**Recipes:** " + " · ".join(
            f"[{escape_label(r['title'])}](/recipes?recipe={quote(str(r['id']))})" for r in ans.recipes))
    if ans.manifest:
        _render_manifest(ans.manifest, turn["id"])
    st.feedback("thumbs", key=f"fb-{turn['id']}", on_change=_on_feedback, args=(turn["id"],))
    if turn.get("feedback"):
        st.caption(turn["feedback"])


def _render_turn(turn: dict[str, Any], by_id: dict[str, Any], by_path: dict[str, Any], engine: Any = None) -> None:
    with st.chat_message("user"):
        st.text(turn["question"])
    with st.chat_message("assistant"):
        _render_answer(turn, by_id, by_path, engine)


# ---------------------------------------------------------------------------
# the page


def render() -> None:
    """The Ask page."""
    from gpukb.errors import GpukbError

    from .state import get_engine, index_hint, short_error

    st.title("Ask gpukb")
    st.caption("Cited answers about running GPU and AI workloads on Kubernetes, from the curated gpukb knowledge base.")

    try:
        engine = get_engine()
    except GpukbError as exc:
        st.error(short_error(exc))
        hint = index_hint(exc)
        if hint:
            st.info(hint)
        return
    except Exception as exc:  # e.g. the model cannot load; one line, no traceback
        st.error(f"Could not start the answering engine: {short_error(exc)}")
        return

    from gpukb.knowledge import AREAS

    history: list[dict[str, Any]] = st.session_state.setdefault(CHAT_KEY, [])
    col_area, col_clear = st.columns([4, 1], vertical_alignment="bottom")
    area = col_area.selectbox("Area", [ALL_AREAS, *AREAS], index=0, key="ask_area",
                              help="Limit the answer to one area of the knowledge base.")
    if col_clear.button("Clear chat", icon=":material/delete:"):
        history.clear()

    by_id, by_path = _kb()
    for turn in history:
        _render_turn(turn, by_id, by_path, engine)

    question = st.chat_input("Ask about GPUs on Kubernetes, or paste an error…", max_chars=4000)
    if question is not None:
        question = question.strip()
        if not question:
            st.warning("Type a question first.")
            return
        turn = {"id": uuid.uuid4().hex[:16], "question": question}
        with st.chat_message("user"):
            st.text(question)
        with st.chat_message("assistant"):
            where = None if area == ALL_AREAS else area
            if getattr(engine, "streams", False):
                turn.update(_ask_streaming(engine, question, where))
            else:
                with st.spinner("Searching the knowledge base…"):
                    turn.update(_ask(engine, question, where))
            history.append(turn)
            del history[:-MAX_TURNS]
            _render_answer(turn, by_id, by_path, engine)
