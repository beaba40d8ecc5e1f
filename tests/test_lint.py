"""Linter: every rule fires on a bad manifest and stays quiet on the fixed one."""

from __future__ import annotations

import copy
import io
from pathlib import Path

import pytest

from gpukb.errors import ConfigError, ManifestError
from gpukb.lint import RULES, lint_documents, lint_files, load_profile, profile_from_dict
from gpukb.rules.registry import FAMILIES

FIX = Path(__file__).resolve().parent / "fixtures" / "manifests"

KB_IDS = set(
    """gpu-operator-overview gpu-operator-install-helm gpu-operator-clusterpolicy gpu-operator-preinstalled-drivers
    gpu-operator-upgrades device-plugin-overview device-plugin-requesting-gpus device-plugin-config-file
    device-plugin-gfd-labels sharing-time-slicing sharing-mps sharing-mig sharing-mig-manager sharing-choosing
    scheduling-gpu-node-affinity scheduling-taints-tolerations scheduling-topology-spread scheduling-pod-anti-affinity
    jobs-indexed-job jobs-pytorchjob jobs-mpijob jobs-trainjob-v2 jobs-jobset-kueue jobs-choosing gang-why gang-volcano
    gang-coscheduling gang-choosing tenancy-resourcequota-gpu tenancy-limitrange tenancy-priorityclass-preemption
    tenancy-volcano-queues tenancy-noisy-neighbours autoscaling-cluster-autoscaler-gpu autoscaling-karpenter-gpu
    autoscaling-cold-start autoscaling-choosing storage-rwx-datasets storage-fsx-lustre storage-ibm-storage-scale
    storage-ephemeral storage-model-cache storage-choosing inference-model-serving inference-probes-model-load
    inference-data-pipelines troubleshoot-pending-pods troubleshoot-gpu-operator troubleshoot-sharing-mig
    troubleshoot-jobs-gang troubleshoot-quota-tenancy troubleshoot-storage-autoscaling""".split()
)

# ---------------------------------------------------------------- manifest builders


def container(gpus=1, name="main", resource="nvidia.com/gpu", cpu=True, **extra):
    res = {"limits": {resource: gpus}} if gpus else {"limits": {}}
    if cpu:
        res["requests"] = {"cpu": "4", "memory": "16Gi"}
    return {"name": name, "image": "img", "resources": res, **extra}


def podspec(*containers, **extra):
    return {"containers": list(containers) or [container()], **extra}


def pod(spec=None, ns="ml", labels=None):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns, "labels": labels or {}},
            "spec": spec or podspec()}


def deployment(spec=None, replicas=2, ns="ml"):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "srv", "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "srv"}},
                     "template": {"metadata": {"labels": {"app": "srv"}}, "spec": spec or podspec()}}}


def server(**over):
    c = container(ports=[{"containerPort": 8000}],
                  readinessProbe={"httpGet": {"path": "/health", "port": 8000}},
                  startupProbe={"httpGet": {"path": "/health", "port": 8000}, "failureThreshold": 60, "periodSeconds": 10})
    c["resources"]["requests"]["ephemeral-storage"] = "50Gi"
    c.update(over)
    return c


def ptjob(spec_extra=None, worker_replicas=3, gpus=1, labels=None, pod_extra=None, name="pytorch"):
    def tpl():
        meta = {"labels": dict(labels)} if labels else {}
        return {"metadata": meta, "spec": {"containers": [container(gpus, name=name,
                volumeMounts=[{"name": "shm", "mountPath": "/dev/shm"}])],
                "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}], **(pod_extra or {})}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "train", "namespace": "ml"},
            "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": tpl()},
                                              "Worker": {"replicas": worker_replicas, "template": tpl()}},
                     **(spec_extra or {})}}


def mpijob(slots=4, gpus=4):
    def tpl(g):
        return {"spec": {"containers": [container(g, name="mpi", volumeMounts=[{"name": "shm", "mountPath": "/dev/shm"}])],
                         "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory"}}]}}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "m", "namespace": "ml"},
            "spec": {"slotsPerWorker": slots, "runPolicy": {"schedulingPolicy": {"queue": "research"}},
                     "mpiReplicaSpecs": {"Launcher": {"replicas": 1, "template": tpl(0)},
                                         "Worker": {"replicas": 2, "template": tpl(gpus)}}}}


