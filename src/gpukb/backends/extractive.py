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

from ..text import POINTS_ABOVE, POINTS_BELOW, PROBLEM, asked_words, listed_questions, sub_questions, terms
from .base import Composed, Evidence

_HOWTO = re.compile(r"\b(how|yaml|manifest|example|config|configure|set ?up|setup|create|write|give me|spec|enable|install|apply|command|cmd)\b", re.I)
# A question that asks what something is, why, or how two things differ wants
# prose; every other question (a goal, a symptom, a how-to) is answered with the
# section's steps, command or YAML too.
_CONCEPT = re.compile(r"^\W*(?:why|what\s+(?:is|are|does|do|happens)|whats|explain|is\s+it|are\s+there|does|do)\b|"
                      r"\b(?:vs\.?|versus|difference|differences|compare|meaning)\b", re.I)
# A question about a problem (a symptom, something that does not happen: gpukb.text.PROBLEM) is
# answered by its cause and its fix; the fix often shares no word with the symptom.
_REMEDY = re.compile(r"^(?:\*\*[^*]+\*\*:?\s*)?(?:the\s+fix\b|fix\b|to\s+fix\b|workaround|solution|set|use|add|enable|"
                     r"disable|run|apply|label|patch|restart|raise|lower|increase|remove|delete|install|upgrade|give|"
                     r"request|put|move|create|avoid|check)\b|\b(?:the\s+fix\s+is|instead,|to\s+avoid)\b", re.I)
_WANTS_YAML = re.compile(r"\b(ya?ml|manifest|example|sample)\b", re.I)
_PROVENANCE = re.compile(r"^>\s*Seen upstream:", re.I)
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[(])")
# A split after an abbreviation ("e.g. `x`") or inside parentheses is not a sentence end.
_ABBREV_END = re.compile(r"(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp)\.$", re.I)


@dataclass
class Unit:
    kind: str  # "sent", "item", "code", "table"
    text: str
    pos: int  # position in the section
    words: int
    cut: "Unit | None" = None  # a long table cut to the rows the question asks about (used when it does not fit)


def split_units(body: str) -> list[Unit]:
    """Break a section body into sentences, list items, tables and code blocks."""
    units: list[Unit] = []
    lines = body.splitlines()
    i = 0
    para: list[str] = []

    def flush():
        if para:
            text = " ".join(s.strip() for s in para).strip()
            pieces: list[str] = []
            for s in _SENT_SPLIT.split(text):
                # A split inside inline code (odd backticks so far), inside
                # parentheses or after an abbreviation is not a sentence end.
                last = pieces[-1] if pieces else ""
                if pieces and (last.count("`") % 2 or last.count("(") > last.count(")") or _ABBREV_END.search(last)):
                    pieces[-1] += " " + s
                else:
                    pieces.append(s)
            for s in pieces:
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
_SAME_DOC_LINK = re.compile(r"\]\((#[^)\s]+)\)")


def resolve_links(text: str, doc_path: str) -> str:
    """Rewrite links between KB files relative to the project root, so that a
    sentence quoted out of its doc still points at the right file."""
    base = posixpath.dirname(doc_path)
    text = _REL_LINK.sub(lambda m: f"]({posixpath.normpath(posixpath.join(base, m.group(1)))})", text)
    # a link to a section of the same doc ("[scale from zero](#scale-...)") points into that doc
    return _SAME_DOC_LINK.sub(lambda m: f"]({doc_path}{m.group(1)})", text)


# A sentence that points elsewhere is used only together with what it points to.
_POINTS_ON = re.compile(
    r"(:\s*$|\b(?:" + POINTS_BELOW + r"|the following|as follows|follows:|this (?:block|snippet|example|table|manifest|file|yaml)|"
    r"these (?:blocks|lines|fields|settings)|as shown|shown here|for example:|e\.g\.:)\b)", re.I)
