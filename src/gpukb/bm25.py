"""The keyword index: bm25s's on-disk format, built from cached term counts.

The files are exactly what ``bm25s.BM25.save`` writes (score matrix as CSC
arrays, vocabulary, parameters, a JSON Lines corpus with its offsets) plus
llama-index's ``retriever.json``, so ``BM25Retriever.from_persist_dir(path,
mmap=True)`` reads them memory-mapped. What differs is how they are made:
each chunk is tokenized once (:func:`tokens`, the same tokenization as
``bm25s.tokenize`` with gpukb's stopwords and stemmer) and its term counts are
kept in the index metadata by chunk text hash, so a new generation recomputes
the scores of every chunk with a few vectorised numpy passes instead of
re-tokenizing the corpus. Scores follow bm25s' default method (``lucene``:
k1 1.5, b 0.75) and match ``bm25s.BM25.index`` (``tests/test_bm25.py``).

Each corpus row is a slim llama-index ``TextNode``: the chunk id and the
metadata retrieval reads (doc id, anchor, area, kind, chunk number), no text.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

from .text import WORD_PATTERN, bm25_stopwords, stemmer

__all__ = ["tokens", "term_counts", "write_bm25", "MemoryBM25", "PARAMS", "CORPUS_KEYS"]

K1, B = 1.5, 0.75  # bm25s' defaults
PARAMS: dict[str, Any] = {"k1": K1, "b": B, "delta": 0.5, "method": "lucene", "idf_method": "lucene",
          "dtype": "float32", "int_dtype": "int32"}
# Chunk metadata kept in each BM25 corpus row.
CORPUS_KEYS = ("doc_id", "anchor", "area", "kind", "chunk")
# bm25s and llama-index's BM25Retriever read these; the values are theirs.
BM25S_VERSION_TAG = "gpukb"

_SPLIT = re.compile(WORD_PATTERN).findall
_STOP: frozenset[str] | None = None


def tokens(text: str) -> list[str]:
    """``bm25s.tokenize`` of one text as gpukb indexes it: lowercase word
    tokens, stopwords dropped, then stemmed with the shared stemmer."""
    global _STOP
    if _STOP is None:
        _STOP = frozenset(bm25_stopwords())
    stem = stemmer().stemWord
    return [stem(w) for w in _SPLIT(text.lower()) if w not in _STOP]


def term_counts(text: str) -> Counter[str]:
    return Counter(tokens(text))


class MemoryBM25:
    """A small in-memory BM25 over token lists, scoring as ``bm25s.BM25``
    (``index(corpus_tokens)`` then ``get_scores(query_tokens)``) does, without
    importing bm25s and scipy. For small corpora such as the recipe library."""

    def __init__(self, corpus: Sequence[Sequence[str]]):
        n = len(corpus)
        self.vocab: dict[str, int] = {}
        df: dict[str, int] = {}
        rows = []
        for doc in corpus:
            counts = Counter(doc)
            rows.append((counts, sum(counts.values())))
            for t in counts:
                df[t] = df.get(t, 0) + 1
        avg = (sum(length for _, length in rows) / n) if n else 0.0
        k1, b = K1, B
        import math

        import numpy as np

        idf = {t: np.float32(math.log(1 + (n - d + 0.5) / (d + 0.5))) for t, d in df.items()}
        self._scores: dict[str, dict[int, Any]] = {}
        for i, (counts, length) in enumerate(rows):
            for t, tf in counts.items():
                tfc = np.float32(tf) / (k1 * ((1 - b) + b * np.float64(length) / np.float64(avg or 1.0)) + np.float32(tf))
                self._scores.setdefault(t, {})[i] = np.float32(idf[t] * tfc)
        self.n = n

    def get_scores(self, query: Sequence[str]):
        """Scores of every document for ``query`` tokens (unknown ones ignored; repeats count again)."""
        import numpy as np

        out = np.zeros(self.n, dtype=np.float32)
        for t in query:
            for i, s in self._scores.get(t, {}).items():
                out[i] += s
        return out


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _npy(path: Path, arr: Any) -> None:
    import numpy as np

    with open(path, "wb") as fh:
        np.save(fh, arr, allow_pickle=False)


def write_bm25(path: Path, rows: Sequence[tuple[str, dict[str, Any]]], term_ids: Any, counts: Any, indptr: Any,
               vocab: dict[str, int], similarity_top_k: int = 20) -> None:
    """Write a bm25s index for ``rows`` (chunk id, metadata) in order.

    ``term_ids``/``counts``/``indptr`` are the rows' term counts in CSR form
    (row ``i`` owns ``term_ids[indptr[i]:indptr[i+1]]``, each term once);
    ``vocab`` maps every term id in use (and possibly retired ones) to its term.
    """
    import numpy as np

    path.mkdir(parents=True, exist_ok=True)
    n_docs = len(rows)
    n_vocab = (max(vocab.values()) + 1) if vocab else 0
    term_ids = np.asarray(term_ids, dtype=np.int64)
    tf = np.asarray(counts, dtype=np.float32)
    indptr = np.asarray(indptr, dtype=np.int64)
    row_len = np.diff(indptr)
    # Document length: tokens in the chunk (repeats counted), as bm25s counts them.
    doc_len = np.add.reduceat(tf, indptr[:-1]) if len(tf) else np.zeros(n_docs, np.float32)
    doc_len = np.where(row_len > 0, doc_len, 0).astype(np.float64)
    avg_len = float(doc_len.mean()) if n_docs else 0.0
    df = np.bincount(term_ids, minlength=n_vocab).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        idf = np.where(df > 0, np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)), 0.0).astype(np.float32)
    rows_of = np.repeat(np.arange(n_docs, dtype=np.int64), row_len)
    k1, b = K1, B
    tfc = tf / (k1 * ((1 - b) + b * doc_len[rows_of] / (avg_len or 1.0)) + tf)
    scores = (idf[term_ids].astype(np.float64) * tfc).astype(np.float32)
    # CSC: columns are terms, rows ascending within a column (what scipy builds).
    order = np.argsort(term_ids, kind="stable")
    data = scores[order]
    indices = rows_of[order].astype(np.int32)
    col_ptr = np.zeros(n_vocab + 1, dtype=np.int32)
    np.cumsum(np.bincount(term_ids, minlength=n_vocab), out=col_ptr[1:])
    _npy(path / "data.csc.index.npy", data)
    _npy(path / "indices.csc.index.npy", indices)
    _npy(path / "indptr.csc.index.npy", col_ptr)
    vocab_dict = dict(vocab)
    if "" not in vocab_dict:  # bm25s' empty token, for queries with no known term
        vocab_dict[""] = n_vocab
    _write_atomic(path / "vocab.index.json", json.dumps(vocab_dict, ensure_ascii=False).encode())
    params = {**PARAMS, "num_docs": n_docs, "version": BM25S_VERSION_TAG, "backend": "numpy"}
    _write_atomic(path / "params.index.json", json.dumps(params, indent=4).encode())
    _write_corpus(path, rows)
    _write_atomic(path / "query_stopwords.json", json.dumps(sorted(_query_stopwords())).encode())
    _write_atomic(path / "retriever.json", json.dumps(
        {"similarity_top_k": max(1, min(similarity_top_k, n_docs)), "verbose": False,
         "corpus_weight_mask": None}, indent=2).encode())


def _write_corpus(path: Path, rows: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """corpus.jsonl in llama-index's node-as-metadata form, and bm25s' line offsets."""
    dumps = json.dumps
    offsets: list[int] = []  # where each line starts
    pos = 0
    parts: list[bytes] = []
    for cid, md in rows:
        meta = {k: md.get(k) for k in CORPUS_KEYS if md.get(k) is not None}
        node = {"id_": cid, "metadata": meta, "text": "", "class_name": "TextNode"}
        line = (dumps({**meta, "_node_content": dumps(node, ensure_ascii=False), "_node_type": "TextNode",
                       "node_id": cid}, ensure_ascii=False) + "\n").encode()
        parts.append(line)
        offsets.append(pos)
        pos += len(line)
    import numpy as np

    _write_atomic(path / "corpus.jsonl", b"".join(parts))
    _write_atomic(path / "corpus.mmindex.json", json.dumps(offsets).encode())
    _npy(path / "corpus.offsets.npy", np.asarray(offsets, dtype=np.int64))
    _write_atomic(path / "rows.txt", "\n".join(cid for cid, _ in rows).encode())


def _query_stopwords() -> tuple[str, ...]:
    """The stopwords llama-index's BM25Retriever drops from a query (it calls
    ``bm25s.tokenize`` with bm25s' default English list); stored with the index
    so answering needs no bm25s import."""
    from bm25s.stopwords import STOPWORDS_EN

    return tuple(STOPWORDS_EN)