def vjob(min_available=4, queue="research", plugins=None):
    task = {"name": "worker", "replicas": 4, "template": {"spec": podspec()}}
    spec = {"minAvailable": min_available, "tasks": [task], "plugins": plugins or {"pytorch": []}}
    if queue:
        spec["queue"] = queue
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v", "namespace": "ml"}, "spec": spec}


def nodepool(taints=True, limits=True, family="g5"):
    spec = {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": [family]}]}
    if taints:
        spec["taints"] = [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]
    np = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
          "spec": {"template": {"spec": spec}, "disruption": {"consolidateAfter": "10m"}}}
    if limits:
        np["spec"]["limits"] = {"nvidia.com/gpu": 16}
    return np


def quota(key, ns="team-a"):
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": ns},
            "spec": {"hard": {key: "8"}}}


def limitrange(default=None, request=None):
    item = {"type": "Container"}
    if default is not None:
        item["default"] = default
    if request is not None:
        item["defaultRequest"] = request
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "team-a"},
            "spec": {"limits": [item]}}


def pvc(name="data", mode="ReadWriteOnce"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"accessModes": [mode], "resources": {"requests": {"storage": "1Ti"}}}}


def with_claim(doc, claim="data"):
    doc = copy.deepcopy(doc)
    for role in doc["spec"]["pytorchReplicaSpecs"].values():
        role["template"]["spec"]["volumes"].append({"name": "d", "persistentVolumeClaim": {"claimName": claim}})
    return doc


def cosched_pod_set(label=True, scheduler="scheduler-plugins-scheduler", replicas=4, min_member=4):
    labels = {"scheduling.x-k8s.io/pod-group": "pg"} if label else {}
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "w", "namespace": "ml"},
          "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "w"}},
                   "template": {"metadata": {"labels": {"app": "w", **labels}},
                                "spec": podspec(schedulerName=scheduler) if scheduler else podspec()}}}
    pg = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "ml"},
          "spec": {"minMember": min_member}}
    return [pg, rs]


