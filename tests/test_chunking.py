from gpukb.chunking import chunk_docs
from gpukb.knowledge import load_kb


def test_sections_carry_heading_path_anchor_and_metadata(tiny_root):
    sections, chunks = chunk_docs(load_kb(tiny_root / "kb"), {"max_tokens": 230, "overlap_tokens": 20})
    s = sections["dp-requesting#request-a-gpu-in-limits"]
    assert s["section"] == "Request a GPU in limits"
    assert s["heading"] == "Requesting GPUs > Request a GPU in limits"
    assert s["path"] == "kb/device-plugin/requesting.md"
    assert s["source_urls"] == ["https://example.org/dp-requesting"]
    assert "```yaml" in s["text"] and not s["text"].startswith("##")
    c = next(c for c in chunks if c.id.startswith("dp-requesting#request-a-gpu-in-limits"))
    assert c.embed_text.startswith("Requesting GPUs > Request a GPU in limits\n")
    for key in ("doc_id", "title", "area", "section", "anchor", "path", "source_urls"):
        assert key in c.metadata
    # the intro chunk is indexed with the tags as keywords; answers never quote them
    assert "dp-requesting#" in sections
    assert "Keywords" not in sections["dp-requesting#"]["text"]
    intro = next(c for c in chunks if c.id == "dp-requesting#~0")
    assert "Keywords: test" in intro.embed_text


def test_code_comment_is_not_a_heading(tiny_root):
    from conftest import write_doc

    write_doc(tiny_root, "storage", "code", id="st-code", title="Code",
              body="## Real\n\n```bash\n# not a heading\nkubectl get pods\n```\n")
    sections, _ = chunk_docs(load_kb(tiny_root / "kb"), {"max_tokens": 230, "overlap_tokens": 20})
    assert "st-code#not-a-heading" not in sections
    assert "# not a heading" in sections["st-code#real"]["text"]


def test_long_section_is_split_and_deterministic(tiny_root):
    from conftest import write_doc

    write_doc(tiny_root, "storage", "long", id="st-long", title="Long",
              body="## Big\n\n" + " ".join(f"Sentence number {i} about volumes." for i in range(200)) + "\n")
    docs = load_kb(tiny_root / "kb")
    s1, c1 = chunk_docs(docs, {"max_tokens": 120, "overlap_tokens": 10})
    s2, c2 = chunk_docs(docs, {"max_tokens": 120, "overlap_tokens": 10})
    big = [c for c in c1 if c.id.startswith("st-long#big")]
    assert len(big) > 3
    assert all(c.embed_text.startswith("Long > Big\n") for c in big)
    assert [c.sha for c in c1] == [c.sha for c in c2]
    assert len(s1["st-long#big"]["text"].split()) >= 1000
