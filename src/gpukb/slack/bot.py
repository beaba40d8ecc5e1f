"""The Slack bot: event, slash command and button handlers on a Bolt app.

:class:`Bot` holds the engine (loaded once per process), the feedback store,
the per-channel configuration, the deduplication cache and the rate limiter.
:func:`build_app` wires it to a ``slack_bolt.App``; the handlers only talk to
Slack through the Web API client Bolt gives them, so any Slack-compatible
endpoint (``SLACK_API_URL``) works.
"""

from __future__ import annotations

import io
import logging
import os
import re
import shlex
import threading
import time
from typing import Any, Callable

from ..errors import GpukbError, UsageError
from .config import SlackConfig
from .format import (
    FEEDBACK_PREFIX,
    MANIFEST_INLINE_LIMIT,
    answer_text,
    build_messages,
    help_text,
    lint_text,
    manifest_text,
    refusal_text,
)
from .guards import RateLimiter, TTLSet
from .mrkdwn import SECTION_LIMIT, escape, to_mrkdwn, unescape

__all__ = ["Bot", "EngineHolder", "StreamingReply", "build_app", "extract_manifests", "clean_text", "looks_like_question"]

log = logging.getLogger("gpukb.slack")

WORKING_REACTION = "eyes"
SHORT_FOLLOWUP_WORDS = 12
APOLOGY = ":warning: Sorry, something went wrong while I was working on this. The details are in the bot's log."
MAX_RESPOND_MESSAGES = 5  # a response_url takes at most 5 messages

_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<[#!][^>]*>")
_CODE_BLOCK = re.compile(r"```(.*?)```", re.S)
_K8S_API = re.compile(r"^\s*(?:-\s+)?apiVersion:\s*['\"]?[\w.\-/]+", re.M)
_K8S_KIND = re.compile(r"^\s*(?:-\s+)?kind:\s*['\"]?[A-Z]\w*", re.M)
_QUESTION = re.compile(
    r"\?|\b(how|why|what|whats|when|where|which|who|can i|can we|could|should|does|do i|do we|is it|is there|"
    r"are there|pending|error|errors|fail\w*|stuck|crash\w*|evicted|oom\w*|slow|deadlock\w*|insufficient)\b", re.I)
_SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


# -- text helpers ----------------------------------------------------------------

def clean_text(text: str) -> str:
    """A Slack message as plain text: mentions removed, links unwrapped, entities unescaped."""
    t = _MENTION.sub(" ", text or "")
    t = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), t)
    t = _SPECIAL.sub(" ", t)
    t = unescape(t)
    return re.sub(r"[ \t]+", " ", t).strip()


def extract_manifests(text: str) -> tuple[list[str], str]:
    """Kubernetes YAML pasted in ``` blocks (a block with ``apiVersion:`` and
    ``kind:`` lines), and the text outside every code block."""
    found: list[str] = []
    for m in _CODE_BLOCK.finditer(text):
        body = m.group(1)
        first, _, rest = body.partition("\n")
        if re.fullmatch(r"\s*(ya?ml|yaml\s*)\s*", first, re.I):
            body = rest
        body = body.strip("\n")
        if _K8S_API.search(body) and _K8S_KIND.search(body):
            found.append(body)
    outside = _CODE_BLOCK.sub(" ", text)
    return found, re.sub(r"\s+", " ", outside).strip()


def looks_like_question(text: str) -> bool:
    return bool(_QUESTION.search(text or ""))


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text or ""))


# -- the engine, loaded once ---------------------------------------------------------

