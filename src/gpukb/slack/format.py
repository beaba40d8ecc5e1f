"""Slack replies: answers with sources, refusals, lint findings, manifests, help,
and the Block Kit messages that carry them."""

from __future__ import annotations

import json
from typing import Any, Iterable
from urllib.parse import urlsplit

from ..links import wiki_link
from .mrkdwn import escape, link, pack_messages, split_text, to_mrkdwn

__all__ = [
    "FEEDBACK_PREFIX",
    "answer_text",
    "sources_text",
    "refusal_text",
    "lint_text",
    "manifest_text",
    "help_text",
    "build_messages",
    "upstream_label",
    "MANIFEST_INLINE_LIMIT",
]

FEEDBACK_PREFIX = "gpukb_feedback_"
MANIFEST_INLINE_LIMIT = 2800  # longer manifests go out as a file
UPSTREAM_PER_CITATION = 1
SEVERITY_ICON = {"error": ":x:", "warning": ":warning:", "info": ":information_source:"}


def upstream_label(url: str) -> str:
    """A short label for an upstream URL: host and the last path segment."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url[:60]
    host = parts.netloc.removeprefix("www.")
    segs = [s for s in parts.path.split("/") if s]
    tail = segs[-1] if segs else ""
    if parts.fragment:
        tail = f"{tail}#{parts.fragment}" if tail else f"#{parts.fragment}"
    label = f"{host}/…/{tail}" if len(segs) > 1 else f"{host}/{tail}" if tail else host
    return label if len(label) <= 70 else label[:69] + "…"


def _short_title(title: str) -> str:
    """A doc title without its parenthesised keyword list: "Troubleshooting Pending GPU pods"."""
    short = title.split(" (", 1)[0].strip()
    return short if len(short) <= 80 else short[:79] + "…"


def _citation_line(c: Any) -> str:
    """``<wiki|section> · doc title``, or just the doc title when the section is the whole doc."""
    source = getattr(c, "source", "") or ""
    url = wiki_link(c.doc_id, getattr(c, "anchor", "") or None, source)
    team = f" · from _{escape(source)}_" if source and source != "bundled" else ""
    if c.section and c.section != c.title:
        return f"{link(url, c.section)} · _{escape(_short_title(c.title))}_{team}"
    return link(url, _short_title(c.title)) + team


def sources_text(citations: Iterable[Any]) -> str:
    """``*Sources*`` then one line per cited section: a wiki link and its upstream URLs."""
    lines = ["*Sources*"]
    for c in citations:
        wiki = _citation_line(c)
        ups = [u for u in (getattr(c, "source_urls", None) or []) if isinstance(u, str) and u.startswith("http")]
        up = ", ".join(link(u, upstream_label(u)) for u in ups[:UPSTREAM_PER_CITATION])
        lines.append(f"[{c.n}] {wiki}" + (f" · upstream: {up}" if up else ""))
    return "\n".join(lines)


def refusal_text(ans: Any) -> str:
    """Say plainly that the KB does not cover the question; suggest the closest topics."""
    out = [escape(ans.body or "I don't know: the gpukb knowledge base does not cover this.")]
    closest = [t for t in (getattr(ans, "closest", None) or []) if t]
    if closest:
        out.append("The closest topics it does cover:\n" + "\n".join(f"• {escape(t)}" for t in closest))
    out.append("Try rephrasing with the component or the exact error text, or see `/gpukb help`.")
    return "\n\n".join(out)


def _status(valid: bool) -> str:
    return ":white_check_mark: valid" if valid else ":x: INVALID"


def _issue_lines(issues: Iterable[dict[str, Any]]) -> list[str]:
    out = []
    for i in issues:
        sev = str(i.get("severity") or "info")
        where = i.get("path") or ""
        doc = f" (document {i.get('index')}, {i.get('kind')})" if i.get("kind") else ""
        out.append(f"{SEVERITY_ICON.get(sev, '•')} {escape(str(i.get('message') or ''))}"
                   + (f" at `{escape(str(where))}`" if where else "") + escape(doc))
    return out


def _code(text: str) -> str:
    return "```\n" + escape(text.rstrip("\n")) + "\n```"


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"`{escape(k)}={escape(json.dumps(v, ensure_ascii=False))}`" for k, v in params.items())


def manifest_text(m: Any, *, heading: str, include_yaml: bool = True) -> str:
    """A rendered manifest: recipe, parameters, what the request left unused or
    missing, validation status and issues, then the YAML (unless sent as a file).

    ``m`` is a generate/render result or the ``manifest`` dict of an answer."""
    get = (lambda k, d=None: m.get(k, d)) if isinstance(m, dict) else (lambda k, d=None: getattr(m, k, d))
    recipe = get("recipe", "")
    title = get("title", "")
    lines = [f"*{escape(heading)}* from recipe `{escape(str(recipe))}`" + (f" ({escape(title)})" if title else "")
             + f": {_status(bool(get('valid', False)))}"]
    from_req = get("from_request") or {}
    defaults = get("defaults") or {}
    if from_req or defaults:
        if from_req:
            lines.append("From your request: " + _params(from_req))
        if defaults:
            lines.append("Defaults: " + _params(defaults))
    elif get("params"):
        lines.append("Parameters: " + _params(get("params")))
    unused = [str(u) for u in (get("unused") or [])]
    if unused:
        lines.append(":grey_question: Not used from your request: " + ", ".join(f"“{escape(u)}”" for u in unused))
    missing = [str(q) for q in (get("missing") or [])]
    if missing:
        lines.append(":memo: Still to decide:\n" + "\n".join(f"• {escape(q)}" for q in missing))
    filled = get("llm_filled") or {}
    if filled:
        lines.append(":robot_face: Filled by the language model (check them): " + _params(filled))
    lines += _issue_lines(get("issues") or [])
    text = "\n".join(lines)
    if include_yaml and get("yaml"):
        text += "\n" + _code(str(get("yaml")))
    return text


def answer_text(ans: Any, *, include_manifest: bool = True) -> str:
    """The answer (with its [n] markers) in mrkdwn, then the Sources block,
    matching recipes and, when the question asked for one, the manifest."""
    parts = [to_mrkdwn(ans.body or ans.answer or "")]
    if ans.citations:
        parts.append(sources_text(ans.citations))
    recipes = getattr(ans, "recipes", None) or []
    if recipes:
        parts.append("*Recipes*: " + ", ".join(f"`{escape(r['id'])}` ({escape(r.get('title', ''))})" for r in recipes)
                     + f"\nRender one with `/gpukb recipe {escape(recipes[0]['id'])} key=value ...`")
    if include_manifest and getattr(ans, "manifest", None):
        parts.append(manifest_text(ans.manifest, heading="Manifest"))
    notices = [str(n) for n in (getattr(ans, "notices", None) or []) if n]
    if notices:
        parts.append("\n".join(f":information_source: _{escape(n)}_" for n in notices[:5]))
    return "\n\n".join(p for p in parts if p)


def lint_text(report: Any) -> str:
    """Lint findings for pasted YAML, grouped by document, each with its fix and KB doc."""
    out: list[str] = []
    docs = [d for f in report.files for d in f.documents]
    for d in docs:
        what = "/".join(x for x in (d.kind, d.name) if x) or f"document {d.index + 1}"
        if not d.findings:
            out.append(f":white_check_mark: `{escape(what)}`: no findings")
            continue
        out.append(f"*`{escape(what)}`* (document {d.index + 1})")
        for f in d.findings:
            line = f"{SEVERITY_ICON.get(f.severity, '•')} *{escape(f.severity)}* `{escape(f.rule)}`"
            if f.path:
                line += f" at `{escape(f.path)}`"
            line += f": {escape(f.message)}"
            if getattr(f, "fix", None):
                line += f"\n      Fix: {escape(f.fix)}"
            if getattr(f, "doc_id", None):
                line += f" ({link(wiki_link(f.doc_id), 'why')})"
            out.append(line)
    e, w = report.errors, report.warnings
    head = (f"*Lint of the pasted manifest*: {e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}"
            if docs else "*Lint of the pasted manifest*: no Kubernetes documents found")
    return "\n".join([head, *out])


def help_text() -> str:
    return "\n".join([
        "*gpukb*: answers about GPUs and AI workloads on Kubernetes, from a curated knowledge base with sources.",
        "• Mention me or DM me a question, e.g. “pods Pending with `Insufficient nvidia.com/gpu`”. "
        "A short follow-up in the same thread reuses the thread's first question.",
        "• Paste a manifest in a ``` block and I lint it for GPU mistakes.",
        "• `/gpukb ask QUESTION`: answer a question.",
        "• `/gpukb generate REQUEST`: a validated manifest from a plain request, "
        "e.g. `/gpukb generate volcano job, 4 workers x 8 GPUs, queue research`.",
        "• `/gpukb recipe ID key=value ...`: render a recipe; `/gpukb recipe` lists them.",
        "• `/gpukb help`: this message.",
    ])


def _feedback_block(key: str) -> dict[str, Any]:
    return {
        "type": "actions",
        "block_id": "gpukb_feedback",
        "elements": [
            {"type": "button", "action_id": FEEDBACK_PREFIX + "helpful", "value": key,
             "text": {"type": "plain_text", "text": ":thumbsup: Helpful", "emoji": True}},
            {"type": "button", "action_id": FEEDBACK_PREFIX + "not_helpful", "value": key,
             "text": {"type": "plain_text", "text": ":thumbsdown: Not helpful", "emoji": True}},
        ],
    }


def build_messages(text: str, *, feedback_key: str | None = None, context: str | None = None) -> list[dict[str, Any]]:
    """Slack messages (``text`` + ``blocks``) for a reply of any length: section
    blocks of at most 3,000 characters, messages of at most 40,000; the
    feedback buttons go on the last message."""
    chunks = split_text(text)
    if not chunks:
        chunks = ["(empty reply)"]
    messages = []
    groups = pack_messages(chunks)
    for n, group in enumerate(groups):
        blocks: list[dict[str, Any]] = []
        if context and n == 0:
            blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": context[:2900]}]})
        blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": c}} for c in group]
        if feedback_key and n == len(groups) - 1:
            blocks.append(_feedback_block(feedback_key))
        messages.append({"text": "\n\n".join(group), "blocks": blocks})
    return messages
