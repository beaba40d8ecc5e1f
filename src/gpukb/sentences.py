"""Sentence vectors of each section, for the retriever's sentence match.

A chunk's vector averages a whole passage; a question is usually answered by one
sentence of it ("Label each node with nvidia.com/mig.config=all-1g.10gb"). Ingest
embeds each section's heading path and its first :data:`PER_SECTION` sentences or
list items into ``sentences.npz`` of the generation (reusing the base generation's
vectors for unchanged text), and :class:`SentenceVectors` reads them back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

FILE = "sentences.npz"
# Sentences (and list items) of a section that the sentence match reads, after its heading path.
PER_SECTION = 12


def section_texts(sec: Mapping[str, Any]) -> list[str]:
    """What the sentence match compares a question with: the heading path, then the first sentences."""
    from .backends.extractive import split_units

    units = [u.text for u in split_units(str(sec.get("text", ""))) if u.kind in ("sent", "item")]
    return [f"{sec['title']}: {sec['section']}", *units[:PER_SECTION]]


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _embedded(embedder: Any, texts: list[str]) -> Any:
    """``texts`` embedded as documents, each row normalised to unit length."""
    import numpy as np

    vecs = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
    return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)


def write(gen_dir: Path, sections: Mapping[str, Mapping[str, Any]], embedder: Callable[[], Any],
          base_dir: Path | None = None) -> int:
    """Write ``sentences.npz`` for ``sections``; texts the base generation embedded are reused.
    ``embedder`` gives the embedding model when something must be embedded. Returns how many
    texts were embedded."""
    import numpy as np

    keys: list[str] = []
    offsets = [0]
    texts: list[str] = []
    for key in sections:
        own = section_texts(sections[key])
        keys.append(key)
        texts.extend(own)
        offsets.append(len(texts))
    old: dict[str, Any] = {}
    if base_dir is not None and (base_dir / FILE).is_file():
        try:
            with np.load(base_dir / FILE, allow_pickle=False) as z:
                old = dict(zip(z["shas"].tolist(), z["vectors"]))
        except (OSError, ValueError, KeyError):
            old = {}  # an unreadable base file is no cache
    shas = [_sha(t) for t in texts]
    todo = list(dict.fromkeys(s for s in shas if s not in old))
    if todo:
        first = {s: t for s, t in zip(shas, texts)}
        vecs = _embedded(embedder(), [first[s] for s in todo])
        old.update(zip(todo, vecs.astype(np.float16)))
    dim = len(next(iter(old.values()))) if old else 0
    matrix = np.stack([old[s] for s in shas]).astype(np.float16) if shas else np.zeros((0, dim), np.float16)
    tmp = gen_dir / (FILE + ".tmp.npz")
    np.savez(tmp, keys=np.asarray(keys, dtype=str), offsets=np.asarray(offsets, dtype=np.int64),
             shas=np.asarray(shas, dtype=str), vectors=matrix)
    tmp.replace(gen_dir / FILE)
    return len(todo)


class SentenceVectors:
    """Per section, the normalised vectors of :func:`section_texts`: read from the generation's
    ``sentences.npz`` when it has one, else embedded on first use (an index built before the file
    existed, or a query-only embedder's absence of one) and kept."""

    def __init__(self, gen_dir: Path | None, sections: Mapping[str, Mapping[str, Any]], embedder: Any):
        self._sections = sections
        self._embedder = embedder
        self._rows: dict[str, Any] = {}
        self._file = gen_dir / FILE if gen_dir is not None else None
        self._loaded = False

    def _load(self) -> None:
        import numpy as np

        self._loaded = True
        if self._file is None or not self._file.is_file():
            return
        try:
            with np.load(self._file, allow_pickle=False) as z:
                keys, offsets, vectors = z["keys"].tolist(), z["offsets"], z["vectors"].astype(np.float32)
        except (OSError, ValueError, KeyError):
            return  # unreadable: embed on first use instead
        for i, key in enumerate(keys):
            self._rows[key] = vectors[int(offsets[i]):int(offsets[i + 1])]

    def scores(self, embedding: Sequence[float], keys: Sequence[str]) -> dict[str, float]:
        """The best cosine similarity between ``embedding`` and one of each section's texts."""
        return {k: float(v.max()) for k, v in self.similarities(embedding, keys).items() if len(v)}

    def similarities(self, embedding: Sequence[float], keys: Sequence[str]) -> dict[str, Any]:
        """Per section, the cosine similarity between ``embedding`` and each of its texts, in the
        order of :func:`section_texts` (the heading path first)."""
        import numpy as np

        if not self._loaded:
            self._load()
        todo = [k for k in dict.fromkeys(keys) if k not in self._rows and k in self._sections]
        if todo and callable(getattr(self._embedder, "embed_documents", None)):
            texts: list[str] = []
            spans: list[tuple[str, int, int]] = []
            for key in todo:
                own = section_texts(self._sections[key])
                spans.append((key, len(texts), len(texts) + len(own)))
                texts.extend(own)
            vecs = _embedded(self._embedder, texts)
            for key, lo, hi in spans:
                self._rows[key] = vecs[lo:hi]
        q = np.asarray(embedding, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        return {k: self._rows[k] @ q for k in keys if k in self._rows}
