"""Shared app state: one cached :class:`~gpukb.live.LiveEngine` per index home.

The live engine follows re-ingests by itself (a new generation is opened with
the loaded model and swapped in before the next question), so publishing a
generation never reloads the model or drops a session."""

from __future__ import annotations

from typing import Any

import streamlit as st

__all__ = ["get_engine", "index_hint"]


@st.cache_resource(show_spinner="Loading the embedding model and the index…", max_entries=1)
def _load_engine(home: str) -> Any:
    """Build the engine once per index home; it follows re-ingests by itself."""
    from gpukb.config import load_settings
    from gpukb.live import LiveEngine

    engine = LiveEngine(load_settings(home=home))
    engine.start_heartbeat()
    return engine


def get_engine() -> Any:
    """Return the cached engine. Raises :class:`~gpukb.errors.GpukbError` when the
    index is missing or stale (errors are not cached, so a later run retries)."""
    from gpukb.config import load_settings

    settings = load_settings()
    return _load_engine(str(settings.home))


def index_hint(exc: BaseException) -> str | None:
    """A next step for index errors, or ``None``."""
    from gpukb.errors import IndexMismatchError, IndexMissingError

    if isinstance(exc, IndexMissingError):
        return "Build the index with `make ingest` (or `gpukb ingest`), then reload this page."
    if isinstance(exc, IndexMismatchError):
        return "Rebuild the index with `gpukb ingest --rebuild`, then reload this page."
    return None
