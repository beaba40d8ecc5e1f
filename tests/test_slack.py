"""The Slack bot.

Fast tests cover mrkdwn conversion, message splitting, the config file, the
guards, pasted-manifest detection and the feedback store. Tests marked
``slow`` run ``gpukb slack`` as a subprocess over a real index, against a fake
Slack Web API server on 127.0.0.1 (``SLACK_API_URL``), and send it signed
Events API, slash command and interactivity requests over HTTP.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import REPO, gpukb_cmd

from gpukb.slack.mrkdwn import MESSAGE_LIMIT, SECTION_LIMIT, pack_messages, split_text, to_mrkdwn

from conftest import free_port as _free_port

# -- mrkdwn ------------------------------------------------------------------------


def test_mrkdwn_bold_links_and_escaping():
    md = ("Use **ResourceQuota** on `requests.nvidia.com/gpu` & see "
          "[the docs](https://kubernetes.io/q?a=1&b=2) or [time-slicing](kb/gpu-sharing/time-slicing.md). [1][2]")
    out = to_mrkdwn(md)
    assert "*ResourceQuota*" in out and "**" not in out
    assert "<https://kubernetes.io/q?a=1&amp;b=2|the docs>" in out
    assert "time-slicing" in out and "kb/gpu-sharing" not in out  # KB-relative link: text only
    assert "&amp; see" in out
    assert "[1][2]" in out


def test_mrkdwn_headings_lists_italics_and_code():
    md = "## Why **Pending**\n\n- one *two*\n* three\n\n```yaml\nkind: Pod  # a < b\n**not bold**\n```\n[1]"
    out = to_mrkdwn(md)
    lines = out.split("\n")
    assert lines[0] == "*Why Pending*"
    assert "• one _two_" in out and "• three" in out
    assert "```\nkind: Pod  # a &lt; b\n**not bold**\n```" in out  # code is literal, no language tag
    assert out.endswith("[1]")


def test_mrkdwn_unclosed_fence_is_closed():
    out = to_mrkdwn("text\n\n```\ncode line")
    assert out.count("```") == 2


def test_split_short_text_is_one_piece():
    assert split_text("hello\n\nworld") == ["hello\n\nworld"]
    assert split_text("") == [] and split_text("   \n") == []


def test_split_on_paragraphs_within_limit():
    paras = [f"paragraph {i} " + "word " * 120 for i in range(30)]
    text = "\n\n".join(p.strip() for p in paras)
    chunks = split_text(text)
    assert len(chunks) > 1
    assert all(len(c) <= SECTION_LIMIT for c in chunks)
    assert "\n\n".join(chunks) == text  # cut only between paragraphs, nothing lost


def test_split_never_inside_a_code_block():
    code = "```\n" + "\n".join(f"line {i}: value" for i in range(40)) + "\n```"
    text = "\n\n".join(["intro " * 300, code, "middle " * 200, code, "end"])
    chunks = split_text(text, limit=1200)
    assert all(len(c) <= 1200 for c in chunks)
    for c in chunks:
        assert c.count("```") % 2 == 0, c
    # each code block stays whole in one chunk
    assert sum(c.count(code) for c in chunks) == 2


def test_split_long_code_block_is_closed_and_reopened():
    code = "```\n" + "\n".join(f"key{i}: " + "v" * 60 for i in range(200)) + "\n```"
    chunks = split_text("before\n\n" + code + "\n\nafter", limit=SECTION_LIMIT)
    assert all(len(c) <= SECTION_LIMIT for c in chunks)
    assert all(c.count("```") % 2 == 0 for c in chunks)
    body = "".join(re.findall(r"```\n(.*?)\n```", "\n".join(chunks), re.S))
    for i in range(200):
        assert f"key{i}: " in body
    assert chunks[0].startswith("before") and chunks[-1].endswith("after")


def test_split_one_huge_line():
    chunks = split_text("x" * 7000 + " tail")
    assert all(len(c) <= SECTION_LIMIT for c in chunks) and "".join(chunks).replace(" ", "").startswith("x" * 7000)


def test_pack_messages_limits():
    chunks = ["a" * 2900] * 40
    msgs = pack_messages(chunks)
    assert len(msgs) >= 3
    assert all(sum(len(c) for c in m) <= MESSAGE_LIMIT for m in msgs)
    assert sum(len(m) for m in msgs) == 40
    many = pack_messages(["x"] * 120)
    assert all(len(m) <= 48 for m in many)


def test_build_messages_blocks_and_feedback():
    from gpukb.slack.format import build_messages

    msgs = build_messages("para one\n\n" + ("long " * 700) + "\n\nlast", feedback_key="k1", context="ctx")
    assert msgs[0]["blocks"][0]["type"] == "context"
    sections = [b for m in msgs for b in m["blocks"] if b["type"] == "section"]
    assert all(len(b["text"]["text"]) <= SECTION_LIMIT for b in sections)
    actions = [b for b in msgs[-1]["blocks"] if b["type"] == "actions"]
    assert [e["action_id"] for e in actions[0]["elements"]] == ["gpukb_feedback_helpful", "gpukb_feedback_not_helpful"]
    assert all(e["value"] == "k1" for e in actions[0]["elements"])


# -- replies ---------------------------------------------------------------------


def _citation(n=1):
    from gpukb.engine import Citation

    return Citation(n=n, doc_id="tenancy-resourcequota-gpu", title="Cap GPUs", section="Example: cap team-a",
                    path="kb/multi-tenancy/resourcequota-gpu.md", anchor="example-cap-team-a",
                    source_urls=["https://kubernetes.io/docs/concepts/policy/resource-quotas/"])


def test_answer_text_has_sources_with_wiki_and_upstream_links(monkeypatch):
    from gpukb.engine import Answer
    from gpukb.slack.format import answer_text, refusal_text

    monkeypatch.setenv("GPUKB_WIKI_URL", "https://wiki.example.test/")
    ans = Answer(question="q", answer="a", refused=False, citations=[_citation()],
                 body="Create a **ResourceQuota** with `requests.nvidia.com/gpu: 8`. [1]")
    out = answer_text(ans)
    assert "*ResourceQuota*" in out and "[1]" in out
    assert "<https://wiki.example.test/?doc=tenancy-resourcequota-gpu#example-cap-team-a|Example: cap team-a> · _Cap GPUs_" in out
    assert "<https://kubernetes.io/docs/concepts/policy/resource-quotas/|" in out
    ref = Answer(question="sourdough", answer="x", refused=True, body="I don't know: the gpukb knowledge base does not cover this.",
                 closest=["Sizing ephemeral storage"])
    r = refusal_text(ref)
    assert "does not cover" in r and "Sizing ephemeral storage" in r and "Sources" not in r


def test_manifest_text_reports_unused_missing_and_status():
    from gpukb.slack.format import manifest_text

    m = {"recipe": "volcano-job", "title": "Volcano Job", "yaml": "kind: Job\n", "valid": False,
         "issues": [{"severity": "error", "message": "bad <field>", "path": "spec"}],
         "from_request": {"workers": 4}, "defaults": {"queue": "default"},
         "unused": ["with nvlink"], "missing": ["Which image?"]}
    out = manifest_text(m, heading="Manifest")
    assert "INVALID" in out and "`workers=4`" in out and "`queue=\"default\"`" in out
    assert "with nvlink" in out and "Which image?" in out and "bad &lt;field&gt;" in out
    assert out.endswith("```\nkind: Job\n```")


def test_extract_manifests_and_question_detection():
    from gpukb.slack.bot import clean_text, extract_manifests, looks_like_question

    text = ("<@UBOT> why is this pending?\n```apiVersion: v1\nkind: Pod\nmetadata:\n  name: x```\n"
            "and ```just code``` <https://example.org|here>")
    found, rest = extract_manifests(text)
    assert found == ["apiVersion: v1\nkind: Pod\nmetadata:\n  name: x"]
    assert "just code" not in rest and "pending" in rest
    assert clean_text(rest) == "why is this pending? and here"
    assert extract_manifests("```yaml\napiVersion: apps/v1\nkind: Deployment\n```")[0][0].startswith("apiVersion")
    assert extract_manifests("```kind: Pod```")[0] == []
    assert looks_like_question("pods stuck Pending after enabling MIG") and not looks_like_question("thanks a lot")


def test_parse_value_uses_the_parameter_schema():
    from types import SimpleNamespace

    from gpukb.errors import UsageError
    from gpukb.slack.bot import parse_value

    r = SimpleNamespace(id="r", properties={"workers": {"type": "integer"}, "ssh": {"type": "boolean"},
                                            "queue": {"type": "string"},
                                            "command": {"type": "array", "items": {"type": "string"}}})
    assert parse_value(r, "workers", "4") == 4
    assert parse_value(r, "ssh", "false") is False
    assert parse_value(r, "queue", "123") == "123"
    assert parse_value(r, "command", "python,train.py") == ["python", "train.py"]
    with pytest.raises(UsageError, match="did you mean 'workers'"):
        parse_value(r, "worker", "4")


# -- config, guards, logging ---------------------------------------------------------


def test_config_file(tmp_path):
    from gpukb.errors import ConfigError
    from gpukb.slack.config import load_config

    p = tmp_path / "slack.yaml"
    p.write_text("respond_to: mentions\nchannels:\n  C1: {respond_to: all}\nallowed_channels: [C1, C2]\n"
                 "rate_limit: {per_user: 5, window_seconds: 30}\n")
    cfg = load_config(p)
    assert cfg.mode("C1") == "all" and cfg.mode("C2") == "mentions"
    assert cfg.channel_allowed("C2") and not cfg.channel_allowed("C3")
    assert (cfg.rate_per_user, cfg.rate_window) == (5, 30)
    assert load_config(None).channel_allowed("anything")
    p.write_text("respond_to: everything\n")
    with pytest.raises(ConfigError, match="respond_to must be one of"):
        load_config(p)
    p.write_text("chanels: {}\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(p)


def test_ttl_set_and_rate_limiter():
    from gpukb.slack.guards import RateLimiter, TTLSet

    now = [0.0]
    seen = TTLSet(ttl=10, maxsize=3, clock=lambda: now[0])
    assert seen.add("e1") and not seen.add("e1")
    for k in ("e2", "e3", "e4"):
        seen.add(k)
    assert len(seen) == 3 and "e1" not in seen  # bounded: the oldest goes first
    now[0] = 11
    assert seen.add("e4")  # expired
    rl = RateLimiter(limit=2, window=60, clock=lambda: now[0])
    assert rl.hit("u") == 0 and rl.hit("u") == 0
    assert rl.hit("u") > 0 and rl.should_warn("u") and not rl.should_warn("u")
    assert rl.hit("v") == 0
    now[0] += 61
    assert rl.hit("u") == 0
    assert RateLimiter(limit=0).hit("u") == 0


def test_logs_never_show_tokens():
    import logging

    from gpukb.slack.runner import RedactingFormatter

    fmt = RedactingFormatter("%(message)s", ("s3cr3t-signing",))
    rec = logging.LogRecord("x", logging.INFO, __file__, 1, "token %s secret %s hdr %s",
                            ("xoxb-123-456-abc", "s3cr3t-signing", "{'Authorization': 'Bearer xyz123'}"), None)
    out = fmt.format(rec)
    assert "xoxb-123" not in out and "s3cr3t" not in out and "xyz123" not in out


# -- feedback store ------------------------------------------------------------------


def test_feedback_store_records_and_exports(tmp_path):
    from gpukb.config import load_settings
    from gpukb.feedback import FeedbackStore, default_path

    s = load_settings(home=tmp_path / "home")
    assert default_path(s) == tmp_path / "home" / "feedback.sqlite3"
    store = FeedbackStore(default_path(s))
    assert list(store.export()) == []
    key = store.remember("how do I cap GPUs", "Use a quota [1]", [_citation()], channel="C1")
    saved = store.recall(key)
    assert saved["question"] == "how do I cap GPUs" and saved["citations"][0]["doc_id"] == "tenancy-resourcequota-gpu"
    store.record(question=saved["question"], answer=saved["answer"], citations=saved["citations"],
                 verdict="helpful", source="slack", user="U1", answer_key=key)
    store.record(question=saved["question"], answer=saved["answer"], citations=saved["citations"],
                 verdict="not_helpful", source="slack", user="U1", answer_key=key)  # U1 changed their mind
    store.record(question="q2", answer="a2", verdict="helpful", source="app")
    rows = list(store.export())
    assert [r["verdict"] for r in rows] == ["not_helpful", "helpful"]
    assert rows[0]["citations"][0]["anchor"] == "example-cap-team-a" and rows[0]["time"]
    assert store.counts(key) == (0, 1)
    res = subprocess.run(gpukb_cmd("feedback", "export", "--home", str(tmp_path / "home")),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert [x["question"] for x in lines] == ["how do I cap GPUs", "q2"]


def test_slack_command_needs_tokens(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    res = subprocess.run(gpukb_cmd("slack"), env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stderr.startswith("Error: SLACK_BOT_TOKEN") and len(res.stderr.splitlines()) == 1
    env["SLACK_BOT_TOKEN"] = "xoxb-test"
    res = subprocess.run(gpukb_cmd("slack"), env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "SLACK_SIGNING_SECRET" in res.stderr and "xoxb" not in res.stderr


# -- a fake Slack Web API ---------------------------------------------------------------

BOT_TOKEN = "xoxb-0000-test-bot-token"
SIGNING_SECRET = "fake-signing-secret-for-tests"


class FakeSlack:
    """Records Web API calls and response_url posts; answers like Slack would."""

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []
        self.threads: dict[tuple[str, str], list[dict]] = {}
        self._lock = threading.Lock()
        self._n = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _reply(self, status, body, ctype="application/json"):
                data = (json.dumps(body) if not isinstance(body, str) else body).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path, _, query = self.path.partition("?")
                params = {k: v[0] for k, v in urllib.parse.parse_qs(query).items()}
                if path.startswith("/upload/"):
                    fake.record("upload", {"file_id": path.rsplit("/", 1)[1], "bytes": len(raw)})
                    return self._reply(200, "OK", "text/plain")
                text = raw.decode("utf-8", "replace")
                if "json" in (self.headers.get("Content-Type") or ""):
                    params.update(json.loads(text or "{}"))
                else:
                    params.update({k: v[0] for k, v in urllib.parse.parse_qs(text).items()})
                if path.startswith("/response/"):
                    params["response_id"] = path.rsplit("/", 1)[1]
                    fake.record("response_url", params)
                    return self._reply(200, "ok", "text/plain")
                if not path.startswith("/api/"):
                    return self._reply(404, {"ok": False, "error": "unknown_path"})
                method = path[len("/api/"):]
                auth = self.headers.get("Authorization") or ""
                if not auth.endswith(BOT_TOKEN) and params.get("token") != BOT_TOKEN:
                    return self._reply(200, {"ok": False, "error": "invalid_auth"})
                self._reply(200, fake.answer(method, params))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.api_url = self.base + "/api/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def record(self, method, params):
        with self._lock:
            self.calls.append((method, params))

    def answer(self, method, p):
        self.record(method, p)
        if method == "auth.test":
            return {"ok": True, "url": "https://fake.slack.test/", "team": "Fake", "user": "gpukb",
                    "team_id": "T0001", "user_id": "UBOT", "bot_id": "BBOT"}
        if method == "chat.postMessage":
            with self._lock:
                self._n += 1
                ts = f"{int(time.time())}.{self._n:06d}"
            return {"ok": True, "channel": p.get("channel"), "ts": ts,
                    "message": {"text": p.get("text"), "ts": ts, "bot_id": "BBOT"}}
        if method == "chat.update":
            return {"ok": True, "channel": p.get("channel"), "ts": p.get("ts")}
        if method in ("reactions.add", "reactions.remove"):
            return {"ok": True}
        if method == "conversations.replies":
            msgs = self.threads.get((p.get("channel"), p.get("ts")), [])
            return {"ok": True, "messages": msgs, "has_more": False}
        if method == "files.getUploadURLExternal":
            return {"ok": True, "upload_url": f"{self.base}/upload/F0001", "file_id": "F0001"}
        if method == "files.completeUploadExternal":
            files = p.get("files")
            files = json.loads(files) if isinstance(files, str) else files
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in files]}
        return {"ok": False, "error": "unknown_method"}

    def find(self, method, **match):
        with self._lock:
            calls = list(self.calls)
        return [p for m, p in calls if m == method and all(p.get(k) == v for k, v in match.items())]

    def wait(self, method, timeout=60.0, count=1, **match):
        end = time.time() + timeout
        while time.time() < end:
            got = self.find(method, **match)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"no {method} {match} within {timeout}s; calls: {[m for m, _ in self.calls]}")

    def index_of(self, method, **match):
        with self._lock:
            for i, (m, p) in enumerate(self.calls):
                if m == method and all(p.get(k) == v for k, v in match.items()):
                    return i
        return -1


class BotClient:
    def __init__(self, port: int, fake: FakeSlack):
        self.url = f"http://127.0.0.1:{port}/slack/events"
        self.fake = fake
        self._n = 0

    def ts(self) -> str:
        self._n += 1
        return f"{int(time.time())}.{100000 + self._n:06d}"

    def post(self, body: str, content_type: str, *, secret: str = SIGNING_SECRET, headers: dict | None = None):
        stamp = str(int(time.time()))
        sig = "v0=" + hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
        h = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": sig,
             **(headers or {})}
        req = urllib.request.Request(self.url, data=body.encode(), headers=h, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def event(self, event: dict, *, event_id: str | None = None, headers: dict | None = None, **kw):
        self._n += 1
        body = {"token": "legacy", "team_id": "T0001", "api_app_id": "A0001", "type": "event_callback",
                "event_id": event_id or f"Ev{self._n:08d}", "event_time": int(time.time()), "event": event,
                "authorizations": [{"team_id": "T0001", "user_id": "UBOT", "is_bot": True}]}
        return self.post(json.dumps(body), "application/json", headers=headers, **kw)

    def mention(self, text: str, *, channel="CMAIN", user="U0001", ts=None, thread_ts=None, **kw):
        ts = ts or self.ts()
        ev = {"type": "app_mention", "user": user, "text": f"<@UBOT> {text}", "ts": ts, "channel": channel,
              "event_ts": ts}
        if thread_ts:
            ev["thread_ts"] = thread_ts
        status, _ = self.event(ev, **kw)
        return status, ts

    def form(self, fields: dict):
        return self.post(urllib.parse.urlencode(fields), "application/x-www-form-urlencoded")

    def reply(self, ts: str, timeout=60.0) -> dict:
        """The bot's threaded reply to the message ``ts`` (waits for the reaction to go)."""
        self.fake.wait("reactions.remove", timeout=timeout, timestamp=ts)
        got = self.fake.find("chat.postMessage", thread_ts=ts)
        assert got, f"no reply in thread {ts}"
        return got[0]


