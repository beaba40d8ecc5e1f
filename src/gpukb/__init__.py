"""gpukb: a knowledge base, manifest generator, validator and linter for AI workloads on Kubernetes.

The public API is listed in ``__all__``. Importing ``gpukb`` is cheap: the
embedding model, Chroma and llama-index load only when a function that needs
them runs.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .errors import (
    BackendError,
    ConfigError,
    GpukbError,
    IndexError_,
    IndexMismatchError,
    IndexMissingError,
    KnowledgeError,
    KnowledgeErrors,
    ManifestError,
    ParameterError,
    RecipeError,
    UsageError,
)
from .findings import DocumentResult, FileResult, Finding, Report

__version__ = "0.1.0"

# name -> module that defines it; loaded on first attribute access.
_LAZY = {
    "Settings": "gpukb.config",
    "load_settings": "gpukb.config",
    "load_kb": "gpukb.knowledge",
    "check_kb": "gpukb.knowledge",
    "ingest": "gpukb.ingest",
    "IngestSummary": "gpukb.ingest",
    "Engine": "gpukb.engine",
    "Answer": "gpukb.engine",
    "Citation": "gpukb.engine",
    "load_recipes": "gpukb.recipes",
    "render_recipe": "gpukb.recipes",
    "generate": "gpukb.recipes",
    "validate_files": "gpukb.validate",
    "validate_documents": "gpukb.validate",
    "lint_files": "gpukb.lint",
}

__all__ = [
    "__version__",
    # errors
    "GpukbError", "UsageError", "ConfigError", "KnowledgeError", "KnowledgeErrors",
    "IndexError_", "IndexMissingError", "IndexMismatchError", "BackendError",
    "RecipeError", "ParameterError", "ManifestError",
    # results
    "Finding", "DocumentResult", "FileResult", "Report",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gpukb' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
