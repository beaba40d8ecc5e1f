"""The linter over every real upstream manifest (../shared/upstream): nothing crashes and
every finding is one that was reviewed (listed below with the reason)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpukb.lint import lint_files

from conftest import UPSTREAM, upstream_manifest_paths, upstream_rel  # noqa: E402
PROFILE = Path(__file__).resolve().parent / "fixtures" / "manifests" / "cluster-profile.yaml"


_paths = upstream_manifest_paths
_rel = upstream_rel


# Lint findings over every upstream manifest: each one reviewed.
#  * gpu-container-no-cpu-memory-request: the examples request a GPU and nothing else (BestEffort CPU/memory).
#  * gang-scheduling-missing: multi-pod GPU PyTorchJob/MPIJob examples without Volcano/Coscheduling/Kueue.
#  * shm-missing: PyTorch or multi-GPU MPI pods without a memory-backed /dev/shm.
#  * karpenter-gpu-nodepool-no-taint / -no-limits: GPU NodePool doc snippets without a taint or limits.
#  * volcano-queue: the MindSpore GPU example submits to the implicit "default" queue.
#  (Admission findings, such as the webhook-deny fixtures, are compared with validate's below.)
EXPECTED_LINT = {
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/gpu-direct-rdma-demo-pod-1.yaml": {"gpu-container-no-cpu-memory-request"},
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/gpu-direct-rdma-demo-pod-2.yaml": {"gpu-container-no-cpu-memory-request"},
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/tf-notebook.yaml": {"gpu-container-no-cpu-memory-request"},
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/time-slicing-verification.yaml": {"gpu-container-no-cpu-memory-request"},
    "NVIDIA__k8s-device-plugin/_doc_snippets/README.md__L176-L191.yaml": {"gpu-container-no-cpu-memory-request"},
    "NVIDIA__k8s-device-plugin/testdata/job-1.yaml": {"gpu-container-no-cpu-memory-request"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodeoverlays.md__L234-L253.yaml": {"karpenter-gpu-nodepool-no-taint"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodepools.md__L501-L517.yaml": {"karpenter-gpu-nodepool-no-limits"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__scheduling.md__L316-L331.yaml": {"karpenter-gpu-nodepool-no-limits"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__scheduling.md__L337-L353.yaml": {"gpu-container-no-cpu-memory-request"},
    "kubeflow__mpi-operator/_doc_snippets/README.md__L86-L169.yaml": {"gang-scheduling-missing", "gpu-container-no-cpu-memory-request", "shm-missing"},
    "kubeflow__mpi-operator/examples/v2beta1/tensorflow-benchmarks/tensorflow-benchmarks.yaml": {"gang-scheduling-missing", "gpu-container-no-cpu-memory-request"},
    "kubeflow__training-operator/examples/pytorch/deepspeed-demo/pytorch_deepspeed_demo.yaml": {"gang-scheduling-missing", "gpu-container-no-cpu-memory-request", "shm-missing"},
    "kubeflow__training-operator/examples/pytorch/mnist/v1/pytorch_job_mnist_gloo.yaml": {"gang-scheduling-missing", "gpu-container-no-cpu-memory-request", "shm-missing"},
    "kubeflow__training-operator/examples/pytorch/mnist/v1/pytorch_job_mnist_nccl.yaml": {"gang-scheduling-missing", "gpu-container-no-cpu-memory-request", "shm-missing"},
    "volcano-sh__volcano/example/MindSpore-example/mindspore_gpu/mindspore-gpu.yaml": {"gpu-container-no-cpu-memory-request", "volcano-queue"},
}

# Extra findings with the example profile (GPU nodes tainted nvidia.com/gpu=true:NoSchedule,
# time-slicing x4 with failRequestsGreaterThanOne, queues default/research):
#  * gpu-missing-toleration: NVIDIA GPU pods without the taint's toleration (AMD pods are not flagged).
#  * daemonset-missing-gpu-toleration: GFD and mig-manager DaemonSets target GPU nodes without tolerations.
#  * karpenter-time-slicing: GPU NodePools in a time-sliced cluster.
#  * time-slicing-more-than-one: a worker asking for 2 time-sliced GPUs.
#  * volcano-queue: hierarchical example queues are not among the profile's queues.
EXPECTED_LINT_WITH_PROFILE_EXTRA = {
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/gpu-direct-rdma-demo-pod-1.yaml": {"gpu-missing-toleration"},
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/gpu-direct-rdma-demo-pod-2.yaml": {"gpu-missing-toleration"},
    "NVIDIA__cloud-native-docs/gpu-operator/manifests/input/tf-notebook.yaml": {"gpu-missing-toleration"},
    "NVIDIA__k8s-device-plugin/deployments/static/gpu-feature-discovery-daemonset-with-mig-mixed.yaml": {"daemonset-missing-gpu-toleration"},
    "NVIDIA__k8s-device-plugin/deployments/static/gpu-feature-discovery-daemonset-with-mig-single.yaml": {"daemonset-missing-gpu-toleration"},
    "NVIDIA__k8s-device-plugin/deployments/static/gpu-feature-discovery-daemonset.yaml": {"daemonset-missing-gpu-toleration"},
    "NVIDIA__mig-parted/deployments/container/nvidia-mig-manager-example-hopper-blackwell.yaml": {"daemonset-missing-gpu-toleration"},
    "NVIDIA__mig-parted/deployments/container/nvidia-mig-manager-example.yaml": {"daemonset-missing-gpu-toleration"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodeoverlays.md__L234-L253.yaml": {"karpenter-time-slicing"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__nodepools.md__L501-L517.yaml": {"karpenter-time-slicing"},
    "aws__karpenter-provider-aws/_doc_snippets/website__content__en__docs__concepts__scheduling.md__L316-L331.yaml": {"karpenter-time-slicing"},
    "aws__karpenter-provider-aws/examples/workloads/gpu-nvidia.yaml": {"gpu-missing-toleration"},
    "kubeflow__mpi-operator/_doc_snippets/README.md__L86-L169.yaml": {"gpu-missing-toleration", "time-slicing-more-than-one"},
    "kubeflow__mpi-operator/examples/v2beta1/tensorflow-benchmarks/tensorflow-benchmarks.yaml": {"gpu-missing-toleration"},
    "kubeflow__training-operator/examples/pytorch/deepspeed-demo/pytorch_deepspeed_demo.yaml": {"gpu-missing-toleration"},
    "kubeflow__training-operator/examples/pytorch/mnist/v1/pytorch_job_mnist_gloo.yaml": {"gpu-missing-toleration"},
    "kubeflow__training-operator/examples/pytorch/mnist/v1/pytorch_job_mnist_nccl.yaml": {"gpu-missing-toleration"},
    "volcano-sh__volcano/example/MindSpore-example/mindspore_gpu/mindspore-gpu.yaml": {"gpu-missing-toleration"},
    "volcano-sh__volcano/example/hierarchical-jobs/jobs.yaml": {"volcano-queue"},
}


def _lint_rules(report, advice_only: bool = True) -> dict[str, set[str]]:
    from gpukb.rules import RULES

    got: dict[str, set[str]] = {}
    for f in report.files:
        for d in f.documents:
            for x in d.findings:
                r = RULES.get(x.rule)
                if advice_only and (r is None or r.category != "advice"):
                    continue
                got.setdefault(_rel(f.path), set()).add(x.rule)
    return got


def test_lint_over_every_upstream_manifest_finds_only_reviewed_problems():
    assert _lint_rules(lint_files(_paths())) == EXPECTED_LINT


def test_lint_reports_everything_validate_reports():
    """One command is enough: lint's schema and admission findings are validate's."""
    from gpukb.validate import validate_files

    paths = _paths()
    linted = _lint_rules(lint_files(paths), advice_only=False)
    validated = _lint_rules(validate_files(paths), advice_only=False)
    for path, rules in validated.items():
        assert rules <= linted.get(path, set()), path


def test_lint_with_the_example_profile_adds_only_reviewed_findings():
    want: dict[str, set[str]] = {k: set(v) for k, v in EXPECTED_LINT.items()}
    for k, v in EXPECTED_LINT_WITH_PROFILE_EXTRA.items():
        want.setdefault(k, set()).update(v)
    assert _lint_rules(lint_files(_paths(), profile=PROFILE)) == want