@pytest.fixture(scope="module")
def slack_bot(real_index_home, tmp_path_factory):
    """``gpukb slack`` over the real index, talking to a fake Slack."""
    fake = FakeSlack()
    tmp = tmp_path_factory.mktemp("slack")
    cfg = tmp / "slack.yaml"
    cfg.write_text("respond_to: mentions\nchannels:\n  CALL: {respond_to: all}\n"
                   "allowed_channels: [CMAIN, CALL]\nrate_limit: {per_user: 4, window_seconds: 60}\n")
    port = _free_port()
    env = {**os.environ, "GPUKB_HOME": str(real_index_home), "GPUKB_ROOT": str(REPO),
           "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake.api_url,
           "GPUKB_WIKI_URL": "https://wiki.example.test"}
    env.pop("SLACK_APP_TOKEN", None)
    log_path = tmp / "bot.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(gpukb_cmd("slack", "--port", str(port), "--config", str(cfg)), env=env,
                            stdout=log, stderr=subprocess.STDOUT, cwd=str(tmp))
    deadline = time.time() + 300
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"gpukb slack exited {proc.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.time() > deadline:
            proc.kill()
            raise AssertionError(f"gpukb slack did not start:\n{log_path.read_text()}")
        time.sleep(0.3)
    client = BotClient(port, fake)
    client.home = real_index_home
    client.log_path = log_path
    client.env = env
    yield client
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()
    text = log_path.read_text()
    assert BOT_TOKEN not in text and SIGNING_SECRET not in text, "a secret reached the log"
    assert "Traceback" not in text, text
    assert text.count("engine loaded") == 1  # the model and index load once per process
    fake.server.shutdown()


