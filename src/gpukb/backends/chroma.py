"""Built-in vector store: Chroma.

Embedded (``chromadb.PersistentClient`` in the index generation's folder) by
default; a Chroma server (``chroma run``) when a URL is configured
(``GPUKB_CHROMA_URL=http://127.0.0.1:8000``), for teams. Each index
generation is its own collection, so publishing a new one never disturbs the
one being served.
"""

from __future__ import annotations

import logging

import json
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlparse

from ..errors import BackendError
from .base import StoredChunk

_SCALARS = (str, int, float, bool)


log = logging.getLogger(__name__)

def _flatten(meta: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if v is None:
            continue
        out[k] = v if isinstance(v, _SCALARS) else json.dumps(v)
    return out


class ChromaStore:
    def __init__(self, collection_name: str, path: Path | None = None, url: str | None = None, create: bool = False):
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        settings = ChromaSettings(anonymized_telemetry=False)
        try:
            if url:
                u = urlparse(url)
                self.client = chromadb.HttpClient(host=u.hostname or "127.0.0.1", port=u.port or 8000,
                                                  ssl=u.scheme == "https", settings=settings)
            else:
                assert path is not None
                self.client = chromadb.PersistentClient(path=str(path), settings=settings)
            if create:
                try:
                    self.client.delete_collection(collection_name)
                except Exception as exc:  # chromadb raises NotFoundError (or ValueError in older releases)
                    log.debug("no collection %s to replace: %s", collection_name, exc)
                self.collection = self.client.create_collection(
                    collection_name, metadata={"hnsw:space": "cosine"})
            else:
                self.collection = self.client.get_collection(collection_name)
        except BackendError:
            raise
        except Exception as exc:
            where = url or str(path)
            raise BackendError(f"Chroma at {where}: cannot open collection {collection_name!r}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
        self.name = collection_name

    def add(self, chunks: Sequence[StoredChunk], batch: int = 1000) -> None:
        """Add chunks; a chunk with empty ``text`` is stored without a document
        (gpukb keeps texts in its own metadata, so Chroma holds vectors only)."""
        for i in range(0, len(chunks), batch):
            part = chunks[i:i + batch]
            docs = [c.text for c in part]
            self.collection.add(
                ids=[c.id for c in part],
                embeddings=[list(map(float, c.embedding)) for c in part],  # type: ignore[arg-type]
                documents=docs if any(docs) else None,
                metadatas=[_flatten(c.metadata) for c in part],
            )

    def delete(self, ids: Sequence[str], batch: int = 1000) -> None:
        for i in range(0, len(ids), batch):
            self.collection.delete(ids=list(ids[i:i + batch]))

    def embeddings(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """id -> stored embedding, for these ids (missing ids are left out)."""
        out: dict[str, list[float]] = {}
        for i in range(0, len(ids), 1000):
            res = self.collection.get(ids=list(ids[i:i + 1000]), include=["embeddings"])  # type: ignore[list-item]
            embs = res.get("embeddings")
            if embs is None:
                continue
            for cid, e in zip(res["ids"], embs):
                out[cid] = [float(x) for x in e]
        return out

    def get_all(self, include_embeddings: bool = True, page: int = 5000) -> list[StoredChunk]:
        """Every stored chunk, read in pages (one large read fails on big collections)."""
        include = ["documents", "metadatas"] + (["embeddings"] if include_embeddings else [])
        out: list[StoredChunk] = []
        offset = 0
        while True:
            res = self.collection.get(include=include, limit=page, offset=offset)  # type: ignore[arg-type,index]  # chromadb's result types are optional
            ids = res["ids"]
            embs = res.get("embeddings") if include_embeddings else None
            for i, cid in enumerate(ids):
                out.append(StoredChunk(
                    id=cid, text=res["documents"][i], metadata=dict(res["metadatas"][i] or {}),  # type: ignore[arg-type,index]  # chromadb's result types are optional
                    embedding=list(embs[i]) if embs is not None else None))
            if len(ids) < page:
                return out
            offset += page

    def count(self) -> int:
        return self.collection.count()

    def query(self, embedding: list[float], k: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        res = self.collection.query(query_embeddings=[embedding], n_results=k, where=where or None,  # type: ignore[arg-type,index]  # chromadb's result types are optional
                                    include=["distances"])
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0])]  # type: ignore[arg-type,index]  # chromadb's result types are optional

    def llama_vector_store(self) -> Any:
        from llama_index.vector_stores.chroma import ChromaVectorStore

        return ChromaVectorStore(chroma_collection=self.collection)

    def close(self) -> None:
        """Release the client (embedded: its SQLite connections), so the folder
        is left complete and no longer written."""
        close = getattr(self.client, "close", None)
        if close is not None:
            try:
                close()
            except Exception as exc:  # an older chromadb, or already closed
                log.debug("close %s: %s", self.name, exc)

    def drop(self) -> None:
        try:
            self.client.delete_collection(self.name)
        except Exception as exc:  # already gone
            log.debug("drop %s: %s", self.name, exc)


def copy_embedded(src: Path, dst: Path) -> dict[str, tuple[int, int, int]]:
    """Copy an embedded Chroma folder that nobody writes to (a published
    generation: its writer closed it before publishing, readers open copies),
    file by file with the kernel's copy, so each copy has the source's bytes.

    Returns ``{relative path: (size, mtime_ns, inode)}`` of each copy as made,
    so the caller can tell which files Chroma left untouched afterwards. Each
    copy keeps its source's modification time, which is older than this copy:
    any later write sets a different one, whatever the clock's granularity."""
    import os
    import shutil

    out: dict[str, tuple[int, int, int]] = {}
    dst.mkdir(parents=True, exist_ok=False)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        target = dst / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            src_st = path.stat()
            os.utime(target, ns=(src_st.st_atime_ns, src_st.st_mtime_ns))
            st = target.stat()
            out[rel.as_posix()] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return out


def chroma_store(collection_name: str, path: Path | None = None, url: str | None = None, create: bool = False) -> ChromaStore:
    return ChromaStore(collection_name, path=path, url=url, create=create)


