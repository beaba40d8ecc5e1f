"""CRD openAPIV3Schema -> JSON Schema conversion, on small CRDs and on real upstream CRDs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import require_upstream
import yaml
from jsonschema import Draft202012Validator

from gpukb.errors import ManifestError
from gpukb.validate import validate_documents, validate_files
from gpukb.validate.crd import convert_openapi_schema, crd_to_jsonschema, load_crd_schemas

UPSTREAM = Path(__file__).resolve().parents[1].parent / "shared" / "upstream"


def crd(schema: dict, *, group="example.com", kind="Widget", versions=("v1",)) -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [
                {"name": v, "served": True, "storage": i == 0, "schema": {"openAPIV3Schema": schema}}
                for i, v in enumerate(versions)
            ],
        },
    }


def widget(spec, version="v1"):
    return {"apiVersion": f"example.com/{version}", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


def errors(schema, instance):
    return list(Draft202012Validator(schema).iter_errors(instance))


SPEC = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "integer", "minimum": 1},
                "note": {"type": "string", "nullable": True},
                "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "mode": {"type": "string", "enum": ["a", "b"], "nullable": True},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "embedded": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "empty": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}, "nullable": False},
                # fields named like JSON Schema keywords
                "properties": {"type": "object", "properties": {"type": {"type": "string"}, "items": {"type": "integer"}}},
                "type": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"required": {"type": "boolean"}}}},
            },
        }
    },
}


@pytest.fixture(scope="module")
def schema():
    out = crd_to_jsonschema(crd(SPEC))
    assert list(out) == [("example.com", "v1", "Widget")]
    return out[("example.com", "v1", "Widget")]


def test_nullable_allows_null_and_not_nullable_rejects_it(schema):
    assert errors(schema, widget({"size": 1, "note": None, "mode": None})) == []
    assert errors(schema, widget({"size": 1, "tags": None}))
    assert errors(schema, widget({"size": 1, "mode": "c"}))


def test_int_or_string(schema):
    assert errors(schema, widget({"size": 1, "port": 8080})) == []
    assert errors(schema, widget({"size": 1, "port": "http"})) == []
    assert errors(schema, widget({"size": 1, "port": 1.5}))
    assert errors(schema, widget({"size": 1, "port": [1]}))


def test_preserve_unknown_fields_and_embedded_resources_stay_open(schema):
    doc = widget({"size": 1, "free": {"anything": {"deep": [1]}},
                  "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {"x": 1}}})
    assert errors(schema, doc) == []
    emb = schema["properties"]["spec"]["properties"]["embedded"]
    assert {"apiVersion", "kind", "metadata"} <= set(emb["properties"])


def test_declared_objects_are_strict_and_maps_are_not(schema):
    assert errors(schema, widget({"size": 1, "extra": 1}))
    assert errors(schema, widget({"size": 1, "empty": {"x": 1}}))
    assert errors(schema, widget({"size": 1, "labels": {"a": "b", "c": "d"}})) == []
    assert errors(schema, {**widget({"size": 1}), "unexpected": 1})


def test_fields_named_like_keywords_are_fields(schema):
    ok = widget({"size": 1, "properties": {"type": "t", "items": 3}, "type": "x", "items": [{"required": True}]})
    assert errors(schema, ok) == []
    assert errors(schema, widget({"size": 1, "properties": {"type": 5}}))
    assert errors(schema, widget({"size": 1, "items": [{"required": "yes"}]}))
    spec_props = schema["properties"]["spec"]["properties"]
    assert set(spec_props["properties"]["properties"]) == {"type", "items"}


def test_required_minimum_and_root_fields(schema):
    assert errors(schema, widget({}))
    assert errors(schema, widget({"size": 0}))
    assert errors(schema, {**widget({"size": 1}), "apiVersion": "example.com/v2"})
    assert errors(schema, {**widget({"size": 1}), "metadata": {"name": "w", "labels": {"a": "b"}}}) == []


def test_non_strict_conversion_accepts_unknown_fields():
    s = crd_to_jsonschema(crd(SPEC), strict=False)[("example.com", "v1", "Widget")]
    assert errors(s, widget({"size": 1, "extra": 1})) == []


def test_exclusive_minimum_and_unserved_versions():
    c = crd({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}}}}}, versions=("v1", "v2"))
    c["spec"]["versions"][1]["served"] = False
    out = crd_to_jsonschema(c)
    assert list(out) == [("example.com", "v1", "Widget")]
    s = out[("example.com", "v1", "Widget")]
    assert errors(s, widget({"n": 0})) and errors(s, widget({"n": 1})) == []


def test_convert_does_not_mutate_its_input():
    src = copy.deepcopy(SPEC)
    convert_openapi_schema(src)
    assert src == SPEC


@pytest.mark.parametrize("bad", [{}, {"kind": "CustomResourceDefinition"}, {"kind": "CustomResourceDefinition", "spec": {"group": "g"}}])
def test_bad_crds_raise_value_error(bad):
    with pytest.raises(ValueError):
        crd_to_jsonschema(bad)


def test_crd_files_and_dirs_feed_validation(tmp_path):
    d = tmp_path / "crds"
    d.mkdir()
    (d / "widget.yaml").write_text(yaml.safe_dump(crd(SPEC)))
    (d / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert set(load_crd_schemas([d])) == {("example.com", "v1", "Widget")}
    m = tmp_path / "w.yaml"
    m.write_text(yaml.safe_dump(widget({"size": 1, "bogus": 2})))
    r = validate_files([str(m)], crd_dirs=[str(d)])
    assert [(f.rule, f.path) for f in r.files[0].documents[0].findings] == [("schema", "spec.bogus")]
    r = validate_files([str(m)], crd_files=[str(d / "widget.yaml")], strict=False)
    assert r.errors == 0
    (d / "broken.yaml").write_text("spec: [")
    with pytest.raises(ManifestError, match="broken.yaml"):
        load_crd_schemas([d])
    with pytest.raises(ManifestError):
        load_crd_schemas([tmp_path / "missing"])


# ---------------------------------------------------------------- real upstream CRDs


def _index():
    require_upstream()
    return json.loads((UPSTREAM / "index.json").read_text())


def _crds_by_repo(entries):
    out: dict[str, dict] = {}
    for e in entries:
        if e.get("crds"):
            repo_dir = e["path"].split("/", 1)[0]
            out.setdefault(repo_dir, {}).update(load_crd_schemas([UPSTREAM / e["path"]]))
    return out


def _load(path):
    return [d for d in yaml.safe_load_all((UPSTREAM / path).read_text()) if d]


def test_every_upstream_crd_converts_to_a_valid_json_schema():
    entries = _index()
    n = 0
    for schemas in _crds_by_repo(entries).values():
        for gvk, s in schemas.items():
            Draft202012Validator.check_schema(s)
            n += 1
    assert n >= 15


# Unknown fields the upstream index's check cannot see (it does not reject unknown
# fields); the API server drops them, or rejects them under strict field validation.
KNOWN_UNKNOWN_FIELDS = {
    # The sample sets hostPaths.rootFS, which the GPUCluster CRD does not declare.
    "NVIDIA__gpu-operator/config/samples/nvidia_v1alpha1_gpucluster.yaml": {"spec.hostPaths.rootFS"},
}


def test_upstream_crd_schemas_accept_what_the_api_server_accepts_and_reject_mutations():
    entries = _index()
    by_repo = _crds_by_repo(entries)
    checked = 0
    for e in entries:
        for check in e.get("crd_schema_check") or []:
            # "<Kind>/<name>: pass vs <repo> CRD" or "...: FAIL vs <repo> CRD: <why>"
            kind_name, _, verdict = check.partition(": ")
            repo = verdict.split(" vs ", 1)[1].split(" CRD", 1)[0].replace("/", "__")
            schemas = by_repo[repo]
            for doc in _load(e["path"]):
                if f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}" != kind_name:
                    continue
                res = validate_documents([doc], extra_schemas=schemas)[0]
                schema_errors = [
                    f for f in res.findings
                    if f.rule == "schema" and f.path not in KNOWN_UNKNOWN_FIELDS.get(e["path"], set())
                ]
                if verdict.startswith("pass"):
                    assert schema_errors == [], (e["path"], schema_errors)
                    bad = copy.deepcopy(doc)
                    bad.setdefault("spec", {})["notAField"] = 1
                    res = validate_documents([bad], extra_schemas=schemas)[0]
                    assert ("schema", "spec.notAField") in [(f.rule, f.path) for f in res.findings], e["path"]
                else:
                    assert schema_errors, (e["path"], "expected the upstream CRD to reject it")
                checked += 1
    assert checked >= 60
