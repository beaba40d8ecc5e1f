"""Reading manifest files: paths, directories, stdin, multi-document YAML.

Shared by the validator and the linter.

Decisions:

* A path that does not exist or cannot be read raises
  :class:`~gpukb.errors.ManifestError` naming it.
* YAML that cannot be parsed does **not** raise: the file gets one document
  with a ``yaml-parse`` error finding (line and column in the message), so one
  broken file in a directory does not hide the results for the others.
  Documents parsed before the broken one are kept.
* Empty documents (``---`` with nothing, or only comments) are skipped, but
  the index of each kept document is still its position in the file.
* Timestamps stay strings (Kubernetes treats them as strings), and the
  ``=`` value tag some manifests contain is read as a plain string.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, TextIO

from ..errors import ManifestError
from ..findings import Finding

__all__ = ["LoadedDocument", "LoadedFile", "load_paths", "load_text", "expand_paths"]

MANIFEST_SUFFIXES = (".yaml", ".yml")


@dataclass
class LoadedDocument:
    index: int
    data: Any
    parse_error: Finding | None = None


@dataclass
class LoadedFile:
    path: str
    documents: list[LoadedDocument] = field(default_factory=list)


_LOADER: Any = None


def _loader() -> Any:
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # libyaml is ~20x faster

    class ManifestLoader(base):  # type: ignore[misc,valid-type]
        """SafeLoader that keeps timestamps as strings and accepts the ``=`` tag."""

    ManifestLoader.yaml_implicit_resolvers = {
        ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def _as_str(loader: Any, node: Any) -> str:
        return str(node.value)

    ManifestLoader.add_constructor("tag:yaml.org,2002:value", _as_str)
    ManifestLoader.add_constructor("tag:yaml.org,2002:timestamp", _as_str)
    _LOADER = ManifestLoader
    return _LOADER


def load_text(text: str, path: str = "<string>") -> LoadedFile:
    """Parse a multi-document YAML string into a :class:`LoadedFile`."""
    import yaml

    out = LoadedFile(path=path)
    loader = _loader()(text)
    index = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                data = loader.construct_document(node)
                if data is not None:
                    out.documents.append(LoadedDocument(index=index, data=data))
            index += 1
    except yaml.YAMLError as exc:
        out.documents.append(LoadedDocument(index=index, data=None, parse_error=_parse_finding(exc)))
    except RecursionError:
        out.documents.append(
            LoadedDocument(
                index=index,
                data=None,
                parse_error=Finding("yaml-parse", "error", "", "YAML nesting is too deep"),
            )
        )
    finally:
        loader.dispose()
    return out


def _parse_finding(exc: Exception) -> Finding:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return Finding("yaml-parse", "error", "", f"invalid YAML: {where}{problem}")


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Expand directories (recursively, ``*.yaml``/``*.yml``, sorted); keep ``-``."""
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        p = Path(raw)
        if p.is_dir():
            found = sorted(
                str(f) for f in p.rglob("*") if f.is_file() and f.suffix.lower() in MANIFEST_SUFFIXES
            )
            out.extend(found)
        elif p.exists():
            out.append(raw)
        else:
            raise ManifestError(raw, "no such file or directory")
    return out


def load_paths(paths: Iterable[str], *, stdin: TextIO | None = None) -> list[LoadedFile]:
    """Read every path (``-`` is stdin) into :class:`LoadedFile` objects."""
    files: list[LoadedFile] = []
    for path in expand_paths(paths):
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin
            try:
                text = stream.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise ManifestError("<stdin>", f"cannot read: {exc}") from None
            files.append(load_text(text, "<stdin>"))
            continue
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ManifestError(path, "not a UTF-8 text file") from None
        except OSError as exc:
            raise ManifestError(path, f"cannot read: {exc.strerror or exc}") from None
        files.append(load_text(text, path))
    return files
