"""The real app in a real browser.

Starts ``streamlit run app.py`` on a free port with the session's real index
(``real_index_home``: the bundled KB, built in a temporary GPUKB_HOME) and
drives Debian's Chromium with Playwright (no browser is ever downloaded).
Each page is screenshotted into ``tests/screenshots/``.

Without Chromium or Playwright the tests skip, except in CI (``CI`` set),
where they fail: the browser is part of the test environment there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import HALF_GPU_POD, free_port as _free_port

pytest.importorskip("streamlit")

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("GPUKB_CHROMIUM", "/usr/bin/chromium"))
SHOTS = REPO / "tests" / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
LONG = 240_000  # ms; the first answer loads the model on a busy 2-core machine


pytestmark = pytest.mark.slow


def _unavailable(reason: str):
    """Skip locally, fail in CI."""
    if os.environ.get("CI"):
        pytest.fail(f"browser test cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def playwright_api():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install 'gpukb[test]')")
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing; install it with `apt-get install -y chromium`")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_api):
    try:
        b = playwright_api.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    except Exception as exc:
        _unavailable(f"chromium does not start: {str(exc).splitlines()[0]}")
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def app_url(browser, request, tmp_path_factory):
    """The app served by ``streamlit run app.py``. The index (session-wide, slow
    to build) is requested only once the browser is known to start."""
    real_index_home = request.getfixturevalue("real_index_home")
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    env = {**os.environ, "GPUKB_HOME": str(real_index_home), "GPUKB_ROOT": str(REPO), "PYTHONUNBUFFERED": "1",
           "GPUKB_WIKI_URL": f"http://127.0.0.1:{port}"}
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
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
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]


@pytest.fixture
def page(browser, app_url):
    from playwright.sync_api import expect

    expect.set_options(timeout=LONG)
    pg = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg.set_default_timeout(LONG)
    yield pg
    assert pg.locator('[data-testid="stException"]').count() == 0
    pg.close()


def _shot(page, name: str, *, whole: bool = True) -> None:
    """Screenshot the page; ``whole``: grow the viewport to the app's scrolling
    content first (Streamlit scrolls inside its main container, not the page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    _idle(page)
    page.wait_for_timeout(600)  # let expanders and fonts settle
    size = page.viewport_size
    if whole:
        height = page.evaluate("""() => {
            const el = document.querySelector('[data-testid="stAppScrollToBottomContainer"]')
                || document.querySelector('[data-testid="stMain"]');
            return el ? el.scrollHeight : document.body.scrollHeight; }""")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height) + 40, 6000))})
        page.wait_for_timeout(400)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size(size)


def _main(page):
    return page.locator('[data-testid="stMainBlockContainer"]')


def _idle(page) -> None:
    """Wait until the script run is over: no running indicator, no stale elements."""
    page.wait_for_timeout(300)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=LONG)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=LONG)


