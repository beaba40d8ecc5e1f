"""Find the pod specs inside any workload kind.

``iter_pod_specs(doc)`` yields one :class:`PodSpecRef` per pod template in a
document: its JSON path, the pod spec mapping, how many pods run from it at
once (``replicas``; ``None`` for a DaemonSet, one pod per node) and the role
(replica type / task name) where the kind has roles. The validator's semantic
checks and every lint rule use it, so a new workload kind is added here once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = [
    "PodSpecRef",
    "ContainerRef",
    "iter_pod_specs",
    "iter_containers",
    "group_of",
    "json_path",
    "as_int",
    "KUBEFLOW_REPLICA_FIELDS",
]

# Kubeflow training-operator v1 job kinds -> field holding the replica specs.
KUBEFLOW_REPLICA_FIELDS = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
    "MXJob": "mxReplicaSpecs",
}

_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one (manifests are untrusted)."""
    return value if isinstance(value, dict) else {}


def json_path(*parts: Any) -> str:
    """Join path parts: ``json_path("spec", "containers", 0, "nvidia.com/gpu")`` ->
    ``spec.containers[0]["nvidia.com/gpu"]``. The first part is taken as a path as is."""
    out = ""
    for i, p in enumerate(parts):
        if p is None or p == "":
            continue
        if isinstance(p, int) and not isinstance(p, bool):
            out += f"[{p}]"
        elif not out and isinstance(p, str):
            out = p  # the first part is a path already
        elif isinstance(p, str) and _SIMPLE_KEY.match(p):
            out += f".{p}" if out else p
        else:
            out += f"[{_quote(str(p))}]"
    return out


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def group_of(doc: Any) -> tuple[str, str]:
    """(group, version) of a document's apiVersion; ("", "v1") for ``v1``."""
    api = doc.get("apiVersion") if isinstance(doc, dict) else None
    if not isinstance(api, str):
        return "", ""
    if "/" in api:
        g, _, v = api.partition("/")
        return g, v
    return "", api


def as_int(value: Any, default: int | None = None) -> int | None:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return default


@dataclass
class PodSpecRef:
    path: str  # JSON path of the pod spec, e.g. "spec.template.spec"
    spec: dict[str, Any]
    replicas: int | None  # pods running at once from this template; None = one per node
    role: str | None = None  # replica type or task name
    template: dict[str, Any] | None = None  # the enclosing pod template (for labels/annotations)

    @property
    def labels(self) -> dict[str, Any]:
        meta = (self.template or {}).get("metadata")
        labels = meta.get("labels") if isinstance(meta, dict) else None
        return labels if isinstance(labels, dict) else {}


@dataclass
class ContainerRef:
    path: str
    container: dict[str, Any]
    init: bool = False

    @property
    def name(self) -> str:
        n = self.container.get("name")
        return n if isinstance(n, str) else "?"

    @property
    def resources(self) -> dict[str, Any]:
        r = self.container.get("resources")
        return r if isinstance(r, dict) else {}

    def resource_map(self, which: str) -> dict[str, Any]:
        m = self.resources.get(which)
        return m if isinstance(m, dict) else {}


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _template(base: str, tpl: Any, replicas: int | None, role: str | None = None) -> Iterator[PodSpecRef]:
    tpl = _d(tpl)
    spec = tpl.get("spec")
    if isinstance(spec, dict):
        yield PodSpecRef(json_path(base, "spec") if base else "spec", spec, replicas, role, tpl)


def _job_spec(base: str, job_spec: Any, multiplier: int = 1, role: str | None = None) -> Iterator[PodSpecRef]:
    job_spec = _d(job_spec)
    parallelism = as_int(job_spec.get("parallelism"), 1)
    completions = as_int(job_spec.get("completions"))
    pods = parallelism if completions is None else min(parallelism or 1, completions)
    yield from _template(json_path(base, "template"), job_spec.get("template"), (pods or 0) * multiplier, role)


