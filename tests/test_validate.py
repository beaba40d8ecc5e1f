"""Validator: core schemas, built-in CRD schemas, semantic checks, file handling."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from gpukb.errors import ManifestError, UsageError
from gpukb.validate import Validator, available_versions, validate_documents, validate_files
from gpukb.validate.core import core_kinds
from gpukb.validate.crd import builtin_crd_schemas
from gpukb.k8s.quantity import parse_quantity
from gpukb.k8s.walk import iter_pod_specs, json_path

FIX = Path(__file__).resolve().parent / "fixtures" / "manifests"


def y(text: str):
    return yaml.safe_load(text)


def rules(doc, **kw) -> list[str]:
    return [f.rule for f in validate_documents([doc], **kw)[0].findings]


def findings(doc, **kw):
    return validate_documents([doc], **kw)[0].findings


def pod(resources=None, **spec):
    c = {"name": "c", "image": "img"}
    if resources is not None:
        c["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [c], **spec}}


# ---------------------------------------------------------------- core schemas


def test_valid_pod_has_no_findings():
    assert findings(pod({"limits": {"nvidia.com/gpu": 1}})) == []


def test_unknown_field_is_reported_with_its_path_in_strict_mode_only():
    doc = pod()
    doc["spec"]["containers"][0]["imagePullPolice"] = "Always"
    fs = findings(doc)
    assert [(f.rule, f.path) for f in fs] == [("schema", "spec.containers[0].imagePullPolice")]
    assert "unknown field" in fs[0].message
    assert findings(doc, strict=False) == []


def test_missing_required_and_wrong_type_are_reported():
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"restartPolicy": 3}}
    fs = {(f.rule, f.path) for f in findings(doc)}
    assert ("schema", "spec.containers") in fs
    assert ("schema", "spec.restartPolicy") in fs


def test_all_errors_are_reported_not_only_the_first():
    doc = pod()
    doc["spec"]["containers"][0].update({"bogus1": 1, "bogus2": 2})
    doc["spec"]["bogus3"] = 3
    assert len(findings(doc)) == 3


def test_versions_are_listed_and_unknown_version_is_a_usage_error():
    versions = available_versions()
    assert "1.25" in versions and versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))))
    with pytest.raises(UsageError) as exc:
        validate_documents([pod()], k8s_version="0.1")
    assert versions[-1] in str(exc.value)
    assert findings(pod(), k8s_version=f"v{versions[0]}.3") == []


def test_version_selects_the_schema_set():
    old, new = available_versions()[0], available_versions()[-1]
    added = sorted(set(core_kinds(new)) - set(core_kinds(old)))
    assert added, "expected kinds added between the oldest and newest shipped versions"
    g, v, k = added[0]
    doc = {"apiVersion": f"{g}/{v}" if g else v, "kind": k, "metadata": {"name": "x"}}
    assert "unknown-kind" in rules(doc, k8s_version=old)
    assert "unknown-kind" not in rules(doc, k8s_version=new)


def test_unknown_kind_is_an_error_unless_allowed():
    doc = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    fs = findings(doc)
    assert [(f.rule, f.severity) for f in fs] == [("unknown-kind", "error")]
    fs = findings(doc, allow_unknown=True)
    assert [(f.rule, f.severity) for f in fs] == [("unknown-kind", "info")]


def test_removed_api_version_names_the_known_ones():
    doc = {"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": {"name": "c"}}
    (f,) = findings(doc)
    assert f.rule == "unknown-kind" and "batch/v1" in f.message


def test_documents_that_are_not_objects():
    res = validate_documents(["just a string", {"foo": 1}, [1, 2]])
    assert [r.index for r in res] == [0, 1, 2]
    assert [r.findings[0].rule for r in res] == ["not-an-object", "missing-kind", "not-an-object"]


def test_list_items_get_index_paths():
    doc = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}, "data": {"k": 1}},
        ],
    }
    fs = findings(doc)
    assert [(f.rule, f.path) for f in fs] == [("schema", "items[1].data.k")]


def test_extra_schema_wins_over_builtin_and_core():
    doc = pod()
    schema = {"type": "object", "required": ["nope"]}
    fs = findings(doc, extra_schemas={("", "v1", "Pod"): schema})
    assert [(f.rule, f.path) for f in fs] == [("schema", "nope")]


def test_validator_instance_is_reusable():
    v = Validator()
    assert v.findings(pod()) == []
    assert v.findings(pod({"limits": {"nvidia.com/gpu": "0.5"}}))[0].rule == "gpu-fractional"


# ---------------------------------------------------------------- quantities and GPU rules


@pytest.mark.parametrize(
    "text,expected",
    [("1", 1), ("500m", 0.5), ("2Gi", 2 * 2**30), ("1e3", 1000), (".5", 0.5), (3, 3), (0.25, 0.25), ("1k", 1000)],
)
def test_parse_quantity(text, expected):
    assert float(parse_quantity(text)) == pytest.approx(expected)


@pytest.mark.parametrize("bad", ["", "1.2.3", "abc", "1 Gi", "1GB", True, None, [1]])
def test_parse_quantity_rejects(bad):
    assert parse_quantity(bad) is None


@pytest.mark.parametrize(
    "resources,rule,path",
    [
        ({"limits": {"nvidia.com/gpu": "0.5"}}, "gpu-fractional", 'spec.containers[0].resources.limits["nvidia.com/gpu"]'),
        ({"limits": {"nvidia.com/gpu": "500m"}}, "gpu-fractional", None),
        ({"requests": {"nvidia.com/gpu": 1}}, "gpu-request-without-limit", "spec.containers[0].resources.limits"),
        ({"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 2}}, "gpu-request-limit-mismatch", None),
        ({"requests": {"nvidia.com/mig-1g.10gb": 1}}, "gpu-request-without-limit", None),
        ({"requests": {"example.com/dongle": 1}}, "extended-resource-not-in-limits", None),
        ({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}, "request-exceeds-limit", "spec.containers[0].resources.requests.cpu"),
        ({"limits": {"memory": "lots"}}, "invalid-quantity", "spec.containers[0].resources.limits.memory"),
        ({"limits": {"cpu": "-1"}}, "invalid-quantity", None),
    ],
)
def test_resource_rules_fire(resources, rule, path):
    fs = [f for f in findings(pod(resources)) if f.rule == rule]
    assert fs, f"{rule} did not fire"
    if path:
        assert fs[0].path == path


@pytest.mark.parametrize(
    "resources",
    [
        {"limits": {"nvidia.com/gpu": 2}},
        {"limits": {"nvidia.com/gpu": "1000m"}},
        {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": 1}},
        {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
        {"limits": {"nvidia.com/mig-1g.10gb": 1}},
    ],
)
def test_resource_rules_stay_quiet_on_correct_requests(resources):
    assert findings(pod(resources)) == []


def test_gpu_rules_apply_inside_every_workload_kind():
    bad = {"requests": {"nvidia.com/gpu": 1}}
    c = [{"name": "pytorch", "image": "i", "resources": bad}]
    tpl = {"spec": {"containers": c, "restartPolicy": "Never"}}
    docs = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
         "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": c}}}},
        {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
         "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": tpl}}}},
        {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "p"},
         "spec": {"pytorchReplicaSpecs": {"Master": {"replicas": 1, "template": tpl}}}},
        {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v"},
         "spec": {"tasks": [{"name": "w", "replicas": 1, "template": tpl}]}},
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"},
         "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": tpl}}}]}},
    ]
    for doc, res in zip(docs, validate_documents(docs, allow_unknown=True)):
        assert "gpu-request-without-limit" in [f.rule for f in res.findings], doc["kind"]


def test_trainjob_resources_per_node_are_checked():
    doc = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "t"},
           "spec": {"trainer": {"resourcesPerNode": {"requests": {"nvidia.com/gpu": 2}}}}}
    assert "gpu-request-without-limit" in rules(doc, allow_unknown=True)


# ---------------------------------------------------------------- walker


def test_walker_yields_paths_replicas_and_roles():
    doc = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "spec": {"mpiReplicaSpecs": {
        "Launcher": {"replicas": 1, "template": {"spec": {"containers": []}}},
        "Worker": {"replicas": 4, "template": {"spec": {"containers": []}}}}}}
    got = [(p.path, p.replicas, p.role) for p in iter_pod_specs(doc)]
    assert got == [
        ("spec.mpiReplicaSpecs.Launcher.template.spec", 1, "Launcher"),
        ("spec.mpiReplicaSpecs.Worker.template.spec", 4, "Worker"),
    ]
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "spec": {"template": {"spec": {}}}}
    assert [(p.path, p.replicas) for p in iter_pod_specs(ds)] == [("spec.template.spec", None)]
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "spec": {"replicatedJobs": [
        {"name": "w", "replicas": 2, "template": {"spec": {"parallelism": 4, "completions": 4, "template": {"spec": {}}}}}]}}
    assert [(p.path, p.replicas) for p in iter_pod_specs(js)] == [("spec.replicatedJobs[0].template.spec.template.spec", 8)]
    assert list(iter_pod_specs({"apiVersion": "v1", "kind": "ConfigMap"})) == []


def test_json_path_quotes_odd_keys():
    assert json_path("spec", "containers", 0, "resources", "limits", "nvidia.com/gpu") == \
        'spec.containers[0].resources.limits["nvidia.com/gpu"]'
    assert json_path("", "a", 1) == "a[1]"


# ---------------------------------------------------------------- semantic checks (fire / quiet)


def job(**spec):
    base = {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}
    base.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": base}


def test_indexed_job_needs_completions():
    assert "indexed-job-needs-completions" in rules(job(completionMode="Indexed"))
    assert rules(job(completionMode="Indexed", completions=4, parallelism=4)) == []


def test_backoff_limit_per_index_needs_indexed():
    assert "backoff-limit-per-index-needs-indexed" in rules(job(backoffLimitPerIndex=1))
    assert rules(job(completionMode="Indexed", completions=2, backoffLimitPerIndex=1)) == []


def test_job_restart_policy():
    doc = job()
    doc["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    assert "job-restart-policy" in rules(doc)
    del doc["spec"]["template"]["spec"]["restartPolicy"]
    assert "job-restart-policy" in rules(doc)
    assert rules(job()) == []


def deployment(labels, selector):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": selector, "template": {"metadata": {"labels": labels},
                                                         "spec": {"containers": [{"name": "c", "image": "i"}]}}}}


def test_selector_must_match_template_labels():
    assert "selector-mismatch" in rules(deployment({"app": "a"}, {"matchLabels": {"app": "b"}}))
    assert "selector-mismatch" in rules(deployment({"app": "a"}, {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}))
    assert rules(deployment({"app": "a", "x": "y"}, {"matchLabels": {"app": "a"}})) == []


def test_duplicate_container_names():
    doc = pod()
    doc["spec"]["containers"].append({"name": "c", "image": "j"})
    assert "duplicate-container-name" in rules(doc)


def vjob(tasks, **spec):
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v"},
            "spec": {"tasks": tasks, **spec}}


def vtask(name, replicas, **kw):
    return {"name": name, "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "c", "image": "i"}], "restartPolicy": "Never"}}, **kw}


def test_volcano_min_available_against_total_replicas():
    assert "volcano-min-available" in rules(vjob([vtask("a", 2), vtask("b", 2)], minAvailable=5))
    assert rules(vjob([vtask("a", 2), vtask("b", 2)], minAvailable=4)) == []


def test_volcano_task_min_available():
    assert "volcano-task-min-available" in rules(vjob([vtask("a", 2, minAvailable=3)]))
    assert rules(vjob([vtask("a", 2, minAvailable=2)])) == []


def test_volcano_duplicates_and_empty_tasks():
    assert "volcano-duplicate-task" in rules(vjob([vtask("a", 1), vtask("a", 1)]))
    pol = [{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodFailed", "action": "AbortJob"}]
    assert "volcano-duplicate-policy" in rules(vjob([vtask("a", 1)], policies=pol))
    assert "volcano-duplicate-policy" not in rules(vjob([vtask("a", 1)], policies=pol[:1]))
    assert "volcano-no-tasks" in rules(vjob([]))


def ptjob(specs, **spec):
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "p"},
            "spec": {"pytorchReplicaSpecs": specs, **spec}}


def rs(replicas, container="pytorch"):
    return {"replicas": replicas, "restartPolicy": "OnFailure",
            "template": {"spec": {"containers": [{"name": container, "image": "i"}]}}}


def test_pytorchjob_rules():
    assert "pytorchjob-master-replicas" in rules(ptjob({"Master": rs(2)}))
    assert "pytorchjob-container-name" in rules(ptjob({"Master": rs(1, container="trainer")}))
    assert "pytorchjob-replica-type" in rules(ptjob({"Master": rs(1), "Chief": rs(1)}))
    assert "pytorchjob-elastic-needs-worker" in rules(ptjob({"Master": rs(1)}, elasticPolicy={"maxReplicas": 2}))
    assert rules(ptjob({"Master": rs(1), "Worker": rs(3)})) == []


def mpijob(specs, **spec):
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "m"},
            "spec": {"mpiReplicaSpecs": specs, **spec}}


def test_mpijob_rules():
    assert "mpijob-launcher" in rules(mpijob({"Worker": rs(2, "w")}))
    assert "mpijob-launcher-replicas" in rules(mpijob({"Launcher": rs(2, "l"), "Worker": rs(2, "w")}))
    assert "mpijob-worker-replicas" in rules(mpijob({"Launcher": rs(1, "l"), "Worker": rs(0, "w")}))
    bad = rs(1, "l")
    bad["restartPolicy"] = "Always"
    assert "mpijob-restart-policy" in rules(mpijob({"Launcher": bad, "Worker": rs(2, "w")}))
    assert rules(mpijob({"Launcher": rs(1, "l"), "Worker": rs(2, "w")}, slotsPerWorker=1)) == []


# ---------------------------------------------------------------- built-in CRD schemas

MINIMAL = {
    ("nvidia.com", "v1", "ClusterPolicy"): {"spec": {
        "operator": {}, "daemonsets": {}, "driver": {"enabled": True}, "toolkit": {}, "devicePlugin": {},
        "dcgm": {}, "dcgmExporter": {}, "gfd": {}, "nodeStatusExporter": {}, "mig": {"strategy": "single"}}},
    ("batch.volcano.sh", "v1alpha1", "Job"): {"spec": {"queue": "research", "minAvailable": 2, "tasks": [
        {"name": "worker", "replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]}},
    ("scheduling.volcano.sh", "v1beta1", "Queue"): {"spec": {"weight": 1, "capability": {"nvidia.com/gpu": 8}}},
    ("scheduling.volcano.sh", "v1beta1", "PodGroup"): {"spec": {"minMember": 2, "queue": "research"}},
    ("scheduling.x-k8s.io", "v1alpha1", "PodGroup"): {"spec": {"minMember": 4, "scheduleTimeoutSeconds": 60}},
    ("kubeflow.org", "v1", "PyTorchJob"): {"spec": {"nprocPerNode": "8", "pytorchReplicaSpecs": {
        "Master": {"replicas": 1, "template": {"spec": {"containers": [{"name": "pytorch", "image": "i"}]}}}}}},
    ("kubeflow.org", "v2beta1", "MPIJob"): {"spec": {"slotsPerWorker": 8, "mpiReplicaSpecs": {
        "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{"name": "l", "image": "i"}]}}}}}},
    ("karpenter.sh", "v1", "NodePool"): {"spec": {
        "template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                              "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]}],
                              "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}},
        "disruption": {"consolidateAfter": "5m", "consolidationPolicy": "WhenEmpty"},
        "limits": {"nvidia.com/gpu": 16}}},
    ("karpenter.k8s.aws", "v1", "EC2NodeClass"): {"spec": {
        "role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}]}},
    ("monitoring.coreos.com", "v1", "ServiceMonitor"): {"spec": {
        "selector": {"matchLabels": {"app": "nvidia-dcgm-exporter"}}, "endpoints": [{"port": "gpu-metrics"}]}},
    ("monitoring.coreos.com", "v1", "PrometheusRule"): {"spec": {"groups": [
        {"name": "gpu", "rules": [{"alert": "GPUXidError", "expr": "DCGM_FI_DEV_XID_ERRORS > 0"}]}]}},
    ("keda.sh", "v1alpha1", "ScaledObject"): {"spec": {"scaleTargetRef": {"name": "llm-server"}, "triggers": [
        {"type": "prometheus", "metadata": {"serverAddress": "http://prometheus-operated.monitoring.svc:9090",
                                            "query": "sum(vllm:num_requests_waiting)", "threshold": "5"}}]}},
    ("kueue.x-k8s.io", "v1beta2", "ResourceFlavor"): {"spec": {"nodeLabels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}}},
    ("kueue.x-k8s.io", "v1beta2", "ClusterQueue"): {"spec": {"cohortName": "research", "namespaceSelector": {}, "resourceGroups": [
        {"coveredResources": ["nvidia.com/gpu"], "flavors": [{"name": "a100", "resources": [
            {"name": "nvidia.com/gpu", "nominalQuota": 8, "borrowingLimit": 4}]}]}]}},
    ("kueue.x-k8s.io", "v1beta2", "LocalQueue"): {"spec": {"clusterQueue": "team-a-cq"}},
    ("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet"): {"spec": {"replicas": 1, "leaderWorkerTemplate": {
        "size": 2, "workerTemplate": {"spec": {"containers": [{"name": "w", "image": "i"}]}}}}},
}


def crd_doc(gvk, body):
    g, v, k = gvk
    return {"apiVersion": f"{g}/{v}", "kind": k, "metadata": {"name": "x", "namespace": "ml"}, **json.loads(json.dumps(body))}


def test_every_builtin_schema_has_a_minimal_valid_example_and_source_url():
    assert set(MINIMAL) == set(builtin_crd_schemas())
    for gvk, schema in builtin_crd_schemas().items():
        assert "github.com" in schema.get("$comment", "") + schema.get("description", ""), gvk
        assert findings(crd_doc(gvk, MINIMAL[gvk])) == [], gvk


@pytest.mark.parametrize("gvk", sorted(MINIMAL))
def test_builtin_schemas_reject_unknown_fields(gvk):
    doc = crd_doc(gvk, MINIMAL[gvk])
    doc["spec"]["surplusField"] = 1
    fs = findings(doc)
    assert [(f.rule, f.path) for f in fs] == [("schema", "spec.surplusField")]
    assert findings(doc, strict=False) == []


@pytest.mark.parametrize(
    "gvk,mutate,path",
    [
        (("nvidia.com", "v1", "ClusterPolicy"), lambda s: s["mig"].update(strategy="dual"), "spec.mig.strategy"),
        (("nvidia.com", "v1", "ClusterPolicy"), lambda s: s.pop("driver"), "spec.driver"),
        (("nvidia.com", "v1", "ClusterPolicy"), lambda s: s["driver"].update(kernelModuleType="closed"), "spec.driver.kernelModuleType"),
        (("karpenter.sh", "v1", "NodePool"), lambda s: s["disruption"].update(consolidationPolicy="Always"), "spec.disruption.consolidationPolicy"),
        (("karpenter.sh", "v1", "NodePool"), lambda s: s["template"]["spec"].pop("nodeClassRef"), "spec.template.spec.nodeClassRef"),
        (("karpenter.sh", "v1", "NodePool"), lambda s: s["template"]["spec"]["requirements"][0].update(values=[]), "spec.template.spec.requirements[0].values"),
        (("karpenter.sh", "v1", "NodePool"), lambda s: s["template"]["spec"]["taints"][0].update(effect="NoWay"), "spec.template.spec.taints[0].effect"),
        (("karpenter.k8s.aws", "v1", "EC2NodeClass"), lambda s: s.update(instanceProfile="p"), "spec"),
        (("karpenter.k8s.aws", "v1", "EC2NodeClass"), lambda s: s.update(amiSelectorTerms=[{"id": "ami-123"}]), "spec.amiFamily"),
        (("batch.volcano.sh", "v1alpha1", "Job"), lambda s: s["tasks"][0].update(name="Bad_Name"), "spec.tasks[0].name"),
        (("batch.volcano.sh", "v1alpha1", "Job"), lambda s: s["tasks"][0]["template"]["spec"]["containers"][0].update(imagePullPolice="x"), "spec.tasks[0].template.spec.containers[0].imagePullPolice"),
        (("scheduling.x-k8s.io", "v1alpha1", "PodGroup"), lambda s: s.update(minMember=0), "spec.minMember"),
        (("scheduling.volcano.sh", "v1beta1", "Queue"), lambda s: s["capability"].update({"nvidia.com/gpu": "eight"}), 'spec.capability["nvidia.com/gpu"]'),
        (("kubeflow.org", "v2beta1", "MPIJob"), lambda s: s.update(mpiImplementation="LAM"), "spec.mpiImplementation"),
        (("kubeflow.org", "v1", "PyTorchJob"), lambda s: s.pop("pytorchReplicaSpecs"), "spec.pytorchReplicaSpecs"),
    ],
)
def test_builtin_schemas_enforce_required_enums_and_patterns(gvk, mutate, path):
    doc = crd_doc(gvk, MINIMAL[gvk])
    mutate(doc["spec"])
    got = [(f.rule, f.path) for f in findings(doc) if f.rule == "schema"]
    assert ("schema", path) in got, got


def test_custom_resource_metadata_is_checked_and_nulls_are_pruned():
    gvk = ("scheduling.x-k8s.io", "v1alpha1", "PodGroup")
    doc = crd_doc(gvk, MINIMAL[gvk])
    doc["metadata"]["labels"] = {"a": 1}
    assert ("schema", "metadata.labels.a") in [(f.rule, f.path) for f in findings(doc)]
    doc = crd_doc(gvk, MINIMAL[gvk])
    doc["spec"]["minResources"] = None
    assert findings(doc) == []


# ---------------------------------------------------------------- files


def test_validate_files_multi_document_and_index():
    r = validate_files([str(FIX / "bad-gpu-pod.yaml")])
    (f,) = r.files
    assert [d.index for d in f.documents] == [0, 1]
    assert {x.rule for x in f.documents[0].findings} >= {"gpu-fractional", "gpu-request-without-limit"}
    assert r.errors >= 2


def test_validate_files_directory_recursion_and_suffixes():
    r = validate_files([str(FIX / "nested")])
    assert [Path(f.path).name for f in r.files] == ["indexed-job.yml"]
    assert r.errors == 0 and r.warnings == 0


def test_empty_documents_are_skipped_but_keep_positions(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text("---\n# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n")
    (f,) = validate_files([str(p)]).files
    assert [(d.index, d.kind) for d in f.documents] == [(1, "Namespace")]


def test_yaml_errors_become_findings_with_the_line(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nkey: [unclosed\n")
    (f,) = validate_files([str(p)]).files
    assert f.documents[0].findings == []
    bad = f.documents[1]
    assert bad.index == 1 and bad.findings[0].rule == "yaml-parse" and "line 6" in bad.findings[0].message


def test_stdin_and_missing_files():
    r = validate_files(["-"], stdin=io.StringIO("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"))
    assert r.files[0].path == "<stdin>" and r.errors == 0
    with pytest.raises(ManifestError, match="nope.yaml"):
        validate_files(["nope.yaml"])


def test_timestamps_stay_strings(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: {when: 2024-01-01}}\ndata: {d: 2024-01-01T00:00:00Z}\n")
    assert validate_files([str(p)]).errors == 0


def test_report_to_dict_has_the_contract_keys():
    d = validate_files([str(FIX / "bad-gpu-pod.yaml")]).to_dict()
    assert set(d) >= {"files", "errors", "warnings"}
    doc = d["files"][0]["documents"][0]
    assert set(doc) >= {"index", "apiVersion", "kind", "name", "findings"}
    assert set(doc["findings"][0]) >= {"rule", "severity", "path", "message", "doc_id"}