def test_ask_cites_expands_and_deep_links_into_the_wiki(page, app_url):
    from playwright.sync_api import expect

    page.goto(app_url)
    expect(page.get_by_role("heading", name="Ask gpukb")).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("Generation:")  # an index is published (current, or stale if the KB moved on)
    expect(sidebar).not_to_contain_text("No index yet")
    box = page.get_by_test_id("stChatInputTextArea")
    expect(box).to_be_visible()  # the engine loaded (model + index) without error
    box.fill("how do I give a pod one GPU")
    box.press("Enter")
    sources = page.get_by_test_id("stExpander")
    expect(sources.first).to_be_visible()
    expect(sources.first).to_contain_text("[1]")
    answer = page.get_by_test_id("stChatMessage").nth(1)
    expect(answer).to_contain_text("nvidia.com/gpu")
    citation = answer.get_by_role("link", name="[1]").first
    expect(citation).to_have_attribute("href", re.compile(r"/\?doc=[a-z0-9-]+"))

    sources.first.locator("summary").click()
    wiki = sources.first.get_by_role("link", name="Open in the wiki")
    expect(wiki).to_be_visible()
    assert sources.first.locator('a[href^="https://"]').count() >= 1
    expect(sources.first.locator("hr")).to_have_count(1)  # the section text follows the links
    _shot(page, "ask")

    href = wiki.get_attribute("href")
    assert href.startswith("/?doc=") and "#" in href
    doc_id, anchor = href.split("=", 1)[1].split("#", 1)

    # the cited section opens by its deep link, on the Wiki page
    page.goto(app_url + href)
    expect(page.locator(f'[id="{anchor}"]')).to_be_attached()
    expect(_main(page)).to_contain_text("Reviewed:")
    expect(_main(page)).to_contain_text("Sources")
    page.wait_for_timeout(1500)  # code blocks render lazily and shift the layout
    page.locator(f'[id="{anchor}"]').scroll_into_view_if_needed()
    _shot(page, "wiki-doc", whole=False)  # the viewport: the cited section scrolled into view

    # an off-topic question is declined
    page.goto(app_url)
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill("best sourdough hydration")
    box.press("Enter")
    expect(_main(page)).to_contain_text("I don't know")
    expect(page.get_by_test_id("stExpander")).to_have_count(0)
    _shot(page, "ask-refused")


def test_wiki_search_and_unknown_id(page, app_url):
    from playwright.sync_api import expect

    page.goto(f"{app_url}/wiki")
    expect(page.get_by_role("heading", name="Wiki", exact=True)).to_be_visible()
    search = page.get_by_label("Search the wiki")
    search.fill("renameByDefault")
    search.press("Enter")
    expect(_main(page)).to_contain_text("doc(s)")  # the hit list replaced the browse list
    hit = page.get_by_role("button", name="GPU time-slicing", exact=False).first
    expect(hit).to_be_visible()
    _shot(page, "wiki-search")
    hit.click()
    expect(page.get_by_role("heading", name="GPU time-slicing", exact=False).first).to_be_visible()
    assert "doc=sharing-time-slicing" in page.url

    page.goto(f"{app_url}/?doc=..%2F..%2Fetc%2Fpasswd")
    expect(_main(page)).to_contain_text("There is no wiki page with the id")


def test_recipe_form_fills_and_downloads(page, app_url):
    from playwright.sync_api import expect

    page.goto(f"{app_url}/recipes")
    expect(page.get_by_role("heading", name="Recipes", exact=True)).to_be_visible()
    request = page.get_by_label("Describe the manifest you want")
    request.fill("volcano job, 4 workers x 8 GPUs, queue research")
    request.press("Enter")
    _idle(page)
    page.get_by_role("button", name="Fill the form").click()
    expect(_main(page)).to_contain_text("Filled")
    workers = page.get_by_role("spinbutton", name="workers")
    expect(workers).to_have_value("4")
    workers.fill("2")
    workers.press("Enter")
    code = page.get_by_test_id("stCode").first
    expect(code).to_contain_text("minAvailable: 2")
    expect(code).to_contain_text("queue: research")
    _shot(page, "recipes")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download YAML").click()
    path = dl.value.path()
    text = Path(path).read_text()
    assert dl.value.suggested_filename == "volcano-job.yaml"
    assert "kind: Job" in text and "minAvailable: 2" in text


def test_validate_shows_the_finding_of_a_broken_manifest(page, app_url):
    from playwright.sync_api import expect

    page.goto(f"{app_url}/validate")
    expect(page.get_by_role("heading", name="Validate manifests")).to_be_visible()
    area = page.get_by_label("YAML manifests")
    area.fill(HALF_GPU_POD)
    area.press("Control+Enter")
    expect(_main(page)).to_contain_text("Fix:")
    expect(_main(page)).to_contain_text("error(s)")
    assert _main(page).locator('a[href*="?doc="]').count() >= 1
    _shot(page, "validate")
