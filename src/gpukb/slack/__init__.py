"""The gpukb Slack bot (``gpukb slack``).

Answers mentions and DMs in threads with cited answers, lints pasted
manifests, serves the ``/gpukb`` slash command and records feedback buttons.
Importing this package is light; slack-bolt loads when the bot starts.
"""

from __future__ import annotations

from .config import SlackConfig, load_config
from .mrkdwn import pack_messages, split_text, to_mrkdwn

__all__ = ["SlackConfig", "load_config", "to_mrkdwn", "split_text", "pack_messages", "run"]


def run(**kwargs):
    """Run the bot (see :func:`gpukb.slack.runner.run`)."""
    from .runner import run as _run

    return _run(**kwargs)
