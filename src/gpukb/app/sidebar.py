"""The sidebar: index status (docs, chunks, when it was built, model,
generation) and a re-ingest button with a progress bar."""

from __future__ import annotations

from typing import Any

import streamlit as st

__all__ = ["render", "status_lines"]

_STATE_TEXT = {
    "current": "Index is up to date",
    "stale": "Index is out of date: the KB changed since it was built",
    "missing": "No index yet",
    "error": "The knowledge base cannot be read",
}


def status_lines(info: dict[str, Any]) -> list[str]:
    """The facts shown under the state, as Markdown lines."""
    lines = []
    if info.get("docs") is not None:
        lines.append(f"**Docs:** {info['docs']}")
    if info.get("chunks") is not None:
        sec = f" ({info['sections']} sections)" if info.get("sections") is not None else ""
        lines.append(f"**Chunks:** {info['chunks']}{sec}")
    if info.get("built"):
        lines.append(f"**Built:** {str(info['built']).replace('T', ' ').replace('Z', ' UTC')}")
    if info.get("model"):
        lines.append(f"**Model:** `{info['model']}`")
    if info.get("generation"):
        lines.append(f"**Generation:** `{info['generation']}`")
    return lines


def _reingest() -> None:
    from .state import reingest, short_error

    bar = st.progress(0.0, text="Starting…")
    try:
        summary = reingest(lambda f, text: bar.progress(min(max(f, 0.0), 1.0), text=text))
    except Exception as exc:  # any failure is one line, never a traceback
        bar.empty()
        st.session_state["ingest_msg"] = ("error", f"Re-ingest failed: {short_error(exc)}")
        return
    if summary.noop:
        msg = f"Nothing changed: {summary.docs} docs, {summary.chunks} chunks."
    else:
        msg = (f"Indexed {summary.docs} docs, {summary.chunks} chunks "
               f"({summary.embedded} embedded, {summary.skipped} reused) in {summary.seconds:.1f} s.")
    st.session_state["ingest_msg"] = ("success", msg)
    st.rerun()


def render() -> dict[str, Any]:
    """Draw the sidebar; returns the index info it showed."""
    from .state import index_info, short_error

    with st.sidebar:
        st.subheader("Index")
        try:
            info = index_info()
        except Exception as exc:
            info = {"state": "error", "error": short_error(exc)}
        state = info.get("state", "error")
        text = _STATE_TEXT.get(state, state)
        if state == "current":
            st.success(text, icon=":material/check_circle:")
        elif state == "missing":
            st.warning(f"{text}. Ask and meaning search need it: build it with the button below.",
                       icon=":material/warning:")
        elif state == "stale":
            st.warning(text, icon=":material/update:")
        else:
            st.error(f"{text}: {info.get('error', '')}", icon=":material/error:")
        lines = status_lines(info)
        if lines:
            st.markdown("  \n".join(lines))
        st.caption(f"Home: `{info.get('home', '')}`")
        label = "Build the index" if state == "missing" else "Re-ingest"
        if st.button(label, key="reingest", icon=":material/refresh:", width="stretch",
                     disabled=state == "error"):
            _reingest()
        msg = st.session_state.pop("ingest_msg", None)
        if msg:
            (st.success if msg[0] == "success" else st.error)(msg[1])
    return info
