"""Starting the bot: environment, logging (secrets redacted), Socket Mode or HTTP."""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
from typing import Any

from ..errors import ConfigError, GpukbError, UsageError

__all__ = ["run", "setup_logging", "redact", "RedactingFormatter"]

log = logging.getLogger("gpukb.slack")

_OWN_LOGGERS = ("gpukb", "slack_bolt", "slack_sdk")
_TOKEN = re.compile(r"\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+")
_BEARER = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?bearer\s+)[^\s'\",}]+")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Remove Slack tokens, bearer credentials and the given secret values from ``text``."""
    for s in secrets:
        if s and len(s) >= 6:
            text = text.replace(s, "[redacted]")
    text = _TOKEN.sub("[redacted]", text)
    return _BEARER.sub(r"\1[redacted]", text)


class RedactingFormatter(logging.Formatter):
    """A formatter whose output never carries tokens or secrets (messages,
    arguments and tracebacks alike)."""

    def __init__(self, fmt: str, secrets: tuple[str, ...] = ()):
        super().__init__(fmt)
        self.secrets = tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self.secrets)


def setup_logging(level: str = "INFO", secrets: tuple[str, ...] = ()) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets))
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    lvl = getattr(logging, str(level).upper(), None)
    if not isinstance(lvl, int):
        raise UsageError(f"--log-level {level!r} is not one of: DEBUG, INFO, WARNING, ERROR")
    root.setLevel(lvl)
    # Third-party chatter (some libraries set their own logger levels) stays
    # at WARNING unless debugging.
    if lvl > logging.DEBUG:
        handler.addFilter(lambda r: r.levelno >= logging.WARNING or r.name.startswith(_OWN_LOGGERS))


def _env(name: str) -> str:
    return (os.environ.get(name) or "").strip()


def run(*, host: str = "127.0.0.1", port: int = 3000, config_path: str | None = None, preload: bool = True,
        home: Any = None, log_level: str = "INFO", rate_limit: int | None = None,
        feedback_db: Any = None) -> None:
    """Run the bot until interrupted: Socket Mode when ``SLACK_APP_TOKEN`` is set,
    else an HTTP server for Events API, slash commands and interactivity."""
    bot_token = _env("SLACK_BOT_TOKEN")
    app_token = _env("SLACK_APP_TOKEN")
    secret = _env("SLACK_SIGNING_SECRET")
    api_url = _env("SLACK_API_URL") or None
    if not bot_token:
        raise UsageError("SLACK_BOT_TOKEN is not set (the app's bot token, xoxb-...)")
    if not app_token and not secret:
        raise UsageError("SLACK_SIGNING_SECRET is not set (HTTP mode needs it; set SLACK_APP_TOKEN for Socket Mode)")
    if not (0 < port < 65536):
        raise UsageError("--port must be between 1 and 65535")
    if api_url and not re.match(r"https?://", api_url):
        raise UsageError("SLACK_API_URL must be an http(s) URL such as https://slack.com/api/")
    if api_url and not api_url.endswith("/"):
        api_url += "/"
    try:
        import slack_bolt  # noqa: F401
    except ImportError:
        raise ConfigError("the Slack bot needs slack-bolt: pip install 'gpukb[slack]'") from None

    from ..config import load_settings
    from ..feedback import FeedbackStore, default_path
    from .bot import Bot, EngineHolder, build_app
    from .config import load_config

    setup_logging(log_level, (bot_token, app_token, secret))
    settings = load_settings(home=home)
    config = load_config(config_path)
    if rate_limit is not None:
        if rate_limit < 0:
            raise UsageError("--rate-limit must be 0 (off) or more")
        config.rate_per_user = rate_limit
    store = FeedbackStore(feedback_db or default_path(settings))
    engine = EngineHolder(settings)
    bot = Bot(engine=engine, store=store, config=config, recipes_dir=settings.recipes_dir)
    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackClientError

    try:
        app = build_app(bot, bot_token=bot_token, signing_secret=secret or None, api_url=api_url)
    except (BoltError, SlackClientError, OSError) as exc:  # auth.test failed or the endpoint is unreachable
        raise GpukbError(redact(f"cannot connect to Slack: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                                (bot_token, app_token, secret))) from None
    if preload:
        engine.get()
    log.info("config: %s; feedback store: %s", config.path or "defaults", store.path)

    def _stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    if app_token:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        log.info("starting in Socket Mode")
        try:
            SocketModeHandler(app, app_token).start()
        except KeyboardInterrupt:
            log.info("stopped")
        except (SlackClientError, OSError) as exc:
            err = getattr(getattr(exc, "response", None), "get", lambda k: None)("error")
            raise GpukbError(redact(f"Socket Mode connection failed: {err or type(exc).__name__}",
                                    (bot_token, app_token, secret))) from None
        return

    from .server import EVENTS_PATH, make_server

    try:
        server = make_server(app, host, port)
    except OSError as exc:
        raise GpukbError(f"cannot listen on {host}:{port} ({exc.strerror or type(exc).__name__})") from None
    log.info("listening on http://%s:%s%s", host, server.server_address[1], EVENTS_PATH)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        log.info("stopped")
    finally:
        server.server_close()
