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


def test_section_aliases_are_indexed_with_their_section_and_never_shown(tiny_root):
    p = tiny_root / "kb" / "device-plugin" / "requesting.md"
    text = p.read_text().replace('applies_to: {kubernetes: "1.30+"}\n', 'applies_to: {kubernetes: "1.30+"}\n'
                                 'section_aliases:\n  Request a GPU in limits: ["my pod never gets a card", "how many gpus can a pod ask for"]\n')
    p.write_text(text)
    sections, chunks = chunk_docs(load_kb(tiny_root / "kb"), {"max_tokens": 230, "overlap_tokens": 20})
    c = next(c for c in chunks if c.id.startswith("dp-requesting#request-a-gpu-in-limits"))
    assert "Keywords: my pod never gets a card, how many gpus can a pod ask for" in c.embed_text
    assert "never gets a card" not in sections["dp-requesting#request-a-gpu-in-limits"]["text"]
    # other sections and the intro do not carry them
    assert all("never gets a card" not in x.embed_text for x in chunks if not x.id.startswith("dp-requesting#request-a"))


def test_section_aliases_for_a_heading_that_does_not_exist_fail_the_check(tiny_root):
    from gpukb.knowledge import check_kb

    p = tiny_root / "kb" / "device-plugin" / "requesting.md"
    p.write_text(p.read_text().replace('applies_to: {kubernetes: "1.30+"}\n', 'applies_to: {kubernetes: "1.30+"}\n'
                                       'section_aliases:\n  No such heading: ["x y z"]\n'))
    res = check_kb(tiny_root / "kb", validate_manifests=False)
    assert any("section_aliases 'No such heading'" in pr.field for pr in res.problems), res.problems
