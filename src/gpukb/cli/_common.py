"""Helpers shared by the command modules."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, Optional

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
    text = json.dumps(to_jsonable(obj), ensure_ascii=False, indent=None if lines else 2, default=str)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def settings(home: Optional[Path]):
    from ..config import load_settings

    return load_settings(home=home)
