"""Pieces shared by several pages: finding lists and links to KB docs."""

from __future__ import annotations

from typing import Any, Iterable

import streamlit as st

__all__ = ["doc_link", "render_findings", "findings_of", "SEVERITY_ICON"]

SEVERITY_ICON = {"error": ":red[:material/error:]", "warning": ":orange[:material/warning:]",
                 "info": ":blue[:material/info:]"}


def doc_link(doc_id: str | None, anchor: str | None = None, docs_by_id: dict[str, Any] | None = None) -> str:
    """``[title](deep link)`` for a known doc, else the id in backticks (or "")."""
    from .ask import escape_label
    from .state import app_link

    if not doc_id:
        return ""
    doc = (docs_by_id or {}).get(doc_id)
    if docs_by_id is not None and doc is None:
        return f"`{doc_id}`"
    title = escape_label(doc.title) if doc is not None else doc_id
    return f"[{title}]({app_link(doc_id, anchor)})"


def findings_of(report: Any) -> list[tuple[str, Any, Any]]:
    """``(file path, document result, finding)`` for every finding of a Report."""
    out = []
    for f in getattr(report, "files", []) or []:
        for d in f.documents:
            for fi in d.findings:
                out.append((f.path, d, fi))
    return out


def _where(doc: Any) -> str:
    from .ask import escape_label

    what = " ".join(x for x in (doc.kind, doc.name) if x) if doc is not None else ""
    return f"document {doc.index + 1}" + (f" ({escape_label(what)})" if what else "") if doc is not None else ""


def render_findings(items: Iterable[tuple[str, Any, Any]], docs_by_id: dict[str, Any] | None = None,
                    *, empty: str = "No findings.") -> int:
    """One block per finding: severity, rule, where, message, fix and the KB doc. Returns the count."""
    from .ask import escape_label

    n = 0
    for _, doc, f in items:
        n += 1
        icon = SEVERITY_ICON.get(f.severity, ":material/circle:")
        head = f"{icon} **{escape_label(f.severity)}** `{f.rule}` · {_where(doc)}"
        if f.path:
            head += f" · `{f.path}`"
        lines = [head, "", escape_label(f.message)]
        if getattr(f, "fix", None):
            lines += ["", f"**Fix:** {escape_label(f.fix)}"]
        if getattr(f, "doc_id", None):
            lines += ["", f"**Read:** {doc_link(f.doc_id, None, docs_by_id)}"]
        with st.container(border=True):
            st.markdown("\n".join(lines))
    if n == 0:
        st.success(empty, icon=":material/check_circle:")
    return n
