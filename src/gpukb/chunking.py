"""Markdown-aware chunking with llama-index.

Pipeline: ``MarkdownNodeParser`` (one node per heading) -> :class:`SectionMetadata`
(records the section heading, its anchor and heading path, removes the
heading line from the body) -> ``SentenceSplitter`` (splits sections longer
than the embedding window, metadata-aware). The text that gets embedded is
``"<doc title> > <heading path>\\n<body>"`` so each chunk carries its context.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .knowledge import KbDoc, anchor_for

__all__ = ["Chunk", "chunk_docs", "chunker_settings"]

_EMBED_KEYS = ("heading",)
# Aliases and tags are indexed with a doc's introduction but never quoted in answers.
KEYWORDS_PREFIX = "Keywords: "
_KEYWORDS_LINE = re.compile(r"(?m)^Keywords: .*$\n?")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass
class Chunk:
    id: str
    doc_id: str
    text: str  # body text of this chunk (no heading line)
    embed_text: str  # what gets embedded and keyword-indexed
    metadata: dict[str, Any]
    sha: str  # hash of embed_text: unchanged chunks keep their embedding


def chunker_settings(cfg: Any) -> dict[str, Any]:
    """The chunker's identity, recorded in the index manifest.

    ``cfg`` is a :class:`~gpukb.config.ChunkingConfig` or a mapping of its fields."""
    if isinstance(cfg, dict):
        from .config import ChunkingConfig

        cfg = ChunkingConfig(**cfg)
    return {
        "parser": "llama-index MarkdownNodeParser + SentenceSplitter",
        "max_tokens": int(cfg.max_tokens),
        "overlap_tokens": int(cfg.overlap_tokens),
        "version": 3,
    }


def _section_transform():
    from llama_index.core.schema import TransformComponent

    class SectionMetadata(TransformComponent):
        """Turns a MarkdownNodeParser node into a citable section."""

        def __call__(self, nodes, **kwargs):  # type: ignore[override]
            stack: list[tuple[int, str]] = []  # open headings above the current node
            doc = None
            for node in nodes:
                if node.metadata["doc_id"] != doc:
                    doc, stack = node.metadata["doc_id"], []
                text = node.get_content()
                first, _, rest = text.partition("\n")
                m = _HEADING_RE.match(first)
                title = node.metadata["title"]
                if m:
                    level, heading = len(m.group(1)), m.group(2).strip()
                    body = rest.strip("\n")
                else:  # text before the first heading
                    level, heading, body = 0, title, text
                if level <= 1:  # the H1 title block is the doc's introduction
                    section, trail = title, []
                else:
                    while stack and stack[-1][0] >= level:
                        stack.pop()
                    stack.append((level, heading))
                    section, trail = heading, [h for _, h in stack]
                node.set_content(body)
                node.metadata.pop("header_path", None)
                node.metadata.update({
                    "section": section,
                    "anchor": "" if level <= 1 else anchor_for(heading),
                    "level": level,
                    "heading": " > ".join([title, *trail]),
                })
                node.excluded_embed_metadata_keys = [k for k in node.metadata if k not in _EMBED_KEYS]
                node.excluded_llm_metadata_keys = list(node.excluded_embed_metadata_keys)
                node.metadata_template = "{value}"
                node.text_template = "{metadata_str}\n{content}"
            return [n for n in nodes if n.get_content().strip() or n.metadata.get("level", 0) <= 1]

    return SectionMetadata()


_SOURCE_KEYS = ("source", "overrides", "extends")


def _source_metadata(d: Any) -> dict[str, str]:
    """``source`` of a doc and, for a team doc, the bundled path it overrides or extends."""
    return {k: str(getattr(d, k, "") or "") for k in _SOURCE_KEYS if getattr(d, k, "")}


def _extension_body(x: Any, base: Any) -> str:
    """A team doc extending ``base``: its own title line dropped, text before its
    first ``##`` heading put under a heading of its own."""
    body = re.sub(r"\A\s*#\s+[^\n]*\n", "", x.body, count=1)
    m = re.search(r"^##\s", body, re.M)
    intro = (body[: m.start()] if m else body).strip()
    rest = body[m.start():] if m else ""
    if intro:
        heading = x.title if x.title and x.title != base.title else f"Notes from {x.source}"
        rest = f"## {heading}\n\n{intro}\n\n{rest}"
    return rest


