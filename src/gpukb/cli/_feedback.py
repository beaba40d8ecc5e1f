"""``gpukb feedback export``: answer feedback as JSON Lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from . import app
from ._common import HomeOpt, settings

feedback_app = typer.Typer(help="Answer feedback collected by the Slack bot and the app.", no_args_is_help=True)
app.add_typer(feedback_app, name="feedback")


@feedback_app.command("export")
def export_cmd(
    db: Optional[Path] = typer.Option(None, "--db", help="Feedback store (default: <index home>/feedback.sqlite3)."),
    home: Optional[Path] = HomeOpt,
) -> None:
    """Print every feedback record as one JSON object per line (oldest first)."""
    from ..feedback import FeedbackStore, default_path

    store = FeedbackStore(db if db is not None else default_path(settings(home)))
    for rec in store.export():
        sys.stdout.write(json.dumps(rec, ensure_ascii=False) + "\n")
    sys.stdout.flush()
