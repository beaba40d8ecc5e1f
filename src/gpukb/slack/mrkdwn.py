"""Markdown to Slack mrkdwn, and splitting long text within Slack's limits.

Slack's mrkdwn is not Markdown: bold is ``*x*``, italic ``_x_``, strike
``~x~``, links ``<url|text>``, there are no headings, and ``&``, ``<`` and
``>`` must be escaped everywhere. A section block holds at most 3,000
characters of text and a message at most 40,000; :func:`split_text` cuts on
paragraph boundaries and never inside a code block (a code block longer than
one block is closed and reopened at a line boundary).
"""

from __future__ import annotations

import re

__all__ = [
    "SECTION_LIMIT",
    "MESSAGE_LIMIT",
    "MAX_BLOCKS",
    "escape",
    "unescape",
    "to_mrkdwn",
    "link",
    "split_text",
    "pack_messages",
]

SECTION_LIMIT = 3000
MESSAGE_LIMIT = 40000
MAX_BLOCKS = 50

_FENCE = re.compile(r"^\s*```")
_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC_STAR = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(?=\S)")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
# Placeholders use characters that cannot occur in ordinary text.
_PH = "\u0000{}\u0001"
_PH_RE = re.compile("\u0000(\\d+)\u0001")


def escape(text: str) -> str:
    """Escape the three characters Slack treats as control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    """Undo Slack's escaping of incoming message text."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def link(url: str, text: str | None = None) -> str:
    """A Slack link ``<url|text>`` (``|`` and ``>`` cannot appear inside)."""
    u = escape(url).replace("|", "%7C")
    if not text:
        return f"<{u}>"
    label = escape(text).replace("|", "¦")
    return f"<{u}|{label}>"


def _inline(text: str) -> str:
    """Convert one run of non-code Markdown text (may span lines)."""
    saved: list[str] = []

    def keep(s: str) -> str:
        saved.append(s)
        return _PH.format(len(saved) - 1)

    # Inline code first: its content is literal.
    text = _INLINE_CODE.sub(lambda m: keep("`" + escape(m.group(2)) + "`"), text)

    def _link(m: re.Match[str]) -> str:
        label, url = m.group(1), m.group(2)
        if re.match(r"(?:https?|mailto):", url):
            return keep(link(url, _strip_marks(label)))
        return label  # a link between KB files: keep the words only

    text = _LINK.sub(_link, text)
    text = _AUTOLINK.sub(lambda m: keep(link(m.group(1))), text)
    text = escape(text)
    text = _BOLD.sub(lambda m: keep("*" + m.group(2).strip("*_") + "*"), text)
    text = _ITALIC_STAR.sub(lambda m: "_" + m.group(1) + "_", text)
    text = _STRIKE.sub(lambda m: "~" + m.group(1) + "~", text)
    while _PH_RE.search(text):
        text = _PH_RE.sub(lambda m: saved[int(m.group(1))], text)
    return text


def _strip_marks(s: str) -> str:
    return re.sub(r"(\*\*|__|`)", "", s)


