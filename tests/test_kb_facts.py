"""Facts the recipes and the KB must keep right (each checked against upstream
code or docs), and the staleness / troubleshooting-entry checks of ``kb check``."""

from __future__ import annotations

import datetime as dt
import textwrap
from pathlib import Path

import pytest
import yaml

from gpukb.errors import ParameterError
from gpukb.knowledge import DEFAULT_MAX_AGE_DAYS, check_kb, load_doc
from gpukb.recipes import find_recipe, load_recipes, render_recipe

ROOT = Path(__file__).resolve().parents[1]
RECIPES = load_recipes(ROOT / "recipes")


def _recipe(rid: str):
    return find_recipe(rid, RECIPES)


def _doc(kind: str, docs: list) -> dict:
    return next(d for d in docs if d["kind"] == kind)


# ----------------------------------------------------------- cluster autoscaler


@pytest.mark.parametrize("params", [
    {},
    {"preferred_groups": ["gpu-a10g-spot"], "fallback_groups": ["gpu-a10g-od"]},
    {"fallback_groups": [], "other_groups": False},
])
def test_priority_expander_keys_are_plain_integers(params):
    """cluster-autoscaler reads data.priorities with yaml.v2 into map[int][]string
    (expander/priority/priority.go): a quoted key such as '50' fails to unmarshal."""
    out = render_recipe(_recipe("cluster-autoscaler-priority-expander"), params)
    assert out.valid
    text = _doc("ConfigMap", out.documents)["data"]["priorities"]
    prios = yaml.safe_load(text)
    assert prios and all(type(k) is int for k in prios), text
    assert all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in prios.values())
    assert "'" not in text and '"' not in text


def test_priority_expander_goldens_have_integer_keys():
    golden = sorted((ROOT / "recipes/autoscaling/golden").glob("cluster-autoscaler-priority-expander--*.yaml"))
    assert golden
    for g in golden:
        for d in yaml.safe_load_all(g.read_text()):
            assert all(type(k) is int for k in yaml.safe_load(d["data"]["priorities"])), g.name


# ----------------------------------------------------------- karpenter


@pytest.mark.parametrize("alias,device", [
    ("al2023@v20251120", "/dev/xvda"),
    ("al2023@v20260714", "/dev/xvda"),
    ("bottlerocket@v1.64.0", "/dev/xvdb"),
    ("al2023@latest", "/dev/xvda"),
    ("bottlerocket@latest", "/dev/xvdb"),
])
def test_karpenter_pinned_ami_alias_validates(alias, device):
    out = render_recipe(_recipe("karpenter-gpu-nodepool"), {"ami_alias": alias})
    assert out.valid, out.issues
    nc = _doc("EC2NodeClass", out.documents)
    assert nc["spec"]["amiSelectorTerms"] == [{"alias": alias}]
    assert nc["spec"]["blockDeviceMappings"][0]["deviceName"] == device


def test_karpenter_default_alias_is_pinned():
    out = render_recipe(_recipe("karpenter-gpu-nodepool"), {})
    alias = _doc("EC2NodeClass", out.documents)["spec"]["amiSelectorTerms"][0]["alias"]
    assert not alias.endswith("@latest")


@pytest.mark.parametrize("alias", ["al2023@v1.2.3", "bottlerocket@v20260714", "windows2022@v1", "al2023", "al2023@"])
def test_karpenter_bad_alias_rejected(alias):
    with pytest.raises(ParameterError):
        render_recipe(_recipe("karpenter-gpu-nodepool"), {"ami_alias": alias})


# ----------------------------------------------------------- GPU Operator ClusterPolicy

