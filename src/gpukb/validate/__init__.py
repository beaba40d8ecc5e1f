"""Schema and semantic validation of Kubernetes manifests.

* Core kinds are validated against the JSON schemas shipped in the
  ``kubernetes-validate`` package (``--k8s-version`` picks the version; the
  newest shipped is the default). ``strict=True`` uses the ``-strict``
  variant, which rejects unknown fields.
* Custom resources are validated against the built-in schemas in
  ``gpukb/schemas/crds`` (ClusterPolicy, Volcano Job/Queue/PodGroup,
  Coscheduling PodGroup, PyTorchJob, MPIJob, Karpenter NodePool and
  EC2NodeClass) or against CRDs given with ``crd_dirs``/``crd_files`` /
  ``extra_schemas`` (these win over built-ins). ``null`` map values of custom
  resources are pruned and schema defaults filled in before validation, as
  the API server does.
* :mod:`gpukb.rules.admission` adds the checks the API server or an
  admission webhook applies beyond the schema (GPU limits, Indexed Jobs,
  Volcano minAvailable, PyTorchJob/MPIJob replica rules...).
* Unparseable YAML becomes a ``yaml-parse`` finding on that file (the other
  files are still checked); a missing or unreadable path raises
  :class:`~gpukb.errors.ManifestError`.
* A ``kind: List`` is one document; findings inside it carry ``items[i].``
  paths. Nested Lists are flattened, bounded in depth and item count
  (:func:`gpukb.k8s.manifests.list_items`).
* Duplicate keys are ``duplicate-key`` errors. Messages quote values in a
  short, truncated form (:func:`gpukb.output.short`), whatever their size.

Rule ids of schema-level findings: ``schema``, ``unknown-kind``,
``missing-kind``, ``not-an-object``, ``yaml-parse``, ``duplicate-key``.
"""

from __future__ import annotations

from typing import Any, Iterable, TextIO

from ..findings import DocumentResult, FileResult, Finding, Report, Severity
from ..k8s.manifests import is_list, list_items
from .crd import crd_to_jsonschema, load_crd_schemas

__all__ = [
    "validate_documents",
    "validate_files",
    "load_crd_schemas",
    "crd_to_jsonschema",
    "available_versions",
    "Validator",
]


def available_versions() -> list[str]:
    from .core import available_versions as _av

    return _av()


def _doc_name(doc: Any) -> str | None:
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    if isinstance(meta, dict):
        name = meta.get("name") or meta.get("generateName")
        return str(name) if name is not None else None
    return None


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else (None if v is None else str(v))


def _prune_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _prune_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_prune_nulls(v) for v in value]
    return value


def _short(value: Any, limit: int = 60) -> str:
    from ..output import short

    return short(value, limit)


def _key(k: Any) -> str:
    """A field name for a message: as is when short, else truncated."""
    text = k if isinstance(k, str) else _short(k)
    return text if len(text) <= 80 else text[:77] + "..."


_MAX_MESSAGE = 500
_MAX_PATH = 300


def _bounded(findings: list[Finding]) -> list[Finding]:
    """Findings with messages and paths cut to a readable length."""
    for f in findings:
        if len(f.message) > _MAX_MESSAGE:
            f.message = f.message[: _MAX_MESSAGE - 3] + "..."
        if len(f.path) > _MAX_PATH:
            f.path = f.path[: _MAX_PATH - 3] + "..."
    return findings


_PY_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}


