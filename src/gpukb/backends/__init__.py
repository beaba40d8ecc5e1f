"""Pluggable backends: embedders, vector stores and answer generators.

Each kind has a small contract (see :mod:`.base`) and a registry. Built-ins
register themselves exactly as third-party extras do: by name, with a factory.
Extras can also register through the ``gpukb.embedders``,
``gpukb.vector_stores`` and ``gpukb.generators`` entry-point groups.
"""

from __future__ import annotations

from .registry import (
    embedder_for,
    generator_for,
    get_embedder,
    get_generator,
    get_vector_store,
    register_embedder,
    register_generator,
    register_vector_store,
)

__all__ = [
    "embedder_for", "generator_for", "get_embedder", "get_generator", "get_vector_store",
    "register_embedder", "register_generator", "register_vector_store",
]
