"""Family ``resources``: how GPUs are requested."""

from __future__ import annotations

from typing import Iterable

from ..k8s.walk import iter_containers, json_path
from .context import LintContext, container_gpus
from .registry import Hit, rule

DOC = "device-plugin-requesting-gpus"


def _gpu_items(ctx: LintContext):
    for pod in ctx.pods:
        for c in iter_containers(pod):
            req, lim = c.resource_map("requests"), c.resource_map("limits")
            yield c, req, lim


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