def _answer_texts(msg: dict) -> str:
    blocks = msg.get("blocks")
    blocks = json.loads(blocks) if isinstance(blocks, str) else (blocks or [])
    return "\n".join(b["text"]["text"] for b in blocks if b.get("type") == "section")


@pytest.mark.slow
def test_bad_signature_is_rejected(slack_bot):
    ev = {"type": "app_mention", "user": "U0009", "text": "<@UBOT> hi", "ts": slack_bot.ts(), "channel": "CMAIN"}
    status, _ = slack_bot.event(ev, secret="not-the-secret")
    assert status == 401
    time.sleep(0.5)
    assert not slack_bot.fake.find("reactions.add", timestamp=ev["ts"])


@pytest.mark.slow
def test_mention_gets_threaded_cited_answer(slack_bot):
    fake = slack_bot.fake
    status, ts = slack_bot.mention("how do I cap team-a at 8 GPUs", user="U0001")
    assert status == 200
    reply = slack_bot.reply(ts)
    assert reply["channel"] == "CMAIN" and reply["thread_ts"] == ts
    text = reply["text"]
    assert re.search(r"\[\d\]", text)
    assert "requests.nvidia.com/gpu" in text
    assert "*Sources*" in text
    assert re.search(r"<https://wiki\.example\.test/\?doc=[\w-]+#[\w-]+\|[^>]+>", text)
    assert re.search(r"upstream: <https://", text)
    assert "**" not in text and "](" not in text  # Markdown converted
    blocks = reply["blocks"]
    assert all(len(b["text"]["text"]) <= 3000 for b in blocks if b["type"] == "section")
    assert any(b["type"] == "actions" for b in blocks)
    # :eyes: added before the reply, removed after it
    add = fake.index_of("reactions.add", timestamp=ts, name="eyes")
    post = fake.index_of("chat.postMessage", thread_ts=ts)
    remove = fake.index_of("reactions.remove", timestamp=ts, name="eyes")
    assert 0 <= add < post < remove


