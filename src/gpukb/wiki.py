"""The KB as a wiki: sections, links between docs, keyword search, and the
static site (``gpukb wiki build DIR``).

The Streamlit app's Wiki page and the static MkDocs site share these helpers,
so a heading has the same anchor everywhere (:func:`gpukb.knowledge.anchor_for`,
also used for citations) and a link between docs resolves the same way.
Nothing here imports Streamlit or MkDocs; the site is built by running
``python -m mkdocs build`` on a generated docs tree.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterable, Sequence

from .errors import ConfigError, GpukbError, UsageError

__all__ = [
    "Section", "doc_sections", "section_text", "doc_index", "resolve_link", "rewrite_links",
    "review_age_days", "is_stale", "STALE_AFTER_DAYS", "keyword_search", "SearchHit",
    "valid_doc_id", "build_site", "SiteBuild",
]

STALE_AFTER_DAYS = 365
_DOC_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target "title"), not images; the target has no spaces.
_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)((?:\s+\"[^\"]*\")?)\)")
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)


@dataclass
class Section:
    level: int  # 1 for the introduction (text under the title), else the heading level
    heading: str
    anchor: str  # "" for the introduction, as in citations
    text: str  # Markdown under the heading (children not included)


def _anchor_for(heading: str) -> str:
    from .knowledge import anchor_for

    return anchor_for(heading)


def doc_sections(body: str, title: str = "") -> list[Section]:
    """Split a doc body into its introduction and its ``##``/``###``... sections.

    Headings inside code fences are not headings. The ``#`` title line itself
    is dropped; its text becomes the introduction (anchor ``""``)."""
    out: list[Section] = [Section(1, title, "", "")]
    lines: list[str] = []
    in_fence = False
    fence = ""

    def flush() -> None:
        out[-1].text = "\n".join(lines).strip("\n")
        lines.clear()

    for line in (body or "").splitlines():
        m_f = _FENCE.match(line)
        if m_f:
            mark = m_f.group(1)
            if not in_fence:
                in_fence, fence = True, mark
            elif mark == fence:
                in_fence = False
            lines.append(line)
            continue
        m = None if in_fence else _HEADING.match(line)
        if m and len(m.group(1)) == 1 and len(out) == 1 and not out[0].text and not "".join(lines).strip():
            out[0].heading = out[0].heading or m.group(2).strip()
            continue
        if m and len(m.group(1)) >= 2:
            flush()
            heading = m.group(2).strip()
            out.append(Section(len(m.group(1)), heading, _anchor_for(heading), ""))
            continue
        lines.append(line)
    flush()
    return out


def section_text(body: str, anchor: str) -> str | None:
    """The Markdown of the section with ``anchor`` ("" = the introduction), or None."""
    for s in doc_sections(body):
        if s.anchor == (anchor or ""):
            return s.text
    return None


def valid_doc_id(value: Any, known: Iterable[str]) -> str | None:
    """``value`` when it is a well-formed id of a known doc, else None (never a path)."""
    if not isinstance(value, str) or not _DOC_ID.match(value):
        return None
    return value if value in set(known) else None


def doc_index(docs: Sequence[Any]) -> dict[str, Any]:
    """KB-relative path (``area/slug.md``) -> doc."""
    out: dict[str, Any] = {}
    for d in docs:
        p = PurePosixPath(str(d.path).replace(os.sep, "/"))
        parts = p.parts[1:] if p.parts and p.parts[0] == "kb" else p.parts
        out[str(PurePosixPath(*parts))] = d
    return out


def _kb_rel(doc: Any) -> PurePosixPath:
    p = PurePosixPath(str(doc.path).replace(os.sep, "/"))
    return PurePosixPath(*(p.parts[1:] if p.parts and p.parts[0] == "kb" else p.parts))


def resolve_link(doc: Any, target: str, by_path: dict[str, Any]) -> tuple[str, str] | None:
    """Resolve a relative link in ``doc`` to ``(doc_id, anchor)``; None when it
    is external or points to no doc. ``#anchor`` alone is the same doc."""
    if not target or _EXTERNAL.match(target):
        return None
    file_part, _, frag = target.partition("#")
    if not file_part:
        return doc.id, frag
    if not file_part.endswith(".md"):
        return None
    parts: list[str] = []
    for piece in (*_kb_rel(doc).parent.parts, *PurePosixPath(file_part).parts):
        if piece in ("", "."):
            continue
        if piece == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(piece)
    hit = by_path.get("/".join(parts))
    return (hit.id, frag) if hit is not None else None


