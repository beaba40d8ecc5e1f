"""Shared Kubernetes helpers: the manifest loader, object walking
(pod specs and containers inside any workload kind) and resource quantities."""