class EngineHolder:
    """Loads the :class:`gpukb.Engine` once (at start with ``preload``, else on
    first use) and serialises questions to it."""

    def __init__(self, settings: Any = None, factory: Callable[[], Any] | None = None):
        self._settings = settings
        self._factory = factory
        self._engine: Any = None
        self._load_lock = threading.Lock()
        self._ask_lock = threading.Lock()

    def get(self) -> Any:
        if self._engine is None:
            with self._load_lock:
                if self._engine is None:
                    t0 = time.perf_counter()
                    if self._factory is not None:
                        self._engine = self._factory()
                    else:
                        from ..live import LiveEngine

                        # follows re-ingests: each question is answered from the generation published then
                        self._engine = LiveEngine(self._settings)
                        self._engine.start_heartbeat()
                    log.info("engine loaded in %.1fs", time.perf_counter() - t0)
        return self._engine

    def ask(self, question: str) -> Any:
        engine = self.get()
        with self._ask_lock:
            return engine.ask(question)

    def ask_streaming(self, question: str, on_text: Callable[[str], None]) -> Any:
        """Like :meth:`ask`; with a streaming generator, ``on_text`` gets the
        text written so far after each delta."""
        engine = self.get()
        with self._ask_lock:
            if not getattr(engine, "streams", False):
                return engine.ask(question)
            text, final = "", None
            for item in engine.ask_stream(question):
                if isinstance(item, str):
                    text += item
                    on_text(text)
                else:
                    final = item
            return final


class StreamingReply:
    """An answer posted while it is written: the first text is posted in the
    thread, then the message is updated with ``chat.update`` at most once every
    ``interval`` seconds, and finally replaced by the finished answer."""

    def __init__(self, client: Any, channel: str, thread_ts: str | None, *, interval: float = 1.0):
        self.client = client
        self.channel = channel
        self.thread_ts = thread_ts
        self.interval = interval
        self.ts: str | None = None
        self.last = 0.0
        self.failed = False

    def update(self, text: str) -> None:
        if self.failed or not text.strip():
            return
        now = time.monotonic()
        if self.ts is not None and now - self.last < self.interval:
            return
        body = to_mrkdwn(text)
        body = body[: SECTION_LIMIT - 10] + " …"
        try:
            if self.ts is None:
                resp = self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=body,
                                                    unfurl_links=False, unfurl_media=False)
                self.ts = resp.get("ts") if resp is not None else None
                if not self.ts:
                    self.failed = True
            else:
                self.client.chat_update(channel=self.channel, ts=self.ts, text=body)
        except Exception as exc:
            log.warning("streaming the answer to %s failed: %s", self.channel, _api_error(exc))
            self.failed = True
        self.last = time.monotonic()

    def finish(self, messages: list[dict[str, Any]]) -> bool:
        """Replace the streamed message with the first finished message and post
        the rest; False when nothing was streamed (post them as usual)."""
        if self.ts is None or not messages:
            return False
        wait = self.interval - (time.monotonic() - self.last)
        if wait > 0:
            time.sleep(wait)
        first, rest = messages[0], messages[1:]
        try:
            self.client.chat_update(channel=self.channel, ts=self.ts, text=first["text"], blocks=first["blocks"])
        except Exception as exc:
            log.warning("chat.update of the streamed answer failed (%s); posting it", _api_error(exc))
            rest = messages
        for m in rest:
            self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts, text=m["text"],
                                         blocks=m["blocks"], unfurl_links=False, unfurl_media=False)
        return True


# -- the bot -------------------------------------------------------------------------

