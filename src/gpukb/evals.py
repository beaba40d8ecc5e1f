"""Answer-quality evaluation over a question set (``evals/questions/*.yaml``).

Retrieval metrics (hit@1/3/5, MRR, nDCG@5 on expected docs) are computed side
by side for BM25 alone, a plain llama-index vector retriever, and gpukb's
hybrid retrieval. Answer metrics (must_include, refusals, citation validity)
use the full engine. :func:`calibrate_refusal` picks the refusal threshold
from the same runs. :func:`compare_generators` runs the same questions through
several answer generators (extractive, a language model) side by side.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .text import POINTS_ABOVE, POINTS_BELOW

__all__ = ["load_questions", "QuestionResult", "EvalReport", "run_eval", "calibrate_refusal",
           "llamaindex_vector_baseline", "compare_generators"]


def _yaml_files(path: Path) -> list[Path]:
    """A YAML file, or every ``*.yaml`` file in a folder (sorted)."""
    if path.is_dir():
        files = sorted(path.glob("*.yaml"))
        if not files:
            raise ConfigError(f"{path}: no *.yaml files")
        return files
    return [path]


def load_questions(path: Path | str) -> list[dict[str, Any]]:
    """Questions from one YAML file or from every ``*.yaml`` in a folder.

    Ids are unique across files. ``paraphrase_of`` names the question an item
    rephrases; ``source`` says where it was written from (``upstream-issue``,
    ``slack``...).
    """
    import yaml

    data: list[dict[str, Any]] = []
    seen: set[str] = set()
    for p in _yaml_files(Path(path)):
        try:
            items = yaml.safe_load(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{p}: cannot read ({exc.strerror})") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"{p}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
        if items is None:
            continue
        if not isinstance(items, list):
            raise ConfigError(f"{p}: must be a YAML list of questions")
        for i, q in enumerate(items):
            where = f"{p}: item {i}"
            if not isinstance(q, dict) or not isinstance(q.get("question"), str):
                raise ConfigError(f"{where}: field 'question' (a string) is required")
            qid = str(q.get("id") or f"{p.stem}-q{i}")
            if qid in seen:
                raise ConfigError(f"{where}: duplicate id {qid!r}")
            seen.add(qid)
            q["id"] = qid
            q.setdefault("file", p.name)
            data.append(q)
            if q.get("expect") == "refuse":
                continue
            if not isinstance(q.get("expected_docs"), list) or not q["expected_docs"]:
                raise ConfigError(f"{p}: {qid}: field 'expected_docs' must be a non-empty list")
            groups = q.get("must_include") or []
            if not isinstance(groups, list):
                raise ConfigError(f"{p}: {qid}: field 'must_include' must be a list of lists")
            q["must_include"] = [g if isinstance(g, list) else [g] for g in groups]
    return data


def doc_ranking(doc_ids: list[str]) -> list[str]:
    out: list[str] = []
    for d in doc_ids:
        if d not in out:
            out.append(d)
    return out


def retrieval_metrics(ranked: list[str], expected: list[str]) -> dict[str, float]:
    ranked = doc_ranking(ranked)
    exp = set(expected)
    first = next((i for i, d in enumerate(ranked) if d in exp), None)
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:5]) if d in exp)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(exp), 5)))
    return {
        "hit@1": float(first is not None and first < 1),
        "hit@3": float(first is not None and first < 3),
        "hit@5": float(first is not None and first < 5),
        "mrr": 1 / (first + 1) if first is not None and first < 10 else 0.0,
        "ndcg@5": dcg / ideal if ideal else 0.0,
    }


@dataclass
class QuestionResult:
    id: str
    area: str
    question: str
    expect_refuse: bool
    refused: bool
    confidence: float
    retrieval: dict[str, dict[str, float]] = field(default_factory=dict)  # mode -> metrics
    must_include_ok: bool | None = None
    missing: list[list[str]] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    citations_valid: bool | None = None
    words: int = 0  # prose words (code and YAML not counted)
    seconds: float = 0.0
    split: str = "tune"
    paraphrase_of: str | None = None
    defects: list[str] = field(default_factory=list)
    manifest: bool = False
    manifest_unasked: bool = False


@dataclass
class EvalReport:
    questions: int
    summary: dict[str, Any]
    per_area: dict[str, dict[str, Any]]
    retrieval_modes: dict[str, dict[str, float]]
    results: list[QuestionResult] = field(default_factory=list)
    recipes: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _answer_checks(q: dict[str, Any], ans, sections: dict[str, dict[str, Any]]) -> tuple[bool, list, list, bool]:
    # What the user reads: the answer text and, when one is attached, the manifest.
    body = (ans.body + ("\n" + ans.manifest["yaml"] if ans.manifest else "")).lower()
    missing = [g for g in q.get("must_include", []) if not any(str(alt).lower() in body for alt in g)]
    forbidden = [t for t in q.get("must_not_include", []) or [] if str(t).lower() in body]
    tokens = [str(a).lower() for g in q.get("must_include", []) for a in g]
    valid = True
    for c in ans.citations:
        if c.doc_id in q["expected_docs"]:
            continue
        text = sections.get(f"{c.doc_id}#{c.anchor}", {}).get("text", "").lower()
        if not any(t in text for t in tokens):
            valid = False
    return (not missing and not forbidden), missing, forbidden, valid


_LONE_MARKER = re.compile(r"^\s*(?:\[\d+\]\s*)+$")
_ENDS = re.compile(r"[.!?:)`'\"*]\s*(?:\[\d+\])?\s*$")
_POINTER = re.compile(r"\b(?:" + POINTS_BELOW + r"|the following|as follows|this block|these blocks|as shown|shown here|"
                      + POINTS_ABOVE + r"|more in|(?:next|previous) (?:section|step|example)s?)\b", re.I)
_ASKS_YAML = re.compile(r"\b(?:ya?ml|manifest|example|sample|template|spec|give me|write|generate|create|"
                        r"render|show me)\b", re.I)


def answer_defects(body: str, manifest_params: dict[str, Any] | None = None) -> list[str]:
    """What reads as broken in an answer: lone citation markers, unbalanced code
    marks or parentheses, cut sentences, sentences pointing at something that is not there,
    and numbers that contradict an attached manifest."""
    out: list[str] = []
    if body.count("```") % 2:
        out.append("unbalanced code fence")
    blocks = re.split(r"(```.*?```)", body, flags=re.S)
    paras: list[tuple[str, str]] = []  # (kind, text)
    for b in blocks:
        if b.startswith("```"):
            paras.append(("code", b))
            continue
        for para in re.split(r"\n\s*\n", b):
            if para.strip():
                kind = "list" if re.match(r"^\s*(?:[-*+]|\d+[.)])\s", para) else \
                    "table" if para.strip().startswith("|") else "prose"
                paras.append((kind, para.strip()))
    for i, (kind, text) in enumerate(paras):
        if kind == "code":
            continue
        for line in text.splitlines():
            if _LONE_MARKER.match(line):
                out.append(f"lone citation marker: {line.strip()}")
        if kind != "prose" or text.startswith("Related:"):
            continue
        if text.count("`") % 2:
            out.append(f"unbalanced backtick: {text[:60]}")
        bare = re.sub(r"`[^`]*`|\]\([^)]*\)", " ", text)
        if bare.count("(") != bare.count(")"):
            out.append(f"unbalanced parenthesis: {text[:60]}")
        if not _ENDS.search(text):
            out.append(f"cut sentence: ...{text[-60:]}")
        nxt = paras[i + 1][0] if i + 1 < len(paras) else None
        if re.search(r":\s*(?:\[\d+\])?\s*$", text) and nxt not in ("code", "list", "table"):
            out.append(f"points at nothing: ...{text[-60:]}")
        # Links and quoted user words are not the answer's own pointers.
        m = _POINTER.search(re.sub(r'"[^"]*"', "", re.sub(r"\[[^\]]*\]\([^)]*\)", "", text)))
        if m and (m.group(0).lower() in ("above", "more in") or re.match(r"(?:next|previous) ", m.group(0), re.I)):
            out.append(f"points elsewhere ({m.group(0)}): {text[:60]}")
        elif m and nxt not in ("code", "list", "table"):
            out.append(f"points at nothing ({m.group(0)}): {text[:60]}")
    if manifest_params is not None:
        allowed = {str(v) for v in _flat(manifest_params)}
        prose = " ".join(t for k, t in paras[1:] if k == "prose" and not t.startswith("Related:"))
        prose = re.sub(r"\[\d+\]|\]\([^)]*\)|`[^`]*`", " ", prose)
        for n in re.findall(r"(?<![\w.])(\d+)(?![\w.%])", prose):
            if int(n) > 1 and n not in allowed:
                out.append(f"number {n} not in the attached manifest")
    return out


def _flat(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat(v)]
    if isinstance(value, list):
        return [x for v in value for x in _flat(v)]
    return [value]


def cluster_of(q: dict[str, Any], by_id: dict[str, dict[str, Any]] | None = None) -> str:
    """The topic cluster of a question: its first expected doc (a paraphrase
    takes its original's), or its own id for questions to refuse."""
    if q.get("paraphrase_of") and by_id and q["paraphrase_of"] in by_id:
        q = by_id[q["paraphrase_of"]]
    docs = q.get("expected_docs") or []
    return str(docs[0]) if docs else f"refuse:{q.get('id')}"


def split_of(q: dict[str, Any], by_id: dict[str, dict[str, Any]] | None = None) -> str:
    """``tune`` or ``test`` by topic cluster: a stable third of the clusters is
    held out, so no tuning on a topic ever sees its test questions."""
    import zlib

    if q.get("split") in ("tune", "test"):
        return str(q["split"])
    return "test" if zlib.crc32(cluster_of(q, by_id).encode("utf-8")) % 3 == 0 else "tune"


def _mean(xs: list[float]) -> float:
    return round(sum(xs) / len(xs), 4) if xs else 0.0


def llamaindex_vector_baseline(engine, k: int = 10):
    """The vector retriever a user following the llama-index tutorial would
    build: a VectorStoreIndex over the same Chroma collection, top-k chunks.
    Returns ``question -> ranked doc ids``."""
    from llama_index.core import VectorStoreIndex

    index = VectorStoreIndex.from_vector_store(engine.index.store.llama_vector_store(),
                                               embed_model=engine.embedder.llama)
    retriever = index.as_retriever(similarity_top_k=k)

    def ranked(question: str) -> list[str]:
        return [str(n.node.metadata.get("doc_id")) for n in retriever.retrieve(question)]

    return ranked


def run_eval(engine, questions: list[dict[str, Any]], *, modes: tuple[str, ...] = ("bm25", "vector", "hybrid"),
             baseline=None, progress: bool = False) -> EvalReport:
    """Run every question through the engine (hybrid) and each retrieval mode.

    ``baseline`` (optional) is a callable ``question -> ranked doc ids`` for a
    plain llama-index vector retriever; it replaces gpukb's ``vector`` mode.
    """
    results: list[QuestionResult] = []
    sections = engine.index.sections
    iterator = questions
    if progress:
        from tqdm import tqdm

        iterator = tqdm(questions, desc="eval", unit="q")
    by_id = {q["id"]: q for q in questions}
    for q in iterator:
        refuse = q.get("expect") == "refuse"
        ans = engine.ask(q["question"])
        from .backends.extractive import prose_words

        body = ans.body.split("\n\nRelated:")[0]
        from .engine import SCOPE_NOTE

        # Declining to write another tool's code ("gpukb writes Kubernetes manifests,
        # not Terraform code") is a correct answer to a question it should refuse.
        declined = ans.refused or (refuse and ans.body.startswith(SCOPE_NOTE))
        r = QuestionResult(id=q["id"], area=q.get("area", "?"), question=q["question"], expect_refuse=refuse,
                           refused=declined, confidence=ans.confidence, words=prose_words(body),
                           seconds=ans.seconds, split=split_of(q, by_id), paraphrase_of=q.get("paraphrase_of"),
                           manifest=ans.manifest is not None,
                           manifest_unasked=ans.manifest is not None and not _ASKS_YAML.search(q["question"]))
        if not ans.refused:
            r.defects = answer_defects(ans.body, ans.manifest["params"] if ans.manifest else None)
        if not refuse:
            for mode in modes:
                # Every mode is ranked over the same depth (10 sections).
                if mode == "vector" and baseline is not None:
                    ranked = baseline(q["question"])
                else:
                    ranked = [e.doc_id for e in engine.retriever.retrieve(q["question"], k=10, mode=mode).evidence]
                r.retrieval[mode] = retrieval_metrics(ranked, q["expected_docs"])
            if ans.refused:
                r.must_include_ok, r.missing, r.citations_valid = False, q.get("must_include", []), True
            else:
                r.must_include_ok, r.missing, r.forbidden, r.citations_valid = _answer_checks(q, ans, sections)
        results.append(r)
    return summarize(results)


def summarize(results: list[QuestionResult]) -> EvalReport:
    def block(rs: list[QuestionResult]) -> dict[str, Any]:
        answerable = [r for r in rs if not r.expect_refuse]
        refuse = [r for r in rs if r.expect_refuse]
        out: dict[str, Any] = {"questions": len(rs)}
        if answerable:
            h = [r.retrieval.get("hybrid", {}) for r in answerable]
            out.update({
                "hit@1": _mean([m.get("hit@1", 0) for m in h]),
                "hit@5": _mean([m.get("hit@5", 0) for m in h]),
                "mrr": _mean([m.get("mrr", 0) for m in h]),
                "ndcg@5": _mean([m.get("ndcg@5", 0) for m in h]),
                "must_include": _mean([float(bool(r.must_include_ok)) for r in answerable]),
                "false_refusals": _mean([float(r.refused) for r in answerable]),
                "citations_valid": _mean([float(bool(r.citations_valid)) for r in answerable]),
                "median_words": statistics.median([r.words for r in answerable if not r.refused] or [0]),
                "defects": sum(1 for r in rs if r.defects),
                "manifests_unasked": _mean([float(r.manifest_unasked) for r in rs]),
            })
            paras = [r for r in answerable if r.paraphrase_of]
            originals = {r.paraphrase_of for r in paras}
            orig = [r for r in answerable if r.id in originals]
            if paras and orig:
                out["paraphrase_gap"] = round(_mean([float(bool(r.must_include_ok)) for r in orig])
                                              - _mean([float(bool(r.must_include_ok)) for r in paras]), 4)
        if refuse:
            out["refusals_correct"] = _mean([float(r.refused) for r in refuse])
        return out

    by_area: dict[str, list[QuestionResult]] = defaultdict(list)
    for r in results:
        by_area[r.area].append(r)
    modes: dict[str, dict[str, float]] = {}
    answerable = [r for r in results if not r.expect_refuse]
    for mode in sorted({m for r in answerable for m in r.retrieval}):
        ms = [r.retrieval[mode] for r in answerable if mode in r.retrieval]
        modes[mode] = {k: _mean([m[k] for m in ms]) for k in ("hit@1", "hit@3", "hit@5", "mrr", "ndcg@5")}
    lat = sorted(r.seconds for r in results)
    summary = block(results)
    if lat:
        summary["ask_p50_ms"] = round(1000 * lat[len(lat) // 2], 1)
        summary["ask_p95_ms"] = round(1000 * lat[min(len(lat) - 1, int(0.95 * len(lat)))], 1)
    summary["tune"] = block([r for r in results if r.split == "tune"])
    summary["test"] = block([r for r in results if r.split == "test"])
    return EvalReport(questions=len(results), summary=summary,
                      per_area={a: block(rs) for a, rs in sorted(by_area.items())},
                      retrieval_modes=modes, results=results)


def calibrate_refusal(results: list[QuestionResult], max_false_refusal: float = 0.01) -> dict[str, float]:
    """Choose the confidence threshold below which the engine refuses.

    Maximises refusal accuracy over out-of-scope questions of the tune part
    while keeping its false refusals of answerable questions at or below
    ``max_false_refusal`` (1 %, which leaves room for the test part's 3 %
    target), then reports what that threshold does on the test part. Without
    a split every result counts as tune.
    """
    tune = [r for r in results if r.split != "test"] or list(results)
    test = [r for r in results if r.split == "test"]
    pos = sorted(r.confidence for r in tune if not r.expect_refuse)
    neg = sorted(r.confidence for r in tune if r.expect_refuse)
    if not pos or not neg:
        raise ConfigError("calibration needs both answerable and expect: refuse questions")
    best = None
    for t in sorted(set(pos + neg)):
        t = t + 1e-6
        fr = sum(c < t for c in pos) / len(pos)
        if fr > max_false_refusal:
            break
        rc = sum(c < t for c in neg) / len(neg)
        if best is None or rc > best[1] or (rc == best[1] and fr < best[2]):
            best = (t, rc, fr)
    assert best is not None
    # Put the threshold midway into the gap above the last refused negative.
    t, rc, fr = best
    above = [c for c in pos + neg if c >= t]
    if above:
        t = (t + min(above)) / 2
    out = {"threshold": round(t, 4), "refusals_correct": round(rc, 4), "false_refusals": round(fr, 4)}
    test_pos = [r.confidence for r in test if not r.expect_refuse]
    test_neg = [r.confidence for r in test if r.expect_refuse]
    if test_pos and test_neg:
        out["test_refusals_correct"] = round(sum(c < t for c in test_neg) / len(test_neg), 4)
        out["test_false_refusals"] = round(sum(c < t for c in test_pos) / len(test_pos), 4)
    return out


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def compare_generators(engine, questions: list[dict[str, Any]], generators: dict[str, Any], *,
                       progress: bool = False) -> dict[str, dict[str, Any]]:
    """The same questions through each answer generator (same retrieval and
    refusal threshold), with answer metrics side by side: must_include,
    refusals, citation validity, dangling text, prose length, latency, and
    how often a language model's answer was replaced by the fallback."""
    from .backends.grounding import dangling, prose_words

    sections = engine.index.sections
    saved = engine.generator
    out: dict[str, dict[str, Any]] = {}
    try:
        for name, gen in generators.items():
            engine.generator = gen
            rows: list[dict[str, Any]] = []
            iterator = questions
            if progress:
                from tqdm import tqdm

                iterator = tqdm(questions, desc=f"eval {name}", unit="q")
            for q in iterator:
                refuse = q.get("expect") == "refuse"
                ans = engine.ask(q["question"], with_manifest=False)
                row: dict[str, Any] = {"id": q["id"], "expect_refuse": refuse, "refused": ans.refused,
                                       "seconds": ans.seconds, "generator": ans.generator,
                                       "notices": list(ans.notices), "words": prose_words(ans.body),
                                       "dangling": dangling(ans.body) if not ans.refused else []}
                if not refuse and not ans.refused:
                    ok, missing, _forbidden, valid = _answer_checks(q, ans, sections)
                    row.update(must_include_ok=ok, missing=missing, citations_valid=valid)
                elif not refuse:
                    row.update(must_include_ok=False, missing=q.get("must_include", []), citations_valid=True)
                rows.append(row)
            answerable = [r for r in rows if not r["expect_refuse"]]
            answered = [r for r in answerable if not r["refused"]]
            to_refuse = [r for r in rows if r["expect_refuse"]]
            lat = [r["seconds"] for r in rows]
            out[name] = {
                "questions": len(rows),
                "must_include": _mean([float(bool(r.get("must_include_ok"))) for r in answerable]),
                "refusals_correct": _mean([float(r["refused"]) for r in to_refuse]) if to_refuse else None,
                "false_refusals": _mean([float(r["refused"]) for r in answerable]),
                "citations_valid": _mean([float(bool(r.get("citations_valid"))) for r in answered]),
                "dangling": _mean([float(bool(r["dangling"])) for r in answered]),
                "median_words": statistics.median([r["words"] for r in answered] or [0]),
                "p50_ms": round(1000 * _percentile(lat, 0.5), 1),
                "p95_ms": round(1000 * _percentile(lat, 0.95), 1),
                "fallbacks": _mean([float(r["generator"].endswith("(fallback)")) for r in rows]),
                "notices": sum(len(r["notices"]) for r in rows),
                "results": rows,
            }
    finally:
        engine.generator = saved
    return out
