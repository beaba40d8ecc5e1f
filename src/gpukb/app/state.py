"""Shared app state: one cached :class:`~gpukb.engine.Engine` per index generation."""

from __future__ import annotations

from typing import Any

import streamlit as st

__all__ = ["get_engine", "index_hint"]


@st.cache_resource(show_spinner="Loading the embedding model and the index…", max_entries=1)
def _load_engine(home: str, generation: str | None) -> Any:
    """Build the engine once. ``generation`` is part of the cache key only, so a
    re-ingest (a new published generation) loads a fresh engine on the next run."""
    from gpukb.config import load_settings
    from gpukb.engine import Engine

    return Engine(load_settings(home=home))


def get_engine() -> Any:
    """Return the cached engine. Raises :class:`~gpukb.errors.GpukbError` when the
    index is missing or stale (errors are not cached, so a later run retries)."""
    from gpukb.config import load_settings
    from gpukb.index import current_generation

    settings = load_settings()
    return _load_engine(str(settings.home), current_generation(settings.home))


def index_hint(exc: BaseException) -> str | None:
    """A next step for index errors, or ``None``."""
    from gpukb.errors import IndexDamagedError, IndexMismatchError, IndexMissingError

    if isinstance(exc, IndexMissingError):
        return "Build the index with `make ingest` (or `gpukb ingest`), then reload this page."
    if isinstance(exc, IndexDamagedError):
        return "Rebuild the index with `gpukb ingest` (it repairs a damaged index), then reload this page."
    if isinstance(exc, IndexMismatchError):
        return "Rebuild the index with `gpukb ingest --rebuild`, then reload this page."
    return None
