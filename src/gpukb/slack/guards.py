"""Small thread-safe guards: a bounded TTL set (deduplication) and a per-user
sliding-window rate limiter."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from typing import Callable

__all__ = ["TTLSet", "RateLimiter"]


class TTLSet:
    """Remembers keys for ``ttl`` seconds, holding at most ``maxsize`` of them
    (the oldest are forgotten first)."""

    def __init__(self, ttl: float = 600.0, maxsize: int = 10000, clock: Callable[[], float] = time.monotonic):
        self.ttl = ttl
        self.maxsize = maxsize
        self._clock = clock
        self._items: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        while self._items:
            key, at = next(iter(self._items.items()))
            if now - at < self.ttl and len(self._items) <= self.maxsize:
                break
            self._items.popitem(last=False)

    def add(self, key: str) -> bool:
        """Add ``key``; False when it was already there (a duplicate)."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            if key in self._items:
                return False
            self._items[key] = now
            self._expire(now)
            return True

    def __contains__(self, key: object) -> bool:
        with self._lock:
            self._expire(self._clock())
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            self._expire(self._clock())
            return len(self._items)


class RateLimiter:
    """At most ``limit`` hits per user in any ``window`` seconds (``limit`` 0: no limit)."""

    def __init__(self, limit: int = 10, window: float = 60.0, clock: Callable[[], float] = time.monotonic,
                 max_users: int = 10000):
        self.limit = int(limit)
        self.window = float(window)
        self._clock = clock
        self._hits: OrderedDict[str, deque[float]] = OrderedDict()
        self._warned: dict[str, float] = {}
        self._max_users = max_users
        self._lock = threading.Lock()

    def hit(self, user: str) -> float:
        """Count one request; returns 0 when allowed, else the seconds to wait."""
        if self.limit <= 0:
            return 0.0
        now = self._clock()
        with self._lock:
            q = self._hits.get(user)
            if q is None:
                q = self._hits[user] = deque()
                while len(self._hits) > self._max_users:
                    old, _ = self._hits.popitem(last=False)
                    self._warned.pop(old, None)
            else:
                self._hits.move_to_end(user)
            while q and now - q[0] >= self.window:
                q.popleft()
            if len(q) >= self.limit:
                return max(0.1, self.window - (now - q[0]))
            q.append(now)
            self._warned.pop(user, None)
            return 0.0

    def should_warn(self, user: str) -> bool:
        """True the first time a user is refused in a window (tell them once, not every time)."""
        now = self._clock()
        with self._lock:
            at = self._warned.get(user)
            if at is not None and now - at < self.window:
                return False
            self._warned[user] = now
            return True
