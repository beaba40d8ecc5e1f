"""``gpukb wiki build DIR``: the static MkDocs site of the KB."""

from __future__ import annotations

import datetime as dt
import json
import os
import posixpath
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlsplit

import pytest

from conftest import REPO, gpukb_cmd


class _Page(HTMLParser):
    """Element ids and link targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href") is not None:
            self.links.append(a["href"])


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _target(site: Path, page: Path, href: str) -> tuple[Path, str] | None:
    """The file and fragment a site-internal link points to (None when external)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    if not parts.path:
        return page, unquote(parts.fragment)
    base = "" if parts.path.startswith("/") else page.parent.relative_to(site).as_posix()
    rel = posixpath.normpath(posixpath.join(base, unquote(parts.path).lstrip("/")))
    dest = site / rel
    if parts.path.endswith("/") or dest.is_dir():
        dest = dest / "index.html"
    return dest, unquote(parts.fragment)


def test_page_markdown_shows_facts_and_rewrites_links():
    from gpukb.knowledge import anchor_for
    from gpukb.wiki import _page_markdown, doc_index

    body = ("# T\n\nIntro, see [other](../b/other.md#x-y) and [web](https://example.org).\n\n"
            "## Use `requests.nvidia.com/gpu` — quota_limits {x}\n\nText [self](#use).\n\n"
            "```bash\n# comment, not a heading\n```\n")
    d = SimpleNamespace(id="doc-a", title="T", area="a", tags=["t1"], sources=["https://example.org/s"],
                        reviewed="2020-01-01", applies_to={"kubernetes": "1.30+"}, aliases=[],
                        path="kb/a/doc.md", body=body)
    other = SimpleNamespace(id="doc-b", path="kb/b/other.md")
    md = _page_markdown(d, doc_index([d, other]), dt.date(2026, 11, 30), 365)
    assert "| Reviewed | 2020-01-01 |" in md and "| Applies to | kubernetes 1.30+ |" in md
    assert '!!! warning "Possibly stale"' in md
    assert "[other](doc-b.md#x-y)" in md and "[web](https://example.org)" in md
    anchor = anchor_for("Use `requests.nvidia.com/gpu` — quota_limits {x}")
    assert f"{{ #{anchor} }}" in md and "\\{x}" in md
    assert "[self](doc-a.md#use)" in md
    assert "# comment, not a heading" in md and "{ #comment" not in md
    assert "- [https://example.org/s](https://example.org/s)" in md


def test_build_refuses_a_folder_that_is_not_a_site(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    from gpukb.errors import UsageError
    from gpukb.wiki import build_site

    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        build_site(tmp_path, kb_dir=REPO / "kb")


@pytest.mark.slow
def test_wiki_build_writes_every_doc_and_every_internal_link_resolves(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    from gpukb import load_kb
    from gpukb.wiki import doc_sections

    site = tmp_path / "site"
    env = {**os.environ, "GPUKB_ROOT": str(REPO)}
    res = subprocess.run(gpukb_cmd("wiki", "build", str(site), "--json"), env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    docs = load_kb(REPO / "kb")
    assert out["docs"] == len(docs)

    pages = {p: _parse(p) for p in site.rglob("*.html")}
    for d in docs:
        page = site / d.id / "index.html"
        assert page in pages, f"no page for {d.id}"
        ids = pages[page].ids
        for s in doc_sections(d.body, d.title)[1:]:
            assert s.anchor in ids, f"{d.id}: heading {s.heading!r} has no #{s.anchor}"
        text = page.read_text(encoding="utf-8")
        assert d.reviewed in text and all(u.replace("&", "&amp;") in text for u in d.sources)

    checked = 0
    broken = []
    for page, parsed in pages.items():
        for href in parsed.links:
            tgt = _target(site, page, href)
            if tgt is None:
                continue
            dest, frag = tgt
            checked += 1
            if not dest.is_file():
                broken.append(f"{page.relative_to(site)} -> {href} (missing file)")
            elif frag and dest.suffix == ".html" and frag not in (pages[dest] if dest in pages else _parse(dest)).ids:
                broken.append(f"{page.relative_to(site)} -> {href} (missing anchor)")
    assert checked > len(docs) * 10
    assert not broken, "\n".join(broken[:20])

    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    titles = {doc["title"] for doc in index["docs"]}
    assert {d.title for d in docs} <= titles
