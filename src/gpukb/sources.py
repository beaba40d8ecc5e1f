"""Knowledge sources: the bundled ``kb/`` plus team folders of Markdown.

``ingest/sources.yaml`` (typed by :class:`gpukb.config.SourcesConfig`) lists
the sources. The bundled source keeps the strict front matter of
``docs/kb-format.md``: a bad bundled doc stops the ingest. A team source is
any folder of Markdown (runbooks, postmortems, platform notes) and front
matter is optional there:

* ``title`` defaults to the first ``#`` heading (else the file name);
* ``id`` defaults to ``<source>-<path without .md>`` as a slug;
* ``area`` defaults to the source's ``area``;
* ``tags`` are the doc's plus the source's;
* ``sources``, ``reviewed`` and ``applies_to`` may be missing.

``gpukb kb check`` reports what a team doc lacks as warnings; a team doc that
cannot be read at all (not UTF-8, broken front matter, no text) is left out of
the index with a warning and never fails the ingest.

A team doc with the id of a bundled doc replaces it (``override: replace``,
the default) or adds its sections to it (``override: extend``). Either is
recorded in the section metadata (``overrides`` / ``extends``: the bundled
path) and listed by ``gpukb kb check``.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .config import Settings, SourceConfig
from .errors import ConfigError
from .knowledge import _FM_RE, CheckProblem, KbDoc, _sections_of, load_kb, rel_path

__all__ = ["LoadedKnowledge", "SourceReport", "load_knowledge", "load_team_doc", "path_id", "OVERRIDE_MODES"]

OVERRIDE_MODES = ("replace", "extend")
_TEAM_ONLY_KEYS = {"override"}
_FENCE_YAML = re.compile(r"^(```|~~~)(ya?ml)[^\n]*\n(.*?)^\1[ \t]*$", re.S | re.M | re.I)


@dataclass
class SourceReport:
    """What one source contributed, and what its docs lack."""

    name: str
    kind: str
    path: str
    trust: str = ""
    docs: int = 0
    problems: list[CheckProblem] = field(default_factory=list)  # docs left out of the index
    warnings: list[CheckProblem] = field(default_factory=list)  # what a doc lacks; never fails an ingest
    notes: list[CheckProblem] = field(default_factory=list)  # overrides and extensions of bundled docs

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "path": self.path, "trust": self.trust, "docs": self.docs,
                "problems": [p.__dict__ for p in self.problems], "warnings": [p.__dict__ for p in self.warnings],
                "notes": [p.__dict__ for p in self.notes]}


@dataclass
class LoadedKnowledge:
    docs: list[KbDoc]
    reports: list[SourceReport]

    def skipped_lines(self) -> list[str]:
        """One line per team doc left out of the index."""
        return [f"{r.name}: {p.path}: {p.field}: {p.message} (left out)" for r in self.reports for p in r.problems]

    def override_lines(self) -> list[str]:
        return [f"{r.name}: {p.path} {p.message}" for r in self.reports for p in r.notes]


def path_id(source: str, rel: Path) -> str:
    """A doc id from a source name and a path: ``platform-gpu-mig-notes``."""
    slug = re.sub(r"[^a-z0-9]+", "-", f"{source}-{rel.with_suffix('').as_posix()}".lower()).strip("-")
    slug = slug[:81].rstrip("-")
    return slug if len(slug) >= 3 else (slug + "-doc")[:81]


def _title_from(body: str, path: Path) -> str | None:
    in_fence = False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if not in_fence:
            m = re.match(r"^#\s+(.+?)\s*#*\s*$", line)
            if m:
                return m.group(1).strip()
    return None


@lru_cache(maxsize=1)
def _field_validators() -> dict[str, Any]:
    import json
    from importlib.resources import files

    import jsonschema

    schema = json.loads(files("gpukb").joinpath("schemas/frontmatter.json").read_text())
    return {k: jsonschema.Draft202012Validator(v) for k, v in schema["properties"].items()}


def load_team_doc(path: Path, src: SourceConfig, folder: Path) -> tuple[KbDoc | None, list[CheckProblem], list[CheckProblem], str]:
    """One team doc of the source folder ``folder``: (doc or None, problems,
    warnings, override mode). Paths are shown from the folder's parent, like
    ``kb/...`` for the bundled docs."""
    import yaml

    shown = rel_path(path, folder.parent)
    problems: list[CheckProblem] = []
    warnings: list[CheckProblem] = []
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, [CheckProblem(shown, "file", "not UTF-8 text")], [], ""
    except OSError as exc:
        return None, [CheckProblem(shown, "file", f"cannot read ({exc.strerror})")], [], ""
    text = text.lstrip("\ufeff")
    meta: dict[str, Any] = {}
    body = text
    m = _FM_RE.match(text)
    if m:
        try:
            loaded = yaml.safe_load(m.group(1))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f" at line {mark.line + 2}" if mark else ""
            return None, [CheckProblem(shown, "front matter", f"invalid YAML{line}")], [], ""
        except ValueError as exc:
            return None, [CheckProblem(shown, "front matter", f"invalid value: {exc}")], [], ""
        if loaded is not None and not isinstance(loaded, dict):
            return None, [CheckProblem(shown, "front matter", "must be a YAML mapping")], [], ""
        meta = dict(loaded or {})
        body = text[m.end():]
    if not body.strip():
        return None, [CheckProblem(shown, "body", "document has no content")], [], ""
    if "reviewed" in meta and hasattr(meta["reviewed"], "isoformat"):
        meta["reviewed"] = meta["reviewed"].isoformat()
    checks = _field_validators()
    clean: dict[str, Any] = {}
    for key, value in meta.items():
        if key in _TEAM_ONLY_KEYS:
            continue
        if key not in checks:
            warnings.append(CheckProblem(shown, str(key), "unknown front matter field, ignored"))
            continue
        err = next(iter(checks[key].iter_errors(value)), None)
        if err is not None:
            warnings.append(CheckProblem(shown, str(key), f"invalid, ignored: {err.message.splitlines()[0][:160]}"))
            continue
        clean[key] = value
    mode = str(meta.get("override") or "replace")
    if mode not in OVERRIDE_MODES:
        warnings.append(CheckProblem(shown, "override", f"must be one of: {', '.join(OVERRIDE_MODES)}; using replace"))
        mode = "replace"

    lacks: list[str] = []
    if not m:
        lacks.append("front matter")
    try:
        rel = path.resolve().relative_to(folder.resolve())
    except ValueError:
        rel = Path(path.name)
    doc_id = clean.get("id") or path_id(src.name, rel)
    title = clean.get("title") or _title_from(body, path) or path.stem.replace("-", " ").replace("_", " ").strip().capitalize()
    area = clean.get("area") or src.area or ""
    for key, used in (("id", f"{doc_id!r} from the path"), ("title", repr(title)),
                      ("area", repr(area) if area else "none (set `area:` in front matter or on the source)")):
        if key not in clean:
            lacks.append(key)
            warnings.append(CheckProblem(shown, key, f"not in front matter; using {used}"))
    for key, why in (("sources", "no upstream source URL: answers cite only the team doc"),
                     ("reviewed", "no review date: staleness cannot be reported")):
        if key not in clean:
            lacks.append(key)
            warnings.append(CheckProblem(shown, key, why))
    tags = list(dict.fromkeys([*clean.get("tags", []), *src.tags]))
    doc = KbDoc(
        id=doc_id, title=title, area=area, tags=tags, sources=list(clean.get("sources", [])),
        reviewed=str(clean.get("reviewed", "")), applies_to=dict(clean.get("applies_to", {})),
        aliases=list(clean.get("aliases", [])), path=shown, body=body,
        sha=hashlib.sha256(raw + src.model_dump_json().encode()).hexdigest(), source=src.name, lacks=lacks,
    )
    secs = _sections_of(body)
    for i, (lvl, h, sec_text) in enumerate(secs):
        has_children = i + 1 < len(secs) and secs[i + 1][0] > lvl
        if lvl > 1 and not sec_text.strip() and not has_children:
            warnings.append(CheckProblem(shown, f"section '{h}'", "empty section"))
    for fm in _FENCE_YAML.finditer(body):
        try:
            list(yaml.safe_load_all(fm.group(3)))
        except yaml.YAMLError as exc:
            at = body[: fm.start()].count("\n") + 1
            warnings.append(CheckProblem(shown, f"yaml block at body line {at}",
                                         f"does not parse: {getattr(exc, 'problem', None) or 'invalid YAML'}"))
    if doc.reviewed and doc.is_stale():
        warnings.append(CheckProblem(shown, "reviewed", f"stale: last reviewed {doc.reviewed}"))
    return doc, problems, warnings, mode


def team_doc_paths(folder: Path) -> list[Path]:
    """Markdown files of a team folder. Hidden files and folders are skipped: a
    git checkout's ``.git``/``.github`` and a mounted ConfigMap's ``..data``
    links; so are files starting with ``_`` (as in ``kb/``)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith((".", "_")):
                out.append(Path(dirpath) / name)
    return sorted(out)


