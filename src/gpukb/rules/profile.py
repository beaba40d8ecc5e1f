"""The optional cluster profile (``--profile cluster.yaml``).

Context-dependent rules read it; without it they stay quiet (or warn where
the manifest alone proves a problem). Example::

    mig_strategy: mixed                 # none | single | mixed
    mig_profiles: [1g.10gb, 3g.40gb]    # MIG profiles the nodes expose
    time_slicing:
      replicas: 4
      rename_by_default: false          # true: resource becomes nvidia.com/gpu.shared
      fail_requests_greater_than_one: true
      resources: [nvidia.com/gpu]
    gpu_node_taints:
      - {key: nvidia.com/gpu, value: "true", effect: NoSchedule}
    extended_resource_toleration: false  # ExtendedResourceToleration admission plugin on?
    node_labels:                         # labels present on GPU nodes; null = any value
      nvidia.com/gpu.product: [NVIDIA-A100-SXM4-80GB]
      node.kubernetes.io/instance-type: null
    schedulers: [default-scheduler, volcano]
    coscheduling_scheduler: scheduler-plugins-scheduler
    volcano_queues: [default, research]
    multi_tenant_namespaces: [team-a, team-b]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["ClusterProfile", "TimeSlicing", "load_profile", "profile_from_dict", "PROFILE_SCHEMA"]

_STR_LIST = {"type": "array", "items": {"type": "string"}}

PROFILE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "mig_strategy": {"enum": ["none", "single", "mixed"]},
        "mig_profiles": _STR_LIST,
        "time_slicing": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "replicas": {"type": "integer", "minimum": 1},
                "rename_by_default": {"type": "boolean"},
                "fail_requests_greater_than_one": {"type": "boolean"},
                "resources": _STR_LIST,
            },
        },
        "gpu_node_taints": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["key", "effect"],
                "properties": {
                    "key": {"type": "string"},
                    "value": {"type": "string"},
                    "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
                },
            },
        },
        "extended_resource_toleration": {"type": "boolean"},
        "node_labels": {
            "type": "object",
            "additionalProperties": {"anyOf": [{"type": "null"}, _STR_LIST]},
        },
        "schedulers": _STR_LIST,
        "coscheduling_scheduler": {"type": "string"},
        "volcano_queues": _STR_LIST,
        "multi_tenant_namespaces": _STR_LIST,
    },
}


@dataclass
class TimeSlicing:
    replicas: int = 1
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool = False
    resources: list[str] = field(default_factory=lambda: ["nvidia.com/gpu"])


@dataclass
class ClusterProfile:
    mig_strategy: str | None = None
    mig_profiles: list[str] | None = None
    time_slicing: TimeSlicing | None = None
    gpu_node_taints: list[dict[str, str]] | None = None
    extended_resource_toleration: bool = False
    node_labels: dict[str, list[str] | None] | None = None
    schedulers: list[str] | None = None
    coscheduling_scheduler: str | None = None
    volcano_queues: list[str] | None = None
    multi_tenant_namespaces: list[str] | None = None
    source: str = "<profile>"

    @property
    def cosched_name(self) -> str:
        return self.coscheduling_scheduler or "scheduler-plugins-scheduler"


def profile_from_dict(data: Any, source: str = "<profile>") -> ClusterProfile:
    """Validate and convert a parsed profile; ConfigError names the file and field."""
    from jsonschema import Draft202012Validator

    if data is None:
        data = {}
    errors = sorted(Draft202012Validator(PROFILE_SCHEMA).iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        from ..output import short

        err = errors[0]
        where = ".".join(str(p) if len(str(p)) <= 80 else short(p) for p in err.absolute_path) or "(top level)"
        msg = _message(err, short)
        if err.validator == "additionalProperties":
            allowed = ", ".join(sorted((err.schema.get("properties") or {}).keys()))
            msg = f"{msg}; allowed keys: {allowed}"
        raise ConfigError(f"{source}: {where}: {msg}")
    ts = data.get("time_slicing")
    return ClusterProfile(
        mig_strategy=data.get("mig_strategy"),
        mig_profiles=data.get("mig_profiles"),
        time_slicing=TimeSlicing(**ts) if isinstance(ts, dict) else None,
        gpu_node_taints=data.get("gpu_node_taints"),
        extended_resource_toleration=bool(data.get("extended_resource_toleration", False)),
        node_labels=data.get("node_labels"),
        schedulers=data.get("schedulers"),
        coscheduling_scheduler=data.get("coscheduling_scheduler"),
        volcano_queues=data.get("volcano_queues"),
        multi_tenant_namespaces=data.get("multi_tenant_namespaces"),
        source=source,
    )


def _message(err: Any, short: Any) -> str:
    """A schema error in words, quoting the offending value in short form."""
    v, value = err.validator, short(err.instance)
    if v == "type":
        return f"{value} is not of type {short(err.validator_value)}"
    if v == "enum":
        return f"{value} is not one of {short(err.validator_value)}"
    if v == "additionalProperties" and isinstance(err.instance, dict):
        known = set(err.schema.get("properties") or {})
        extra = [k for k in err.instance if k not in known][:5]
        return "unknown key" + ("s " if len(extra) > 1 else " ") + ", ".join(short(k) for k in extra)
    if v in ("anyOf", "oneOf"):
        return f"{value} is not a valid value here"
    msg = err.message
    return msg if len(msg) <= 200 else msg[:197] + "..."


def load_profile(path: str | Path) -> ClusterProfile:
    """Read a profile YAML file. Raises ConfigError (file, field) on any problem."""
    from ..errors import ManifestError
    from ..k8s.manifests import load_document

    try:
        data = load_document(path, what="profile")
    except ManifestError as exc:
        raise ConfigError(f"cluster profile {exc}") from None
    return profile_from_dict(data, str(path))
