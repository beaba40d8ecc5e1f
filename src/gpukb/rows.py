"""The row-aligned files of a generation, and how an ingest writes them.

Every chunk is one row. Rows are in index order: docs by path, then doc id
(the ``docs`` table of ``meta.sqlite`` gives each doc's chunk count), a doc's
chunks in document order. These files share that order:

* ``vectors.npy``: one L2-normalised float32 row per chunk;
* ``bm25/rows.txt`` (chunk ids), ``bm25/corpus.jsonl`` with its offsets
  (``corpus.offsets.npy``, ``corpus.mmindex.json``);
* ``bm25/tf.terms.npy``, ``tf.counts.npy``, ``tf.indptr.npy``: each row's
  term counts (CSR), from which :func:`gpukb.bm25.write_scores` computes the
  bm25s score matrix.

A doc's rows are contiguous, so a new generation is a list of runs
(:class:`RowPlan`): rows of unchanged docs copied from the base generation a
run at a time (bytes, not re-serialised), and the rows of new or changed docs
made from their chunks. The work follows the change, plus one sequential copy
of each file; the score matrix is recomputed whole (document frequencies and
the average length are global), with vectorised numpy passes.
"""

from __future__ import annotations

import logging
import mmap
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

log = logging.getLogger(__name__)

__all__ = ["RowPlan", "BaseRows", "write_rows"]

_BLOCK = 65536  # rows copied per write: bounded memory at any scale


@dataclass
class RowPlan:
    """The new generation's rows as runs, in order: ``("base", (lo, hi))`` copies
    base rows ``lo..hi-1``; ``("new", doc_id)`` is a doc indexed by this ingest."""

    runs: list[tuple[str, Any]] = field(default_factory=list)
    base_start: dict[str, int] = field(default_factory=dict)  # every base doc -> its first base row
    kept: dict[str, int] = field(default_factory=dict)  # docs whose rows are copied -> first base row
    base_total: int = 0
    total: int = 0

    @classmethod
    def make(cls, base_layout: Iterable[tuple[str, str, int]], new_layout: Iterable[tuple[str, str, int]],
             fresh: set[str]) -> RowPlan:
        """From the base generation's layout and the new one ((doc id, path,
        chunks) in index order); ``fresh`` are the docs this ingest indexes."""
        plan = cls()
        pos = 0
        base_n: dict[str, int] = {}
        for doc_id, _, n in base_layout:
            plan.base_start[doc_id] = pos
            base_n[doc_id] = n
            pos += n
        plan.base_total = pos
        total = 0
        for doc_id, _, n in new_layout:
            total += n
            if doc_id in fresh:
                plan.runs.append(("new", doc_id))
                continue
            lo = plan.base_start.get(doc_id)
            if lo is None or base_n[doc_id] != n:
                raise ValueError(f"doc {doc_id} is kept but the base generation does not hold its rows")
            plan.kept[doc_id] = lo
            if plan.runs and plan.runs[-1][0] == "base" and plan.runs[-1][1][1] == lo:
                plan.runs[-1] = ("base", (plan.runs[-1][1][0], lo + n))
            elif n:
                plan.runs.append(("base", (lo, lo + n)))
        plan.total = total
        return plan


class BaseRows:
    """The row-aligned files of a published generation, memory-mapped."""

    def __init__(self, gen_dir: Path, n: int):
        import numpy as np

        self.dir = gen_dir
        self.n = n
        bm = gen_dir / "bm25"
        self.vectors = np.load(gen_dir / "vectors.npy", mmap_mode="r")
        self.terms = np.load(bm / "tf.terms.npy", mmap_mode="r")
        self.counts = np.load(bm / "tf.counts.npy", mmap_mode="r")
        self.indptr = np.load(bm / "tf.indptr.npy", mmap_mode="r")
        self.offsets = np.load(bm / "corpus.offsets.npy", mmap_mode="r")
        self.corpus_size = (bm / "corpus.jsonl").stat().st_size
        if (self.vectors.ndim != 2 or len(self.vectors) != n or self.indptr.shape != (n + 1,)
                or self.offsets.shape != (n,) or len(self.terms) != len(self.counts)
                or (n and int(self.indptr[-1]) != len(self.terms))):
            raise ValueError("row counts differ")

    @classmethod
    def open(cls, gen_dir: Path, n: int) -> BaseRows | None:
        """The generation's rows if every row-aligned file holds ``n`` rows, else None."""
        try:
            return cls(gen_dir, n)
        except (OSError, ValueError) as exc:
            log.warning("generation %s cannot be the base of the next one: %s", gen_dir.name, exc)
            return None

    @cached_property
    def ids(self) -> list[str]:
        ids = (self.dir / "bm25" / "rows.txt").read_text(encoding="utf-8").split("\n") if self.n else []
        if len(ids) != self.n:
            raise ValueError(f"rows.txt lists {len(ids)} rows, expected {self.n}")
        return ids

    @cached_property
    def corpus(self) -> Any:
        if not self.corpus_size:
            return b""
        with open(self.dir / "bm25" / "corpus.jsonl", "rb") as fh:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    def corpus_run(self, lo: int, hi: int) -> tuple[list[str], bytes, Any]:
        """Rows ``lo..hi-1`` of the corpus: their ids, their lines and where each starts."""
        start = int(self.offsets[lo])
        end = int(self.offsets[hi]) if hi < self.n else self.corpus_size
        return self.ids[lo:hi], self.corpus[start:end], self.offsets[lo:hi] - start


