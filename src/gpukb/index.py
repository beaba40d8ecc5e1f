"""The on-disk index: generations, manifest and atomic publishing.

Layout under the index home (``.gpukb/`` by default)::

    CURRENT                      {"generation": "g-...", "manifest_sha256": "..."}  (replaced atomically)
    generations/g-.../           published: never written after CURRENT names it
        manifest.json            format, embedding model, dimension, chunker, corpus hash,
                                 docs, size and sha256 of every other file
        meta.sqlite              sections, vocabulary, docs and chunk list (gpukb.meta)
        vectors.npy              one L2-normalised row per chunk, read memory-mapped
        bm25/                    keyword index in bm25s' format, read memory-mapped, and
                                 each row's term counts (tf.*.npy); rows as gpukb.rows orders them
        chroma/                  vectors (embedded Chroma; absent with a server)
    readers/g-.../chroma/        the working copy embedded Chroma opens
    models/                      the ONNX export of the embedding model (shared by generations)
    ingest.lock

An ingest writes a complete new generation, then swaps ``CURRENT``. A crash or
kill at any point leaves the previous generation answering; the partial
generation it leaves is removed when the next ingest starts. An incremental
ingest starts the new generation from copies of the published one's
``meta.sqlite`` and ``chroma/`` and applies only what changed; the row-aligned
files copy the unchanged rows in runs (:mod:`gpukb.rows`).

Integrity: :func:`check_index` verifies ``CURRENT`` (its generation name must
match the generation pattern, so it never leads outside the home), the
manifest against the checksum in ``CURRENT``, and every data file against the
manifest (sizes; sha256 too with ``deep=True``). A damaged index is refused
with a message to run ``gpukb ingest``, which rebuilds it. The manifest's
checksums are taken as files are written (:class:`FileSums`); a file copied
unchanged from the previous generation carries the checksum recorded there, so
a copy of a damaged file still fails the deep check.

Readers never write to a published generation: ``meta.sqlite`` is opened
read-only and the arrays memory-mapped read-only. Embedded Chroma writes to
its SQLite file whenever a client opens it, even to read, so readers that
open it (the llama-index adapters) use a working copy under ``readers/``
(made once per generation, or a private temporary copy when the home is
read-only).
"""

from __future__ import annotations

import logging

import hashlib
import json
import os
import re
import secrets
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

from .config import Settings
from .errors import GpukbError, IndexDamagedError, IndexMismatchError, IndexMissingError

# 3: manifest.json records every data file's size and sha256;
# 4: meta.sqlite instead of sections.json/vocab.json, vectors.npy, bm25s arrays;
# 5: rows in index order by (path, doc id) with a docs table in meta.sqlite, chunk
#    metadata in columns, term counts as row-aligned arrays under bm25/ (tf.*.npy).
FORMAT = 5
REBUILD_HINT = "run `gpukb ingest --rebuild`"
REPAIR_HINT = "run `gpukb ingest` to rebuild it"
GENERATION_PATTERN = re.compile(r"^g-\d{8}T\d{6}-[0-9a-f]{6}$")
MANIFEST = "manifest.json"
READERS = "readers"


log = logging.getLogger(__name__)

def embedding_identity(settings: Settings) -> dict[str, Any]:
    """What the vectors depend on. The backend is not part of it: backends that
    run the same model give the same vectors (each records its ``model_id``)."""
    e = settings.embedding
    return {"model": e.model}


def write_json_atomic(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, ensure_ascii=False))  # one C-encoded string: json.dump encodes in Python
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


def is_generation_name(name: Any) -> bool:
    """A name ingest could have made (``g-YYYYmmddTHHMMSS-xxxxxx``): never a path."""
    return isinstance(name, str) and GENERATION_PATTERN.match(name) is not None


def _read_current(home: Path) -> dict[str, Any] | None:
    """The parsed ``CURRENT`` file; ``None`` when there is none; ``{}`` when it is unreadable."""
    p = home / "CURRENT"
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return {}
    if len(raw) > 4096:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def current_generation(home: Path) -> str | None:
    """The published generation, or ``None`` when there is none or ``CURRENT``
    does not name a generation folder with a manifest."""
    gen = (_read_current(home) or {}).get("generation")
    if isinstance(gen, str) and is_generation_name(gen) and (home / "generations" / gen / MANIFEST).is_file():
        return gen
    return None


