"""Family ``sharing``: MIG resource names and time-slicing."""

from __future__ import annotations

import re
from typing import Iterable

from ..k8s.walk import iter_containers, json_path
from .context import LintContext, container_gpus, selector_terms
from .registry import Hit, rule

MIG_RX = re.compile(r"^nvidia\.com/mig-(\d+c\.)?\d+g\.\d+gb(\+me|\+gfx|\+me\.all|-me)?$")


def _gpu_requests(ctx: LintContext):
    for pod in ctx.pods:
        for c in iter_containers(pod):
            for name, q in container_gpus(c).items():
                yield pod, c, name, q


@rule(
    "mig-resource-malformed",
    family="sharing",
    severity="warning",
    title="A MIG resource name does not have the form nvidia.com/mig-<g>g.<mem>gb",
    symptom="0/3 nodes are available: 3 Insufficient nvidia.com/mig-1g10gb",
    fix="Use the exact MIG resource name the device plugin advertises, e.g. nvidia.com/mig-1g.10gb or nvidia.com/mig-3g.40gb.",
    doc_id="sharing-mig",
)
def mig_resource_malformed(ctx: LintContext) -> Iterable[Hit]:
    for pod, c, name, _ in _gpu_requests(ctx):
        if name.startswith("nvidia.com/mig") and not MIG_RX.match(name):
            yield Hit(json_path(c.path, "resources", "limits", name), f"container {c.name!r}: {name!r} is not a MIG resource name")


@rule(
    "mig-resource-wrong-strategy",
    family="sharing",
    severity="error",
    title="A MIG resource is requested but the cluster's MIG strategy does not advertise it",
    symptom="0/3 nodes are available: 3 Insufficient nvidia.com/mig-1g.10gb",
    fix="With the single strategy request nvidia.com/gpu (each is one MIG slice); nvidia.com/mig-<profile> exists only with the mixed strategy.",
    doc_id="sharing-mig",
    needs_profile=True,
)
def mig_resource_wrong_strategy(ctx: LintContext) -> Iterable[Hit]:
    strategy = ctx.profile.mig_strategy if ctx.profile else None
    if strategy not in ("none", "single"):
        return
    for pod, c, name, _ in _gpu_requests(ctx):
        if name.startswith("nvidia.com/mig-"):
            yield Hit(
                json_path(c.path, "resources", "limits", name),
                f"container {c.name!r}: {name} does not exist with MIG strategy {strategy!r}"
                + ("; request nvidia.com/gpu" if strategy == "single" else ""),
            )


@rule(
    "mig-profile-unavailable",
    family="sharing",
    severity="error",
    title="A MIG profile is requested that the cluster's MIG configuration does not create",
    symptom="0/3 nodes are available: 3 Insufficient nvidia.com/mig-2g.20gb",
    fix="Request one of the profiles the nodes' mig-parted config creates, or change the nvidia.com/mig.config label.",
    doc_id="sharing-mig-manager",
    needs_profile=True,
)
def mig_profile_unavailable(ctx: LintContext) -> Iterable[Hit]:
    profiles = ctx.profile.mig_profiles if ctx.profile else None
    if not profiles or (ctx.profile and ctx.profile.mig_strategy in ("none", "single")):
        return
    for pod, c, name, _ in _gpu_requests(ctx):
        if name.startswith("nvidia.com/mig-"):
            prof = name[len("nvidia.com/mig-"):]
            if prof not in profiles:
                yield Hit(json_path(c.path, "resources", "limits", name), f"container {c.name!r}: MIG profile {prof} is not among {profiles}")


def _ts(ctx: LintContext):
    return ctx.profile.time_slicing if ctx.profile else None


@rule(
    "time-slicing-renamed-resource",
    family="sharing",
    severity="error",
    title="nvidia.com/gpu is requested but time-slicing renames it to nvidia.com/gpu.shared",
    symptom="0/3 nodes are available: 3 Insufficient nvidia.com/gpu",
    fix="Request nvidia.com/gpu.shared on time-sliced nodes (renameByDefault: true), or turn renameByDefault off.",
    doc_id="sharing-time-slicing",
    needs_profile=True,
)
def time_slicing_renamed(ctx: LintContext) -> Iterable[Hit]:
    ts = _ts(ctx)
    if not ts or not ts.rename_by_default:
        return
    for pod, c, name, _ in _gpu_requests(ctx):
        if name in ts.resources:
            yield Hit(json_path(c.path, "resources", "limits", name), f"container {c.name!r}: the nodes advertise {name}.shared, not {name}")


@rule(
    "time-slicing-shared-without-rename",
    family="sharing",
    severity="error",
    title="nvidia.com/gpu.shared is requested but the cluster does not rename time-sliced GPUs",
    symptom="0/3 nodes are available: 3 Insufficient nvidia.com/gpu.shared",
    fix="Request nvidia.com/gpu (renameByDefault is false), or set renameByDefault: true in the device plugin config.",
    doc_id="sharing-time-slicing",
    needs_profile=True,
)
def time_slicing_shared_without_rename(ctx: LintContext) -> Iterable[Hit]:
    if ctx.profile is None:
        return
    ts = _ts(ctx)
    if ts is not None and ts.rename_by_default:
        return
    for pod, c, name, _ in _gpu_requests(ctx):
        if name.endswith(".shared"):
            why = "time-slicing is not configured" if ts is None else "renameByDefault is false"
            yield Hit(json_path(c.path, "resources", "limits", name), f"container {c.name!r}: {name} is not advertised ({why})")


@rule(
    "time-slicing-more-than-one",
    family="sharing",
    severity="error",
    title="More than one time-sliced GPU requested where failRequestsGreaterThanOne rejects it (or where it gives no extra compute)",
    symptom="request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1",
    fix="Request 1 shared GPU per container; more replicas of one GPU give no more compute or memory. Use MIG or whole GPUs for more.",
    doc_id="sharing-time-slicing",
)
def time_slicing_more_than_one(ctx: LintContext) -> Iterable[Hit]:
    ts = _ts(ctx)
    for pod, c, name, q in _gpu_requests(ctx):
        if q <= 1:
            continue
        path = json_path(c.path, "resources", "limits", name)
        if ts is not None and ts.replicas > 1 and ts.fail_requests_greater_than_one:
            shared = {r + ".shared" for r in ts.resources} if ts.rename_by_default else set(ts.resources)
            if name in shared:
                yield Hit(path, f"container {c.name!r}: {name}: {q} is refused by the device plugin (failRequestsGreaterThanOne)")
        elif name.endswith(".shared"):
            yield Hit(path, f"container {c.name!r}: {q} replicas of a time-sliced GPU share one device: no extra compute", "warning")


@rule(
    "time-slicing-product-label",
    family="sharing",
    severity="error",
    title="A pod selects an exact nvidia.com/gpu.product on nodes where time-slicing appends -SHARED",
    symptom="0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector",
    fix="With renameByDefault: false GFD labels time-sliced nodes nvidia.com/gpu.product=<name>-SHARED; select that value.",
    doc_id="sharing-time-slicing",
    needs_profile=True,
)
def time_slicing_product_label(ctx: LintContext) -> Iterable[Hit]:
    ts = _ts(ctx)
    if ts is None or ts.rename_by_default or ts.replicas <= 1:
        return
    for pod in ctx.nvidia_pods:
        for path, key, op, values in selector_terms(pod.spec, pod.path):
            if key == "nvidia.com/gpu.product" and op == "In" and values and not any(v.endswith("-SHARED") for v in values):
                yield Hit(path, f"time-sliced nodes are labelled {values[0]}-SHARED, not {values[0]}")