# Operand versions of GPU Operator releases, from deployments/gpu-operator/values.yaml
# at each release tag (validator and node-status-exporter use the release itself).
RELEASES = {
    "v26.7.0": {
        "driver": "595.91.07", "driver.manager": "v0.12.0", "toolkit": "v1.20.0",
        "devicePlugin": "v0.20.0", "gfd": "v0.20.0", "dcgm": "4.6.0-1-ubuntu24.04",
        "dcgmExporter": "4.6.0-4.8.3-distroless", "migManager": "v0.15.0", "gds": "2.29.4",
        "gdrcopy": "v2.6", "validator": "v26.7.0", "nodeStatusExporter": "v26.7.0",
    },
    "v26.3.3": {
        "driver": "580.126.20", "driver.manager": "v0.11.0", "toolkit": "v1.19.1",
        "devicePlugin": "v0.19.3", "gfd": "v0.19.3", "dcgm": "4.5.2-1-ubuntu22.04",
        "dcgmExporter": "4.5.3-4.8.2-distroless", "migManager": "v0.14.2", "gds": "2.27.3",
        "gdrcopy": "v2.5.2", "validator": "v26.3.3", "nodeStatusExporter": "v26.3.3",
    },
}


def _operand_versions(cp: dict) -> dict[str, str]:
    spec = cp["spec"]
    out = {}
    for key in RELEASES["v26.7.0"]:
        node = spec
        for part in key.split("."):
            node = node[part]
        out[key] = str(node["version"])
    return out


def _release_of(versions: dict[str, str]) -> str | None:
    for rel, table in RELEASES.items():
        if versions == table:
            return rel
    return None


@pytest.mark.parametrize("rid,params,release", [
    ("gpu-operator-clusterpolicy", {}, "v26.7.0"),
    ("gpu-operator-clusterpolicy", {"operator_version": "v26.3.3"}, "v26.3.3"),
    ("gpu-operator-clusterpolicy", {"driver_enabled": False, "toolkit_enabled": False}, "v26.7.0"),
    ("mig-config", {}, "v26.7.0"),
    ("mps-sharing", {}, "v26.7.0"),
    ("time-slicing", {}, "v26.7.0"),
])
def test_clusterpolicy_operands_come_from_one_release(rid, params, release):
    out = render_recipe(_recipe(rid), params)
    assert out.valid, out.issues
    versions = _operand_versions(_doc("ClusterPolicy", out.documents))
    assert _release_of(versions) == release, versions


def test_clusterpolicy_driver_override_changes_only_the_driver():
    out = render_recipe(_recipe("gpu-operator-clusterpolicy"), {"driver_version": "580.105.08"})
    versions = _operand_versions(_doc("ClusterPolicy", out.documents))
    assert versions.pop("driver") == "580.105.08"
    assert all(RELEASES["v26.7.0"][k] == v for k, v in versions.items())


@pytest.mark.parametrize("rid", ["gpu-operator-clusterpolicy", "mps-sharing", "time-slicing"])
def test_mig_manager_config_name_left_empty(rid):
    """An empty migManager.config.name lets MIG Manager use the config it generates
    from each node's hardware; upstream chart values leave it empty."""
    cp = _doc("ClusterPolicy", render_recipe(_recipe(rid), {}).documents)
    cfg = cp["spec"]["migManager"]["config"]
    assert not cfg.get("name")
    assert cfg["default"] == "all-disabled"


def test_mig_manager_config_name_only_when_given():
    cp = _doc("ClusterPolicy", render_recipe(_recipe("gpu-operator-clusterpolicy"), {"mig_config": "my-mig"}).documents)
    assert cp["spec"]["migManager"]["config"]["name"] == "my-mig"
    out = render_recipe(_recipe("mig-config"), {"configmap_name": "team-mig"})
    assert _doc("ClusterPolicy", out.documents)["spec"]["migManager"]["config"]["name"] == "team-mig"
    assert _doc("ConfigMap", out.documents)["metadata"]["name"] == "team-mig"


def test_unknown_operator_release_is_rejected():
    with pytest.raises(ParameterError):
        render_recipe(_recipe("gpu-operator-clusterpolicy"), {"operator_version": "v26.3.2"})


# ----------------------------------------------------------- coscheduling, FSx


def test_coscheduling_configmap_does_not_overwrite_chart_scheduler_config():
    """The as-a-second-scheduler chart owns a ConfigMap named scheduler-config."""
    out = render_recipe(_recipe("coscheduling-podgroup"), {})
    cm = _doc("ConfigMap", out.documents)
    assert cm["metadata"]["name"] != "scheduler-config"
    assert "scheduler-config.yaml" in cm["data"]


