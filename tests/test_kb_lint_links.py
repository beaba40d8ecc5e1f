"""The KB troubleshooting docs and the lint rules point at each other."""

from conftest import REPO
from gpukb.knowledge import load_kb
from gpukb.lint import RULES


def test_rules_and_troubleshooting_docs_cross_reference():
    docs = load_kb(REPO / "kb")
    ids = {d.id for d in docs}
    trouble = "\n".join(d.body for d in docs if d.area == "troubleshooting")
    for rule in RULES.values():
        assert rule.doc_id is None or rule.doc_id in ids, rule.id
        if rule.category == "advice" or rule.id.startswith("gpu-"):
            assert f"`{rule.id}`" in trouble, f"no troubleshooting doc names lint rule {rule.id}"
