"""The keyword index: bm25s's on-disk format, built from cached term counts.

The files are exactly what ``bm25s.BM25.save`` writes (score matrix as CSC
arrays, vocabulary, parameters, a JSON Lines corpus with its offsets) plus
llama-index's ``retriever.json``, so ``BM25Retriever.from_persist_dir(path,
mmap=True)`` reads them memory-mapped. What differs is how they are made:
each chunk is tokenized once (:func:`tokens`, the same tokenization as
``bm25s.tokenize`` with gpukb's stopwords and stemmer) and its term counts are
kept beside the index as row-aligned CSR arrays (:data:`TF_FILES`), so a new
generation splices the unchanged rows' counts, tokenizes only the changed
docs, and recomputes every score with a few vectorised numpy passes (the
transpose to bm25s' CSC layout is a linear radix sort). Scores follow bm25s' default method (``lucene``:
k1 1.5, b 0.75) and match ``bm25s.BM25.index`` (``tests/test_bm25.py``).

Each corpus row is a slim llama-index ``TextNode``: the chunk id and the
metadata retrieval reads (doc id, anchor, area, kind, chunk number), no text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

from .text import WORD_PATTERN, bm25_stopwords, stemmer

__all__ = ["tokens", "term_counts", "write_bm25", "write_scores", "write_corpus", "corpus_line", "MemoryBM25",
           "PARAMS", "CORPUS_KEYS", "TF_FILES"]

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


def _open(path: Path, sums: Any = None):
    """A file to write: through ``sums`` (:class:`gpukb.index.FileSums`, which
    takes its checksum on the way) when given."""
    return sums.create(path) if sums is not None else open(path, "wb")


def _write(path: Path, data: bytes, sums: Any = None) -> None:
    with _open(path, sums) as fh:
        fh.write(data)


def _npy(path: Path, arr: Any, sums: Any = None) -> None:
    import numpy as np

    with _open(path, sums) as fh:
        np.lib.format.write_array(fh, np.ascontiguousarray(arr), allow_pickle=False)


# Row-aligned term counts (CSR) kept with the index so the next ingest splices
# them instead of tokenizing the corpus again; bm25s ignores these files.
TF_FILES = ("tf.terms.npy", "tf.counts.npy", "tf.indptr.npy")


def column_order(term_ids: Any, n_vocab: int) -> Any:
    """The stable order that sorts ``term_ids``: rows ascending within each term.
    Radix passes over 16-bit digits (linear time, as numpy sorts 16-bit keys)."""
    import numpy as np

    if n_vocab <= 1 << 16:
        return np.argsort(term_ids.astype(np.uint16), kind="stable")
    first = np.argsort((term_ids & 0xFFFF).astype(np.uint16), kind="stable")
    second = np.argsort((term_ids[first] >> 16).astype(np.uint16), kind="stable")
    return first[second]


def write_bm25(path: Path, rows: Sequence[tuple[str, dict[str, Any]]], term_ids: Any, counts: Any, indptr: Any,
               vocab: dict[str, int], similarity_top_k: int = 20, sums: Any = None) -> None:
    """Write a bm25s index for ``rows`` (chunk id, metadata) in order.

    ``term_ids``/``counts``/``indptr`` are the rows' term counts in CSR form
    (row ``i`` owns ``term_ids[indptr[i]:indptr[i+1]]``, each term once);
    ``vocab`` maps every term id in use (and possibly retired ones) to its term.
    """
    path.mkdir(parents=True, exist_ok=True)
    write_scores(path, term_ids, counts, indptr, vocab, similarity_top_k=similarity_top_k, sums=sums)
    write_corpus(path, [(cid, corpus_line(cid, md)) for cid, md in rows], sums=sums)


def write_scores(path: Path, term_ids: Any, counts: Any, indptr: Any, vocab: dict[str, int],
                 similarity_top_k: int = 20, sums: Any = None) -> None:
    """The score matrix (bm25s' CSC arrays), vocabulary and parameters for the
    rows whose term counts are given in CSR form; the counts themselves too
    (:data:`TF_FILES`)."""
    import numpy as np

    path.mkdir(parents=True, exist_ok=True)
    indptr = np.asarray(indptr, dtype=np.int64)
    n_docs = len(indptr) - 1
    n_vocab = (max(vocab.values()) + 1) if vocab else 0
    term_ids = np.asarray(term_ids, dtype=np.int32)
    counts = np.asarray(counts, dtype=np.int32)
    tf = counts.astype(np.float32)
    row_len = np.diff(indptr)
    # Document length: tokens in the chunk (repeats counted), as bm25s counts them.
    if n_docs:
        csum = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
        doc_len = (csum[indptr[1:]] - csum[indptr[:-1]]).astype(np.float64)
    else:
        doc_len = np.zeros(0, np.float64)
    avg_len = float(doc_len.mean()) if n_docs else 0.0
    col_counts = np.bincount(term_ids, minlength=n_vocab)
    df = col_counts.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        idf = np.where(df > 0, np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)), 0.0).astype(np.float32)
    rows_of = np.repeat(np.arange(n_docs, dtype=np.int32), row_len)
    k1, b = K1, B
    norm = (k1 * ((1 - b) + b * doc_len / (avg_len or 1.0))).astype(np.float64)
    tfc = tf / (norm[rows_of] + tf)
    scores = (idf[term_ids].astype(np.float64) * tfc).astype(np.float32)
    del tfc
    # CSC: columns are terms, rows ascending within a column (what scipy builds).
    order = column_order(term_ids, n_vocab)
    col_ptr = np.zeros(n_vocab + 1, dtype=np.int32)
    np.cumsum(col_counts, out=col_ptr[1:])
    _npy(path / "data.csc.index.npy", scores[order], sums)
    _npy(path / "indices.csc.index.npy", rows_of[order], sums)
    _npy(path / "indptr.csc.index.npy", col_ptr, sums)
    _npy(path / TF_FILES[0], term_ids, sums)
    _npy(path / TF_FILES[1], counts, sums)
    _npy(path / TF_FILES[2], indptr, sums)
    vocab_dict = dict(vocab)
    if "" not in vocab_dict:  # bm25s' empty token, for queries with no known term
        vocab_dict[""] = n_vocab
    _write(path / "vocab.index.json", json.dumps(vocab_dict, ensure_ascii=False).encode(), sums)
    params = {**PARAMS, "num_docs": n_docs, "version": BM25S_VERSION_TAG, "backend": "numpy"}
    _write(path / "params.index.json", json.dumps(params, indent=4).encode(), sums)
    _write(path / "query_stopwords.json", json.dumps(sorted(_query_stopwords())).encode(), sums)
    _write(path / "retriever.json", json.dumps(
        {"similarity_top_k": max(1, min(similarity_top_k, n_docs)), "verbose": False,
         "corpus_weight_mask": None}, indent=2).encode(), sums)


def corpus_line(cid: str, md: dict[str, Any]) -> bytes:
    """One corpus.jsonl line: a slim llama-index node (id and the metadata retrieval reads)."""
    dumps = json.dumps
    meta = {k: md.get(k) for k in CORPUS_KEYS if md.get(k) is not None}
    node = {"id_": cid, "metadata": meta, "text": "", "class_name": "TextNode"}
    return (dumps({**meta, "_node_content": dumps(node, ensure_ascii=False), "_node_type": "TextNode",
                   "node_id": cid}, ensure_ascii=False) + "\n").encode()


def write_corpus(path: Path, parts: Iterable[tuple[Any, Any]], sums: Any = None) -> None:
    """corpus.jsonl in llama-index's node-as-metadata form, bm25s' line offsets
    and ``rows.txt`` (the chunk ids in row order).

    ``parts`` are pieces in row order, each ``(ids, lines)``: a chunk id and its
    line (bytes), or a run of rows copied whole: a list of ids, the bytes of
    their lines and an array of where each line starts within those bytes."""
    import numpy as np

    path.mkdir(parents=True, exist_ok=True)
    offsets: list[Any] = []
    ids: list[str] = []
    pos = 0
    with _open(path / "corpus.jsonl", sums) as fh:
        for part in parts:
            if len(part) == 3:  # a run copied from another corpus
                run_ids, data, starts = part
                ids.extend(run_ids)
                offsets.append(np.asarray(starts, dtype=np.int64) + pos)
                fh.write(data)
                pos += len(data)
            else:
                cid, line = part
                ids.append(cid)
                offsets.append(np.asarray([pos], dtype=np.int64))
                fh.write(line)
                pos += len(line)
    flat = np.concatenate(offsets) if offsets else np.zeros(0, np.int64)
    _write(path / "corpus.mmindex.json", json.dumps(flat.tolist()).encode(), sums)
    _npy(path / "corpus.offsets.npy", flat, sums)
    _write(path / "rows.txt", "\n".join(ids).encode(), sums)


def _query_stopwords() -> tuple[str, ...]:
    """The stopwords llama-index's BM25Retriever drops from a query (it calls
    ``bm25s.tokenize`` with bm25s' default English list); stored with the index
    so answering needs no bm25s import."""
    from bm25s.stopwords import STOPWORDS_EN

    return tuple(STOPWORDS_EN)
