"""Family ``autoscaling``: Karpenter GPU node pools."""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..k8s.quantity import is_gpu_resource
from .context import LintContext
from ..k8s.walk import as_dict
from .registry import Hit, rule

_GPU_FAMILY = re.compile(r"^(g\d|p\d|gr\d)")  # AWS GPU instance families: g4dn, g5, g6e, p4d, p5...
_GPU_KEYS = {
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-memory",
}


def _np_spec(ctx: LintContext) -> dict[str, Any]:
    tpl = as_dict(ctx.spec.get("template"))
    s = tpl.get("spec")
    return s if isinstance(s, dict) else {}


def is_gpu_nodepool(ctx: LintContext) -> bool:
    """A NodePool whose requirements can only (or explicitly) launch GPU instances."""
    if not ctx.is_kind("karpenter.sh", "NodePool"):
        return False
    spec = _np_spec(ctx)
    for t in spec.get("taints") or []:
        if isinstance(t, dict) and is_gpu_resource(str(t.get("key", ""))):
            return True
    for r in spec.get("requirements") or []:
        if not isinstance(r, dict):
            continue
        key, op, vals = r.get("key"), r.get("operator"), [str(v) for v in r.get("values") or []]
        if key in _GPU_KEYS and op in ("Exists", "In", "Gt", "Gte"):
            if op in ("Gt", "Gte") and vals and vals[0].isdigit() and int(vals[0]) < (0 if op == "Gt" else 1):
                continue
            return True
        if op == "In" and vals:
            if key == "karpenter.k8s.aws/instance-category" and all(v in ("g", "p") for v in vals):
                return True
            if key == "karpenter.k8s.aws/instance-family" and all(_GPU_FAMILY.match(v) for v in vals):
                return True
            if key == "node.kubernetes.io/instance-type" and all(_GPU_FAMILY.match(v) for v in vals):
                return True
    return False


@rule(
    "karpenter-gpu-nodepool-no-taint",
    family="autoscaling",
    severity="warning",
    title="A Karpenter GPU NodePool puts no taint on its nodes",
    symptom="CPU-only pods are scheduled onto GPU nodes, which then never consolidate",
    fix="Add template.spec.taints: [{key: nvidia.com/gpu, effect: NoSchedule}] and tolerate it in GPU workloads.",
    doc_id="autoscaling-karpenter-gpu",
)
def karpenter_gpu_nodepool_no_taint(ctx: LintContext) -> Iterable[Hit]:
    if not is_gpu_nodepool(ctx):
        return
    taints = [t for t in _np_spec(ctx).get("taints") or [] if isinstance(t, dict) and t.get("effect") in ("NoSchedule", "NoExecute")]
    if not taints:
        yield Hit("spec.template.spec.taints", "GPU NodePool without a NoSchedule taint: any pending pod can land on a GPU node")


@rule(
    "karpenter-gpu-nodepool-no-limits",
    family="autoscaling",
    severity="warning",
    title="A Karpenter GPU NodePool has no limits (or none on GPUs)",
    symptom="Karpenter keeps launching GPU nodes while pods are Pending; nothing caps the pool",
    fix="Set spec.limits (e.g. nvidia.com/gpu: 32, cpu: 1000) so a burst of pending pods cannot buy unbounded GPU nodes.",
    doc_id="autoscaling-karpenter-gpu",
)
def karpenter_gpu_nodepool_no_limits(ctx: LintContext) -> Iterable[Hit]:
    if not is_gpu_nodepool(ctx):
        return
    limits = ctx.spec.get("limits")
    if not isinstance(limits, dict) or not limits:
        yield Hit("spec.limits", "GPU NodePool without limits can scale GPU spend without bound")
    elif not any(is_gpu_resource(str(k)) for k in limits):
        yield Hit("spec.limits", f"limits cap {', '.join(map(str, limits))} but not nvidia.com/gpu")


@rule(
    "karpenter-time-slicing",
    family="autoscaling",
    severity="warning",
    title="Karpenter provisions GPU nodes for a cluster that time-slices GPUs",
    symptom="Karpenter launches a new GPU node for each pending pod although time-sliced replicas are free",
    fix="Karpenter sizes nodes by physical GPUs, not time-slicing replicas: use a NodeOverlay for the shared capacity, or provision the pool with fixed capacity.",
    doc_id="autoscaling-karpenter-gpu",
    needs_profile=True,
)
def karpenter_time_slicing(ctx: LintContext) -> Iterable[Hit]:
    ts = ctx.profile.time_slicing if ctx.profile else None
    if ts is None or ts.replicas <= 1 or not is_gpu_nodepool(ctx):
        return
    yield Hit("spec.template.spec.requirements", f"time-slicing advertises {ts.replicas} replicas per GPU, which Karpenter does not know")