def load_knowledge(settings: Settings, *, strict: bool = True) -> LoadedKnowledge:
    """Every doc of every enabled source, with team overrides and extensions
    applied. A bad bundled doc raises :class:`~gpukb.errors.KnowledgeErrors`
    (as :func:`~gpukb.knowledge.load_kb` does; ``strict=False`` goes on
    without the bundled docs, for reports); a bad team doc is reported and
    left out."""
    from .errors import KnowledgeErrors

    bundled_src = settings.sources[0] if settings.sources else None
    bundled_name = bundled_src.name if bundled_src else "bundled"
    try:
        docs = load_kb(settings.kb_dir)
    except KnowledgeErrors:
        if strict:
            raise
        docs = []
    for d in docs:
        d.source = bundled_name
    reports = [SourceReport(bundled_name, "bundled", str(settings.kb_dir), bundled_src.trust if bundled_src else "",
                            docs=len(docs))]
    final: dict[str, KbDoc] = {d.id: d for d in docs}
    bundled_ids = set(final)
    team_seen: dict[str, str] = {}
    for src in settings.team_sources:
        folder = settings.source_dir(src)
        if not folder.is_dir():
            raise ConfigError(f"source {src.name!r}: folder {folder} not found")
        rep = SourceReport(src.name, "team", str(folder), src.trust)
        reports.append(rep)
        for p in team_doc_paths(folder):
            doc, problems, warnings, mode = load_team_doc(p, src, folder)
            rep.problems += problems
            rep.warnings += warnings
            if doc is None:
                continue
            if doc.id in team_seen:
                rep.problems.append(CheckProblem(doc.path, "id", f"duplicate id {doc.id!r} (also in {team_seen[doc.id]})"))
                continue
            team_seen[doc.id] = doc.path
            rep.docs += 1
            if doc.id in bundled_ids:
                target = final[doc.id]
                if mode == "extend":
                    doc.extends = target.path
                    target.extensions.append(doc)
                    rep.notes.append(CheckProblem(doc.path, "id", f"extends {target.path} ({target.source})"))
                    for _, h, _ in _sections_of(doc.body):
                        if h in {hh for _, hh, _ in _sections_of(target.body)}:
                            rep.warnings.append(CheckProblem(
                                doc.path, f"section '{h}'", f"repeats a heading of {target.path}; the texts are merged"))
                    continue
                doc.overrides = target.path
                if "area" in doc.lacks:
                    doc.area = target.area
                doc.extensions = target.extensions
                final[doc.id] = doc
                rep.notes.append(CheckProblem(doc.path, "id", f"overrides {target.path} ({target.source})"))
            else:
                final[doc.id] = doc
    return LoadedKnowledge(list(final.values()), reports)