@pytest.mark.slow
def test_retried_event_is_answered_once(slack_bot):
    ts = slack_bot.ts()
    ev = {"type": "app_mention", "user": "U0002", "text": "<@UBOT> time-slicing or MIG for notebooks?", "ts": ts,
          "channel": "CMAIN", "event_ts": ts}
    assert slack_bot.event(ev, event_id="EvRETRY0001")[0] == 200
    retry = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
    assert slack_bot.event(ev, event_id="EvRETRY0001", headers=retry)[0] == 200
    slack_bot.reply(ts)
    time.sleep(1.5)
    assert slack_bot.event(ev, event_id="EvRETRY0001", headers={"X-Slack-Retry-Num": "2"})[0] == 200
    time.sleep(1.0)
    assert len(slack_bot.fake.find("chat.postMessage", thread_ts=ts)) == 1
    assert len(slack_bot.fake.find("reactions.add", timestamp=ts)) == 1


@pytest.mark.slow
def test_out_of_scope_question_is_declined_without_sources(slack_bot):
    _, ts = slack_bot.mention("what's a good sourdough recipe", user="U0003")
    text = slack_bot.reply(ts)["text"]
    assert "does not cover" in text
    assert "Sources" not in text and "?doc=" not in text and not re.search(r"\[\d\]", text)
    assert "closest topics" in text.lower()