def _error_findings(err: Any, prefix: str) -> list[Finding]:
    from ..k8s.walk import json_path

    path = json_path(prefix, *list(err.absolute_path)) if prefix else json_path("", *list(err.absolute_path))
    v = err.validator
    if v == "additionalProperties" and isinstance(err.instance, dict):
        schema = err.schema if isinstance(err.schema, dict) else {}
        known = set(schema.get("properties") or {})
        import re as _re

        patterns = [_re.compile(p) for p in (schema.get("patternProperties") or {})]
        extras = [k for k in err.instance if k not in known and not any(p.search(str(k)) for p in patterns)]
        if extras:
            return [
                Finding("schema", "error", json_path(path, _key(k)) if path else _key(k), f'unknown field "{_key(k)}"')
                for k in extras
            ]
    if v == "required" and isinstance(err.instance, dict):
        missing = [r for r in err.validator_value if r not in err.instance]
        if missing:
            return [
                Finding("schema", "error", json_path(path, r) if path else r, f'missing required field "{_key(r)}"')
                for r in missing
            ]
    if v == "type":
        want = err.validator_value
        want_s = " or ".join(w for w in (want if isinstance(want, list) else [want]) if w != "null")
        got = _PY_TYPES.get(type(err.instance), type(err.instance).__name__)
        return [Finding("schema", "error", path, f"expected {want_s}, got {got} {_short(err.instance)}")]
    if v == "enum":
        allowed = ", ".join(_short(a) for a in list(err.validator_value)[:20] if a is not None)
        return [Finding("schema", "error", path, f"Unsupported value: {_short(err.instance)}: supported values: {allowed}")]
    if v == "const":
        return [Finding("schema", "error", path, f"must be {_short(err.validator_value)}, got {_short(err.instance)}")]
    if v in ("oneOf", "anyOf") and err.context:
        from jsonschema.exceptions import best_match

        best = best_match(err.context)
        if best is not None and best.validator not in ("oneOf", "anyOf"):
            msg = best.message
            return [Finding("schema", "error", path, msg if len(msg) <= 200 else msg[:197] + "...")]
    msg = err.message
    if len(msg) > 200:
        msg = msg[:197] + "..."
    return [Finding("schema", "error", path, msg)]


