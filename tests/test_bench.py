from gpukb.bench import scaled_kb
from gpukb.chunking import chunk_docs
from gpukb.knowledge import load_kb


def test_scaled_kb_copies_with_unique_ids(tiny_root, tmp_path):
    n = scaled_kb(tiny_root / "kb", tmp_path / "kb", 3)
    assert n == 9
    docs = load_kb(tmp_path / "kb")  # raises on duplicate ids or broken front matter
    assert len({d.id for d in docs}) == 9


def test_text_perturbation_makes_new_texts_and_order_keeps_them(tiny_root, tmp_path):
    cfg = {"max_tokens": 230, "overlap_tokens": 20}
    _, base = chunk_docs(load_kb(tiny_root / "kb"), cfg)
    scaled_kb(tiny_root / "kb", tmp_path / "t" / "kb", 2, perturb="text")
    scaled_kb(tiny_root / "kb", tmp_path / "o" / "kb", 2, perturb="order")
    _, text = chunk_docs(load_kb(tmp_path / "t" / "kb"), cfg)
    _, order = chunk_docs(load_kb(tmp_path / "o" / "kb"), cfg)
    distinct = lambda cs: len({c.sha for c in cs})
    assert distinct(order) == distinct(base)
    assert distinct(text) > distinct(base)
