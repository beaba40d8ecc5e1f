"""Reading manifest files: the one loader for every YAML input.

Manifests (files, directories, stdin), recipe values files (``-f``), cluster
profiles and CRD files all come through here, so every input is bounded the
same way (:class:`Limits`):

* **Size.** At most ``max_bytes`` per input (16 MB by default;
  ``GPUKB_MAX_INPUT_MB`` changes it). Files and stdin are read in chunks and
  refused as soon as they pass the limit, so ``/dev/zero`` or an endless pipe
  ends with a message instead of exhausting memory.
* **Encoding.** Strict UTF-8; the error names the byte offset of the first
  bad byte. A leading byte-order mark is dropped.
* **Aliases.** YAML aliases are counted as they would be expanded: a document
  whose aliases add more than ``max_alias_values`` values or
  ``max_alias_chars`` characters to an input is refused (Kubernetes' YAML
  decoder refuses excessive aliasing too), and so is an alias that refers to
  a value containing it. Everything downstream
  (schemas, rules, error messages) then sees a bounded tree.
* **Depth.** Values nested more than ``max_depth`` levels deep are refused
  with a message naming the limit (real manifests and CRDs stay under 50).
* **Duplicate keys** are errors naming the key and both lines: the API
  server and kubectl (strict field validation) reject duplicate fields, and
  YAML loaders would silently keep the last one.
* **Huge integers** (more than 1,000 digits) are refused at parse time.

Decisions kept from before:

* A path that does not exist, cannot be read, is too large or is not UTF-8
  raises :class:`~gpukb.errors.ManifestError` naming it.
* YAML that cannot be parsed (or breaks the alias or depth limits) does
  **not** raise: the file gets one document with a ``yaml-parse`` error
  finding (line and column in the message), so one broken file in a
  directory does not hide the results for the others. Documents parsed
  before the broken one are kept.
* Empty documents (``---`` with nothing, or only comments) are skipped, but
  the index of each kept document is still its position in the file.
* Timestamps stay strings (Kubernetes treats them as strings), and the
  ``=`` value tag some manifests contain is read as a plain string.
  ``!!binary`` stays its base64 text, ``!!set`` and ``!!omap`` become
  mappings, ``!!pairs`` a list of ``[key, value]`` lists: only JSON shapes
  reach the checks.
* A ``kind: List`` is flattened by :func:`list_items`, bounded in nesting
  and in item count.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from ..errors import ConfigError, ManifestError
from ..findings import Finding

__all__ = [
    "Limits",
    "LoadedDocument",
    "LoadedFile",
    "load_paths",
    "load_text",
    "load_document",
    "read_input",
    "decode_text",
    "expand_paths",
    "list_items",
    "is_list",
]

MANIFEST_SUFFIXES = (".yaml", ".yml")
MAX_INPUT_ENV = "GPUKB_MAX_INPUT_MB"
_CHUNK = 1 << 20
_MAX_INT_BITS = 3322  # about 1,000 decimal digits


@dataclass(frozen=True)
class Limits:
    """Bounds on one input. The defaults fit every real manifest and CRD."""

    max_bytes: int = 16 * 2**20
    max_alias_values: int = 100_000  # values aliases may add to one input
    max_alias_chars: int = 4 * 2**20  # characters of text aliases may add to one input
    max_depth: int = 100  # nesting levels of one document
    max_list_depth: int = 5  # kind: List inside kind: List
    max_list_items: int = 100_000  # objects one kind: List may hold

    @classmethod
    def from_env(cls) -> "Limits":
        """Defaults, with ``max_bytes`` from ``GPUKB_MAX_INPUT_MB`` when set."""
        raw = os.environ.get(MAX_INPUT_ENV, "").strip()
        if not raw:
            return cls()
        try:
            mb = float(raw)
        except ValueError:
            mb = -1.0
        if not 0 < mb <= 4096:
            raise ConfigError(f"{MAX_INPUT_ENV}={raw[:40]!r}: expected a number of megabytes between 0 and 4096")
        return cls(max_bytes=int(mb * 2**20))

    @property
    def max_mb(self) -> str:
        mb = self.max_bytes / 2**20
        return f"{mb:g} MB"


@dataclass
class LoadedDocument:
    index: int
    data: Any
    parse_error: Finding | None = None
    problems: list[Finding] = field(default_factory=list)  # e.g. duplicate keys; the data is still usable


@dataclass
class LoadedFile:
    path: str
    documents: list[LoadedDocument] = field(default_factory=list)


# -- reading ---------------------------------------------------------------

def _too_large(name: str, limits: Limits) -> ManifestError:
    return ManifestError(name, f"larger than the {limits.max_mb} input limit (set {MAX_INPUT_ENV} to raise it)")


def _read_stream(stream: Any, name: str, limits: Limits) -> bytes | str:
    """Read a binary or text stream in chunks, refusing it past the limit."""
    parts: list[Any] = []
    total = 0
    while True:
        try:
            chunk = stream.read(_CHUNK)
        except UnicodeDecodeError as exc:  # a text stream that decodes by itself
            raise ManifestError(name, f"not valid UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise ManifestError(name, f"cannot read: {exc.strerror or exc}") from None
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        if total > limits.max_bytes:
            raise _too_large(name, limits)
    if parts and isinstance(parts[0], str):
        return "".join(parts)
    return b"".join(parts)


def decode_text(data: bytes | str, name: str) -> str:
    """Strict UTF-8 text; the error names the byte offset of the first bad byte."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates from a lenient decoder
            raise ManifestError(name, f"not valid UTF-8 (character {exc.start})") from None
        text = data
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ManifestError(
                name, f"not valid UTF-8 at byte {exc.start} ({exc.reason}); save the file as UTF-8") from None
    return text[1:] if text.startswith("\ufeff") else text


