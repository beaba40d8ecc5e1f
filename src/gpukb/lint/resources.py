"""Family ``resources``: how GPUs are requested."""

from __future__ import annotations

from typing import Iterable

from ..validate.quantity import is_gpu_resource, parse_quantity
from ..validate.walk import iter_containers, json_path
from .context import LintContext, container_gpus
from .registry import Hit, rule

DOC = "device-plugin-requesting-gpus"


def _gpu_items(ctx: LintContext):
    for pod in ctx.pods:
        for c in iter_containers(pod):
            req, lim = c.resource_map("requests"), c.resource_map("limits")
            yield c, req, lim


@rule(
    "gpu-request-without-limit",
    family="resources",
    severity="error",
    title="A GPU resource is in resources.requests but not in resources.limits",
    symptom="Limit must be set for non overcommitable resources",
    fix="Put the GPU count in resources.limits (the request is copied from the limit); keep requests only if equal.",
    doc_id=DOC,
)
def gpu_request_without_limit(ctx: LintContext) -> Iterable[Hit]:
    for c, req, lim in _gpu_items(ctx):
        for name in req:
            if is_gpu_resource(str(name)) and name not in lim:
                yield Hit(json_path(c.path, "resources", "limits"), f"container {c.name!r}: {name} is requested but has no limit")


@rule(
    "gpu-request-limit-mismatch",
    family="resources",
    severity="error",
    title="GPU requests differ from GPU limits",
    symptom="must be equal to nvidia.com/gpu limit of 1",
    fix="Extended resources cannot be overcommitted: make requests equal to limits, or drop requests.",
    doc_id=DOC,
)
def gpu_request_limit_mismatch(ctx: LintContext) -> Iterable[Hit]:
    for c, req, lim in _gpu_items(ctx):
        for name, value in req.items():
            if not is_gpu_resource(str(name)) or name not in lim:
                continue
            a, b = parse_quantity(value), parse_quantity(lim[name])
            if a is not None and b is not None and a != b:
                yield Hit(
                    json_path(c.path, "resources", "requests", str(name)),
                    f"container {c.name!r}: {name} request {value} != limit {lim[name]}",
                )


@rule(
    "gpu-fractional",
    family="resources",
    severity="error",
    title="A GPU quantity is not a whole number (0.5, 500m)",
    symptom="must be an integer",
    fix="Request whole GPUs. To share a GPU use time-slicing, MPS or a MIG slice (nvidia.com/mig-1g.10gb).",
    doc_id=DOC,
)
def gpu_fractional(ctx: LintContext) -> Iterable[Hit]:
    for c, req, lim in _gpu_items(ctx):
        for which, mapping in (("requests", req), ("limits", lim)):
            for name, value in mapping.items():
                q = parse_quantity(value)
                if is_gpu_resource(str(name)) and q is not None and q.denominator != 1:
                    yield Hit(json_path(c.path, "resources", which, str(name)), f"container {c.name!r}: {name}: {value} is not a whole number")


@rule(
    "gpu-container-no-cpu-memory-request",
    family="resources",
    severity="warning",
    title="A GPU container sets no CPU or memory request",
    symptom="The node was low on resource: memory.",
    fix="Request CPU and memory for GPU containers (data loaders and tokenizers need both); set a memory limit.",
    doc_id="tenancy-noisy-neighbours",
)
def gpu_container_no_cpu_memory(ctx: LintContext) -> Iterable[Hit]:
    for pod in ctx.gpu_pods:
        for c in iter_containers(pod, init=False):
            if not container_gpus(c):
                continue
            req, lim = c.resource_map("requests"), c.resource_map("limits")
            missing = [r for r in ("cpu", "memory") if r not in req and r not in lim]
            if missing:
                yield Hit(json_path(c.path, "resources"), f"container {c.name!r} asks for GPUs but sets no {' or '.join(missing)} request")