@pytest.mark.slow
def test_thread_followup_uses_the_first_question(slack_bot):
    fake = slack_bot.fake
    root = slack_bot.ts()
    fake.threads[("CMAIN", root)] = [
        {"type": "message", "user": "U0004", "text": "<@UBOT> how do I cap team-a at 8 GPUs", "ts": root},
        {"type": "message", "bot_id": "BBOT", "user": "UBOT", "text": "Create a ResourceQuota [1]", "ts": root + "1"},
    ]
    _, ts = slack_bot.mention("and with a LimitRange?", user="U0004", thread_ts=root)
    fake.wait("reactions.remove", timestamp=ts)
    assert fake.find("conversations.replies", channel="CMAIN", ts=root)
    got = fake.find("chat.postMessage", thread_ts=root)
    assert got, "the follow-up is answered in the same thread"
    blocks = got[-1]["blocks"]
    assert blocks[0]["type"] == "context" and "cap team-a" in blocks[0]["elements"][0]["text"]


@pytest.mark.slow
def test_channel_modes_and_allowed_channels(slack_bot):
    fake = slack_bot.fake
    # not in allowed_channels: ignored
    _, ts_nope = slack_bot.mention("how do I cap team-a at 8 GPUs", channel="CNOPE", user="U0005")
    # a plain question in a mentions-only channel: ignored
    ts_plain = slack_bot.ts()
    slack_bot.event({"type": "message", "channel_type": "channel", "channel": "CMAIN", "user": "U0005",
                     "text": "why are my pods pending on nvidia.com/gpu?", "ts": ts_plain})
    # a plain question in a respond-to-all channel: answered
    ts_all = slack_bot.ts()
    slack_bot.event({"type": "message", "channel_type": "channel", "channel": "CALL", "user": "U0005",
                     "text": "why are my pods pending with Insufficient nvidia.com/gpu?", "ts": ts_all})
    # small talk in that channel: ignored
    ts_chat = slack_bot.ts()
    slack_bot.event({"type": "message", "channel_type": "channel", "channel": "CALL", "user": "U0005",
                     "text": "thanks, that worked", "ts": ts_chat})
    assert slack_bot.reply(ts_all)["channel"] == "CALL"
    time.sleep(1.0)
    for ts in (ts_nope, ts_plain, ts_chat):
        assert not fake.find("chat.postMessage", thread_ts=ts)
        assert not fake.find("reactions.add", timestamp=ts)


