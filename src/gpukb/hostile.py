"""Hostile inputs, generated small: what an attacker or an unlucky user feeds gpukb.

Shared by the robustness tests (``tests/test_robustness.py``) and
``gpukb bench --only robustness``, which runs every case below as a
subprocess with a time and a memory limit and reports time, peak memory and
how it ended. The target for each: at most 5 s and 500 MB, ending with a
one-line ``Error:`` or a finding, never an internal error.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["alias_bomb", "write_inputs", "CASES", "Case", "run_case", "many_documents", "TIME_LIMIT_S", "MEMORY_LIMIT_MB"]

TIME_LIMIT_S = 5.0
MEMORY_LIMIT_MB = 500


def alias_bomb(levels: int = 9, width: int = 9, indent: str = "") -> str:
    """A billion-laughs block: ``a{levels-1}`` expands to ``width ** levels`` strings."""
    lines = [f'{indent}a0: &a0 [{", ".join(["lol"] * width)}]']
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def _indented(text: str, indent: str) -> str:
    return "".join(indent + line + "\n" for line in text.splitlines())


def many_documents(n: int = 8000) -> str:
    """``n`` realistic documents: GPU pods, deployments, indexed jobs, quotas, config maps."""
    out = []
    for i in range(n):
        ns = f"team-{i % 40}"
        k = i % 5
        if k == 0:
            out.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: {ns}, labels: {{app: a{i % 97}}}}}\n"
                       "spec:\n  containers:\n  - name: cuda\n    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n"
                       "    resources: {limits: {nvidia.com/gpu: 1}}\n")
        elif k == 1:
            out.append(f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{i}, namespace: {ns}}}\n"
                       f"spec:\n  replicas: 2\n  selector: {{matchLabels: {{app: d{i}}}}}\n  template:\n"
                       f"    metadata: {{labels: {{app: d{i}}}}}\n    spec:\n      containers:\n      - name: server\n"
                       "        image: vllm/vllm-openai:v0.6.0\n        ports: [{containerPort: 8000}]\n"
                       "        resources:\n          requests: {cpu: '4', memory: 16Gi}\n"
                       "          limits: {memory: 16Gi, nvidia.com/gpu: 1}\n")
        elif k == 2:
            out.append(f"apiVersion: batch/v1\nkind: Job\nmetadata: {{name: j{i}, namespace: {ns}}}\n"
                       "spec:\n  completionMode: Indexed\n  completions: 4\n  parallelism: 4\n  template:\n    spec:\n"
                       "      restartPolicy: Never\n      containers:\n      - name: train\n        image: pytorch/pytorch:2.4.0\n"
                       "        resources: {limits: {nvidia.com/gpu: 8}}\n")
        elif k == 3:
            out.append(f"apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q{i}, namespace: {ns}}}\n"
                       "spec: {hard: {requests.nvidia.com/gpu: '8'}}\n")
        else:
            out.append(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: {ns}}}\n"
                       f"data: {{key: value-{i}}}\n")
    return "---\n".join(out)


def write_inputs(folder: Path) -> dict[str, Path]:
    """Write every hostile input file into ``folder``; returns name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    bomb = alias_bomb()
    files: dict[str, bytes] = {
        "pod.yaml": b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
                    b"    image: busybox\n    resources: {limits: {nvidia.com/gpu: 1}}\n",
        "values-bomb.yaml": ("name:\n" + _indented(bomb, "  ")).encode(),
        "configmap-bomb.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  annotations:\n"
                                + _indented(bomb, "    ") + "data: *a8\n").encode(),
        "profile-bomb.yaml": ("node_labels:\n" + _indented(bomb, "  ") + "mig_strategy: *a8\n").encode(),
        "crd-bomb.yaml": ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
                          "  name: widgets.example.com\n  annotations:\n" + _indented(bomb, "    ")
                          + "spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n"
                          "  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n"
                          "      openAPIV3Schema:\n        type: object\n        properties:\n"
                          "          spec: {type: object, properties: {size: {type: integer, enum: *a8}}}\n").encode(),
        "crd-schema-bomb.yaml": _crd_schema_bomb().encode(),
        "widget.yaml": b"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {p0: {a: x}}\n",
        "nested-list.yaml": _nested_list_bomb().encode(),
        "deep-lists.yaml": _deep_lists(12).encode(),
        "deep900.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata: " + "[" * 900 + "]" * 900
                         + "\n").encode(),
        "deep-cr.yaml": ("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: d}\nspec:\n"
                         "  minAvailable: 1\n  tasks: []\n  plugins: " + "{a: " * 950 + "1" + "}" * 950 + "\n").encode(),
        "latin1.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9}\n",
        "values-latin1.yaml": b"name: caf\xe9\n",
        "dupkeys.yaml": b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: good\n  name: evil\nspec:\n  containers:\n"
                        b"  - name: c\n    image: busybox\n",
        "escapes.yaml": b'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "\\e]0;owned\\a\\e[2J"\nspec:\n  containers:\n'
                        b'  - name: "\\e[5mc"\n    image: busybox\n    resources: {limits: {"nvidia.com/gpu": "\\e[1mx"}}\n',
        "bigint.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\ndata: {a: 0x" + "f" * 5000
                        + "}\n").encode(),
        "questions-bad.txt": b"how do I cap team-a at 8 GPUs\ncaf\xe9 \xff pending pods\n\nwhat is MIG\n",
        "questions-markup.txt": b"why does [/foo] fail with [bold]x[/bold]\n",
    }
    out = {}
    for name, data in files.items():
        p = folder / name
        p.write_bytes(data)
        out[name] = p
    return out


