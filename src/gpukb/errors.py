"""The gpukb exception hierarchy.

Every error the library raises derives from :class:`GpukbError`. The CLI maps
them to exit codes and prints them as one line (``Error: <message>``); the
library itself never prints and never exits.

::

    GpukbError
    ├── UsageError              bad arguments or options (CLI exit code 2)
    ├── InputError              input that is not valid text (a question, a request)
    ├── ConfigError             a bad configuration file or setting
    ├── KnowledgeError          a KB doc cannot be loaded (file and field named)
    │   └── KnowledgeErrors     several bad docs at once (one line each)
    ├── IndexError_             the search index cannot be used
    │   ├── IndexMissingError   no index yet: run ``gpukb ingest``
    │   ├── IndexDamagedError   files missing or changed: ``gpukb ingest`` rebuilds it
    │   └── IndexMismatchError  built with other settings: ``gpukb ingest --rebuild``
    ├── BackendError            a backend (embedder, vector store, generator) failed
    │   └── LlmError            a language model call failed (timeout, HTTP error, bad output)
    ├── RecipeError             a recipe file is malformed (file and field named)
    │   └── ParameterError      a recipe parameter breaks its schema
    └── ManifestError           a manifest file cannot be read or parsed
"""

from __future__ import annotations

__all__ = [
    "GpukbError",
    "UsageError",
    "InputError",
    "ConfigError",
    "KnowledgeError",
    "KnowledgeErrors",
    "IndexError_",
    "IndexMissingError",
    "IndexDamagedError",
    "IndexMismatchError",
    "BackendError",
    "LlmError",
    "RecipeError",
    "ParameterError",
    "ManifestError",
]


class GpukbError(Exception):
    """Base class of every error gpukb raises on purpose.

    ``str(err)`` is a complete one-line message meant for users. ``lines()``
    returns every line when one error stands for several problems.
    """

    exit_code = 1

    def lines(self) -> list[str]:
        return [str(self)]


class UsageError(GpukbError):
    """The caller passed arguments that make no sense (exit code 2)."""

    exit_code = 2


class InputError(GpukbError):
    """Input that cannot be used as given: not valid UTF-8 text, for example (exit code 1)."""


class ConfigError(GpukbError):
    """A configuration file or setting is invalid."""


class KnowledgeError(GpukbError):
    """One KB document is invalid. Names the file and the field."""

    def __init__(self, path: str, field: str | None, message: str):
        self.path = path
        self.field = field
        self.message = message
        where = f"{path}: {field}" if field else path
        super().__init__(f"{where}: {message}")


class KnowledgeErrors(GpukbError):
    """Several KB documents are invalid; ``lines()`` gives one line per problem."""

    def __init__(self, errors: list[KnowledgeError]):
        self.errors = list(errors)
        n = len(self.errors)
        super().__init__(
            f"{n} invalid knowledge base document{'s' if n != 1 else ''}; index left unchanged"
        )

    def lines(self) -> list[str]:
        return [str(e) for e in self.errors] + [str(self)]


class IndexError_(GpukbError):
    """The search index cannot be used."""


class IndexMissingError(IndexError_):
    """No index has been built in the configured home."""


class IndexDamagedError(IndexError_):
    """Files of the published index are missing, truncated or changed."""


class IndexMismatchError(IndexError_):
    """The index was built with other settings (model, dimension, chunker)."""


class BackendError(GpukbError):
    """A backend (embedder, vector store, answer generator) failed."""


class LlmError(BackendError):
    """A language model call failed: timeout, connection, HTTP status, or a
    malformed or empty response. The message never contains the API key."""


class RecipeError(GpukbError):
    """A recipe file is malformed. Names the file and the field."""

    def __init__(self, message: str, *, path: str | None = None, field: str | None = None):
        self.path = path
        self.field = field
        self.message = message
        prefix = ": ".join(p for p in (path, field) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class ParameterError(RecipeError):
    """A recipe parameter value breaks the recipe's parameter schema."""

    def __init__(self, message: str, *, recipe: str | None = None, parameter: str | None = None):
        self.recipe = recipe
        self.parameter = parameter
        self.message = message
        head = f"recipe {recipe}: " if recipe else ""
        where = f"parameter '{parameter}': " if parameter else ""
        GpukbError.__init__(self, f"{head}{where}{message}")
        self.path = None
        self.field = parameter
        self.involved: list[str] = [parameter] if parameter else []  # every parameter of a broken cross-check


class ManifestError(GpukbError):
    """A manifest file cannot be read or is not valid YAML."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")