TAINTS = {"gpu_node_taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]}
GPU_TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
TS = {"time_slicing": {"replicas": 4, "rename_by_default": False, "fail_requests_greater_than_one": True}}
TS_RENAME = {"time_slicing": {"replicas": 4, "rename_by_default": True}}
COSCHED_CFG = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
               "profiles": [{"schedulerName": "gang", "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}}}]}

# rule id -> (bad documents, good documents, profile or None)
CASES = {
    "gpu-request-without-limit": (
        [pod(podspec({"name": "c", "image": "i", "resources": {"requests": {"nvidia.com/gpu": 1, "cpu": 1, "memory": "1Gi"}}}))],
        [pod()], None),
    "gpu-request-limit-mismatch": (
        [pod(podspec({"name": "c", "image": "i", "resources": {"requests": {"nvidia.com/gpu": 1, "cpu": 1, "memory": "1Gi"},
                                                                "limits": {"nvidia.com/gpu": 2}}}))],
        [pod(podspec({"name": "c", "image": "i", "resources": {"requests": {"nvidia.com/gpu": 2, "cpu": 1, "memory": "1Gi"},
                                                                "limits": {"nvidia.com/gpu": 2}}}))], None),
    "gpu-fractional": ([pod(podspec(container("500m")))], [pod(podspec(container("1000m")))], None),
    "gpu-container-no-cpu-memory-request": ([pod(podspec(container(cpu=False)))], [pod()], None),
    "gpu-missing-toleration": ([pod()], [pod(podspec(tolerations=GPU_TOL))], TAINTS),
    "daemonset-missing-gpu-toleration": (
        [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
          "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
                   "spec": {"containers": [{"name": "a", "image": "i"}]}}}}],
        [{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
          "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
                   "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "a", "image": "i"}]}}}}], TAINTS),
    "node-label-not-set": (
        [pod(podspec(nodeSelector={"nvidia.com/gpu.type": "a100"}))],
        [pod(podspec(nodeSelector={"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "kubernetes.io/os": "linux"}))], None),
    "mig-resource-malformed": ([pod(podspec(container(resource="nvidia.com/mig-1g10gb")))],
                               [pod(podspec(container(resource="nvidia.com/mig-1g.10gb")))], None),
    "mig-resource-wrong-strategy": ([pod(podspec(container(resource="nvidia.com/mig-1g.10gb")))], [pod()],
                                    {"mig_strategy": "single"}),
    "mig-profile-unavailable": ([pod(podspec(container(resource="nvidia.com/mig-2g.20gb")))],
                                [pod(podspec(container(resource="nvidia.com/mig-1g.10gb")))],
                                {"mig_strategy": "mixed", "mig_profiles": ["1g.10gb", "3g.40gb"]}),
    "time-slicing-renamed-resource": ([pod()], [pod(podspec(container(resource="nvidia.com/gpu.shared")))], TS_RENAME),
    "time-slicing-shared-without-rename": ([pod(podspec(container(resource="nvidia.com/gpu.shared")))], [pod()], TS),
    "time-slicing-more-than-one": ([pod(podspec(container(2)))], [pod(podspec(container(1)))], TS),
    "time-slicing-product-label": ([pod(podspec(nodeSelector={"nvidia.com/gpu.product": "Tesla-T4"}))],
                                   [pod(podspec(nodeSelector={"nvidia.com/gpu.product": "Tesla-T4-SHARED"}))], TS),
    "gang-scheduling-missing": ([ptjob()], [ptjob({"runPolicy": {"schedulingPolicy": {"minAvailable": 4}}})], None),
    "volcano-min-available": ([vjob(min_available=5)], [vjob(min_available=4)], None),
    "volcano-partial-gang": ([vjob(min_available=2)], [vjob(min_available=4)], None),
    "volcano-queue": ([vjob(queue=None)], [vjob(queue="research")], None),
    "coscheduling-label-without-scheduler": ([COSCHED_CFG, *cosched_pod_set(scheduler=None)],
                                             [COSCHED_CFG, *cosched_pod_set(scheduler="gang")], None),
    "coscheduling-scheduler-without-label": ([cosched_pod_set(label=False)[1]], [cosched_pod_set()[1]], None),
    "podgroup-min-member": (cosched_pod_set(replicas=2, min_member=4), cosched_pod_set(replicas=4, min_member=4), None),
    "pytorch-nproc-per-node": ([ptjob({"nprocPerNode": "8"}, gpus=4)], [ptjob({"nprocPerNode": "4"}, gpus=4)], None),
    "mpi-slots-per-worker": ([mpijob(slots=1, gpus=4)], [mpijob(slots=4, gpus=4)], None),
    "quota-gpu-key": ([quota("limits.nvidia.com/gpu")], [quota("requests.nvidia.com/gpu")], None),
    "gpu-pod-without-priority-class": ([pod(ns="team-a")], [pod(podspec(priorityClassName="research"), ns="team-a")],
                                       {"multi_tenant_namespaces": ["team-a"]}),
    "limitrange-gpu-default": ([limitrange(default={"nvidia.com/gpu": 1})], [limitrange(default={"cpu": "1"})], None),
    "limitrange-gpu-request-mismatch": ([limitrange(default={"nvidia.com/gpu": 2}, request={"nvidia.com/gpu": 1})],
                                        [limitrange(default={"cpu": "2"}, request={"cpu": "1"})], None),
    "karpenter-gpu-nodepool-no-taint": ([nodepool(taints=False)], [nodepool(), nodepool(taints=False, family="m5")], None),
    "karpenter-gpu-nodepool-no-limits": ([nodepool(limits=False)], [nodepool()], None),
    "karpenter-time-slicing": ([nodepool()], [nodepool(taints=False, family="m5")], TS),
    "serving-no-ephemeral-storage": ([deployment(podspec(server(resources={"limits": {"nvidia.com/gpu": 1},
                                                                           "requests": {"cpu": 1, "memory": "8Gi"}})))],
                                     [deployment(podspec(server()))], None),
    "emptydir-no-size-limit": ([pod(podspec(volumes=[{"name": "cache", "emptyDir": {}}]))],
                               [pod(podspec(volumes=[{"name": "cache", "emptyDir": {"sizeLimit": "100Gi"}}]))], None),
    "shm-missing": ([ptjob(pod_extra={"volumes": []})], [ptjob()], None),
    "rwo-volume-shared": ([pvc(), with_claim(ptjob())], [pvc(mode="ReadWriteMany"), with_claim(ptjob())], None),
    "serving-no-readiness-probe": ([deployment(podspec(server(readinessProbe=None)))], [deployment(podspec(server()))], None),
    "liveness-before-model-load": ([deployment(podspec(server(startupProbe=None, livenessProbe={"httpGet": {"port": 8000}})))],
                                   [deployment(podspec(server(livenessProbe={"httpGet": {"port": 8000}})))], None),
}


def _strip_none(obj):
    if isinstance(obj, dict):
        return {k: _strip_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [_strip_none(v) for v in obj]
    return obj


def fired(docs, profile):
    return [(f.rule, f.severity, f.path) for r in lint_documents(_strip_none(docs), profile=profile) for f in r.findings]


def _with(doc, fn):
    d = copy.deepcopy(doc)
    fn(d)
    return d


def _job(**spec):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"},
            "spec": {"template": {"spec": podspec(restartPolicy="Never")}, **spec}}


def _res(requests=None, limits=None):
    return pod(podspec({"name": "c", "image": "i", "resources": {"requests": requests or {}, "limits": limits or {}}}))


_PT = ptjob()
_MPI = mpijob()

# Admission rules (what the API server or a webhook rejects), same shape as CASES.
CASES.update({
    "invalid-quantity": ([_res(limits={"cpu": "two"})], [_res(limits={"cpu": "2"})], None),
    "extended-resource-fractional": ([_res(limits={"example.com/fpga": "0.5"})], [_res(limits={"example.com/fpga": 1})], None),
    "extended-resource-not-in-limits": ([_res(requests={"example.com/fpga": 1})], [_res(limits={"example.com/fpga": 1})], None),
    "extended-resource-requests-not-equal-limits": ([_res({"example.com/fpga": 1}, {"example.com/fpga": 2})],
                                                    [_res({"example.com/fpga": 2}, {"example.com/fpga": 2})], None),
    "request-exceeds-limit": ([_res({"cpu": "4"}, {"cpu": "2"})], [_res({"cpu": "2"}, {"cpu": "4"})], None),
    "duplicate-container-name": ([pod(podspec(container(name="a"), container(name="a")))],
                                 [pod(podspec(container(name="a"), container(name="b")))], None),
    "selector-mismatch": ([_with(deployment(), lambda d: d["spec"]["selector"]["matchLabels"].update(app="x"))],
                          [deployment()], None),
    "indexed-job-needs-completions": ([_job(completionMode="Indexed")], [_job(completionMode="Indexed", completions=2)], None),
    "backoff-limit-per-index-needs-indexed": ([_job(backoffLimitPerIndex=1)],
                                              [_job(backoffLimitPerIndex=1, completionMode="Indexed", completions=2)], None),
    "job-restart-policy": ([_with(_job(), lambda d: d["spec"]["template"]["spec"].update(restartPolicy="Always"))],
                           [_job()], None),
    "volcano-no-tasks": ([_with(vjob(), lambda d: d["spec"].update(tasks=[]))], [vjob()], None),
    "volcano-duplicate-task": ([_with(vjob(min_available=8), lambda d: d["spec"]["tasks"].append(copy.deepcopy(d["spec"]["tasks"][0])))],
                               [vjob()], None),
    "volcano-task-min-available": ([_with(vjob(), lambda d: d["spec"]["tasks"][0].update(minAvailable=5))],
                                   [_with(vjob(), lambda d: d["spec"]["tasks"][0].update(minAvailable=4))], None),
    "volcano-duplicate-policy": ([_with(vjob(), lambda d: d["spec"].update(policies=[{"event": "PodEvicted", "action": "RestartJob"},
                                                                                      {"event": "PodEvicted", "action": "AbortJob"}]))],
                                 [_with(vjob(), lambda d: d["spec"].update(policies=[{"event": "PodEvicted", "action": "RestartJob"}]))], None),
    "pytorchjob-replica-specs": ([_with(_PT, lambda d: d["spec"].pop("pytorchReplicaSpecs"))], [_PT], None),
    "pytorchjob-container-name": ([ptjob(name="trainer")], [_PT], None),
    "pytorchjob-replica-type": ([_with(_PT, lambda d: d["spec"]["pytorchReplicaSpecs"].update(Chief=copy.deepcopy(d["spec"]["pytorchReplicaSpecs"]["Worker"])))],
                                [_PT], None),
    "pytorchjob-master-replicas": ([_with(_PT, lambda d: d["spec"]["pytorchReplicaSpecs"]["Master"].update(replicas=2))], [_PT], None),
    "pytorchjob-worker-replicas": ([ptjob(worker_replicas=0)], [_PT], None),
    "pytorchjob-elastic-needs-worker": ([_with(_PT, lambda d: (d["spec"].update(elasticPolicy={"minReplicas": 1}),
                                                                d["spec"]["pytorchReplicaSpecs"].pop("Worker")))],
                                        [_with(_PT, lambda d: d["spec"].update(elasticPolicy={"minReplicas": 1}))], None),
    "pytorchjob-nproc-conflict": ([ptjob({"nprocPerNode": "1", "elasticPolicy": {"nProcPerNode": 1}})],
                                  [ptjob({"nprocPerNode": "1"})], None),
    "mpijob-launcher": ([_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"].pop("Launcher"))], [_MPI], None),
    "mpijob-launcher-replicas": ([_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"]["Launcher"].update(replicas=2))], [_MPI], None),
    "mpijob-worker-replicas": ([_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"]["Worker"].update(replicas=0))], [_MPI], None),
    "mpijob-replica-type": ([_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"].update(Chief=copy.deepcopy(d["spec"]["mpiReplicaSpecs"]["Worker"])))],
                            [_MPI], None),
    "mpijob-restart-policy": ([_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"]["Worker"].update(restartPolicy="Always"))],
                              [_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"]["Worker"].update(restartPolicy="OnFailure"))], None),
    "mpijob-containers": ([_with(_MPI, lambda d: d["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"].update(containers=[]))],
                          [_MPI], None),
    "mpijob-slots": ([mpijob(slots=-1)], [_MPI], None),
})


def test_every_rule_has_a_case_and_the_registry_is_complete():
    assert set(CASES) == set(RULES)
    assert len(RULES) >= 25
    assert {r.family for r in RULES.values()} == set(FAMILIES)
    for r in RULES.values():
        assert r.doc_id is None or r.doc_id in KB_IDS, r.id
        assert r.doc_id or r.category == "admission", r.id
        assert r.severity in ("error", "warning", "info")
        assert r.title and r.symptom and r.fix, r.id
        assert r.id == r.id.lower() and " " not in r.id


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires_on_the_bad_manifest(rule_id):
    bad, _, profile = CASES[rule_id]
    hits = [f for f in fired(bad, profile) if f[0] == rule_id]
    assert hits, f"{rule_id} did not fire"
    assert all(path for _, _, path in hits)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_is_quiet_on_the_fixed_manifest(rule_id):
    _, good, profile = CASES[rule_id]
    assert [f for f in fired(good, profile) if f[0] == rule_id] == []


@pytest.mark.parametrize("rule_id", sorted(r.id for r in RULES.values() if r.needs_profile))
def test_profile_rules_stay_quiet_without_a_profile(rule_id):
    bad, _, _ = CASES[rule_id]
    if rule_id == "coscheduling-label-without-scheduler":
        bad = [d for d in bad if d.get("kind") != "KubeSchedulerConfiguration"]
    assert [f for f in fired(bad, None) if f[0] == rule_id] == []


def test_finding_carries_fix_and_doc():
    (res,) = lint_documents([quota("nvidia.com/gpu")])
    (f,) = res.findings
    assert f.rule == "quota-gpu-key" and f.severity == "error"
    assert f.path == 'spec.hard["nvidia.com/gpu"]'
    assert f.doc_id == "tenancy-resourcequota-gpu" and "requests." in f.fix


def test_amd_gpus_are_not_held_to_the_nvidia_profile():
    amd = pod(podspec(container(resource="amd.com/gpu")))
    assert [f for f in fired([amd], TAINTS) if f[0] == "gpu-missing-toleration"] == []


def test_well_known_node_labels_are_not_flagged_by_the_profile():
    p = pod(podspec(nodeSelector={"kubernetes.io/hostname": "n1", "nvidia.com/gpu.product": "A100"}))
    hits = [f for f in fired([p], {"node_labels": {"nvidia.com/gpu.product": ["H100"]}}) if f[0] == "node-label-not-set"]
    assert [h[2] for h in hits] == ["spec.nodeSelector"] and len(hits) == 1


def test_extended_resource_toleration_plugin_counts_as_toleration():
    prof = {**TAINTS, "gpu_node_taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}], "extended_resource_toleration": True}
    assert [f for f in fired([pod()], prof) if f[0] == "gpu-missing-toleration"] == []


def test_shared_gpu_more_than_one_warns_without_a_profile():
    hits = [f for f in fired([pod(podspec(container(2, resource="nvidia.com/gpu.shared")))], None)
            if f[0] == "time-slicing-more-than-one"]
    assert [h[1] for h in hits] == ["warning"]


def test_list_documents_are_expanded_with_item_paths():
    lst = {"apiVersion": "v1", "kind": "List", "items": [quota("limits.nvidia.com/gpu")]}
    (res,) = lint_documents([lst])
    assert [f.path for f in res.findings] == ['items[0].spec.hard["limits.nvidia.com/gpu"]']


# ---------------------------------------------------------------- profile


def test_profile_file_loads(tmp_path):
    prof = load_profile(FIX / "cluster-profile.yaml")
    assert prof.mig_strategy == "single" and prof.time_slicing.replicas == 4
    assert prof.gpu_node_taints[0]["key"] == "nvidia.com/gpu"


@pytest.mark.parametrize(
    "text,where",
    [
        ("mig_strategy: dual\n", "mig_strategy"),
        ("time_slicing: {replicas: many}\n", "time_slicing.replicas"),
        ("gpu_node_taint: []\n", "allowed keys"),
        ("- a\n- b\n", "(top level)"),
        ("a: [\n", "invalid YAML"),
    ],
)
def test_bad_profiles_name_the_file_and_field(tmp_path, text, where):
    p = tmp_path / "cluster.yaml"
    p.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_profile(p)
    assert str(p) in str(exc.value) and where in str(exc.value)
    with pytest.raises(ConfigError):
        load_profile(tmp_path / "missing.yaml")


def test_profile_from_dict_accepts_empty():
    assert profile_from_dict(None).mig_strategy is None


# ---------------------------------------------------------------- files


def test_lint_files_reads_dirs_stdin_and_cross_file_documents(tmp_path):
    (tmp_path / "pvc.yaml").write_text("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: ml}\n"
                                      "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n")
    import yaml

    (tmp_path / "job.yaml").write_text(yaml.safe_dump(with_claim(ptjob())))
    r = lint_files([str(tmp_path)])
    rules = {f.rule for fr in r.files for d in fr.documents for f in d.findings}
    assert "rwo-volume-shared" in rules and r.errors >= 1
    r = lint_files(["-"], stdin=io.StringIO(yaml.safe_dump(quota("nvidia.com/gpu"))))
    assert r.files[0].path == "<stdin>" and r.errors == 1
    r = lint_files([str(FIX / "broken.yaml.txt")])
    assert r.files[0].documents[0].findings[0].rule == "yaml-parse"
    with pytest.raises(ManifestError):
        lint_files([str(tmp_path / "nope.yaml")])


def test_good_fixture_is_clean_and_bad_fixture_is_not():
    assert lint_files([str(FIX / "good-gpu-pod.yaml")], profile=FIX / "cluster-profile.yaml").to_dict()["errors"] == 0
    bad = lint_files([str(FIX / "bad-gpu-pod.yaml")])
    rules = {f.rule for d in bad.files[0].documents for f in d.findings}
    assert {"gpu-request-without-limit", "gpu-fractional", "quota-gpu-key"} <= rules


# ---------------------------------------------------------------- robustness

from hypothesis import given, settings, strategies as st  # noqa: E402

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10), st.floats(allow_nan=True), st.text(max_size=8),
                     st.sampled_from(["nvidia.com/gpu", "Indexed", "In", "0.5", "1Gi", "Memory", "volcano"]))
_values = st.recursive(_scalars, lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                        st.dictionaries(st.text(max_size=6), kids, max_size=3)), max_leaves=12)
_keys = st.sampled_from(["spec", "template", "containers", "resources", "limits", "requests", "replicas", "tasks",
                         "pytorchReplicaSpecs", "mpiReplicaSpecs", "Worker", "volumes", "tolerations", "nodeSelector",
                         "minAvailable", "hard", "limits", "metadata", "labels", "completionMode", "replicatedJobs"])
_tree = st.recursive(_values, lambda kids: st.one_of(st.dictionaries(_keys, kids, max_size=4), st.lists(kids, max_size=2)),
                     max_leaves=20)
_kinds = st.sampled_from([("v1", "Pod"), ("apps/v1", "Deployment"), ("apps/v1", "DaemonSet"), ("batch/v1", "Job"),
                          ("batch/v1", "CronJob"), ("kubeflow.org/v1", "PyTorchJob"), ("kubeflow.org/v2beta1", "MPIJob"),
                          ("batch.volcano.sh/v1alpha1", "Job"), ("karpenter.sh/v1", "NodePool"), ("v1", "ResourceQuota"),
                          ("v1", "LimitRange"), ("scheduling.x-k8s.io/v1alpha1", "PodGroup"), ("v1", "List"),
                          ("jobset.x-k8s.io/v1alpha2", "JobSet"), ("nvidia.com/v1", "ClusterPolicy")])


@settings(max_examples=150, deadline=None)
@given(kind=_kinds, spec=_tree, extra=_tree)
def test_random_manifests_never_crash_validate_or_lint(kind, spec, extra):
    from gpukb.validate import validate_documents

    doc = {"apiVersion": kind[0], "kind": kind[1], "metadata": {"name": "x"}, "spec": spec, "items": extra}
    profile = {"mig_strategy": "single", "gpu_node_taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
               "time_slicing": {"replicas": 2, "rename_by_default": True, "fail_requests_greater_than_one": True},
               "node_labels": {"a": None}, "multi_tenant_namespaces": ["default"], "volcano_queues": ["q"]}
    for res in validate_documents([doc, extra]) + lint_documents([doc, extra, spec], profile=profile):
        for f in res.findings:
            assert isinstance(f.rule, str) and isinstance(f.path, str) and isinstance(f.message, str)


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200))
def test_random_text_never_crashes_the_reader(tmp_path_factory, text):
    p = tmp_path_factory.mktemp("fuzz") / "m.yaml"
    p.write_text(text, encoding="utf-8")
    lint_files([str(p)])
    from gpukb.validate import validate_files

    validate_files([str(p)])


def test_reference_doc_is_generated_from_the_registry():
    from gpukb.output import rules_markdown

    doc = Path(__file__).resolve().parents[1] / "docs" / "lint-rules.md"
    rules = sorted(RULES.values(), key=lambda r: (r.category, r.family, r.id))
    assert doc.read_text() == rules_markdown(rules), "regenerate: gpukb lint --list-rules --format markdown"


def test_lint_runs_schemas_admission_and_advice_in_one_run():
    bad = ptjob(name="trainer")  # the operator rejects it: no container named pytorch
    bad["spec"]["bogusField"] = 1  # a schema error
    rules = {f.rule for r in lint_documents([bad]) for f in r.findings}
    assert {"pytorchjob-container-name", "schema"} <= rules


def test_each_finding_once_with_every_container():
    two = pod(podspec(container(name="a", cpu=False), container(name="b", cpu=False)))
    found = [f for r in lint_documents([two]) for f in r.findings if f.rule == "gpu-container-no-cpu-memory-request"]
    assert len(found) == 1 and "'a'" in found[0].message and "'b'" in found[0].message


def test_rules_skipped_for_want_of_a_profile_are_named():
    p = Path(__file__).resolve().parent / "fixtures" / "manifests"
    report = lint_files(["-"], stdin=io.StringIO(yaml_dump([pod()])))
    assert report.notices and "need a cluster profile" in report.notices[0]
    with_profile = lint_files(["-"], stdin=io.StringIO(yaml_dump([pod()])), profile={"mig_strategy": "none"})
    assert with_profile.notices == []
    assert p.is_dir()


def yaml_dump(docs):
    import yaml

    return yaml.safe_dump_all(docs)


def test_cross_document_lookups_use_one_index_per_run(monkeypatch):
    """Linear in documents: the run indexes every document once; rules never rescan the run."""
    from gpukb.rules import context

    built = []
    orig = context.DocumentIndex.__init__

    def counting(self, docs=()):
        built.append(1)
        orig(self, docs)

    monkeypatch.setattr(context.DocumentIndex, "__init__", counting)
    docs = [pod(ns=f"ns{i % 50}") for i in range(300)] + [quota("requests.nvidia.com/gpu")] \
        + cosched_pod_set(replicas=2, min_member=4)
    results = lint_documents(docs)
    assert len(built) == 1
    assert any(f.rule == "podgroup-min-member" for r in results for f in r.findings)
