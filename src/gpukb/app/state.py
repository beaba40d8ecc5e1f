"""Shared app state: settings, the KB and recipes (reloaded when their files
change), one embedding model and one :class:`~gpukb.live.LiveEngine` per index
home (``st.cache_resource``), index status and re-ingest.

The live engine follows re-ingests by itself (a new generation is opened with
the loaded model and swapped in before the next question), so publishing a
generation never reloads the model or drops a session."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import streamlit as st

__all__ = ["settings", "get_engine", "index_hint", "kb_docs", "kb_by_id", "recipes", "index_info",
           "reingest", "app_link", "short_error", "feedback_store", "stale_after_days"]


def settings() -> Any:
    """Settings from the environment (``GPUKB_HOME``, ``GPUKB_ROOT``), read on every run."""
    from gpukb import load_settings

    return load_settings()


def short_error(exc: BaseException) -> str:
    """One line for the page: the library's own message, or the exception type and first line."""
    from gpukb.errors import GpukbError

    if isinstance(exc, GpukbError):
        lines = exc.lines()
        text = lines[0] if len(lines) == 1 else f"{lines[0]} (and {len(lines) - 1} more)"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return (text.splitlines() or [type(exc).__name__])[0][:500]


# ---------------------------------------------------------------------------
# the model and the engine


class _LazyEmbedder:
    """The shared embedder, loaded on first use, with an optional progress hook
    around ``embed_documents`` (used by re-ingest)."""

    def __init__(self, loader: Callable[[], Any], on_progress: Callable[[int, int], None] | None = None):
        self._loader = loader
        self._on_progress = on_progress

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader(), name)

    def embed_documents(self, texts: list[str], progress: bool = False) -> list[list[float]]:
        real = self._loader()
        out: list[list[float]]
        if self._on_progress is None or len(texts) <= 64:
            out = real.embed_documents(texts, progress=False)
            if self._on_progress:
                self._on_progress(len(texts), len(texts))
            return out
        out = []
        step = 128
        for i in range(0, len(texts), step):
            out.extend(real.embed_documents(texts[i:i + step], progress=False))
            self._on_progress(min(i + step, len(texts)), len(texts))
        return out


def _cfg(section: Any, name: str, default: Any) -> Any:
    """A config value from a settings section (an object or a mapping)."""
    if isinstance(section, dict):
        return section.get(name, default)
    return getattr(section, name, default)


@st.cache_resource(show_spinner="Loading the embedding model…", max_entries=2)
def _load_embedder(backend: str, model: str, batch_size: int, _settings: Any) -> Any:
    """One embedder per backend/model/batch size (``_settings`` is not part of the key)."""
    try:
        from gpukb.backends import embedder_for

        return embedder_for(_settings)
    except ImportError:  # an older registry without embedder_for
        pass
    from gpukb.backends import get_embedder

    return get_embedder(backend, batch_size=batch_size)


def _shared_embedder(s: Any) -> Any | None:
    """The process-wide embedder for these settings, or None when the backend
    registry is not importable (the engine then loads its own)."""
    try:
        import gpukb.backends  # noqa: F401
    except ImportError:
        return None
    e = s.embedding
    return _load_embedder(str(_cfg(e, "backend", "")), str(_cfg(e, "model", "")),
                          int(_cfg(e, "batch_size", 32)), s)


def stale_after_days() -> int:
    """Days after which a doc's review is stale (``kb.stale_after_days`` when configured)."""
    from gpukb.wiki import STALE_AFTER_DAYS

    try:
        cfg = getattr(settings(), "config", None)
        return int(_cfg(_cfg(cfg, "kb", None), "stale_after_days", STALE_AFTER_DAYS) or STALE_AFTER_DAYS)
    except Exception:
        return STALE_AFTER_DAYS


@st.cache_resource(show_spinner="Loading the embedding model and the index…", max_entries=1)
def _load_engine(home: str, root: str) -> Any:
    """Build the engine once per index home; it follows re-ingests by itself
    (the embedding model is shared with re-ingests from the sidebar)."""
    from gpukb.config import load_settings
    from gpukb.live import LiveEngine

    s = load_settings(home=home, root=root)
    emb = _shared_embedder(s)
    engine = LiveEngine(s) if emb is None else LiveEngine(s, embedder=emb)
    engine.start_heartbeat()
    return engine


def get_engine() -> Any:
    """Return the cached engine. Raises :class:`~gpukb.errors.GpukbError` when the
    index is missing or stale (errors are not cached, so a later run retries)."""
    s = settings()
    return _load_engine(str(s.home), str(s.root))


