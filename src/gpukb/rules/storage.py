"""Family ``storage``: ephemeral storage, shared memory and volume access modes."""

from __future__ import annotations

from typing import Any, Iterable

from ..k8s.walk import as_dict, iter_containers, json_path
from .context import SERVING_KINDS, DocumentIndex, LintContext, container_gpus, pod_gpus
from .registry import Hit, rule


@rule(
    "serving-no-ephemeral-storage",
    family="storage",
    severity="warning",
    title="A GPU model server (Deployment/StatefulSet container with ports) declares no ephemeral-storage request",
    symptom="The node was low on resource: ephemeral-storage.",
    fix="Request (and limit) ephemeral-storage for the model files and caches the server writes, or mount a volume for them.",
    doc_id="storage-ephemeral",
)
def serving_no_ephemeral_storage(ctx: LintContext) -> Iterable[Hit]:
    if (ctx.group, ctx.kind) not in SERVING_KINDS:
        return
    for pod in ctx.gpu_pods:
        for c in iter_containers(pod, init=False):
            if not c.container.get("ports"):
                continue  # not a server
            if container_gpus(c) and "ephemeral-storage" not in c.resource_map("requests") and "ephemeral-storage" not in c.resource_map("limits"):
                yield Hit(json_path(c.path, "resources", "requests"), f"container {c.name!r} serves on a GPU without an ephemeral-storage request")


@rule(
    "emptydir-no-size-limit",
    family="storage",
    severity="warning",
    title="A GPU pod mounts a disk-backed emptyDir without sizeLimit",
    symptom="The node was low on resource: ephemeral-storage.",
    fix="Set emptyDir.sizeLimit (and an ephemeral-storage request) for model caches, or use a generic ephemeral volume / PVC.",
    doc_id="storage-ephemeral",
)
def emptydir_no_size_limit(ctx: LintContext) -> Iterable[Hit]:
    for pod in ctx.gpu_pods:
        for i, v in enumerate(pod.spec.get("volumes") or []):
            if not isinstance(v, dict) or "emptyDir" not in v:
                continue
            ed = as_dict(v.get("emptyDir"))
            if ed.get("medium") != "Memory" and not ed.get("sizeLimit"):
                yield Hit(json_path(pod.path, "volumes", i, "emptyDir"), f"emptyDir {v.get('name')!r} can fill the node's disk")


@rule(
    "shm-missing",
    family="storage",
    severity="warning",
    title="A multi-GPU or PyTorch training pod has no memory-backed /dev/shm",
    symptom="ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
    fix="Mount an emptyDir {medium: Memory, sizeLimit: 16Gi} at /dev/shm (the container default is 64Mi).",
    doc_id="storage-ephemeral",
)
def shm_missing(ctx: LintContext) -> Iterable[Hit]:
    pytorch = ctx.is_kind("kubeflow.org", "PyTorchJob")
    for pod in ctx.gpu_pods:
        if not pytorch and pod_gpus(pod) <= 1:
            continue
        if (ctx.group, ctx.kind) not in {("kubeflow.org", "PyTorchJob"), ("kubeflow.org", "MPIJob"), ("batch.volcano.sh", "Job"), ("batch", "Job"), ("jobset.x-k8s.io", "JobSet")}:
            continue
        mem_vols = {
            v.get("name")
            for v in pod.spec.get("volumes") or []
            if isinstance(v, dict) and isinstance(v.get("emptyDir"), dict) and v["emptyDir"].get("medium") == "Memory"
        }
        for c in iter_containers(pod, init=False):
            if not container_gpus(c):
                continue
            mounts = c.container.get("volumeMounts") or []
            if not any(isinstance(m, dict) and m.get("mountPath") == "/dev/shm" and m.get("name") in mem_vols for m in mounts):
                yield Hit(json_path(c.path, "volumeMounts"), f"container {c.name!r} has only the default 64Mi /dev/shm")
                break


def _pvc_modes(ctx: LintContext) -> dict[tuple[str, str], list[str]]:
    """(namespace, claim name) -> access modes of the PVCs among the inputs (once per run)."""
    def build(index: DocumentIndex) -> dict[tuple[str, str], list[str]]:
        out: dict[tuple[str, str], list[str]] = {}
        for d in index.of_kind("", "PersistentVolumeClaim"):
            spec = as_dict(d.get("spec"))
            modes = spec.get("accessModes")
            name = ctx.name_of(d)
            if name and isinstance(modes, list):
                out[(ctx.ns_of(d), name)] = [str(m) for m in modes]
        return out

    assert isinstance(ctx.index, DocumentIndex)
    return ctx.index.derived("pvc-modes", build)


def _claims(pod_spec: dict[str, Any]):
    for i, v in enumerate(pod_spec.get("volumes") or []):
        if isinstance(v, dict) and isinstance(v.get("persistentVolumeClaim"), dict):
            yield i, v["persistentVolumeClaim"].get("claimName"), bool(v["persistentVolumeClaim"].get("readOnly"))


@rule(
    "rwo-volume-shared",
    family="storage",
    severity="error",
    title="A ReadWriteOnce(Pod) claim is mounted by a job or workload that runs several pods",
    symptom='Multi-Attach error for volume "pvc-0a1b" Volume is already used by pod(s) trainer-worker-0',
    fix="Use a ReadWriteMany volume (FSx for Lustre, IBM Storage Scale, NFS/EFS) for data shared by several nodes, or volumeClaimTemplates for per-pod disks.",
    doc_id="storage-rwx-datasets",
)
def rwo_volume_shared(ctx: LintContext) -> Iterable[Hit]:
    modes = _pvc_modes(ctx)
    if not modes or ctx.total_pods() <= 1 or ctx.is_kind("apps", "DaemonSet"):
        return
    for pod in ctx.pods:
        for i, claim, _ro in _claims(pod.spec):
            m = modes.get((ctx.namespace, str(claim)))
            if m and "ReadWriteMany" not in m and "ReadOnlyMany" not in m:
                yield Hit(
                    json_path(pod.path, "volumes", i, "persistentVolumeClaim"),
                    f"claim {claim!r} is {'/'.join(m)} but {ctx.total_pods()} pods mount it",
                )
