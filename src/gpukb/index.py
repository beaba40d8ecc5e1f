"""The on-disk index: generations, manifest and atomic publishing.

Layout under the index home (``.gpukb/`` by default)::

    CURRENT                      {"generation": "g-..."}  (replaced atomically)
    generations/g-.../
        manifest.json            format, embedding model, dimension, chunker, corpus hash, docs
        meta.sqlite              sections, vocabulary, chunk list, BM25 term counts (gpukb.meta)
        bm25/                    keyword index in bm25s' format, read memory-mapped
        chroma/                  vectors only (embedded Chroma; absent with a server)
    models/                      the ONNX export of the embedding model (shared by generations)
    ingest.lock

An ingest writes a complete new generation, then swaps ``CURRENT``. A crash or
kill at any point leaves the previous generation answering. An incremental
ingest starts the new generation from copies of the published one's
``meta.sqlite`` and ``chroma/`` and applies only what changed.
"""

from __future__ import annotations

import logging

import json
import os
import secrets
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

from .config import Settings
from .errors import IndexMismatchError, IndexMissingError, UsageError

# 3: meta.sqlite instead of sections.json/vocab.json, vector-only Chroma, slim BM25 corpus.
FORMAT = 3
REBUILD_HINT = "run `gpukb ingest --rebuild`"


log = logging.getLogger(__name__)

def embedding_identity(settings: Settings) -> dict[str, Any]:
    """What the vectors depend on. The backend is not part of it: backends that
    run the same model give the same vectors (each records its ``model_id``)."""
    e = settings.embedding
    return {"model": e.model}


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def new_generation_id() -> str:
    return time.strftime("g-%Y%m%dT%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def current_generation(home: Path) -> str | None:
    p = home / "CURRENT"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        gen = data.get("generation")
    except (OSError, ValueError, AttributeError):
        return None
    if gen and (home / "generations" / gen / "manifest.json").is_file():
        return gen
    return None


def read_manifest(home: Path) -> dict[str, Any] | None:
    gen = current_generation(home)
    if not gen:
        return None
    try:
        return json.loads((home / "generations" / gen / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def publish(home: Path, generation: str) -> None:
    write_json_atomic(home / "CURRENT", {"generation": generation})


def collection_name(generation: str) -> str:
    return f"gpukb-{generation}"


def garbage_collect(home: Path, keep: set[str], chroma_url: str | None = None) -> list[str]:
    """Remove generations not in ``keep`` (unfinished ones from killed ingests too)."""
    removed: list[str] = []
    gdir = home / "generations"
    if not gdir.is_dir():
        return removed
    for child in gdir.iterdir():
        if child.name in keep or not child.is_dir():
            continue
        if chroma_url:
            try:
                from .backends import get_vector_store

                get_vector_store("chroma", collection_name=collection_name(child.name), url=chroma_url).drop()
            except Exception as exc:  # the server may be gone; the folder is removed regardless
                log.warning("could not drop collection of generation %s: %s", child.name, exc)
        shutil.rmtree(child, ignore_errors=True)
        removed.append(child.name)
    return removed


@contextmanager
def ingest_lock(home: Path) -> Iterator[None]:
    import fcntl

    home.mkdir(parents=True, exist_ok=True)
    fh = open(home / "ingest.lock", "a+")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"another ingest is running on {home}") from None
        yield
    finally:
        fh.close()


def check_compatible(manifest: dict[str, Any], settings: Settings, chunker: dict[str, Any]) -> None:
    """Refuse an index built with other settings."""
    if manifest.get("format") != FORMAT:
        raise IndexMismatchError(
            f"index at {settings.home} has format {manifest.get('format')}, this gpukb reads {FORMAT}; "
            f"run `gpukb ingest` (it rebuilds an index of an older format)")
    want = embedding_identity(settings)
    have = manifest.get("embedding", {})
    if {k: have.get(k) for k in want} != want:
        raise IndexMismatchError(
            f"index at {settings.home} was built with embedding model {have.get('model')!r} "
            f"({have.get('backend')}), settings ask for {want['model']!r}; {REBUILD_HINT}")
    if manifest.get("chunker") != chunker:
        raise IndexMismatchError(
            f"index at {settings.home} was built with chunker settings {manifest.get('chunker')}, "
            f"settings now {chunker}; {REBUILD_HINT}")
    vs = manifest.get("vector_store", {})
    if (vs.get("url") or None) != (settings.chroma_url or None):
        raise IndexMismatchError(
            f"index at {settings.home} uses vector store {vs.get('url') or 'embedded Chroma'}, "
            f"settings ask for {settings.chroma_url or 'embedded Chroma'}; {REBUILD_HINT}")


@dataclass
class IndexHandle:
    """A read-only view of the published generation."""

    settings: Settings
    generation: str
    manifest: dict[str, Any]

    @property
    def dir(self) -> Path:
        return self.settings.home / "generations" / self.generation

    @cached_property
    def sections(self):
        """``doc_id#anchor`` -> section, a read-only Mapping read lazily from ``meta.sqlite``."""
        from .meta import META_FILE, Sections

        return Sections(self.dir / META_FILE)

    @cached_property
    def vocabulary(self):
        """The KB's normalised terms (supports ``in`` and ``len``), read lazily."""
        from .meta import META_FILE, Vocabulary

        return Vocabulary(self.dir / META_FILE)

    @cached_property
    def store(self):
        from .backends import get_vector_store

        vs = self.manifest["vector_store"]
        return get_vector_store(
            vs.get("backend", "chroma"), collection_name=vs["collection"],
            path=None if vs.get("url") else self.dir / "chroma", url=vs.get("url"))

    @property
    def dim(self) -> int:
        return int(self.manifest["embedding"]["dim"])


def open_index(settings: Settings) -> IndexHandle:
    from .chunking import chunker_settings

    home = settings.home
    gen = current_generation(home)
    if gen is None:
        raise IndexMissingError(f"no index at {home}; run `gpukb ingest` first")
    manifest = json.loads((home / "generations" / gen / "manifest.json").read_text(encoding="utf-8"))
    check_compatible(manifest, settings, chunker_settings(settings.chunking))
    return IndexHandle(settings=settings, generation=gen, manifest=manifest)
