"""Serving while the index changes: replicas that follow re-ingests, leases,
cleanup of superseded generations, and ``gpukb ingest --watch``.

An ingest writes a complete new generation and then replaces ``CURRENT``
(:mod:`gpukb.index`). A serving replica (the app, the Slack bot, the MCP
server) wraps its engine in a :class:`LiveEngine`:

* before each question it stats ``CURRENT`` (one ``stat`` call; at most every
  ``serving.check_seconds``). When another generation was published it opens a
  complete new :class:`~gpukb.engine.Engine` on it with the already loaded
  model, and then swaps one reference. A question is answered by exactly one
  engine, so it never mixes two generations, and its :class:`Answer` records
  the generation (``Answer.generation``).
* it holds a **lease** naming the generations it uses: a record in the Chroma
  server (collection ``gpukb-leases``) when one is configured, else a file
  under ``<index home>/leases/``. Leases are renewed while the replica serves
  (and by a heartbeat thread when it idles).

After each ingest, :func:`collect_generations` removes a superseded
generation (its folder and its Chroma collection) when no live lease names
it, and after ``serving.grace_seconds`` even if one does. The generation
before the current one is kept (``serving.keep_previous``), so one-shot
readers without a lease (``gpukb ask``) are safe too.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

from .config import Settings, load_settings
from .errors import GpukbError, UsageError
from .index import current_generation
from .leases import collect_generations, leases_for

__all__ = ["LiveEngine", "collect_generations", "leases_for", "watch_and_ingest", "current_stamp", "watched_paths"]

log = logging.getLogger(__name__)



def current_stamp(home: Path) -> tuple[int, int, int] | None:
    """A cheap fingerprint of ``CURRENT`` (mtime, inode, size): it changes when
    a generation is published, since publishing replaces the file."""
    try:
        st = os.stat(home / "CURRENT")
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ino, st.st_size)


# -- the live engine -----------------------------------------------------------------------

class LiveEngine:
    """An :class:`~gpukb.engine.Engine` that follows re-ingests without a restart.

    ``ask`` (and ``ask_stream`` when the engine has it) first calls
    :meth:`refresh`, then answers with the engine of one generation. Other
    attributes (``index``, ``retriever``, ``recipes()``, ``settings`` ...) are
    the current engine's. Questions are answered one at a time (the engine
    keeps per-question state), which also bounds memory on a small pod."""

    def __init__(self, settings: Settings | None = None, *, embedder: Any = None, generator: Any = None,
                 engine: Any = None, leases: Any = None, factory: Callable[[Settings], Any] | None = None):
        self.settings = settings or load_settings()
        self.home = self.settings.home
        self._leases = leases if leases is not None else leases_for(self.settings)
        self._seen = current_stamp(self.home)
        if engine is None:
            if factory is not None:
                engine = factory(self.settings)
            else:
                from .engine import Engine

                engine = Engine(self.settings, embedder=embedder, generator=generator)
        self._engine = engine
        self._previous: Any = None
        self._checked = time.monotonic()
        self._retry_at = 0.0
        self._renewed = 0.0
        self._swap_lock = threading.Lock()
        self._ask_lock = threading.RLock()
        self._inflight: Counter[str] = Counter()
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None
        self.swaps = 0
        self._renew(force=True)
        # released at exit, or when the engine is garbage collected
        self._finalizer = weakref.finalize(self, self._leases.release)

    # -- state ---------------------------------------------------------------------
    @property
    def engine(self) -> Any:
        """The engine answering now."""
        return self._engine

    @property
    def generation(self) -> str:
        return self._engine.index.generation

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._engine, name)

    def sections(self, generation: str | None = None) -> dict[str, Any]:
        """The sections of ``generation`` (the current one, or the one just
        before it while it is still open), for showing an answer's sources."""
        for eng in (self._engine, self._previous):
            if eng is not None and (generation is None or eng.index.generation == generation):
                return eng.index.sections
        return self._engine.index.sections

    # -- leases --------------------------------------------------------------------
    def _in_use(self) -> set[str]:
        return {self._engine.index.generation, *(g for g, n in self._inflight.items() if n > 0)}

    def _renew(self, force: bool = False, extra: set[str] | None = None) -> None:
        now = time.monotonic()
        if force or extra or now - self._renewed >= self.settings.serving.lease_seconds / 3:
            self._renewed = now
            self._leases.renew(self._in_use() | (extra or set()))

    # -- following re-ingests --------------------------------------------------------
    def refresh(self, force: bool = False) -> bool:
        """Swap to the generation published now, if it is another one.

        Cheap when nothing changed: one ``stat`` of ``CURRENT``. The new engine
        is fully opened before the swap; if it cannot be opened the current one
        keeps serving (and opening is retried a few seconds later)."""
        now = time.monotonic()
        check = self.settings.serving.check_seconds
        if not force and check and now - self._checked < check:
            self._renew()
            return False
        self._checked = now
        stamp = current_stamp(self.home)
        if not force and (stamp == self._seen or now < self._retry_at):
            self._renew()
            return False
        with self._swap_lock:
            stamp = current_stamp(self.home)
            if not force and stamp == self._seen:
                return False
            gen = current_generation(self.home)
            old = self._engine
            if gen is None or gen == old.index.generation:
                self._seen = stamp
                self._renew()
                return False
            self._renew(extra={gen})  # before opening it: cleanup keeps what a replica is opening
            try:
                new = old.reopen()
                new.index.sections  # read now, not during the first question
            except Exception as exc:
                self._retry_at = time.monotonic() + 5.0
                log.warning("could not open generation %s, still serving %s: %s", gen, old.index.generation,
                            str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
                return False
            self._previous, self._engine = old, new  # the swap: one reference
            self._seen = stamp
            self.swaps += 1
            self._renew(force=True)
            log.info("now serving generation %s (was %s)", new.index.generation, old.index.generation)
            return True

    def _begin(self) -> Any:
        self.refresh()
        eng = self._engine
        self._inflight[eng.index.generation] += 1
        return eng

    def _end(self, eng: Any) -> None:
        self._inflight[eng.index.generation] -= 1
        if self._inflight[eng.index.generation] <= 0:
            del self._inflight[eng.index.generation]

    def _moved_on(self, eng: Any) -> bool:
        return current_generation(self.home) not in (None, eng.index.generation)

    def ask(self, question: str, **kwargs: Any) -> Any:
        """Answer with the engine of the current generation (stamped on the answer)."""
        for attempt in (0, 1):
            eng = self._begin()
            try:
                with self._ask_lock:
                    ans = eng.ask(question, **kwargs)
                if not getattr(ans, "generation", "x"):
                    ans.generation = eng.index.generation
                return ans
            except UsageError:
                raise
            except Exception as exc:
                # The generation went away under a long idle (its lease expired and
                # cleanup removed it): answer from the current one instead.
                if attempt or not self._moved_on(eng):
                    raise
                log.info("generation %s is gone (%s); retrying on the current one", eng.index.generation,
                         type(exc).__name__)
                self.refresh(force=True)
            finally:
                self._end(eng)
        raise GpukbError("unreachable")  # pragma: no cover

    def ask_stream(self, question: str, **kwargs: Any) -> Iterator[Any]:
        """The engine's ``ask_stream`` on one generation; the final answer is stamped."""
        eng = self._begin()
        try:
            with self._ask_lock:
                for item in eng.ask_stream(question, **kwargs):
                    if not isinstance(item, str) and hasattr(eng, "stamp"):
                        item = eng.stamp(item)
                    yield item
        finally:
            self._end(eng)

    # -- heartbeat -------------------------------------------------------------------
    def start_heartbeat(self, interval: float | None = None) -> None:
        """Refresh and renew the lease in the background, so an idle replica
        moves to a new generation and its lease stays live."""
        if self._heartbeat is not None:
            return
        every = interval if interval is not None else max(1.0, min(30.0, self.settings.serving.lease_seconds / 3))

        def beat() -> None:
            while not self._stop.wait(every):
                try:
                    self.refresh()
                    self._renew(force=True)
                except Exception as exc:  # never let the heartbeat die
                    log.warning("heartbeat: %s", exc)

        self._heartbeat = threading.Thread(target=beat, name="gpukb-heartbeat", daemon=True)
        self._heartbeat.start()

    def close(self) -> None:
        """Stop the heartbeat and release the lease."""
        self._stop.set()
        try:
            self._finalizer()
        except Exception as exc:
            log.debug("release: %s", exc)


# -- gpukb ingest --watch ----------------------------------------------------------------------

def watched_paths(settings: Settings) -> list[Path]:
    """Folders and files whose change calls for a re-ingest."""
    paths = [settings.kb_dir, *(settings.source_dir(s) for s in settings.team_sources),
             settings.root / "ingest" / "config.yaml"]
    if settings.sources_file:
        paths.append(settings.sources_file)
    return [p for p in paths if p.exists()]


def _fingerprint(paths: list[Path]) -> tuple:
    items = []
    for p in paths:
        files = [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file())
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            items.append((str(f), st.st_mtime_ns, st.st_size))
    return tuple(items)


def _relevant(change_path: str) -> bool:
    name = Path(change_path).name
    return not name.startswith((".", "~")) and not name.endswith(("~", ".swp", ".tmp"))


def watch_and_ingest(settings: Settings, *, debounce: float = 2.0, poll: float | None = None,
                     stop: threading.Event | None = None, embedder: Any = None,
                     on_result: Callable[[Any], None] | None = None,
                     on_error: Callable[[BaseException], None] | None = None,
                     collect_every: float = 60.0) -> None:
    """Ingest, then re-ingest whenever the sources change (debounced), until ``stop``.

    Uses watchfiles (filesystem events) when it is installed, else polls file
    modification times every ``poll`` seconds (``poll`` also forces polling,
    for network file systems where events do not arrive). A failed ingest is
    reported and the previous generation keeps serving. Superseded generations
    are collected every ``collect_every`` seconds even without changes."""
    from .ingest import ingest

    stop = stop or threading.Event()
    if embedder is None:
        from .backends import embedder_for

        embedder = embedder_for(settings)

    def run_once() -> None:
        try:
            res = ingest(settings, embedder=embedder, progress=False)
        except (GpukbError, OSError) as exc:
            if on_error:
                on_error(exc)
            else:
                log.error("ingest failed: %s", exc)
            return
        if on_result:
            on_result(res)

    paths = watched_paths(settings)
    before = _fingerprint(paths)
    run_once()
    # changes made while the first ingest ran (loading the model takes a while)
    while not stop.is_set() and (now_fp := _fingerprint(watched_paths(settings))) != before:
        before = now_fp
        stop.wait(debounce)
        run_once()
    use_watchfiles = poll is None
    if use_watchfiles:
        try:
            import watchfiles
        except ImportError:
            use_watchfiles = False
    last_collect = time.monotonic()
    if use_watchfiles:
        tick = max(0.05, min(collect_every, 1.0))
        for changes in watchfiles.watch(*paths, debounce=int(debounce * 1000), step=50, stop_event=stop,
                                        rust_timeout=int(tick * 1000), yield_on_timeout=True,
                                        watch_filter=lambda _c, p: _relevant(p)):
            if stop.is_set():
                return
            if changes:
                run_once()
                last_collect = time.monotonic()
            elif time.monotonic() - last_collect >= collect_every:
                run_once()  # a no-op ingest that also collects superseded generations
                last_collect = time.monotonic()
        return
    every = poll or 2.0
    seen = before
    changed_at: float | None = None
    while not stop.wait(every):
        fp = _fingerprint(watched_paths(settings))
        now = time.monotonic()
        if fp != seen:
            seen, changed_at = fp, now
            continue
        if changed_at is not None and now - changed_at >= debounce:
            changed_at = None
            run_once()
            last_collect = now
        elif now - last_collect >= collect_every:
            run_once()
            last_collect = now