def read_input(path: str | Path, *, stdin: TextIO | None = None, limits: Limits | None = None,
               what: str = "") -> tuple[str, str]:
    """``(display name, text)`` of a file or of stdin (``-``), bounded and strictly UTF-8.

    Raises :class:`ManifestError` naming the input for a missing or
    unreadable path, an input over the size limit, or invalid UTF-8."""
    limits = limits or Limits.from_env()
    raw = str(path)
    if raw == "-":
        name = "<stdin>"
        stream = stdin if stdin is not None else sys.stdin
        data = _read_stream(getattr(stream, "buffer", stream), name, limits)
        return name, decode_text(data, name)
    p = Path(raw)
    label = f"{what} " if what else ""
    if p.is_dir():
        raise ManifestError(raw, f"is a directory, not a {label or 'YAML '}file")
    try:
        size = p.stat().st_size
        if p.is_file() and size > limits.max_bytes:
            raise _too_large(raw, limits)
        with open(p, "rb") as fh:
            data = _read_stream(fh, raw, limits)
    except FileNotFoundError:
        raise ManifestError(raw, f"no such {label}file") from None
    except ManifestError:
        raise
    except OSError as exc:
        raise ManifestError(raw, f"cannot read {label}file: {exc.strerror or exc}") from None
    return raw, decode_text(data, raw)


# -- parsing ---------------------------------------------------------------

class _Refused(Exception):
    """A document breaks a limit; the message says which and where."""


_LOADER: Any = None


