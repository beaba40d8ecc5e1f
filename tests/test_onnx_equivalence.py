"""The ONNX embedder gives sentence-transformers' vectors, so an index built by
either backend answers the same with either."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from conftest import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedders(real_index_home):
    from gpukb.backends.embedders import sentence_transformers_embedder
    from gpukb.backends.onnx import onnx_embedder

    # the session index exported the model into its home: reuse that file
    return onnx_embedder(home=real_index_home, export=False), sentence_transformers_embedder()


@pytest.fixture(scope="module")
def kb_texts(embedders):
    from gpukb.chunking import chunk_docs
    from gpukb.config import load_settings
    from gpukb.knowledge import load_kb

    s = load_settings(root=REPO)
    _, chunks = chunk_docs(load_kb(s.kb_dir), s.chunking, embedders[0].token_counter())
    return {c.id: c.embed_text for c in chunks}


@pytest.fixture(scope="module")
def questions():
    from gpukb.evals import load_questions

    return load_questions(REPO / "evals" / "questions")


def _cos(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_model_id_and_dimension_are_shared(embedders):
    onnx, st = embedders
    assert onnx.model_id == st.model_id and onnx.dim == st.dim == 384


def test_vectors_match_on_every_chunk_and_question(embedders, kb_texts, questions):
    onnx, st = embedders
    texts = list(kb_texts.values())
    ref = np.asarray(st.embed_documents(texts))
    assert _cos(onnx.embed_documents(texts), ref).min() >= 0.9999  # ingest: batched
    assert _cos([onnx.embed_query(t) for t in texts], ref).min() >= 0.9999  # one at a time
    qs = [q["question"] for q in questions]
    got = _cos([onnx.embed_query(q) for q in qs], [st.embed_query(q) for q in qs])
    assert got.min() >= 0.9999, qs[int(got.argmin())]


def test_retrieval_is_identical_on_the_dev_set(embedders, kb_texts, questions, real_index_home, tmp_path):
    """Top-5 docs of every dev question: an index built by the ONNX backend,
    asked through either backend; and the same index with sentence-transformers'
    document vectors, asked through ONNX."""
    from gpukb.config import load_settings
    from gpukb.engine import Engine

    onnx, st = embedders
    st_home = tmp_path / "st-home"
    shutil.copytree(real_index_home, st_home, ignore=shutil.ignore_patterns("models"))
    gen = st_home / "generations" / (st_home / "CURRENT").read_text().split('"')[3]
    ids = (gen / "bm25" / "rows.txt").read_text().split("\n")
    np.save(gen / "vectors.npy", np.asarray(st.embed_documents([kb_texts[i] for i in ids]), dtype=np.float32))

    def top5(home, embedder):
        eng = Engine(load_settings(home=home, root=REPO), embedder=embedder)
        return [eng.retriever.retrieve(q["question"], k=5).evidence for q in questions]

    base = top5(real_index_home, onnx)
    for home, emb in ((real_index_home, st), (st_home, onnx)):
        other = top5(home, emb)
        for q, a, b in zip(questions, base, other):
            assert [e.doc_id for e in a] == [e.doc_id for e in b], q["question"]