def to_mrkdwn(markdown: str) -> str:
    """Convert the Markdown the engine writes into Slack mrkdwn.

    Fenced code blocks keep their content (escaped) and lose the language tag,
    which Slack would show as a first line; headings become bold lines; list
    bullets become ``•``; links to other KB files keep their text only.
    """
    out: list[str] = []
    lines = (markdown or "").replace("\r\n", "\n").split("\n")
    i = 0
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append(_inline("\n".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            flush()
            body: list[str] = []
            i += 1
            while i < len(lines) and not _FENCE.match(lines[i]):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end of the text)
            out.append("```\n" + escape("\n".join(body)) + "\n```")
            continue
        h = _HEADING.match(line)
        if h:
            flush()
            title = _inline(_strip_marks(h.group(1))).strip()
            out.append(f"*{title}*" if title else "")
        elif _RULE.match(line):
            flush()
            out.append("")
        else:
            b = _BULLET.match(line)
            if b:
                line = b.group(1) + "• " + line[b.end():]
            para.append(line)
        i += 1
    flush()
    return "\n".join(out).strip("\n")


# -- splitting -----------------------------------------------------------------

def _units(text: str) -> list[tuple[str, str, bool]]:
    """(separator before, unit text, is_code): paragraphs and whole code blocks.

    Joining ``sep + unit`` for every unit gives the text back (blank-line runs
    collapse to one)."""
    units: list[tuple[str, str, bool]] = []
    para: list[str] = []
    gap = ""

    def add(unit: str, is_code: bool) -> None:
        nonlocal gap
        units.append((gap if units else "", unit, is_code))
        gap = "\n"

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            if para:
                add("\n".join(para), False)
                para = []
            code = [line]
            closed = len(stripped) >= 6 and stripped.endswith("```")  # ```one line```
            i += 1
            while not closed and i < len(lines):
                code.append(lines[i])
                closed = lines[i].strip().endswith("```")
                i += 1
            if not closed:
                code.append("```")
            add("\n".join(code), True)
            continue
        if not stripped:
            if para:
                add("\n".join(para), False)
                para = []
            if units:
                gap = "\n\n"
        else:
            para.append(line)
        i += 1
    if para:
        add("\n".join(para), False)
    return units


def _hard_split(s: str, limit: int) -> list[str]:
    """Split text on line, then word, then character boundaries."""
    parts: list[str] = []
    cur = ""
    for piece in re.split(r"(?<=\n)", s):
        while len(piece) > limit:
            cut = piece.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            head, piece = piece[:cut], piece[cut:].lstrip(" ")
            if cur:
                parts.append(cur)
                cur = ""
            parts.append(head)
        if len(cur) + len(piece) > limit:
            parts.append(cur)
            cur = ""
        cur += piece
    if cur:
        parts.append(cur)
    return [p.rstrip("\n") for p in parts if p.strip()]


def _split_code(block: str, limit: int) -> list[str]:
    """A code block longer than ``limit``: several closed code blocks."""
    inner = block.strip()
    inner = inner[3:]
    if inner.endswith("```"):
        inner = inner[:-3]
    inner = inner.strip("\n")
    room = limit - 8  # "```\n" + "\n```"
    return ["```\n" + piece + "\n```" for piece in _hard_split(inner, room)]


def split_text(text: str, limit: int = SECTION_LIMIT) -> list[str]:
    """Cut ``text`` into pieces of at most ``limit`` characters, on paragraph
    boundaries, never inside a code block."""
    text = (text or "").strip("\n")
    if not text.strip():
        return []
    if len(text) <= limit:
        return [text]
    chunks: list[str] = []
    cur = ""
    for sep, unit, is_code in _units(text):
        pieces = [unit] if len(unit) <= limit else (_split_code(unit, limit) if is_code else _hard_split(unit, limit))
        for j, piece in enumerate(pieces):
            s = sep if j == 0 else "\n"
            if cur and len(cur) + len(s) + len(piece) <= limit:
                cur += s + piece
            else:
                if cur:
                    chunks.append(cur)
                cur = piece
    if cur:
        chunks.append(cur)
    return chunks


def pack_messages(chunks: list[str], *, max_chars: int = MESSAGE_LIMIT, max_blocks: int = MAX_BLOCKS - 2) -> list[list[str]]:
    """Group section texts into messages of at most ``max_chars`` characters and
    ``max_blocks`` blocks (room is left for the feedback buttons)."""
    messages: list[list[str]] = []
    cur: list[str] = []
    size = 0
    for c in chunks:
        if cur and (size + len(c) + 2 > max_chars or len(cur) >= max_blocks):
            messages.append(cur)
            cur, size = [], 0
        cur.append(c)
        size += len(c) + 2
    if cur:
        messages.append(cur)
    return messages
