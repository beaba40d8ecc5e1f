"""Family ``scheduling``: taints, tolerations and node labels on GPU pools."""

from __future__ import annotations

from typing import Iterable

from ..k8s.walk import iter_containers, json_path
from .context import LintContext, container_gpus, selector_terms, tolerates
from .registry import Hit, rule

# Labels GPU Feature Discovery (and the GPU Operator) set in the nvidia.com domain.
GFD_EXACT = {
    "nvidia.com/gpu.present",
    "nvidia.com/gpu.count",
    "nvidia.com/gpu.product",
    "nvidia.com/gpu.family",
    "nvidia.com/gpu.memory",
    "nvidia.com/gpu.machine",
    "nvidia.com/gpu.replicas",
    "nvidia.com/gpu.sharing-strategy",
    "nvidia.com/gpu.mode",
    "nvidia.com/gpu.clique",
    "nvidia.com/gpu.imex-domain",
    "nvidia.com/gpu.multiprocessors",
    "nvidia.com/gpu.workload.config",
    "nvidia.com/gpu.compute.major",
    "nvidia.com/gpu.compute.minor",
    "nvidia.com/mig.capable",
    "nvidia.com/mig.strategy",
    "nvidia.com/mig.config",
    "nvidia.com/mig.config.state",
    "nvidia.com/mps.capable",
    "nvidia.com/vgpu.present",
    "nvidia.com/device-plugin.config",
    "nvidia.com/gfd.timestamp",
}
GFD_PREFIXES = (
    "nvidia.com/cuda.",
    "nvidia.com/gpu.deploy.",
    "nvidia.com/gpu.slices.",
    "nvidia.com/gpu.engines.",
    "nvidia.com/mig-",
    "nvidia.com/vgpu.",
    "nvidia.com/gpu-driver-upgrade",
    "nvidia.com/gpu.driver-upgrade",
)


# Labels the kubelet or the cloud provider puts on every node.
WELL_KNOWN = {
    "kubernetes.io/hostname",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
}
# Node labels that say "this node has an NVIDIA GPU" (GFD/operator or NFD's PCI vendor 10de).
GPU_NODE_KEYS = ("nvidia.com/", "feature.node.kubernetes.io/pci-10de")


def _gfd_sets(key: str) -> bool:
    return key in GFD_EXACT or key.startswith(GFD_PREFIXES)


def _requested(ctx_pod) -> set[str]:
    out: set[str] = set()
    for c in iter_containers(ctx_pod):
        out.update(container_gpus(c))
        out.update(str(k) for k in c.resource_map("limits"))
    return out


def _blocking_taints(ctx: LintContext):
    for t in (ctx.profile.gpu_node_taints or []) if ctx.profile else []:
        if t.get("effect") in ("NoSchedule", "NoExecute"):
            yield t


@rule(
    "gpu-missing-toleration",
    family="scheduling",
    severity="error",
    title="A GPU pod does not tolerate the GPU node taints of the profile",
    symptom="0/4 nodes are available: 4 node(s) had untolerated taint {nvidia.com/gpu: true}",
    fix="Add a toleration for each GPU node taint (or enable the ExtendedResourceToleration admission plugin when the taint key is the resource name).",
    doc_id="scheduling-taints-tolerations",
    needs_profile=True,
)
def gpu_missing_toleration(ctx: LintContext) -> Iterable[Hit]:
    taints = list(_blocking_taints(ctx))
    if not taints:
        return
    for pod in ctx.nvidia_pods:
        requested = _requested(pod)
        for t in taints:
            if not tolerates(pod.spec, t, requested, bool(ctx.profile and ctx.profile.extended_resource_toleration)):
                yield Hit(
                    json_path(pod.path, "tolerations"),
                    f"pod{' ' + pod.role if pod.role else ''} requests GPUs but does not tolerate taint "
                    f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}",
                )


@rule(
    "daemonset-missing-gpu-toleration",
    family="scheduling",
    severity="warning",
    title="A DaemonSet meant for every node (or for GPU nodes) does not tolerate the GPU node taints",
    symptom="node(s) had untolerated taint {nvidia.com/gpu: true}",
    fix="Add the GPU taint tolerations to node agents (log shippers, DCGM exporter, CNI) that must run on GPU nodes.",
    doc_id="scheduling-taints-tolerations",
    needs_profile=True,
)
def daemonset_missing_gpu_toleration(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("apps", "DaemonSet"):
        return
    taints = list(_blocking_taints(ctx))
    if not taints:
        return
    for pod in ctx.pods:
        keys = [k for _, k, _, _ in selector_terms(pod.spec, pod.path)]
        targets_gpu = any(k.startswith(GPU_NODE_KEYS) for k in keys)
        if keys and not targets_gpu:
            continue  # pinned to other nodes on purpose
        for t in taints:
            if not tolerates(pod.spec, t):
                yield Hit(
                    json_path(pod.path, "tolerations"),
                    f"DaemonSet pods will not run on GPU nodes: taint {t.get('key')}:{t.get('effect')} is not tolerated"
                    + (" although the selector targets GPU nodes" if targets_gpu else ""),
                    "error" if targets_gpu else None,
                )


@rule(
    "node-label-not-set",
    family="scheduling",
    severity="warning",
    title="A GPU pod selects nodes on a label GPU Feature Discovery or the cluster does not set",
    symptom="0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector",
    fix="Select on labels the nodes carry: GFD's nvidia.com/gpu.product, nvidia.com/gpu.memory, nvidia.com/gpu.count, or the cloud's instance-type label.",
    doc_id="device-plugin-gfd-labels",
)
def node_label_not_set(ctx: LintContext) -> Iterable[Hit]:
    labels = ctx.profile.node_labels if ctx.profile and ctx.profile.node_labels is not None else None
    for pod in ctx.nvidia_pods:
        for path, key, op, values in selector_terms(pod.spec, pod.path):
            if labels is not None:
                if key not in labels and key in WELL_KNOWN:
                    continue  # set on every node; values unknown to the profile
                if key not in labels:
                    if op not in ("NotIn", "DoesNotExist"):
                        yield Hit(path, f"GPU nodes have no label {key!r} (profile node_labels)", "error")
                    continue
                allowed = labels[key]
                if allowed is not None and op == "In" and not any(v in allowed for v in values):
                    yield Hit(path, f"no GPU node has {key} in {values}; nodes have {allowed}", "error")
            elif key.startswith("nvidia.com/") and not _gfd_sets(key):
                yield Hit(path, f"GPU Feature Discovery does not set the label {key!r}")