@pytest.mark.parametrize("deployment,gib,ok", [
    ("SCRATCH_1", 1200, True), ("SCRATCH_1", 2400, True), ("SCRATCH_1", 3600, True),
    ("SCRATCH_1", 7200, True), ("SCRATCH_1", 4800, False),
    ("SCRATCH_2", 1200, True), ("SCRATCH_2", 4800, True), ("SCRATCH_2", 3600, False),
    ("PERSISTENT_2", 7200, True), ("PERSISTENT_1", 6000, False),
])
def test_fsx_capacity_steps_follow_driver_rounding(deployment, gib, ok):
    """aws-fsx-csi-driver RoundUpVolumeSize: SCRATCH_1 steps by 3600 GiB above 2400,
    the other SSD deployment types by 2400 GiB."""
    r = _recipe("fsx-lustre-dynamic")
    params = {"deployment_type": deployment, "storage_gib": gib}
    if ok:
        assert render_recipe(r, params).valid
    else:
        with pytest.raises(ParameterError) as ei:
            render_recipe(r, params)
        assert ei.value.parameter == "storage_gib"


# ----------------------------------------------------------- KB text regressions


def _kb(path: str) -> str:
    return (ROOT / "kb" / path).read_text()


def test_kb_mpijob_cleanpodpolicy_default_is_none():
    text = _kb("training-jobs/mpijob.md")
    assert "cleanPodPolicy (default None)" in text
    assert "MPIJob default `Running`" not in text


def test_kb_volcano_podgroup_name_has_job_uid():
    for path in ("gang-scheduling/volcano.md", "gang-scheduling/why-gang.md"):
        text = _kb(path)
        assert "<job-name>-<job-uid>" in text, path
        assert "with the same name as the Job" not in text and "PodGroup with the job's name" not in text


def test_kb_time_slicing_quotes_current_plugin_error():
    for path in ("gpu-sharing/time-slicing.md", "troubleshooting/sharing-mig.md"):
        text = _kb(path)
        assert "maximum request size for shared resources is 1; found 2" in text, path
        assert "v0.14" in text, path  # the old wording is kept, labelled as older releases'


def test_kb_karpenter_resource_not_registered_quoted():
    text = _kb("autoscaling/karpenter-gpu.md")
    assert 'Resource "nvidia.com/gpu" was requested but not registered' in text
    assert "ResourceNotRegistered" in text


def test_kb_native_gang_scheduling_uses_v1alpha2():
    for path in ("gang-scheduling/why-gang.md", "gang-scheduling/choosing.md"):
        text = _kb(path)
        assert "scheduling.k8s.io/v1alpha2" in text and "schedulingGroup" in text, path


def test_kb_trainer_runtimes_flag_version():
    text = _kb("training-jobs/trainjob-v2.md")
    assert "--version 2.1.0 --set runtimes.defaultEnabled=true" not in text


# ----------------------------------------------------------- kb check: staleness and entries

FM = """\
---
id: {id}
title: Test doc {id}
area: troubleshooting
tags: [test]
sources: [https://example.org/{id}]
reviewed: {reviewed}
applies_to: {{{applies}}}
---
# Test doc

{body}
"""


def _write(kb: Path, slug: str, *, reviewed: str = "2026-11-01", applies: str = 'kubernetes: "1.30+"',
           body: str = "## A section\n\nSome text.\n") -> Path:
    p = kb / "troubleshooting" / f"{slug}.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(FM.format(id=f"t-{slug}", reviewed=reviewed, applies=applies, body=body))
    return p


TODAY = dt.date(2026, 11, 30)


def test_is_stale_on_kbdoc(tmp_path):
    doc = load_doc(_write(tmp_path / "kb", "old", reviewed="2025-10-01"))
    assert DEFAULT_MAX_AGE_DAYS == 365
    assert doc.is_stale(TODAY, 365)
    assert not doc.is_stale(TODAY, 1000)
    fresh = load_doc(_write(tmp_path / "kb", "fresh", reviewed="2026-11-29"))
    assert not fresh.is_stale(TODAY, 365)
    assert fresh.is_stale(TODAY, max_age_days=0)


