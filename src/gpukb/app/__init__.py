"""The gpukb Streamlit app.

``app.py`` at the project root calls :func:`main`. Pages are plain functions
registered in :data:`PAGES`; the first one is the default. A wiki deep link
(``/?doc=<id>#<anchor>``) opens the Wiki page whatever the default is.
Streamlit is imported only here and in the page modules, never by
``import gpukb``.
"""

from __future__ import annotations

__all__ = ["main", "PAGES", "page_for"]

# (module, function, title, material icon, url path); Ask comes first.
PAGES: list[tuple[str, str, str, str, str]] = [
    ("gpukb.app.ask", "render", "Ask", ":material/question_answer:", "ask"),
    ("gpukb.app.recipes", "render", "Recipes", ":material/description:", "recipes"),
    ("gpukb.app.wiki", "render", "Wiki", ":material/menu_book:", "wiki"),
    ("gpukb.app.validate", "render", "Validate", ":material/fact_check:", "validate"),
]

_REGISTERED: dict[str, object] = {}


def page_for(url_path: str) -> object | None:
    """The ``st.Page`` registered under ``url_path`` in this run (for ``st.page_link``)."""
    return _REGISTERED.get(url_path)


def main() -> None:
    """Configure the page, draw the sidebar and run the selected page through ``st.navigation``."""
    from importlib import import_module

    import streamlit as st

    from . import sidebar

    st.set_page_config(page_title="gpukb", page_icon=":material/memory:", layout="wide")
    wiki_default = "doc" in st.query_params
    pages = []
    _REGISTERED.clear()
    for i, (module, func, title, icon, url_path) in enumerate(PAGES):
        fn = getattr(import_module(module), func)
        default = (url_path == "wiki") if wiki_default else (i == 0)
        page = st.Page(fn, title=title, icon=icon, url_path=url_path, default=default)
        _REGISTERED[url_path] = page
        pages.append(page)
    selected = st.navigation(pages)
    sidebar.render()
    selected.run()
