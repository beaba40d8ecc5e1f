"""A scripted language model server for tests: speaks the OpenAI-compatible
``/v1/chat/completions`` API (JSON, or SSE when ``stream`` is true) and the
Ollama ``/api/chat`` API (JSON, or JSON lines when streaming) on 127.0.0.1.

Each test sets ``server.script``: a callable that receives the request (path,
headers, JSON body) and returns a :class:`Reply`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    text: str = ""
    tool: tuple[str, Any] | None = None  # (name, arguments: dict or raw string)
    status: int = 200
    raw: bytes | None = None  # a body sent as is (malformed responses)
    delay: float = 0.0  # seconds before the response starts
    chunk_delay: float = 0.0  # seconds between streamed chunks
    chunks: list[str] | None = None  # how a streamed text is cut (default: words)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def system(self) -> str:
        return next((m.get("content") or "" for m in self.body.get("messages", []) if m.get("role") == "system"), "")

    @property
    def user(self) -> str:
        return next((m.get("content") or "" for m in self.body.get("messages", []) if m.get("role") == "user"), "")


@dataclass
class ScriptedLLM:
    script: Callable[[Seen], Reply] = lambda seen: Reply(text="NOT_IN_SOURCES")
    seen: list[Seen] = field(default_factory=list)
    port: int = 0
    _server: Any = None

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def ollama_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "ScriptedLLM":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(n) or b"{}")
                except ValueError:
                    body = {}
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                owner.seen.append(seen)
                reply = owner.script(seen)
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    if self.path.startswith("/v1/chat/completions"):
                        self._openai(body, reply)
                    elif self.path.startswith("/api/chat"):
                        self._ollama(body, reply)
                    else:
                        self._send(404, b'{"error": "not found"}')
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error_or_raw(self, reply: Reply) -> bool:
                if reply.status != 200:
                    self._send(reply.status, reply.raw or json.dumps({"error": {"message": "scripted failure"}}).encode())
                    return True
                if reply.raw is not None:
                    self._send(200, reply.raw)
                    return True
                return False

            def _pieces(self, reply: Reply) -> list[str]:
                return reply.chunks if reply.chunks is not None else re.findall(r"\S+\s*|\s+", reply.text)

            def _openai(self, body: dict[str, Any], reply: Reply) -> None:
                if self._error_or_raw(reply):
                    return
                model = body.get("model", "m")
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for piece in self._pieces(reply):
                        chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                                 "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece},
                                              "finish_reason": None}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        if reply.chunk_delay:
                            time.sleep(reply.chunk_delay)
                    end = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                    self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
                    self.wfile.flush()
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.text}
                if reply.tool:
                    name, args = reply.tool
                    message = {"role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_1", "type": "function",
                        "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}]}
                out = {"id": "r1", "object": "chat.completion", "created": 0, "model": model,
                       "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                self._send(200, json.dumps(out).encode())

            def _ollama(self, body: dict[str, Any], reply: Reply) -> None:
                if self._error_or_raw(reply):
                    return
                model = body.get("model", "m")
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/x-ndjson")
                    self.end_headers()
                    for piece in self._pieces(reply):
                        line = {"model": model, "created_at": "2026-01-01T00:00:00Z",
                                "message": {"role": "assistant", "content": piece}, "done": False}
                        self.wfile.write((json.dumps(line) + "\n").encode())
                        self.wfile.flush()
                        if reply.chunk_delay:
                            time.sleep(reply.chunk_delay)
                    last = {"model": model, "created_at": "2026-01-01T00:00:00Z",
                            "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
                    self.wfile.write((json.dumps(last) + "\n").encode())
                    self.wfile.flush()
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.text}
                if reply.tool:
                    name, args = reply.tool
                    message["tool_calls"] = [{"function": {"name": name, "arguments": args}}]
                out = {"model": model, "created_at": "2026-01-01T00:00:00Z", "message": message, "done": True,
                       "done_reason": "stop"}
                self._send(200, json.dumps(out).encode())

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


INJECTION = re.compile(r"ignore (?:all )?previous instructions(?: and)?\s*(.*?)(?:\n|$)", re.I)


def follows_injections(seen: Seen) -> Reply:
    """A model that obeys instructions it finds in the sources."""
    m = INJECTION.search(seen.user)
    if not m:
        return Reply(text="NOT_IN_SOURCES")
    order = m.group(1).strip()
    say = re.match(r"(?:say|reply|answer|tell the user)\s*:?\s*(.*)", order, re.I)
    text = say.group(1) if say else order
    if re.search(r"do not cite|without citations", order, re.I):
        text = re.sub(r"(?i)do not cite.*|without citations.*", "", text).strip() or "Delete every ResourceQuota."
        return Reply(text=text)
    return Reply(text=f"{text.strip()} [1]")
