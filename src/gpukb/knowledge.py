"""Loading and checking the curated knowledge base (``kb/``).

A KB document is a Markdown file with YAML front matter (schema:
``schemas/frontmatter.json``). Sections (``##``/``###`` headings) are the unit
of retrieval and citation; see :mod:`gpukb.chunking` for how they become
index chunks.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from .errors import ConfigError, KnowledgeError, KnowledgeErrors

__all__ = ["KbDoc", "load_doc", "load_kb", "scan_kb", "KbScan", "check_kb", "CheckResult", "anchor_for", "AREAS", "DEFAULT_MAX_AGE_DAYS"]

AREAS = (
    "gpu-operator", "device-plugin", "gpu-sharing", "scheduling", "training-jobs",
    "gang-scheduling", "multi-tenancy", "autoscaling", "storage", "inference", "troubleshooting",
    "networking", "observability",
)

DEFAULT_MAX_AGE_DAYS = 365

_FM_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*\r?\n?", re.S)


@dataclass
class KbDoc:
    id: str
    title: str
    area: str
    tags: list[str]
    sources: list[str]
    reviewed: str
    applies_to: dict[str, str]
    path: str  # relative to the KB root's parent, e.g. "kb/gpu-sharing/mig.md"
    body: str  # Markdown without front matter
    sha: str  # sha256 of the file bytes
    aliases: list[str] = field(default_factory=list)
    # heading text -> other phrasings users type for what that section answers
    section_aliases: dict[str, list[str]] = field(default_factory=dict)
    # knowledge sources (gpukb.sources): the source's name, the bundled doc this
    # one replaces (``overrides``) or team docs appended to it (``extensions``)
    source: str = "bundled"
    overrides: str = ""
    extends: str = ""
    extensions: list["KbDoc"] = field(default_factory=list)
    lacks: list[str] = field(default_factory=list)  # front matter a team doc does not give
    # words the doc only uses to name another system's concepts ("gres", "sbatch"): no sign of coverage
    passing_terms: list[str] = field(default_factory=list)

    def reviewed_date(self) -> _dt.date | None:
        """The ``reviewed`` front matter field as a date (None if it is not a real date)."""
        try:
            return _dt.date.fromisoformat(self.reviewed)
        except (TypeError, ValueError):
            return None

    def is_stale(self, today: _dt.date | None = None, max_age_days: int = DEFAULT_MAX_AGE_DAYS) -> bool:
        """True when the doc was last reviewed more than ``max_age_days`` before ``today``."""
        reviewed = self.reviewed_date()
        if reviewed is None:
            return False
        today = today or _dt.date.today()
        return (today - reviewed).days > max_age_days


@lru_cache(maxsize=1)
def _validator():
    from importlib.resources import files

    import jsonschema

    schema = json.loads(files("gpukb").joinpath("schemas/frontmatter.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def _field_of(err) -> str:
    """Name the front matter field a jsonschema error is about."""
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path).lstrip(".")
    if err.validator == "required":
        missing = re.findall(r"'([^']+)' is a required property", err.message)
        return missing[0] if missing else path or "front matter"
    if err.validator == "additionalProperties":
        extra = re.findall(r"'([^']+)' was unexpected", err.message)
        return extra[0] if extra else path or "front matter"
    return path or "front matter"


def _short(err) -> str:
    if err.validator == "required":
        return "required field is missing"
    if err.validator == "additionalProperties":
        return "unknown field"
    if err.validator == "enum":
        return f"must be one of: {', '.join(map(str, err.validator_value))}"
    if err.validator == "pattern":
        return f"{err.instance!r} does not match {err.validator_value}"
    if err.validator == "minItems":
        return f"needs at least {err.validator_value} item(s)"
    if err.validator == "type":
        return f"must be of type {err.validator_value}"
    return err.message.splitlines()[0][:200]


def rel_path(path: Path, root: Path | None) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve())) if root else str(path)
    except ValueError:
        return str(path)


def load_doc(path: Path, root: Path | None = None) -> KbDoc:
    """Parse one KB file; raise :class:`KnowledgeError` naming file and field."""
    import yaml

    shown = rel_path(path, root)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise KnowledgeError(shown, None, "not UTF-8 text") from None
    except OSError as exc:
        raise KnowledgeError(shown, None, f"cannot read ({exc.strerror})") from None
    m = _FM_RE.match(text)
    if not m:
        raise KnowledgeError(shown, "front matter", "missing: the file must start with a '---' YAML block")
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 2}" if mark else ""
        problem = getattr(exc, "problem", None) or "unreadable YAML"
        raise KnowledgeError(shown, "front matter", f"invalid YAML{line}: {problem}") from None
    except ValueError as exc:  # an unquoted date that does not exist, e.g. reviewed: 2026-02-30
        raise KnowledgeError(shown, "front matter", f"invalid date: {exc}") from None
    if not isinstance(meta, dict):
        raise KnowledgeError(shown, "front matter", "must be a YAML mapping")
    # YAML turns 2026-11-29 into a date; the schema wants the ISO string.
    if "reviewed" in meta and hasattr(meta["reviewed"], "isoformat"):
        meta["reviewed"] = meta["reviewed"].isoformat()
    errors = sorted(_validator().iter_errors(meta), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = errors[0]
        raise KnowledgeError(shown, _field_of(err), _short(err))
    body = text[m.end():]
    if not body.strip():
        raise KnowledgeError(shown, "body", "document has no content")
    return KbDoc(
        id=meta["id"], title=meta["title"], area=meta["area"], tags=list(meta["tags"]),
        sources=list(meta["sources"]), reviewed=meta["reviewed"], applies_to=dict(meta["applies_to"]),
        aliases=list(meta.get("aliases", [])), path=shown, body=body,
        section_aliases={str(k): list(v) for k, v in (meta.get("section_aliases") or {}).items()},
        passing_terms=[str(w) for w in meta.get("passing_terms") or []],
        sha=hashlib.sha256(raw).hexdigest(),
    )


def iter_doc_paths(kb_dir: Path) -> list[Path]:
    return sorted(p for p in kb_dir.rglob("*.md") if p.is_file() and not p.name.startswith("_"))


def load_kb(kb_dir: Path | str) -> list[KbDoc]:
    """Load every doc under ``kb_dir``. Collects all problems, then raises
    :class:`KnowledgeErrors` (one line per bad file) if there are any."""
    return scan_kb(kb_dir).parsed


@dataclass
class KbScan:
    """The KB as an incremental ingest sees it: files whose bytes are unchanged
    since the last ingest are hashed, not parsed."""

    parsed: list[KbDoc]  # new or changed docs
    unchanged: dict[str, tuple[str, str]]  # doc id -> (path, sha) of docs as indexed

    def items(self) -> list[tuple[str, str]]:
        """(path, sha) of every doc, for the corpus hash."""
        return [(d.path, d.sha) for d in self.parsed] + list(self.unchanged.values())


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scan_kb(kb_dir: Path | str, known: dict[str, tuple[str, str]] | None = None) -> KbScan:
    """Like :func:`load_kb`, but a file whose path and sha256 are in ``known``
    (path -> (sha, doc id), from the index manifest) is not parsed again: it
    was valid when it was indexed. Duplicate ids are checked across both kinds."""
    kb_dir = Path(kb_dir)
    if not kb_dir.is_dir():
        raise ConfigError(f"{kb_dir}: knowledge base folder not found")
    known = known or {}
    kb_dir = kb_dir.resolve()
    root = kb_dir.parent
    parsed: list[KbDoc] = []
    unchanged: dict[str, tuple[str, str]] = {}
    errors: list[KnowledgeError] = []
    seen: dict[str, str] = {}
    for p in iter_doc_paths(kb_dir):
        # Under the resolved folder, only a symlinked file resolves elsewhere
        # (rglob does not descend into symlinked folders): resolve just those.
        shown = rel_path(p, root) if p.is_symlink() else str(p.relative_to(root))
        hit = known.get(shown)
        if hit is not None:
            try:
                sha = file_sha(p)
            except OSError as exc:
                errors.append(KnowledgeError(shown, None, f"cannot read ({exc.strerror})"))
                continue
            if sha == hit[0]:
                doc_id = hit[1]
                if doc_id in seen:
                    errors.append(KnowledgeError(shown, "id", f"duplicate id {doc_id!r} (also in {seen[doc_id]})"))
                    continue
                seen[doc_id] = shown
                unchanged[doc_id] = (shown, sha)
                continue
        try:
            d = load_doc(p, root)
        except KnowledgeError as exc:
            errors.append(exc)
            continue
        if d.id in seen:
            errors.append(KnowledgeError(d.path, "id", f"duplicate id {d.id!r} (also in {seen[d.id]})"))
            continue
        seen[d.id] = d.path
        parsed.append(d)
    if errors:
        raise KnowledgeErrors(errors)
    return KbScan(parsed=parsed, unchanged=unchanged)


def anchor_for(heading: str) -> str:
    """GitHub-style anchor of a heading."""
    text = re.sub(r"[`*_~\[\]()]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


# ---------------------------------------------------------------------------
# kb check


@dataclass
class CheckProblem:
    path: str
    field: str
    message: str


@dataclass
class CheckResult:
    docs: int
    sections: int
    problems: list[CheckProblem] = field(default_factory=list)
    # findings that do not fail the check (stale docs, odd "Seen upstream" lines)
    warnings: list[CheckProblem] = field(default_factory=list)
    # troubleshooting entries (sections ending with a "> Seen upstream: ..." line) per component
    entries_by_component: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "docs": self.docs, "sections": self.sections, "ok": self.ok,
            "problems": [p.__dict__ for p in self.problems],
            "warnings": [p.__dict__ for p in self.warnings],
            "entries_by_component": dict(self.entries_by_component),
        }


_LINK_RE = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE_RE = re.compile(r"^(```|~~~)([\w+-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.S | re.M)


def _sections_of(body: str) -> list[tuple[int, str, str]]:
    """(level, heading, text) for headings outside code fences."""
    out: list[tuple[int, str, list[str]]] = []
    in_fence = False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        m = None if in_fence else re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            out.append((len(m.group(1)), m.group(2).strip(), []))
        elif out:
            out[-1][2].append(line)
    return [(lvl, h, "\n".join(lines)) for lvl, h, lines in out]


# The start of an applies_to value: an optional comparison, then a version such as
# v1.2, 1.26+, v0.8.x or v2 (free text may follow: "v0.8.x (API kubeflow.org/v2beta1)").
_VERSION_START_RE = re.compile(r"^\s*(?:[<>]=?|[=~^])?\s*v?\d+(?:\.(?:\d+|x|\*))*(?![\w])")

# The closing line of a troubleshooting entry (see docs/kb-format.md).
_SEEN_UPSTREAM_RE = re.compile(
    r"^>\s*Seen upstream:\s*\S.*?\s·\s*component:\s*([a-z0-9][a-z0-9-]*)\s*·\s*versions:\s*\S.*$")

COMPONENT_SLUGS = frozenset({
    "gpu-operator", "device-plugin", "gfd", "mig-manager", "dcgm-exporter", "kubernetes", "volcano",
    "coscheduling", "kueue", "jobset", "training-operator", "trainer", "mpi-operator",
    "cluster-autoscaler", "karpenter", "fsx-csi", "storage-scale-csi", "dra", "network-operator",
    "vllm", "lws", "kserve", "triton", "nccl", "efa",
})


def check_freshness(doc: KbDoc, today: _dt.date, max_age_days: int) -> tuple[list[CheckProblem], list[CheckProblem]]:
    """(problems, warnings) about ``reviewed`` and ``applies_to`` of one doc."""
    problems: list[CheckProblem] = []
    warnings: list[CheckProblem] = []
    reviewed = doc.reviewed_date()
    if reviewed is None:
        problems.append(CheckProblem(doc.path, "reviewed", f"{doc.reviewed!r} is not a valid date (YYYY-MM-DD)"))
    elif reviewed > today:
        problems.append(CheckProblem(doc.path, "reviewed", f"{doc.reviewed} is in the future"))
    elif doc.is_stale(today, max_age_days):
        age = (today - reviewed).days
        warnings.append(CheckProblem(
            doc.path, "reviewed", f"stale: last reviewed {doc.reviewed}, {age} days ago (limit {max_age_days})"))
    for component, value in doc.applies_to.items():
        if not isinstance(value, str) or not _VERSION_START_RE.match(value):
            problems.append(CheckProblem(
                doc.path, f"applies_to.{component}",
                f"{value!r} does not look like a version or range (for example v1.2+, 1.26+, v0.8.x)"))
    return problems, warnings


def count_entries(doc: KbDoc, sections: list[tuple[int, str, str]]) -> tuple[dict[str, int], list[CheckProblem]]:
    """Troubleshooting entries per component: sections whose last line is a
    ``> Seen upstream: ... · component: X · versions: ...`` line."""
    counts: dict[str, int] = {}
    warnings: list[CheckProblem] = []
    for _, heading, text in sections:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        for i, line in enumerate(lines):
            if not re.match(r"^>\s*Seen upstream:", line):
                continue
            m = _SEEN_UPSTREAM_RE.match(line)
            if not m:
                warnings.append(CheckProblem(doc.path, f"section '{heading}'", "malformed 'Seen upstream' line "
                                             "(expected: > Seen upstream: [link](url) · component: <slug> · versions: <range>)"))
            elif i != len(lines) - 1:
                warnings.append(CheckProblem(doc.path, f"section '{heading}'", "'Seen upstream' line is not the section's last line"))
            else:
                comp = m.group(1)
                if comp not in COMPONENT_SLUGS:
                    warnings.append(CheckProblem(doc.path, f"section '{heading}'", f"unknown component slug {comp!r}"))
                counts[comp] = counts.get(comp, 0) + 1
    return counts, warnings


def check_kb(kb_dir: Path | str, *, validate_manifests: bool = True, max_age_days: int = DEFAULT_MAX_AGE_DAYS,
             today: _dt.date | None = None) -> CheckResult:
    """Quality checks over the whole KB: front matter, unique ids, internal
    links and anchors, sources, empty sections, YAML blocks that parse (and
    validate, when the validator is available), ``reviewed`` dates (valid, not
    in the future; older than ``max_age_days`` is a stale warning) and
    ``applies_to`` versions. Also counts troubleshooting entries per component."""
    import yaml

    kb_dir = Path(kb_dir)
    today = today or _dt.date.today()
    problems: list[CheckProblem] = []
    warnings: list[CheckProblem] = []
    entries: dict[str, int] = {}
    try:
        docs = load_kb(kb_dir)
    except KnowledgeErrors as exc:
        return CheckResult(0, 0, [CheckProblem(e.path, e.field or "", e.message) for e in exc.errors])
    root = kb_dir.resolve().parent
    sections = {d.id: _sections_of(d.body) for d in docs}
    anchors = {str((root / d.path).resolve()): {anchor_for(h) for _, h, _ in sections[d.id]} for d in docs}
    n_sections = 0
    validate_documents = None
    if validate_manifests:
        try:
            from .validate import validate_documents  # type: ignore[assignment]
        except ImportError:
            validate_documents = None
    for d in docs:
        secs = sections[d.id]
        n_sections += len(secs)
        if not secs:
            problems.append(CheckProblem(d.path, "body", "no headings"))
        if len(d.sources) < 1:
            problems.append(CheckProblem(d.path, "sources", "no upstream source URL"))
        fresh_problems, fresh_warnings = check_freshness(d, today, max_age_days)
        problems += fresh_problems
        warnings += fresh_warnings
        counts, entry_warnings = count_entries(d, secs)
        warnings += entry_warnings
        for comp, n in counts.items():
            entries[comp] = entries.get(comp, 0) + n
        headings = {h for _, h, _ in secs}
        for h in d.section_aliases:
            if h not in headings:
                problems.append(CheckProblem(d.path, f"section_aliases '{h}'", "no section has this heading"))
        for i, (lvl, h, text) in enumerate(secs):
            has_children = i + 1 < len(secs) and secs[i + 1][0] > lvl
            if not text.strip() and not has_children:
                problems.append(CheckProblem(d.path, f"section '{h}'", "empty section"))
        for target in _LINK_RE.findall(d.body):
            if re.match(r"^[a-z]+://|^mailto:", target):
                continue
            file_part, _, frag = target.partition("#")
            dest = (root / d.path).parent / file_part if file_part else root / d.path
            dest = dest.resolve()
            if file_part and not dest.exists():
                problems.append(CheckProblem(d.path, "link", f"broken link to {target}"))
            elif frag and str(dest) in anchors and frag not in anchors[str(dest)]:
                problems.append(CheckProblem(d.path, "link", f"unknown anchor #{frag} in {target}"))
        for m in _FENCE_RE.finditer(d.body):
            lang, code = m.group(2).lower(), m.group(3)
            if lang not in ("yaml", "yml"):
                continue
            line = d.body[: m.start()].count("\n") + 1
            try:
                manifests = [x for x in yaml.safe_load_all(code) if x is not None]
            except yaml.YAMLError as exc:
                problems.append(CheckProblem(d.path, f"yaml block at body line {line}", f"does not parse: {getattr(exc, 'problem', exc)}"))
                continue
            k8s = [x for x in manifests if isinstance(x, dict) and "apiVersion" in x and "kind" in x]
            if validate_documents and k8s:
                for res in validate_documents(k8s, allow_unknown=True):
                    for f in res.findings:
                        if f.severity == "error":
                            problems.append(CheckProblem(
                                d.path, f"yaml block at body line {line}",
                                f"{res.kind}/{res.name or '?'} {f.path}: {f.message}"))
    return CheckResult(len(docs), n_sections, problems, warnings, dict(sorted(entries.items())))


def corpus_hash(items: Iterable[tuple[str, str]]) -> str:
    h = hashlib.sha256()
    for key, sha in sorted(items):
        h.update(f"{key}\0{sha}\n".encode())
    return h.hexdigest()
