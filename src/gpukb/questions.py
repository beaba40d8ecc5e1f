"""Questions before they reach the engine: checked without loading anything
heavy, and judged by their script.

* :func:`check_question` turns user text into a question or raises: an
  empty question is a usage error (exit code 2), text that is not valid
  UTF-8 an input error (exit code 1). Control characters become spaces.
* :func:`foreign_share` is the share of a question's words written in a
  script other than Latin. The knowledge base is English: a question written
  mostly in another script is refused rather than answered from the few
  technical terms it shares with the KB (``MIG`` in a Chinese sentence).
"""

from __future__ import annotations

import re
import unicodedata

from .errors import InputError, UsageError

__all__ = ["MAX_QUESTION_CHARS", "FOREIGN_SHARE_REFUSE", "NO_EVIDENCE", "check_question", "foreign_share"]

MAX_QUESTION_CHARS = 4000
# Refuse when more than this share of a question's words are in another script.
FOREIGN_SHARE_REFUSE = 0.5
# The confidence of such a question: below any refuse_below the settings allow (-2 to 2).
NO_EVIDENCE = -3.0

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LETTERS = re.compile(r"[^\W\d_]+")


def check_question(text: str | None) -> str:
    """The question to ask: stripped, control characters replaced, at most
    :data:`MAX_QUESTION_CHARS` long. Raises :class:`UsageError` when it is
    empty and :class:`InputError` when it is not valid UTF-8 text."""
    if text is None:
        raise UsageError("the question is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Undecodable bytes arrive as lone surrogates (argv, lenient readers).
        raw = text.encode("utf-8", "surrogateescape") if _escaped_only(text) else None
        where = ""
        if raw is not None:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                where = f" at byte {exc.start}"
        raise InputError(f"the question is not valid UTF-8 text{where}") from None
    q = _CONTROL.sub(" ", text).strip()
    if not q:
        raise UsageError("the question is empty")
    return q[:MAX_QUESTION_CHARS]


def _escaped_only(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def _latin(ch: str) -> bool:
    if ch.isascii():
        return True
    try:
        return unicodedata.name(ch).startswith("LATIN")
    except ValueError:
        return False


# Scripts written without spaces between words: count about two characters a word.
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN")


def foreign_share(question: str) -> float:
    """Share of the words of ``question`` written in a script other than Latin (0 to 1)."""
    latin = foreign = 0.0
    for run in _LETTERS.findall(question):
        if run.isascii():
            latin += 1
            continue
        n_latin = sum(1 for ch in run if _latin(ch))
        if 2 * n_latin >= len(run):
            latin += 1  # café, Größe
            continue
        first = next(ch for ch in run if not _latin(ch))
        try:
            name = unicodedata.name(first)
        except ValueError:
            name = ""
        foreign += max(1.0, len(run) / 2) if name.startswith(_UNSPACED) else 1.0
    total = latin + foreign
    return foreign / total if total else 0.0
