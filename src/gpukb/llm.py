"""A language model client on llama-index's LLM integrations.

One :class:`LlmClient` talks to an OpenAI-compatible server
(``/v1/chat/completions``: vLLM, TGI, llama.cpp server, OpenAI) through
``llama_index.llms.openai_like.OpenAILike``, or to Ollama (``/api/chat``)
through ``llama_index.llms.ollama.Ollama``. Both are imported on first use,
only when a model is configured (``pip install 'gpukb[llm]'``).

Every failure (timeout, connection refused, HTTP 4xx/5xx, a malformed or empty
response) becomes one :class:`~gpukb.errors.LlmError` whose message is a
single line without the API key; callers fall back to the offline path.
Nothing is retried: a slow or broken server costs at most one timeout.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator
from urllib.parse import urlsplit, urlunsplit

from .config import LlmConfig
from .errors import ConfigError, LlmError

__all__ = ["LlmClient", "LlmReply", "ToolCall", "client_for", "redact"]

log = logging.getLogger(__name__)

_REDACTED = "***"


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced."""
    if secret and len(secret) >= 4 and text:
        return text.replace(secret, _REDACTED)
    return text


def _public_url(url: str) -> str:
    """A base URL without user info, query or fragment (safe to print)."""
    try:
        p = urlsplit(url)
    except ValueError:
        return "the configured URL"
    host = p.hostname or ""
    if p.port:
        host = f"{host}:{p.port}"
    return urlunsplit((p.scheme, host, p.path, "", ""))


@dataclass
class ToolCall:
    name: str
    arguments: Any  # a dict, or the raw string the server sent


@dataclass
class LlmReply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    seconds: float = 0.0


class LlmClient:
    """Chat, streaming chat and structured calls against one configured model."""

    def __init__(self, config: LlmConfig, *, api_key: str | None = None):
        if not config.model:
            raise ConfigError("llm.model is not set: name the served model in ingest/config.yaml (llm: model:) "
                              "or GPUKB_LLM_MODEL")
        self.config = config
        self.provider = config.provider
        self.model = config.model
        self.url = config.url
        self.timeout = float(config.timeout)
        self._key = api_key if api_key is not None else config.api_key()
        self._llm: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never shows the key
        return f"LlmClient({self.label} at {_public_url(self.url)})"

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"

    # -- construction -----------------------------------------------------------------
    def _build(self) -> Any:
        c = self.config
        try:
            if self.provider == "ollama":
                from llama_index.llms.ollama import Ollama

                headers = {"Authorization": f"Bearer {self._key}"} if self._key else None
                return Ollama(model=self.model, base_url=self.url, temperature=c.temperature,
                              context_window=c.context_window, request_timeout=self.timeout, headers=headers,
                              additional_kwargs={"num_predict": c.max_tokens})
            from llama_index.llms.openai_like import OpenAILike

            return OpenAILike(model=self.model, api_base=self.url, api_key=self._key or "not-needed",
                              is_chat_model=True, is_function_calling_model=True,
                              context_window=c.context_window, max_tokens=c.max_tokens,
                              temperature=c.temperature, timeout=self.timeout, max_retries=0)
        except ImportError:
            raise ConfigError("the LLM backends need the llm extra: pip install 'gpukb[llm]'") from None

    @property
    def llm(self) -> Any:
        """The llama-index LLM (built once)."""
        if self._llm is None:
            with self._lock:
                if self._llm is None:
                    self._llm = self._build()
        return self._llm

    # -- errors -----------------------------------------------------------------------
    def error(self, exc: BaseException) -> LlmError:
        """One line for a failed call; never the key, never the response body."""
        if isinstance(exc, LlmError):
            return LlmError(redact(str(exc), self._key))
        where = _public_url(self.url)
        status = getattr(exc, "status_code", None)
        if status is None:
            status = getattr(getattr(exc, "response", None), "status_code", None)
        names = {t.__name__ for t in type(exc).__mro__}
        if names & {"APITimeoutError", "TimeoutException", "ReadTimeout", "ConnectTimeout", "TimeoutError",
                    "timeout"}:
            msg = f"the language model at {where} did not answer within {self.timeout:g} s"
        elif isinstance(status, int) and status >= 400:
            msg = f"the language model server at {where} answered HTTP {status}"
        elif names & {"APIConnectionError", "ConnectError", "ConnectionError", "RemoteProtocolError",
                      "NetworkError", "TransportError"}:
            msg = f"cannot reach the language model at {where}"
        elif names & {"JSONDecodeError", "ValidationError", "APIResponseValidationError", "KeyError", "TypeError",
                      "AttributeError", "IndexError", "ValueError", "DecodingError"}:
            msg = f"the language model at {where} sent a malformed response"
        else:
            msg = f"the language model call to {where} failed ({type(exc).__name__})"
        return LlmError(redact(msg, self._key))

    # -- calls ------------------------------------------------------------------------
    def _messages(self, system: str, user: str) -> list[Any]:
        from llama_index.core.llms import ChatMessage

        return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]

    def chat(self, system: str, user: str, **kwargs: Any) -> LlmReply:
        """One non-streamed chat call. Raises LlmError."""
        t0 = time.perf_counter()
        try:
            resp = self.llm.chat(self._messages(system, user), **kwargs)
            text = resp.message.content or ""
            calls = _tool_calls(resp.message)
        except ConfigError:
            raise
        except Exception as exc:
            err = self.error(exc)
            log.info("%s", err)
            raise err from None
        return LlmReply(text=str(text), tool_calls=calls, seconds=time.perf_counter() - t0)

    def stream(self, system: str, user: str, **kwargs: Any) -> Iterator[str]:
        """Text deltas of one streamed chat call. Raises LlmError (also
        mid-stream, and when the whole answer takes longer than the timeout)."""
        t0 = time.perf_counter()
        limit = max(4000, self.config.max_tokens * 12)  # characters; a stream that never ends is cut
        got = 0
        try:
            for chunk in self.llm.stream_chat(self._messages(system, user), **kwargs):
                delta = chunk.delta or ""
                if not isinstance(delta, str):
                    raise ValueError("non-text delta")
                if delta:
                    got += len(delta)
                    yield delta
                if time.perf_counter() - t0 > self.timeout:
                    raise TimeoutError("stream deadline")
                if got > limit:
                    break
        except ConfigError:
            raise
        except Exception as exc:
            err = self.error(exc)
            log.info("%s", err)
            raise err from None


def _tool_calls(message: Any) -> list[ToolCall]:
    out: list[ToolCall] = []
    for block in getattr(message, "blocks", None) or []:
        if type(block).__name__ == "ToolCallBlock":
            out.append(ToolCall(name=str(getattr(block, "tool_name", "") or ""),
                                arguments=getattr(block, "tool_kwargs", None)))
    return out


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict; strict JSON (no partial repair)."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        val = json.loads(raw)
        if isinstance(val, dict):
            return val
    raise ValueError("tool arguments are not a JSON object")


def client_for(settings: Any) -> LlmClient | None:
    """The configured client, or None when no language model is configured."""
    if not settings.llm_enabled:
        return None
    return LlmClient(settings.llm)
