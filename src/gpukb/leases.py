"""Leases on index generations and cleanup of superseded ones.

A serving replica holds a lease naming the generations it uses: a record of
the ``gpukb-leases`` collection in the Chroma server when one is configured
(so replicas that mount the index home read-only hold leases too), else a
file under ``<index home>/leases/``. After each ingest,
:func:`collect_generations` removes a superseded generation (its folder and
its Chroma collection) when no live lease names it, and after
``serving.grace_seconds`` even if one does. See :mod:`gpukb.live`.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import threading
import time
from pathlib import Path
from typing import Any

from .config import Settings
from .index import current_generation, garbage_collect, write_json_atomic

__all__ = ["FileLeases", "ChromaLeases", "leases_for", "collect_generations", "REPLICA_ID", "LEASES_COLLECTION"]

log = logging.getLogger(__name__)

REPLICA_ID = f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(3)}"
LEASES_COLLECTION = "gpukb-leases"


# -- leases --------------------------------------------------------------------------

class FileLeases:
    """Leases as files under ``<index home>/leases/`` (embedded Chroma)."""

    def __init__(self, home: Path, replica: str = REPLICA_ID):
        self.dir = Path(home) / "leases"
        self.replica = replica
        self._warned = False

    def renew(self, generations: set[str]) -> None:
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            write_json_atomic(self.dir / f"{self.replica}.json",
                              {"replica": self.replica, "generations": sorted(generations), "ts": time.time()})
        except OSError as exc:  # a read-only index home: serve without a lease
            if not self._warned:
                log.warning("cannot write a lease under %s (%s); the previous generation is still kept",
                            self.dir, exc.strerror or exc)
                self._warned = True

    def release(self) -> None:
        try:
            (self.dir / f"{self.replica}.json").unlink()
        except OSError:
            pass

    def holders(self) -> dict[str, float]:
        """Generation -> newest lease time."""
        out: dict[str, float] = {}
        if not self.dir.is_dir():
            return out
        for p in self.dir.glob("*.json"):
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
                ts = float(data["ts"])
                gens = list(data["generations"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
            for g in gens:
                out[str(g)] = max(out.get(str(g), 0.0), ts)
        return out

    def prune(self, older_than: float) -> None:
        """Remove lease files not renewed since ``older_than`` (replicas gone)."""
        if not self.dir.is_dir():
            return
        for p in self.dir.glob("*.json"):
            try:
                if p.stat().st_mtime < older_than:
                    p.unlink()
            except OSError:
                pass


class ChromaLeases:
    """Leases as records of the ``gpukb-leases`` collection of a Chroma server,
    so replicas that mount the index home read-only still hold them."""

    def __init__(self, url: str, home: Path, replica: str = REPLICA_ID):
        self.url = url
        self.home = str(Path(home).resolve())
        self.replica = replica
        self._coll: Any = None
        self._lock = threading.Lock()
        self._warned = False

    def _collection(self) -> Any:
        if self._coll is None:
            from urllib.parse import urlparse

            import chromadb
            from chromadb.config import Settings as ChromaSettings

            u = urlparse(self.url)
            client = chromadb.HttpClient(host=u.hostname or "127.0.0.1", port=u.port or 8000,
                                         ssl=u.scheme == "https", settings=ChromaSettings(anonymized_telemetry=False))
            self._coll = client.get_or_create_collection(LEASES_COLLECTION)
        return self._coll

    def renew(self, generations: set[str]) -> None:
        try:
            with self._lock:
                self._collection().upsert(
                    ids=[self.replica], embeddings=[[1.0]], documents=[""],
                    metadatas=[{"home": self.home, "generations": ",".join(sorted(generations)), "ts": time.time()}])
        except Exception as exc:  # the server may be restarting: keep serving
            self._coll = None
            if not self._warned:
                log.warning("cannot renew the lease in Chroma at %s: %s", self.url, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
                self._warned = True

    def release(self) -> None:
        try:
            with self._lock:
                self._collection().delete(ids=[self.replica])
        except Exception as exc:
            log.debug("lease release: %s", exc)

    def holders(self) -> dict[str, float]:
        out: dict[str, float] = {}
        res = self._collection().get(where={"home": self.home}, include=["metadatas"])
        for md in res.get("metadatas") or []:
            if not md:
                continue
            ts = float(md.get("ts", 0.0))
            for g in str(md.get("generations", "")).split(","):
                if g:
                    out[g] = max(out.get(g, 0.0), ts)
        return out

    def prune(self, older_than: float) -> None:
        try:
            self._collection().delete(where={"$and": [{"home": self.home}, {"ts": {"$lt": older_than}}]})
        except Exception as exc:
            log.debug("lease prune: %s", exc)


def leases_for(settings: Settings, replica: str = REPLICA_ID) -> FileLeases | ChromaLeases:
    if settings.chroma_url:
        return ChromaLeases(settings.chroma_url, settings.home, replica)
    return FileLeases(settings.home, replica)


# -- cleanup ---------------------------------------------------------------------------

def _published(home: Path) -> list[tuple[int, str]]:
    """Complete generations as (manifest mtime in ns, name), oldest first."""
    out: list[tuple[int, str]] = []
    gdir = home / "generations"
    if not gdir.is_dir():
        return out
    for child in gdir.iterdir():
        try:
            out.append((os.stat(child / "manifest.json").st_mtime_ns, child.name))
        except OSError:
            continue
    return sorted(out)


def collect_generations(settings: Settings, keep: set[str] = frozenset(),  # type: ignore[assignment]
                        now: float | None = None, leases: Any = None,
                        drop: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Remove superseded generations no replica uses; return their names.

    Kept: the current generation, ``keep``, the previous one (unless
    ``serving.keep_previous`` is off), and each generation a live lease names
    until it has been superseded for ``serving.grace_seconds``. Folders of
    unfinished ingests go too, and ``drop`` (a damaged generation) always.
    Run it with the ingest lock held."""
    home = settings.home
    cfg = settings.serving
    now = time.time() if now is None else now
    cur = current_generation(home)
    if cur is None:
        return []
    published = _published(home)
    names = [n for _, n in published]
    gdir = home / "generations"
    all_dirs = {c.name for c in gdir.iterdir() if c.is_dir()} if gdir.is_dir() else set()
    kept = {cur, *keep}
    if cur in names:
        i = names.index(cur)
        if cfg.keep_previous and i > 0:
            kept.add(names[i - 1])
    kept -= set(drop) - {cur}
    candidates = all_dirs - kept
    if not candidates:
        return []
    # superseded at: when the next generation's manifest was written
    superseded = {names[i]: published[i + 1][0] / 1e9 for i in range(len(names) - 1)}
    store = leases if leases is not None else leases_for(settings)
    holders = store.holders() if any(c in superseded for c in candidates) else {}
    for gen, ts in holders.items():
        if gen in candidates and gen not in drop and now - ts <= cfg.lease_seconds:
            since = superseded.get(gen)
            if since is None or now - since <= cfg.grace_seconds:
                kept.add(gen)
            else:
                log.warning("generation %s is still leased but was superseded %.0fs ago (grace %ss): removing it",
                            gen, now - since, cfg.grace_seconds)
    store.prune(now - max(cfg.lease_seconds, cfg.grace_seconds) * 2)
    removed = garbage_collect(home, kept, settings.chroma_url)
    if removed:
        log.info("removed generations: %s", ", ".join(sorted(removed)))
    return removed