@pytest.mark.slow
def test_rate_limit_per_user(slack_bot):
    fake = slack_bot.fake
    stamps = []
    for i in range(5):  # the limit is 4 per minute
        _, ts = slack_bot.mention(f"how do I cap team-a at {i + 1} GPUs", user="URATE")
        stamps.append(ts)
    deadline = time.time() + 60
    while time.time() < deadline and sum(bool(fake.find("chat.postMessage", thread_ts=t)) for t in stamps) < 5:
        time.sleep(0.1)
    texts = [fake.find("chat.postMessage", thread_ts=t)[0]["text"] for t in stamps]
    limited = [t for t in texts if "limit of 4 requests" in t]
    assert len(limited) == 1 and sum("[1]" in t for t in texts) == 4


@pytest.mark.slow
def test_pasted_broken_yaml_gets_lint_findings(slack_bot):
    ts = slack_bot.ts()
    text = ("can someone check this pod?\n```apiVersion: v1\nkind: Pod\nmetadata:\n  name: trainer\nspec:\n"
            "  containers:\n    - name: cuda\n      image: nvidia/cuda:12.4.0-base-ubuntu22.04\n      resources:\n"
            "        requests:\n          nvidia.com/gpu: 0.5\n```")
    status, _ = slack_bot.event({"type": "message", "channel_type": "im", "channel": "D0001", "user": "U0006",
                                 "text": text, "ts": ts})
    assert status == 200
    reply = slack_bot.reply(ts)
    assert reply["channel"] == "D0001" and reply["thread_ts"] == ts
    assert "Lint of the pasted manifest" in reply["text"]
    assert "gpu-fractional" in reply["text"] and "gpu-request-without-limit" in reply["text"]
    assert "?doc=device-plugin-requesting-gpus" in reply["text"]