def iter_pod_specs(doc: Any) -> Iterator[PodSpecRef]:
    """Yield every pod spec in ``doc`` (see the module docstring)."""
    if not isinstance(doc, dict):
        return
    kind = doc.get("kind")
    group, _ = group_of(doc)
    spec = _d(doc.get("spec"))
    if kind == "Pod" and group == "":
        if isinstance(doc.get("spec"), dict):
            yield PodSpecRef("spec", spec, 1, None, doc)
    elif kind == "PodTemplate" and group == "":
        yield from _template("template", doc.get("template"), 1)
    elif kind in ("Deployment", "StatefulSet", "ReplicaSet") and group in ("apps", "extensions"):
        yield from _template("spec.template", spec.get("template"), as_int(spec.get("replicas"), 1))
    elif kind == "ReplicationController" and group == "":
        yield from _template("spec.template", spec.get("template"), as_int(spec.get("replicas"), 1))
    elif kind == "DaemonSet" and group in ("apps", "extensions"):
        yield from _template("spec.template", spec.get("template"), None)
    elif kind == "Job" and group == "batch":
        yield from _job_spec("spec", spec)
    elif kind == "CronJob" and group == "batch":
        yield from _job_spec("spec.jobTemplate.spec", _d(spec.get("jobTemplate")).get("spec"))
    elif kind in KUBEFLOW_REPLICA_FIELDS and group == "kubeflow.org":
        field = KUBEFLOW_REPLICA_FIELDS[kind]
        for role, rs in _d(spec.get(field)).items():
            rs = _d(rs)
            yield from _template(
                json_path("spec", field, role, "template"), rs.get("template"), as_int(rs.get("replicas"), 1), str(role)
            )
    elif kind == "MPIJob" and group == "kubeflow.org":
        for role, rs in _d(spec.get("mpiReplicaSpecs")).items():
            rs = _d(rs)
            yield from _template(
                json_path("spec", "mpiReplicaSpecs", role, "template"), rs.get("template"), as_int(rs.get("replicas"), 1), str(role)
            )
    elif kind == "Job" and group == "batch.volcano.sh":
        yield from _volcano_tasks("spec", spec)
    elif kind == "CronJob" and group == "batch.volcano.sh":
        yield from _volcano_tasks("spec.jobTemplate", _d(spec.get("jobTemplate")))
    elif kind == "JobSet" and group == "jobset.x-k8s.io":
        yield from _replicated_jobs("spec", spec)
    elif kind in ("TrainingRuntime", "ClusterTrainingRuntime") and group == "trainer.kubeflow.org":
        tpl = _d(spec.get("template"))
        yield from _replicated_jobs("spec.template.spec", _d(tpl.get("spec")))


def _volcano_tasks(base: str, job_spec: dict[str, Any]) -> Iterator[PodSpecRef]:
    tasks = job_spec.get("tasks")
    if not isinstance(tasks, list):
        return
    for i, task in enumerate(tasks):
        task = _d(task)
        name = task.get("name")
        yield from _template(
            json_path(base, "tasks", i, "template"),
            task.get("template"),
            as_int(task.get("replicas"), 1),
            name if isinstance(name, str) else f"task-{i}",
        )


def _replicated_jobs(base: str, spec: dict[str, Any]) -> Iterator[PodSpecRef]:
    rjobs = spec.get("replicatedJobs")
    if not isinstance(rjobs, list):
        return
    for i, rj in enumerate(rjobs):
        rj = _d(rj)
        name = rj.get("name")
        job_spec = _d(_d(rj.get("template")).get("spec"))
        yield from _job_spec(
            json_path(base, "replicatedJobs", i, "template", "spec"),
            job_spec,
            as_int(rj.get("replicas"), 1) or 1,
            name if isinstance(name, str) else f"job-{i}",
        )


def iter_containers(pod: PodSpecRef, *, init: bool = True) -> Iterator[ContainerRef]:
    """Containers (and, unless ``init=False``, init containers) of a pod spec."""
    keys = ("containers", "initContainers") if init else ("containers",)
    for key in keys:
        items = pod.spec.get(key)
        if not isinstance(items, list):
            continue
        for i, c in enumerate(items):
            if isinstance(c, dict):
                yield ContainerRef(json_path(pod.path, key, i), c, key == "initContainers")