def index_hint(exc: BaseException) -> str | None:
    """A next step for index errors, or ``None``."""
    from gpukb.errors import IndexDamagedError, IndexMismatchError, IndexMissingError

    if isinstance(exc, IndexMissingError):
        return "Build the index with the **Build the index** button in the sidebar (or `gpukb ingest`)."
    if isinstance(exc, IndexDamagedError):
        return "Rebuild the index with the **Build the index** button (or `gpukb ingest`; it repairs a damaged index)."
    if isinstance(exc, IndexMismatchError):
        return ("Rebuild the index with the **Re-ingest** button in the sidebar "
                "(or `gpukb ingest --rebuild`), then reload this page.")
    return None


# ---------------------------------------------------------------------------
# the KB and the recipes, reloaded when their files change


def _stamp(folder: Path, pattern: str) -> tuple:
    try:
        return tuple(sorted((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in folder.glob(pattern)))
    except OSError:
        return ()


@st.cache_resource(max_entries=2, show_spinner=False)
def _load_kb(kb_dir: str, stamp: tuple) -> list[Any]:
    from gpukb import load_kb

    return load_kb(kb_dir)


def kb_docs() -> list[Any]:
    """Every KB doc (raises the library's errors when the KB is broken)."""
    kb = settings().kb_dir
    return _load_kb(str(kb), _stamp(Path(kb), "**/*.md"))


def kb_by_id() -> dict[str, Any]:
    return {d.id: d for d in kb_docs()}


@st.cache_resource(max_entries=2, show_spinner=False)
def _load_recipes(recipes_dir: str, stamp: tuple) -> list[Any]:
    from gpukb import load_recipes

    return load_recipes(Path(recipes_dir))


def recipes() -> list[Any]:
    d = settings().recipes_dir
    return _load_recipes(str(d), _stamp(Path(d), "*/*.yaml"))


# ---------------------------------------------------------------------------
# index status and re-ingest


def index_info() -> dict[str, Any]:
    """State (missing / stale / current / error) and the published manifest's facts.

    Recomputed only when the KB files or the published generation change."""
    s = settings()
    try:
        current = (Path(s.home) / "CURRENT").stat().st_mtime_ns
    except OSError:
        current = None
    stamp = _stamp(Path(s.kb_dir), "**/*.md") + _stamp(Path(s.root) / "ingest", "*.yaml")
    return dict(_index_info(str(s.home), str(s.root), stamp, current))


@st.cache_data(max_entries=8, ttl=600, show_spinner=False)
def _index_info(home: str, root: str, kb_stamp: tuple, current: int | None) -> dict[str, Any]:
    from gpukb import load_settings
    from gpukb.index import read_manifest
    from gpukb.ingest import index_status

    s = load_settings(home=home, root=root)
    info: dict[str, Any] = {"home": str(s.home)}
    try:
        info.update(index_status(s))
    except Exception as exc:  # a broken KB must not hide the sidebar
        info["state"] = "error"
        info["error"] = short_error(exc)
    manifest = read_manifest(s.home) if info.get("state") != "missing" else None
    if manifest:
        emb = manifest.get("embedding") or {}
        info.update({
            "generation": manifest.get("generation"),
            "built": manifest.get("created"),
            "docs": info.get("docs") if info.get("docs") is not None else len(manifest.get("docs") or {}),
            "indexed_docs": len(manifest.get("docs") or {}),
            "chunks": manifest.get("chunks"),
            "sections": manifest.get("sections"),
            "model": emb.get("model_id") or emb.get("model"),
        })
    return info


def reingest(on_progress: Callable[[float, str], Any], *, rebuild: bool = False) -> Any:
    """Run an incremental ingest with the shared model; ``on_progress(fraction, text)``.

    Returns the :class:`~gpukb.ingest.IngestSummary`. The next engine access
    loads the new generation."""
    # ``gpukb.ingest`` names the module once it is imported, so take the function from it.
    from gpukb.ingest import ingest

    s = settings()
    on_progress(0.05, "Reading the knowledge base…")

    def embedded(done: int, total: int) -> None:
        on_progress(0.1 + 0.8 * done / max(total, 1), f"Embedding sections: {done}/{total}")

    embedder = _LazyEmbedder(lambda: _shared_embedder(s), embedded) if _shared_embedder_available() else None
    summary = ingest(s, rebuild=rebuild, progress=False, embedder=embedder)
    on_progress(1.0, "Up to date." if summary.noop else "New index published.")
    return summary


def _shared_embedder_available() -> bool:
    try:
        import gpukb.backends  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------
# links and feedback


def app_link(doc_id: str, anchor: str | None = None) -> str:
    """The wiki deep link of a doc (section), relative to this app's host:
    ``/?doc=<id>#<anchor>`` (path prefix of ``GPUKB_WIKI_URL`` kept)."""
    from gpukb.links import wiki_link

    parts = urlsplit(wiki_link(doc_id, anchor or None))
    path = parts.path or "/"
    return f"{path}?{parts.query}" + (f"#{parts.fragment}" if parts.fragment else "")


def feedback_store() -> Any:
    from gpukb.feedback import FeedbackStore

    return FeedbackStore(Path(settings().home) / "feedback.sqlite3")
