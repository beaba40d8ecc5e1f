"""The Streamlit Ask page.

Fast tests drive the page in-process with ``streamlit.testing`` and a fake
engine. The slow test starts ``streamlit run app.py`` on the session's real
index (``real_index_home`` from conftest) and drives Debian's Chromium with
Playwright (no browser is ever downloaded).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("streamlit")

from gpukb.engine import REFUSAL, Answer, Citation  # noqa: E402
from gpukb.errors import IndexMismatchError, IndexMissingError, UsageError  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = Path("/tmp/gpukb-ask.png")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _cite(n=1, **kw):
    base = dict(n=n, doc_id="device-plugin-requesting-gpus", title="Requesting GPUs",
                section="Limits only", path="kb/device-plugin/requesting-gpus.md",
                source_urls=["https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/"],
                anchor="limits-only", area="device-plugin")
    base.update(kw)
    return Citation(**base)


def test_citation_label_and_location():
    from gpukb.app.ask import citation_label, citation_location

    c = _cite(n=2)
    assert citation_label(c) == "[2] Requesting GPUs — Limits only"
    assert citation_location(c) == "kb/device-plugin/requesting-gpus.md#limits-only"
    whole = _cite(section="Requesting GPUs", anchor="")
    assert citation_label(whole) == "[1] Requesting GPUs"
    assert citation_location(whole) == "kb/device-plugin/requesting-gpus.md"


def test_answer_markdown_drops_relative_links_only():
    from gpukb.app.ask import answer_markdown

    body = ("See [LimitRange](limitrange.md) and [docs](https://kubernetes.io/x) "
            "and [here](#anchor) [1]")
    out = answer_markdown(body)
    assert "limitrange.md" not in out and "LimitRange and" in out
    assert "[docs](https://kubernetes.io/x)" in out
    assert "[here](#anchor)" in out and out.endswith("[1]")


def test_escape_label_keeps_text_literal():
    from gpukb.app.ask import escape_label

    assert escape_label("[1] a_b *c*") == r"\[1\] a\_b \*c\*"


def test_section_text_looks_up_doc_and_anchor():
    from gpukb.app.ask import section_text

    sections = {"device-plugin-requesting-gpus#limits-only": {"text": "Set limits only."}}
    engine = SimpleNamespace(index=SimpleNamespace(sections=sections))
    assert section_text(engine, _cite()) == "Set limits only."
    assert section_text(engine, _cite(anchor="other")) == ""

    class Broken:
        @property
        def sections(self):
            raise OSError("gone")

    assert section_text(SimpleNamespace(index=Broken()), _cite()) == ""


def test_index_hint_names_the_next_step():
    from gpukb.app.state import index_hint

    assert "gpukb ingest" in index_hint(IndexMissingError("no index"))
    assert "--rebuild" in index_hint(IndexMismatchError("stale"))
    assert index_hint(UsageError("x")) is None


# ---------------------------------------------------------------------------
# in-process page tests (streamlit.testing, fake engine)
# ---------------------------------------------------------------------------

class FakeEngine:
    def __init__(self, answers=None, error=None):
        self.answers = answers or {}
        self.error = error
        self.calls = []
        self.index = SimpleNamespace(sections={
            "device-plugin-requesting-gpus#limits-only": {"text": "SECTION-TEXT limits only"}})

    def ask(self, question, *, area=None, **kw):
        self.calls.append((question, area))
        if self.error:
            raise self.error
        return self.answers[question]


def _page_script():
    from gpukb.app.ask import render

    render()


@pytest.fixture
def page(monkeypatch):
    from streamlit.testing.v1 import AppTest

    def make(engine=None, engine_error=None):
        def get_engine():
            if engine_error is not None:
                raise engine_error
            return engine

        monkeypatch.setattr("gpukb.app.state.get_engine", get_engine)
        at = AppTest.from_function(_page_script, default_timeout=30)
        return at.run()

    return make


def _submit(at, question, area=None):
    at.text_input[0].input(question)
    if area:
        at.selectbox[0].select(area)
    at.button[0].click()
    return at.run()


def _all_markdown(at):
    return "\n".join(m.value for m in at.markdown)


def test_page_answers_with_sources_recipes_and_manifest(page):
    ans = Answer(question="q", answer="", refused=False, body="Set `nvidia.com/gpu` in limits. [1]",
                 citations=[_cite()], recipes=[{"id": "pod-gpu", "title": "Pod with GPUs"}],
                 manifest={"recipe": "pod-gpu", "params": {}, "yaml": "kind: Pod\n", "valid": True, "issues": []},
                 seconds=0.01)
    engine = FakeEngine({"one gpu": ans})
    at = page(engine)
    assert not at.exception and not at.error
    at = _submit(at, "one gpu", area="device-plugin")
    assert engine.calls == [("one gpu", "device-plugin")]
    assert not at.exception
    md = _all_markdown(at)
    assert "nvidia.com/gpu" in md and "[1]" in md
    assert [h.value for h in at.subheader] == ["Sources", "Recipes", "Manifest"]
    assert len(at.expander) == 1 and at.expander[0].label.startswith(r"\[1\] Requesting GPUs")
    assert "kb/device-plugin/requesting-gpus.md#limits-only" in md
    assert "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/" in md
    assert "SECTION-TEXT limits only" in md
    assert "pod-gpu" in md
    assert at.code[0].value.strip() == "kind: Pod" and at.code[0].language == "yaml"
    assert at.success and not at.info


def test_page_refusal_shows_closest_topics_and_no_sources(page):
    ans = Answer(question="q", answer=REFUSAL, refused=True, body=REFUSAL, closest=["Storage choices"])
    at = _submit(page(FakeEngine({"sourdough": ans})), "sourdough")
    assert not at.exception
    assert len(at.info) == 1 and "don't know" in at.info[0].value and "Storage choices" in at.info[0].value
    assert not at.expander and not at.subheader


def test_page_shows_engine_errors_as_one_line(page):
    at = _submit(page(FakeEngine(error=UsageError("the question is empty"))), "x")
    assert not at.exception
    assert [e.value for e in at.error] == ["the question is empty"]

    at = _submit(page(FakeEngine(error=RuntimeError("boom\nsecond line"))), "x")
    assert not at.exception
    assert [e.value for e in at.error] == ["RuntimeError: boom"]


def test_page_reports_missing_index_without_traceback(page):
    at = page(engine_error=IndexMissingError("no index at /x; run `gpukb ingest` first"))
    assert not at.exception
    assert [e.value for e in at.error] == ["no index at /x; run `gpukb ingest` first"]
    assert "make ingest" in at.info[0].value
    assert not at.text_input  # nothing to ask without an index


def test_page_blank_question_warns(page):
    engine = FakeEngine({})
    at = _submit(page(engine), "   ")
    assert engine.calls == [] and at.warning and not at.exception


# ---------------------------------------------------------------------------
# the real app in a browser
# ---------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url(real_index_home, tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing; install it with `apt-get install -y chromium`")
    pytest.importorskip("playwright.sync_api")
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    env = {**os.environ, "GPUKB_HOME": str(real_index_home), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not become healthy: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


@pytest.fixture(scope="module")
def browser(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.mark.slow
def test_ask_page_in_browser(app_url, browser):
    from playwright.sync_api import expect

    expect.set_options(timeout=120_000)  # the first run loads the model
    page = browser.new_page(viewport={"width": 1200, "height": 2600})
    page.set_default_timeout(120_000)
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Ask gpukb")).to_be_visible()
    box = page.get_by_label("Question")
    expect(box).to_be_visible()  # the engine loaded (model + index) without error
    expander = page.locator('[data-testid="stExpander"]')
    main = page.locator('[data-testid="stMain"]')

    # an answerable question: cited answer and a Sources part
    box.fill("how do I give a pod one GPU")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.get_by_role("heading", name="Sources")).to_be_visible()
    expect(expander.first).to_be_visible()
    assert expander.count() >= 1
    expect(expander.first).to_contain_text("[1]")
    text = main.inner_text()
    assert "nvidia.com/gpu" in text and "[1]" in text
    expander.first.locator("summary").click()
    expect(expander.first).to_contain_text(".md#")
    assert expander.first.locator('a[href^="https://"]').count() >= 1
    expect(expander.first.locator("hr")).to_have_count(1)  # the section text follows the links
    page.wait_for_timeout(500)  # let the expander finish opening before the screenshot
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    # an off-topic question: "don't know", and the old sources are gone
    box.fill("best sourdough hydration")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(main).to_contain_text("don't know")
    expect(expander).to_have_count(0)
    expect(page.get_by_role("heading", name="Sources")).to_have_count(0)
    assert "Traceback" not in main.inner_text()
    page.screenshot(path=str(SCREENSHOT.with_name("gpukb-ask-refused.png")), full_page=True)
    page.close()
