"""The light query path ranks exactly as llama-index's retrievers over the same index."""

from __future__ import annotations

import pytest

from conftest import make_hash_embedder, write_doc
from gpukb.engine import Engine
from gpukb.ingest import ingest

QUESTIONS = [
    "how do I request a GPU: nvidia.com/gpu in limits?",
    "hey can someone tell me how to cap GPUs per namespace",
    "ReadWriteMany volume for a shared dataset",
    "fractions like 0.5 GPU rejected",
    "sourdough bread",
    "the and of",  # nothing but stopwords
]


@pytest.fixture
def engine(tiny_settings):
    root = tiny_settings.root
    for i in range(6):
        write_doc(root, "scheduling", f"s{i}", id=f"sched-{i}", title=f"Scheduling note {i}",
                  intro=f"Taints and tolerations for GPU pool {i}.",
                  body=f"## Node affinity {i}\n\nUse nodeSelector on GFD labels for pool {i}; GPUs stay dedicated.\n\n"
                       f"## Quota {i}\n\nA ResourceQuota for requests.nvidia.com/gpu in namespace team-{i}.\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    return Engine(tiny_settings, embedder=emb)


def test_llama_index_seams_rank_as_the_direct_path(engine):
    r = engine.retriever
    for q in QUESTIONS:
        for mode in ("hybrid", "vector", "bm25"):
            direct = r.retrieve(q, k=5, mode=mode)
            qb = r.query_bundle(q)
            nodes = r.for_mode(mode).retrieve(qb)
            for post in r.postprocessors(mode, 5):
                nodes = post.postprocess_nodes(nodes, qb)
            got = [(n.node.metadata["key"], round(float(n.score), 6)) for n in nodes[:5]]
            assert got == [(e.key, round(e.score, 6)) for e in direct.evidence], (q, mode)


def test_vector_search_matches_chroma_through_llama_index(engine):
    from llama_index.core import VectorStoreIndex

    r = engine.retriever
    index = VectorStoreIndex.from_vector_store(engine.index.store.llama_vector_store(),
                                               embed_model=engine.embedder.llama)
    ref = index.as_retriever(similarity_top_k=r.candidates)
    for q in QUESTIONS[:4]:
        ours = [(h.meta["doc_id"], h.meta["anchor"], h.meta["chunk"], round(h.score, 5))
                for h in r.vector_hits(engine.embedder.embed_query(q))]
        theirs = [(n.node.metadata["doc_id"], n.node.metadata["anchor"], n.node.metadata["chunk"], round(n.score, 5))
                  for n in ref.retrieve(q)]
        assert [t[3] for t in ours] == [t[3] for t in theirs], q  # the same similarities, in order
        cut = ours[-1][3]  # which of the chunks tied at the cut-off make it is arbitrary in both
        assert {t for t in ours if t[3] > cut} == {t for t in theirs if t[3] > cut}, q


def test_keyword_search_matches_llama_index_bm25_retriever(engine):
    from llama_index.core.schema import QueryBundle
    from llama_index.retrievers.bm25 import BM25Retriever

    from gpukb.text import keyword_query, stemmer

    r = engine.retriever
    ref = BM25Retriever.from_persist_dir(str(engine.index.dir / "bm25"), mmap=True, show_progress=False)
    ref.stemmer = stemmer()
    ref.similarity_top_k = min(r.candidates, engine.index.manifest["chunks"])
    for q in QUESTIONS:
        kq = keyword_query(q)
        ours = [(h.meta["node_id"], round(h.score, 5)) for h in r.keyword_hits(kq)]
        theirs = [(n.node.node_id, round(float(n.score), 5)) for n in ref.retrieve(QueryBundle(kq))]
        assert ours == theirs, q


@pytest.mark.parametrize("mode", ["dist_based_score", "relative_score", "reciprocal_rerank"])
def test_fusion_matches_query_fusion_retriever(engine, mode):
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import BaseRetriever, QueryFusionRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    from gpukb.retrieval import Hit, fuse

    r = engine.retriever

    class Fixed(BaseRetriever):
        def __init__(self, hits, tag):
            super().__init__()
            self.hits, self.tag = hits, tag

        def _retrieve(self, qb):
            return [NodeWithScore(node=TextNode(id_=f"{self.tag}{i}", text="", metadata={"tag": self.tag, "i": i}),
                                  score=h.score) for i, h in enumerate(self.hits)]

    for q in QUESTIONS:
        vec = r.vector_hits(engine.embedder.embed_query(q))
        kw = r.keyword_hits(q)
        ref = QueryFusionRetriever([Fixed(vec, "v"), Fixed(kw, "b")], llm=MockLLM(), mode=mode, num_queries=1,
                                   use_async=False, similarity_top_k=r.candidates * 2, retriever_weights=[0.3, 0.7])
        theirs = [(n.node.metadata["tag"], n.node.metadata["i"], round(float(n.score), 6))
                  for n in ref.retrieve(QueryBundle(q))]
        tagged = [Hit({"tag": "v", "i": i}, h.score) for i, h in enumerate(vec)] + \
                 [Hit({"tag": "b", "i": i}, h.score) for i, h in enumerate(kw)]
        fused = fuse([tagged[:len(vec)], tagged[len(vec):]], [0.3, 0.7], mode, r.candidates * 2)
        ours = [(h.meta["tag"], h.meta["i"], round(h.score, 6)) for h in fused]
        assert ours == theirs, (q, mode)


def test_full_fusion_is_dist_based_score_with_every_candidate_scored_by_both(engine):
    """``dist_based_full`` is llama-index's ``dist_based_score`` fusion run as if
    both retrievers had returned the whole candidate union with their real scores."""
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import BaseRetriever, QueryFusionRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    from gpukb.retrieval import fuse_full, keyword_query

    r = engine.retriever

    class Fixed(BaseRetriever):
        def __init__(self, scored):
            super().__init__()
            self.scored = scored

        def _retrieve(self, qb):
            return [NodeWithScore(node=TextNode(id_=f"r{row}", text="", metadata={"row": row}), score=s)
                    for row, s in self.scored]

    checked = 0
    for q in QUESTIONS:
        emb = engine.embedder.embed_query(q)
        kwq = keyword_query(q)
        all_kw = r.keywords.scores(kwq)
        rows = list(dict.fromkeys([row for row, _ in r.vectors.search(emb, r.candidates)]
                                  + [row for row, s in r.keywords.top(all_kw, r.candidates) if s > 0]))
        vs, bs = r.vectors.score_rows(emb, rows), [float(all_kw[row]) for row in rows]
        ref = QueryFusionRetriever([Fixed(list(zip(rows, vs))), Fixed(list(zip(rows, bs)))], llm=MockLLM(),
                                   mode="dist_based_score", num_queries=1, use_async=False,
                                   similarity_top_k=len(rows), retriever_weights=[0.3, 0.7])
        theirs = {n.node.metadata["row"]: round(float(n.score), 6) for n in ref.retrieve(QueryBundle(q))}
        ours = {row: round(s, 6) for row, s in fuse_full(rows, [vs, bs], [0.3, 0.7], len(rows))}
        assert ours == theirs, q
        # the hybrid path uses it, and a chunk only BM25 ranked keeps its vector score
        hits, _ = r.chunk_hits(q, "hybrid", embedding=emb)
        assert r.fusion_mode == "dist_based_full" and all(h.source == "fused" for h in hits)
        checked += len(set(rows) - {row for row, _ in r.vectors.search(emb, r.candidates)})
    assert checked  # some candidate came from BM25 alone


def test_vector_scores_of_given_rows_match_search(engine):
    r = engine.retriever
    emb = engine.embedder.embed_query(QUESTIONS[0])
    found = r.vectors.search(emb, 5)
    assert [round(s, 6) for s in r.vectors.score_rows(emb, [row for row, _ in found])] == \
        [round(s, 6) for _, s in found]


def test_ask_imports_neither_llama_index_nor_chroma(tiny_settings):
    import subprocess
    import sys

    emb_code = (
        "import sys, json\n"
        "from conftest import make_hash_embedder\n"
        "from gpukb.config import load_settings\n"
        "from gpukb.ingest import ingest\n"
        f"s = load_settings(home={str(tiny_settings.home)!r}, root={str(tiny_settings.root)!r})\n"
        "ingest(s, embedder=make_hash_embedder())\n"
    )
    tests_dir = str(__import__("pathlib").Path(__file__).parent)
    subprocess.run([sys.executable, "-c", emb_code], check=True, cwd=tests_dir)
    probe = (
        "import sys\n"
        "from gpukb.config import load_settings\n"
        "from gpukb.engine import Engine\n"
        "from gpukb.retrieval import Retriever\n"
        f"s = load_settings(home={str(tiny_settings.home)!r}, root={str(tiny_settings.root)!r})\n"
        "class E:\n"
        "    dim = 64; model_id = 'test/hash-64'\n"
        "    def embed_query(self, q): return [1.0] + [0.0] * 63\n"
        "eng = Engine(s, embedder=E())\n"
        "eng.ask('request nvidia.com/gpu in limits', with_manifest=False)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('llama_index', 'chromadb', 'torch', "
        "'sentence_transformers', 'transformers', 'scipy', 'bm25s'))\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout.strip()
    assert out == "", out


def test_a_heading_that_quotes_the_pasted_error_moves_up():
    from gpukb.retrieval import SectionHit, heading_rerank

    sections = {
        "x#overview": {"title": "Xid errors", "section": "What an Xid is and what it means"},
        "x#79": {"title": "Xid errors", "section": "NVRM: Xid 79, GPU has fallen off the bus"},
    }
    hits = [SectionHit("x#overview", 1.0), SectionHit("x#79", 0.8)]
    q = "dmesg shows:\n```\nNVRM: Xid (PCI:0000:3b:00): 79, pid=2211, GPU has fallen off the bus.\n```\nwhat does it mean?"
    assert [h.key for h in heading_rerank(hits, q, sections, 0.4)] == ["x#79", "x#overview"]
    # scattered shared words are no quoted phrase: the better-scored section stays first
    q2 = "what does an xid mean, is the gpu bus fine?"
    assert [h.key for h in heading_rerank(hits, q2, sections, 0.4)][0] == "x#overview"


def test_a_heading_that_quotes_a_message_quoted_in_a_one_line_question_moves_up():
    from gpukb.retrieval import SectionHit, heading_rerank

    sections = {
        "n#which": {"title": "No GPU in the container", "section": "Which error do you see: what each message tells you"},
        "n#nvml": {"title": "GPU Operator problems",
                   "section": "Failed to initialize NVML: Unknown Error days after the pod started"},
    }
    hits = [SectionHit("n#which", 1.0), SectionHit("n#nvml", 0.7)]
    q = 'nvidia-smi in the container says "Failed to initialize NVML: Unknown Error" after some hours. why?'
    assert [h.key for h in heading_rerank(hits, q, sections, 0.4)] == ["n#nvml", "n#which"]
    # the same words without quote marks are prose, not a pasted message
    q2 = "nvidia-smi failed to initialize, nvml unknown error after some hours. why?"
    assert [h.key for h in heading_rerank(hits, q2, sections, 0.4)][0] == "n#which"
    # two short quotes never join into one run
    q3 = 'it says "failed to initialize" and then "nvml unknown error" in the log'
    assert [h.key for h in heading_rerank(hits, q3, sections, 0.4)][0] == "n#which"


def test_a_message_that_asks_two_things_is_split_into_its_asked_parts():
    from gpukb.retrieval import question_parts

    parts = question_parts("We run Karpenter on EKS. How do I make a NodePool only for GPU instances, "
                           "and make sure idle GPU nodes get removed quickly?")
    assert len(parts) == 2
    assert parts[0].startswith("How do I make a NodePool") and "idle GPU nodes" not in parts[0]
    assert parts[1].startswith("make sure idle GPU nodes")
    # the context sentence goes with each part: it says what the parts are about
    assert all("Karpenter on EKS" in p for p in parts)
    parts = question_parts("How do I spread replicas across zones? Also, should GPU requests equal limits?")
    assert parts[1].startswith("should GPU requests equal limits")


def test_one_question_context_or_a_paste_is_not_split():
    from gpukb.retrieval import question_parts

    assert question_parts("how do i limit gpus per namespace and per user?") == []
    assert question_parts("Our cluster has 8 A100 nodes. How do I cap a namespace at 4 GPUs?") == []
    # a message over lines carries a paste: its lines are not separate questions
    assert question_parts("why is this pending?\nEvents: 0/3 nodes are available. How do I fix it?") == []
    # a second "question" too short to retrieve on is no part
    assert question_parts("What is DRA and how does it differ from the device plugin? Is it GA?") == []


def test_the_second_asked_part_brings_its_own_section_after_the_lead(tiny_settings):
    root = tiny_settings.root
    for i in range(4):
        write_doc(root, "autoscaling", f"np{i}", id=f"nodepool-{i}", title=f"GPU NodePool instances {i}",
                  intro=f"A NodePool for GPU instances {i}.",
                  body=f"## NodePool requirements for GPU instances {i}\n\nA NodePool selects GPU instance families "
                       f"and GPU instance types for the NodePool {i}; GPU instances only.\n")
    write_doc(root, "autoscaling", "consolidation", id="consolidation", title="Removing idle nodes",
              intro="Consolidation removes idle nodes.",
              body="## Consolidation of idle nodes\n\nconsolidationPolicy WhenEmpty deletes idle empty nodes after "
                   "consolidateAfter.\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    q = ("How do I make a NodePool that selects GPU instance families and GPU instance types, "
         "and make sure idle nodes get removed?")
    r = eng.retriever
    r.part_slots = 0
    whole = [e.doc_id for e in r.retrieve(q, k=5).evidence]
    r.part_slots = 1
    parted = [e.doc_id for e in r.retrieve(q, k=5).evidence]
    assert whole[0].startswith("nodepool-") and "consolidation" not in whole[:2], whole
    assert parted[0] == whole[0] and parted[1] == "consolidation"
    # the llama-index path ranks the same
    qb = r.query_bundle(q)
    nodes = r.for_mode("hybrid").retrieve(qb)
    for post in r.postprocessors("hybrid", 5):
        nodes = post.postprocess_nodes(nodes, qb)
    assert [n.node.metadata["key"].split("#")[0] for n in nodes[:5]] == parted


def test_the_section_with_the_sentence_that_answers_moves_up(tiny_settings):
    root = tiny_settings.root
    write_doc(root, "gpu-sharing", "mig-names", id="mig-names", title="MIG profiles",
              intro="MIG profiles on H100 nodes.",
              body="## MIG profile names on H100 nodes\n\nMIG profiles on H100 nodes such as 1g.10gb and 3g.40gb; "
                   "some nodes list 1g.10gb slices, others full GPUs, per H100 model.\n")
    filler = " ".join(f"Rollout step {i} drains the node and waits for validation." for i in range(5))
    write_doc(root, "gpu-sharing", "mig-manager", id="mig-manager", title="MIG manager",
              intro="The MIG manager applies layouts.",
              body=f"## Layouts per node\n\n{filler} Label each node with nvidia.com/mig.config to pick its layout. "
                   f"{filler}\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    r = eng.retriever
    q = "Label each node with nvidia.com/mig.config to pick its layout on H100 nodes with 1g.10gb slices?"
    r.sentence_weight = 0.0
    assert r.retrieve(q, k=3).evidence[0].doc_id == "mig-names"
    r.sentence_weight = 2.0
    calls = len(emb.calls)
    assert r.retrieve(q, k=3).evidence[0].doc_id == "mig-manager"
    # the sentence vectors were embedded at ingest: the query embeds no document text
    assert len(emb.calls) == calls
    assert (eng.index.dir / "sentences.npz").is_file()
    # the llama-index path ranks the same
    qb = r.query_bundle(q)
    nodes = r.for_mode("hybrid").retrieve(qb)
    for post in r.postprocessors("hybrid", 3):
        nodes = post.postprocess_nodes(nodes, qb)
    assert nodes[0].node.metadata["key"].startswith("mig-manager#")



def test_sentence_vectors_are_reused_across_generations_and_embedded_on_use_without_the_file(tiny_settings):
    from gpukb import sentences

    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    first = Engine(tiny_settings, embedder=emb).index.dir
    write_doc(tiny_settings.root, "storage", "extra", id="st-extra", title="Scratch space",
              intro="Scratch space lives in emptyDir volumes.", body="## Size limits\n\nSet sizeLimit on the emptyDir.\n")
    before = len(emb.calls)
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    assert eng.index.dir != first
    # only the new doc's sentences (and its chunks) were embedded: the rest came from the base generation
    embedded = sum(emb.calls[before:])
    assert 0 < embedded <= 10, emb.calls[before:]
    q = emb.embed_query("Set sizeLimit on the emptyDir.")
    assert eng.retriever.sentence_scores(q, ["st-extra#size-limits"])["st-extra#size-limits"] > 0.99
    # without the file (an index built before it existed) the vectors are embedded on first use, once
    lazy = sentences.SentenceVectors(None, eng.index.sections, emb)
    calls = len(emb.calls)
    stored = eng.retriever.sentence_scores(q, ["st-extra#size-limits"])["st-extra#size-limits"]
    assert lazy.scores(q, ["st-extra#size-limits"])["st-extra#size-limits"] == pytest.approx(stored, abs=2e-3)
    lazy.scores(q, ["st-extra#size-limits"])
    assert len(emb.calls) == calls + 1


def test_a_question_around_a_paste_is_matched_by_its_own_words_too(tiny_settings):
    root = tiny_settings.root
    metric = "gpu_util gpu util hostname device uuid modelName"
    write_doc(root, "observability", "hpa-metric", id="hpa-metric", title="Metric not found for pods",
              intro="The custom metrics API cannot find the metric.",
              body=f"## Metric not found for pods\n\nThe adapter reports {metric} not found for pods in another "
                   f"namespace.\n")
    filler = " ".join(f"Exporter step {i} reads the device list and writes series." for i in range(5))
    write_doc(root, "observability", "labels", id="labels", title="Exporter labels",
              intro="The exporter adds labels.",
              body=f"## Labels on series\n\n{filler} Each pod and namespace label says which pod uses which GPU. "
                   f"{filler}\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    paste = "\n".join(f"    gpu_util{{gpu=\"{i}\",hostname=\"node-{i}\",device=\"nvidia{i}\",uuid=\"u{i}\",modelName=\"x\"}} 97"
                      for i in range(4))
    q = f"series come through like this:\n{paste}\nwhich pod and namespace label says which pod uses which GPU?"
    r = eng.retriever
    r.sentence_weight = 2.0
    assert r.retrieve(q, k=2).evidence[0].doc_id == "labels"
    # the paste alone, with nothing asked in its own words, keeps the section it matches
    assert r.retrieve(f"seen:\n{paste}\n", k=2).evidence[0].doc_id == "hpa-metric"


def test_a_long_message_is_matched_by_the_sentence_it_asks_too(tiny_settings):
    from gpukb.retrieval import asked_focus

    root = tiny_settings.root
    write_doc(root, "autoscaling", "zones", id="zones", title="Inference replicas across zones",
              intro="Inference replicas run on GPU nodes in three zones.",
              body="## Inference replicas in three zones\n\nSpread inference replicas over GPU nodes in three "
                   "zones.\n")
    filler = " ".join(f"Drain step {i} cordons the node and evicts its pods in order." for i in range(5))
    write_doc(root, "autoscaling", "pdb", id="pdb", title="Disruption budgets",
              intro="Disruption budgets limit evictions.",
              body=f"## Budgets during drains\n\n{filler} Keep pods up during drains with minAvailable set. "
                   f"{filler}\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    eng = Engine(tiny_settings, embedder=emb)
    q = ("We run six inference replicas on GPU nodes in three zones behind one service, and the nodes in each "
         "zone carry the GPU pool label. How do I keep pods up during drains with minAvailable set?")
    assert asked_focus(q) == "How do I keep pods up during drains with minAvailable set?"
    assert asked_focus("How do I keep replicas serving while nodes drain?") == ""  # short: the whole of it asks
    r = eng.retriever
    r.sentence_weight = 2.0
    r.ask_weight = 0.0
    assert r.retrieve(q, k=2).evidence[0].doc_id == "zones"
    r.ask_weight = 1.0
    assert r.retrieve(q, k=2).evidence[0].doc_id == "pdb"
    # the llama-index path ranks the same
    qb = r.query_bundle(q)
    nodes = r.for_mode("hybrid").retrieve(qb)
    for post in r.postprocessors("hybrid", 2):
        nodes = post.postprocess_nodes(nodes, qb)
    assert nodes[0].node.metadata["key"].startswith("pdb#")


def test_a_troubleshooting_section_gives_way_when_the_question_names_no_symptom(tiny_settings):
    root = tiny_settings.root
    write_doc(root, "troubleshooting", "mig-trouble", id="mig-trouble", title="MIG Manager problems",
              intro="MIG Manager problems on H100.",
              body="## MIG slices on H100 nodes fail to apply\n\nThe MIG slices on H100 nodes fail when the profile "
                   "name does not exist for that H100 model.\n")
    write_doc(root, "gpu-sharing", "mig-profiles", id="mig-profiles", title="MIG profiles",
              intro="MIG profiles.",
              body="## How many MIG instances a GPU holds\n\nA GPU holds up to seven MIG instances, each with its own "
                   "memory and compute.\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    r = Engine(tiny_settings, embedder=emb).retriever
    r.sentence_weight = 0.0
    q = "H100 MIG slices, max?"
    r.symptom_weight = 0.0
    assert r.retrieve(q, k=2).evidence[0].doc_id == "mig-trouble"
    r.symptom_weight = 1.0
    assert r.retrieve(q, k=2).evidence[0].doc_id == "mig-profiles"
    # a question that names a symptom still reads the troubleshooting section first
    assert r.retrieve("H100 MIG slices fail, max?", k=2).evidence[0].doc_id == "mig-trouble"


@pytest.mark.parametrize("question, subject", [
    ("mig??", {"mig"}),
    ("what is gang scheduling?", {"gang", "schedul"}),
    ("hey, can someone explain time-slicing", {"time", "slice"}),
    ("what does GFD do?", {"gfd"}),
    ("What's a PodGroup?", {"podgroup"}),
    ("how do I use MIG?", set()),  # asks how, not what
    ("what is the difference between MIG and MPS?", set()),
    ("why is my pod pending?", set()),
])
def test_a_question_that_only_names_a_thing_asks_what_it_is(question, subject):
    from gpukb.retrieval import defined_subject

    assert defined_subject(question) == subject


def test_a_question_that_only_names_a_thing_leads_with_the_section_that_defines_it(tiny_settings, monkeypatch):
    from gpukb import retrieval

    root = tiny_settings.root
    write_doc(root, "gpu-sharing", "mig", id="mig", title="Multi-Instance GPU (MIG) in Kubernetes - profiles",
              intro="", body="## What MIG is: isolated instances\n\nOne card is split into isolated instances.\n\n"
                             "## Profiles\n\nProfiles name the slices and memory of an instance.\n")
    write_doc(root, "gpu-sharing", "mig-manager", id="mig-manager", title="MIG Manager and mig-parted",
              intro="MIG Manager applies MIG layouts.",
              body="## What MIG Manager does\n\nMIG Manager watches the MIG config label and applies the MIG "
                   "layout: MIG mode, MIG geometry, MIG state for every MIG GPU.\n")
    emb = make_hash_embedder()
    ingest(tiny_settings, embedder=emb)
    r = Engine(tiny_settings, embedder=emb).retriever
    sections = r.index.sections
    # without the definition step the section that names MIG most leads
    with monkeypatch.context() as m:
        m.setattr(retrieval, "defined_subject", lambda q: frozenset())
        assert r.retrieve("mig??", k=3).evidence[0].doc_id == "mig-manager"
    for q in ("mig??", "what is MIG?", "MIG"):
        got = r.retrieve(q, k=3).evidence
        assert (got[0].doc_id, got[0].section) == ("mig", "What MIG is: isolated instances"), q
    # the thing named exactly: "MIG Manager" is defined by its own section
    got = r.retrieve("what is MIG Manager?", k=3).evidence
    assert (got[0].doc_id, got[0].section) == ("mig-manager", "What MIG Manager does")
    # a doc's title names its subject when no heading defines it: its opening leads
    got = r.retrieve("what is a quota?", k=3).evidence
    assert got[0].doc_id == "mt-quota" and sections[got[0].key]["anchor"] == ""
    # the llama-index path ranks the same
    qb = r.query_bundle("mig??")
    nodes = r.for_mode("hybrid").retrieve(qb)
    for post in r.postprocessors("hybrid", 3):
        nodes = post.postprocess_nodes(nodes, qb)
    assert nodes[0].node.metadata["key"] == r.retrieve("mig??", k=3).evidence[0].key
