"""Built-in answer generator: extractive, no LLM.

It picks the most relevant sentences, list items and (for how-to questions) one
short code block from the top sections, keeps them in document order, and
tags each with the number of the section it came from. The opening sentence
of the best section leads, because KB sections open with their direct answer.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from ..text import terms
from .base import Composed, Evidence

_HOWTO = re.compile(r"\b(how|yaml|manifest|example|config|configure|set ?up|setup|create|write|give me|spec|enable|install|apply|command|cmd)\b", re.I)
_WANTS_YAML = re.compile(r"\b(ya?ml|manifest|example|sample)\b", re.I)
_PROVENANCE = re.compile(r"^>\s*Seen upstream:", re.I)
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[(])")


@dataclass
class Unit:
    kind: str  # "sent", "item", "code", "table"
    text: str
    pos: int  # position in the section
    words: int


def split_units(body: str) -> list[Unit]:
    """Break a section body into sentences, list items, tables and code blocks."""
    units: list[Unit] = []
    lines = body.splitlines()
    i = 0
    para: list[str] = []

    def flush():
        if para:
            text = " ".join(s.strip() for s in para).strip()
            for s in _SENT_SPLIT.split(text):
                s = s.strip()
                if s:
                    units.append(Unit("sent", s, len(units), len(s.split())))
            para.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _PROVENANCE.match(stripped):  # "> Seen upstream: ..." is provenance, cited through the sources
            flush()
            i += 1
            continue
        if stripped.startswith(("```", "~~~")):
            flush()
            fence = stripped[:3]
            block = [line]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                block.append(lines[i])
                i += 1
            block.append(lines[i] if i < len(lines) else fence)
            code = "\n".join(block)
            units.append(Unit("code", code, len(units), len(code.split())))
        elif re.match(r"^\s*([-*+]|\d+[.)])\s+", line):
            flush()
            item = [re.sub(r"^\s*([-*+]|\d+[.)])\s+", "", line)]
            while i + 1 < len(lines) and lines[i + 1].startswith(("  ", "\t")) and lines[i + 1].strip() \
                    and not re.match(r"^\s*([-*+]|\d+[.)])\s+", lines[i + 1]):
                i += 1
                item.append(lines[i].strip())
            text = " ".join(item).strip()
            units.append(Unit("item", text, len(units), len(text.split())))
        elif stripped.startswith("|"):
            flush()
            rows = [line]
            while i + 1 < len(lines) and lines[i + 1].strip().startswith("|"):
                i += 1
                rows.append(lines[i])
            text = "\n".join(rows)
            units.append(Unit("table", text, len(units), len(text.split())))
        elif not stripped or stripped.startswith("#"):
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return units


_REL_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#|/)([^)\s]+)\)")


def resolve_links(text: str, doc_path: str) -> str:
    """Rewrite links between KB files relative to the project root, so that a
    sentence quoted out of its doc still points at the right file."""
    base = posixpath.dirname(doc_path)
    return _REL_LINK.sub(lambda m: f"]({posixpath.normpath(posixpath.join(base, m.group(1)))})", text)


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, max_words: int = 190, max_sections: int = 4, max_code_lines: int = 30, **_):
        self.max_words = int(max_words)
        self.max_sections = int(max_sections)
        self.max_code_lines = int(max_code_lines)

    def compose(self, question: str, evidence: Sequence[Evidence]) -> Composed:
        if not evidence:
            return Composed("", [])
        q = Counter(terms(question))
        howto = bool(_HOWTO.search(question))
        # Someone asking for YAML gets a whole (longer) example.
        code_lines = self.max_code_lines * 2 if _WANTS_YAML.search(question) else self.max_code_lines
        pool = list(evidence[: self.max_sections])
        per_sec = [split_units(resolve_links(e.text, e.path)) for e in pool]
        # Document frequency of terms over all candidate units, for IDF weights.
        df: Counter[str] = Counter()
        n_units = 0
        for units in per_sec:
            for u in units:
                n_units += 1
                df.update(set(terms(u.text)))
        heading_terms = [set(terms(f"{e.title} {e.section}")) for e in pool]
        # Terms a section's own heading names (beyond its doc title) mark its key facts.
        key_terms = [set(terms(e.section)) - set(terms(e.title)) for e in pool]

        def idf(t: str) -> float:
            return math.log(1 + (n_units + 1) / (df.get(t, 0) + 0.5))

        scored: list[tuple[float, int, Unit]] = []
        for si, units in enumerate(per_sec):
            rank_w = 1.0 / (1 + 0.6 * si)
            for u in units:
                ut = set(terms(u.text))
                overlap = sum(idf(t) for t in q if t in ut)
                s = overlap * rank_w
                if u.pos == 0:
                    s += 2.5 * rank_w  # sections open with their direct answer
                elif u.pos == 1:
                    s += 0.8 * rank_w
                if si == 0 and overlap > 0:
                    s += 1.0  # the best section is most likely the answer
                if u.kind != "code":
                    s += 0.6 * rank_w * min(3, len(key_terms[si] & ut))
                if u.kind == "code":
                    n_lines = u.text.count("\n") + 1
                    # How-to questions get an example; others only when the
                    # best section's code is about what was asked.
                    relevant = howto or (si == 0 and sum(1 for t in q if t in ut) >= 2)
                    if not relevant or n_lines > code_lines:
                        continue
                    s += 1.5 * rank_w
                if u.kind == "table":
                    if u.text.count("\n") > 12:
                        continue
                    s *= 0.8
                hits = sum(1 for t in q if t in ut)
                if si > 0 and hits < (1 if si == 1 else 2):
                    continue  # lower-ranked sections contribute only what matches
                if any(t in heading_terms[si] for t in q):
                    s += 0.3
                scored.append((s, si, u))
        scored.sort(key=lambda x: -x[0])

        chosen: list[tuple[int, Unit]] = []
        words = 0
        code_taken = False
        # The best section's opening sentence always leads.
        if per_sec[0]:
            lead = per_sec[0][0]
            if lead.kind != "code":
                chosen.append((0, lead))
                words += lead.words
        for s, si, u in scored:
            if (si, u.pos) in {(c[0], c[1].pos) for c in chosen}:
                continue
            if u.kind == "code":
                if code_taken:
                    continue
                code_taken = True
            if words + u.words > self.max_words and chosen:
                continue
            if s <= 0.5 and chosen:
                continue
            chosen.append((si, u))
            words += u.words
            if words >= self.max_words:
                break

        # A one-liner is rarely enough: continue the best section in order.
        if words < self.max_words // 3:
            taken = {(c[0], c[1].pos) for c in chosen}
            for u in per_sec[0]:
                if (0, u.pos) in taken or u.kind == "code" and (not howto or u.text.count("\n") >= code_lines):
                    continue
                if words + u.words > self.max_words // 2:
                    break
                chosen.append((0, u))
                words += u.words

        # Number citations by first appearance, in section rank order.
        chosen.sort(key=lambda c: (c[0], c[1].pos))
        order: list[int] = []
        for si, _ in chosen:
            if si not in order:
                order.append(si)
        num = {si: n + 1 for n, si in enumerate(order)}
        parts: list[str] = []
        prev_kind = None
        for i, (si, u) in enumerate(chosen):
            tag = f"[{num[si]}]"
            nxt = chosen[i + 1] if i + 1 < len(chosen) else None
            if u.kind in ("code", "table"):
                parts.append(f"\n{u.text}\n{tag}\n")
            elif u.kind == "item":
                parts.append(f"{'' if prev_kind == 'item' else chr(10)}- {u.text} {tag}\n")
            else:
                # One marker closes a run of sentences from the same section.
                same_run = nxt is not None and nxt[0] == si and nxt[1].kind == "sent"
                sep = "\n" if prev_kind in ("item", "code", "table") else ""
                parts.append(f"{sep}{u.text} " if same_run else f"{sep}{u.text} {tag}\n")
            prev_kind = u.kind
        text = re.sub(r"\n{3,}", "\n\n", "".join(parts)).strip()
        return Composed(text=text, cited=order)


def extractive(**options) -> ExtractiveGenerator:
    return ExtractiveGenerator(**options)


