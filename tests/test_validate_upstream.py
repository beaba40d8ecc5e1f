"""Real upstream manifests (../shared/upstream) against the built-in schemas, and the linter over all of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.validate import validate_files
from gpukb.validate.core import core_kinds, default_version
from gpukb.validate.crd import builtin_crd_schemas

from conftest import UPSTREAM, upstream_manifest_paths, upstream_rel  # noqa: E402

# Upstream manifests of in-scope kinds that do NOT validate, with the reason.
# (file -> {(rule, path)})
KNOWN_INVALID = {
    # Doc snippet lists alternatives ("1m | Never", "WhenEmptyOrUnderutilized | Balanced | WhenEmpty") as values.
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodepools.md__L33-L174.yaml": {
        ("schema", "spec.disruption.consolidateAfter"),
        ("schema", "spec.disruption.consolidationPolicy"),
        ("schema", "spec.template.spec.expireAfter"),
    },
    # Abbreviated doc snippets: no nodeClassRef (and no disruption.consolidateAfter, required by the AWS CRD).
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodepools.md__L424-L441.yaml": {
        ("schema", "spec.template.spec.nodeClassRef"),
    },
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodepools.md__L501-L517.yaml": {
        ("schema", "spec.template.spec.nodeClassRef"),
        ("schema", "spec.disruption.consolidateAfter"),
    },
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__scheduling.md__L316-L331.yaml": {
        ("schema", "spec.template.spec.nodeClassRef"),
    },
    # Real upstream bug: nodeClassRef.group is "karpenter.k8s.aws/v1" (a group has no version part).
    "aws__karpenter-provider-aws/examples/v1/windows-custom-userdata.yaml": {
        ("schema", "spec.template.spec.nodeClassRef.group"),
    },
    # Real upstream typo: securityContext.allowPrivilegedEscalation (the field is allowPrivilegeEscalation);
    # kubectl's strict field validation rejects it.
    **{
        f"aws__karpenter-provider-aws/examples/workloads/{name}.yaml": {
            ("schema", "spec.template.spec.containers[0].securityContext.allowPrivilegedEscalation"),
        }
        for name in ("arm64", "disruption-budget", "gpu-amd", "gpu-nvidia")
    },
    # Negative fixtures: Volcano's admission webhook is meant to deny these.
    "volcano-sh__volcano/example/invalid_jobs/duplicatedPolicyEvent-webhook-deny.yaml": {
        ("volcano-duplicate-policy", "spec.policies[1]"),
    },
    "volcano-sh__volcano/example/invalid_jobs/duplicatedTaskName-webhook-deny.yaml": {
        ("volcano-duplicate-task", "spec.tasks[1].name"),
    },
    "volcano-sh__volcano/example/invalid_jobs/minAvailable-webhook-deny.yaml": {
        ("volcano-min-available", "spec.minAvailable"),
    },
}


_paths = upstream_manifest_paths
_rel = upstream_rel


def test_upstream_manifests_of_kinds_in_scope_validate_except_known_invalid():
    paths = _paths()
    in_scope = set(core_kinds(default_version())) | set(builtin_crd_schemas())
    report = validate_files(paths, allow_unknown=True)
    got: dict[str, set] = {}
    checked = 0
    for f in report.files:
        for d in f.documents:
            if not d.apiVersion or not d.kind:
                continue
            g, _, v = d.apiVersion.rpartition("/")
            if (g, v, d.kind) not in in_scope:
                assert all(x.severity == "info" for x in d.findings if x.rule == "unknown-kind")
                continue
            checked += 1
            for x in d.findings:
                if x.severity in ("error", "warning"):
                    got.setdefault(_rel(f.path), set()).add((x.rule, x.path))
    assert checked >= 150
    assert got == KNOWN_INVALID


def test_builtin_kinds_are_exercised_by_upstream_examples():
    paths = _paths()
    report = validate_files(paths, allow_unknown=True)
    seen = {(d.apiVersion, d.kind) for f in report.files for d in f.documents}
    # Kinds whose upstream examples are not in the ../shared/upstream snapshot; their
    # bundled schemas are exercised by the recipe goldens and MINIMAL in test_validate.
    no_example = {("scheduling.volcano.sh", "PodGroup"), ("monitoring.coreos.com", "ServiceMonitor"),
                  ("monitoring.coreos.com", "PrometheusRule"), ("keda.sh", "ScaledObject"),
                  ("kueue.x-k8s.io", "ClusterQueue"), ("kueue.x-k8s.io", "LocalQueue"),
                  ("kueue.x-k8s.io", "ResourceFlavor"), ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")}
    for g, v, k in builtin_crd_schemas():
        if (g, k) in no_example:
            continue
        assert (f"{g}/{v}", k) in seen, k
