"""Family ``gang``: all-or-nothing scheduling of multi-pod GPU jobs."""

from __future__ import annotations

from typing import Any, Iterable

from ..k8s.walk import as_dict, as_int, iter_containers, json_path
from .context import DocumentIndex, LintContext, container_gpus, pod_gpus
from .registry import Hit, rule

POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
KUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def _labels(obj: Any) -> dict[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    labels = meta.get("labels") if isinstance(meta, dict) else None
    return labels if isinstance(labels, dict) else {}


def _has_gang(ctx: LintContext) -> bool:
    gang_schedulers = {"volcano", "scheduler-plugins-scheduler"} | (cosched_schedulers(ctx) - {"default-scheduler"})
    if ctx.is_kind("batch.volcano.sh", "Job"):
        return True
    run_policy = as_dict(ctx.spec.get("runPolicy"))
    if isinstance(run_policy.get("schedulingPolicy"), dict):
        return True
    if KUEUE_LABEL in _labels(ctx.doc):
        return True
    for pod in ctx.pods:
        if pod.spec.get("schedulerName") in gang_schedulers or POD_GROUP_LABEL in pod.labels:
            return True
    return False


@rule(
    "gang-scheduling-missing",
    family="gang",
    severity="warning",
    title="A multi-pod GPU training job runs without gang scheduling",
    symptom="0/8 nodes are available: 8 Insufficient nvidia.com/gpu",
    fix="Schedule the job as a gang: Volcano (schedulerName: volcano / runPolicy.schedulingPolicy), Coscheduling (PodGroup + pod-group label) or Kueue admission.",
    doc_id="gang-why",
)
def gang_scheduling_missing(ctx: LintContext) -> Iterable[Hit]:
    kinds = {
        ("kubeflow.org", k) for k in ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob")
    } | {("jobset.x-k8s.io", "JobSet"), ("batch", "Job")}
    if (ctx.group, ctx.kind) not in kinds or not ctx.gpu_pods:
        return
    if ctx.is_kind("batch", "Job") and ctx.spec.get("completionMode") != "Indexed":
        return
    total = ctx.total_pods()
    if total > 1 and not _has_gang(ctx):
        yield Hit("spec", f"{total} pods must run together but are scheduled one by one: some can hold GPUs while the rest stay Pending")


@rule(
    "volcano-partial-gang",
    family="gang",
    severity="warning",
    title="A Volcano training Job's minAvailable is below its task replicas, so it starts partially",
    symptom="pods Running while the rest stay Pending; the job waits at rendezvous holding GPUs",
    fix="Set spec.minAvailable to the sum of task replicas for distributed training (the default when omitted).",
    doc_id="gang-volcano",
    kinds=("batch.volcano.sh/Job",),
)
def volcano_min_available(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("batch.volcano.sh", "Job"):
        return
    tasks = [t for t in ctx.spec.get("tasks") or [] if isinstance(t, dict)]
    total = sum(as_int(t.get("replicas"), 0) or 0 for t in tasks)
    m = as_int(ctx.spec.get("minAvailable"))
    if m is None:
        return
    if m > total:
        return  # an admission error (volcano-min-available)
    plugins = as_dict(ctx.spec.get("plugins"))
    if m < total and ctx.gpu_pods and set(plugins) & {"pytorch", "mpi", "tensorflow"}:
        yield Hit(
            "spec.minAvailable",
            f"minAvailable {m} < {total} replicas of a {'/'.join(sorted(set(plugins) & {'pytorch', 'mpi', 'tensorflow'}))} job: "
            "it starts partially and waits for the rest while holding GPUs",
            "warning",
        )


@rule(
    "volcano-queue",
    family="gang",
    severity="warning",
    title="A Volcano Job or PodGroup names no queue, or a queue the profile does not list",
    symptom="unable to find job queue",
    fix="Set spec.queue to the team's Volcano Queue (research, prod...); without it jobs land in the shared 'default' queue.",
    doc_id="tenancy-volcano-queues",
)
def volcano_queue(ctx: LintContext) -> Iterable[Hit]:
    if not (ctx.is_kind("batch.volcano.sh", "Job") or ctx.is_kind("scheduling.volcano.sh", "PodGroup")):
        return
    queue = ctx.spec.get("queue")
    known = ctx.profile.volcano_queues if ctx.profile else None
    if not queue:
        if known is not None and "default" not in known:
            yield Hit("spec.queue", "no queue set and the cluster has no 'default' queue", "error")
        elif ctx.gpu_pods or ctx.is_kind("scheduling.volcano.sh", "PodGroup"):
            yield Hit("spec.queue", "no queue set: the job goes to the shared 'default' queue")
    elif known is not None and queue not in known:
        yield Hit("spec.queue", f"queue {queue!r} is not one of the cluster's queues {known}", "error")


def cosched_schedulers(ctx: LintContext) -> set[str]:
    """Scheduler names that run the Coscheduling plugin: from the profile and from any
    KubeSchedulerConfiguration among the inputs."""
    names: set[str] = set()
    if ctx.profile and ctx.profile.coscheduling_scheduler:
        names.add(ctx.profile.coscheduling_scheduler)
    assert isinstance(ctx.index, DocumentIndex)
    return names | ctx.index.derived("coscheduling-schedulers", _configured_cosched)


def _configured_cosched(index: DocumentIndex) -> set[str]:
    """Scheduler names a KubeSchedulerConfiguration among the inputs gives the Coscheduling plugin."""
    names: set[str] = set()
    for cfg in index.of_kind("kubescheduler.config.k8s.io", "KubeSchedulerConfiguration"):
        for prof in cfg.get("profiles") or []:
            if not isinstance(prof, dict):
                continue
            plugins = as_dict(prof.get("plugins"))
            enabled = [
                p.get("name")
                for point in plugins.values()
                if isinstance(point, dict)
                for p in point.get("enabled") or []
                if isinstance(p, dict)
            ]
            if "Coscheduling" in enabled:
                names.add(str(prof.get("schedulerName") or "default-scheduler"))
    return names


@rule(
    "coscheduling-label-without-scheduler",
    family="gang",
    severity="error",
    title="Pods carry the scheduling.x-k8s.io/pod-group label but are not sent to a scheduler running Coscheduling",
    symptom="0/8 nodes are available: 8 Insufficient nvidia.com/gpu",
    fix="Set schedulerName to the scheduler profile that enables Coscheduling (other schedulers ignore the pod-group label).",
    doc_id="gang-coscheduling",
    needs_profile=True,
)
def coscheduling_label_without_scheduler(ctx: LintContext) -> Iterable[Hit]:
    names = cosched_schedulers(ctx)
    if not names:
        return  # which scheduler runs Coscheduling is unknown: stay quiet
    for pod in ctx.pods:
        if POD_GROUP_LABEL in pod.labels and pod.spec.get("schedulerName", "default-scheduler") not in names:
            yield Hit(
                json_path(pod.path, "schedulerName"),
                f"pod-group label {pod.labels[POD_GROUP_LABEL]!r} is ignored unless schedulerName is one of {sorted(names)}",
            )


@rule(
    "coscheduling-scheduler-without-label",
    family="gang",
    severity="error",
    title="Pods use the Coscheduling scheduler without the scheduling.x-k8s.io/pod-group label",
    symptom="0/8 nodes are available: 8 Insufficient nvidia.com/gpu",
    fix="Label the pod template scheduling.x-k8s.io/pod-group=<PodGroup name> and create the PodGroup with minMember.",
    doc_id="gang-coscheduling",
)
def coscheduling_scheduler_without_label(ctx: LintContext) -> Iterable[Hit]:
    names = (cosched_schedulers(ctx) | {"scheduler-plugins-scheduler"}) - {"default-scheduler"}
    for pod in ctx.pods:
        cosched = pod.spec.get("schedulerName")
        if cosched in names and POD_GROUP_LABEL not in pod.labels and (pod.replicas or 0) > 1:
            yield Hit(
                json_path(pod.path.rsplit(".spec", 1)[0], "metadata", "labels"),
                f"{pod.replicas} pods go to {cosched!r} without a pod-group label: they are scheduled one by one",
            )


@rule(
    "podgroup-min-member",
    family="gang",
    severity="error",
    title="A Coscheduling PodGroup's minMember exceeds the pods that carry its label",
    symptom="pre-filter pod worker-0 cannot find enough sibling pods, current pods number: 2, minMember of group: 4",
    fix="Make minMember at most the number of pods labelled with the group (usually equal to it).",
    doc_id="gang-coscheduling",
)
def podgroup_min_member(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("scheduling.x-k8s.io", "PodGroup"):
        return
    name = ctx.name_of(ctx.doc)
    mm = as_int(ctx.spec.get("minMember"))
    if not name or mm is None:
        return
    assert isinstance(ctx.index, DocumentIndex)
    key = (ctx.namespace, name)
    found = key in ctx.index.pod_group_members
    members = ctx.index.pod_group_members.get(key, 0)
    if found and members < mm:
        yield Hit("spec.minMember", f"minMember {mm} but only {members} pod(s) carry {POD_GROUP_LABEL}={name}")


def _gpus_per_pod(pod) -> int:
    return int(sum((sum(container_gpus(c).values()) for c in iter_containers(pod, init=False)), 0))


@rule(
    "pytorch-nproc-per-node",
    family="gang",
    severity="warning",
    title="PyTorchJob nprocPerNode differs from the GPUs each pod requests",
    symptom="CUDA error: invalid device ordinal",
    fix="Set nprocPerNode to the GPUs per pod (or 'gpu'/'auto'): one process per GPU.",
    doc_id="jobs-pytorchjob",
)
def pytorch_nproc_per_node(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("kubeflow.org", "PyTorchJob"):
        return
    raw = ctx.spec.get("nprocPerNode")
    elastic = as_dict(ctx.spec.get("elasticPolicy"))
    path = "spec.nprocPerNode"
    if raw is None and elastic.get("nProcPerNode") is not None:
        raw, path = elastic.get("nProcPerNode"), "spec.elasticPolicy.nProcPerNode"
    n = as_int(raw)
    if n is None:
        return
    for pod in ctx.gpu_pods:
        g = _gpus_per_pod(pod)
        if g and g != n:
            what = "processes will address GPUs that do not exist" if n > g else "GPUs stay idle"
            yield Hit(path, f"nprocPerNode {n} but {pod.role or 'each'} pod requests {g} GPU(s): {what}")
            return


@rule(
    "mpi-slots-per-worker",
    family="gang",
    severity="warning",
    title="MPIJob slotsPerWorker differs from the GPUs each worker requests",
    symptom="There are not enough slots available in the system to satisfy the",
    fix="Set slotsPerWorker to the GPUs per Worker pod: one MPI rank per GPU.",
    doc_id="jobs-mpijob",
)
def mpi_slots_per_worker(ctx: LintContext) -> Iterable[Hit]:
    if not ctx.is_kind("kubeflow.org", "MPIJob"):
        return
    slots = as_int(ctx.spec.get("slotsPerWorker"), 1)
    for pod in ctx.pods:
        if pod.role != "Worker":
            continue
        g = _gpus_per_pod(pod)
        if g and slots != g:
            yield Hit("spec.slotsPerWorker", f"slotsPerWorker {slots} but each Worker requests {g} GPU(s)")


__all__ = ["POD_GROUP_LABEL", "pod_gpus"]
