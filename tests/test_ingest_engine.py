"""Ingest and answering with a deterministic embedder and real embedded Chroma."""

import json

import pytest

from conftest import make_hash_embedder, write_doc
from gpukb.backends.base import Evidence
from gpukb.backends.extractive import ExtractiveGenerator, split_units
from gpukb.engine import Engine
from gpukb.errors import IndexMismatchError, IndexMissingError, KnowledgeErrors
from gpukb.index import current_generation, read_manifest
from gpukb.ingest import index_status, ingest


def test_ingest_writes_manifest_and_is_incremental(tiny_settings):
    emb = make_hash_embedder()
    s1 = ingest(tiny_settings, embedder=emb)
    assert s1.docs == 3 and s1.embedded == s1.chunks > 0 and not s1.noop
    m = read_manifest(tiny_settings.home)
    assert m["embedding"]["dim"] == 64 and m["embedding"]["model_id"] == "test/hash-64"
    assert m["chunker"]["max_tokens"] == 230 and len(m["corpus_hash"]) == 64
    assert index_status(tiny_settings)["state"] == "current"

    # no-op: nothing embedded, same generation, the model is not even called
    calls = len(emb.calls)
    s2 = ingest(tiny_settings, embedder=emb)
    assert s2.noop and s2.generation == s1.generation and len(emb.calls) == calls

    # change one doc: only its changed chunks are embedded
    p = tiny_settings.kb_dir / "storage" / "rwx.md"
    p.write_text(p.read_text().replace("read-write.", "read-write at the same time."))
    assert index_status(tiny_settings)["state"] == "stale"
    s3 = ingest(tiny_settings, embedder=emb)
    assert s3.changed_docs == ["st-rwx"]
    assert 1 <= s3.embedded <= m["docs"]["st-rwx"]["chunks"]
    assert s3.skipped == s3.chunks - s3.embedded

    # --rebuild re-embeds everything
    s4 = ingest(tiny_settings, embedder=emb, rebuild=True)
    assert s4.embedded == s4.chunks


