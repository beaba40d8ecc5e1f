"""Helpers shared by the command modules."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any, Iterator, Optional

import typer

HomeOpt = typer.Option(None, "--home", help="Index folder (default: $GPUKB_HOME or ./.gpukb).")
JsonOpt = typer.Option(False, "--json", help="Print the result as JSON.")


def to_jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        if hasattr(obj, "to_dict"):
            return obj.to_dict()
        return dataclasses.asdict(obj)
    if isinstance(obj, Path):
        return str(obj)
    return obj


def emit_json(obj: Any, *, lines: bool = False) -> None:
    from ..output import json_text

    sys.stdout.write(json_text(to_jsonable(obj), indent=None if lines else 2) + "\n")
    sys.stdout.flush()


MAX_LINE_BYTES = 64 * 1024


def printable(text: str, limit: int = 200) -> str:
    """User text for a message or an error object: no control characters, bounded."""
    from ..output import clean

    text = clean(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def stdin_lines(stream: Any = None, *, max_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str, str | None]]:
    """``(line number, text, problem)`` for each line of stdin, read as bytes.

    A line that is not UTF-8 or is longer than ``max_bytes`` comes with a
    problem (and its text decoded leniently) instead of stopping the input;
    the lines after it still read. A line with no end in sight (more than
    the input size limit) stops the input with an error."""
    from ..errors import GpukbError
    from ..k8s.manifests import Limits

    stream = sys.stdin if stream is None else stream
    buf = getattr(stream, "buffer", None)
    if buf is None:  # a text stream (tests, embedding)
        for n, line in enumerate(stream, 1):
            yield n, line.rstrip("\r\n"), None
        return
    n = 0
    while True:
        raw = buf.readline(max_bytes + 1)
        if not raw:
            return
        n += 1
        if len(raw) > max_bytes:
            drained = len(raw)
            while not raw.endswith(b"\n"):
                raw = buf.readline(1 << 16)
                if not raw:
                    break
                drained += len(raw)
                if drained > Limits.from_env().max_bytes:
                    raise GpukbError(f"<stdin>: line {n} has no end within {Limits.from_env().max_mb}; stopped reading")
            yield n, "", f"longer than {max_bytes // 1024} KB"
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield n, raw.decode("utf-8", "replace").rstrip("\r\n"), f"not valid UTF-8 at byte {exc.start}"
            continue
        yield n, text.rstrip("\r\n"), None


def settings(home: Optional[Path]):
    from ..config import load_settings

    return load_settings(home=home)
