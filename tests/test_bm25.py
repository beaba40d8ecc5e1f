"""The keyword index gpukb writes is the one bm25s would build, read memory-mapped."""

from __future__ import annotations

import numpy as np

from gpukb.bm25 import tokens, write_bm25
from gpukb.text import bm25_stopwords, stemmer

TEXTS = [
    "Request GPUs with nvidia.com/gpu in limits; the GPUs are whole numbers.",
    "Time-slicing replicas share one GPU between pods. Replicas replicas!",
    "MIG mixed strategy exposes nvidia.com/mig-1g.10gb resources",
    "ResourceQuota caps requests.nvidia.com/gpu per namespace",
    "the and of",  # only stopwords: an empty document
    "Volcano queues reclaim GPUs from other queues when capacity allows",
]


def _bm25s_index(texts):
    import bm25s

    tok = bm25s.tokenize(texts, stopwords=bm25_stopwords(), stemmer=stemmer(), show_progress=False)
    model = bm25s.BM25()
    model.index(tok, show_progress=False)
    return model, tok


def _csr(texts):
    from collections import Counter

    vocab: dict[str, int] = {}
    term_ids, counts, indptr = [], [], [0]
    for t in texts:
        for term, n in Counter(tokens(t)).items():
            term_ids.append(vocab.setdefault(term, len(vocab)))
            counts.append(n)
        indptr.append(len(term_ids))
    return term_ids, counts, indptr, vocab


def _by_term(data, indices, indptr, vocab):
    inv = {i: t for t, i in vocab.items()}
    out = {}
    for col in range(len(indptr) - 1):
        for k in range(indptr[col], indptr[col + 1]):
            out[(inv[col], int(indices[k]))] = float(data[k])
    return out


def _ours_and_bm25s(tmp_path, texts, rows):
    """Scores per (term, row) as gpukb writes them and as bm25s computes them."""
    model, tok = _bm25s_index(texts)
    term_ids, counts, indptr, vocab = _csr(texts)
    write_bm25(tmp_path / "bm25", rows, term_ids, counts, indptr, vocab)
    ours = _by_term(np.load(tmp_path / "bm25" / "data.csc.index.npy"),
                    np.load(tmp_path / "bm25" / "indices.csc.index.npy"),
                    np.load(tmp_path / "bm25" / "indptr.csc.index.npy"), vocab)
    s = model.scores
    return ours, _by_term(s["data"], s["indices"], s["indptr"], {t: i for t, i in tok.vocab.items()})


def test_tokens_match_bm25s_tokenize():
    import bm25s

    tok = bm25s.tokenize(TEXTS, stopwords=bm25_stopwords(), stemmer=stemmer(), show_progress=False,
                         return_ids=False)
    assert [tokens(t) for t in TEXTS] == tok


def test_scores_match_bm25s(tmp_path):
    rows = [(f"c{i}", {"doc_id": f"d{i}", "anchor": "", "area": "storage", "kind": "doc", "chunk": 0})
            for i in range(len(TEXTS))]
    ours, theirs = _ours_and_bm25s(tmp_path, TEXTS, rows)
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert abs(ours[key] - value) < 1e-6, key


def test_persisted_index_loads_memory_mapped_in_llama_index(tmp_path):
    from llama_index.core.schema import QueryBundle
    from llama_index.retrievers.bm25 import BM25Retriever

    term_ids, counts, indptr, vocab = _csr(TEXTS)
    # vocab ids need not be dense: a retired term keeps its number
    vocab = {**vocab, "retired": len(vocab)}
    rows = [(f"c{i}", {"doc_id": f"d{i}", "anchor": "a", "area": "storage", "kind": "doc", "chunk": i})
            for i in range(len(TEXTS))]
    write_bm25(tmp_path / "bm25", rows, term_ids, counts, indptr, vocab)
    r = BM25Retriever.from_persist_dir(str(tmp_path / "bm25"), mmap=True, show_progress=False)
    r.stemmer = stemmer()
    r.similarity_top_k = 3
    hits = r.retrieve(QueryBundle("resourcequota namespace"))
    assert hits[0].node.node_id == "c3" and hits[0].node.metadata["doc_id"] == "d3"
    assert hits[0].node.metadata["chunk"] == 3 and hits[0].node.get_content() == ""
    assert type(r.bm25.scores["data"]).__name__ == "memmap"

    # the same ranking as llama-index's own BM25Retriever over the same texts
    from llama_index.core.schema import TextNode

    from gpukb.text import bm25_stopwords

    ref = BM25Retriever.from_defaults(nodes=[TextNode(id_=f"c{i}", text=t) for i, t in enumerate(TEXTS)],
                                      similarity_top_k=3, stemmer=stemmer(), language=bm25_stopwords())
    for q in ("gpu quota requests.nvidia.com/gpu", "gpu quota", "time-slicing replicas", "volcano queues reclaim", "mig strategy"):
        ours = [(h.node.node_id, round(h.score, 5)) for h in r.retrieve(QueryBundle(q))]
        theirs = [(h.node.node_id, round(h.score, 5)) for h in ref.retrieve(QueryBundle(q))]
        assert ours == theirs, q


def test_memory_bm25_scores_as_bm25s():
    import bm25s

    from gpukb.bm25 import MemoryBM25

    corpus = [tokens(t) or ["_"] for t in TEXTS]
    ref = bm25s.BM25()
    ref.index(corpus, show_progress=False)
    ours = MemoryBM25(corpus)
    vocab = {t for doc in corpus for t in doc}
    for q in ("gpu quota request", "replica replica time", "volcano queue", "mig"):
        toks = [t for t in tokens(q) if t in vocab]
        if not toks:
            continue
        assert np.allclose(ours.get_scores(toks), ref.get_scores(toks), atol=1e-6), q


def test_column_order_is_a_stable_sort_for_any_vocabulary_size():
    from gpukb.bm25 import column_order

    rng = np.random.default_rng(3)
    for n_vocab in (50, 1 << 16, (1 << 16) + 1, 3_000_000):
        ids = rng.integers(0, n_vocab, size=20_000).astype(np.int32)
        assert np.array_equal(column_order(ids, n_vocab), np.argsort(ids, kind="stable")), n_vocab


def test_rows_with_no_terms_anywhere_score_as_bm25s(tmp_path):
    """Empty rows (only stopwords) first, in the middle and last."""
    texts = ["the and of", *TEXTS, "of the"]
    rows = [(f"c{i}", {"doc_id": f"d{i}"}) for i in range(len(texts))]
    ours, theirs = _ours_and_bm25s(tmp_path, texts, rows)
    assert ours.keys() == theirs.keys()
    assert all(abs(ours[k] - v) < 1e-6 for k, v in theirs.items())
    assert (tmp_path / "bm25" / "rows.txt").read_text().split("\n") == [cid for cid, _ in rows]
