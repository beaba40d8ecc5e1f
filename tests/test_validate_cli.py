"""`gpukb validate` and `gpukb lint` on the command line: output shapes and exit codes."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from gpukb.cli import main

FIX = Path(__file__).resolve().parent / "fixtures" / "manifests"


def run(capsys, *args, stdin: str | None = None):
    if stdin is not None:
        old = sys.stdin
        sys.stdin = io.StringIO(stdin)
    try:
        code = main(list(args))
    finally:
        if stdin is not None:
            sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_clean_file_exits_0(capsys):
    code, out, err = run(capsys, "validate", str(FIX / "good-gpu-pod.yaml"))
    assert code == 0 and "0 error(s)" in out and err == ""


def test_validate_bad_file_exits_1_with_table(capsys):
    code, out, _ = run(capsys, "validate", str(FIX / "bad-gpu-pod.yaml"))
    assert code == 1
    assert "gpu-fractional" in out and "bad-gpu-pod.yaml" in out


def test_validate_json_shape(capsys):
    code, out, _ = run(capsys, "validate", str(FIX / "bad-gpu-pod.yaml"), "--json")
    data = json.loads(out)
    assert code == 1 and data["errors"] >= 2 and "warnings" in data
    doc = data["files"][0]["documents"][0]
    assert {"index", "apiVersion", "kind", "name", "findings"} <= set(doc)
    assert {"rule", "severity", "path", "message", "doc_id"} <= set(doc["findings"][0])


def test_validate_sarif(capsys):
    code, out, _ = run(capsys, "validate", str(FIX / "bad-gpu-pod.yaml"), "--format", "sarif")
    sarif = json.loads(out)
    assert code == 1 and sarif["version"] == "2.1.0"
    run0 = sarif["runs"][0]
    ids = {r["id"] for r in run0["tool"]["driver"]["rules"]}
    assert {r["ruleId"] for r in run0["results"]} == ids
    assert run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("bad-gpu-pod.yaml")


def test_validate_stdin(capsys):
    code, out, _ = run(capsys, "validate", "-", "--json", stdin="apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    assert code == 0 and json.loads(out)["files"][0]["path"] == "<stdin>"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["validate", "x.yaml", "--k8s-version", "1.2"], "--k8s-version"),
        (["validate", "x.yaml", "--format", "xml"], "--format"),
        (["validate"], "Missing argument"),
        (["lint"], "FILE"),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("Error: ") and needle in err and len(err.strip().splitlines()) == 1


def test_missing_file_exits_1_with_one_line(capsys):
    code, _, err = run(capsys, "validate", "does-not-exist.yaml")
    assert code == 1 and err.strip() == "Error: does-not-exist.yaml: no such file or directory"


def test_unknown_kind_and_allow_unknown(capsys, tmp_path):
    p = tmp_path / "w.yaml"
    p.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
    assert run(capsys, "validate", str(p))[0] == 1
    assert run(capsys, "validate", str(p), "--allow-unknown")[0] == 0


def test_lint_exit_codes_and_json(capsys):
    code, out, _ = run(capsys, "lint", str(FIX / "bad-gpu-pod.yaml"), "--json")
    data = json.loads(out)
    assert code == 1 and data["errors"] >= 1
    rules = {f["rule"] for d in data["files"][0]["documents"] for f in d["findings"]}
    assert "quota-gpu-key" in rules
    code, _, _ = run(capsys, "lint", str(FIX / "good-gpu-pod.yaml"), "--profile", str(FIX / "cluster-profile.yaml"))
    assert code == 0


def test_lint_bad_profile_is_one_line_error(capsys, tmp_path):
    p = tmp_path / "cluster.yaml"
    p.write_text("mig_strategy: dual\n")
    code, _, err = run(capsys, "lint", str(FIX / "good-gpu-pod.yaml"), "--profile", str(p))
    assert code == 1 and err.startswith("Error: ") and "mig_strategy" in err and len(err.strip().splitlines()) == 1


def test_lint_list_rules(capsys):
    code, out, _ = run(capsys, "lint", "--list-rules", "--json")
    rules = json.loads(out)["rules"]
    assert code == 0 and len(rules) >= 25
    assert {"id", "severity", "title", "symptom", "fix", "doc_id", "family"} <= set(rules[0])
    code, out, _ = run(capsys, "lint", "--list-rules")
    assert code == 0 and "quota-gpu-key" in out and "symptom:" in out


def test_lint_sarif_has_rule_metadata(capsys):
    code, out, _ = run(capsys, "lint", str(FIX / "bad-gpu-pod.yaml"), "--format", "sarif")
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    quota = next(r for r in rules if r["id"] == "quota-gpu-key")
    assert "requests." in quota["help"]["text"] and quota["properties"]["doc_id"] == "tenancy-resourcequota-gpu"