def _loader() -> Any:
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml
    from yaml.constructor import ConstructorError

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # libyaml is ~20x faster
    merge_tag = "tag:yaml.org,2002:merge"

    class ManifestLoader(base):  # type: ignore[misc,valid-type]
        """SafeLoader that keeps timestamps as strings, accepts the ``=`` tag,
        builds only JSON shapes and records duplicate keys."""

        duplicates: list[tuple[str, int, int]]
        _tags: dict[str, str] = {}

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            # The implicit tag of a plain scalar depends on its text only, and
            # manifests repeat the same short texts (keys, enums) all the time.
            if kind is yaml.ScalarNode and implicit[0] and len(value) <= 64:
                tag = self._tags.get(value)
                if tag is None:
                    tag = super().resolve(kind, value, implicit)
                    if len(self._tags) < 50_000:
                        self._tags[value] = tag
                return tag
            return super().resolve(kind, value, implicit)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[tuple[str, str], int] = {}
                for key_node, _ in node.value:
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == merge_tag:
                        continue
                    key = (key_node.tag, key_node.value)
                    line = key_node.start_mark.line + 1
                    if key in seen:
                        self.duplicates.append((key_node.value, line, seen[key]))
                    else:
                        seen[key] = line
            return super().construct_mapping(node, deep=deep)

    ManifestLoader.yaml_implicit_resolvers = {
        ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def _as_str(loader: Any, node: Any) -> str:
        return str(node.value)

    def _int(loader: Any, node: Any) -> int:
        digits = sum(c.isalnum() for c in str(node.value))
        if digits > 1000:
            raise ConstructorError(None, None, "an integer with more than 1,000 digits", node.start_mark)
        value = yaml.SafeLoader.construct_yaml_int(loader, node)
        if abs(value).bit_length() > _MAX_INT_BITS:
            raise ConstructorError(None, None, "an integer with more than 1,000 digits", node.start_mark)
        return value

    def _set(loader: Any, node: Any) -> Any:
        data: dict[Any, Any] = {}
        yield data
        data.update(loader.construct_mapping(node))

    def _filled(gen: Any) -> Any:
        """What one of PyYAML's two-step constructors builds, once filled in."""
        value = next(gen)
        for _ in gen:
            pass
        return value

    def _omap(loader: Any, node: Any) -> Any:
        data: dict[Any, Any] = {}
        yield data
        data.update(_filled(yaml.SafeLoader.construct_yaml_omap(loader, node)))

    def _pairs(loader: Any, node: Any) -> Any:
        data: list[Any] = []
        yield data
        data.extend([list(p) for p in _filled(yaml.SafeLoader.construct_yaml_pairs(loader, node))])

    ManifestLoader.add_constructor("tag:yaml.org,2002:value", _as_str)
    ManifestLoader.add_constructor("tag:yaml.org,2002:timestamp", _as_str)
    ManifestLoader.add_constructor("tag:yaml.org,2002:binary", _as_str)
    ManifestLoader.add_constructor("tag:yaml.org,2002:int", _int)
    ManifestLoader.add_constructor("tag:yaml.org,2002:set", _set)
    ManifestLoader.add_constructor("tag:yaml.org,2002:omap", _omap)
    ManifestLoader.add_constructor("tag:yaml.org,2002:pairs", _pairs)
    _LOADER = ManifestLoader
    return _LOADER


def _measure(root: Any, limits: Limits) -> tuple[int, int, int, int]:
    """``(values as expanded, distinct values, characters as expanded, distinct
    characters)`` of a composed document, without expanding anything: aliased
    nodes are shared, so sizes are memoised. Raises :class:`_Refused` for a
    cycle or a document nested too deep."""
    import yaml

    seq, mapping = yaml.SequenceNode, yaml.MappingNode
    size: dict[int, int] = {}
    chars: dict[int, int] = {}
    own_chars = 0
    height: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        i = id(node)
        cls = node.__class__
        if done:
            open_.discard(i)
            kids = [x for kv in node.value for x in kv] if cls is mapping else node.value
            s, c, h = 1, 1, 0
            for k in kids:
                j = id(k)
                s += size[j]
                c += chars[j]
                if height[j] > h:
                    h = height[j]
            size[i], chars[i], height[i] = s, c, h + 1
            own_chars += 1
            if h + 1 > limits.max_depth:
                raise _Refused(f"line {node.start_mark.line + 1}: nested more than {limits.max_depth} levels deep")
            continue
        if cls is not seq and cls is not mapping:
            if i not in size:
                size[i] = height[i] = 1
                chars[i] = 1 + len(node.value)
                own_chars += chars[i]
            continue
        if i in size:
            continue
        if i in open_:
            raise _Refused(f"line {node.start_mark.line + 1}: an alias refers to a value that contains it")
        open_.add(i)
        stack.append((node, True))
        if cls is mapping:
            for k, v in node.value:
                stack.append((k, False))
                stack.append((v, False))
        else:
            stack.extend((v, False) for v in node.value)
    return size[id(root)], len(size), chars[id(root)], own_chars


class _Fallback(Exception):
    """A document needs PyYAML's own constructor (merge keys, !!set, unknown tags)."""


_CORE = "tag:yaml.org,2002:"
_STR, _MAP, _SEQ, _MERGE = _CORE + "str", _CORE + "map", _CORE + "seq", _CORE + "merge"
_SLOW_TAGS = {_CORE + "set", _CORE + "omap", _CORE + "pairs"}


def _build(root: Any, loader: Any, limits: Limits) -> tuple[Any, tuple[int, int, int, int], list[tuple[str, int, int]]]:
    """Construct a composed document in one pass that also measures it:
    ``(data, sizes, duplicate keys)``; sizes as :func:`_measure` gives them.

    Aliased nodes become shared objects (nothing is expanded) and their sizes
    are memoised, so the count of values as expanded costs nothing extra.
    Scalars use the loader's constructors, so values are exactly what the
    loader makes. Raises :class:`_Refused` for a cycle or a document nested
    too deep and :class:`_Fallback` for what only the full constructor
    handles."""
    import yaml
    from yaml.constructor import ConstructorError

    seq, mapping = yaml.SequenceNode, yaml.MappingNode
    constructors = loader.yaml_constructors
    obj: dict[int, Any] = {}
    size: dict[int, int] = {}
    chars: dict[int, int] = {}
    own_chars = 0
    height: dict[int, int] = {}
    open_: set[int] = set()
    dups: list[tuple[str, int, int]] = []
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        i = id(node)
        cls = node.__class__
        if done:
            open_.discard(i)
            s, c, h = 1, 1, 0
            if cls is mapping:
                d: dict[Any, Any] = {}
                for k, v in node.value:
                    ki, vi = id(k), id(v)
                    s += size[ki] + size[vi]
                    c += chars[ki] + chars[vi]
                    hk = max(height[ki], height[vi])
                    if hk > h:
                        h = hk
                    key = obj[ki]
                    try:
                        if key in d:
                            first = next(n.start_mark.line + 1 for n, _ in node.value if obj[id(n)] == key)
                            dups.append((str(key), k.start_mark.line + 1, first))
                        d[key] = obj[vi]
                    except TypeError:
                        raise ConstructorError("while constructing a mapping", node.start_mark,
                                               "found unhashable key", k.start_mark) from None
                obj[i] = d
            else:
                items = []
                for v in node.value:
                    vi = id(v)
                    s += size[vi]
                    c += chars[vi]
                    if height[vi] > h:
                        h = height[vi]
                    items.append(obj[vi])
                obj[i] = items
            size[i], chars[i], height[i] = s, c, h + 1
            own_chars += 1
            if h + 1 > limits.max_depth:
                raise _Refused(f"line {node.start_mark.line + 1}: nested more than {limits.max_depth} levels deep")
            continue
        if i in obj:
            continue
        tag = node.tag
        if cls is not seq and cls is not mapping:
            if tag == _STR:
                obj[i] = node.value
            else:
                fn = constructors.get(tag)
                if fn is None or tag in _SLOW_TAGS:
                    raise _Fallback
                obj[i] = fn(loader, node)
            size[i] = height[i] = 1
            chars[i] = 1 + len(node.value)
            own_chars += chars[i]
            continue
        if i in open_:
            raise _Refused(f"line {node.start_mark.line + 1}: an alias refers to a value that contains it")
        if tag != (_MAP if cls is mapping else _SEQ):
            raise _Fallback
        open_.add(i)
        stack.append((node, True))
        if cls is mapping:
            for k, v in node.value:
                if k.tag == _MERGE:
                    raise _Fallback
                stack.append((k, False))
                stack.append((v, False))
        else:
            stack.extend((v, False) for v in node.value)
    r = id(root)
    return obj[r], (size[r], len(size), chars[r], own_chars), dups


def _parse_finding(exc: Exception) -> Finding:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return Finding("yaml-parse", "error", "", f"invalid YAML: {where}{problem[:200]}")


def _duplicate_finding(key: str, line: int, first: int) -> Finding:
    from ..output import short

    return Finding("duplicate-key", "error", "",
                   f"duplicate key {short(key)} at line {line} (first at line {first}): the API server and "
                   "kubectl reject duplicate fields; YAML loaders keep only the last one")


def load_text(text: str, path: str = "<string>", *, limits: Limits | None = None) -> LoadedFile:
    """Parse a multi-document YAML string into a :class:`LoadedFile` (bounded; see the module doc)."""
    import yaml

    limits = limits or Limits.from_env()
    out = LoadedFile(path=path)
    if len(text) > limits.max_bytes:
        raise _too_large(path, limits)
    loader = _loader()(text)
    loader.duplicates = []
    alias_values, alias_chars = limits.max_alias_values, limits.max_alias_chars
    index = 0
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                try:
                    data, sizes, dups = _build(node, loader, limits)
                    fallback = False
                except _Fallback:
                    sizes = _measure(node, limits)
                    fallback = True
                expanded, distinct, expanded_chars, distinct_chars = sizes
                alias_values -= expanded - distinct
                alias_chars -= expanded_chars - distinct_chars
                if alias_values < 0:
                    raise _Refused(
                        f"aliases expand this document to {expanded:,} values; at most "
                        f"{limits.max_alias_values:,} may come from aliases (Kubernetes refuses excessive "
                        "aliasing too)")
                if alias_chars < 0:
                    raise _Refused(
                        f"aliases expand this document to {expanded_chars:,} characters; at most "
                        f"{limits.max_alias_chars:,} may come from aliases (Kubernetes refuses excessive "
                        "aliasing too)")
                if fallback:
                    loader.duplicates = []
                    data = loader.construct_document(node)
                    dups = loader.duplicates
                if data is not None:
                    problems = [_duplicate_finding(*d) for d in dups]
                    out.documents.append(LoadedDocument(index=index, data=data, problems=problems))
            index += 1
    except yaml.YAMLError as exc:
        out.documents.append(LoadedDocument(index=index, data=None, parse_error=_parse_finding(exc)))
    except _Refused as exc:
        out.documents.append(LoadedDocument(
            index=index, data=None, parse_error=Finding("yaml-parse", "error", "", f"refused: {exc}")))
    except RecursionError:
        out.documents.append(LoadedDocument(
            index=index, data=None,
            parse_error=Finding("yaml-parse", "error", "", f"nested more than {limits.max_depth} levels deep")))
    finally:
        loader.dispose()
    return out


def load_document(path: str | Path, *, what: str = "YAML", stdin: TextIO | None = None,
                  limits: Limits | None = None) -> Any:
    """The one YAML document of a small input (a values file, a cluster profile).

    ``None`` for an empty file. Raises :class:`ManifestError` naming the file
    for anything :func:`read_input` refuses, invalid YAML, a broken limit,
    duplicate keys or more than one document."""
    name, text = read_input(path, stdin=stdin, limits=limits, what=what)
    loaded = load_text(text, name, limits=limits)
    for doc in loaded.documents:
        if doc.parse_error is not None:
            raise ManifestError(name, doc.parse_error.message)
        if doc.problems:
            raise ManifestError(name, doc.problems[0].message)
    if len(loaded.documents) > 1:
        raise ManifestError(name, f"expected one YAML document, found {len(loaded.documents)}")
    return loaded.documents[0].data if loaded.documents else None


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


def load_paths(paths: Iterable[str], *, stdin: TextIO | None = None, limits: Limits | None = None) -> list[LoadedFile]:
    """Read every path (``-`` is stdin) into :class:`LoadedFile` objects."""
    limits = limits or Limits.from_env()
    files: list[LoadedFile] = []
    for path in expand_paths(paths):
        name, text = read_input(path, stdin=stdin, limits=limits)
        files.append(load_text(text, name, limits=limits))
    return files


# -- kind: List --------------------------------------------------------------

def is_list(doc: Any) -> bool:
    """A ``v1`` ``kind: List`` whose ``items`` is a list."""
    return (isinstance(doc, dict) and doc.get("kind") == "List" and doc.get("apiVersion") == "v1"
            and isinstance(doc.get("items"), list))


def list_items(doc: Any, prefix: str = "", limits: Limits | None = None) -> Iterator[tuple[str, Any, str | None]]:
    """Flatten a ``kind: List`` (nested Lists too): ``(path, item, problem)`` per item.

    ``problem`` is ``None`` for an item to check, or a message for a nested
    List past ``max_list_depth`` or the first item past ``max_list_items``
    (the rest are not visited). Anything that is not a List yields itself."""
    limits = limits or Limits()
    if not is_list(doc):
        yield prefix, doc, None
        return
    count = 0
    stack: list[tuple[str, Iterator[tuple[int, Any]], int]] = [(prefix, enumerate(doc["items"]), 1)]
    while stack:
        path, items, depth = stack[-1]
        nxt = next(items, None)
        if nxt is None:
            stack.pop()
            continue
        i, item = nxt
        p = f"{path}.items[{i}]" if path else f"items[{i}]"
        if is_list(item):
            if depth >= limits.max_list_depth:
                yield p, item, f"kind: List nested more than {limits.max_list_depth} levels deep; not checked"
            else:
                stack.append((p, enumerate(item["items"]), depth + 1))
            continue
        count += 1
        if count > limits.max_list_items:
            yield p, item, f"more than {limits.max_list_items:,} objects in one kind: List; the rest are not checked"
            return
        yield p, item, None
