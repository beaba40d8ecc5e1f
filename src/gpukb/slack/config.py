"""The Slack bot's configuration file (``--config slack.yaml`` or ``GPUKB_SLACK_CONFIG``).

::

    respond_to: mentions        # default for channels: mentions | all
    channels:                   # per-channel overrides, by channel ID
      C0123ABCD: {respond_to: all}
    allowed_channels: [C0123ABCD, C0456EFGH]   # empty or absent: every channel the bot is in
    direct_messages: true       # answer DMs (default true)
    rate_limit:
      per_user: 10              # requests per user...
      window_seconds: 60        # ...per this many seconds (per_user: 0 turns the limit off)
    thread_context: true        # short follow-ups in a thread reuse the thread's first question
    lint_pasted_yaml: true      # lint Kubernetes YAML pasted in a ``` block

``respond_to: mentions`` answers only messages that mention the bot;
``respond_to: all`` also answers every message in the channel that reads as a
question (a question mark, a question word, a pasted error or manifest).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["SlackConfig", "load_config", "RESPOND_MODES", "CONFIG_ENV"]

RESPOND_MODES = ("mentions", "all")
CONFIG_ENV = "GPUKB_SLACK_CONFIG"
_TOP_KEYS = {"respond_to", "channels", "allowed_channels", "direct_messages", "rate_limit",
             "thread_context", "lint_pasted_yaml"}
_CHANNEL_KEYS = {"respond_to"}
_RATE_KEYS = {"per_user", "window_seconds"}


@dataclass
class SlackConfig:
    respond_to: str = "mentions"
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    allowed_channels: set[str] = field(default_factory=set)
    direct_messages: bool = True
    rate_per_user: int = 10
    rate_window: float = 60.0
    thread_context: bool = True
    lint_pasted_yaml: bool = True
    path: str | None = None

    def channel_allowed(self, channel: str) -> bool:
        return not self.allowed_channels or channel in self.allowed_channels

    def mode(self, channel: str) -> str:
        return str(self.channels.get(channel, {}).get("respond_to", self.respond_to))


def _fail(where: str, message: str) -> ConfigError:
    return ConfigError(f"{where}: {message}")


def _mode(value: Any, where: str) -> str:
    if value not in RESPOND_MODES:
        raise _fail(where, f"respond_to must be one of: {', '.join(RESPOND_MODES)} (got {value!r})")
    return str(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"must be true or false (got {value!r})")
    return value


def _number(value: Any, where: str, *, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise _fail(where, f"must be a number >= {minimum:g} (got {value!r})")
    return value


def parse_config(data: Any, where: str = "slack config") -> SlackConfig:
    """Build a :class:`SlackConfig` from parsed YAML, naming the bad field on error."""
    cfg = SlackConfig()
    if data is None:
        return cfg
    if not isinstance(data, dict):
        raise _fail(where, "top level must be a mapping")
    unknown = sorted(set(map(str, data)) - _TOP_KEYS)
    if unknown:
        raise _fail(where, f"unknown key(s): {', '.join(unknown)} (known: {', '.join(sorted(_TOP_KEYS))})")
    if "respond_to" in data:
        cfg.respond_to = _mode(data["respond_to"], f"{where}: respond_to")
    chans = data.get("channels") or {}
    if not isinstance(chans, dict):
        raise _fail(where, "channels must be a mapping of channel ID to settings")
    for cid, spec in chans.items():
        w = f"{where}: channels.{cid}"
        if not isinstance(spec, dict):
            raise _fail(w, "must be a mapping such as {respond_to: all}")
        bad = sorted(set(map(str, spec)) - _CHANNEL_KEYS)
        if bad:
            raise _fail(w, f"unknown key(s): {', '.join(bad)}")
        cfg.channels[str(cid)] = {"respond_to": _mode(spec.get("respond_to", cfg.respond_to), f"{w}.respond_to")}
    allowed = data.get("allowed_channels") or []
    if isinstance(allowed, str) or not isinstance(allowed, list) or not all(isinstance(c, str) for c in allowed):
        raise _fail(where, "allowed_channels must be a list of channel IDs")
    cfg.allowed_channels = set(allowed)
    if "direct_messages" in data:
        cfg.direct_messages = _bool(data["direct_messages"], f"{where}: direct_messages")
    if "thread_context" in data:
        cfg.thread_context = _bool(data["thread_context"], f"{where}: thread_context")
    if "lint_pasted_yaml" in data:
        cfg.lint_pasted_yaml = _bool(data["lint_pasted_yaml"], f"{where}: lint_pasted_yaml")
    rate = data.get("rate_limit")
    if rate is not None:
        if not isinstance(rate, dict):
            raise _fail(where, "rate_limit must be a mapping {per_user: N, window_seconds: S}")
        bad = sorted(set(map(str, rate)) - _RATE_KEYS)
        if bad:
            raise _fail(f"{where}: rate_limit", f"unknown key(s): {', '.join(bad)}")
        if "per_user" in rate:
            cfg.rate_per_user = int(_number(rate["per_user"], f"{where}: rate_limit.per_user", minimum=0))
        if "window_seconds" in rate:
            cfg.rate_window = float(_number(rate["window_seconds"], f"{where}: rate_limit.window_seconds", minimum=1))
    return cfg


def load_config(path: str | os.PathLike[str] | None = None) -> SlackConfig:
    """Read the config file (``path``, else ``$GPUKB_SLACK_CONFIG``); defaults when neither is set."""
    import yaml

    chosen = path or os.environ.get(CONFIG_ENV) or None
    if not chosen:
        return SlackConfig()
    p = Path(chosen)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if len(text) > 1_000_000:
        raise ConfigError(f"{p}: file too large for a config file")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"{p}: invalid YAML{f' at line {mark.line + 1}' if mark else ''}") from None
    cfg = parse_config(data, str(p))
    cfg.path = str(p)
    return cfg