class Validator:
    """Validates documents for one Kubernetes version and one set of CRD schemas.

    Building one and reusing it is cheaper than calling
    :func:`validate_documents` many times with the same CRDs.
    """

    def __init__(
        self,
        *,
        k8s_version: str | None = None,
        extra_schemas: dict | None = None,
        allow_unknown: bool = False,
        strict: bool = True,
        categories: tuple[str, ...] = ("admission",),
        profile: Any = None,
    ) -> None:
        """``categories``: which rule categories run after the schemas
        (``admission`` for validate; ``admission`` and ``advice`` for lint).
        ``profile``: the cluster profile advice rules may read."""
        from .core import resolve_version

        self.version = resolve_version(k8s_version)
        self.categories = tuple(categories)
        self.profile = profile
        self.strict = strict
        self.allow_unknown = allow_unknown
        self.extra_schemas = dict(extra_schemas or {})
        self._validators: dict[tuple[str, str, str], Any] = {}

    # -- schema lookup -------------------------------------------------
    def _custom_validator(self, gvk: tuple[str, str, str]) -> Any | None:
        if gvk in self._validators:
            return self._validators[gvk]
        from .core import make_validator
        from .crd import builtin_crd_schemas, relax

        schema = self.extra_schemas.get(gvk)
        if schema is None:
            schema = builtin_crd_schemas().get(gvk)
        if schema is None:
            self._validators[gvk] = None
            return None
        if not self.strict:
            schema = relax(schema)
        validator = make_validator(schema, self.version, self.strict)
        self._validators[gvk] = validator
        return validator

    def _known_versions(self, group: str, kind: str) -> list[str]:
        from .core import core_kinds
        from .crd import builtin_crd_schemas

        out = set()
        for g, v, k in list(core_kinds(self.version, self.strict)) + list(builtin_crd_schemas()) + list(self.extra_schemas):
            if g == group and k == kind:
                out.add(f"{g}/{v}" if g else v)
        return sorted(out)

    # -- validation ----------------------------------------------------
    def findings(self, doc: Any, prefix: str = "", index: Any = None) -> list[Finding]:
        """Every finding for one document; paths are prefixed with ``prefix``.

        ``index`` (a :class:`~gpukb.rules.DocumentIndex`) holds the other
        documents of the run for cross-document rules."""
        from ..k8s.walk import json_path
        from ..rules import run_rules

        if not isinstance(doc, dict):
            return [
                Finding(
                    "not-an-object",
                    "error",
                    prefix,
                    f"document is a {_PY_TYPES.get(type(doc), type(doc).__name__)}, not a Kubernetes object",
                )
            ]
        api, kind = doc.get("apiVersion"), doc.get("kind")
        if is_list(doc):
            out: list[Finding] = []
            for path, item, problem in list_items(doc, prefix):
                if problem is not None:
                    out.append(Finding("list-limit", "error", path, problem))
                else:
                    out.extend(self.findings(item, path, index))
            return out
        if not isinstance(api, str) or not api or not isinstance(kind, str) or not kind:
            missing = [k for k, v in (("apiVersion", api), ("kind", kind)) if not isinstance(v, str) or not v]
            sev: Severity = "info" if self.allow_unknown else "error"
            return [
                Finding(
                    "missing-kind",
                    sev,
                    prefix,
                    f"not a Kubernetes object: {' and '.join(missing)} missing"
                    + (f" (top-level keys: {', '.join(_key(k) for k in list(doc)[:6])})" if doc else ""),
                )
            ]
        group, _, version = api.rpartition("/")
        gvk = (group, version, kind)
        out = []
        from .core import core_fast_check, core_validator

        validator = None
        custom = False
        if gvk in self.extra_schemas:
            validator, custom = self._custom_validator(gvk), True
        else:
            validator = core_validator(self.version, self.strict, *gvk)
            if validator is None:
                validator = self._custom_validator(gvk)
                custom = validator is not None
        if validator is None:
            others = self._known_versions(group, kind)
            hint = f"; known: {', '.join(others)} {kind}" if others else "; pass its CRD with --crd or --crd-dir"
            sev = "info" if self.allow_unknown else "error"
            out.append(
                Finding(
                    "unknown-kind",
                    sev,
                    json_path(prefix, "kind") if prefix else "kind",
                    f"no schema for {_key(api)} {_key(kind)} (Kubernetes {self.version}){hint}",
                )
            )
        else:
            if custom:
                from .crd import apply_defaults

                instance = apply_defaults(_prune_nulls(doc), validator.schema)
            else:
                instance = doc
            fast = None if custom else core_fast_check(self.version, self.strict, *gvk)
            if fast is not None and fast(instance):
                errors = []  # certainly valid: jsonschema would find nothing
            else:
                errors = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
            for err in errors:
                out.extend(_error_findings(err, prefix))
            if custom and isinstance(instance.get("metadata"), dict):
                out.extend(self._metadata_findings(instance["metadata"], json_path(prefix, "metadata") if prefix else "metadata"))
        if self.categories:
            out.extend(run_rules(doc, index=index, profile=self.profile, categories=self.categories, prefix=prefix))
        return out

    def _metadata_findings(self, meta: dict[str, Any], path: str) -> list[Finding]:
        from .core import DEFINITIONS_ID, make_validator

        key = ("", "__meta__", "ObjectMeta")
        v = self._validators.get(key)
        if v is None:
            v = make_validator(
                {"$ref": f"{DEFINITIONS_ID}#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
                self.version,
                self.strict,
            )
            self._validators[key] = v
        out: list[Finding] = []
        for err in v.iter_errors(meta):
            out.extend(_error_findings(err, path))
        return out

    def document_result(self, doc: Any, index: int, docs: Any = None) -> DocumentResult:
        d = doc if isinstance(doc, dict) else {}
        return DocumentResult(
            index=index,
            apiVersion=_str_or_none(d.get("apiVersion")),
            kind=_str_or_none(d.get("kind")),
            name=_doc_name(d),
            findings=_bounded(self.findings(doc, index=docs)),
        )


def _flat(doc: Any) -> list[dict[str, Any]]:
    """The objects of a document; a v1 List yields its items (nested Lists too, bounded)."""
    return [item for _, item, problem in list_items(doc) if problem is None and isinstance(item, dict)]


def _notices(objects: list[dict[str, Any]], categories: tuple[str, ...], profile: Any) -> list[str]:
    if "advice" not in categories:
        return []
    from ..k8s.walk import group_of
    from ..rules import skipped_for_profile

    kinds = {(group_of(o)[0], o["kind"]) for o in objects if isinstance(o.get("kind"), str)}
    skipped = skipped_for_profile(kinds, profile)
    if not skipped:
        return []
    ids = ", ".join(r.id for r in skipped)
    return [f"{len(skipped)} rule{'s' if len(skipped) != 1 else ''} need a cluster profile and were skipped: {ids} "
            "(see `gpukb lint --help`, option --profile)"]


def validate_documents(
    docs: list[Any],
    *,
    k8s_version: str | None = None,
    extra_schemas: dict | None = None,
    allow_unknown: bool = False,
    strict: bool = True,
    categories: tuple[str, ...] = ("admission",),
    profile: Any = None,
) -> list[DocumentResult]:
    """Validate parsed documents; one :class:`DocumentResult` per document, ``index`` = position.

    ``extra_schemas`` maps ``(group, version, kind)`` to a JSON Schema (for
    example from :func:`load_crd_schemas`); it wins over the built-in schemas.
    ``categories`` selects the rules run after the schemas (see
    :mod:`gpukb.rules`). Raises :class:`~gpukb.errors.UsageError` for an
    unknown ``k8s_version``.
    """
    from ..rules import DocumentIndex

    v = Validator(k8s_version=k8s_version, extra_schemas=extra_schemas, allow_unknown=allow_unknown, strict=strict,
                  categories=categories, profile=profile)
    index = DocumentIndex(o for d in docs for o in _flat(d))
    return [v.document_result(doc, i, index) for i, doc in enumerate(docs)]


def validate_files(
    paths: list[str],
    *,
    k8s_version: str | None = None,
    crd_dirs: Iterable[str] = (),
    crd_files: Iterable[str] = (),
    allow_unknown: bool = False,
    stdin: TextIO | None = None,
    strict: bool = True,
    categories: tuple[str, ...] = ("admission",),
    profile: Any = None,
) -> Report:
    """Validate manifest files (``-`` = stdin; directories recursively, ``*.yaml``/``*.yml``).

    Schemas first, then the rules of ``categories`` (``admission`` by
    default; ``gpukb lint`` adds ``advice``). Cross-document rules see the
    documents of all files together. Raises
    :class:`~gpukb.errors.ManifestError` for a missing/unreadable path or a
    broken CRD file, :class:`~gpukb.errors.UsageError` for an unknown version.
    Unparseable YAML is reported as a ``yaml-parse`` finding.
    """
    from ..k8s.manifests import load_paths
    from ..rules import DocumentIndex

    extra: dict = {}
    crd_sources = [*crd_dirs, *crd_files]
    if crd_sources:
        extra.update(load_crd_schemas(crd_sources, strict=strict))
    v = Validator(k8s_version=k8s_version, extra_schemas=extra, allow_unknown=allow_unknown, strict=strict,
                  categories=categories, profile=profile)
    loaded_files = load_paths(paths, stdin=stdin)
    objects = [o for f in loaded_files for d in f.documents if d.parse_error is None for o in _flat(d.data)]
    index = DocumentIndex(objects)
    report = Report(notices=_notices(objects, tuple(categories), profile))
    for loaded in loaded_files:
        fr = FileResult(path=loaded.path)
        for d in loaded.documents:
            if d.parse_error is not None:
                fr.documents.append(DocumentResult(d.index, None, None, None, [d.parse_error]))
            else:
                res = v.document_result(d.data, d.index, index)
                res.findings[:0] = d.problems
                fr.documents.append(res)
        report.files.append(fr)
    return report