@pytest.mark.slow
def test_slash_generate_is_acked_fast_and_posts_manifest(slack_bot):
    fake = slack_bot.fake
    fields = {"token": "legacy", "team_id": "T0001", "channel_id": "CMAIN", "user_id": "U0007",
              "command": "/gpukb", "text": "generate volcano job, 4 workers x 8 GPUs, queue research",
              "response_url": f"{fake.base}/response/gen1", "trigger_id": "1.2.3"}
    t0 = time.perf_counter()
    status, body = slack_bot.form(fields)
    elapsed = time.perf_counter() - t0
    assert status == 200 and elapsed < 3.0
    assert "Working on" in json.loads(body)["text"]
    got = fake.wait("response_url", response_id="gen1")[0]
    assert got["response_type"] == "in_channel"
    assert "```" in got["text"] and "kind: Job" in got["text"] and "queue: research" in got["text"]
    assert "volcano-job" in got["text"] and ":white_check_mark: valid" in got["text"]


@pytest.mark.slow
def test_slash_recipe_long_manifest_is_uploaded(slack_bot):
    from gpukb import load_recipes, render_recipe
    from gpukb.slack.format import MANIFEST_INLINE_LIMIT

    long_one = next((r for r in load_recipes(REPO / "recipes")
                     if len(render_recipe(r, {}, validate=False).yaml) > MANIFEST_INLINE_LIMIT + 200), None)
    if long_one is None:
        pytest.skip("no recipe renders a long manifest")
    fake = slack_bot.fake
    fields = {"team_id": "T0001", "channel_id": "CMAIN", "user_id": "U0008", "command": "/gpukb",
              "text": f"recipe {long_one.id}", "response_url": f"{fake.base}/response/rec1", "trigger_id": "1"}
    status, _ = slack_bot.form(fields)
    assert status == 200
    got = fake.wait("response_url", response_id="rec1")[0]
    assert "attached as a file" in got["text"]
    assert fake.find("files.getUploadURLExternal") and fake.find("upload")
    done = fake.find("files.completeUploadExternal")
    assert done and done[-1]["channel_id"] == "CMAIN"
    # help is answered in the acknowledgement itself
    status, body = slack_bot.form({**fields, "text": "help"})
    assert status == 200 and "/gpukb generate" in json.loads(body)["text"]