def _crd_schema_bomb() -> str:
    lines = ["apiVersion: apiextensions.k8s.io/v1", "kind: CustomResourceDefinition", "metadata: {name: gadgets.example.com}",
             "spec:", "  group: example.com", "  names: {kind: Widget, plural: widgets}", "  scope: Namespaced",
             "  versions:", "  - name: v1", "    served: true", "    storage: true", "    schema:",
             "      openAPIV3Schema:", "        type: object", "        x-defs:",
             "          s0: &s0 {type: object, properties: {a: {type: string}, b: {type: string}}}"]
    for i in range(1, 12):
        props = ", ".join(f"p{j}: *s{i - 1}" for j in range(8))
        lines.append(f"          s{i}: &s{i} {{type: object, properties: {{{props}}}}}")
    lines.append("        properties: {spec: *s11}")
    return "\n".join(lines) + "\n"


def _nested_list_bomb() -> str:
    lines = ["apiVersion: v1", "kind: List", "items:",
             "- &l0 {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}, "
             "{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: i, "
             "resources: {limits: {nvidia.com/gpu: 0.5}}}]}}]}"]
    for i in range(1, 10):
        lines.append(f"- &l{i} {{apiVersion: v1, kind: List, items: [{', '.join([f'*l{i - 1}'] * 6)}]}}")
    return "\n".join(lines) + "\n"


def _deep_lists(depth: int) -> str:
    doc = "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}"
    for _ in range(depth):
        doc = "{apiVersion: v1, kind: List, items: [" + doc + "]}"
    return doc + "\n"


@dataclass
class Case:
    name: str
    args: list[str]  # {in} is replaced by the inputs folder
    stdin: str | None = None  # a file of the inputs folder, or /dev/zero


CASES: list[Case] = [
    Case("render -f alias bomb", ["recipe", "render", "gpu-pod", "-f", "{in}/values-bomb.yaml"]),
    Case("validate ConfigMap alias bomb", ["validate", "{in}/configmap-bomb.yaml"]),
    Case("lint --profile alias bomb", ["lint", "{in}/pod.yaml", "--profile", "{in}/profile-bomb.yaml"]),
    Case("validate --crd alias bomb", ["validate", "{in}/widget.yaml", "--crd", "{in}/crd-bomb.yaml"]),
    Case("alias bomb in a CRD schema", ["validate", "{in}/widget.yaml", "--crd", "{in}/crd-schema-bomb.yaml"]),
    Case("nested kind: List with aliases", ["validate", "{in}/nested-list.yaml"]),
    Case("kind: List nested 12 deep", ["validate", "{in}/deep-lists.yaml"]),
    Case("900-level nesting", ["validate", "{in}/deep900.yaml"]),
    Case("950-level nesting in a custom resource", ["validate", "{in}/deep-cr.yaml"]),
    Case("validate - with invalid UTF-8", ["validate", "-"], stdin="latin1.yaml"),
    Case("render -f non-UTF-8 file", ["recipe", "render", "gpu-pod", "-f", "{in}/values-latin1.yaml"]),
    Case("validate /dev/zero", ["validate", "/dev/zero"]),
    Case("validate - < /dev/zero", ["validate", "-"], stdin="/dev/zero"),
    Case("duplicate keys", ["validate", "{in}/dupkeys.yaml"]),
    Case("terminal escapes in values", ["validate", "{in}/escapes.yaml"]),
    Case("5,000-digit integer", ["validate", "{in}/bigint.yaml"]),
    Case("ask with invalid UTF-8", ["ask", os.fsdecode(b"caf\xe9 \xff pending")]),
    Case("ask an empty question", ["ask", "  "]),
    Case("generate an empty request", ["generate", " "]),
    Case("ask - < /dev/zero", ["ask", "--json", "-"], stdin="/dev/zero"),
]


def run_case(case: Case, inputs: Path, env: dict[str, str] | None = None, timeout: float = 30.0,
             memory_mb: int = 2000) -> dict[str, Any]:
    """Run one case as ``python -m gpukb`` under an address-space limit; time, peak RSS and how it ended."""
    args = [a.replace("{in}", str(inputs)) for a in case.args]
    stdin: Any = subprocess.DEVNULL
    if case.stdin:
        stdin = open(case.stdin if case.stdin.startswith("/") else inputs / case.stdin, "rb")
    limit = memory_mb * 2**20

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "gpukb", *args], stdin=stdin, stdout=out, stderr=err,
                             env={**os.environ, **(env or {})}, preexec_fn=limits, start_new_session=True)
        killed = False
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                killed = True
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        if hasattr(stdin, "close"):
            stdin.close()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
    errors = [line for line in stderr.splitlines() if line.startswith("Error: ")]
    return {"case": case.name, "seconds": round(seconds, 2), "peak_mb": round(usage.ru_maxrss / 1024),
            "exit": p.returncode, "killed": killed, "error": errors[0][:200] if errors else "",
            "internal_error": "internal error" in stderr or "Traceback" in stderr,
            "escape_in_output": b"\x1b" in stdout or "\x1b" in stderr,
            "ok": (not killed and p.returncode in (0, 1, 2) and "internal error" not in stderr
                   and "Traceback" not in stderr and seconds <= TIME_LIMIT_S
                   and usage.ru_maxrss / 1024 <= MEMORY_LIMIT_MB)}