def read_manifest(home: Path) -> dict[str, Any] | None:
    gen = current_generation(home)
    if not gen:
        return None
    try:
        data = json.loads((home / "generations" / gen / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def publish(home: Path, generation: str) -> None:
    digest = hashlib.sha256((home / "generations" / generation / MANIFEST).read_bytes()).hexdigest()
    write_json_atomic(home / "CURRENT", {"generation": generation, "manifest_sha256": digest})


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _HashingFile:
    """A file being written whose size and sha256 are taken from the bytes as they go out."""

    def __init__(self, path: Path, sums: FileSums):
        self._fh = open(path, "wb")
        self._path = path
        self._sums = sums
        self._h = hashlib.sha256()
        self._size = 0

    def write(self, data: Any) -> int:
        mv = memoryview(data).cast("B")
        self._h.update(mv)
        self._fh.write(mv)
        self._size += mv.nbytes
        return mv.nbytes

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()
            self._sums.record(self._path, self._size, self._h.hexdigest())

    def __enter__(self) -> _HashingFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            self.close()
        else:
            self._fh.close()


class FileSums:
    """Sizes and checksums of a new generation's files that are known without
    reading them again: taken while they were written (:meth:`create`), or
    carried over from the manifest of the generation a file was copied from
    unchanged (:meth:`carry`). A carried checksum is the one recorded when the
    source was written, so a copy of a damaged file fails the deep check."""

    def __init__(self, gen_dir: Path):
        self.dir = gen_dir
        self.known: dict[str, dict[str, Any]] = {}

    def create(self, path: Path) -> _HashingFile:
        return _HashingFile(path, self)

    def record(self, path: Path, size: int, sha256: str) -> None:
        self.known[path.relative_to(self.dir).as_posix()] = {"size": size, "sha256": sha256}

    def carry(self, path: Path, entry: Any) -> None:
        if isinstance(entry, dict) and isinstance(entry.get("sha256"), str) and isinstance(entry.get("size"), int):
            self.known[path.relative_to(self.dir).as_posix()] = {"size": entry["size"], "sha256": entry["sha256"]}


def data_files(gen_dir: Path, known: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """``{relative path: {"size", "sha256"}}`` of every file of a generation but
    its manifest. A file in ``known`` (see :class:`FileSums`) whose size still
    matches is not read again."""
    known = known or {}
    out: dict[str, dict[str, Any]] = {}
    for p in sorted(gen_dir.rglob("*")):
        if p.is_file() and p.name != MANIFEST:
            rel = p.relative_to(gen_dir).as_posix()
            size = p.stat().st_size
            k = known.get(rel)
            out[rel] = {"size": size, "sha256": k["sha256"] if k and k.get("size") == size else _sha256(p)}
    return out


@dataclass
class IndexCheck:
    """What :func:`check_index` found: ``state`` is ``missing``, ``damaged`` or ``ok``."""

    state: str
    generation: str | None = None
    manifest: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)

    def summary(self, limit: int = 3) -> str:
        more = len(self.problems) - limit
        return "; ".join(self.problems[:limit]) + (f"; and {more} more" if more > 0 else "")


def check_index(home: Path, *, deep: bool = False) -> IndexCheck:
    """Verify the published generation without loading anything heavy.

    Checks ``CURRENT``, the manifest (against the checksum ``CURRENT``
    records) and every data file the manifest lists: present, same size and,
    with ``deep``, same sha256."""
    from .output import short

    current = _read_current(home)
    if current is None:
        return IndexCheck("missing")
    gen = current.get("generation")
    if not current or gen is None:
        return IndexCheck("damaged", problems=["CURRENT is unreadable"])
    if not is_generation_name(gen):
        return IndexCheck("damaged", problems=[f"CURRENT names {short(gen, 40)}, which is not a generation"])
    gen_dir = home / "generations" / gen
    try:
        raw = (gen_dir / MANIFEST).read_bytes()
    except OSError:
        return IndexCheck("damaged", gen, problems=[f"generation {gen} has no manifest"])
    want = current.get("manifest_sha256")
    if isinstance(want, str) and hashlib.sha256(raw).hexdigest() != want:
        return IndexCheck("damaged", gen, problems=[f"{MANIFEST} does not match the checksum in CURRENT"])
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        manifest = None
    if not isinstance(manifest, dict):
        return IndexCheck("damaged", gen, problems=[f"{MANIFEST} is unreadable"])
    problems: list[str] = []
    files = manifest.get("files")
    if isinstance(files, dict):
        for rel, meta in files.items():
            p = gen_dir / rel
            if not isinstance(rel, str) or ".." in Path(rel).parts or not isinstance(meta, dict):
                problems.append(f"{MANIFEST} lists a bad file entry")
                continue
            try:
                size = p.stat().st_size
            except OSError:
                problems.append(f"{rel}: missing")
                continue
            if size != meta.get("size"):
                problems.append(f"{rel}: {size} bytes, expected {meta.get('size')}")
            elif deep and _sha256(p) != meta.get("sha256"):
                problems.append(f"{rel}: contents differ from the checksum")
    elif manifest.get("format") == FORMAT:
        problems.append(f"{MANIFEST} lists no data files")
    return IndexCheck("damaged" if problems else "ok", gen, manifest, problems)


def damaged_error(home: Path, check: IndexCheck) -> IndexDamagedError:
    return IndexDamagedError(f"the index at {home} is damaged ({check.summary()}); {REPAIR_HINT}")


def collection_name(generation: str) -> str:
    return f"gpukb-{generation}"


def _drop_generation(home: Path, name: str, chroma_url: str | None) -> None:
    if chroma_url:
        try:
            from .backends import get_vector_store

            get_vector_store("chroma", collection_name=collection_name(name), url=chroma_url).drop()
        except Exception as exc:  # the server may be gone; the folder is removed regardless
            log.warning("could not drop collection of generation %s: %s", name, exc)
    shutil.rmtree(home / "generations" / name, ignore_errors=True)
    shutil.rmtree(home / READERS / name, ignore_errors=True)


def _remove_leftovers(home: Path) -> None:
    """Temporary files and half-made reader copies of interrupted runs."""
    for p in home.glob(".CURRENT.*.tmp"):
        p.unlink(missing_ok=True)
    rdir = home / READERS
    if rdir.is_dir():
        for child in rdir.iterdir():
            if child.name.startswith(".") or not (home / "generations" / child.name).is_dir():
                shutil.rmtree(child, ignore_errors=True)


def garbage_collect(home: Path, keep: set[str], chroma_url: str | None = None) -> list[str]:
    """Remove generations not in ``keep`` (unfinished ones from killed ingests too)."""
    removed: list[str] = []
    gdir = home / "generations"
    if gdir.is_dir():
        for child in gdir.iterdir():
            if child.name in keep or not child.is_dir():
                continue
            _drop_generation(home, child.name, chroma_url)
            removed.append(child.name)
    _remove_leftovers(home)
    return removed


def remove_partial_generations(home: Path, chroma_url: str | None = None) -> list[str]:
    """Remove generations a killed ingest left unfinished (no manifest, not published)."""
    removed: list[str] = []
    gdir = home / "generations"
    current = (_read_current(home) or {}).get("generation")
    if gdir.is_dir():
        for child in gdir.iterdir():
            if child.is_dir() and child.name != current and not (child / MANIFEST).is_file():
                _drop_generation(home, child.name, chroma_url)
                removed.append(child.name)
    _remove_leftovers(home)
    return removed


@contextmanager
def ingest_lock(home: Path, *, wait: bool = False) -> Iterator[None]:
    """One ingest per home at a time. Busy: a :class:`GpukbError` (exit 1), or
    with ``wait`` block until the other ingest finishes."""
    import fcntl

    home.mkdir(parents=True, exist_ok=True)
    fh = open(home / "ingest.lock", "a+")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise GpukbError(
                f"another ingest is running on {home}; let it finish, or run `gpukb ingest --wait` "
                "to start when it does") from None
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

        from .errors import BackendError

        vs = self.manifest["vector_store"]
        path = None if vs.get("url") else reader_copy(self.settings.home, self.generation)

        def open_store():
            return get_vector_store(vs.get("backend", "chroma"), collection_name=vs["collection"], path=path,
                                    url=vs.get("url"))

        try:
            return open_store()
        except BackendError:
            if path is None:
                raise
            # The working copy is only a cache of verified files: make it again.
            log.warning("the readers' copy of %s does not open; copying it again", self.generation)
            _forget_chroma_client(path)
            shutil.rmtree(self.settings.home / READERS / self.generation, ignore_errors=True)
            path = reader_copy(self.settings.home, self.generation)
            return open_store()

    @property
    def dim(self) -> int:
        return int(self.manifest["embedding"]["dim"])


def _forget_chroma_client(path: Path) -> None:
    """Drop embedded Chroma's cached client for ``path``: one that failed to
    open stays cached per path and would fail again on the fresh copy."""
    try:
        from chromadb.api.shared_system_client import SharedSystemClient

        for table in ("_identifier_to_system", "_identifier_to_refcount"):
            getattr(SharedSystemClient, table, {}).pop(str(path), None)
    except Exception as exc:  # another chromadb release: the retry reports its own error
        log.debug("could not reset the Chroma client cache: %s", exc)


_PRIVATE_COPIES: list[Path] = []


def _remove_private_copies() -> None:
    for p in _PRIVATE_COPIES:
        shutil.rmtree(p, ignore_errors=True)


def reader_copy(home: Path, generation: str, _retry: bool = True) -> Path:
    """The Chroma folder readers open: a working copy of the published one,
    made once per generation, so opening it never writes to the published
    files. When the home is read-only, a private temporary copy."""
    if not is_generation_name(generation):
        raise IndexDamagedError(f"the index at {home} is damaged (bad generation name); {REPAIR_HINT}")
    src = home / "generations" / generation / "chroma"
    final = home / READERS / generation
    if (final / ".complete").is_file():
        return final / "chroma"
    tmp = home / READERS / f".{generation}.{os.getpid()}.{secrets.token_hex(3)}"
    try:
        tmp.mkdir(parents=True)
        shutil.copytree(src, tmp / "chroma")
        (tmp / ".complete").touch()
        try:
            os.rename(tmp, final)
        except OSError:  # another reader finished first (or a stale half copy is in the way)
            shutil.rmtree(tmp, ignore_errors=True)
            if not (final / ".complete").is_file():
                if not _retry:
                    raise
                shutil.rmtree(final, ignore_errors=True)
                return reader_copy(home, generation, _retry=False)
        return final / "chroma"
    except FileNotFoundError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise IndexDamagedError(f"the index at {home} is damaged (chroma/ is missing); {REPAIR_HINT}") from None
    except OSError as exc:  # a read-only home: a private copy for this process
        import atexit
        import tempfile

        shutil.rmtree(tmp, ignore_errors=True)
        log.info("index home not writable (%s); using a private copy of the vectors", exc)
        private = Path(tempfile.mkdtemp(prefix="gpukb-reader-"))
        if not _PRIVATE_COPIES:
            atexit.register(_remove_private_copies)
        _PRIVATE_COPIES.append(private)
        try:
            shutil.copytree(src, private / "chroma")
        except FileNotFoundError:
            raise IndexDamagedError(f"the index at {home} is damaged (chroma/ is missing); {REPAIR_HINT}") from None
        return private / "chroma"


def open_index(settings: Settings) -> IndexHandle:
    """The published generation, verified (sizes) and compatible with ``settings``.

    Raises :class:`IndexMissingError`, :class:`IndexDamagedError` or
    :class:`IndexMismatchError`."""
    from .chunking import chunker_settings

    home = settings.home
    check = check_index(home)
    if check.state == "missing":
        raise IndexMissingError(f"no index at {home}; run `gpukb ingest` first")
    if check.state == "damaged":
        raise damaged_error(home, check)
    assert check.generation is not None and check.manifest is not None
    check_compatible(check.manifest, settings, chunker_settings(settings.chunking))
    return IndexHandle(settings=settings, generation=check.generation, manifest=check.manifest)