@pytest.mark.slow
def test_feedback_click_is_stored_and_exported(slack_bot):
    fake = slack_bot.fake
    _, ts = slack_bot.mention("how much ephemeral storage should a model pod request", user="U0010")
    reply = slack_bot.reply(ts)
    actions = next(b for b in reply["blocks"] if b["type"] == "actions")
    helpful = next(e for e in actions["elements"] if e["action_id"] == "gpukb_feedback_helpful")
    payload = {"type": "block_actions", "user": {"id": "U0010"}, "team": {"id": "T0001"}, "api_app_id": "A0001",
               "container": {"type": "message", "message_ts": "1.000001", "channel_id": "CMAIN", "is_ephemeral": False},
               "channel": {"id": "CMAIN"},
               "message": {"ts": "1.000001", "text": reply["text"], "blocks": reply["blocks"]},
               "response_url": f"{fake.base}/response/fb1", "trigger_id": "2",
               "actions": [{"type": "button", "action_id": "gpukb_feedback_helpful", "block_id": "gpukb_feedback",
                            "value": helpful["value"], "action_ts": str(time.time())}]}
    status, _ = slack_bot.form({"payload": json.dumps(payload)})
    assert status == 200
    upd = fake.wait("chat.update", ts="1.000001")[0]
    assert "feedback recorded" in json.dumps(upd["blocks"])
    res = subprocess.run(gpukb_cmd("feedback", "export"), env=slack_bot.env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    mine = [r for r in rows if r["answer_key"] == helpful["value"]]
    assert len(mine) == 1
    rec = mine[0]
    assert rec["verdict"] == "helpful" and rec["source"] == "slack" and rec["channel"] == "CMAIN"
    assert rec["question"] == "how much ephemeral storage should a model pod request"
    assert rec["answer"] and rec["citations"] and rec["citations"][0]["doc_id"] and rec["time"]
