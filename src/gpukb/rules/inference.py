"""Family ``inference``: GPU model servers and their probes."""

from __future__ import annotations

from typing import Iterable

from ..k8s.walk import as_int, iter_containers, json_path
from .context import SERVING_KINDS, LintContext, container_gpus
from .registry import Hit, rule

# A model server needs minutes to load weights; probes that fire before that kill it.
SLOW_START_SECONDS = 120


@rule(
    "serving-no-readiness-probe",
    family="inference",
    severity="warning",
    title="A GPU model server (Deployment/StatefulSet container with ports) has no readinessProbe",
    symptom="connect: connection refused",
    fix="Add a readinessProbe on the server's health endpoint so traffic waits until the model is loaded.",
    doc_id="inference-probes-model-load",
)
def serving_no_readiness_probe(ctx: LintContext) -> Iterable[Hit]:
    if (ctx.group, ctx.kind) not in SERVING_KINDS:
        return
    for pod in ctx.gpu_pods:
        for c in iter_containers(pod, init=False):
            if container_gpus(c) and c.container.get("ports") and not isinstance(c.container.get("readinessProbe"), dict):
                yield Hit(json_path(c.path, "readinessProbe"), f"container {c.name!r} gets traffic before the model is loaded")


@rule(
    "liveness-before-model-load",
    family="inference",
    severity="warning",
    title="A GPU container's livenessProbe can fire while the model is still loading (no startupProbe, short delay)",
    symptom="Liveness probe failed",
    fix="Add a startupProbe (failureThreshold x periodSeconds >= the model load time) or raise initialDelaySeconds.",
    doc_id="inference-probes-model-load",
)
def liveness_before_model_load(ctx: LintContext) -> Iterable[Hit]:
    for pod in ctx.gpu_pods:
        for c in iter_containers(pod, init=False):
            live = c.container.get("livenessProbe")
            if not container_gpus(c) or not isinstance(live, dict) or isinstance(c.container.get("startupProbe"), dict):
                continue
            delay = as_int(live.get("initialDelaySeconds"), 0) or 0
            grace = delay + (as_int(live.get("periodSeconds"), 10) or 10) * (as_int(live.get("failureThreshold"), 3) or 3)
            if grace < SLOW_START_SECONDS:
                yield Hit(
                    json_path(c.path, "livenessProbe"),
                    f"container {c.name!r} is restarted if not live within ~{grace}s of start; model loading often takes longer",
                )
