"""The Wiki page: browse the KB by area and tag, search it by keyword or by
meaning, and read one doc rendered from its Markdown with its sources,
review date, ``applies_to`` and a staleness note.

A doc has a stable deep link, ``?doc=<id>#<anchor>``; the id is checked
against the known doc ids (never used as a path) and the anchors are the
ones citations use (:func:`gpukb.knowledge.anchor_for`). Markdown is always
rendered with ``unsafe_allow_html=False``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

__all__ = ["render", "meaning_search", "K_QUERY", "K_MODE", "K_AREA", "K_TAGS"]

ALL_AREAS = "All areas"
KEYWORD, MEANING = "Keyword", "Meaning"
K_QUERY, K_MODE, K_AREA, K_TAGS = "wiki_query", "wiki_mode", "wiki_area", "wiki_tags"


def _open(doc_id: str) -> None:
    st.query_params["doc"] = doc_id


def _close() -> None:
    st.query_params.pop("doc", None)


def _md(text: str) -> None:
    st.markdown(text, unsafe_allow_html=False)


def meaning_search(query: str, area: str | None, k: int = 8) -> list[dict[str, Any]]:
    """Sections nearest in meaning to ``query`` (vector retrieval of the cached
    engine): ``[{doc_id, title, section, anchor, area, score}]``."""
    from .state import get_engine

    engine = get_engine()
    retriever = getattr(engine, "retriever", None)
    if retriever is not None and hasattr(retriever, "retrieve"):
        got = retriever.retrieve(query[:2000], k=k, area=area, mode="vector")
        return [{"doc_id": e.doc_id, "title": e.title, "section": e.section, "anchor": e.anchor,
                 "area": e.area, "score": e.vector_score if e.vector_score is not None else e.score}
                for e in got.evidence]
    ans = engine.ask(query[:2000], k=k, area=area, with_manifest=False)  # the public fallback
    return [{"doc_id": c.doc_id, "title": c.title, "section": c.section, "anchor": c.anchor,
             "area": c.area, "score": None} for c in ans.citations]


# ---------------------------------------------------------------------------
# one doc


def _render_doc(doc: Any, docs: list[Any]) -> None:
    from gpukb.wiki import doc_index, doc_sections, review_age_days, rewrite_links

    from .ask import escape_label
    from .state import app_link, recipes, stale_after_days

    by_path = doc_index(docs)
    st.button("All docs", on_click=_close, icon=":material/arrow_back:", type="tertiary", key="wiki_back")
    st.title(doc.title, anchor=False)
    facts = [f"**Area:** {escape_label(doc.area)}", f"**Reviewed:** {escape_label(doc.reviewed)}"]
    if doc.applies_to:
        facts.append("**Applies to:** " + ", ".join(f"{escape_label(k)} `{v}`" for k, v in doc.applies_to.items()))
    _md(" · ".join(facts))
    if doc.tags:
        _md(" ".join(f":gray-badge[{escape_label(t)}]" for t in doc.tags))
    age, limit = review_age_days(doc.reviewed), stale_after_days()
    if age is None or age > limit:
        when = "on an unreadable date" if age is None else f"{age} days ago"
        st.warning(f"This page may be stale: it was last reviewed {when} (more than {limit} days). "
                   "Check its sources for changes.", icon=":material/history:")
    _md(f"Deep link: `{app_link(doc.id)}`")

    secs = doc_sections(doc.body, doc.title)
    link = app_link
    if secs[0].text.strip():
        _md(rewrite_links(secs[0].text, doc, by_path, link))
    for s in secs[1:]:
        if s.level <= 2:
            st.header(s.heading, anchor=s.anchor or False)
        elif s.level == 3:
            st.subheader(s.heading, anchor=s.anchor or False)
        else:
            _md(f"**{s.heading}**")
        if s.text.strip():
            _md(rewrite_links(s.text, doc, by_path, link))

    st.divider()
    st.subheader("Sources", anchor=False)
    _md("\n".join(f"- <{u}>" for u in doc.sources) or "None listed.")
    try:
        related = [r for r in recipes() if doc.id in r.docs]
    except Exception:
        related = []
    if related:
        st.subheader("Recipes", anchor=False)
        _md("\n".join(f"- [{escape_label(r.title)}](/recipes?recipe={r.id})" for r in related))
    st.caption(f"File: `{doc.path}`")


# ---------------------------------------------------------------------------
# browsing and searching


def _doc_button(doc: Any, key: str, *, bold: bool = False) -> None:
    from .ask import escape_label

    label = escape_label(doc.title)
    st.button(f"**{label}**" if bold else label, key=key, on_click=_open, args=(doc.id,), type="tertiary",
              icon=":material/article:")


def _render_list(docs: list[Any]) -> None:
    from gpukb.knowledge import AREAS

    order = {a: i for i, a in enumerate(AREAS)}
    groups: dict[str, list[Any]] = {}
    for d in docs:
        groups.setdefault(d.area, []).append(d)
    for area in sorted(groups, key=lambda a: (order.get(a, 99), a)):
        st.subheader(area, anchor=False)
        for d in sorted(groups[area], key=lambda d: d.title.lower()):
            _doc_button(d, f"wiki-open-{d.id}")


def _render_keyword(docs: list[Any], query: str, area: str | None, tags: list[str]) -> None:
    from gpukb.wiki import keyword_search

    from .ask import escape_label
    from .state import app_link

    hits = keyword_search(docs, query, area=area, tags=tags, limit=25)
    if not hits:
        st.info("No doc contains every word of the search. Try fewer words, or search by meaning.")
        return
    st.caption(f"{len(hits)} doc(s)")
    by_id = {d.id: d for d in docs}
    for h in hits:
        _doc_button(by_id[h.doc_id], f"wiki-hit-{h.doc_id}", bold=True)
        links = " · ".join(f"[{escape_label(head)}]({app_link(h.doc_id, anchor)})" for head, anchor in h.sections)
        st.caption(f"{escape_label(h.area)}" + (f" · {links}" if links else ""))


def _render_meaning(docs: list[Any], query: str, area: str | None) -> None:
    from gpukb.errors import GpukbError

    from .ask import escape_label
    from .state import app_link, index_hint, short_error

    try:
        with st.spinner("Searching by meaning…"):
            hits = meaning_search(query, area)
    except GpukbError as exc:
        st.error(short_error(exc))
        hint = index_hint(exc)
        if hint:
            st.info(hint)
        return
    except Exception as exc:
        st.error(f"Meaning search failed: {short_error(exc)}")
        return
    if not hits:
        st.info("Nothing close in meaning.")
        return
    known = {d.id for d in docs}
    for h in hits:
        if h["doc_id"] not in known:
            continue
        section = h["section"] if h["section"] and h["section"] != h["title"] else "Introduction"
        score = f" · {h['score']:.2f}" if isinstance(h.get("score"), (int, float)) else ""
        _md(f"**[{escape_label(h['title'])}]({app_link(h['doc_id'], h['anchor'])})** — "
            f"{escape_label(section)}  \n:gray[{escape_label(h['area'])}{score}]")


def _render_browse(docs: list[Any]) -> None:
    from gpukb.knowledge import AREAS

    st.title("Wiki")
    st.caption(f"{len(docs)} curated docs. Every heading has a stable link: `?doc=<id>#<anchor>`.")
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    query = c1.text_input("Search the wiki", key=K_QUERY, max_chars=500,
                          placeholder="e.g. renameByDefault, or: pods stuck pending after enabling MIG")
    mode = c2.segmented_control("Search by", [KEYWORD, MEANING], key=K_MODE, default=KEYWORD) or KEYWORD
    areas = [a for a in AREAS if any(d.area == a for d in docs)]
    c3, c4 = st.columns([1, 2])
    chosen = c3.selectbox("Area", [ALL_AREAS, *areas], key=K_AREA)
    area = None if chosen == ALL_AREAS else chosen
    tags_all = sorted({t for d in docs for t in d.tags if area is None or d.area == area})
    if st.session_state.get(K_TAGS):
        st.session_state[K_TAGS] = [t for t in st.session_state[K_TAGS] if t in tags_all]
    tags = c4.multiselect("Tags", tags_all, key=K_TAGS, placeholder="any tag")

    query = (query or "").strip()
    if query and mode == MEANING:
        _render_meaning(docs, query, area)
    elif query:
        _render_keyword(docs, query, area, tags)
    else:
        shown = [d for d in docs if (area is None or d.area == area) and set(tags) <= set(d.tags)]
        if not shown:
            st.info("No doc has all the chosen tags.")
        _render_list(shown)


def render() -> None:
    """The Wiki page."""
    from gpukb.wiki import valid_doc_id

    from .ask import escape_label
    from .state import kb_docs, short_error

    try:
        docs = kb_docs()
    except Exception as exc:
        st.title("Wiki")
        st.error(f"The knowledge base cannot be loaded: {short_error(exc)}")
        return
    wanted = st.query_params.get("doc")
    if wanted is not None:
        doc_id = valid_doc_id(wanted, (d.id for d in docs))
        if doc_id is not None:
            _render_doc(next(d for d in docs if d.id == doc_id), docs)
            return
        shown = escape_label(str(wanted)[:80])
        st.error(f"There is no wiki page with the id “{shown}”. Pick one from the list below.",
                 icon=":material/link_off:")
    _render_browse(docs)
