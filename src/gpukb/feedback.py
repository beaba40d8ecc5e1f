"""Answer feedback (helpful / not helpful) in a small SQLite store.

Front ends record a verdict with the question, the answer and its citations;
``gpukb feedback export`` prints every record as JSON Lines. The default file
is ``<index home>/feedback.sqlite3``.

Two tables: ``feedback`` (one row per verdict; a user who changes their mind
about the same answer updates their row) and ``answers`` (answers a front end
has shown, so a button click carrying only a short key can be tied back to
its question, answer and citations).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time as _time
import uuid
from contextlib import closing
from dataclasses import asdict, is_dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

from .errors import GpukbError, UsageError

__all__ = ["FeedbackStore", "VERDICTS", "default_path"]

VERDICTS = ("helpful", "not_helpful")
FILENAME = "feedback.sqlite3"
MAX_TEXT = 20000  # characters kept of a question or an answer
ANSWERS_KEPT_DAYS = 90

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    verdict TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    citations TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    user TEXT NOT NULL DEFAULT '',
    channel TEXT NOT NULL DEFAULT '',
    answer_key TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX IF NOT EXISTS feedback_answer_user ON feedback(answer_key, user);
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    created REAL NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    citations TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}'
);
"""


def default_path(settings: Any = None) -> Path:
    """``GPUKB_FEEDBACK_DB`` when set (e.g. a volume of its own when the index
    home is mounted read-only), else ``<index home>/feedback.sqlite3`` for the
    given (or the default) settings."""
    import os

    env = (os.environ.get("GPUKB_FEEDBACK_DB") or "").strip()
    if env:
        return Path(env).expanduser()
    if settings is None:
        from .config import load_settings

        settings = load_settings()
    return Path(settings.home) / FILENAME


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _citation_dict(c: Any) -> dict[str, Any]:
    if is_dataclass(c) and not isinstance(c, type):
        d = asdict(c)
    elif isinstance(c, dict):
        d = dict(c)
    else:
        d = {k: getattr(c, k) for k in ("n", "doc_id", "title", "section", "anchor", "source_urls") if hasattr(c, k)}
    keep = ("n", "doc_id", "title", "section", "anchor", "path", "source_urls")
    return {k: d[k] for k in keep if k in d}


def _citations_json(citations: Iterable[Any] | None) -> str:
    return json.dumps([_citation_dict(c) for c in (citations or [])], ensure_ascii=False)


class FeedbackStore:
    """Verdicts on answers, in one SQLite file (safe across threads and processes)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.Lock()
        self._ready = False

    def _connect(self) -> sqlite3.Connection:
        try:
            if not self._ready:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(str(self.path), timeout=10)
            if not self._ready:
                with self._lock:
                    con.executescript(_SCHEMA)
                    try:
                        con.execute("PRAGMA journal_mode=WAL")
                    except sqlite3.DatabaseError:
                        pass
                    con.commit()
                    self._ready = True
            return con
        except (OSError, sqlite3.Error) as exc:
            raise GpukbError(f"feedback store {self.path}: {exc}") from None

    # -- answers shown (for buttons that carry only a key) --------------------
    def remember(self, question: str, answer: str, citations: Iterable[Any] | None = None,
                 **extra: Any) -> str:
        """Keep an answer that was shown; returns the key a feedback button carries."""
        key = uuid.uuid4().hex[:20]
        cutoff = _time.time() - ANSWERS_KEPT_DAYS * 86400
        with closing(self._connect()) as con, con:
            con.execute("INSERT INTO answers(key, created, question, answer, citations, extra) VALUES (?,?,?,?,?,?)",
                        (key, _time.time(), (question or "")[:MAX_TEXT], (answer or "")[:MAX_TEXT],
                         _citations_json(citations), json.dumps(extra, ensure_ascii=False, default=str)))
            con.execute("DELETE FROM answers WHERE created < ?", (cutoff,))
        return key

    def recall(self, key: str) -> dict[str, Any] | None:
        """The answer kept under ``key``, or None."""
        with closing(self._connect()) as con:
            row = con.execute("SELECT question, answer, citations, extra FROM answers WHERE key = ?",
                              (str(key)[:64],)).fetchone()
        if row is None:
            return None
        return {"key": key, "question": row[0], "answer": row[1], "citations": json.loads(row[2]),
                "extra": json.loads(row[3] or "{}")}

    # -- verdicts ---------------------------------------------------------------
    def record(self, *, question: str, answer: str, citations: Iterable[Any] | None = None,
               verdict: str, source: str = "", user: str = "", channel: str = "",
               answer_key: str | None = None, time: str | None = None, **extra: Any) -> int:
        """Store one verdict (``helpful`` or ``not_helpful``); returns its row id.

        With an ``answer_key``, a second click by the same user on the same
        answer replaces the first verdict."""
        if verdict not in VERDICTS:
            raise UsageError(f"verdict must be one of: {', '.join(VERDICTS)}")
        row = (time or _now(), verdict, (question or "")[:MAX_TEXT], (answer or "")[:MAX_TEXT],
               _citations_json(citations), source, user or "", channel or "", answer_key,
               json.dumps(extra, ensure_ascii=False, default=str))
        with closing(self._connect()) as con, con:
            cur = con.execute(
                "INSERT INTO feedback(time, verdict, question, answer, citations, source, user, channel, answer_key, extra) "
                "VALUES (?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(answer_key, user) DO UPDATE SET time=excluded.time, verdict=excluded.verdict",
                row)
            rid = cur.lastrowid
            if answer_key is not None:
                got = con.execute("SELECT id FROM feedback WHERE answer_key = ? AND user = ?",
                                  (answer_key, user or "")).fetchone()
                rid = got[0] if got else rid
        return int(rid or 0)

    def counts(self, answer_key: str) -> tuple[int, int]:
        """(helpful, not_helpful) verdicts on one answer."""
        with closing(self._connect()) as con:
            rows = con.execute("SELECT verdict, COUNT(*) FROM feedback WHERE answer_key = ? GROUP BY verdict",
                               (answer_key,)).fetchall()
        got = dict(rows)
        return int(got.get("helpful", 0)), int(got.get("not_helpful", 0))

    def export(self) -> Iterator[dict[str, Any]]:
        """Every verdict, oldest first, as plain dicts."""
        if not self.path.exists():
            return
        with closing(self._connect()) as con:
            rows = con.execute("SELECT id, time, verdict, question, answer, citations, source, user, channel, "
                               "answer_key, extra FROM feedback ORDER BY id").fetchall()
        for r in rows:
            d = {"id": r[0], "time": r[1], "verdict": r[2], "question": r[3], "answer": r[4],
                 "citations": json.loads(r[5]), "source": r[6], "user": r[7], "channel": r[8],
                 "answer_key": r[9]}
            extra = json.loads(r[10] or "{}")
            if extra:
                d["extra"] = extra
            yield d

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        with closing(self._connect()) as con:
            return int(con.execute("SELECT COUNT(*) FROM feedback").fetchone()[0])