def test_deleted_doc_disappears(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    (tiny_settings.kb_dir / "storage" / "rwx.md").unlink()
    s = ingest(tiny_settings, embedder=emb)
    assert s.removed == 1 and s.removed_docs == ["st-rwx"]
    eng = Engine(tiny_settings, embedder=emb)
    ans = eng.ask("ReadWriteMany volumes share one dataset", k=5)
    assert "st-rwx" not in ans.retrieved
    assert all(not k.startswith("st-rwx") for k in eng.index.sections)


def test_bad_doc_leaves_previous_index(tiny_settings):
    emb = make_hash_embedder()
    first = ingest(tiny_settings, embedder=emb)
    p = tiny_settings.kb_dir / "storage" / "rwx.md"
    p.write_text(p.read_text().replace("area: storage", "area: nope"))
    with pytest.raises(KnowledgeErrors):
        ingest(tiny_settings, embedder=emb)
    assert current_generation(tiny_settings.home) == first.generation
    tiny_settings.answer.refuse_below = -1.0
    ans = Engine(tiny_settings, embedder=emb).ask("how do I request nvidia.com/gpu in limits")
    assert ans.citations


def test_crash_after_embedding_keeps_previous_index(tiny_settings):
    emb = make_hash_embedder()
    first = ingest(tiny_settings, embedder=emb)

    def boom():
        raise RuntimeError("simulated crash")

    with pytest.raises(RuntimeError):
        ingest(tiny_settings, embedder=emb, rebuild=True, _after_embed=boom)
    assert current_generation(tiny_settings.home) == first.generation
    tiny_settings.answer.refuse_below = -1.0
    assert Engine(tiny_settings, embedder=emb).ask("nvidia.com/gpu limits").citations


def test_missing_and_mismatched_index(tiny_settings):
    emb = make_hash_embedder()
    with pytest.raises(IndexMissingError, match="gpukb ingest"):
        Engine(tiny_settings, embedder=emb)
    ingest(tiny_settings, embedder=emb)
    tiny_settings.chunking.max_tokens = 100
    with pytest.raises(IndexMismatchError, match="ingest --rebuild"):
        Engine(tiny_settings, embedder=emb)
    tiny_settings.chunking.max_tokens = 230
    with pytest.raises(IndexMismatchError, match="ingest --rebuild"):
        Engine(tiny_settings, embedder=make_hash_embedder(dim=32))


def test_answer_cites_what_it_uses(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0
    eng = Engine(tiny_settings, embedder=emb)
    ans = eng.ask("how do I request a GPU: nvidia.com/gpu in limits?")
    assert not ans.refused
    assert ans.citations[0].doc_id == "dp-requesting"
    # citation numbers are 1..n and each appears in the body
    assert [c.n for c in ans.citations] == list(range(1, len(ans.citations) + 1))
    for c in ans.citations:
        assert f"[{c.n}]" in ans.body
    assert "Sources:" in ans.answer and "[1] Requesting GPUs" in ans.answer
    d = json.loads(json.dumps(ans.to_dict()))
    for key in ("question", "answer", "refused", "citations", "recipes", "manifest"):
        assert key in d
    for key in ("n", "doc_id", "title", "section", "path", "source_urls"):
        assert key in d["citations"][0]


def test_each_retrieved_section_carries_its_sentences_similarity_to_the_question(tiny_settings):
    from gpukb.backends.extractive import split_units
    from gpukb.sentences import PER_SECTION

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0
    eng = Engine(tiny_settings, embedder=emb)
    _ans, evidence, _t0 = eng._retrieve("how do I request a GPU: nvidia.com/gpu in limits?", None, None, "hybrid")
    for e in evidence:
        prose = [u for u in split_units(e.text) if u.kind in ("sent", "item")]
        assert len(e.unit_similarity) == min(len(prose), PER_SECTION), e.key
        assert all(-1.0 <= x <= 1.0 for x in e.unit_similarity)
    # the sentence that says what was asked is the closest of its section
    best = evidence[0]
    assert max(best.unit_similarity) > min(best.unit_similarity) or len(best.unit_similarity) == 1


def test_refusal_below_threshold(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = 2.0  # nothing can reach it
    ans = Engine(tiny_settings, embedder=emb).ask("how do I request a GPU")
    assert ans.refused and ans.citations == [] and "does not cover" in ans.answer
    assert len(ans.closest) <= 3


def test_off_vocabulary_lowers_confidence(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    assert eng.confidence("sourdough hydration loaf", 0.6) < eng.confidence("gpu quota volumes", 0.6)


def test_a_ticket_key_is_no_word_of_the_question(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    assert eng.confidence("MLPLAT-1423 gpu quota volumes", 0.6) == eng.confidence("gpu quota volumes", 0.6)
    assert eng.confidence("sourdough-1423 gpu quota volumes", 0.6) < eng.confidence("gpu quota volumes", 0.6)


def test_a_question_mixing_in_another_language_is_not_read_as_another_topic(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    mixed = eng.confidence("wie stelle ich sicher that only the gpu quota und die volumes apply", 0.6)
    unknown = eng.confidence("sourdough starter hydration that only the gpu quota and the volumes apply", 0.6)
    assert unknown < mixed
    # ... while one written in the other language alone, its English only names, stays unread as such
    alone = eng.confidence("wie kann ich die gpu quota und die volumes in einem namespace teilen", 0.6)
    assert alone < mixed


def test_area_filter(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0
    ans = Engine(tiny_settings, embedder=emb).ask("GPU", area="storage")
    assert set(ans.retrieved) <= {"st-rwx"}


def _ev(i, text, section="S"):
    return Evidence(key=f"d{i}#s", doc_id=f"d{i}", title=f"T{i}", section=section, anchor="s", path=f"kb/x/d{i}.md",
                    area="storage", source_urls=["https://x"], text=text, rank=i)


def test_extractive_numbering_follows_first_use_and_skips_unused():
    gen = ExtractiveGenerator(max_words=80)
    ev = [_ev(0, "Quota caps GPUs with requests.nvidia.com/gpu. Extra words here."),
          _ev(1, "Unrelated sentence about bread."),
          _ev(2, "The quota key requests.nvidia.com/gpu counts GPU requests in a namespace.")]
    out = gen.compose("gpu quota requests.nvidia.com/gpu", ev)
    assert out.cited[0] == 0
    assert 1 not in out.cited  # nothing from the bread section was used
    assert "[1]" in out.text and ("[2]" in out.text) == (len(out.cited) == 2)


def test_extractive_keeps_code_for_howto_only():
    body = "Use this pod.\n\n```yaml\napiVersion: v1\nkind: Pod\n```\n"
    gen = ExtractiveGenerator()
    assert "```yaml" in gen.compose("how do I write the pod yaml", [_ev(0, body)]).text
    assert "```yaml" not in gen.compose("why pod", [_ev(0, body)]).text


def test_split_units_kinds():
    units = split_units("First sentence. Second one.\n\n- item one\n- item two\n\n```bash\nls\n```\n\n| a | b |\n|---|---|\n")
    assert [u.kind for u in units] == ["sent", "sent", "item", "item", "code", "table"]


def test_word_budget_is_respected():
    long = " ".join(f"Fact {i} about gpu quota." for i in range(100))
    out = ExtractiveGenerator(max_words=60).compose("gpu quota", [_ev(0, long)])
    words = [w for w in out.text.split() if not (w.startswith("[") and w.endswith("]"))]
    assert 30 <= len(words) <= 60


def test_relative_links_are_rewritten_to_kb_paths():
    from gpukb.backends.extractive import resolve_links

    text = "See [MIG](../gpu-sharing/mig.md#profiles) and [quota](quota.md), [web](https://x.org/a.md)."
    out = resolve_links(text, "kb/multi-tenancy/limits.md")
    assert "(kb/gpu-sharing/mig.md#profiles)" in out and "(kb/multi-tenancy/quota.md)" in out
    assert "(https://x.org/a.md)" in out
    # a link to a section of the same doc points into that doc once quoted elsewhere
    assert resolve_links("See [zero](#scale-from-zero).", "kb/autoscaling/ca.md") == \
        "See [zero](kb/autoscaling/ca.md#scale-from-zero)."


def test_store_reads_large_collections_in_pages(tmp_path):
    from gpukb.backends.base import StoredChunk
    from gpukb.backends.chroma import ChromaStore

    store = ChromaStore("gpukb-paging", path=tmp_path / "c", create=True)
    store.add([StoredChunk(id=f"c{i}", text=f"t{i}", metadata={"sha": str(i)}, embedding=[float(i % 7), 1.0, 0.5])
               for i in range(23)])
    got = store.get_all(page=5)
    assert sorted(c.id for c in got) == sorted(f"c{i}" for i in range(23))
    assert all(c.embedding is not None and len(c.embedding) == 3 for c in got)


def test_provenance_lines_never_reach_an_answer():
    from gpukb.backends.extractive import split_units

    body = "The fix is to set `sizeLimit`.\n\n> Seen upstream: [a/b#1](https://github.com/a/b/issues/1) · component: kubernetes · versions: 1.30+\n"
    assert [u.text for u in split_units(body)] == ["The fix is to set `sizeLimit`."]


def _snapshot(home):
    """What a generation answers from, independent of how it was built."""
    import numpy as np

    from gpukb.index import current_generation
    from gpukb.meta import META_FILE, Sections, Vocabulary

    gen = home / "generations" / current_generation(home)
    secs = Sections(gen / META_FILE)
    bm = gen / "bm25"
    vocab = json.loads((bm / "vocab.index.json").read_text())
    inv = {i: t for t, i in vocab.items()}
    data, indices, indptr = (np.load(bm / f"{n}.csc.index.npy") for n in ("data", "indices", "indptr"))
    rows = [json.loads(line)["node_id"] for line in (bm / "corpus.jsonl").read_text().splitlines()]
    scores = {(inv[c], rows[int(indices[k])]): round(float(data[k]), 5)
              for c in range(len(indptr) - 1) for k in range(indptr[c], indptr[c + 1])}
    return {"sections": {k: secs[k] for k in secs}, "stand_ins": secs.stand_ins(),
            "vocab": sorted(Vocabulary(gen / META_FILE)), "rows": rows, "bm25": scores}


def test_incremental_generation_equals_a_full_build(tiny_settings, tmp_path):
    from gpukb.config import load_settings

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    kb = tiny_settings.kb_dir
    p = kb / "storage" / "rwx.md"
    p.write_text(p.read_text().replace("read-write.", "read-write at once.") + "\n## Snapshots\n\nVolumeSnapshot copies.\n")
    (kb / "multi-tenancy" / "quota.md").unlink()
    write_doc(tiny_settings.root, "gpu-sharing", "mig", id="gs-mig", title="MIG", intro="",
              body="## Profiles\n\nMIG profiles such as 1g.10gb.\n")
    inc = ingest(tiny_settings, embedder=emb)
    assert inc.changed_docs == ["st-rwx"] and inc.removed_docs == ["mt-quota"] and inc.added_docs == ["gs-mig"]
    m = read_manifest(tiny_settings.home)
    assert m["built_from"] is not None  # started from a copy of the previous generation

    full_settings = load_settings(home=tmp_path / "full-home", root=tiny_settings.root)
    ingest(full_settings, embedder=make_hash_embedder())
    assert read_manifest(full_settings.home)["built_from"] is None
    a, b = _snapshot(tiny_settings.home), _snapshot(full_settings.home)
    assert a["sections"] == b["sections"] and a["stand_ins"] == b["stand_ins"] == {"gs-mig#": "gs-mig#profiles"}
    assert a["vocab"] == b["vocab"] and "sourdough" not in a["vocab"]
    assert a["rows"] == b["rows"] and a["bm25"] == b["bm25"]
    tiny_settings.answer.refuse_below = -1.0
    full_settings.answer.refuse_below = -1.0
    e1, e2 = Engine(tiny_settings, embedder=emb), Engine(full_settings, embedder=emb)
    assert e1.index.store.count() == e2.index.store.count() == m["chunks"]
    for q in ("MIG profiles 1g.10gb", "ReadWriteMany snapshots", "GPU quota", "nvidia.com/gpu limits"):
        assert e1.ask(q).retrieved == e2.ask(q).retrieved, q


def _published_then_edited(settings, emb):
    """Ingest, then edit one doc: (the published generation, a digest of its files before the
    edit, a function that digests them again)."""
    import hashlib

    gen = ingest(settings, embedder=emb).generation
    gen_dir = settings.home / "generations" / gen

    def digest():
        return {str(p.relative_to(gen_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(gen_dir.rglob("*")) if p.is_file()}

    p = settings.kb_dir / "storage" / "rwx.md"
    before = digest()
    p.write_text(p.read_text() + "\n## More\n\nMore text about volumes.\n")
    return gen, before, digest


def test_killed_incremental_ingest_leaves_published_generation_untouched(tiny_settings):
    emb = make_hash_embedder()
    first_gen, before, digest = _published_then_edited(tiny_settings, emb)

    def boom():
        raise RuntimeError("simulated kill")

    with pytest.raises(RuntimeError):
        ingest(tiny_settings, embedder=emb, _after_embed=boom)
    assert current_generation(tiny_settings.home) == first_gen
    assert digest() == before
    s = ingest(tiny_settings, embedder=emb)  # the next ingest finishes the job
    assert s.changed_docs == ["st-rwx"] and current_generation(tiny_settings.home) == s.generation


def test_older_index_format_is_stale_and_refused_with_a_clear_message(tiny_settings):
    from gpukb.index import publish, write_json_atomic

    emb = make_hash_embedder()
    first = ingest(tiny_settings, embedder=emb)
    mpath = tiny_settings.home / "generations" / first.generation / "manifest.json"
    m = json.loads(mpath.read_text())
    write_json_atomic(mpath, {**m, "format": 2})
    publish(tiny_settings.home, first.generation)  # an intact index of an older format
    assert index_status(tiny_settings)["state"] == "stale"
    with pytest.raises(IndexMismatchError, match="has format 2.*gpukb ingest"):
        Engine(tiny_settings, embedder=emb)
    s = ingest(tiny_settings, embedder=emb)
    assert not s.noop and s.embedded == 0  # rebuilt in the new format, embeddings reused
    assert Engine(tiny_settings, embedder=emb).index.manifest["format"] == m["format"]


def test_terms_the_best_section_names_raise_confidence(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.coverage_weight = 0.3
    eng = Engine(tiny_settings, embedder=emb)
    sec = _ev(0, "Cap GPUs per namespace with a ResourceQuota on requests.nvidia.com/gpu.", "GPU quota")
    off = _ev(0, "PriorityClass values order pods for preemption.", "Priority")
    q = "cap gpu quota per namespace"
    assert eng.confidence(q, 0.6, sec) > eng.confidence(q, 0.6, off) == eng.confidence(q, 0.6)
    tiny_settings.answer.coverage_weight = 0.0
    assert Engine(tiny_settings, embedder=emb).confidence(q, 0.6, sec) == eng.confidence(q, 0.6)


def test_an_answer_citing_a_stale_doc_says_so_in_one_line(tiny_settings):
    import datetime as dt

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0
    eng = Engine(tiny_settings, embedder=emb)
    eng.today = dt.date(2026, 12, 1)
    fresh = eng.ask("how do I request a GPU")
    assert fresh.citations and "out of date" not in fresh.answer
    eng.today = dt.date(2028, 1, 1)
    stale = eng.ask("how do I request a GPU")
    notes = [line for line in stale.body.splitlines() if "out of date" in line]
    assert len(notes) == 1 and "2026-11-29" in notes[0] and "[1]" in notes[0] and "365 days" in notes[0]
    assert "out of date" not in stale.answer.split("Sources:")[1]


def test_rare_unknown_words_cost_more_confidence_than_everyday_ones_or_typos(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.oov_weight = 1.0
    tiny_settings.answer.common_oov_weight = 0.1
    eng = Engine(tiny_settings, embedder=emb)
    eng._common_words = {"outage", "everything"}
    vocab = eng.index.vocabulary
    assert "quota" in vocab or "quota" in {t for t in vocab}
    assert eng._unknown_terms("gpu quota outage everything", vocab) == (0, 2)
    assert eng._unknown_terms("gpu quota slurm hcsshim", vocab) == (2, 0)
    assert eng._unknown_terms("gpu qouta", vocab) == (0, 1)  # one swap from a KB word
    # sizes and model numbers are not topic words; contraction stubs are not words at all
    assert eng._unknown_terms("gpu quota 140gb mi300x", vocab) == (0, 2)
    assert eng._unknown_terms("gpu quota aren't", vocab) == (0, 0)
    assert eng.confidence("gpu quota outage", 0.6) > eng.confidence("gpu quota slurm", 0.6)


# -- a small change is a small amount of work ------------------------------------

def _rows(gen):
    """chunk id -> (corpus line, vector row, term counts) of a generation."""
    import numpy as np

    bm = gen / "bm25"
    ids = (bm / "rows.txt").read_text().split("\n")
    lines = (bm / "corpus.jsonl").read_bytes().splitlines(keepends=True)
    vecs = np.load(gen / "vectors.npy")
    vocab = {i: t for t, i in json.loads((bm / "vocab.index.json").read_text()).items()}
    terms, counts, indptr = (np.load(bm / f"tf.{n}.npy") for n in ("terms", "counts", "indptr"))
    return {cid: (lines[i], vecs[i].tobytes(),
                  sorted((vocab[int(t)], int(n)) for t, n in zip(terms[indptr[i]:indptr[i + 1]],
                                                                 counts[indptr[i]:indptr[i + 1]])))
            for i, cid in enumerate(ids)}


def test_one_changed_doc_is_the_only_work(tiny_settings, monkeypatch):
    """Unchanged docs' rows are copied byte for byte; only the changed doc is
    tokenized and embedded; the files written are checksummed as they are
    written, so only files changed in place (the SQLite files) are read again."""
    from gpukb import bm25 as bm25_mod
    from gpukb import index as index_mod

    emb = make_hash_embedder()
    first = ingest(tiny_settings, embedder=emb)
    before = _rows(tiny_settings.home / "generations" / first.generation)
    p = tiny_settings.kb_dir / "storage" / "rwx.md"
    p.write_text(p.read_text() + "\n## Snapshots\n\nVolumeSnapshot copies of a dataset volume.\n")

    tokenized: list[str] = []
    real_counts, real_sha = bm25_mod.term_counts, index_mod._sha256
    monkeypatch.setattr(bm25_mod, "term_counts", lambda text: tokenized.append(text) or real_counts(text))
    hashed: list[str] = []
    monkeypatch.setattr(index_mod, "_sha256", lambda path: hashed.append(path.name) or real_sha(path))
    calls = len(emb.calls)
    s = ingest(tiny_settings, embedder=emb)
    # the one new chunk text, then the new section's two texts for the sentence match (heading, sentence)
    assert s.changed_docs == ["st-rwx"] and emb.calls[calls:] == [1, 2]

    after = _rows(tiny_settings.home / "generations" / s.generation)
    mine = {cid for cid in after if cid.startswith("st-rwx#")}
    assert len(tokenized) == 1  # the new text only: the doc's other texts keep their counts
    assert {cid: row for cid, row in after.items() if cid not in mine} == \
           {cid: row for cid, row in before.items() if not cid.startswith("st-rwx#")}
    assert not [h for h in hashed if h.endswith((".npy", ".json", ".jsonl", ".txt"))]
    assert "meta.sqlite" in hashed  # edited in place: read once for its checksum
    assert index_status(tiny_settings, deep=True)["state"] == "current"  # the checksums are right


def test_rows_follow_path_order_through_adds_and_removals(tiny_settings):
    """A doc added before, between and after the others, and one removed: the
    incremental rows are the rows of a full build, vectors included."""
    import numpy as np

    from gpukb.config import load_settings

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    root = tiny_settings.root
    write_doc(root, "autoscaling", "first", id="aa-first", title="First", body="## One\n\nAlpha text.\n")
    write_doc(root, "multi-tenancy", "between", id="mt-between", title="Between", body="## Two\n\nBeta text.\n")
    write_doc(root, "storage", "zz-last", id="zz-last", title="Last", body="## Three\n\nGamma text.\n")
    (tiny_settings.kb_dir / "device-plugin" / "requesting.md").unlink()
    ingest(tiny_settings, embedder=emb)
    full = load_settings(home=root.parent / "full-home", root=root)
    ingest(full, embedder=make_hash_embedder())
    gen_inc = tiny_settings.home / "generations" / current_generation(tiny_settings.home)
    gen_full = full.home / "generations" / current_generation(full.home)
    a, b = _rows(gen_inc), _rows(gen_full)
    assert list(a) == list(b) and a == b
    assert list(a)[0].startswith("aa-first#") and list(a)[-1].startswith("zz-last#")
    assert np.array_equal(np.load(gen_inc / "vectors.npy"), np.load(gen_full / "vectors.npy"))


def test_kill_while_writing_rows_leaves_published_generation(tiny_settings, monkeypatch):
    from gpukb import bm25 as bm25_mod

    emb = make_hash_embedder()
    first_gen, before, digest = _published_then_edited(tiny_settings, emb)

    def killed(*a, **kw):
        raise KeyboardInterrupt  # vectors.npy and the corpus are written, the scores are not

    monkeypatch.setattr(bm25_mod, "write_scores", killed)
    with pytest.raises(KeyboardInterrupt):
        ingest(tiny_settings, embedder=emb)
    monkeypatch.undo()
    assert current_generation(tiny_settings.home) == first_gen and digest() == before
    assert index_status(tiny_settings, deep=True)["state"] == "stale"  # intact, one doc behind
    tiny_settings.answer.refuse_below = -1.0
    assert Engine(tiny_settings, embedder=emb).ask("nvidia.com/gpu limits").citations
    s = ingest(tiny_settings, embedder=emb)
    assert s.changed_docs == ["st-rwx"] and s.embedded == 1
    assert sorted(p.name for p in (tiny_settings.home / "generations").iterdir()) == sorted(
        {first_gen, s.generation})  # the partial generation is gone
    assert index_status(tiny_settings, deep=True)["state"] == "current"


def test_carried_checksum_finds_a_damaged_copy(tiny_settings):
    """A file copied unchanged from the base generation keeps the checksum
    recorded when it was written: a copy of a damaged file (same size) is
    found by the deep check, not blessed with a fresh checksum."""
    from gpukb.backends.chroma import copy_embedded
    from gpukb.index import FileSums, check_index, data_files

    ingest(tiny_settings, embedder=make_hash_embedder())
    home = tiny_settings.home
    gen = home / "generations" / current_generation(home)
    recorded = read_manifest(home)["files"]
    rel, entry = max(((r, e) for r, e in recorded.items() if r.startswith("chroma/")), key=lambda kv: kv[1]["size"])
    src = gen / rel
    data = bytearray(src.read_bytes())
    data[len(data) // 2] ^= 0x01  # same size, one bit flipped
    src.write_bytes(bytes(data))

    new = home / "generations" / "g-20990101T000000-abcdef"
    copied = copy_embedded(gen / "chroma", new / "chroma")
    sums = FileSums(new)
    for r in copied:
        sums.carry(new / "chroma" / r, recorded.get(f"chroma/{r}"))
    files = data_files(new, sums.known)
    assert files[rel] == entry  # carried, not recomputed from the damaged bytes
    from gpukb.index import _sha256

    assert _sha256(new / rel) != entry["sha256"]
    # published, the copy is found damaged by the deep check
    from gpukb.index import publish, write_json_atomic

    write_json_atomic(new / "manifest.json", {**read_manifest(home), "generation": new.name, "files": files})
    publish(home, new.name)
    assert check_index(home).state == "ok"  # sizes match
    deep = check_index(home, deep=True)
    assert deep.state == "damaged" and deep.problems == [f"{rel}: contents differ from the checksum"]


def test_ingest_verify_rebuilds_a_file_changed_in_place(tiny_settings):
    """A same-size change is invisible to the size check a plain ingest makes;
    ``ingest --verify`` reads the checksums and rebuilds instead of copying it."""
    from gpukb.index import check_index

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    home = tiny_settings.home
    gen = home / "generations" / current_generation(home)
    rel = max(read_manifest(home)["files"].items(), key=lambda kv: kv[1]["size"])[0]
    data = bytearray((gen / rel).read_bytes())
    data[len(data) // 2] ^= 0x01
    (gen / rel).write_bytes(bytes(data))
    assert ingest(tiny_settings, embedder=emb).noop  # sizes match: nothing to do
    s = ingest(tiny_settings, embedder=emb, verify=True)
    assert s.repaired == [f"{rel}: contents differ from the checksum"] and not s.noop
    assert check_index(home, deep=True).state == "ok"


def test_an_index_of_the_previous_format_is_rebuilt_not_spliced(tiny_settings):
    """Format 4 kept term counts in meta.sqlite and ordered rows by path only:
    such an index is stale and the next ingest builds from scratch."""
    from gpukb.index import FORMAT, publish, write_json_atomic

    emb = make_hash_embedder()
    first = ingest(tiny_settings, embedder=emb)
    mpath = tiny_settings.home / "generations" / first.generation / "manifest.json"
    write_json_atomic(mpath, {**json.loads(mpath.read_text()), "format": FORMAT - 1})
    publish(tiny_settings.home, first.generation)
    assert index_status(tiny_settings)["state"] == "stale"
    s = ingest(tiny_settings, embedder=emb)
    m = read_manifest(tiny_settings.home)
    assert not s.noop and m["built_from"] is None and m["format"] == FORMAT
    assert index_status(tiny_settings, deep=True)["state"] == "current"


def test_row_plan_copies_runs_and_makes_new_docs():
    from gpukb.rows import RowPlan

    base = [("a", "kb/a.md", 2), ("b", "kb/b.md", 3), ("c", "kb/c.md", 1), ("d", "kb/d.md", 4)]
    new = [("a", "kb/a.md", 2), ("b", "kb/b.md", 5), ("bb", "kb/bb.md", 1), ("d", "kb/d.md", 4)]
    plan = RowPlan.make(base, new, fresh={"b", "bb"})
    assert plan.runs == [("base", (0, 2)), ("new", "b"), ("new", "bb"), ("base", (6, 10))]
    assert plan.base_total == 10 and plan.total == 12 and plan.kept == {"a": 0, "d": 6}
    # neighbouring kept docs are one run
    assert RowPlan.make(base, base, fresh=set()).runs == [("base", (0, 10))]
    with pytest.raises(ValueError):  # a kept doc the base does not hold as described
        RowPlan.make(base, [("a", "kb/a.md", 3)], fresh=set())


def test_a_docs_passing_terms_are_no_sign_of_coverage(tiny_settings):
    """A doc that maps another system's words ("gres", "sbatch") onto Kubernetes keeps them out of
    the KB vocabulary, so a question about that system alone still reads as one the KB lacks."""
    from gpukb.index import current_generation
    from gpukb.meta import META_FILE, Vocabulary

    p = write_doc(tiny_settings.root, "training-jobs", "from-slurm", id="jobs-from-slurm", title="From Slurm",
                  intro="", body="## Requests\n\nSlurm's gres and sbatch map to nvidia.com/gpu limits on pods.\n")
    p.write_text(p.read_text().replace("\ntitle:", "\npassing_terms: [slurm, gres, sbatch]\ntitle:", 1))
    ingest(tiny_settings, embedder=make_hash_embedder())
    vocab = Vocabulary(tiny_settings.home / "generations" / current_generation(tiny_settings.home) / META_FILE)
    assert "map" in vocab and "limit" in vocab or "limits" in vocab
    assert not {"slurm", "gres", "sbatch"} & set(vocab)
    # about that system alone, a passing term weighs as two rare words; about Kubernetes too, nothing
    eng = Engine(tiny_settings, embedder=make_hash_embedder())
    eng._common_words = set()
    assert eng._unknown_terms("how do I write gres for nvidia.com/gpu limits", vocab) == (2, 0)
    about_k8s = "the kubernetes pod equivalent of {}for nvidia.com/gpu limits"
    assert eng._unknown_terms(about_k8s.format("gres "), vocab) == eng._unknown_terms(about_k8s.format(""), vocab)
    alone = "no kubernetes here: {}for nvidia.com/gpu limits"
    assert eng._unknown_terms(alone.format("gres "), vocab)[0] == eng._unknown_terms(alone.format(""), vocab)[0] + 2


def test_a_question_nearer_an_out_of_scope_topic_than_the_kb_is_refused(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0  # confidence alone refuses nothing
    question = "what hydration for a sourdough loaf and how long to proof it"
    tiny_settings.answer.out_of_scope = []
    assert not Engine(tiny_settings, embedder=emb).ask(question).refused
    tiny_settings.answer.out_of_scope = ["Baking bread: sourdough hydration, proof time and a loaf's crumb."]
    eng = Engine(tiny_settings, embedder=emb)
    ans = eng.ask(question)
    assert ans.refused and ans.citations == []
    # a question the KB answers stays answered with the topic configured
    assert not eng.ask("how do I request a GPU in limits").refused
    # ... and a margin says how much nearer the topic must be
    tiny_settings.answer.out_of_scope_margin = 1.0
    assert not Engine(tiny_settings, embedder=emb).ask(question).refused


@pytest.mark.parametrize("question, refused", [
    ("how do I request a GPU in limits", False),
    ("how do I request a GPU on plain VMs without kubernetes", True),
    ("docker on a workstation, no k8s: how do I request a GPU?", True),
    ("how do I request a GPU without kubernetes admin rights", False),  # a qualifier, Kubernetes still there
    ("how do I request a GPU in plain docker on my laptop, no cluster?", True),
    ("how do I request a GPU from outside the cluster", False),
    ("we run on-prem, not on EKS: how do I request a GPU?", False),  # another distribution, still Kubernetes
])
def test_a_question_that_sets_kubernetes_aside_is_outside_the_kb(tiny_settings, question, refused):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0  # confidence from the words alone refuses nothing
    assert Engine(tiny_settings, embedder=emb).ask(question).refused is refused


def test_each_question_of_a_message_brings_its_own_section(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0
    eng = Engine(tiny_settings, embedder=emb)
    first = ("How do I request a GPU in the limits of my pod spec, and are fractions of a GPU in limits rejected "
             "when a pod requests a GPU?")
    second = "Which access mode shares a volume?"
    alone = eng.ask(first, k=2)
    both = eng.ask(f"{first} {second}", k=2)
    assert "st-rwx" not in alone.retrieved[:2]
    assert "st-rwx" in both.retrieved[:2]  # the later question's best section joins the first ones
    # a later part that asks nothing of its own (no question mark) brings nothing
    stated = eng.ask(f"{first} We use ReadWriteMany volumes for datasets on many nodes", k=2)
    assert stated.retrieved[:1] == alone.retrieved[:1]


def test_a_message_that_lists_its_questions_answers_each_from_its_own_section(tiny_settings):
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.refuse_below = -1.0
    eng = Engine(tiny_settings, embedder=emb)
    first = "how do I request a GPU in the limits of my pod spec?"
    second = "which access mode shares a volume between pods on many nodes?"
    listed = eng.ask(f"two questions:\n1) {first}\n2) {second}", k=2)
    # each item's own best section leads, in the list's order, and each is cited under its number
    assert listed.retrieved[0] == eng.ask(first, k=1).retrieved[0]
    assert listed.retrieved[1] == eng.ask(second, k=1).retrieved[0] == "st-rwx"
    assert listed.body.startswith("**1.**") and "**2.**" in listed.body
    assert [c.doc_id for c in listed.citations][:2] == listed.retrieved[:2]


def test_a_question_hidden_among_unrelated_notes_is_answered_by_what_it_asks(tiny_settings):
    from gpukb.engine import FOCUS_MARGIN, FOCUS_MIN_TERMS
    from gpukb.retrieval import asked_focus
    from gpukb.text import terms

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    tiny_settings.answer.oov_weight = 1.0
    eng = Engine(tiny_settings, embedder=emb)
    eng.out_of_scope = []
    notes = ("Sprint notes: Zanele owns the grafana handover, the kafka brokers move on Monday and the retro "
             "is at three. Oh, while I remember: {ask} Anyway, bring stickies.")
    ask = "how do I cap a namespace with a ResourceQuota, and which prefix do extended resources take in a quota?"
    q = notes.format(ask=ask)
    focus = asked_focus(q)
    assert focus.endswith(ask) and len(set(terms(focus))) >= FOCUS_MIN_TERMS
    whole, alone = eng.retriever.retrieve(q, k=3), eng.retriever.retrieve(focus, k=3)
    sure_whole = eng.confidence(q, whole.top_vector, whole.evidence[0])
    sure_alone = eng.confidence(focus, alone.top_vector, alone.evidence[0])
    assert sure_alone > sure_whole + FOCUS_MARGIN
    eng.refuse_below = sure_whole + 0.001  # the message as a whole is refused
    ans = eng.ask(q)
    assert not ans.refused and ans.citations[0].doc_id == "mt-quota"
    # an asked sentence that leans on its context ("how do I roll it back?") does not stand alone
    short = notes.format(ask="how do I roll the quota back?")
    assert len(set(terms(asked_focus(short)))) < FOCUS_MIN_TERMS and eng.ask(short).refused
    # an asked sentence the KB does not cover leaves the message refused too
    q2 = notes.format(ask="how do I defragment the zookeeper snapshots on every kafka broker before the upgrade?")
    got2 = eng.retriever.retrieve(asked_focus(q2), k=3)
    assert eng.confidence(asked_focus(q2), got2.top_vector, got2.evidence[0]) < eng.refuse_below + FOCUS_MARGIN
    assert eng.ask(q2).refused
