"""Package structure: one text layer, typed settings, no import cycles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpukb.config import IngestConfig, load_settings, parse_config
from gpukb.errors import ConfigError
from gpukb.text import keyword_query, terms

PKG = Path(__file__).resolve().parents[1] / "src" / "gpukb"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, name: str) -> set[str]:
    """gpukb modules imported anywhere in the file (top level or inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("gpukb"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                mod = ".".join(anchor + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("gpukb"):
                continue
            out.add(mod)
            for a in node.names:  # "from . import text" imports a module
                out.add(f"{mod}.{a.name}")
    return out


def test_no_import_cycles_in_the_package():
    mods = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {m: {i for i in _imports(p, m) if i in mods and i != m} for m, p in mods.items()}
    # A package importing its own submodules (re-exports) is not a cycle of layers.
    for m in graph:
        graph[m] = {i for i in graph[m] if not i.startswith(m + ".")}
    # The CLI and the top-level package sit above everything: ignore edges into them.
    top = {"gpukb", "gpukb.cli"}
    cycles = []
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if n in top:
                continue
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n):] + [n] if n in stack else [m, n])
            elif n not in state:
                visit(n, stack + [n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, f"import cycles: {cycles[:5]}"


def test_terms_stem_like_bm25_and_keep_compound_names():
    t = terms("Scheduling GPUs with nvidia.com/gpu and scale-down-delay-after-add")
    assert "schedul" in t and "gpus" not in t and t.count("gpu") == 2
    assert "nvidia.com/gpu" in t and "scale-down-delay-after-add" in t
    assert "the" not in terms("the and of")
    # a two-word hyphenated compound meets the word written joined, and only those
    assert set(terms("toolkit preinstalled")) <= set(terms("toolkit pre-installed"))
    assert "nvidiacomgpu" not in terms("nvidia.com/gpu") and "scaledowndelayafteradd" not in " ".join(
        terms("scale-down-delay-after-add"))


def test_keyword_query_drops_chat_filler_only():
    assert keyword_query("hey can someone tell me how MIG partitions work") == "can me how MIG partitions"


def test_settings_defaults_live_in_one_model():
    cfg = IngestConfig()
    assert cfg.answer.refuse_below == pytest.approx(0.5613)
    assert cfg.answer.max_words == 110 and cfg.retrieval.heading_weight == pytest.approx(0.4)


def test_unknown_config_key_names_it_and_the_allowed_keys():
    with pytest.raises(ConfigError) as e:
        parse_config({"retrieval": {"heading_weigth": 0.2}}, "ingest/config.yaml")
    msg = str(e.value)
    assert "retrieval.heading_weigth" in msg and "heading_weight" in msg and "\n" not in msg


def test_mistyped_config_value_is_one_line():
    with pytest.raises(ConfigError) as e:
        parse_config({"answer": {"max_words": "lots"}})
    assert "answer.max_words" in str(e.value) and "\n" not in str(e.value)


def test_config_file_with_typo_fails_at_load(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "ingest").mkdir()
    (tmp_path / "ingest" / "config.yaml").write_text("chunkng:\n  max_tokens: 100\n")
    with pytest.raises(ConfigError, match="unknown key 'chunkng'"):
        load_settings(root=tmp_path, home=tmp_path / "home")


def test_shipped_config_is_valid():
    s = load_settings(root=PKG.parents[1])
    assert s.retrieval.fusion in ("dist_based_full", "dist_based_score", "relative_score", "reciprocal_rerank")


def test_bm25_uses_the_shared_stemmer():
    import bm25s

    from gpukb.text import bm25_stopwords, stemmer

    corpus = bm25s.tokenize(["Request GPUs for the pod", "Storage classes"], stopwords=bm25_stopwords(),
                            stemmer=stemmer(), show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    q = bm25s.tokenize("gpu request", stemmer=stemmer(), show_progress=False)
    docs, scores = retriever.retrieve(q, k=1, show_progress=False)
    assert int(docs[0][0]) == 0 and float(scores[0][0]) > 0
