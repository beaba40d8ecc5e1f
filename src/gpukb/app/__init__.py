"""The gpukb Streamlit app.

``app.py`` at the project root calls :func:`main`. Pages are plain functions
registered in :data:`PAGES`; the first one is the default. Streamlit is
imported only here and in the page modules, never by ``import gpukb``.
"""

from __future__ import annotations

__all__ = ["main", "PAGES"]

# (module, function, title, material icon, url path); Ask comes first.
PAGES: list[tuple[str, str, str, str, str]] = [
    ("gpukb.app.ask", "render", "Ask", ":material/question_answer:", "ask"),
]


def main() -> None:
    """Configure the page and run the selected page through ``st.navigation``."""
    from importlib import import_module

    import streamlit as st

    st.set_page_config(page_title="gpukb", page_icon=":material/memory:", layout="centered")
    pages = []
    for i, (module, func, title, icon, url_path) in enumerate(PAGES):
        fn = getattr(import_module(module), func)
        pages.append(st.Page(fn, title=title, icon=icon, url_path=url_path, default=(i == 0)))
    st.navigation(pages).run()