def test_stale_doc_is_a_warning_not_an_error(tmp_path):
    kb = tmp_path / "kb"
    _write(kb, "old", reviewed="2024-01-15")
    _write(kb, "fresh")
    res = check_kb(kb, validate_manifests=False, today=TODAY)
    assert res.ok and res.problems == []
    assert [w.path.endswith("old.md") for w in res.warnings] == [True]
    assert "stale" in res.warnings[0].message and res.warnings[0].field == "reviewed"
    assert check_kb(kb, validate_manifests=False, today=TODAY, max_age_days=2000).warnings == []


@pytest.mark.parametrize("reviewed,applies,field", [
    ("2027-01-01", 'kubernetes: "1.30+"', "reviewed"),          # in the future
    ('"2026-02-30"', 'kubernetes: "1.30+"', "reviewed"),        # not a real date
    ("2026-02-30", 'kubernetes: "1.30+"', "front matter"),      # same, unquoted: YAML cannot even build it
    ("2026-11-01", 'kubernetes: "latest"', "applies_to.kubernetes"),
    ("2026-11-01", 'volcano: "recent releases"', "applies_to.volcano"),
])
def test_bad_reviewed_or_applies_to_is_an_error(tmp_path, reviewed, applies, field):
    kb = tmp_path / "kb"
    _write(kb, "bad", reviewed=reviewed, applies=applies)
    res = check_kb(kb, validate_manifests=False, today=TODAY)
    assert not res.ok
    assert [p.field for p in res.problems] == [field]


@pytest.mark.parametrize("value", ["v1.2+", "1.26+", "v0.8.x (API kubeflow.org/v2beta1)", "v1.7–v1.9 (release-1.9)",
                                   "v2.x", "v1", ">=1.28", "v0.25+ (label x); v0.19-v0.24 use y"])
def test_version_like_applies_to_values_pass(tmp_path, value):
    kb = tmp_path / "kb"
    _write(kb, "ok", applies=f'component: "{value}"')
    assert check_kb(kb, validate_manifests=False, today=TODAY).ok


def test_entries_by_component_counts_seen_upstream_lines(tmp_path):
    kb = tmp_path / "kb"
    body = textwrap.dedent("""\
        ## Error one

        `some error` happens. Fix it.

        > Seen upstream: [a/b#1](https://github.com/a/b/issues/1) · component: volcano · versions: v1.10+

        ## Error two

        Text.

        > Seen upstream: [docs](https://example.org/x) · component: karpenter · versions: v1.0+

        ## Error three

        > Seen upstream: [a/b#2](https://github.com/a/b/issues/2) · component: volcano · versions: all v1

        ## Not last

        > Seen upstream: [a/b#3](https://github.com/a/b/issues/3) · component: kueue · versions: v0.9+

        More text after the line.

        ## Malformed

        > Seen upstream: [a/b#4](https://github.com/a/b/issues/4) component volcano
        """)
    _write(kb, "entries", body=body)
    res = check_kb(kb, validate_manifests=False, today=TODAY)
    assert res.ok
    assert res.entries_by_component == {"karpenter": 1, "volcano": 2}
    msgs = " | ".join(w.message for w in res.warnings)
    assert "not the section's last line" in msgs and "malformed" in msgs
    assert res.to_dict()["entries_by_component"] == {"karpenter": 1, "volcano": 2}


def test_bundled_kb_has_no_date_or_version_problems():
    res = check_kb(ROOT / "kb", validate_manifests=False)
    bad = [p for p in res.problems if p.field == "reviewed" or p.field.startswith("applies_to")]
    assert bad == []


def test_cli_kb_check_prints_warnings_and_entry_table(tmp_path, capsys):
    from gpukb.cli import main

    kb = tmp_path / "kb"
    _write(kb, "old", reviewed="2020-01-01", body=(
        "## Broken thing\n\n`boom` happens.\n\n"
        "> Seen upstream: [a/b#1](https://github.com/a/b/issues/1) · component: volcano · versions: v1.10+\n"))
    rc = main(["kb", "check", "--kb", str(kb), "--no-validate"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "warning: kb/troubleshooting/old.md: reviewed: stale" in out
    assert "troubleshooting entries by component:" in out and "volcano  1" in out
    assert "1 warning(s), 1 troubleshooting entries" in out