def _with_section_aliases(body: str, aliases: dict[str, list[str]]) -> str:
    """``body`` with each section's alternative phrasings as a keywords line right under its heading:
    indexed with that section (embedded and keyword-searched), stripped wherever text is shown."""
    if not aliases:
        return body
    out = []
    for line in body.split("\n"):
        out.append(line)
        m = _HEADING_RE.match(line)
        if m and len(m.group(1)) >= 2 and aliases.get(m.group(2)):
            out += ["", KEYWORDS_PREFIX + ", ".join(aliases[m.group(2)])]
    return "\n".join(out)


def chunk_docs(
    docs: Sequence[KbDoc], cfg: Any, token_counter: Callable[[str], list] | None = None
) -> tuple[dict[str, dict[str, Any]], list[Chunk]]:
    """Split docs into sections (key ``doc_id#anchor``) and chunks.

    Deterministic: the same docs and settings give the same chunks."""
    from llama_index.core import Document
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter
    from llama_index.core.schema import MetadataMode

    settings = chunker_settings(cfg)
    splitter_kwargs: dict[str, Any] = {
        "chunk_size": settings["max_tokens"],
        "chunk_overlap": settings["overlap_tokens"],
        "include_prev_next_rel": False,
    }
    if token_counter is not None:
        splitter_kwargs["tokenizer"] = token_counter
    by_heading = IngestionPipeline(transformations=[
        MarkdownNodeParser(include_prev_next_rel=False),
        _section_transform(),
    ])
    splitter = IngestionPipeline(transformations=[SentenceSplitter(**splitter_kwargs)])
    documents = []
    for d in docs:
        intro_extra = ""
        if d.aliases or d.tags:
            intro_extra = f"\n\n{KEYWORDS_PREFIX}" + ", ".join([*d.aliases, *d.tags])
        body = _with_section_aliases(d.body, d.section_aliases)
        # Put keywords into the introduction (before the first ## heading).
        m = re.search(r"^##\s", body, re.M)
        body = (body[: m.start()].rstrip() + intro_extra + "\n\n" + body[m.start():]) if m else body + intro_extra
        documents.append(Document(
            text=body, id_=d.id,
            metadata={
                "doc_id": d.id, "title": d.title, "area": d.area, "path": d.path,
                "source_urls": json.dumps(d.sources), "kind": "doc", **_source_metadata(d),
                **({"passing_terms": json.dumps(d.passing_terms)} if getattr(d, "passing_terms", None) else {}),
            },
        ))
        # Team docs that extend this one: their sections join the doc, each
        # keeping its own path and source.
        for x in getattr(d, "extensions", ()):
            documents.append(Document(
                text=_extension_body(x, d), id_=f"{d.id}+{x.source}:{x.path}",
                metadata={
                    "doc_id": d.id, "title": d.title, "area": d.area, "path": x.path,
                    "source_urls": json.dumps(x.sources), "kind": "doc", **_source_metadata(x),
                },
            ))
    section_nodes = by_heading.run(documents=documents, show_progress=False)
    sections: dict[str, dict[str, Any]] = {}
    for node in section_nodes:
        md = node.metadata
        key = f"{md['doc_id']}#{md.get('anchor', '')}"
        if key in sections:  # two headings with the same text in one doc
            sections[key]["text"] += "\n\n" + _KEYWORDS_LINE.sub("", node.get_content())
            continue
        sections[key] = {
            **{k: md[k] for k in ("doc_id", "title", "area", "path", "section", "anchor", "heading", "level")},
            "source_urls": json.loads(md["source_urls"]),
            "text": _KEYWORDS_LINE.sub("", node.get_content()).strip("\n"),
            **{k: md[k] for k in _SOURCE_KEYS if md.get(k)},
            **({"passing_terms": json.loads(md["passing_terms"])} if md.get("passing_terms") else {}),
        }
    nodes = splitter.run(nodes=section_nodes, show_progress=False)
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for node in nodes:
        md = dict(node.metadata)
        base = f"{md['doc_id']}#{md.get('anchor', '')}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        cid = f"{base}~{n}"
        embed_text = node.get_content(metadata_mode=MetadataMode.EMBED)
        md["chunk"] = n
        chunks.append(Chunk(
            id=cid, doc_id=md["doc_id"], text=node.get_content(), embed_text=embed_text,
            metadata=md, sha=hashlib.sha256(embed_text.encode()).hexdigest(),
        ))
    return sections, chunks
