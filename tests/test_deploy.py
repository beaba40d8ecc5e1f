"""deploy/: every Kustomize overlay renders, validates and lints clean; the
Dockerfile is checked statically (no container engine is needed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import REPO, gpukb_cmd

KUBE = REPO / "deploy" / "kubernetes"
OVERLAYS = sorted(p.name for p in (KUBE / "overlays").iterdir() if (p / "kustomization.yaml").is_file())
DOCKERFILE = REPO / "deploy" / "Dockerfile"


def _kustomize() -> list[str]:
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    msg = "neither kubectl nor kustomize is installed (needed to render deploy/kubernetes)"
    if os.environ.get("CI"):
        pytest.fail(msg + "; CI must provide one", pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, Path]:
    cmd = _kustomize()
    out = tmp_path_factory.mktemp("kustomize")
    files = {}
    for name in OVERLAYS:
        res = subprocess.run([*cmd, str(KUBE / "overlays" / name)], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, f"{name}: {res.stderr}"
        files[name] = out / f"{name}.yaml"
        files[name].write_text(res.stdout)
    return files


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _pod_specs(docs: list[dict]) -> list[tuple[str, dict]]:
    out = []
    for d in docs:
        spec = d.get("spec", {})
        if d["kind"] in ("Deployment", "StatefulSet", "Job"):
            out.append((f"{d['kind']}/{d['metadata']['name']}", spec["template"]))
        elif d["kind"] == "CronJob":
            out.append((f"CronJob/{d['metadata']['name']}", spec["jobTemplate"]["spec"]["template"]))
    return out


def test_overlays_exist():
    assert {"app", "slack", "chroma", "ingest", "all"} <= set(OVERLAYS)


def test_every_overlay_validates_and_lints_clean(rendered):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    files = [str(p) for p in rendered.values()]
    for command in ("validate", "lint"):
        res = subprocess.run(gpukb_cmd(command, *files, "--json"), capture_output=True, text=True, env=env,
                             timeout=300)
        report = json.loads(res.stdout)
        findings = [(f["path"], d["kind"], d["name"], x["rule"], x["message"])
                    for f in report["files"] for d in f["documents"] for x in d["findings"]]
        assert res.returncode == 0 and report["errors"] == 0, (command, findings)
        assert report["warnings"] == 0, (command, findings)
        assert sum(len(f["documents"]) for f in report["files"]) > 0


def test_the_whole_deployment(rendered):
    docs = _docs(rendered["all"])
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    for want in [("Deployment", "gpukb-app"), ("Deployment", "gpukb-slack"), ("StatefulSet", "gpukb-chroma"),
                 ("Job", "gpukb-ingest"), ("CronJob", "gpukb-ingest"), ("Service", "gpukb-app"),
                 ("Service", "gpukb-slack"), ("Service", "gpukb-chroma"), ("NetworkPolicy", "gpukb-chroma"),
                 ("PersistentVolumeClaim", "gpukb-index"), ("Namespace", "gpukb")]:
        assert want in kinds, want
    assert all(d["metadata"].get("namespace") == "gpukb" for d in docs if d["kind"] != "Namespace")
    sts = next(d for d in docs if d["kind"] == "StatefulSet")
    assert sts["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]


def test_secrets_are_referenced_never_inlined(rendered):
    for name, path in rendered.items():
        text = path.read_text()
        assert not any(d["kind"] == "Secret" for d in _docs(path)), name
        assert not re.search(r"xox[abp]-|sk-[A-Za-z0-9]{8,}", text), name
    refs = set()
    for _, pod in _pod_specs(_docs(rendered["all"])):
        for c in pod["spec"]["containers"]:
            for e in c.get("env", []):
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    refs.add((ref["name"], ref["key"]))
                else:
                    assert not re.search(r"TOKEN|SECRET|API_KEY", e["name"]) or "valueFrom" in e, e
    assert {("gpukb-slack", "SLACK_BOT_TOKEN"), ("gpukb-slack", "SLACK_SIGNING_SECRET"),
            ("gpukb-llm", "GPUKB_LLM_API_KEY")} <= refs


def test_pods_are_hardened_sized_and_probed(rendered):
    for where, pod in _pod_specs(_docs(rendered["all"])):
        spec = pod["spec"]
        assert spec["securityContext"]["runAsNonRoot"] is True, where
        assert spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", where
        assert spec.get("automountServiceAccountToken") is False, where
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for c in spec["containers"]:
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False, where
            assert sc["capabilities"]["drop"] == ["ALL"], where
            for kind in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(c["resources"][kind]), (where, kind)
            # writable paths are volumes: /tmp everywhere, the rest mounted
            mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
            assert "/tmp" in mounts and "emptyDir" in volumes[mounts["/tmp"]["name"]], where
            if not where.startswith(("Job/", "CronJob/")):
                start = c["startupProbe"]
                # model load time: at least two minutes before liveness applies
                assert start["periodSeconds"] * start["failureThreshold"] >= 120, where
                assert "readinessProbe" in c and "livenessProbe" in c, where
            if c["image"].startswith("registry.example.com/gpukb"):
                assert not c["image"].endswith(":latest")
                assert mounts["/var/lib/gpukb"].get("readOnly", False) is (not where.startswith(("Job/", "CronJob/"))), where


def test_only_gpukb_pods_reach_chroma(rendered):
    docs = _docs(rendered["all"])
    policy = next(d for d in docs if d["kind"] == "NetworkPolicy" and d["metadata"]["name"] == "gpukb-chroma")
    assert policy["spec"]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "gpukb-chroma"}
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    (rule,) = policy["spec"]["ingress"]
    (peer,) = rule["from"]
    assert set(peer) == {"podSelector"}  # no namespaceSelector / ipBlock: this namespace's labelled pods only
    label = peer["podSelector"]["matchLabels"]
    assert rule["ports"] == [{"protocol": "TCP", "port": 8000}]
    clients = set()
    for where, pod in _pod_specs(docs):
        labels = pod["metadata"]["labels"]
        if all(labels.get(k) == v for k, v in label.items()):
            clients.add(labels["app.kubernetes.io/name"])
    assert clients == {"gpukb-app", "gpukb-slack", "gpukb-ingest"}


def test_cluster_sources_file_is_valid():
    from gpukb.config import parse_sources

    cfg = parse_sources(yaml.safe_load((KUBE / "components" / "config" / "sources.yaml").read_text()))
    assert [s.kind for s in cfg.sources] == ["bundled", "team"]


# -- the Dockerfile, statically --------------------------------------------------------------

def _instructions(text: str) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        op, _, rest = line.partition(" ")
        out.append((op.upper(), rest.strip()))
    return out


def test_dockerfile_is_cpu_offline_and_non_root():
    ins = _instructions(DOCKERFILE.read_text())
    stages = [i for i, (op, _) in enumerate(ins) if op == "FROM"]
    assert len(stages) >= 2, "a build stage and a slim runtime stage"
    final = ins[stages[-1]:]
    runs = [(i, arg) for i, (op, arg) in enumerate(ins) if op == "RUN"]
    # torch's CPU wheel is installed before gpukb, so no CUDA build is pulled in
    torch = next(i for i, a in runs if "download.pytorch.org/whl/cpu" in a and "torch" in a)
    gpukb = next(i for i, a in runs if re.search(r"pip install \"?\.\[", a))
    assert torch < gpukb
    # no piped installers, no remote ADD, no package downloads in the runtime stage
    for op, arg in ins:
        assert not re.search(r"(curl|wget)[^|]*\|\s*(ba|z)?sh", arg), arg
        assert not (op == "ADD" and re.search(r"https?://", arg)), arg
    assert not any(op == "RUN" and re.search(r"pip install|apt-get install|curl|wget", a) for op, a in final)
    # the model is checked at build time, and nothing is fetched at start
    assert any("get_model_path" in a and "HF_HUB_OFFLINE=1" in a for _, a in runs)
    env = " ".join(a for op, a in final if op == "ENV")
    for var in ("HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "GPUKB_HOME=/var/lib/gpukb", "GPUKB_ROOT=/app",
                "HOME=/tmp"):
        assert var in env, var
    # a numeric non-root user runs the container
    users = [a for op, a in final if op == "USER"]
    assert users and re.fullmatch(r"[1-9]\d{3,}(:\d+)?", users[-1]), users
    assert [op for op, _ in final].index("USER") > max(i for i, (op, _) in enumerate(final) if op == "RUN")
    # exec-form entry point
    ep = [a for op, a in final if op == "ENTRYPOINT"]
    assert ep and json.loads(ep[-1]) == ["gpukb"]


def test_dockerfile_copies_what_exists_and_dockerignore_keeps_state_out():
    ins = _instructions(DOCKERFILE.read_text())
    ignore = [ln.strip() for ln in (REPO / ".dockerignore").read_text().splitlines()
              if ln.strip() and not ln.startswith("#")]
    for must in (".git", ".venv", ".gpukb", "evals", "tests"):
        assert must in ignore, must
    for op, arg in ins:
        if op != "COPY" or arg.startswith("--from"):
            continue
        *srcs, _dest = arg.split()
        for src in srcs:
            assert (REPO / src).exists(), src
            assert src.split("/")[0] not in ignore, f"{src} is excluded by .dockerignore"


def test_manifests_match_the_image():
    text = DOCKERFILE.read_text()
    app = yaml.safe_load((KUBE / "components" / "app" / "deployment.yaml").read_text())
    c = app["spec"]["template"]["spec"]["containers"][0]
    assert c["command"][-1] == "/app/app.py" and "COPY app.py ./app.py" in text and "WORKDIR /app" in text
    ports = {p["containerPort"] for p in c["ports"]}
    assert ports <= {int(x) for x in re.search(r"EXPOSE ([\d ]+)", text).group(1).split()}
    uid = int(re.search(r"USER (\d+)", text).group(1))
    assert app["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == uid