def outside_code(text: str, fn: Callable[[str], str]) -> str:
    """Apply ``fn`` to the parts of ``text`` outside code fences and inline code."""
    out: list[str] = []
    chunk: list[str] = []
    in_fence = False
    fence = ""

    def flush_chunk() -> None:
        if chunk:
            # Inline code is masked (so link labels may contain it), then restored.
            spans: list[str] = []

            def mask(m: re.Match) -> str:
                spans.append(m.group(0))
                return f"\x00{len(spans) - 1}\x00"

            masked = re.sub(r"`+[^`\n]*`+", mask, "\n".join(chunk))
            out.append(re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], fn(masked)))
            chunk.clear()

    for line in text.split("\n"):
        m = _FENCE.match(line)
        if in_fence:
            out.append(line)
            if m and m.group(1) == fence:
                in_fence = False
            continue
        if m:
            flush_chunk()
            in_fence, fence = True, m.group(1)
            out.append(line)
            continue
        chunk.append(line)
    flush_chunk()
    # Re-join: every element of ``out`` is one or more whole lines.
    return "\n".join(out)


def rewrite_links(text: str, doc: Any, by_path: dict[str, Any],
                  make_link: Callable[[str, str], str], *, unresolved: str = "text") -> str:
    """Rewrite links between KB docs with ``make_link(doc_id, anchor)``.

    External links stay. A relative link that resolves to no doc keeps its
    text only (``unresolved="text"``) or stays as it is (``"keep"``)."""

    def sub(m: re.Match) -> str:
        label, target, title = m.group(1), m.group(2), m.group(3)
        if _EXTERNAL.match(target):
            return m.group(0)
        hit = resolve_link(doc, target, by_path)
        if hit is None:
            return m.group(0) if unresolved == "keep" else label
        return f"[{label}]({make_link(*hit)}{title})"

    return outside_code(text, lambda part: _LINK.sub(sub, part))


def review_age_days(reviewed: Any, today: _dt.date | None = None) -> int | None:
    """Days since the ``reviewed`` date (ISO string or date), or None if unreadable."""
    today = today or _dt.date.today()
    try:
        day = reviewed if isinstance(reviewed, _dt.date) else _dt.date.fromisoformat(str(reviewed)[:10])
    except ValueError:
        return None
    return (today - day).days


def is_stale(reviewed: Any, today: _dt.date | None = None) -> bool:
    age = review_age_days(reviewed, today)
    return age is None or age > STALE_AFTER_DAYS


# ---------------------------------------------------------------------------
# keyword search


@dataclass
class SearchHit:
    doc_id: str
    title: str
    area: str
    score: float
    sections: list[tuple[str, str]]  # (heading, anchor) of matching sections, best first


_WORD = re.compile(r"[a-z0-9][a-z0-9./_-]*")


def _terms(text: str) -> list[str]:
    return [w.strip("./_-") for w in _WORD.findall(text.lower()) if w.strip("./_-")]


def keyword_search(docs: Sequence[Any], query: str, *, area: str | None = None,
                   tags: Iterable[str] = (), limit: int = 20) -> list[SearchHit]:
    """Docs whose title, tags, aliases or section text contain the query's words.

    Every word must appear somewhere in the doc; titles and headings weigh
    more than body text. Case-insensitive."""
    words = list(dict.fromkeys(_terms(query or "")))[:20]
    if not words:
        return []
    want_tags = set(tags)
    hits: list[SearchHit] = []
    for d in docs:
        if area and d.area != area:
            continue
        if want_tags and not want_tags <= set(d.tags):
            continue
        head = " ".join([d.title, d.id, *d.tags, *getattr(d, "aliases", [])]).lower()
        secs = doc_sections(d.body, d.title)
        full = head + "\n" + "\n".join(f"{s.heading}\n{s.text}" for s in secs).lower()
        if not all(w in full for w in words):
            continue
        score = sum(3.0 for w in words if w in head)
        ranked: list[tuple[float, str, str]] = []
        for s in secs:
            h = s.heading.lower() if s.anchor else ""  # the title already counted
            t = s.text.lower()
            sc = sum(2.0 for w in words if w in h) + sum(min(t.count(w), 3) * 0.3 for w in words)
            if sc > 0:
                ranked.append((sc, s.heading, s.anchor))
        ranked.sort(key=lambda x: -x[0])
        score += sum(x[0] for x in ranked[:3])
        hits.append(SearchHit(d.id, d.title, d.area, round(score, 3), [(h, a) for _, h, a in ranked[:3]]))
    hits.sort(key=lambda h: (-h.score, h.title))
    return hits[:limit]