def _term_counts(chunks: Iterable[Any], meta: Any, base: BaseRows | None,
                 base_row: dict[str, int]) -> dict[str, tuple[Any, Any]]:
    """text hash -> (term ids, counts) of these chunks' texts: a text the base
    generation has (``base_row``: text hash -> its row) keeps its counts, the
    others are tokenized, numbering new terms in ``meta`` (the numbering only
    grows, so the base's numbers stand)."""
    import numpy as np

    from .bm25 import term_counts

    out: dict[str, tuple[Any, Any]] = {}
    todo: dict[str, Any] = {}
    for c in chunks:
        if c.sha in out or c.sha in todo:
            continue
        row = base_row.get(c.sha) if base is not None else None
        if row is not None:
            a, b = int(base.indptr[row]), int(base.indptr[row + 1])  # type: ignore[union-attr]
            out[c.sha] = (np.asarray(base.terms[a:b]), np.asarray(base.counts[a:b]))  # type: ignore[union-attr]
        else:
            todo[c.sha] = term_counts(c.embed_text)
    ids = meta.term_ids(t for counts in todo.values() for t in counts)
    for sha, counts in todo.items():
        out[sha] = (np.fromiter((ids[t] for t in counts), dtype=np.int32, count=len(counts)),
                    np.fromiter(counts.values(), dtype=np.int32, count=len(counts)))
    return out


def write_rows(gen_dir: Path, plan: RowPlan, by_doc_chunks: dict[str, list[Any]], new_vecs: dict[str, Any],
               meta: Any, base: BaseRows | None, dim: int, sums: Any = None, similarity_top_k: int = 20,
               base_row: dict[str, int] | None = None) -> None:
    """Write ``vectors.npy`` and ``bm25/`` for ``plan``: base runs copied from
    ``base``, new docs' rows from their chunks (``by_doc_chunks``) and vectors
    (``new_vecs``, chunk id -> normalised vector). ``meta`` numbers terms;
    ``base_row`` (text hash -> a base row with that text) spares tokenizing
    texts the base generation has."""
    import numpy as np

    from .bm25 import _open, corpus_line, write_corpus, write_scores

    if any(kind == "base" for kind, _ in plan.runs) and base is None:
        raise ValueError("the plan copies rows but there is no base generation")
    new_chunks = [c for kind, doc_id in plan.runs if kind == "new" for c in by_doc_chunks.get(doc_id, [])]
    tf = _term_counts(new_chunks, meta, base, base_row or {})

    # vectors.npy
    with _open(gen_dir / "vectors.npy", sums) as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)),
                                                  "fortran_order": False, "shape": (plan.total, dim)})
        for kind, what in plan.runs:
            if kind == "base":
                lo, hi = what
                for start in range(lo, hi, _BLOCK):
                    fh.write(np.ascontiguousarray(base.vectors[start:min(hi, start + _BLOCK)]))  # type: ignore[union-attr]
            else:
                cs = by_doc_chunks.get(what, [])
                if cs:
                    fh.write(np.ascontiguousarray(np.stack([new_vecs[c.id] for c in cs]).astype(np.float32)))

    # term counts (CSR) and the corpus, run by run
    term_parts: list[Any] = []
    count_parts: list[Any] = []
    len_parts: list[Any] = []
    corpus_parts: list[tuple[Any, ...]] = []
    for kind, what in plan.runs:
        if kind == "base":
            lo, hi = what
            a, b = int(base.indptr[lo]), int(base.indptr[hi])  # type: ignore[union-attr]
            term_parts.append(base.terms[a:b])  # type: ignore[union-attr]
            count_parts.append(base.counts[a:b])  # type: ignore[union-attr]
            len_parts.append(np.diff(base.indptr[lo:hi + 1]))  # type: ignore[union-attr]
            corpus_parts.append(base.corpus_run(lo, hi))  # type: ignore[union-attr]
        else:
            cs = by_doc_chunks.get(what, [])
            for c in cs:
                t, n = tf[c.sha]
                term_parts.append(t)
                count_parts.append(n)
                corpus_parts.append((c.id, corpus_line(c.id, c.metadata)))
            len_parts.append(np.asarray([len(tf[c.sha][0]) for c in cs], dtype=np.int64))
    indptr = np.zeros(plan.total + 1, dtype=np.int64)
    if len_parts:
        np.cumsum(np.concatenate(len_parts), out=indptr[1:])
    terms = np.concatenate(term_parts).astype(np.int32, copy=False) if term_parts else np.zeros(0, np.int32)
    counts = np.concatenate(count_parts).astype(np.int32, copy=False) if count_parts else np.zeros(0, np.int32)
    bm = gen_dir / "bm25"
    write_corpus(bm, corpus_parts, sums=sums)
    write_scores(bm, terms, counts, indptr, meta.vocab(), similarity_top_k=similarity_top_k, sums=sums)