# "Each replica of this Deployment ...": a manifest's kind, named as the one at hand, leans on the
# section's block wherever it follows
# an edit the reader is to make to the example at hand
_ON_THE_EXAMPLE = re.compile(r"(?:Replace|Change|Adjust|Edit|Swap|Update|Substitute|Fill in|Point|Rename)\b")
_THIS_KIND = re.compile(r"\b[Tt]his (?:[A-Z][a-z]+){1,3}\b(?!\s+(?:is|are)\s+(?:a|an|the)\b)")
_POINTS_BACK = re.compile(r"^(?:this|these|that|those|such|it|they|both|here|then|also|otherwise|instead)\b", re.I)
_POINTS_AWAY = re.compile(r"\b(?:" + POINTS_ABOVE + r"|more in|see (?:also )?(?:below|above)|described (?:below|above)|"
                          r"(?:the )?(?:next|previous|following|last) (?:section|step|example)s?)\b", re.I)
# an example object's own name in its manifest ("  name: gpu-pod"), hyphenated so it is no common word
_EXAMPLE_NAME = re.compile(r"(?m)^\s*name:\s*[\"']?([a-z0-9]+(?:-[a-z0-9]+)+)[\"']?\s*$")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_COMPARE = re.compile(r"\b(?:vs\.?|versus|or|difference|differences|compare|comparison|choose|which|better|"
                      r"instead of|rather than|pros|cons|trade-?offs?)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
# a listed question that leans on the list's topic ("can I cap memory with it?")
_LEANS_BACK = re.compile(r"\b(?:it|its|this|that|these|those|them|they|there|one|above|same)\b", re.I)

# Tuning constants of the composer (named, in one place).
LEAD_BONUS = 2.5  # sections open with their direct answer
SECOND_SENTENCE_BONUS = 0.8
KEY_TERM_WEIGHT = 0.6  # terms the section heading names mark its key facts
MIN_UNIT_SCORE = 0.5  # below this a unit adds nothing
REMEDY_BONUS = 1.0  # for a problem question, a sentence that states the fix
MAX_RELATED = 3
TABLE_ROWS = 4  # a longer table is cut to the rows the question asks about ...
TABLE_ROW_SHARE = 0.5  # ... those that score at least this share of the best row
# A short answer goes on with the next section that answers the question about as closely by meaning
# (the cosine of its best sentence, gpukb.sentences) as the lead, up to this many prose words in all ...
FILL_TO_WORDS = 95
FILL_MIN_WORDS = 25  # ... when at least this many words are left
FILL_MIN_SIMILARITY = 0.4
FILL_SIMILARITY_MARGIN = 0.2  # below the lead's best sentence at most
FILL_DEPTH = 3  # among the sections ranked this high
# a second section when the first leaves this share of question terms open (0.42: the smallest share tried,
# 0.42, 0.45, 0.5, that brings the tune part's median answer within 120 words; 0.37 gave 125)
SECOND_SECTION_SHARE = 0.42
# ... with a budget of its own: the question needs it, so it is not squeezed into what the lead left over
SECOND_SECTION_WORDS = 80
# ... and only when it answers part of what is open: terms the lead leaves open that appear nowhere
# (a pasted error's words, context) are no reason to add a section for one of them
SECOND_MIN_GAIN = 0.15
# A message that lists its questions ("1) ... ? 2) ... ?") is answered item by item, each in about this
# many words (never fewer than the least below)
ITEM_WORDS = 60
ITEM_MIN_WORDS = 40
ITEM_POOL = 8  # sections read for a list of questions, at most


def prose_words(text: str) -> int:
    """Words outside code blocks (the length users read)."""
    return len(re.sub(r"```.*?```", " ", text, flags=re.S).split())


class ExtractiveGenerator:
    """Composes an answer from the best section: its direct answer first, then the
    steps, command or YAML from the same section; a second section only when the
    question needs it (a comparison, or terms the first section does not cover).
    Other relevant sections become a short Related list of links."""

    name = "extractive"

    def __init__(self, max_words: int = 110, max_sections: int = 4, max_code_lines: int = 40,
                 second_words: int = SECOND_SECTION_WORDS, **_):
        self.second_words = int(second_words)
        self.max_words = int(max_words)
        self.max_sections = int(max_sections)
        self.max_code_lines = int(max_code_lines)

    # ------------------------------------------------------------ scoring
    @staticmethod
    def _idf(pool_units: list[list[Unit]]):
        df: Counter[str] = Counter()
        n = 0
        for units in pool_units:
            for u in units:
                n += 1
                df.update(set(terms(u.text)))
        return lambda t: math.log(1 + (n + 1) / (df.get(t, 0) + 0.5))

    def _unit_scores(self, q: Counter, units: list[Unit], key: set[str], idf, problem: bool = False) -> dict[int, float]:
        out = {}
        for u in units:
            ut = set(terms(u.text))
            s = sum(idf(t) for t in q if t in ut)
            if u.pos == 0:
                s += LEAD_BONUS
            elif u.pos == 1:
                s += SECOND_SENTENCE_BONUS
            if u.kind != "code":
                s += KEY_TERM_WEIGHT * min(3, len(key & ut))
                if problem and _REMEDY.search(u.text):
                    s += REMEDY_BONUS
            out[u.pos] = s
        # the list one of the two opening sentences introduces ("Fix, depending on intent:") is part of
        # the direct answer, whether or not its items share a word with the question
        for opener in units[:2]:
            if opener.kind == "sent" and _POINTS_ON.search(opener.text):
                for u in units[opener.pos + 1:]:
                    if u.kind != "item":
                        break
                    out[u.pos] += LEAD_BONUS
        return out

    @staticmethod
    def _asked_rows(units: list[Unit], q: Counter, idf) -> list[Unit]:
        """A long table that does not fit answers with the rows the question asks about: its header,
        then the rows that share the most telling terms with the question, in the table's order."""
        out = []
        for u in units:
            lines = u.text.splitlines()
            if u.kind != "table" or len(lines) - 2 <= TABLE_ROWS or not re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[1]):
                out.append(u)
                continue
            row_terms = [set(terms(row)) for row in lines[2:]]
            # (a term most rows share, such as the "gpu" of every label, tells no row apart)
            telling = {t for t in q if sum(t in rt for rt in row_terms) * 2 <= len(row_terms)}
            scored = [(sum(idf(t) for t in telling if t in rt), i) for i, rt in enumerate(row_terms, start=2)]
            best = max(s for s, _i in scored)
            if sum(1 for t in set(terms(lines[0])) if t in q) >= 2:
                # the question names the table's columns ("time-slicing vs MPS vs MIG"): it compares them
                # on every row, the first ones first
                keep = list(range(2, 2 + TABLE_ROWS))
            elif best <= 0:
                out.append(u)
                continue
            else:
                keep = sorted(i for s, i in sorted(scored, key=lambda x: -x[0])[:TABLE_ROWS] if s >= best * TABLE_ROW_SHARE)
            text = "\n".join(lines[:2] + [lines[i] for i in keep])
            out.append(Unit("table", u.text, u.pos, u.words, cut=Unit("table", text, u.pos, len(text.split()))))
        return out

    # ------------------------------------------------------------ selection
    def _select(self, units: list[Unit], scores: dict[int, float], q: Counter, budget: int, howto: bool,
                code_lines: int, allow_code: bool, numbers_ok: set[str] | None) -> list[Unit]:
        """Units of one section in document order: the lead, then what scores, within the budget."""
        chosen: dict[int, Unit] = {}
        words = 0

        def fits_numbers(u: Unit) -> bool:
            if numbers_ok is None or u.kind == "code":
                return True
            return all(n in numbers_ok for n in _NUMBER.findall(u.text) if int(n) > 1)

        lead = next((u for u in units if u.kind != "code"), None)
        code_taken = False
        if lead is not None and fits_numbers(lead):
            chosen[lead.pos] = lead
            words += lead.words
            if _THIS_KIND.search(lead.text) and allow_code:
                # "Each replica of this Deployment ...": the lead describes the section's manifest
                block = next((x for x in units if x.pos > lead.pos and x.kind == "code"), None)
                if block is not None and block.text.count("\n") + 1 <= code_lines:
                    chosen[block.pos] = block
                    code_taken = True
        ranked = sorted(units, key=lambda u: -scores.get(u.pos, 0.0))
        for u in ranked:
            if u.pos in chosen or scores.get(u.pos, 0.0) <= MIN_UNIT_SCORE or not fits_numbers(u):
                continue
            if u.kind == "code":
                n_lines = u.text.count("\n") + 1
                hits = sum(1 for t in q if t in set(terms(u.text)))
                if code_taken or not allow_code or n_lines > code_lines or not (howto or hits >= 2):
                    continue
                code_taken = True
                chosen[u.pos] = u
                continue
            if u.kind == "table" and (u.text.count("\n") > 12 or words + u.words > budget) and u.cut is not None:
                u = u.cut
                rows = u.text.splitlines()
                while words + u.words > budget and len(rows) > 3:
                    rows.pop()  # (its last rows left out, down to one, to fit the words left)
                    u = Unit("table", "\n".join(rows), u.pos, len("\n".join(rows).split()))
            if u.kind == "table" and u.text.count("\n") > 12:
                continue
            if words + u.words > budget:
                continue
            chosen[u.pos] = u
            words += u.words
            # A chosen sentence that introduces a block ("Restart the plugin:")
            # brings its block along, when the question wants steps.
            nxt = units[u.pos + 1] if u.pos + 1 < len(units) else None
            if nxt is not None and nxt.kind == "code" and howto and allow_code and not code_taken \
                    and _POINTS_ON.search(u.text) and nxt.text.count("\n") + 1 <= code_lines:
                code_taken = True
                chosen[nxt.pos] = nxt
        return self._whole(units, chosen)

    @staticmethod
    def _whole(units: list[Unit], chosen: dict[int, Unit]) -> list[Unit]:
        """Drop what would dangle: a sentence pointing at a block that is not
        there, or one that leans on a sentence that is not there."""
        by_pos = {u.pos: u for u in units}
        # what drops on its own first, so that a sentence is never kept for a block that then goes
        chosen = {pos: u for pos, u in chosen.items()
                  if not (u.kind in ("sent", "item") and (_POINTS_AWAY.search(u.text) or u.text.count("`") % 2))}
        # the names the section's examples give their objects ("name: gpu-pod"), when the example is left out:
        # a sentence about that object ("`kubectl logs gpu-pod` prints `Test PASSED`") leans on it
        shown = " ".join(u.text for p, u in chosen.items() if u.kind == "code")
        unshown = {n for u in units if u.kind == "code" and u.pos not in chosen
                   for n in _EXAMPLE_NAME.findall(u.text) if n not in shown}
        out: list[Unit] = []
        shown_without = -2  # where a sentence naming "this <Kind>" went because its manifest is not shown
        for pos in sorted(chosen):
            u = chosen[pos]
            if u.kind == "sent" and pos == shown_without + 1 and _ON_THE_EXAMPLE.match(u.text):
                shown_without = pos
                continue  # "Replace the image ... with your server's": an edit of the manifest left out
            if u.kind in ("sent", "item"):
                nxt = by_pos.get(pos + 1)
                if _POINTS_ON.search(u.text) and not (nxt is not None and nxt.pos in chosen
                                                        and nxt.kind in ("code", "item", "table")):
                    continue
                if _POINTS_AWAY.search(u.text):
                    continue
                if _THIS_KIND.search(u.text) and any(u.text.strip().endswith(x) for x in (".", "!")) and not any(
                        p > pos and c.kind == "code" for p, c in chosen.items()) and any(
                        x.kind == "code" for x in units if x.pos > pos):
                    if pos == next((x.pos for x in units if x.kind != "code"), -1):
                        return []  # the section describes a manifest it cannot show: another section answers
                    shown_without = pos
                    continue  # "this Deployment" with its manifest left out
                if u.kind == "sent" and pos > 0 and _POINTS_BACK.match(u.text) and (pos - 1) not in chosen:
                    continue
                if u.text.count("`") % 2:
                    continue
                if unshown and any(n in unshown for code in _CODE_SPAN.findall(u.text) for n in re.findall(r"[\w.-]+", code)):
                    continue
            if u.kind == "code" and not any(c.kind != "code" and c.pos > pos for c in chosen.values()) and not out:
                continue  # a block is never the whole answer from its section (one the prose follows is its example)
            out.append(u)
        return out

    # ------------------------------------------------------------ compose
    def compose(self, question: str, evidence: Sequence[Evidence], *, manifest_params: dict | None = None) -> Composed:
        if not evidence:
            return Composed("", [])
        q = Counter(terms(question))
        howto = bool(_HOWTO.search(question)) or not _CONCEPT.search(question)
        problem = bool(PROBLEM.search(question))
        code_lines = self.max_code_lines * 2 if _WANTS_YAML.search(question) else self.max_code_lines
        lead_in, items = listed_questions(question) if manifest_params is None else ("", [])
        # (each listed question brings its own best section)
        pool = list(evidence[: max(self.max_sections, min(ITEM_POOL, len(items) + 1))])
        per_sec = [split_units(resolve_links(e.text, e.path)) for e in pool]
        idf = self._idf(per_sec)
        per_sec = [self._asked_rows(units, q, idf) for units in per_sec]
        keys = [set(terms(e.section)) - set(terms(e.title)) for e in pool]
        # With a manifest attached, the text must not quote another example's numbers
        # or YAML: numbers are kept only when the manifest has them.
        numbers_ok = None
        if manifest_params is not None:
            numbers_ok = {str(v) for v in _flat_values(manifest_params)}
        allow_code = manifest_params is None

        if items:
            each = self._answer_each(lead_in, items, pool, per_sec, keys, idf, code_lines)
            if each is not None:
                return each
            pool, per_sec, keys = pool[:self.max_sections], per_sec[:self.max_sections], keys[:self.max_sections]

        # The lead section: the best one, or (when nothing of it can be said, e.g.
        # its numbers belong to another example than the attached manifest) the
        # next one in rank order that has something to say.
        lead, first = 0, []
        for si in range(len(pool) if manifest_params is not None else 1):
            sc = self._unit_scores(q, per_sec[si], keys[si], idf, problem)
            first = self._select(per_sec[si], sc, q, self.max_words, howto, code_lines, allow_code, numbers_ok)
            if first:
                lead = si
                break
        parts: list[tuple[int, list[Unit]]] = [(lead, first)] if first else []
        used_words = sum(u.words for u in first if u.kind != "code")

        # A second section only when the question needs it.
        covered = set().union(*(set(terms(u.text)) | set(terms(pool[lead].section)) for u in first)) if first else set()
        # what the question asks in its own words: a pasted log or command output adds terms no answer covers
        asked = set(terms(asked_words(question))) or set(q)
        missing = {t for t in asked if t not in covered}
        # the section the lead sends its reader on to ("See the next section") goes on with the answer
        pointed = next((i for i, e in enumerate(pool) if parts and e.pointed_from == pool[lead].key and i != lead), None)
        if pointed is not None:
            sc = self._unit_scores(q, per_sec[pointed], keys[pointed], idf, problem)
            more = self._select(per_sec[pointed], sc, q, self.second_words, howto, code_lines,
                                allow_code and not any(u.kind == "code" for u in first), numbers_ok)
            if more:
                parts.append((pointed, more))
        # a doc's overview (its opening section) answers "what is it"; a question that also asks how (a spec,
        # steps, "how do I use it") goes on with the same doc's section that shows how: its code
        if parts and pool[lead].anchor == "" and _HOWTO.search(question) and \
                not any(u.kind == "code" for u in first) and len(parts) == 1:
            shown = next((i for i, e in enumerate(pool) if i != lead and e.doc_id == pool[lead].doc_id
                          and any(u.kind == "code" for u in per_sec[i])), None)
            if shown is not None:
                sc = self._unit_scores(q, per_sec[shown], keys[shown], idf, problem)
                more = self._select(per_sec[shown], sc, q, self.second_words, True, code_lines, allow_code, numbers_ok)
                if more:
                    parts.append((shown, more))
        # a message of several questions: each later one its own section when the answer so far leaves it open
        subs = sub_questions(question)
        for sub in subs[1:] if parts and len(subs) >= 2 else []:
            st = set(terms(sub))
            done = covered.union(*(set(terms(u.text)) for _si, units in parts for u in units))
            left = st - done
            if len(left) < max(2, len(st) // 2):
                continue
            best, gain = None, 1
            for si in range(len(pool)):
                if si in {p for p, _ in parts}:
                    continue
                g = len(left & (set().union(*(set(terms(u.text)) for u in per_sec[si])) | set(terms(pool[si].section))))
                if g > gain:
                    best, gain = si, g
            if best is not None:
                sc = self._unit_scores(Counter(terms(sub)), per_sec[best], keys[best], idf, problem)
                more = self._select(per_sec[best], sc, Counter(terms(sub)), self.second_words, howto, code_lines,
                                    allow_code and not any(u.kind == "code" for _si, us in parts for u in us), numbers_ok)
                if more:
                    parts.append((best, more))
        if len(parts) == 1 and len(pool) > 1 and (
                _COMPARE.search(question) or len(missing) >= max(2, int(len(asked) * SECOND_SECTION_SHARE))) \
                or not parts and len(pool) > 1:
            best, gain = None, 0
            for si in range(1, len(pool)):
                if parts and si == lead:
                    continue
                sec_terms = set().union(*(set(terms(u.text)) for u in per_sec[si])) | set(terms(pool[si].section))
                g = len(missing & sec_terms)
                if g > gain:
                    best, gain = si, g
            if best is not None and (gain >= max(1, SECOND_MIN_GAIN * len(missing)) or not parts):
                budget = self.second_words if parts else self.max_words
                sc = self._unit_scores(q, per_sec[best], keys[best], idf, problem)
                second = self._select(per_sec[best], sc, q, budget, howto, code_lines,
                                      allow_code and not any(u.kind == "code" for u in first), numbers_ok)
                if second:
                    parts.append((best, second))

        # a short answer goes on with a section that answers the question about as closely by meaning as the one
        # it has (the lead, or the section that stood in for a lead with nothing to say)
        room = FILL_TO_WORDS - sum(u.words for _si, units in parts for u in units if u.kind != "code")
        if len(parts) == 1 and len(pool) > 1 and room >= FILL_MIN_WORDS:
            head = parts[0][0]
            head_best = max(pool[head].unit_similarity, default=0.0)
            for si in range(1, min(len(pool), FILL_DEPTH)):
                if si == head or pool[si].key == pool[head].key:
                    continue  # (the same section may stand twice in the evidence: never said twice)
                best_sim = max(pool[si].unit_similarity, default=0.0)
                if best_sim >= FILL_MIN_SIMILARITY and best_sim >= head_best - FILL_SIMILARITY_MARGIN:
                    sc = self._unit_scores(q, per_sec[si], keys[si], idf, problem)
                    more = self._select(per_sec[si], sc, q, room, howto, code_lines,
                                        allow_code and not any(u.kind == "code" for u in parts[0][1]), numbers_ok)
                    # (a section's opening sentence comes whatever its length: one too long to fit is left out)
                    if more and sum(u.words for u in more if u.kind != "code") <= room:
                        parts.append((si, more))
                    break
        order = [si for si, _ in parts]
        num = {si: n + 1 for n, si in enumerate(order)}
        text = "\n\n".join(self._render(units, num[si]) for si, units in parts)
        related = [e for i, e in enumerate(pool) if i not in order][:MAX_RELATED]
        if related:
            links = "; ".join(f"[{e.section}]({e.path}#{e.anchor})" for e in related)
            text += f"\n\nRelated: {links}"
        return Composed(text=text.strip(), cited=order)

    def _answer_each(self, lead_in: str, items: list[str], pool: Sequence[Evidence], per_sec: list[list[Unit]],
                     keys: list[set[str]], idf, code_lines: int) -> Composed | None:
        """One short answer per listed question, in the list's order, each from the section retrieved for
        that item (``Evidence.answers``; without it, the section whose sentences and heading share most
        telling words with the item), its sentences scored by the item's terms, with the list's topic for
        an item that leans on it ("does something have to run on the node for it?"). A section that
        answers two items says each thing once."""
        budget = max(ITEM_MIN_WORDS, min(ITEM_WORDS, self.max_words * 2 // len(items)))
        topic = Counter(terms(lead_in))
        parts: list[tuple[int, list[Unit], int]] = []
        said: dict[int, set[int]] = {}
        code_used = False
        for n, item in enumerate(items, start=1):
            q = Counter(terms(item))
            if len(q) < 4 or _LEANS_BACK.search(item):
                q.update({t: 1 for t in topic if t not in q})
            if not q:
                continue
            howto = bool(_HOWTO.search(item)) or not _CONCEPT.search(item)
            problem = bool(PROBLEM.search(item))
            best = next((si for si, e in enumerate(pool) if n in e.answers), None)
            if best is None and not any(e.answers for e in pool):
                best = self._best_for_item(q, pool, per_sec, keys, idf, problem)
            if best is None:
                continue
            sc = self._unit_scores(q, per_sec[best], keys[best], idf, problem)
            units = [u for u in per_sec[best] if u.pos not in said.get(best, set())]
            chosen = self._select(units, sc, q, budget, howto, code_lines, not code_used, None)
            chosen = [u for u in chosen if u.pos not in said.get(best, set())]
            if not any(u.kind != "code" for u in chosen):
                continue
            said.setdefault(best, set()).update(u.pos for u in chosen)
            code_used = code_used or any(u.kind == "code" for u in chosen)
            parts.append((best, chosen, n))
        if len({n for _si, _u, n in parts}) < 2:
            return None
        order: list[int] = []
        for si, _u, _n in parts:
            if si not in order:
                order.append(si)
        num = {si: k + 1 for k, si in enumerate(order)}
        rendered = [(n, self._render(units, num[si])) for si, units, n in parts]
        # (a label before prose; on its own line before a list, a table or code)
        text = "\n\n".join(f"**{n}.**" + ("\n" if r.startswith(("```", "|", "- ")) else " ") + r for n, r in rendered)
        related = [e for i, e in enumerate(pool) if i not in order][:MAX_RELATED]
        if related:
            links = "; ".join(f"[{e.section}]({e.path}#{e.anchor})" for e in related)
            text += f"\n\nRelated: {links}"
        return Composed(text=text.strip(), cited=order)

    def _best_for_item(self, q: Counter, pool: Sequence[Evidence], per_sec: list[list[Unit]], keys: list[set[str]],
                       idf, problem: bool) -> int | None:
        """Without the engine's tags: the section whose best sentence and heading share most telling words
        with a listed question (ties to rank), if any says enough."""
        best, best_score = None, MIN_UNIT_SCORE
        for si in range(len(pool)):
            sc = self._unit_scores(q, per_sec[si], keys[si], idf, problem)
            top = max((v - (LEAD_BONUS if pos == 0 else 0) for pos, v in sc.items()), default=0.0)
            heading = sum(idf(t) for t in q if t in keys[si] or t in set(terms(pool[si].section)))
            if top + heading > best_score + 1e-9:
                best, best_score = si, top + heading
        return best

    @staticmethod
    def _render(units: list[Unit], n: int) -> str:
        """Prose with one [n] at the end of each paragraph; lists and code keep their form.
        A marker never stands alone on a line."""
        tag = f"[{n}]"
        out: list[str] = []
        para: list[str] = []

        def close_para():
            if para:
                out.append(" ".join(para) + f" {tag}")
                para.clear()

        items: list[str] = []

        def close_items():
            if items:
                items[-1] = items[-1] + f" {tag}"
                out.append("\n".join(f"- {t}" for t in items))
                items.clear()

        for u in units:
            if u.kind == "sent":
                close_items()
                para.append(u.text)
            elif u.kind == "item":
                close_para()
                items.append(u.text)
            else:  # code and tables follow the prose that introduced them
                close_para()
                close_items()
                out.append(u.text)
        close_para()
        close_items()
        if out and not re.search(r"\[\d+\]", "\n".join(out)):
            out[0] = out[0] + f" {tag}" if not out[0].startswith(("```", "|")) else out[0]
        return "\n\n".join(out)


def _flat_values(value) -> list:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat_values(v)]
    if isinstance(value, list):
        return [x for v in value for x in _flat_values(v)]
    return [value]


def extractive(**options) -> ExtractiveGenerator:
    return ExtractiveGenerator(**options)


