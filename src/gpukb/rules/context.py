"""What a lint rule sees: the document, every other document of the run, the profile."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Callable, Iterable, Iterator

from ..k8s.quantity import is_gpu_resource, parse_quantity
from ..k8s.walk import ContainerRef, PodSpecRef, group_of, iter_containers, iter_pod_specs
from .profile import ClusterProfile

__all__ = [
    "LintContext",
    "DocumentIndex",
    "POD_GROUP_LABEL",
    "container_gpus",
    "pod_gpus",
    "tolerates",
    "selector_terms",
    "TRAINING_KINDS",
    "SERVING_KINDS",
]

# (group, kind) of workloads that run distributed training / batch work
TRAINING_KINDS = {
    ("kubeflow.org", "PyTorchJob"),
    ("kubeflow.org", "TFJob"),
    ("kubeflow.org", "MPIJob"),
    ("kubeflow.org", "XGBoostJob"),
    ("kubeflow.org", "PaddleJob"),
    ("kubeflow.org", "JAXJob"),
    ("batch.volcano.sh", "Job"),
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
}
SERVING_KINDS = {("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "ReplicaSet")}


def container_gpus(c: ContainerRef) -> dict[str, Fraction]:
    """GPU resources of one container: limits, or requests where no limit is set."""
    out: dict[str, Fraction] = {}
    for which in ("requests", "limits"):  # limits win
        for name, value in c.resource_map(which).items():
            if is_gpu_resource(str(name)):
                q = parse_quantity(value)
                if q is not None:
                    out[str(name)] = q
    return out


def pod_gpus(pod: PodSpecRef) -> Fraction:
    """Total GPU devices (any GPU resource) the app containers of one pod ask for."""
    return sum((sum(container_gpus(c).values(), Fraction(0)) for c in iter_containers(pod, init=False)), Fraction(0))


def tolerates(pod_spec: dict[str, Any], taint: dict[str, Any], requested: Iterable[str] = (), ert: bool = False) -> bool:
    """Whether the pod tolerates a taint (Kubernetes matching rules).

    ``ert``: the ExtendedResourceToleration admission plugin adds an
    ``Exists`` toleration for each extended resource the pod requests.
    """
    key, value, effect = taint.get("key"), taint.get("value"), taint.get("effect")
    if ert and key in set(requested):
        return True
    for t in pod_spec.get("tolerations") or []:
        if not isinstance(t, dict):
            continue
        if t.get("effect") and t.get("effect") != effect:
            continue
        op = t.get("operator") or "Equal"
        if not t.get("key"):
            if op == "Exists":
                return True
            continue
        if t.get("key") != key:
            continue
        if op == "Exists" or (op == "Equal" and str(t.get("value") or "") == str(value or "")):
            return True
    return False


def selector_terms(pod_spec: dict[str, Any], base: str) -> Iterator[tuple[str, str, str, list[str]]]:
    """(path, key, operator, values) for nodeSelector entries and required node-affinity expressions."""
    ns = pod_spec.get("nodeSelector")
    if isinstance(ns, dict):
        for k, v in ns.items():
            yield f"{base}.nodeSelector", str(k), "In", [str(v)]
    aff = pod_spec.get("affinity")
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    terms = req.get("nodeSelectorTerms") if isinstance(req, dict) else None
    if isinstance(terms, list):
        for i, term in enumerate(terms):
            exprs = term.get("matchExpressions") if isinstance(term, dict) else None
            for j, e in enumerate(exprs or []):
                if isinstance(e, dict) and isinstance(e.get("key"), str):
                    vals = [str(v) for v in e.get("values") or []]
                    yield (
                        f"{base}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                        f".nodeSelectorTerms[{i}].matchExpressions[{j}]",
                        e["key"],
                        str(e.get("operator") or ""),
                        vals,
                    )


class DocumentIndex:
    """Every document of a run, indexed once for cross-document rules, so a
    run stays linear in the number of documents."""

    def __init__(self, docs: Iterable[dict[str, Any]] = ()):
        self.docs = [d for d in docs if isinstance(d, dict)]
        self._derived: dict[str, Any] = {}
        self._by_kind: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for d in self.docs:
            k = d.get("kind")
            if isinstance(k, str):
                self._by_kind.setdefault((group_of(d)[0], k), []).append(d)

    def of_kind(self, group: str, kind: str) -> list[dict[str, Any]]:
        return self._by_kind.get((group, kind), [])

    def derived(self, name: str, build: Callable[["DocumentIndex"], Any]) -> Any:
        """``build(self)``, computed once per run: a rule that needs a fact about
        other documents (quota namespaces, claims) reads it here instead of
        scanning them again for every document."""
        if name not in self._derived:
            self._derived[name] = build(self)
        return self._derived[name]

    @cached_property
    def pod_group_members(self) -> dict[tuple[str, str], int]:
        """(namespace, pod group name) -> pods labelled with it, over every document."""
        out: dict[tuple[str, str], int] = {}
        for d in self.docs:
            ns = LintContext.ns_of(d)
            for pod in iter_pod_specs(d):
                name = pod.labels.get(POD_GROUP_LABEL)
                if isinstance(name, str):
                    out[(ns, name)] = out.get((ns, name), 0) + (pod.replicas or 0)
        return out


POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


@dataclass
class LintContext:
    doc: dict[str, Any]
    index: DocumentIndex | list[dict[str, Any]] = field(default_factory=list)  # every document of the run
    profile: ClusterProfile | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.index, DocumentIndex):
            self.index = DocumentIndex(self.index)

    @property
    def docs(self) -> list[dict[str, Any]]:
        assert isinstance(self.index, DocumentIndex)
        return self.index.docs

    @cached_property
    def group(self) -> str:
        return group_of(self.doc)[0]

    @property
    def kind(self) -> str:
        k = self.doc.get("kind")
        return k if isinstance(k, str) else ""

    def is_kind(self, group: str, *kinds: str) -> bool:
        return self.group == group and self.kind in kinds

    @cached_property
    def namespace(self) -> str:
        meta = self.doc.get("metadata")
        ns = meta.get("namespace") if isinstance(meta, dict) else None
        return ns if isinstance(ns, str) and ns else "default"

    @cached_property
    def spec(self) -> dict[str, Any]:
        s = self.doc.get("spec")
        return s if isinstance(s, dict) else {}

    @cached_property
    def pods(self) -> list[PodSpecRef]:
        return list(iter_pod_specs(self.doc))

    @cached_property
    def gpu_pods(self) -> list[PodSpecRef]:
        return [p for p in self.pods if pod_gpus(p) > 0]

    @cached_property
    def nvidia_pods(self) -> list[PodSpecRef]:
        """Pods asking for an ``nvidia.com/*`` resource (the profile describes NVIDIA GPU nodes)."""
        return [
            p for p in self.pods
            if any(n.startswith("nvidia.com/") for c in iter_containers(p, init=False) for n in container_gpus(c))
        ]

    def total_pods(self, pods: Iterable[PodSpecRef] | None = None) -> int:
        return sum((p.replicas or 0) for p in (self.pods if pods is None else pods))

    def others(self, group: str, kind: str) -> Iterator[dict[str, Any]]:
        assert isinstance(self.index, DocumentIndex)
        yield from self.index.of_kind(group, kind)

    @staticmethod
    def ns_of(doc: dict[str, Any]) -> str:
        meta = doc.get("metadata")
        ns = meta.get("namespace") if isinstance(meta, dict) else None
        return ns if isinstance(ns, str) and ns else "default"

    @staticmethod
    def name_of(doc: dict[str, Any]) -> str | None:
        meta = doc.get("metadata")
        n = meta.get("name") if isinstance(meta, dict) else None
        return n if isinstance(n, str) else None