# ---------------------------------------------------------------------------
# the static site


@dataclass
class SiteBuild:
    out_dir: str
    docs: int
    pages: list[str]  # site-relative HTML paths of the doc pages
    seconds: float


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", str(text))


def _facts_block(doc: Any, today: _dt.date, stale_after: int) -> str:
    from urllib.parse import quote

    lines = ["| | |", "|---|---|",
             f"| Area | {_md_escape(doc.area)} |",
             f"| Tags | {', '.join(f'`{t}`' for t in doc.tags) or '—'} |",
             f"| Reviewed | {_md_escape(doc.reviewed)} |"]
    applies = ", ".join(f"{_md_escape(k)} {_md_escape(v)}" for k, v in doc.applies_to.items())
    lines.append(f"| Applies to | {applies or '—'} |")
    if getattr(doc, "aliases", None):
        lines.append(f"| Also asked as | {'; '.join(_md_escape(a) for a in doc.aliases)} |")
    out = "\n".join(lines) + "\n"
    age = review_age_days(doc.reviewed, today)
    if age is None or age > stale_after:
        when = "an unreadable date" if age is None else f"{age} days ago"
        out += (f"\n!!! warning \"Possibly stale\"\n    Last reviewed {when}; check the sources below "
                f"for changes.\n")
    if doc.sources:
        out += "\n**Sources**\n\n" + "\n".join(
            f"- [{_md_escape(u)}]({quote(u, safe=':/?#[]@!$&()*+,;=%~.-_')})" for u in doc.sources) + "\n"
    return out


def _page_markdown(doc: Any, by_path: dict[str, Any], today: _dt.date, stale_after: int) -> str:
    """One site page: title, facts, then the sections with explicit anchors."""
    secs = doc_sections(doc.body, doc.title)
    link = lambda doc_id, anchor: f"{doc_id}.md" + (f"#{anchor}" if anchor else "")  # noqa: E731
    parts = [f"# {doc.title}\n", _facts_block(doc, today, stale_after)]
    intro = rewrite_links(secs[0].text, doc, by_path, link).strip()
    if intro:
        parts.append(intro + "\n")
    for s in secs[1:]:
        # attr_list: the id is the app's anchor, not MkDocs' own slug.
        heading = s.heading.replace("{", "\\{")
        parts.append(f"{'#' * s.level} {heading} {{ #{s.anchor} }}\n")
        body = rewrite_links(s.text, doc, by_path, link).strip()
        if body:
            parts.append(body + "\n")
    return "\n".join(parts)


def _index_markdown(docs: Sequence[Any]) -> str:
    from .knowledge import AREAS

    lines = ["# gpukb wiki\n",
             "Curated answers about running GPU and AI workloads on Kubernetes. "
             "Use the search box to search every page.\n"]
    order = {a: i for i, a in enumerate(AREAS)}
    by_area: dict[str, list[Any]] = {}
    for d in docs:
        by_area.setdefault(d.area, []).append(d)
    for area in sorted(by_area, key=lambda a: (order.get(a, 99), a)):
        lines.append(f"## {area}\n")
        for d in sorted(by_area[area], key=lambda d: d.title.lower()):
            lines.append(f"- [{_md_escape(d.title)}]({d.id}.md)")
        lines.append("")
    tags: dict[str, list[Any]] = {}
    for d in docs:
        for t in d.tags:
            tags.setdefault(t, []).append(d)
    lines.append("## Tags\n")
    for t in sorted(tags):
        links = ", ".join(f"[{_md_escape(d.title)}]({d.id}.md)" for d in sorted(tags[t], key=lambda d: d.title.lower()))
        lines.append(f"- `{t}`: {links}")
    return "\n".join(lines) + "\n"


