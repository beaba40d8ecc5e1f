"""A small threaded HTTP server for Slack's Events API, slash commands and
interactivity, all at one path (``/slack/events``); ``GET /healthz`` answers
``ok``. Requests are handed to the Bolt app, which verifies their signature."""

from __future__ import annotations

import json
import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["make_server", "EVENTS_PATH", "MAX_BODY"]

EVENTS_PATH = "/slack/events"
MAX_BODY = 1_000_000  # bytes; Slack payloads are far smaller

log = logging.getLogger("gpukb.slack.http")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(app: Any, host: str = "127.0.0.1", port: int = 3000, path: str = EVENTS_PATH) -> ThreadingHTTPServer:
    """A server that dispatches POSTs on ``path`` to the Bolt ``app``."""
    from slack_bolt.request import BoltRequest

    class Handler(BaseHTTPRequestHandler):
        timeout = 30  # seconds to read a request; slow clients are cut off
        server_version = "gpukb-slack"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
            log.debug("%s - %s", self.address_string(), format % args)

        def _send(self, status: int, body: str | dict = "", headers: dict[str, Any] | None = None) -> None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode("utf-8")
            self.send_response(status)
            for k, vs in (headers or {}).items():
                if k.lower() == "content-length":
                    continue
                for v in (vs if isinstance(vs, (list, tuple)) else [vs]):
                    self.send_header(k, str(v))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.partition("?")[0] == "/healthz":
                self._send(200, "ok", {"Content-Type": "text/plain"})
            else:
                self._send(404, "not found", {"Content-Type": "text/plain"})

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            req_path, _, query = self.path.partition("?")
            if req_path != path:
                self._send(404, "not found", {"Content-Type": "text/plain"})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if length < 0 or length > MAX_BODY:
                self._send(413, "request body too large", {"Content-Type": "text/plain"})
                return
            try:
                raw = self.rfile.read(length).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                self._send(400, "bad request body", {"Content-Type": "text/plain"})
                return
            headers: dict[str, Any] = {k.lower(): [v] for k, v in self.headers.items()}
            try:
                resp = app.dispatch(BoltRequest(body=raw, query=query, headers=headers))
            except Exception:  # never leave Slack without an answer
                log.exception("request dispatch failed")
                self._send(500, "", {})
                return
            self._send(resp.status, resp.body, resp.headers)

    return _Server((host, port), Handler)
