"""The Streamlit app, in-process with ``streamlit.testing``.

Recipes, Validate and Wiki browsing need no model and run on a tiny KB (or
the bundled recipes); Ask runs against a fake engine here, and against a real
index in the test marked ``slow``. The browser test is in
``test_app_browser.py``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("streamlit")

from conftest import HALF_GPU_POD, REPO, make_hash_embedder  # noqa: E402

from gpukb.engine import REFUSAL, Answer, Citation  # noqa: E402
from gpukb.errors import IndexMismatchError, IndexMissingError, UsageError  # noqa: E402

TIMEOUT = 60


def _app(script: str):
    from streamlit.testing.v1 import AppTest

    return AppTest.from_string(script, default_timeout=TIMEOUT)


def _page(module: str):
    return _app(f"from gpukb.app.{module} import render\nrender()\n")


def _md(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


# ---------------------------------------------------------------------------
# fixtures: a tiny project with cross-linked docs


STALE_DOC = """\
---
id: old-notes
title: Old notes about quotas
area: multi-tenancy
tags: [quota, legacy]
sources: [https://example.org/old]
reviewed: "2020-01-01"
applies_to: {kubernetes: "1.20+"}
---
# Old notes about quotas

Quotas existed before.

## Quota for GPUs

Use `requests.nvidia.com/gpu`. See [requesting](../device-plugin/requesting.md#request-a-gpu-in-limits)
and [the RWX doc](../storage/rwx.md) and [nowhere](../storage/missing.md) and [upstream](https://kubernetes.io/).

```bash
# not a heading
echo "[x](../storage/rwx.md)"
```

### A child heading_with_underscores

Child text.
"""


@pytest.fixture
def project(tiny_root: Path, tmp_path: Path, monkeypatch) -> Path:
    """The tiny KB plus a stale, cross-linked doc; the bundled recipes; an empty index home."""
    (tiny_root / "kb" / "multi-tenancy" / "old.md").write_text(STALE_DOC)
    (tiny_root / "recipes").symlink_to(REPO / "recipes")
    home = tmp_path / "home"
    monkeypatch.setenv("GPUKB_ROOT", str(tiny_root))
    monkeypatch.setenv("GPUKB_HOME", str(home))
    monkeypatch.delenv("GPUKB_WIKI_URL", raising=False)
    return tiny_root


@pytest.fixture
def repo_root(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("GPUKB_ROOT", str(REPO))
    monkeypatch.setenv("GPUKB_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GPUKB_WIKI_URL", raising=False)
    return REPO


# ---------------------------------------------------------------------------
# wiki helpers (gpukb.wiki)


def _doc(body: str, path="kb/multi-tenancy/old.md", id_="old-notes", **kw):
    return SimpleNamespace(id=id_, path=path, body=body, title=kw.get("title", "T"), area=kw.get("area", "a"),
                           tags=kw.get("tags", []), aliases=[], reviewed="2026-11-29", applies_to={}, sources=[])


def test_doc_sections_skip_fenced_headings_and_match_citation_anchors():
    from gpukb.knowledge import anchor_for
    from gpukb.wiki import doc_sections, section_text

    body = STALE_DOC.split("---\n", 2)[2]
    secs = doc_sections(body, "Old notes about quotas")
    assert [(s.level, s.anchor) for s in secs] == [
        (1, ""), (2, "quota-for-gpus"), (3, "a-child-heading_with_underscores".replace("_", ""))]
    assert secs[0].text == "Quotas existed before."
    assert "# not a heading" in secs[1].text
    assert secs[2].anchor == anchor_for("A child heading_with_underscores")
    assert section_text(body, "") == "Quotas existed before."
    assert section_text(body, "nope") is None


def test_rewrite_links_resolves_docs_and_leaves_code_and_external_links():
    from gpukb.wiki import doc_index, rewrite_links

    old = _doc(STALE_DOC)
    req = _doc("", path="kb/device-plugin/requesting.md", id_="dp-requesting")
    rwx = _doc("", path="kb/storage/rwx.md", id_="st-rwx")
    by_path = doc_index([old, req, rwx])
    assert set(by_path) == {"multi-tenancy/old.md", "device-plugin/requesting.md", "storage/rwx.md"}
    out = rewrite_links(STALE_DOC, old, by_path, lambda d, a: f"/?doc={d}" + (f"#{a}" if a else ""))
    assert "[requesting](/?doc=dp-requesting#request-a-gpu-in-limits)" in out
    assert "[the RWX doc](/?doc=st-rwx)" in out
    assert "and nowhere and" in out  # unresolved: text only
    assert "[upstream](https://kubernetes.io/)" in out
    assert 'echo "[x](../storage/rwx.md)"' in out  # code is untouched
    code_label = rewrite_links("The [`rwx` doc](../storage/rwx.md) and `[x](../storage/rwx.md)`", old, by_path,
                               lambda d, a: f"/?doc={d}")
    assert code_label == "The [`rwx` doc](/?doc=st-rwx) and `[x](../storage/rwx.md)`"
    kept = rewrite_links("[n](../storage/missing.md)", old, by_path, lambda d, a: d, unresolved="keep")
    assert kept == "[n](../storage/missing.md)"


def test_resolve_link_never_escapes_the_kb():
    from gpukb.wiki import doc_index, resolve_link

    old = _doc("")
    by_path = doc_index([old])
    assert resolve_link(old, "../../../etc/passwd.md", by_path) is None
    assert resolve_link(old, "#local", by_path) == ("old-notes", "local")
    assert resolve_link(old, "old.md#x", by_path) == ("old-notes", "x")
    assert resolve_link(old, "mailto:a@b", by_path) is None


@pytest.mark.parametrize("value", ["../kb/x", "a/b", "", "UPPER", "x" * 200, None, ["dp-requesting"], "dp-requesting "])
def test_valid_doc_id_rejects_anything_but_a_known_id(value):
    from gpukb.wiki import valid_doc_id

    assert valid_doc_id(value, ["dp-requesting"]) is None
    assert valid_doc_id("dp-requesting", ["dp-requesting"]) == "dp-requesting"


def test_staleness_and_keyword_search():
    from gpukb.wiki import is_stale, keyword_search, review_age_days

    today = dt.date(2026, 11, 30)
    assert review_age_days("2026-11-29", today) == 1
    assert not is_stale("2026-11-29", today) and is_stale("2025-11-29", today) and is_stale("garbage", today)
    docs = [_doc(STALE_DOC, title="Old notes about quotas", tags=["quota"]),
            _doc("# Other\n\n## GPU limits\n\nnvidia.com/gpu in limits", id_="other", title="Other", area="b")]
    hits = keyword_search(docs, "requests.nvidia.com/gpu quota")
    assert [h.doc_id for h in hits] == ["old-notes"]
    assert hits[0].sections[0] == ("Quota for GPUs", "quota-for-gpus")
    assert [h.doc_id for h in keyword_search(docs, "nvidia.com/gpu")] == ["old-notes", "other"] or \
        {h.doc_id for h in keyword_search(docs, "nvidia.com/gpu")} == {"old-notes", "other"}
    assert [h.doc_id for h in keyword_search(docs, "gpu", area="b")] == ["other"]
    assert keyword_search(docs, "gpu", tags=["quota"])[0].doc_id == "old-notes"
    assert keyword_search(docs, "   ") == []


# ---------------------------------------------------------------------------
# form helpers (gpukb.app.forms)


def test_form_fields_follow_the_json_schema():
    from gpukb.app.forms import UNSET, check_value, field_kind, from_widget, to_widget

    assert field_kind({"type": "string", "enum": ["a", "b"]}) == "select"
    assert field_kind({"type": "integer"}) == "int"
    assert field_kind({"type": "number"}) == "number"
    assert field_kind({"type": "boolean"}) == "bool"
    assert field_kind({"type": "string"}) == "text"
    assert field_kind({"type": "array", "items": {"type": "string"}}) == "yaml"
    assert field_kind({"type": "object"}) == "yaml"
    assert field_kind({"type": ["integer", "null"]}) == "int"

    arr = {"type": "array", "items": {"type": "string"}, "maxItems": 2}
    assert to_widget(arr, ["python", "train.py"]) == "- python\n- train.py"
    assert from_widget(arr, "- python\n- train.py") == (["python", "train.py"], None)
    value, err = from_widget(arr, "- [unclosed")
    assert value is None and err.startswith("not valid YAML")
    assert "maxItems" in check_value(arr, ["a", "b", "c"]) or "too long" in check_value(arr, ["a", "b", "c"])
    assert from_widget({"type": "string"}, "") == (None, None)
    assert from_widget({"enum": ["a"]}, UNSET) == (None, None)
    assert to_widget({"enum": ["a"]}, None) == UNSET
    assert from_widget({"type": "integer"}, 3.0) == (3, None)
    assert from_widget({"type": "integer"}, 3.5)[1] == "must be a whole number"

    name = {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5}
    assert check_value(name, "abc") is None
    assert "does not match the pattern" in check_value(name, "ABC")
    assert check_value(name, "abcdef") == "at most 5 characters"
    assert check_value({"type": "integer", "minimum": 1, "maximum": 8}, 9) == "must be ≤ 8"
    assert check_value({"type": "integer", "minimum": 1}, 0) == "must be ≥ 1"


def test_yaml_bounds_refuse_alias_bombs_and_deep_nesting():
    from gpukb.app.forms import from_widget, yaml_bounds_problem

    bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        bomb.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 10) + "]")
    text = "\n".join(bomb)
    assert "expands to more than" in yaml_bounds_problem(text)
    assert "expands" in from_widget({"type": "object"}, text)[1]
    assert yaml_bounds_problem("[" * 5000 + "]" * 5000) in ("the YAML is nested too deeply", None)
    assert yaml_bounds_problem("a: [1, 2]\nb: {c: d}\n") is None
    assert yaml_bounds_problem("a: [unclosed") is None  # syntax errors are the parser's business


# ---------------------------------------------------------------------------
# small page helpers


def _cite(n=1, **kw):
    base = dict(n=n, doc_id="dp-requesting", title="Requesting GPUs", section="Request a GPU in limits",
                path="kb/device-plugin/requesting.md", source_urls=["https://example.org/dp-requesting"],
                anchor="request-a-gpu-in-limits", area="device-plugin")
    base.update(kw)
    return Citation(**base)


def test_citation_helpers():
    from gpukb.app.ask import citation_label, citation_location, escape_label, link_citations

    c = _cite(n=2)
    assert citation_label(c) == "[2] Requesting GPUs — Request a GPU in limits"
    assert citation_location(c) == "kb/device-plugin/requesting.md#request-a-gpu-in-limits"
    whole = _cite(section="Requesting GPUs", anchor="")
    assert citation_label(whole) == "[1] Requesting GPUs" and citation_location(whole) == whole.path
    assert escape_label("[1] a_b *c*") == r"\[1\] a\_b \*c\*"
    body = "Set limits. [2]\n\n```yaml\nargs: [2]\n```\nAnd [3] stays."
    out = link_citations(body, [c], lambda d, a: f"/?doc={d}#{a}")
    assert out.startswith('Set limits. [\\[2\\]](/?doc=dp-requesting#request-a-gpu-in-limits "')
    assert "args: [2]" in out and "And [3] stays." in out


def test_answer_markdown_turns_kb_paths_into_wiki_links():
    from gpukb.app.ask import answer_markdown

    body = ("See [LimitRange](kb/multi-tenancy/limitrange.md#x), [docs](https://kubernetes.io/x), "
            "[here](#anchor) and [gone](kb/nope.md) [1]")
    assert answer_markdown(body) == ("See LimitRange, [docs](https://kubernetes.io/x), [here](#anchor) "
                                     "and gone [1]")
    lr = SimpleNamespace(id="tenancy-limitrange")
    out = answer_markdown(body, {"multi-tenancy/limitrange.md": lr}, lambda d, a: f"/?doc={d}#{a}")
    assert "[LimitRange](/?doc=tenancy-limitrange#x)" in out and "and gone [1]" in out


def test_app_link_is_relative_to_the_app(monkeypatch):
    from gpukb.app.state import app_link

    monkeypatch.delenv("GPUKB_WIKI_URL", raising=False)
    assert app_link("sharing-mig", "mig-strategies") == "/?doc=sharing-mig#mig-strategies"
    assert app_link("sharing-mig") == "/?doc=sharing-mig"
    monkeypatch.setenv("GPUKB_WIKI_URL", "https://wiki.example.org/gpukb/")
    assert app_link("sharing-mig", "") == "/gpukb/?doc=sharing-mig"


def test_reingest_progress_wraps_the_shared_embedder():
    from gpukb.app.state import _LazyEmbedder

    loads, seen = [], []

    class Real:
        model_id, dim = "m", 2

        def embed_documents(self, texts, progress=False):
            return [[float(len(t)), 0.0] for t in texts]

    def loader():
        loads.append(1)
        return Real()

    lazy = _LazyEmbedder(loader, lambda done, total: seen.append((done, total)))
    assert loads == []  # nothing loads until the ingest needs the model
    out = lazy.embed_documents([f"t{i}" for i in range(300)])
    assert len(out) == 300 and out[0] == [2.0, 0.0]
    assert seen == [(128, 300), (256, 300), (300, 300)]
    assert lazy.model_id == "m" and lazy.dim == 2


def test_index_hint_names_the_next_step():
    from gpukb.app.state import index_hint

    assert "Build the index" in index_hint(IndexMissingError("no index"))
    assert "--rebuild" in index_hint(IndexMismatchError("stale"))
    assert index_hint(UsageError("x")) is None


def test_status_lines_and_generation_summary():
    from gpukb.app.recipes import generation_summary
    from gpukb.app.sidebar import status_lines

    lines = status_lines({"docs": 3, "chunks": 9, "sections": 5, "built": "2026-11-30T10:00:00Z",
                          "model": "m/x", "generation": "g-1"})
    assert lines == ["**Docs:** 3", "**Chunks:** 9 (5 sections)", "**Built:** 2026-11-30 10:00:00 UTC",
                     "**Model:** `m/x`", "**Generation:** `g-1`"]
    old = SimpleNamespace(recipe="r", title="R", params={"a": 1}, from_request={"a": 1}, issues=[])
    s = generation_summary(old)
    assert s["used"] == {"a": 1} and s["unused"] == [] and s["missing"] == []
    missing = [{"param": "queue", "question": "Which queue?", "default": "default"}]
    new = SimpleNamespace(recipe="r", title="R", params={"a": 1}, used={"a": "one"}, unused=["blue"],
                          missing=missing, issues=[{"rule": "param-ignored", "message": "ignored x"}])
    s = generation_summary(new)
    assert s["used"] == {"a": "one"} and s["unused"] == ["blue"] and s["missing"] == missing
    assert s["notes"] == ["ignored x"]
    from gpukb.app.recipes import _missing_item, _used_item

    assert _used_item("a", "one", {"a": 1}) == "`a` = `1` ← “one”"
    assert _used_item("q", "research", {"q": "research"}) == "`q` = `research`"
    assert _missing_item(missing[0]) == "Which queue? (`queue`, default `default`)"
    assert _missing_item("plain") == "plain"


def test_filter_recipes_by_words_and_area():
    from gpukb import load_recipes
    from gpukb.app.recipes import filter_recipes

    recipes = load_recipes(REPO / "recipes")
    assert filter_recipes(recipes) == recipes
    mig = filter_recipes(recipes, "MIG")
    assert mig and all("mig" in (r.id + r.title + r.description + " ".join(r.keywords)).lower() for r in mig)
    assert all(r.area == "storage" for r in filter_recipes(recipes, "", "storage"))
    assert filter_recipes(recipes, "zzzz-no-such") == []


# ---------------------------------------------------------------------------
# the whole app: navigation, sidebar, deep links


def test_app_without_index_says_so_and_offers_the_button(project):
    at = _app((REPO / "app.py").read_text()).run()
    _ok(at)
    assert [t.value for t in at.title] == ["Ask gpukb"]
    assert at.error[0].value.startswith("no index at")
    assert "Build the index" in at.info[0].value
    assert "No index yet" in at.sidebar.warning[0].value
    assert [b.label for b in at.sidebar.button] == ["Build the index"]
    assert not at.chat_input


def test_app_deep_link_opens_the_wiki_page(project):
    at = _app((REPO / "app.py").read_text())
    at.query_params["doc"] = "dp-requesting"
    at.run()
    _ok(at)
    assert at.title[0].value == "Requesting GPUs"
    assert [(h.value, h.anchor) for h in at.header] == [
        ("Request a GPU in limits", "request-a-gpu-in-limits"), ("Fractions are rejected", "fractions-are-rejected")]


def test_reingest_button_builds_the_index_with_progress(project, monkeypatch):
    emb = make_hash_embedder()
    monkeypatch.setattr("gpukb.app.state._shared_embedder", lambda s: emb)
    at = _app((REPO / "app.py").read_text()).run()
    at.sidebar.button[0].click().run()
    _ok(at)
    assert "Index is up to date" in at.sidebar.success[0].value
    assert any("Indexed 4 docs" in s.value for s in at.sidebar.success)
    md = "\n".join(m.value for m in at.sidebar.markdown)
    assert "**Docs:** 4" in md and "**Model:** `test/hash-64`" in md and "**Generation:** `g-" in md
    assert [b.label for b in at.sidebar.button] == ["Re-ingest"]
    at.sidebar.button[0].click().run()  # nothing changed: a no-op
    assert any("Nothing changed" in s.value for s in at.sidebar.success)


# ---------------------------------------------------------------------------
# Wiki


def test_wiki_browse_by_area_and_tag(project):
    at = _page("wiki").run()
    _ok(at)
    assert at.title[0].value == "Wiki"
    assert [s.value for s in at.subheader] == ["device-plugin", "multi-tenancy", "storage"]
    assert {b.label for b in at.button} == {"Requesting GPUs", "GPU quota", "Old notes about quotas", "Shared datasets"}
    at.selectbox(key="wiki_area").select("multi-tenancy").run()
    assert {b.label for b in at.button} == {"GPU quota", "Old notes about quotas"}
    at.multiselect(key="wiki_tags").select("legacy").run()
    assert {b.label for b in at.button} == {"Old notes about quotas"}
    at.button[0].click().run()
    _ok(at)
    assert at.query_params["doc"] == "old-notes" or at.query_params.get("doc") == ["old-notes"]
    assert at.title[0].value == "Old notes about quotas"


def test_wiki_doc_page_has_facts_sources_staleness_and_rewritten_links(project):
    at = _page("wiki")
    at.query_params["doc"] = "old-notes"
    at.run()
    _ok(at)
    md = _md(at)
    assert "**Reviewed:** 2020-01-01" in md and "kubernetes `1.20+`" in md
    assert "may be stale" in at.warning[0].value
    assert [(h.value, h.anchor) for h in at.header] == [("Quota for GPUs", "quota-for-gpus")]
    assert [(h.value, h.anchor) for h in at.subheader][0] == ("A child heading_with_underscores",
                                                             "a-child-headingwithunderscores")
    assert "[requesting](/?doc=dp-requesting#request-a-gpu-in-limits)" in md
    assert "[the RWX doc](/?doc=st-rwx)" in md and "and nowhere and" in md
    assert "<https://example.org/old>" in md


@pytest.mark.parametrize("bad", ["nope", "../../etc/passwd", "%2e%2e", "dp-requesting/../x"])
def test_wiki_unknown_or_unsafe_id_is_a_clear_message(project, bad):
    at = _page("wiki")
    at.query_params["doc"] = bad
    at.run()
    _ok(at)
    assert "There is no wiki page with the id" in at.error[0].value
    assert at.title[0].value == "Wiki"  # the list follows


def test_wiki_keyword_search(project):
    at = _page("wiki").run()
    at.text_input(key="wiki_query").input("requests.nvidia.com/gpu").run()
    _ok(at)
    assert {b.label for b in at.button} == {"**GPU quota**", "**Old notes about quotas**"}
    assert any("(/?doc=old-notes#quota-for-gpus)" in c.value for c in at.caption)
    at.text_input(key="wiki_query").input("zzzz").run()
    assert "No doc contains every word" in at.info[0].value


def test_wiki_meaning_search_uses_the_engine_lazily(project, monkeypatch):
    calls = []
    ev = SimpleNamespace(doc_id="st-rwx", title="Shared datasets", section="Access modes", anchor="access-modes",
                         area="storage", score=0.1, vector_score=0.71)

    class Retriever:
        def retrieve(self, q, k=5, area=None, mode="hybrid"):
            calls.append((q, area, mode))
            return SimpleNamespace(evidence=[ev], top_vector=0.71)

    monkeypatch.setattr("gpukb.app.state.get_engine", lambda: SimpleNamespace(retriever=Retriever()))
    at = _page("wiki").run()
    assert calls == []
    at.segmented_control(key="wiki_mode").set_value("Meaning")
    at.text_input(key="wiki_query").input("many pods read one dataset").run()
    _ok(at)
    assert calls == [("many pods read one dataset", None, "vector")]
    assert "[Shared datasets](/?doc=st-rwx#access-modes)" in _md(at) and "0.71" in _md(at)


def test_wiki_meaning_search_without_index_explains(project):
    at = _page("wiki").run()
    at.segmented_control(key="wiki_mode").set_value("Meaning")
    at.text_input(key="wiki_query").input("quota").run()
    _ok(at)
    assert at.error[0].value.startswith("no index at")


# ---------------------------------------------------------------------------
# Recipes


def test_recipes_default_render_is_valid_and_downloadable(repo_root):
    at = _page("recipes").run()
    _ok(at)
    assert not at.error
    assert at.code[0].language == "yaml" and "apiVersion:" in at.code[0].value
    assert any("Valid" in s.value for s in at.success)
    assert at.download_button and at.download_button[0].label == "Download YAML"
    assert any(c.value.startswith("kubectl apply -f ") for c in at.code)
    assert "Read first:" in _md(at) and "(/?doc=" in _md(at)


def test_recipes_search_and_area_filter(repo_root):
    at = _page("recipes").run()
    at.selectbox(key="rq_area").select("storage").run()
    _ok(at)
    from gpukb import load_recipes
    from gpukb.app.recipes import filter_recipes

    recipes = load_recipes(REPO / "recipes")
    sel = at.selectbox(key="rq_recipe")
    storage = [r.id for r in recipes if r.area == "storage"]
    assert [o.rsplit(" — ", 1)[1] for o in sel.options] == storage
    assert sel.label == f"Recipe ({len(storage)} of {len(recipes)})"
    at.text_input(key="rq_search").input("lustre").run()
    sel = at.selectbox(key="rq_recipe")
    lustre = [r.id for r in filter_recipes(recipes, "lustre", "storage")]
    assert lustre and [o.rsplit(" — ", 1)[1] for o in sel.options] == lustre
    at.text_input(key="rq_search").input("zzzz-none").run()
    assert "No recipe matches" in at.info[-1].value


def test_recipes_form_from_schema_validates_as_you_type(repo_root):
    at = _page("recipes").run()
    at.selectbox(key="rq_recipe").select("volcano-job").run()
    _ok(at)
    from gpukb import load_recipes

    rec = next(r for r in load_recipes(REPO / "recipes") if r.id == "volcano-job")
    key = lambda p: f"rp::volcano-job::{p}"  # noqa: E731
    props = rec.properties
    # widgets follow the schema: bounds, defaults, help
    workers = at.number_input(key=key("workers"))
    assert workers.value == props["workers"]["default"]
    assert workers.min == props["workers"].get("minimum") and workers.max == props["workers"].get("maximum")
    assert props["workers"]["description"] in workers.help
    strings = [p for p, s in props.items() if s.get("type") == "string" and "pattern" in s and "enum" not in s]
    name = strings[0]
    at.text_input(key=key(name)).input("Not_A_Valid_Name!").run()
    _ok(at)
    assert any(name in e.value and "pattern" in e.value for e in at.error)
    assert "Fix the parameters" in at.warning[0].value and not at.download_button
    at.text_input(key=key(name)).input("train-a").run()
    assert not at.error and at.download_button
    assert "name: train-a" in at.code[0].value or "train-a" in at.code[0].value


def test_recipes_yaml_fields_and_plain_language_fill(repo_root):
    at = _page("recipes").run()
    at.text_input(key="rq_request").input("volcano job, 4 workers x 8 GPUs, queue research")
    at.button(key="rq_fill").click().run()
    _ok(at)
    assert at.selectbox(key="rq_recipe").value == "volcano-job"
    assert at.number_input(key="rp::volcano-job::workers").value == 4
    assert at.number_input(key="rp::volcano-job::gpus").value == 8
    info = at.info[0].value
    assert "Filled" in info and "`queue` = `research`" in info and "Correct anything" in info
    assert "queue: research" in at.code[0].value
    # the user corrects the form
    at.number_input(key="rp::volcano-job::workers").set_value(2).run()
    assert "minAvailable: 2" in at.code[0].value
    # arrays and objects are YAML text areas, checked while typing
    areas = [t for t in at.text_area if t.key.startswith("rp::volcano-job::")]
    assert areas
    areas[0].input("- [unclosed").run()
    assert any("not valid YAML" in e.value for e in at.error)


def test_recipes_deep_link_selects_the_recipe(repo_root):
    at = _page("recipes")
    at.query_params["recipe"] = "gpu-quota"
    at.run()
    _ok(at)
    assert at.selectbox(key="rq_recipe").value == "gpu-quota"
    assert "kind: ResourceQuota" in at.code[0].value
    bad = _page("recipes")
    bad.query_params["recipe"] = "../../etc/passwd"
    bad.run()
    _ok(bad)
    assert bad.selectbox(key="rq_recipe").value != "../../etc/passwd"


def test_recipes_unmatched_request_is_one_line(repo_root):
    at = _page("recipes").run()
    at.text_input(key="rq_request").input("bake a sourdough loaf")
    at.button(key="rq_fill").click().run()
    _ok(at)
    assert at.error and "no recipe matches" in at.error[0].value


# ---------------------------------------------------------------------------
# Validate


def test_validate_paste_shows_findings_with_fix_and_doc_link(repo_root):
    at = _page("validate").run()
    _ok(at)
    assert "Paste YAML" in at.info[0].value
    at.text_area(key="val_text").input(HALF_GPU_POD).run()
    _ok(at)
    md = _md(at)
    assert "error(s)" in at.error[0].value
    assert "**Fix:**" in md and "(/?doc=" in md
    assert "nvidia.com/gpu" in md
    assert md.count("`gpu-fractional`") == 1  # found by both the validator and lint: shown once


def test_validate_example_upload_and_bad_yaml(repo_root):
    at = _page("validate").run()
    at.button(key="val_example").click().run()
    _ok(at)
    assert "0.5" in at.text_area(key="val_text").value and at.error
    at.text_area(key="val_text").input("a: [unclosed\n").run()
    _ok(at)
    assert "yaml-parse" in _md(at)
    assert _md(at).count("yaml-parse") == 1  # reported once
    at.text_area(key="val_text").input("").run()
    at.file_uploader(key="val_upload").upload("pod.yaml", HALF_GPU_POD.encode(), "application/x-yaml").run()
    _ok(at)
    assert "**Fix:**" in _md(at)


def test_validate_with_a_cluster_profile(repo_root):
    from gpukb import lint_files
    import io

    pod = HALF_GPU_POD.replace("nvidia.com/gpu: 0.5", "nvidia.com/gpu: 1")
    plain = lint_files(["-"], stdin=io.StringIO(pod))
    profiled = lint_files(["-"], stdin=io.StringIO(pod), profile={
        "gpu_node_taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]})
    extra = {f.rule for f in profiled.files[0].documents[0].findings} - {f.rule for f in plain.files[0].documents[0].findings}
    at = _page("validate").run()
    at.text_area(key="val_text").input(pod).run()
    before = _md(at)
    at.file_uploader(key="val_profile").upload(
        "cluster.yaml", b"gpu_node_taints:\n  - {key: nvidia.com/gpu, value: 'true', effect: NoSchedule}\n",
        "application/x-yaml").run()
    _ok(at)
    assert any("cluster.yaml" in c.value for c in at.caption)
    after = _md(at)
    for rule in extra:
        assert rule not in before and rule in after
    at.file_uploader(key="val_profile").set_value(("bad.yaml", b"mig_strategy: sometimes\n", "application/x-yaml")).run()
    _ok(at)
    assert at.error and "bad.yaml" in at.error[0].value


def test_validate_refuses_alias_bombs(repo_root):
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        bomb.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 10) + "]")
    at = _page("validate").run()
    at.text_area(key="val_text").input("\n".join(bomb)).run()
    _ok(at)
    assert "expands to more than" in at.error[0].value


# ---------------------------------------------------------------------------
# Ask (fake engine)


class FakeEngine:
    def __init__(self, answers=None, error=None):
        self.answers = answers or {}
        self.error = error
        self.calls = []

    def ask(self, question, *, area=None, **kw):
        self.calls.append((question, area))
        if self.error:
            raise self.error
        return self.answers[question]


@pytest.fixture
def ask_page(project, monkeypatch):
    def make(engine=None, engine_error=None):
        def get_engine():
            if engine_error is not None:
                raise engine_error
            return engine

        monkeypatch.setattr("gpukb.app.state.get_engine", get_engine)
        return _page("ask").run()

    return make


def _say(at, question, area=None):
    if area:
        at.selectbox(key="ask_area").select(area)
    at.chat_input[0].set_value(question)
    return at.run()


def _answer(**kw):
    base = dict(question="q", answer="Set it. [1]\n\nSources: ...", refused=False,
                body="Set `nvidia.com/gpu` in limits. [1] See [quota](kb/multi-tenancy/quota.md).",
                citations=[_cite()], recipes=[{"id": "gpu-pod", "title": "Pod with GPUs"}],
                manifest={"recipe": "gpu-pod", "params": {}, "yaml": "kind: Pod\n", "valid": True, "issues": []},
                seconds=0.01)
    base.update(kw)
    return Answer(**base)


def test_ask_chat_answer_with_citations_sources_manifest(ask_page):
    engine = FakeEngine({"one gpu": _answer(), "and quota?": _answer(manifest=None, recipes=[])})
    at = ask_page(engine)
    _ok(at)
    at = _say(at, "one gpu", area="device-plugin")
    _ok(at)
    assert engine.calls == [("one gpu", "device-plugin")]
    assert [m.name for m in at.chat_message] == ["user", "assistant"]
    md = _md(at)
    assert '[\\[1\\]](/?doc=dp-requesting#request-a-gpu-in-limits "' in md
    assert "[quota](/?doc=mt-quota)" in md
    assert "[Pod with GPUs](/recipes?recipe=gpu-pod)" in md
    assert len(at.expander) == 1 and at.expander[0].label.startswith(r"\[1\] Requesting GPUs")
    inside = "\n".join(m.value for m in at.expander[0].markdown)
    assert "[Open in the wiki](/?doc=dp-requesting#request-a-gpu-in-limits)" in inside
    assert "<https://example.org/dp-requesting>" in inside
    assert "Set `nvidia.com/gpu` under `resources.limits`" in inside  # the section text, from the KB
    assert at.code[0].value.strip() == "kind: Pod" and at.code[0].language == "yaml"
    assert at.download_button[0].label == "Download YAML"
    assert at.success[0].value == "The manifest validates."
    assert len(at.feedback) == 1
    # history: a second question keeps the first
    at = _say(at, "and quota?")
    _ok(at)
    assert [m.name for m in at.chat_message] == ["user", "assistant", "user", "assistant"]
    assert len(at.feedback) == 2 and len(at.expander) == 2


def test_ask_streams_then_shows_the_checked_answer_and_its_notices(ask_page):
    class Streaming(FakeEngine):
        streams = True

        def ask_stream(self, question, *, area=None, **kw):
            self.calls.append((question, area))
            yield "Set "
            yield "it. [1][9]"
            yield _answer(manifest=None, notices=["removed citation [9]: no such source"])

    engine = Streaming()
    at = _say(ask_page(engine), "one gpu")
    _ok(at)
    assert engine.calls == [("one gpu", None)]
    md = _md(at)
    assert "Set `nvidia.com/gpu` in limits." in md and "[9]" not in md
    assert any("removed citation" in c.value and "9" in c.value for c in at.caption)
    assert len(at.expander) == 1


def test_ask_feedback_is_stored(ask_page, project):
    from gpukb.feedback import FeedbackStore

    at = _say(ask_page(FakeEngine({"one gpu": _answer()})), "one gpu")
    at.feedback[0].set_value(0).run()
    _ok(at)
    store = FeedbackStore(Path(project.parent / "home" / "feedback.sqlite3"))
    rows = list(store.export())
    assert len(rows) == 1 and rows[0]["verdict"] == "not_helpful" and rows[0]["question"] == "one gpu"
    assert rows[0]["citations"][0]["doc_id"] == "dp-requesting" and rows[0]["source"] == "app"
    at.feedback[0].set_value(1).run()  # changing one's mind updates the row
    rows = list(store.export())
    assert len(rows) == 1 and rows[0]["verdict"] == "helpful"
    assert any("Thanks" in c.value for c in at.caption)


def test_ask_refusal_links_closest_topics(ask_page):
    ans = Answer(question="q", answer=REFUSAL, refused=True, body=REFUSAL, closest=["Shared datasets", "Unknown"])
    at = _say(ask_page(FakeEngine({"sourdough": ans})), "sourdough")
    _ok(at)
    info = at.info[0].value
    assert "I don't know" in info and "[Shared datasets](/?doc=st-rwx)" in info and "- Unknown" in info
    assert not at.expander and not at.feedback


def test_ask_errors_are_one_line(ask_page):
    at = _say(ask_page(FakeEngine(error=UsageError("the question is empty"))), "x")
    _ok(at)
    assert [e.value for e in at.error] == ["the question is empty"]
    at = _say(ask_page(FakeEngine(error=RuntimeError("boom\nsecond line"))), "x")
    _ok(at)
    assert [e.value for e in at.error] == ["RuntimeError: boom"]


def test_ask_missing_index_without_traceback(ask_page):
    at = ask_page(engine_error=IndexMissingError("no index at /x; run `gpukb ingest` first"))
    _ok(at)
    assert [e.value for e in at.error] == ["no index at /x; run `gpukb ingest` first"]
    assert "Build the index" in at.info[0].value
    assert not at.chat_input


def test_ask_blank_question_warns(ask_page):
    engine = FakeEngine({})
    at = _say(ask_page(engine), "   ")
    assert engine.calls == [] and at.warning and not at.exception


# ---------------------------------------------------------------------------
# Ask on a real index (model + Chroma)


@pytest.mark.slow
def test_ask_page_on_a_real_index(real_index_home, monkeypatch):
    monkeypatch.setenv("GPUKB_HOME", str(real_index_home))
    monkeypatch.setenv("GPUKB_ROOT", str(REPO))
    at = _app((REPO / "app.py").read_text())
    at.default_timeout = 300
    at.run()
    _ok(at)
    side = "\n".join(m.value for m in at.sidebar.markdown)
    assert "**Generation:**" in side and not any("No index" in w.value for w in at.sidebar.warning)
    at.chat_input[0].set_value("how do I give a pod one GPU").run(timeout=300)
    _ok(at)
    md = _md(at)
    assert "nvidia.com/gpu" in md and "[\\[1\\]](/?doc=" in md
    assert at.expander
    inside = "\n".join(m.value for m in at.expander[0].markdown)
    assert "[Open in the wiki](/?doc=" in inside and "https://" in inside
    at.chat_input[0].set_value("best sourdough hydration").run(timeout=120)
    _ok(at)
    assert "I don't know" in at.info[-1].value
