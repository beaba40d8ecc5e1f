"""The pre-commit hooks in .pre-commit-hooks.yaml, run with `pre-commit try-repo`.

The gpukb-lint / gpukb-validate hooks are `language: system`: they run the
`gpukb` on PATH, so the test puts this interpreter's bin folder first.
try-repo only sees files git tracks; while .pre-commit-hooks.yaml is not yet
committed, the hooks file is tried from a one-file snapshot repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow

GOOD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda-smoke
spec:
  restartPolicy: Never
  containers:
    - name: cuda
      image: nvidia/cuda:12.4.0-base-ubuntu22.04
      command: ["nvidia-smi"]
      resources:
        requests: {cpu: "1", memory: 2Gi}
        limits: {nvidia.com/gpu: 1, memory: 2Gi}
"""

BAD = GOOD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 0.5")


def _git(*args: str, cwd: Path, env: dict) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    bindir = Path(sys.executable).parent
    if not (bindir / "pre-commit").exists() or not (bindir / "gpukb").exists():
        pytest.skip("pre-commit or gpukb is not installed next to this interpreter")
    home = tmp_path_factory.mktemp("precommit-home")
    return {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(home / "cache"),
        "GIT_AUTHOR_NAME": "gpukb test", "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "gpukb test", "GIT_COMMITTER_EMAIL": "test@example.org",
        "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home),
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    }


@pytest.fixture(scope="module")
def hooks_repo(env, tmp_path_factory) -> Path:
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml"], cwd=REPO,
                             capture_output=True, text=True)
    if tracked.returncode == 0:
        return REPO
    snap = tmp_path_factory.mktemp("hooks-repo")
    shutil.copy(REPO / ".pre-commit-hooks.yaml", snap / ".pre-commit-hooks.yaml")
    _git("init", "-q", ".", cwd=snap, env=env)
    _git("add", ".pre-commit-hooks.yaml", cwd=snap, env=env)
    _git("commit", "-q", "-m", "hooks", cwd=snap, env=env)
    return snap


@pytest.fixture(scope="module")
def work_repo(env, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("manifests")
    (work / "k8s").mkdir()
    (work / "k8s" / "good.yaml").write_text(GOOD)
    (work / "k8s" / "bad.yaml").write_text(BAD)
    _git("init", "-q", ".", cwd=work, env=env)
    _git("add", "k8s", cwd=work, env=env)
    return work


def _try(hook: str, file: str, hooks_repo: Path, work_repo: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "try-repo", str(hooks_repo), hook, "--files", file],
        cwd=work_repo, env=env, capture_output=True, text=True, timeout=300)


def test_hooks_manifest_is_valid(env):
    res = subprocess.run([str(Path(sys.executable).parent / "pre-commit"), "validate-manifest",
                          str(REPO / ".pre-commit-hooks.yaml")], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("hook", ["gpukb-lint", "gpukb-validate"])
def test_hook_passes_good_and_fails_bad_manifest(hook, hooks_repo, work_repo, env):
    good = _try(hook, "k8s/good.yaml", hooks_repo, work_repo, env)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

    bad = _try(hook, "k8s/bad.yaml", hooks_repo, work_repo, env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout
    assert "gpu-fractional" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr
