"""Recipe catalogue, rendering, golden files, validation and recipe-file errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import require_upstream
import yaml

from gpukb.cli import main
from gpukb.errors import ParameterError, RecipeError
from gpukb.recipes import find_recipe, golden_path, load_recipe_file, load_recipes, render_recipe
from gpukb.recipes.check import check_recipes
from gpukb.recipes.template import dump_documents, evaluate

ROOT = Path(__file__).resolve().parents[1]
RECIPES_DIR = ROOT / "recipes"
UPSTREAM = Path(__file__).resolve().parents[1].parent / "shared" / "upstream"

def _kb_ids() -> set[str]:
    from gpukb.knowledge import load_kb

    return {d.id for d in load_kb(Path(__file__).resolve().parents[1] / "kb")}


KB_DOC_IDS = _kb_ids()

RECIPES = load_recipes(RECIPES_DIR)
EXAMPLES = [(r, ex) for r in RECIPES for ex in r.examples]


def _ids(val):
    if isinstance(val, tuple):
        return f"{val[0].id}--{val[1]['name']}"
    return None


# ------------------------------------------------------------------ catalogue

def test_catalogue_size_and_coverage():
    assert len(RECIPES) >= 22
    kinds = {k for r in RECIPES for k in r.kinds}
    for kind in ("ClusterPolicy", "ConfigMap", "Deployment", "Service", "Pod", "Job", "PyTorchJob", "MPIJob",
                 "Queue", "PodGroup", "ResourceQuota", "LimitRange", "PriorityClass", "Namespace", "NodePool",
                 "EC2NodeClass", "PersistentVolumeClaim", "PersistentVolume", "StorageClass"):
        assert kind in kinds, kind


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.id)
def test_recipe_metadata(recipe):
    assert recipe.examples, "every recipe needs an example"
    assert set(recipe.docs) <= KB_DOC_IDS, set(recipe.docs) - KB_DOC_IDS
    assert recipe.path.parent.name == recipe.area
    for name, spec in recipe.properties.items():
        assert spec.get("description"), name


# ------------------------------------------------------------ golden + valid

@pytest.mark.parametrize("case", EXAMPLES, ids=_ids)
def test_example_matches_golden_and_validates(case):
    recipe, ex = case
    out = render_recipe(recipe, ex["params"])
    gp = golden_path(recipe, ex["name"])
    assert gp.is_file(), f"missing golden file {gp}"
    assert out.yaml == gp.read_text(encoding="utf-8")
    errors = [i for i in out.issues if i["severity"] == "error"]
    assert out.valid and not errors, errors
    docs = list(yaml.safe_load_all(out.yaml))
    assert docs == out.documents
    from gpukb.recipes.check import _runs

    assert _runs([d["kind"] for d in docs]) == _runs(recipe.kinds)  # a $for entry renders a run of one kind


@pytest.fixture(scope="module")
def upstream_crd_schemas():
    require_upstream()
    from gpukb.validate.crd import load_crd_schemas

    index = json.loads((UPSTREAM / "index.json").read_text(encoding="utf-8"))
    files = [UPSTREAM / e["path"] for e in index
             if any(k.get("kind") == "CustomResourceDefinition" for k in e.get("kinds", []))]
    schemas = load_crd_schemas(files)
    assert schemas
    return schemas


@pytest.mark.parametrize("case", EXAMPLES, ids=_ids)
def test_example_validates_against_upstream_crds(case, upstream_crd_schemas):
    from gpukb.validate import validate_documents

    recipe, ex = case
    out = render_recipe(recipe, ex["params"], validate=False)
    custom = set()
    for d in out.documents:
        group, _, version = d["apiVersion"].rpartition("/")
        builtin = "." not in group or (group.endswith(".k8s.io") and not group.endswith("x-k8s.io"))
        if not builtin:
            custom.add((group, version, d["kind"]))
    missing = sorted(gvk for gvk in custom if gvk not in upstream_crd_schemas)
    if missing and len(missing) == len(custom):
        pytest.skip(f"../shared/upstream has no CRD for {missing}; the bundled schema is checked by the golden test")
    results = validate_documents(out.documents, extra_schemas=upstream_crd_schemas)
    errors = [(r.kind, f.path, f.message) for r in results for f in r.findings if f.severity == "error"]
    assert not errors, errors


def test_check_recipes_all_ok():
    checks = check_recipes(RECIPES_DIR)
    assert len(checks) == len(RECIPES)
    assert all(c.ok for c in checks), [p for c in checks for p in c.problems]


# ------------------------------------------------------------ parameters

def test_defaults_applied_and_reported():
    r = find_recipe("volcano-job", RECIPES)
    out = render_recipe(r, {"workers": 3})
    assert out.params["workers"] == 3
    assert out.params["queue"] == "default"
    job = out.documents[0]
    assert job["spec"]["minAvailable"] == 3
    assert job["spec"]["schedulerName"] == "volcano"
    assert set(job["spec"]["plugins"]) == {"svc", "env", "ssh"}


@pytest.mark.parametrize(
    "params, parameter, constraint",
    [
        ({"workers": 0}, "workers", "minimum"),
        ({"workers": "four"}, "workers", "type"),
        ({"name": "Bad_Name"}, "name", "pattern"),
        ({"name": "ok\n---\nkind: Secret"}, "name", "pattern"),
        ({"queue": "{{ evil }}"}, "queue", "pattern"),
        ({"nope": 1}, "nope", "unknown parameter"),
    ],
)
def test_bad_parameters_name_parameter_and_constraint(params, parameter, constraint):
    r = find_recipe("volcano-job", RECIPES)
    with pytest.raises(ParameterError) as ei:
        render_recipe(r, params)
    msg = str(ei.value)
    assert ei.value.parameter == parameter
    assert f"parameter '{parameter}'" in msg and constraint in msg
    assert "\n" not in msg


def test_fsx_capacity_constraint():
    r = find_recipe("fsx-lustre-dynamic", RECIPES)
    with pytest.raises(ParameterError) as ei:
        render_recipe(r, {"storage_gib": 1300})
    assert ei.value.parameter == "storage_gib"
    assert render_recipe(r, {"storage_gib": 4800}).documents[1]["spec"]["resources"]["requests"]["storage"] == "4800Gi"
    with pytest.raises(ParameterError) as ei:
        render_recipe(r, {"deployment_type": "PERSISTENT_1", "throughput": 500})
    assert ei.value.parameter == "throughput"


def test_free_text_values_stay_literal():
    """Values that look like YAML structure end up as one literal string."""
    r = find_recipe("gpu-pod", RECIPES)
    nasty = ["echo hi\n---\napiVersion: v1\nkind: Secret", "{{ .Values.x }}", "!!python/object:os.system",
             "&anchor", "*alias", "key: value", "- item", "# comment", "'quoted'", '"dq"', "|", "%TAG"]
    out = render_recipe(r, {"command": nasty})
    docs = list(yaml.safe_load_all(out.yaml))
    assert len(docs) == 1
    assert docs[0]["spec"]["containers"][0]["command"] == nasty
    assert "!!" not in out.yaml.replace("'!!python/object:os.system'", "")
    assert "&anchor" not in out.yaml.replace("'&anchor'", "")


def test_object_parameter_keys_are_data():
    r = find_recipe("mig-config", RECIPES)
    with pytest.raises(ParameterError) as ei:
        render_recipe(r, {"mig_devices": {"1g.10gb\n---\nkind: Secret": 1}})
    assert ei.value.parameter == "mig_devices"


# ------------------------------------------------------------ template engine

def test_template_directives():
    tmpl = {
        "a": {"$param": "x"},
        "b": {"$if": {"$param": "flag"}, "then": "yes"},
        "c": [1, {"$for": {"$param": "items"}, "as": "it", "do": {"$format": "v-{it}"}}, 9],
        "d": {"$object": [{"key": {"$param": "k"}, "value": {"$add": [{"$param": "n"}, 1]}}]},
        "e": {"$format": "{missing}"},
        "f": {"$yaml": {"k": {"$param": "x"}}},
        "g": {"$ceildiv": [601, 10]},
    }
    out = evaluate(tmpl, {"x": "{it}", "flag": False, "items": ["p", "q"], "k": "key.with/dots", "n": 2})
    assert out == {"a": "{it}", "c": [1, "v-p", "v-q", 9], "d": {"key.with/dots": 3},
                   "f": "k: '{it}'\n", "g": 61}
    # a parameter value is never evaluated as a template
    out = evaluate({"a": {"$param": "x"}}, {"x": {"$param": "y"}, "y": "secret"})
    assert out == {"a": {"$param": "y"}}


def test_dump_has_no_anchors_or_tags():
    shared = {"k": "v"}
    text = dump_documents([{"a": shared, "b": shared}])
    assert "&" not in text and "*" not in text and "!!" not in text


# ------------------------------------------------------------ bad recipe files

def _copy_recipes(tmp_path: Path) -> Path:
    dst = tmp_path / "recipes"
    shutil.copytree(RECIPES_DIR / "_fragments", dst / "_fragments")
    (dst / "storage").mkdir()
    shutil.copy(RECIPES_DIR / "storage" / "rwx-dataset-pvc.yaml", dst / "storage")
    shutil.copytree(RECIPES_DIR / "storage" / "golden", dst / "storage" / "golden")
    return dst


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d.pop("title"), "title"),
        (lambda d: d.__setitem__("area", "nowhere"), "area"),
        (lambda d: d["parameters"]["properties"]["size"].__setitem__("type", "quantity"), "parameters.properties.size"),
        (lambda d: d["parameters"]["properties"]["size"].__setitem__("default", "2 TB"), "parameters.properties.size.default"),
        (lambda d: d["templates"][0]["metadata"].__setitem__("name", {"$param": "undeclared"}), "templates"),
        (lambda d: d["templates"][0]["metadata"].__setitem__("name", {"$eval": "x"}), "templates[0]"),
        (lambda d: d["examples"][0]["params"].__setitem__("size", "huge"), "examples[0].params.size"),
        (lambda d: d.__setitem__("extract", {"size": [{"regex": "("}]}), "extract.size[0].regex"),
        (lambda d: d.__setitem__("docs", []), "docs"),
    ],
)
def test_bad_recipe_file_names_file_and_field(tmp_path, mutate, field):
    rdir = _copy_recipes(tmp_path)
    path = rdir / "storage" / "rwx-dataset-pvc.yaml"
    data = yaml.safe_load(path.read_text())
    mutate(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(RecipeError) as ei:
        load_recipe_file(path)
    msg = str(ei.value)
    assert msg.startswith(str(path)), msg
    assert f": {field}" in msg, msg
    # and the CLI reports it in one line, exit 1, no traceback
    rc = main(["recipe", "validate", "--all", "--recipes-dir", str(rdir)])
    assert rc == 1


def test_invalid_yaml_recipe(tmp_path, capsys):
    rdir = _copy_recipes(tmp_path)
    path = rdir / "storage" / "rwx-dataset-pvc.yaml"
    path.write_text("id: [unclosed\n")
    rc = main(["recipe", "validate", "--all", "--recipes-dir", str(rdir)])
    err = capsys.readouterr().err
    assert rc == 1
    assert f"Error: {path}: invalid YAML at line" in err
    assert "Traceback" not in err


def test_golden_mismatch_detected(tmp_path):
    rdir = _copy_recipes(tmp_path)
    g = rdir / "storage" / "golden" / "rwx-dataset-pvc--default.yaml"
    g.write_text(g.read_text().replace("1Ti", "2Ti"))
    checks = check_recipes(rdir)
    assert not checks[0].ok
    assert "differs from" in checks[0].problems[0]


# ------------------------------------------------------------ CLI

def test_cli_render_and_set_types(capsys, tmp_path):
    rc = main(["recipe", "render", "karpenter-gpu-nodepool", "--set", "instance_families=g6e,p5",
               "--set", "gpu_limit=8", "--set", "taint=false", "--recipes-dir", str(RECIPES_DIR)])
    out = capsys.readouterr().out
    assert rc == 0
    docs = list(yaml.safe_load_all(out))
    pool = docs[0]
    assert pool["spec"]["limits"]["nvidia.com/gpu"] == "8"
    assert "taints" not in pool["spec"]["template"]["spec"]
    assert pool["spec"]["template"]["spec"]["requirements"][3]["values"] == ["g6e", "p5"]

    values = tmp_path / "v.yaml"
    values.write_text("workers: 3\nqueue: team-a\n")
    outfile = tmp_path / "out.yaml"
    rc = main(["recipe", "render", "volcano-job", "-f", str(values), "--set", "gpus=2", "-o", str(outfile),
               "--recipes-dir", str(RECIPES_DIR)])
    assert rc == 0
    job = yaml.safe_load(outfile.read_text())
    assert job["spec"]["queue"] == "team-a" and job["spec"]["tasks"][0]["replicas"] == 3


@pytest.mark.parametrize(
    "args, needle, code",
    [
        (["--set", "workers=lots"], "parameter 'workers': 'lots' is not an integer", 1),
        (["--set", "ssh=maybe"], "parameter 'ssh'", 1),
        (["--set", "workers=5000"], "parameter 'workers'", 1),
        (["--set", "noequals"], "expected key=value", 2),
        (["--set", "bogus=1"], "parameter 'bogus': unknown parameter", 1),
    ],
)
def test_cli_render_bad_input(capsys, args, needle, code):
    rc = main(["recipe", "render", "volcano-job", *args, "--recipes-dir", str(RECIPES_DIR)])
    err = capsys.readouterr().err
    assert rc == code
    assert needle in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("Error: ")


def test_cli_list_show_validate_json(capsys):
    assert main(["recipe", "list", "--json", "--recipes-dir", str(RECIPES_DIR)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in data["recipes"]} == {r.id for r in RECIPES}
    assert main(["recipe", "show", "volcano-job", "--recipes-dir", str(RECIPES_DIR)]) == 0
    out = capsys.readouterr().out
    assert "minAvailable" in out or "workers" in out
    assert main(["recipe", "show", "volcano-jb", "--recipes-dir", str(RECIPES_DIR)]) == 1
    assert "did you mean volcano-job" in capsys.readouterr().err
    assert main(["recipe", "validate", "volcano-job", "gpu-quota", "--json", "--recipes-dir", str(RECIPES_DIR)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(r["id"] for r in data["recipes"]) == ["gpu-quota", "volcano-job"] and data["errors"] == 0


@pytest.mark.parametrize("path", ["s3://ml-data/laion/2024", "s3://ml-data/laion/2024/"])
def test_an_s3_prefix_with_or_without_its_slash_gives_one_export_path(path):
    docs = render_recipe(find_recipe("fsx-lustre-dynamic"), {"s3_import_path": path, "deployment_type": "SCRATCH_2"}).documents
    sc = next(d for d in docs if d["kind"] == "StorageClass")
    assert sc["parameters"]["s3ExportPath"] == "s3://ml-data/laion/2024/export"