def _mkdocs_yml(docs: Sequence[Any], site_name: str) -> dict[str, Any]:
    from .knowledge import AREAS

    order = {a: i for i, a in enumerate(AREAS)}
    by_area: dict[str, list[Any]] = {}
    for d in docs:
        by_area.setdefault(d.area, []).append(d)
    nav: list[Any] = [{"Home": "index.md"}]
    for area in sorted(by_area, key=lambda a: (order.get(a, 99), a)):
        nav.append({area: [{d.title: f"{d.id}.md"} for d in sorted(by_area[area], key=lambda d: d.title.lower())]})
    return {
        "site_name": site_name,
        "docs_dir": "docs",
        "use_directory_urls": True,
        "theme": {"name": "material", "font": False,
                  "features": ["navigation.sections", "navigation.top", "search.highlight", "content.code.copy"]},
        "plugins": ["search"],
        "markdown_extensions": ["attr_list", "admonition", "tables", "toc", "pymdownx.superfences",
                                "pymdownx.highlight"],
        "validation": {"links": {"not_found": "warn", "anchors": "warn"}},
        "nav": nav,
    }


def build_site(out_dir: str | Path, *, kb_dir: str | Path | None = None, site_name: str = "gpukb wiki",
               strict: bool = False, today: _dt.date | None = None, stale_after_days: int | None = None,
               timeout: float = 600) -> SiteBuild:
    """Write the KB as a static MkDocs (Material) site into ``out_dir``.

    Raises :class:`~gpukb.errors.ConfigError` when MkDocs or the Material
    theme is not installed (``pip install 'gpukb[wiki]'``) and
    :class:`~gpukb.errors.GpukbError` when the build fails."""
    import time

    import yaml

    from .knowledge import load_kb

    t0 = time.perf_counter()
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError:
        raise ConfigError("the static wiki needs MkDocs and mkdocs-material: pip install 'gpukb[wiki]'") from None
    if kb_dir is None or stale_after_days is None:
        from .config import load_settings

        settings = load_settings()
        kb_dir = settings.kb_dir if kb_dir is None else kb_dir
        if stale_after_days is None:
            kb_cfg = getattr(getattr(settings, "config", None), "kb", None)
            stale_after_days = int(getattr(kb_cfg, "stale_after_days", STALE_AFTER_DAYS) or STALE_AFTER_DAYS)
    out = Path(out_dir).resolve()
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out_dir}: not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / "sitemap.xml").exists() and not (out / "index.html").exists():
        raise UsageError(f"{out_dir}: folder is not empty and does not hold a built site; choose an empty folder")
    docs = load_kb(kb_dir)
    by_path = doc_index(docs)
    today = today or _dt.date.today()
    with tempfile.TemporaryDirectory(prefix="gpukb-wiki-") as tmp:
        src = Path(tmp)
        (src / "docs").mkdir()
        (src / "docs" / "index.md").write_text(_index_markdown(docs), encoding="utf-8")
        for d in docs:
            (src / "docs" / f"{d.id}.md").write_text(_page_markdown(d, by_path, today, stale_after_days), encoding="utf-8")
        (src / "mkdocs.yml").write_text(yaml.safe_dump(_mkdocs_yml(docs, site_name), sort_keys=False),
                                        encoding="utf-8")
        cmd = [sys.executable, "-m", "mkdocs", "build", "--clean", "--quiet", "-f", str(src / "mkdocs.yml"),
               "-d", str(out)]
        if strict:
            cmd.append("--strict")
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
        try:
            res = subprocess.run(cmd, cwd=src, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            raise GpukbError(f"mkdocs build did not finish within {int(timeout)} s") from None
        if res.returncode != 0:
            lines = [ln.strip() for ln in (res.stderr or res.stdout or "").splitlines() if ln.strip()]
            errs = [ln for ln in lines if "ERROR" in ln or "Aborted" in ln or "Error" in ln] or lines
            raise GpukbError(f"mkdocs build failed: {errs[-1] if errs else f'exit code {res.returncode}'}")
    pages = [f"{d.id}/index.html" for d in docs]
    return SiteBuild(out_dir=str(out), docs=len(docs), pages=pages, seconds=round(time.perf_counter() - t0, 3))