class Bot:
    def __init__(self, *, engine: EngineHolder, store: Any, config: SlackConfig | None = None,
                 recipes_dir: Any = None, event_ttl: float = 3600.0):
        self.engine = engine
        self.store = store
        self.config = config or SlackConfig()
        self.recipes_dir = recipes_dir
        self.events = TTLSet(ttl=event_ttl, maxsize=20000)
        self.messages = TTLSet(ttl=event_ttl, maxsize=20000)
        self.rate = RateLimiter(self.config.rate_per_user, self.config.rate_window)
        self._recipes: list[Any] | None = None
        self._recipes_lock = threading.Lock()

    # -- recipes -----------------------------------------------------------------
    def recipes(self) -> list[Any]:
        with self._recipes_lock:
            if self._recipes is None:
                from .. import load_recipes

                self._recipes = load_recipes(self.recipes_dir)
            return self._recipes

    # -- dedupe middleware -----------------------------------------------------------
    def dedupe(self, body: dict[str, Any], request: Any, next: Callable[[], None]) -> Any:  # noqa: A002
        """Retries (``X-Slack-Retry-Num``) and repeated ``event_id`` never run twice."""
        if isinstance(body, dict) and body.get("type") == "event_callback":
            event_id = body.get("event_id")
            if event_id and not self.events.add(str(event_id)):
                retry = (request.headers.get("x-slack-retry-num") or [None])[0] if request is not None else None
                log.info("duplicate event %s ignored (retry %s)", event_id, retry or "-")
                from slack_bolt.response import BoltResponse

                return BoltResponse(status=200, body="")
        next()
        return None

    # -- events ---------------------------------------------------------------------
    def on_app_mention(self, body: dict[str, Any], event: dict[str, Any], client: Any, context: Any) -> None:
        self.handle_message(event, client, bot_user_id=_ctx(context, "bot_user_id"), event_id=body.get("event_id"))

    def on_message(self, body: dict[str, Any], event: dict[str, Any], client: Any, context: Any) -> None:
        if event.get("subtype") not in (None, "thread_broadcast", "file_share") or event.get("bot_id"):
            return
        bot_user = _ctx(context, "bot_user_id")
        ctype = event.get("channel_type")
        text = event.get("text") or ""
        if ctype == "im":
            if not self.config.direct_messages:
                return
        elif ctype in ("channel", "group", "mpim"):
            if bot_user and f"<@{bot_user}" in text:
                return  # the app_mention event answers it
            if self.config.mode(event.get("channel", "")) != "all":
                return
            found, rest = extract_manifests(text)
            if not (found or looks_like_question(clean_text(rest))):
                return
        else:
            return
        self.handle_message(event, client, bot_user_id=bot_user, event_id=body.get("event_id"))

    def handle_message(self, event: dict[str, Any], client: Any, *, bot_user_id: str | None = None,
                       event_id: str | None = None) -> None:
        channel = event.get("channel") or ""
        ts = event.get("ts") or ""
        user = event.get("user") or ""
        if not channel or not ts or not user:
            return
        if event.get("channel_type") != "im" and not self.config.channel_allowed(channel):
            log.info("channel %s is not allowed; event %s ignored", channel, event_id)
            return
        if not self.messages.add(f"{channel}:{ts}"):
            return  # the same message arrived as app_mention and message
        thread_ts = event.get("thread_ts") or ts
        wait = self.rate.hit(user)
        if wait:
            log.info("rate limit: user %s must wait %.0fs", user, wait)
            if self.rate.should_warn(user):
                self._post(client, channel, thread_ts, build_messages(
                    f":hourglass: You have reached the limit of {self.config.rate_per_user} requests per "
                    f"{self.config.rate_window:g} seconds. Please try again in {wait:.0f} seconds."))
            return
        t0 = time.perf_counter()
        reacted = self._react(client, "reactions_add", channel, ts)
        streamer = StreamingReply(client, channel, thread_ts)
        try:
            messages, upload = self.reply_for(event, client, bot_user_id=bot_user_id, streamer=streamer)
            if not streamer.finish(messages):
                self._post(client, channel, thread_ts, messages)
            if upload:
                self._upload(client, channel, thread_ts, **upload)
            log.info("answered event %s in %s in %.2fs", event_id or "-", channel, time.perf_counter() - t0)
        except Exception:
            log.exception("failed to answer event %s in %s", event_id or "-", channel)
            try:
                if not streamer.finish(build_messages(APOLOGY)):
                    self._post(client, channel, thread_ts, build_messages(APOLOGY))
            except Exception:
                log.exception("could not post the apology in %s", channel)
        finally:
            if reacted:
                self._react(client, "reactions_remove", channel, ts)

    def reply_for(self, event: dict[str, Any], client: Any, *, bot_user_id: str | None = None,
                  streamer: StreamingReply | None = None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The reply messages for one message, and a file to upload (or None).
        With a ``streamer`` and a streaming generator, the answer is shown while it is written."""
        raw = event.get("text") or ""
        manifests, rest = extract_manifests(unescape(_MENTION.sub(" ", raw))) if self.config.lint_pasted_yaml else ([], raw)
        question = clean_text(rest)
        parts: list[str] = []
        if manifests:
            from .. import lint_files

            report = lint_files(["-"], stdin=io.StringIO("\n---\n".join(manifests)))
            parts.append(lint_text(report))
            if not (_words(question) >= 3 and looks_like_question(question)):
                return build_messages("\n\n".join(parts)), None
        if not question:
            return build_messages(help_text()), None
        context_note = None
        if self.config.thread_context:
            question, first = self.thread_question(client, event, question, bot_user_id)
            if first:
                context_note = f"Read together with the thread's first question: “{escape(first[:300])}”"
        ans = self.engine.ask_streaming(question, streamer.update) if streamer is not None else self.engine.ask(question)
        upload = None
        if ans.refused and manifests:
            # the words around a pasted manifest ("can you check this?") are not a KB question
            return build_messages("\n\n".join(parts)), None
        if ans.refused:
            parts.append(refusal_text(ans))
        else:
            long_manifest = bool(ans.manifest) and len(ans.manifest.get("yaml") or "") > MANIFEST_INLINE_LIMIT
            parts.append(answer_text(ans, include_manifest=not long_manifest))
            if long_manifest:
                parts.append(manifest_text(ans.manifest, heading="Manifest", include_yaml=False)
                             + "\nThe YAML is attached as a file.")
                upload = {"content": ans.manifest["yaml"], "filename": f"{ans.manifest.get('recipe') or 'manifest'}.yaml"}
        key = self._remember(question, ans, channel=event.get("channel", ""), user=event.get("user", ""))
        return build_messages("\n\n".join(parts), feedback_key=key, context=context_note), upload

    def thread_question(self, client: Any, event: dict[str, Any], question: str,
                        bot_user_id: str | None) -> tuple[str, str | None]:
        """A short follow-up in a thread is read together with the thread's first question."""
        ts, thread_ts = event.get("ts"), event.get("thread_ts")
        if not thread_ts or thread_ts == ts or _words(question) > SHORT_FOLLOWUP_WORDS:
            return question, None
        try:
            resp = client.conversations_replies(channel=event.get("channel"), ts=thread_ts, limit=50)
            msgs = resp.get("messages") or []
        except Exception as exc:
            log.warning("conversations.replies failed in %s: %s", event.get("channel"), _api_error(exc))
            return question, None
        earlier = []
        for m in msgs:
            try:
                if float(m.get("ts", "0")) >= float(ts or "0"):
                    continue
            except ValueError:
                continue
            if m.get("bot_id") or (bot_user_id and m.get("user") == bot_user_id) or not m.get("user"):
                continue
            if m.get("subtype") not in (None, "thread_broadcast"):
                continue
            text = clean_text(extract_manifests(m.get("text") or "")[1])
            if text:
                earlier.append(text)
        if not earlier or earlier[0].lower() == question.lower():
            return question, None
        return f"{earlier[0]} {question}", earlier[0]

    # -- slash commands -------------------------------------------------------------------
    def on_command(self, ack: Callable[..., None], command: dict[str, Any], respond: Callable[..., Any],
                   client: Any) -> None:
        text = clean_text(command.get("text") or "").translate(_SMART_QUOTES)
        sub, _, rest = text.partition(" ")
        sub = sub.lower()
        rest = rest.strip()
        if sub in ("", "help", "-h", "--help"):
            ack(response_type="ephemeral", text=help_text())
            return
        if sub not in ("ask", "generate", "recipe", "recipes"):
            sub, rest = "ask", text  # "/gpukb why is my pod pending" asks
        user = command.get("user_id") or ""
        wait = self.rate.hit(user)
        if wait:
            ack(response_type="ephemeral", text=f":hourglass: Rate limit reached; try again in {wait:.0f} seconds.")
            return
        ack(response_type="ephemeral", text=f":hourglass_flowing_sand: Working on `/gpukb {escape(text[:200])}`…")
        t0 = time.perf_counter()
        try:
            if sub == "ask":
                self._cmd_ask(rest, command, respond)
            elif sub == "generate":
                self._cmd_generate(rest, command, respond, client)
            else:
                self._cmd_recipe(rest, command, respond, client)
            log.info("/gpukb %s for %s in %.2fs", sub, command.get("channel_id"), time.perf_counter() - t0)
        except GpukbError as exc:
            _respond(respond, build_messages(f":warning: {escape(str(exc))}"), response_type="ephemeral")
        except Exception:
            log.exception("/gpukb %s failed", sub)
            try:
                _respond(respond, build_messages(APOLOGY), response_type="ephemeral")
            except Exception:
                log.exception("could not send the apology")

    def _cmd_ask(self, question: str, command: dict[str, Any], respond: Callable[..., Any]) -> None:
        if not question:
            raise UsageError("usage: /gpukb ask QUESTION")
        ans = self.engine.ask(question)
        head = f"*<@{command.get('user_id')}> asked:* {escape(question[:500])}\n\n"
        if ans.refused:
            body = refusal_text(ans)
        else:
            body = answer_text(ans)
        key = self._remember(question, ans, channel=command.get("channel_id", ""), user=command.get("user_id", ""))
        _respond(respond, build_messages(head + body, feedback_key=key), response_type="in_channel")

    def _cmd_generate(self, request: str, command: dict[str, Any], respond: Callable[..., Any], client: Any) -> None:
        from .. import generate

        if not request:
            raise UsageError('usage: /gpukb generate REQUEST, e.g. "volcano job, 4 workers x 8 GPUs, queue research"')
        g = generate(request, self.recipes())
        head = f"*<@{command.get('user_id')}> asked for:* {escape(request[:500])}\n"
        self._send_manifest(g, head, command, respond, client)

    def _cmd_recipe(self, args: str, command: dict[str, Any], respond: Callable[..., Any], client: Any) -> None:
        from .. import render_recipe

        recipes = self.recipes()
        try:
            words = shlex.split(args)
        except ValueError as exc:
            raise UsageError(f"cannot parse the arguments: {exc}") from None
        if not words:
            lines = ["*Recipes* (render one with `/gpukb recipe ID key=value ...`):"]
            lines += [f"• `{escape(r.id)}`: {escape(r.title)}" for r in recipes]
            _respond(respond, build_messages("\n".join(lines)), response_type="ephemeral")
            return
        rid, pairs = words[0], words[1:]
        recipe = next((r for r in recipes if r.id == rid), None)
        if recipe is None:
            import difflib

            close = difflib.get_close_matches(rid, [r.id for r in recipes], n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else " (`/gpukb recipe` lists them)"
            raise UsageError(f"no recipe with id {rid!r}{hint}")
        params = {}
        for p in pairs:
            key, sep, raw = p.partition("=")
            if not sep or not key.strip():
                raise UsageError(f"{p!r}: expected key=value")
            params[key.strip()] = parse_value(recipe, key.strip(), raw)
        rendered = render_recipe(recipe, params)
        result = {"recipe": recipe.id, "title": getattr(recipe, "title", ""), "params": rendered.params,
                  "yaml": rendered.yaml, "valid": rendered.valid, "issues": list(rendered.issues),
                  "unused": getattr(rendered, "unused", None) or [],
                  "missing": getattr(rendered, "missing", None) or []}
        head = f"*<@{command.get('user_id')}> rendered:* `{escape(' '.join(words)[:500])}`\n"
        self._send_manifest(result, head, command, respond, client)

    def _send_manifest(self, m: Any, head: str, command: dict[str, Any], respond: Callable[..., Any],
                       client: Any) -> None:
        yaml_text = (m.get("yaml") if isinstance(m, dict) else getattr(m, "yaml", "")) or ""
        recipe = (m.get("recipe") if isinstance(m, dict) else getattr(m, "recipe", "")) or "manifest"
        if len(yaml_text) <= MANIFEST_INLINE_LIMIT:
            _respond(respond, build_messages(head + manifest_text(m, heading="Manifest")), response_type="in_channel")
            return
        summary = head + manifest_text(m, heading="Manifest", include_yaml=False)
        channel = command.get("channel_id")
        try:
            self._upload(client, channel, None, content=yaml_text, filename=f"{recipe}.yaml", raise_errors=True)
            _respond(respond, build_messages(summary + "\nThe YAML is attached as a file in this channel."),
                     response_type="in_channel")
        except Exception as exc:
            log.warning("file upload to %s failed (%s); sending the YAML inline", channel, _api_error(exc))
            _respond(respond, build_messages(head + manifest_text(m, heading="Manifest")), response_type="in_channel")

    # -- feedback buttons ---------------------------------------------------------------
    def on_feedback(self, ack: Callable[..., None], body: dict[str, Any], action: dict[str, Any], client: Any,
                    respond: Callable[..., Any]) -> None:
        ack()
        verdict = str(action.get("action_id", ""))[len(FEEDBACK_PREFIX):]
        key = str(action.get("value") or "")[:64]
        user = (body.get("user") or {}).get("id", "")
        channel = (body.get("channel") or {}).get("id", "") or (body.get("container") or {}).get("channel_id", "")
        try:
            saved = self.store.recall(key) if key else None
            if saved is None:
                log.warning("feedback for an unknown answer %r from %s", key, user)
                saved = {"question": "", "answer": "", "citations": []}
            self.store.record(question=saved["question"], answer=saved["answer"], citations=saved["citations"],
                              verdict=verdict, source="slack", user=user, channel=channel, answer_key=key or None)
            log.info("feedback %s on %s from %s", verdict, key, user)
        except Exception:
            log.exception("could not record feedback %s on %s", verdict, key)
            _respond(respond, build_messages(APOLOGY), response_type="ephemeral", replace_original=False)
            return
        self._show_tally(body, client, respond, key, user, verdict)

    def _show_tally(self, body: dict[str, Any], client: Any, respond: Callable[..., Any], key: str, user: str,
                    verdict: str) -> None:
        msg = body.get("message") or {}
        blocks = [b for b in (msg.get("blocks") or []) if b.get("block_id") != "gpukb_feedback_tally"]
        try:
            up, down = self.store.counts(key)
        except Exception:
            up, down = (1, 0) if verdict == "helpful" else (0, 1)
        note = {"type": "context", "block_id": "gpukb_feedback_tally", "elements": [{
            "type": "mrkdwn",
            "text": f"Thanks <@{user}>, feedback recorded. :thumbsup: {up} · :thumbsdown: {down}"}]}
        at = next((i for i, b in enumerate(blocks) if b.get("block_id") == "gpukb_feedback"), len(blocks))
        blocks.insert(at, note)
        channel = (body.get("container") or {}).get("channel_id") or (body.get("channel") or {}).get("id")
        container = body.get("container") or {}
        if msg.get("ts") and channel and not container.get("is_ephemeral"):
            try:
                client.chat_update(channel=channel, ts=msg["ts"], text=msg.get("text") or "", blocks=blocks)
                return
            except Exception as exc:
                log.info("chat.update failed (%s); using the response_url", _api_error(exc))
        if body.get("response_url"):
            _respond(respond, [{"text": msg.get("text") or "", "blocks": blocks}], replace_original=True)

    # -- Slack calls ----------------------------------------------------------------------
    def _remember(self, question: str, ans: Any, *, channel: str, user: str) -> str | None:
        try:
            return self.store.remember(question, ans.answer, ans.citations, channel=channel, user=user,
                                       refused=bool(ans.refused))
        except Exception:
            log.exception("could not keep the answer for feedback")
            return None

    def _react(self, client: Any, method: str, channel: str, ts: str) -> bool:
        try:
            getattr(client, method)(channel=channel, timestamp=ts, name=WORKING_REACTION)
            return True
        except Exception as exc:
            log.warning("%s failed in %s: %s", method.replace("_", "."), channel, _api_error(exc))
            return method == "reactions_remove"

    def _post(self, client: Any, channel: str, thread_ts: str | None, messages: list[dict[str, Any]]) -> None:
        for m in messages:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=m["text"], blocks=m["blocks"],
                                    unfurl_links=False, unfurl_media=False)

    def _upload(self, client: Any, channel: str | None, thread_ts: str | None, *, content: str, filename: str,
                raise_errors: bool = False) -> None:
        try:
            client.files_upload_v2(channel=channel, thread_ts=thread_ts, content=content, filename=filename,
                                   title=filename)
        except Exception as exc:
            if raise_errors:
                raise
            log.warning("file upload to %s failed: %s", channel, _api_error(exc))


def _ctx(context: Any, key: str) -> Any:
    try:
        return context.get(key)
    except Exception:
        return None


def _api_error(exc: Exception) -> str:
    resp = getattr(exc, "response", None)
    if resp is not None:
        try:
            return str(resp.get("error") or type(exc).__name__)
        except Exception:
            pass
    return type(exc).__name__


def _respond(respond: Callable[..., Any], messages: list[dict[str, Any]], **kw: Any) -> None:
    for m in messages[:MAX_RESPOND_MESSAGES]:
        r = respond(text=m["text"], blocks=m["blocks"], **kw)
        status = getattr(r, "status_code", 200)
        if status and status >= 300:
            log.warning("response_url answered HTTP %s", status)


def parse_value(recipe: Any, name: str, raw: str) -> Any:
    """A ``key=value`` string typed by the recipe's parameter schema."""
    import json

    import yaml

    props = getattr(recipe, "properties", None) or {}
    if props and name not in props:
        import difflib

        close = difflib.get_close_matches(name, list(props), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(props)}"
        raise UsageError(f"recipe {recipe.id}: unknown parameter '{name}'{hint}")
    spec = props.get(name) or {}
    types = spec.get("type")
    types = set(types) if isinstance(types, list) else {types} if types else set()

    def scalar(s: str, t: set) -> Any:
        s = s.strip()
        if "string" in t and len(t) == 1:
            return s
        if "integer" in t:
            try:
                return int(s)
            except ValueError:
                pass
        if "number" in t:
            try:
                return float(s) if not re.fullmatch(r"-?\d+", s) else int(s)
            except ValueError:
                pass
        if "boolean" in t and s.lower() in ("true", "false", "yes", "no", "on", "off"):
            return s.lower() in ("true", "yes", "on")
        if "object" in t:
            try:
                return json.loads(s)
            except ValueError:
                pass
        try:
            return yaml.safe_load(s) if len(s) < 2000 else s
        except yaml.YAMLError:
            return s

    if "array" in types:
        raw_s = raw.strip()
        if raw_s.startswith("["):
            try:
                return json.loads(raw_s)
            except ValueError:
                pass
        item = (spec.get("items") or {}).get("type")
        item_t = set(item) if isinstance(item, list) else {item} if item else set()
        return [scalar(x, item_t) for x in raw_s.split(",") if x.strip()] if raw_s else []
    return scalar(raw, types)


def build_app(bot: Bot, *, bot_token: str, signing_secret: str | None, api_url: str | None = None,
              token_verification: bool = True) -> Any:
    """A ``slack_bolt.App`` with the bot's handlers registered."""
    from slack_bolt import App
    from slack_sdk import WebClient

    web_log = logging.getLogger("gpukb.slack.web")
    client = (WebClient(token=bot_token, base_url=api_url, logger=web_log) if api_url
              else WebClient(token=bot_token, logger=web_log))
    # Bolt reads SLACK_BOT_TOKEN itself and warns that the client's token wins;
    # the client already carries it.
    saved = os.environ.pop("SLACK_BOT_TOKEN", None)
    try:
        app = _make_app(App, client, signing_secret, token_verification)
    finally:
        if saved is not None:
            os.environ["SLACK_BOT_TOKEN"] = saved
    app.use(bot.dedupe)
    app.event("app_mention")(bot.on_app_mention)
    app.event("message")(bot.on_message)
    app.command("/gpukb")(bot.on_command)
    app.action(re.compile("^" + re.escape(FEEDBACK_PREFIX) + "(helpful|not_helpful)$"))(bot.on_feedback)
    return app


def _make_app(App: Any, client: Any, signing_secret: str | None, token_verification: bool) -> Any:
    from concurrent.futures import ThreadPoolExecutor

    return App(
        client=client,
        signing_secret=signing_secret or "",
        request_verification_enabled=bool(signing_secret),
        token_verification_enabled=token_verification,
        process_before_response=False,
        listener_executor=ThreadPoolExecutor(max_workers=4, thread_name_prefix="gpukb-slack"),
        logger=logging.getLogger("gpukb.slack.bolt"),
        name="gpukb",
    )
