"""``gpukb slack``: run the Slack bot."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from . import app
from ._common import HomeOpt


@app.command("slack")
def slack_cmd(
    port: int = typer.Option(3000, "--port", help="HTTP port for Events API, slash commands and interactivity."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (HTTP mode)."),
    config: Optional[Path] = typer.Option(None, "--config", help="Bot config YAML (default: $GPUKB_SLACK_CONFIG; see README)."),
    preload: bool = typer.Option(True, "--preload/--no-preload", help="Load the model and index at start (default) or on the first question."),
    rate_limit: Optional[int] = typer.Option(None, "--rate-limit", help="Requests per user per window (overrides the config; 0 = off)."),
    log_level: str = typer.Option("INFO", "--log-level", help="DEBUG, INFO, WARNING or ERROR."),
    home: Optional[Path] = HomeOpt,
) -> None:
    """Run the Slack bot: Socket Mode when SLACK_APP_TOKEN is set, else HTTP at /slack/events.

    Needs SLACK_BOT_TOKEN, and SLACK_SIGNING_SECRET in HTTP mode. SLACK_API_URL
    overrides the Web API base URL."""
    from ..slack import run

    run(host=host, port=port, config_path=str(config) if config else None, preload=preload, home=home,
        log_level=log_level, rate_limit=rate_limit)
