import subprocess

import pytest

from conftest import gpukb_cmd, write_doc
from gpukb.errors import KnowledgeError, KnowledgeErrors
from gpukb.knowledge import anchor_for, check_kb, load_doc, load_kb


def test_load_valid_doc(tiny_root):
    docs = load_kb(tiny_root / "kb")
    assert {d.id for d in docs} == {"dp-requesting", "mt-quota", "st-rwx"}
    d = next(d for d in docs if d.id == "dp-requesting")
    assert d.area == "device-plugin" and d.sources == ["https://example.org/dp-requesting"]
    assert d.reviewed == "2026-11-29"


def test_unquoted_date_is_accepted(tiny_root):
    p = tiny_root / "kb" / "storage" / "rwx.md"
    p.write_text(p.read_text().replace('reviewed: "2026-11-29"', "reviewed: 2026-11-29"))
    assert load_doc(p).reviewed == "2026-11-29"


@pytest.mark.parametrize("old,new,field", [
    ("area: storage", "area: cooking", "area"),
    ("sources: [https://example.org/st-rwx]", "sources: []", "sources"),
    ("sources: [https://example.org/st-rwx]", "sources: [not-a-url]", "sources[0]"),
    ("id: st-rwx\n", "", "id"),
    ("applies_to: {kubernetes: \"1.30+\"}", "applies_to: {}", "applies_to"),
    ("tags: [test]", "tags: [test]\ncolour: blue", "colour"),
])
def test_bad_front_matter_names_file_and_field(tiny_root, old, new, field):
    p = tiny_root / "kb" / "storage" / "rwx.md"
    p.write_text(p.read_text().replace(old, new))
    with pytest.raises(KnowledgeError) as ei:
        load_doc(p, tiny_root)
    assert ei.value.path == "kb/storage/rwx.md"
    assert ei.value.field == field
    assert "kb/storage/rwx.md" in str(ei.value) and field in str(ei.value)


def test_unreadable_yaml(tiny_root):
    p = tiny_root / "kb" / "storage" / "rwx.md"
    p.write_text(p.read_text().replace("tags: [test]", "tags: [test"))
    with pytest.raises(KnowledgeError) as ei:
        load_doc(p, tiny_root)
    assert ei.value.field == "front matter" and "invalid YAML" in str(ei.value)


def test_all_bad_files_reported_and_duplicate_ids(tiny_root):
    write_doc(tiny_root, "storage", "dup", id="st-rwx", title="Dup", body="## A\n\ntext\n")
    p = tiny_root / "kb" / "multi-tenancy" / "quota.md"
    p.write_text(p.read_text().replace("area: multi-tenancy", "area: nope"))
    with pytest.raises(KnowledgeErrors) as ei:
        load_kb(tiny_root / "kb")
    lines = ei.value.lines()
    assert any("quota.md: area" in l for l in lines)
    assert any(": id: duplicate id 'st-rwx'" in l and "dup.md" in l for l in lines)


def test_anchor():
    assert anchor_for("Cap GPUs: ResourceQuota (requests.nvidia.com/gpu)") == "cap-gpus-resourcequota-requestsnvidiacomgpu"


def test_check_kb_finds_broken_link_empty_section_and_bad_yaml(tiny_root):
    assert check_kb(tiny_root / "kb", validate_manifests=False).ok
    write_doc(tiny_root, "storage", "bad", id="st-bad", title="Bad",
              body="## Link\n\nSee [x](../nowhere/missing.md) and [y](rwx.md#no-such-anchor).\n\n## Empty\n\n"
                   "## Yaml\n\n```yaml\na: [1\n```\n")
    res = check_kb(tiny_root / "kb", validate_manifests=False)
    msgs = [f"{p.field}: {p.message}" for p in res.problems]
    assert any("broken link" in m for m in msgs)
    assert any("unknown anchor #no-such-anchor" in m for m in msgs)
    assert any("empty section" in m for m in msgs)
    assert any("does not parse" in m for m in msgs)


def test_bundled_kb_is_clean():
    from conftest import REPO

    res = check_kb(REPO / "kb")
    assert res.problems == []
    assert res.docs >= 45


def test_cli_ingest_bad_front_matter_exit_1(tiny_root, tmp_path):
    p = tiny_root / "kb" / "storage" / "rwx.md"
    p.write_text(p.read_text().replace("area: storage", "area: cooking"))
    res = subprocess.run(gpukb_cmd("ingest", "--home", str(tmp_path / "h")), cwd=tiny_root,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1
    assert "Error: kb/storage/rwx.md: area: must be one of" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "h" / "CURRENT").exists()
