"""Family of admission rules: what the API server or an operator's webhook
rejects beyond the schema.

Messages quote the server's or webhook's own wording where there is one, so
users can match them against what ``kubectl apply`` printed. The checks are
registered in the one rule registry (:mod:`gpukb.rules.registry`) with
category ``admission``; ``gpukb validate`` and ``gpukb lint`` both run them.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..findings import Finding
from .registry import Hit, rule_group
from ..k8s.quantity import QUANTITY_RX, is_extended_resource, is_gpu_resource, parse_quantity
from ..k8s.walk import (
    KUBEFLOW_REPLICA_FIELDS,
    ContainerRef,
    as_int,
    group_of,
    iter_containers,
    iter_pod_specs,
    json_path,
)

__all__ = ["semantic_findings", "check_container_resources", "check_resource_requirements", "ADMISSION"]

_STANDARD = ("cpu", "memory", "ephemeral-storage")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _err(rule: str, path: str, message: str, doc_id: str | None = None, fix: str | None = None) -> Finding:
    return Finding(rule=rule, severity="error", path=path, message=message, doc_id=doc_id, fix=fix)


def check_resource_requirements(resources: Any, path: str) -> list[Finding]:
    """Quantity and request/limit rules for one ResourceRequirements mapping at ``path``."""
    out: list[Finding] = []
    if not isinstance(resources, dict):
        return out
    req = _dict(resources.get("requests"))
    lim = _dict(resources.get("limits"))
    parsed: dict[str, dict[str, Any]] = {"requests": {}, "limits": {}}
    for which, mapping in (("requests", req), ("limits", lim)):
        for name, value in mapping.items():
            qpath = json_path(path, which, str(name))
            q = parse_quantity(value)
            if q is None:
                out.append(
                    _err(
                        "invalid-quantity",
                        qpath,
                        f"{value!r}: quantities must match the regular expression '{QUANTITY_RX}'",
                    )
                )
                continue
            if q < 0:
                out.append(_err("invalid-quantity", qpath, f"{value!r}: must be greater than or equal to 0"))
                continue
            parsed[which][str(name)] = q
            if is_extended_resource(str(name)) and q.denominator != 1:
                gpu = is_gpu_resource(str(name))
                out.append(
                    _err(
                        "gpu-fractional" if gpu else "extended-resource-fractional",
                        qpath,
                        f"{value}: must be an integer ({name} is an extended resource: whole devices only)",
                        doc_id="device-plugin-requesting-gpus" if gpu else None,
                        fix="request whole devices; share a GPU with time-slicing, MPS or MIG instead of fractions",
                    )
                )
    for name, q in parsed["requests"].items():
        ext = is_extended_resource(name) or name.startswith("hugepages-")
        gpu = is_gpu_resource(name)
        prefix = "gpu" if gpu else "extended-resource"
        mismatch_id = "gpu-request-limit-mismatch" if gpu else "extended-resource-requests-not-equal-limits"
        missing_id = "gpu-request-without-limit" if gpu else "extended-resource-not-in-limits"
        doc = "device-plugin-requesting-gpus" if gpu else None
        if name in parsed["limits"]:
            limit = parsed["limits"][name]
            if ext and q != limit:
                out.append(
                    _err(
                        mismatch_id,
                        json_path(path, "requests", name),
                        f"must be equal to {name} limit of {lim[name]} (request is {req[name]})",
                        doc_id=doc,
                        fix=f"set only limits.{name}; the request defaults to the limit",
                    )
                )
            elif not ext and q > limit:
                out.append(
                    _err(
                        "request-exceeds-limit",
                        json_path(path, "requests", name),
                        f"must be less than or equal to {name} limit of {lim[name]}",
                    )
                )
        elif ext and name not in lim:
            out.append(
                _err(
                    missing_id,
                    json_path(path, "limits"),
                    f"Limit must be set for non overcommitable resources ({name} is only in requests)",
                    doc_id=doc,
                    fix=f"move {name} to resources.limits (requests may stay only if equal)",
                )
            )
    return out


def check_container_resources(container: ContainerRef) -> list[Finding]:
    return check_resource_requirements(container.container.get("resources"), json_path(container.path, "resources"))


def _pod_checks(doc: dict[str, Any]) -> Iterable[Finding]:
    for pod in iter_pod_specs(doc):
        seen: dict[str, str] = {}
        for c in iter_containers(pod):
            yield from check_container_resources(c)
            name = c.container.get("name")
            if isinstance(name, str):
                if name in seen:
                    yield _err("duplicate-container-name", json_path(c.path, "name"), f"Duplicate value: {name!r}")
                seen[name] = c.path
        # pod-level resources (PodLevelResources feature)
        if isinstance(pod.spec.get("resources"), dict):
            yield from check_resource_requirements(pod.spec["resources"], json_path(pod.path, "resources"))


def _selector_check(doc: dict[str, Any]) -> Iterable[Finding]:
    kind = doc.get("kind")
    group, _ = group_of(doc)
    if group != "apps" or kind not in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
        return
    spec = _dict(doc.get("spec"))
    sel = spec.get("selector")
    tpl = _dict(spec.get("template"))
    meta = _dict(tpl.get("metadata"))
    labels = _dict(meta.get("labels"))
    if not isinstance(sel, dict):
        if "selector" not in spec:
            yield _err("selector-mismatch", "spec.selector", "Required value (apps/v1 workloads need spec.selector)")
        return
    ml = sel.get("matchLabels")
    if isinstance(ml, dict):
        for k, v in ml.items():
            if labels.get(k) != v:
                yield _err(
                    "selector-mismatch",
                    "spec.template.metadata.labels",
                    f"Invalid value: `selector` does not match template `labels` ({k}={v} missing)",
                )
                break
    exprs = sel.get("matchExpressions")
    if isinstance(exprs, list):
        for e in exprs:
            if not isinstance(e, dict):
                continue
            key, op, values = e.get("key"), e.get("operator"), e.get("values") or []
            ok = True
            if op == "In":
                ok = labels.get(str(key)) in values
            elif op == "NotIn":
                ok = labels.get(str(key)) not in values
            elif op == "Exists":
                ok = key in labels
            elif op == "DoesNotExist":
                ok = key not in labels
            if not ok:
                yield _err(
                    "selector-mismatch",
                    "spec.template.metadata.labels",
                    f"Invalid value: `selector` does not match template `labels` ({key} {op})",
                )
                break


def _batch_job_spec_checks(job_spec: Any, base: str) -> Iterable[Finding]:
    if not isinstance(job_spec, dict):
        return
    mode = job_spec.get("completionMode")
    if mode == "Indexed" and job_spec.get("completions") is None:
        yield _err(
            "indexed-job-needs-completions",
            json_path(base, "completions"),
            "Required value: when completion mode is Indexed",
            doc_id="jobs-indexed-job",
            fix="set completions (usually equal to parallelism for a distributed run)",
        )
    if job_spec.get("backoffLimitPerIndex") is not None and mode != "Indexed":
        yield _err(
            "backoff-limit-per-index-needs-indexed",
            json_path(base, "backoffLimitPerIndex"),
            "Invalid value: requires indexed completion mode",
            doc_id="jobs-indexed-job",
        )
    if job_spec.get("maxFailedIndexes") is not None and job_spec.get("backoffLimitPerIndex") is None:
        yield _err(
            "backoff-limit-per-index-needs-indexed",
            json_path(base, "maxFailedIndexes"),
            "Invalid value: cannot set maxFailedIndexes when backoffLimitPerIndex is unset",
            doc_id="jobs-indexed-job",
        )
    tpl = _dict(job_spec.get("template"))
    pod = tpl.get("spec") if isinstance(tpl.get("spec"), dict) else None
    if pod is not None and pod.get("restartPolicy") not in ("Never", "OnFailure"):
        got = pod.get("restartPolicy")
        yield _err(
            "job-restart-policy",
            json_path(base, "template", "spec", "restartPolicy"),
            f'Required value: valid values: "OnFailure", "Never"' + (f" (got {got!r})" if got is not None else ""),
            doc_id="jobs-indexed-job",
            fix="set restartPolicy: Never (or OnFailure) in the Job's pod template",
        )


def _job_checks(doc: dict[str, Any]) -> Iterable[Finding]:
    kind = doc.get("kind")
    group, _ = group_of(doc)
    spec = _dict(doc.get("spec"))
    if group == "batch" and kind == "Job":
        yield from _batch_job_spec_checks(spec, "spec")
    elif group == "batch" and kind == "CronJob":
        jt = _dict(spec.get("jobTemplate"))
        yield from _batch_job_spec_checks(jt.get("spec"), "spec.jobTemplate.spec")
    elif group == "jobset.x-k8s.io" and kind == "JobSet":
        for i, rj in enumerate(spec.get("replicatedJobs") or []):
            if isinstance(rj, dict) and isinstance(rj.get("template"), dict):
                yield from _batch_job_spec_checks(rj["template"].get("spec"), json_path("spec", "replicatedJobs", i, "template", "spec"))


def _policy_events(policies: Any) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    if not isinstance(policies, list):
        return out
    for i, p in enumerate(policies):
        if not isinstance(p, dict):
            continue
        events = []
        if isinstance(p.get("event"), str):
            events.append(p["event"])
        if isinstance(p.get("events"), list):
            events.extend(e for e in p["events"] if isinstance(e, str))
        if p.get("exitCode") is not None:
            events.append(f"exitCode:{p['exitCode']}")
        out.extend((i, e) for e in events)
    return out


def _duplicate_policies(policies: Any, base: str) -> Iterable[Finding]:
    seen: set[str] = set()
    for i, ev in _policy_events(policies):
        if ev in seen:
            yield _err(
                "volcano-duplicate-policy",
                json_path(base, i),
                f"duplicated job event policies: {ev}",
                doc_id="gang-volcano",
            )
        seen.add(ev)


def _volcano_checks(doc: dict[str, Any]) -> Iterable[Finding]:
    group, _ = group_of(doc)
    if group != "batch.volcano.sh" or doc.get("kind") != "Job":
        return
    spec = _dict(doc.get("spec"))
    tasks = spec.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        yield _err("volcano-no-tasks", "spec.tasks", "No task specified in job spec", doc_id="gang-volcano")
        return
    total = 0
    names: set[str] = set()
    for i, task in enumerate(tasks):
        if not isinstance(task, dict):
            continue
        replicas = as_int(task.get("replicas"), 0) or 0
        total += replicas
        name = task.get("name")
        if isinstance(name, str):
            if name in names:
                yield _err(
                    "volcano-duplicate-task",
                    json_path("spec", "tasks", i, "name"),
                    f"duplicated task name {name}",
                    doc_id="gang-volcano",
                )
            names.add(name)
        tmin = as_int(task.get("minAvailable"))
        if tmin is not None and tmin > replicas:
            yield _err(
                "volcano-task-min-available",
                json_path("spec", "tasks", i, "minAvailable"),
                f"'minAvailable' is greater than 'replicas' in task: {name} ({tmin} > {replicas})",
                doc_id="gang-volcano",
                fix="set the task's minAvailable to at most its replicas",
            )
        yield from _duplicate_policies(task.get("policies"), json_path("spec", "tasks", i, "policies"))
    job_min = as_int(spec.get("minAvailable"))
    if job_min is not None and job_min > total:
        yield _err(
            "volcano-min-available",
            "spec.minAvailable",
            f"job 'minAvailable' should not be greater than total replicas in tasks ({job_min} > {total})",
            doc_id="gang-volcano",
            fix="set minAvailable to the number of pods that must start together (at most the sum of task replicas)",
        )
    yield from _duplicate_policies(spec.get("policies"), "spec.policies")


def _replica_specs(spec: dict[str, Any], field: str) -> dict[str, Any]:
    rs = spec.get(field)
    return rs if isinstance(rs, dict) else {}


def _container_names(rs: Any) -> list[str]:
    tpl = _dict(rs.get("template")) if isinstance(rs, dict) else {}
    pod = _dict(tpl.get("spec"))
    return [str(c.get("name")) for c in pod.get("containers") or [] if isinstance(c, dict)]


def _pytorch_checks(doc: dict[str, Any]) -> Iterable[Finding]:
    group, _ = group_of(doc)
    kind = doc.get("kind")
    if group != "kubeflow.org" or kind not in KUBEFLOW_REPLICA_FIELDS:
        return
    field = KUBEFLOW_REPLICA_FIELDS[kind]
    spec = _dict(doc.get("spec"))
    specs = _replica_specs(spec, field)
    default_container = {
        "PyTorchJob": "pytorch",
        "TFJob": "tensorflow",
        "XGBoostJob": "xgboost",
        "PaddleJob": "paddle",
        "JAXJob": "jax",
        "MXJob": "mxnet",
    }[kind]
    base = json_path("spec", field)
    if not specs:
        yield _err("pytorchjob-replica-specs", base, f"Required value: {kind} needs {field}", doc_id="jobs-pytorchjob")
        return
    for role, rs in specs.items():
        rpath = json_path(base, str(role))
        names = _container_names(rs)
        if not names:
            yield _err(
                "pytorchjob-container-name",
                json_path(rpath, "template", "spec", "containers"),
                f"{kind}Spec is not valid: containers definition expected in {role}",
                doc_id="jobs-pytorchjob",
            )
        elif default_container not in names:
            yield _err(
                "pytorchjob-container-name",
                json_path(rpath, "template", "spec", "containers"),
                f"{kind}Spec is not valid: There is no container named {default_container} in {role}",
                doc_id="jobs-pytorchjob",
                fix=f"name the training container {default_container!r}; the operator injects its environment there",
            )
        if kind != "PyTorchJob":
            continue
        if role not in ("Master", "Worker"):
            yield _err(
                "pytorchjob-replica-type",
                rpath,
                f'Unsupported value: "{role}": supported values: "Master", "Worker"',
                doc_id="jobs-pytorchjob",
            )
        replicas = as_int(rs.get("replicas")) if isinstance(rs, dict) else None
        if role == "Master" and replicas is not None and replicas != 1:
            yield _err(
                "pytorchjob-master-replicas",
                json_path(rpath, "replicas"),
                "Forbidden: must be 1 (PyTorchJobSpec is not valid: There must be only 1 master replica)",
                doc_id="jobs-pytorchjob",
                fix="use one Master and put the other pods in Worker",
            )
        elif role == "Worker" and replicas is not None and replicas < 1:
            yield _err(
                "pytorchjob-worker-replicas",
                json_path(rpath, "replicas"),
                "Forbidden: must be at least 1",
                doc_id="jobs-pytorchjob",
            )
    if kind == "PyTorchJob":
        elastic = spec.get("elasticPolicy")
        if isinstance(elastic, dict):
            if "Worker" not in specs:
                yield _err(
                    "pytorchjob-elastic-needs-worker",
                    json_path(base, "Worker"),
                    "Required value: must be configured if elastic policy is used",
                    doc_id="jobs-pytorchjob",
                )
            if elastic.get("nProcPerNode") is not None and spec.get("nprocPerNode") is not None:
                yield _err(
                    "pytorchjob-nproc-conflict",
                    "spec.elasticPolicy.nProcPerNode",
                    "Forbidden: must not be used with spec.nprocPerNode",
                    doc_id="jobs-pytorchjob",
                )


def _mpi_checks(doc: dict[str, Any]) -> Iterable[Finding]:
    group, version = group_of(doc)
    if group != "kubeflow.org" or doc.get("kind") != "MPIJob" or version != "v2beta1":
        return
    spec = _dict(doc.get("spec"))
    specs = _replica_specs(spec, "mpiReplicaSpecs")
    base = "spec.mpiReplicaSpecs"
    launcher = specs.get("Launcher")
    if not isinstance(launcher, dict):
        yield _err(
            "mpijob-launcher",
            json_path(base, "Launcher"),
            "Required value: must have Launcher replica spec",
            doc_id="jobs-mpijob",
        )
    else:
        r = as_int(launcher.get("replicas"))
        if r is not None and r != 1:
            yield _err(
                "mpijob-launcher-replicas",
                json_path(base, "Launcher", "replicas"),
                f"Invalid value: {r}: must be 1",
                doc_id="jobs-mpijob",
            )
    worker = specs.get("Worker")
    if isinstance(worker, dict):
        r = as_int(worker.get("replicas"))
        if r is not None and r <= 0:
            yield _err(
                "mpijob-worker-replicas",
                json_path(base, "Worker", "replicas"),
                f"Invalid value: {r}: must be greater than or equal to 1",
                doc_id="jobs-mpijob",
            )
    for role, rs in specs.items():
        if role not in ("Launcher", "Worker"):
            yield _err(
                "mpijob-replica-type",
                json_path(base, str(role)),
                f'Unsupported value: "{role}": supported values: "Launcher", "Worker"',
                doc_id="jobs-mpijob",
            )
            continue
        if not isinstance(rs, dict):
            continue
        rp = rs.get("restartPolicy")
        if rp is not None and rp not in ("Never", "OnFailure"):
            yield _err(
                "mpijob-restart-policy",
                json_path(base, str(role), "restartPolicy"),
                f'Unsupported value: "{rp}": supported values: "Never", "OnFailure"',
                doc_id="jobs-mpijob",
            )
        if not _container_names(rs):
            yield _err(
                "mpijob-containers",
                json_path(base, str(role), "template", "spec", "containers"),
                "Required value: must define at least one container",
                doc_id="jobs-mpijob",
            )
    slots = spec.get("slotsPerWorker")
    if isinstance(slots, int) and not isinstance(slots, bool) and slots < 0:
        yield _err("mpijob-slots", "spec.slotsPerWorker", "Invalid value: must be greater than or equal to 0", doc_id="jobs-mpijob")


def _trainjob_checks(doc: dict[str, Any]) -> Iterable[Finding]:
    group, _ = group_of(doc)
    if group != "trainer.kubeflow.org" or doc.get("kind") != "TrainJob":
        return
    spec = _dict(doc.get("spec"))
    trainer = _dict(spec.get("trainer"))
    if isinstance(trainer.get("resourcesPerNode"), dict):
        yield from check_resource_requirements(trainer["resourcesPerNode"], "spec.trainer.resourcesPerNode")


_CHECKS = (_pod_checks, _selector_check, _job_checks, _volcano_checks, _pytorch_checks, _mpi_checks, _trainjob_checks)


def semantic_findings(doc: Any) -> list[Finding]:
    """Every semantic finding for one document (paths relative to the document)."""
    if not isinstance(doc, dict):
        return []
    out: list[Finding] = []
    for check in _CHECKS:
        out.extend(check(doc))
    return out


_RES = "device-plugin-requesting-gpus"
_PYT = "jobs-pytorchjob"
_MPI = "jobs-mpijob"
_VOL = "gang-volcano"
_JOB = "jobs-indexed-job"
_PYT_KINDS = ("kubeflow.org/PyTorchJob", "kubeflow.org/TFJob", "kubeflow.org/XGBoostJob", "kubeflow.org/PaddleJob",
              "kubeflow.org/JAXJob", "kubeflow.org/MXJob")

ADMISSION: dict[str, dict[str, object]] = {
    "invalid-quantity": dict(
        family="resources", title="A resource quantity does not parse",
        symptom="quantities must match the regular expression", doc_id=_RES,
        fix="Write quantities as Kubernetes does: 1, 500m, 16Gi."),
    "gpu-fractional": dict(
        family="resources", title="A GPU quantity is not a whole number (0.5, 500m)", symptom="must be an integer",
        fix="Request whole GPUs. To share a GPU use time-slicing, MPS or a MIG slice (nvidia.com/mig-1g.10gb).",
        doc_id=_RES),
    "extended-resource-fractional": dict(
        family="resources", title="An extended resource quantity is not a whole number", symptom="must be an integer",
        fix="Request whole devices.", doc_id=_RES),
    "gpu-request-without-limit": dict(
        family="resources", title="A GPU resource is in resources.requests but not in resources.limits",
        symptom="Limit must be set for non overcommitable resources", doc_id=_RES,
        fix="Put the GPU count in resources.limits (the request is copied from the limit); keep requests only if equal."),
    "extended-resource-not-in-limits": dict(
        family="resources", title="An extended resource is requested without a limit",
        symptom="Limit must be set for non overcommitable resources", doc_id=_RES,
        fix="Put the count in resources.limits."),
    "gpu-request-limit-mismatch": dict(
        family="resources", title="GPU requests differ from GPU limits",
        symptom="must be equal to nvidia.com/gpu limit of 1", doc_id=_RES,
        fix="Extended resources cannot be overcommitted: make requests equal to limits, or drop requests."),
    "extended-resource-requests-not-equal-limits": dict(
        family="resources", title="Extended resource requests differ from limits",
        symptom="must be equal to ... limit", doc_id=_RES, fix="Make requests equal to limits, or drop requests."),
    "request-exceeds-limit": dict(
        family="resources", title="A cpu, memory or ephemeral-storage request is above its limit",
        symptom="must be less than or equal to cpu limit", doc_id="tenancy-limitrange",
        fix="Lower the request or raise the limit."),
    "duplicate-container-name": dict(
        family="workloads", title="Two containers of one pod share a name", symptom="Duplicate value", doc_id=None,
        fix="Give every container of a pod its own name."),
    "selector-mismatch": dict(
        family="workloads", title="A workload's selector does not match its pod template labels",
        symptom="`selector` does not match template `labels`", doc_id=None,
        kinds=("apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet"),
        fix="Make spec.selector.matchLabels a subset of spec.template.metadata.labels."),
    "indexed-job-needs-completions": dict(
        family="training", title="An Indexed Job without completions", symptom="Required value: when completion mode is Indexed",
        doc_id=_JOB, fix="Set completions (usually equal to parallelism)."),
    "backoff-limit-per-index-needs-indexed": dict(
        family="training", title="backoffLimitPerIndex or maxFailedIndexes outside their required setup",
        symptom="requires indexed completion mode", doc_id=_JOB,
        fix="Use completionMode: Indexed, and set backoffLimitPerIndex before maxFailedIndexes."),
    "job-restart-policy": dict(
        family="training", title="A Job pod template without restartPolicy Never or OnFailure",
        symptom='Required value: valid values: "OnFailure", "Never"', doc_id=_JOB,
        fix="Set restartPolicy: Never (or OnFailure) in the Job's pod template."),
    "volcano-no-tasks": dict(family="gang", title="A Volcano Job without tasks", symptom="No task specified in job spec",
                             doc_id=_VOL, fix="Add at least one task.", kinds=("batch.volcano.sh/Job",)),
    "volcano-duplicate-task": dict(family="gang", title="Two Volcano tasks share a name", symptom="duplicated task name",
                                   doc_id=_VOL, fix="Name every task differently.", kinds=("batch.volcano.sh/Job",)),
    "volcano-task-min-available": dict(
        family="gang", title="A Volcano task's minAvailable is above its replicas",
        symptom="'minAvailable' is greater than 'replicas' in task", doc_id=_VOL,
        fix="Set the task's minAvailable to at most its replicas.", kinds=("batch.volcano.sh/Job",)),
    "volcano-min-available": dict(
        family="gang", title="A Volcano Job's minAvailable is above the sum of its task replicas",
        symptom="job 'minAvailable' should not be greater than total replicas in tasks", doc_id=_VOL,
        fix="Set spec.minAvailable to at most the sum of task replicas (the default when omitted).",
        kinds=("batch.volcano.sh/Job",)),
    "volcano-duplicate-policy": dict(family="gang", title="A Volcano event policy is given twice",
                                     symptom="duplicated job event policies", doc_id=_VOL,
                                     fix="List each event once per policies list.", kinds=("batch.volcano.sh/Job",)),
    "pytorchjob-replica-specs": dict(family="training", title="A Kubeflow job without replica specs",
                                     symptom="Required value", doc_id=_PYT, fix="Add Master/Worker replica specs.",
                                     kinds=_PYT_KINDS),
    "pytorchjob-container-name": dict(
        family="training", title="A Kubeflow job replica has no container with the framework's name",
        symptom="There is no container named pytorch", doc_id=_PYT, kinds=_PYT_KINDS,
        fix="Name the training container pytorch (tensorflow, xgboost...); the operator injects its environment there."),
    "pytorchjob-replica-type": dict(family="training", title="A PyTorchJob replica type other than Master or Worker",
                                    symptom="supported values: \"Master\", \"Worker\"", doc_id=_PYT,
                                    fix="Use Master and Worker.", kinds=("kubeflow.org/PyTorchJob",)),
    "pytorchjob-master-replicas": dict(family="training", title="A PyTorchJob with more than one Master",
                                       symptom="There must be only 1 master replica", doc_id=_PYT,
                                       fix="Use one Master and put the other pods in Worker.",
                                       kinds=("kubeflow.org/PyTorchJob",)),
    "pytorchjob-worker-replicas": dict(family="training", title="A PyTorchJob Worker with fewer than one replica",
                                       symptom="must be at least 1", doc_id=_PYT, fix="Give Worker at least one replica.",
                                       kinds=("kubeflow.org/PyTorchJob",)),
    "pytorchjob-elastic-needs-worker": dict(family="training", title="An elastic PyTorchJob without Worker replicas",
                                            symptom="must be configured if elastic policy is used", doc_id=_PYT,
                                            fix="Add a Worker replica spec.", kinds=("kubeflow.org/PyTorchJob",)),
    "pytorchjob-nproc-conflict": dict(family="training", title="nProcPerNode set both in elasticPolicy and spec",
                                      symptom="must not be used with spec.nprocPerNode", doc_id=_PYT,
                                      fix="Set spec.nprocPerNode only.", kinds=("kubeflow.org/PyTorchJob",)),
    "mpijob-launcher": dict(family="training", title="An MPIJob without a Launcher", symptom="must have Launcher replica spec",
                            doc_id=_MPI, fix="Add a Launcher replica spec.", kinds=("kubeflow.org/MPIJob",)),
    "mpijob-launcher-replicas": dict(family="training", title="An MPIJob Launcher with replicas other than 1",
                                     symptom="must be 1", doc_id=_MPI, fix="Use one Launcher replica.",
                                     kinds=("kubeflow.org/MPIJob",)),
    "mpijob-worker-replicas": dict(family="training", title="An MPIJob Worker with fewer than one replica",
                                   symptom="must be greater than or equal to 1", doc_id=_MPI,
                                   fix="Give Worker at least one replica.", kinds=("kubeflow.org/MPIJob",)),
    "mpijob-replica-type": dict(family="training", title="An MPIJob replica type other than Launcher or Worker",
                                symptom="supported values: \"Launcher\", \"Worker\"", doc_id=_MPI,
                                fix="Use Launcher and Worker.", kinds=("kubeflow.org/MPIJob",)),
    "mpijob-restart-policy": dict(family="training", title="An MPIJob replica restartPolicy other than Never or OnFailure",
                                  symptom="supported values: \"Never\", \"OnFailure\"", doc_id=_MPI,
                                  fix="Use Never or OnFailure.", kinds=("kubeflow.org/MPIJob",)),
    "mpijob-containers": dict(family="training", title="An MPIJob replica without containers",
                              symptom="must define at least one container", doc_id=_MPI, fix="Add a container.",
                              kinds=("kubeflow.org/MPIJob",)),
    "mpijob-slots": dict(family="training", title="A negative MPIJob slotsPerWorker",
                         symptom="must be greater than or equal to 0", doc_id=_MPI,
                         fix="Set slotsPerWorker to the GPUs per worker.", kinds=("kubeflow.org/MPIJob",)),
}


@rule_group(ADMISSION, family="resources", category="admission")
def admission_checks(ctx) -> Iterable[Hit]:
    """Every admission rule, in one pass over the document."""
    for f in semantic_findings(ctx.doc):
        yield Hit(f.path, f.message, None, f.rule)
