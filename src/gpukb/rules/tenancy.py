"""Family ``tenancy``: quotas, limit ranges and priorities on shared GPU clusters."""

from __future__ import annotations

from typing import Iterable

from ..k8s.quantity import is_gpu_resource, parse_quantity
from ..k8s.walk import as_dict, json_path
from .context import DocumentIndex, LintContext
from .registry import Hit, rule


def _quota_gpu_keys(doc) -> list[str]:
    spec = as_dict(doc.get("spec"))
    hard = as_dict(spec.get("hard"))
    return [str(k) for k in hard]


@rule(
    "quota-gpu-key",
    family="tenancy",
    severity="error",
    title="A ResourceQuota caps GPUs with nvidia.com/gpu or limits.nvidia.com/gpu instead of requests.nvidia.com/gpu",
    symptom="Used: 0 (kubectl describe resourcequota shows no GPU usage while GPU pods run)",
    fix="Extended resources are quota'd only with the requests. prefix: hard: {requests.nvidia.com/gpu: 8}.",
    doc_id="tenancy-resourcequota-gpu",
)
def quota_gpu_key(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("", "ResourceQuota"):
        return
    for key in _quota_gpu_keys(ctx.doc):
        bare = key[len("limits."):] if key.startswith("limits.") else key
        if is_gpu_resource(bare) and not key.startswith("requests."):
            yield Hit(json_path("spec.hard", key), f"{key!r} is never charged for GPUs; use 'requests.{bare}'")


def _gpu_quota_namespaces(ctx: LintContext) -> set[str]:
    """Namespaces with a GPU ResourceQuota among the inputs (worked out once per run)."""
    def build(index: DocumentIndex) -> set[str]:
        out = set()
        for q in index.of_kind("", "ResourceQuota"):
            if any(k.startswith("requests.") and is_gpu_resource(k[len("requests."):]) for k in _quota_gpu_keys(q)):
                out.add(ctx.ns_of(q))
        return out

    assert isinstance(ctx.index, DocumentIndex)
    return ctx.index.derived("gpu-quota-namespaces", build)


@rule(
    "gpu-pod-without-priority-class",
    family="tenancy",
    severity="warning",
    title="A GPU workload in a multi-tenant namespace has no priorityClassName",
    symptom="0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod.",
    fix="Give production GPU workloads a high PriorityClass and research jobs a low (preemptible) one.",
    doc_id="tenancy-priorityclass-preemption",
    needs_profile=True,
)
def gpu_pod_without_priority_class(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.gpu_pods:
        return
    tenant_ns = set(ctx.profile.multi_tenant_namespaces or []) if ctx.profile else set()
    tenant_ns |= _gpu_quota_namespaces(ctx)
    if ctx.namespace not in tenant_ns:
        return
    if ctx.is_kind("batch.volcano.sh", "Job") and ctx.spec.get("priorityClassName"):
        return
    run_policy = as_dict(ctx.spec.get("runPolicy"))
    sp = as_dict(run_policy.get("schedulingPolicy"))
    if sp.get("priorityClass"):
        return
    for pod in ctx.gpu_pods:
        if not pod.spec.get("priorityClassName"):
            yield Hit(json_path(pod.path, "priorityClassName"), f"GPU pod in shared namespace {ctx.namespace!r} has no priorityClassName")


def _limitrange_items(ctx: LintContext):
    limits = ctx.spec.get("limits")
    for i, item in enumerate(limits if isinstance(limits, list) else []):
        if isinstance(item, dict):
            yield i, item


@rule(
    "limitrange-gpu-default",
    family="tenancy",
    severity="warning",
    title="A LimitRange gives every container a default GPU",
    symptom="0/8 nodes are available: 8 Insufficient nvidia.com/gpu",
    fix="Do not default GPUs in a LimitRange: every container (sidecars, init containers) would get one. Cap with max and a ResourceQuota instead.",
    doc_id="tenancy-limitrange",
)
def limitrange_gpu_default(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("", "LimitRange"):
        return
    for i, item in _limitrange_items(ctx):
        for field in ("default", "defaultRequest"):
            m = item.get(field)
            for name in m if isinstance(m, dict) else {}:
                if is_gpu_resource(str(name)):
                    yield Hit(json_path("spec.limits", i, field, str(name)), f"every container without a GPU limit gets {name}: {m[name]}")


@rule(
    "limitrange-gpu-request-mismatch",
    family="tenancy",
    severity="error",
    title="A LimitRange defaults a GPU request that differs from the GPU limit",
    symptom="must be equal to nvidia.com/gpu limit of 1",
    fix="For GPUs default and defaultRequest must be equal (or drop both).",
    doc_id="tenancy-limitrange",
)
def limitrange_gpu_request_mismatch(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("", "LimitRange"):
        return
    for i, item in _limitrange_items(ctx):
        d = as_dict(item.get("default"))
        r = as_dict(item.get("defaultRequest"))
        for name in set(d) | set(r):
            if not is_gpu_resource(str(name)):
                continue
            if name in d and name in r and parse_quantity(d[name]) != parse_quantity(r[name]):
                yield Hit(json_path("spec.limits", i, "defaultRequest", str(name)), f"defaultRequest {r[name]} != default {d[name]} for {name}")
            elif name in r and name not in d:
                yield Hit(json_path("spec.limits", i, "default"), f"{name} has a defaultRequest but no default limit")
