"""Team knowledge sources (ingest/sources.yaml): loading, overrides, kb check, --source."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import gpukb_cmd, make_hash_embedder
from gpukb.config import load_settings
from gpukb.engine import Engine
from gpukb.errors import ConfigError
from gpukb.ingest import index_status, ingest
from gpukb.sources import load_knowledge, path_id


def _sources(root: Path, team: Path, extra: str = "") -> None:
    (root / "ingest" / "sources.yaml").write_text(textwrap.dedent(f"""\
        sources:
          - name: bundled
            kind: bundled
            path: kb
            recipes: recipes
            trust: Curated in the repository.
          - name: platform
            path: {team}
            area: troubleshooting
            tags: [runbook]
            trust: Platform team runbooks, reviewed in merge requests.
        """) + extra)


@pytest.fixture
def team_root(tiny_root: Path, tmp_path: Path) -> Path:
    team = tmp_path / "runbooks"
    (team / "gpu").mkdir(parents=True)
    # no front matter at all
    (team / "gpu" / "mig-pool.md").write_text(
        "# MIG on the a100 pool\n\nThe a100 pool runs MIG mixed with 1g.10gb slices.\n\n"
        "## Reconfigure a node\n\nCordon and drain the node, then set the zebracorn label.\n")
    # extends a bundled doc
    (team / "quota.md").write_text(
        "---\nid: mt-quota\noverride: extend\n---\n# Our quota\n\nTeam-a gets 8 GPUs from the platform chart.\n\n"
        "## Asking for more quota\n\nFile a platypus request in the platform channel.\n")
    # replaces a bundled doc
    (team / "rwx.md").write_text(
        "---\nid: st-rwx\ntitle: Shared datasets on our cluster\nreviewed: 2026-01-05\n---\n"
        "# Shared datasets on our cluster\n\nUse the filestore-rwx class for narwhal datasets.\n")
    # unreadable front matter: left out, never fails the ingest
    (team / "broken.md").write_text("---\nid: [oops\n---\n# Broken\n\ntext\n")
    _sources(tiny_root, team)
    return tiny_root


@pytest.fixture
def team_settings(team_root: Path, tmp_path: Path):
    return load_settings(home=tmp_path / "home", root=team_root)


def test_settings_read_sources(team_settings):
    names = [s.name for s in team_settings.sources]
    assert names == ["bundled", "platform"]
    assert team_settings.source("platform").trust.startswith("Platform team")
    assert team_settings.kb_dir.name == "kb"


@pytest.mark.parametrize("text, message", [
    ("sources:\n  - name: x\n    kind: team\n", "needs `path`"),
    ("sources:\n  - {name: a, path: /tmp}\n  - {name: a, path: /tmp}\n", "unique"),
    ("sources:\n  - {name: a, path: /tmp, colour: red}\n", "unknown key"),
    ("sources:\n  - {name: a, path: /tmp, area: cooking}\n", "area must be one of"),
    ("sources:\n  - {name: Bad Name, path: /tmp}\n", "name"),
    ("- just a list\n", "top level must be a mapping"),
])
def test_sources_file_is_validated(tiny_root, tmp_path, text, message):
    (tiny_root / "ingest" / "sources.yaml").write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_settings(home=tmp_path / "home", root=tiny_root)


def test_team_docs_load_leniently(team_settings):
    known = load_knowledge(team_settings)
    by_id = {d.id: d for d in known.docs}
    mig = by_id[path_id("platform", Path("gpu/mig-pool.md"))]
    assert mig.id == "platform-gpu-mig-pool"
    assert mig.title == "MIG on the a100 pool" and mig.area == "troubleshooting"
    assert mig.source == "platform" and "runbook" in mig.tags
    assert {"front matter", "id", "title", "sources", "reviewed"} <= set(mig.lacks)
    rwx = by_id["st-rwx"]
    assert rwx.source == "platform" and rwx.overrides == "kb/storage/rwx.md" and rwx.area == "storage"
    quota = by_id["mt-quota"]
    assert quota.source == "bundled" and [x.path for x in quota.extensions] == ["runbooks/quota.md"]
    assert quota.extensions[0].extends == "kb/multi-tenancy/quota.md"
    assert any("broken.md" in line and "invalid YAML" in line for line in known.skipped_lines())
    assert sorted(known.override_lines()) == [
        "platform: runbooks/quota.md extends kb/multi-tenancy/quota.md (bundled)",
        "platform: runbooks/rwx.md overrides kb/storage/rwx.md (bundled)"]


def test_ingest_and_ask_with_team_sources(team_settings):
    emb = make_hash_embedder()
    summary = ingest(team_settings, embedder=emb)
    assert summary.sources == {"bundled": 3, "platform": 3}
    assert summary.warnings and "broken.md" in summary.warnings[0]
    assert index_status(team_settings)["state"] == "current"
    team_settings.answer.refuse_below = -1.0
    eng = Engine(team_settings, embedder=emb)
    sections = eng.index.sections
    assert sections["st-rwx#"]["source"] == "platform" and sections["st-rwx#"]["overrides"] == "kb/storage/rwx.md"
    assert sections["mt-quota#asking-for-more-quota"]["extends"] == "kb/multi-tenancy/quota.md"
    assert sections["mt-quota#asking-for-more-quota"]["path"] == "runbooks/quota.md"
    assert sections["mt-quota#use-requestsnvidiacomgpu"]["source"] == "bundled"
    assert "access-modes" not in {s["anchor"] for s in sections.values() if s["doc_id"] == "st-rwx"}

    ans = eng.ask("cordon and drain the node then set the zebracorn label", k=3)
    assert ans.generation == summary.generation
    assert ans.citations and ans.citations[0].source == "platform"
    assert ans.citations[0].doc_id == "platform-gpu-mig-pool"
    assert ans.to_dict()["citations"][0]["source"] == "platform"

    only_bundled = eng.ask("cordon and drain the node then set the zebracorn label", k=3, sources=["bundled"])
    assert all(c.source == "bundled" for c in only_bundled.citations)
    only_team = eng.ask("nvidia.com/gpu limits whole numbers", k=5, sources=["platform"])
    assert all(c.source == "platform" for c in only_team.citations)


def test_changing_a_team_doc_makes_the_index_stale(team_settings, tmp_path):
    emb = make_hash_embedder()
    ingest(team_settings, embedder=emb)
    p = tmp_path / "runbooks" / "gpu" / "mig-pool.md"
    p.write_text(p.read_text() + "\n## Another step\n\nUncordon the node.\n")
    assert index_status(team_settings)["state"] == "stale"
    again = ingest(team_settings, embedder=emb)
    assert again.changed_docs == ["platform-gpu-mig-pool"] and again.embedded >= 1


def test_missing_team_folder_is_a_config_error(tiny_root, tmp_path):
    _sources(tiny_root, tmp_path / "nowhere")
    s = load_settings(home=tmp_path / "home", root=tiny_root)
    with pytest.raises(ConfigError, match="not found"):
        ingest(s, embedder=make_hash_embedder())


def test_kb_check_reports_team_docs(team_root, tmp_path):
    env = {"GPUKB_ROOT": str(team_root), "GPUKB_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    import os

    env = {**os.environ, **env}
    res = subprocess.run(gpukb_cmd("kb", "check", "--no-validate", "--json"), capture_output=True, text=True,
                         env=env, cwd=team_root, timeout=120)
    out = json.loads(res.stdout)
    assert res.returncode == 1  # the broken team doc is a problem of the check (not of the ingest)
    team = out["sources"][0]
    assert team["name"] == "platform" and team["docs"] == 3
    assert any(p["path"] == "runbooks/broken.md" for p in team["problems"])
    assert any(n["message"].startswith("overrides kb/storage/rwx.md") for n in team["notes"])
    assert any(w["path"] == "runbooks/gpu/mig-pool.md" and w["field"] == "sources" for w in team["warnings"])
    (tmp_path / "runbooks" / "broken.md").unlink()
    res = subprocess.run(gpukb_cmd("kb", "check", "--no-validate"), capture_output=True, text=True,
                         env=env, cwd=team_root, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "runbooks/rwx.md: overrides kb/storage/rwx.md (bundled)" in res.stdout


def test_slack_and_wiki_links_name_the_team_source():
    from gpukb.engine import Citation
    from gpukb.links import wiki_link
    from gpukb.slack.format import sources_text

    assert wiki_link("x-doc", "a", "platform").endswith("?doc=x-doc&source=platform#a")
    assert wiki_link("x-doc", "a", "bundled").endswith("?doc=x-doc#a")
    c = Citation(n=1, doc_id="x-doc", title="Runbook", section="Drain", path="runbooks/x.md", source_urls=[],
                 anchor="drain", source="platform")
    text = sources_text([c])
    assert "from _platform_" in text and "source=platform" in text


def test_team_folders_skip_hidden_and_mounted_configmap_links(tmp_path):
    """A ConfigMap volume holds ``..data`` links and a timestamped folder; a
    git checkout holds ``.git`` and ``.github``: none of it is a doc."""
    import os

    from gpukb.sources import team_doc_paths

    folder = tmp_path / "team"
    real = folder / "..2026_11_30_10_00_00.123"
    real.mkdir(parents=True)
    (real / "drain.md").write_text("# Drain\n\ntext\n")
    os.symlink(real.name, folder / "..data")
    os.symlink("..data/drain.md", folder / "drain.md")
    (folder / ".github").mkdir()
    (folder / ".github" / "PULL_REQUEST_TEMPLATE.md").write_text("# PR\n")
    (folder / "_about.md").write_text("# About this folder\n")
    assert [p.name for p in team_doc_paths(folder)] == ["drain.md"]


def test_mcp_tools_name_the_source(team_settings, tmp_path):
    from gpukb.live import LiveEngine
    from gpukb.mcp_server import GpukbTools

    emb = make_hash_embedder()
    ingest(team_settings, embedder=emb)
    tools = GpukbTools(home=team_settings.home)
    tools.settings = lambda: team_settings  # type: ignore[method-assign]
    tools._engine = LiveEngine(team_settings.with_config(answer={"refuse_below": -1.0}), embedder=emb)
    try:
        hits = tools.search_kb("cordon and drain the node then set the zebracorn label", k=2)["results"]
        assert hits[0]["source"] == "platform" and "source=platform" in hits[0]["wiki_url"]
        ans = tools.ask("cordon and drain the node then set the zebracorn label", k=2)
        assert ans["generation"] and ans["citations"][0]["source"] == "platform"
        assert "platform-gpu-mig-pool" in tools.docs()  # team docs are MCP resources too
    finally:
        tools._engine.close()
