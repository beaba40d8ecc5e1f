"""Links into the gpukb wiki, shared by every front end (CLI, MCP server, chat bots, app).

The wiki's base URL comes from ``GPUKB_WIKI_URL`` (default
``http://127.0.0.1:8501``, the local app). A doc opens with ``?doc=<id>``; a
section is the URL fragment (its heading anchor).
"""

from __future__ import annotations

import os
from urllib.parse import quote

__all__ = ["DEFAULT_WIKI_URL", "wiki_base", "wiki_link", "doc_uri"]

DEFAULT_WIKI_URL = "http://127.0.0.1:8501"


def wiki_base() -> str:
    """The wiki's base URL, without a trailing slash."""
    base = (os.environ.get("GPUKB_WIKI_URL") or "").strip() or DEFAULT_WIKI_URL
    return base.rstrip("/")


def wiki_link(doc_id: str, anchor: str | None = None, source: str | None = None) -> str:
    """``<GPUKB_WIKI_URL>/?doc=<id>#<anchor>`` (no fragment when ``anchor`` is empty);
    a team knowledge source adds ``&source=<name>`` (the bundled one adds nothing)."""
    url = f"{wiki_base()}/?doc={quote(str(doc_id), safe='-_.~')}"
    if source and source != "bundled":
        url += f"&source={quote(str(source), safe='-_.~')}"
    if anchor:
        url += "#" + quote(str(anchor), safe="-_.~")
    return url


def doc_uri(doc_id: str) -> str:
    """The MCP resource URI of a KB doc: ``gpukb://doc/<id>``."""
    return f"gpukb://doc/{quote(str(doc_id), safe='-_.~')}"
