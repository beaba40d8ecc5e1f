"""Hostile and unlucky input: every case ends with a one-line `Error:` or a
finding, bounded in time and memory, never an internal error.

Every command that reads a hostile input runs in a subprocess with a timeout
and an address-space limit (``resource.setrlimit`` in ``preexec_fn``), so a
regression fails the test instead of taking the machine down. The inputs are
generated small (:mod:`gpukb.hostile`). Timings are measured by
``gpukb bench --only robustness``, never asserted here.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import make_hash_embedder
from gpukb.errors import IndexDamagedError, ManifestError
from gpukb.hostile import alias_bomb, many_documents, write_inputs
from gpukb.k8s.manifests import Limits, list_items, load_document, load_text, read_input
from gpukb.output import clean, short

TESTS = Path(__file__).resolve().parent
TIMEOUT = 90  # generous: the machine may be busy; a hang still ends the test
MEMORY_MB = 500

# Runs the CLI with the hash embedder standing in for the real model, so
# commands that answer questions load in a second and fit the memory limit.
HASH_CLI = (
    "import sys\n"
    f"sys.path.insert(0, {str(TESTS)!r})\n"
    "from conftest import make_hash_embedder\n"
    "from gpukb.backends.registry import register_embedder\n"
    "for name in ('onnx', 'sentence-transformers'):\n"
    "    register_embedder(name, lambda **kw: make_hash_embedder())\n"
    "from gpukb.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _limit(memory_mb: int):
    def apply() -> None:
        size = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return apply


def gpukb(*args: str, stdin: bytes | str | Path | None = None, env: dict | None = None, memory_mb: int = MEMORY_MB,
          hash_model: bool = False, timeout: float = TIMEOUT) -> tuple[int, bytes, str]:
    """Run ``python -m gpukb ARGS`` bounded in time and memory: (exit code, stdout, stderr)."""
    cmd = [sys.executable, "-c", HASH_CLI, *args] if hash_model else [sys.executable, "-m", "gpukb", *args]
    kwargs: dict = {}
    if isinstance(stdin, Path):
        kwargs["stdin"] = open(stdin, "rb")
    elif stdin is not None:
        kwargs["input"] = stdin.encode() if isinstance(stdin, str) else stdin
    else:
        kwargs["stdin"] = subprocess.DEVNULL
    try:
        res = subprocess.run(cmd, capture_output=True, timeout=timeout, preexec_fn=_limit(memory_mb),
                             env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}, **kwargs)
    finally:
        if "stdin" in kwargs and hasattr(kwargs["stdin"], "close"):
            kwargs["stdin"].close()
    err = res.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    return res.returncode, res.stdout, err


def error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, err
    return lines[0]


def findings(stdout: bytes) -> list[dict]:
    report = json.loads(stdout)
    return [f for file in report["files"] for d in file["documents"] for f in d["findings"]]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    write_inputs(folder)
    return folder


# -- 1, 2: alias bombs and nested lists ----------------------------------------

@pytest.mark.parametrize("args", [
    ["recipe", "render", "gpu-pod", "-f", "{in}/values-bomb.yaml"],
    ["lint", "{in}/pod.yaml", "--profile", "{in}/profile-bomb.yaml"],
    ["validate", "{in}/widget.yaml", "--crd", "{in}/crd-bomb.yaml"],
    ["validate", "{in}/widget.yaml", "--crd", "{in}/crd-schema-bomb.yaml"],
])
def test_alias_bomb_in_an_input_file_is_an_error(hostile, args):
    code, _, err = gpukb(*[a.replace("{in}", str(hostile)) for a in args])
    assert code == 1
    assert "aliases expand this document to" in error_line(err)


@pytest.mark.parametrize("name", ["configmap-bomb.yaml", "nested-list.yaml"])
def test_alias_bomb_in_a_manifest_is_a_finding(hostile, name):
    code, out, _ = gpukb("validate", "--json", str(hostile / name))
    assert code == 1
    [f] = findings(out)
    assert f["rule"] == "yaml-parse" and "aliases expand" in f["message"]


def test_nested_kind_list_is_bounded_in_depth(hostile):
    code, out, _ = gpukb("lint", "--json", str(hostile / "deep-lists.yaml"))
    assert code == 1
    [f] = findings(out)
    assert f["rule"] == "list-limit" and "nested more than" in f["message"]


def test_kind_list_items_are_flattened_within_bounds():
    inner = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap"}, {"kind": "Pod"}]}
    doc = {"apiVersion": "v1", "kind": "List", "items": [inner, {"kind": "Service"}]}
    got = [(p, i.get("kind"), problem) for p, i, problem in list_items(doc)]
    assert got == [("items[0].items[0]", "ConfigMap", None), ("items[0].items[1]", "Pod", None),
                   ("items[1]", "Service", None)]
    many = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod"}] * 10}
    got = list(list_items(many, limits=Limits(max_list_items=3)))
    assert len(got) == 4 and got[-1][2] and "more than 3 objects" in got[-1][2]


def test_alias_expansion_is_counted_without_expanding():
    bomb = alias_bomb(levels=12)  # 9**12 values if expanded
    loaded = load_text(bomb + "x: *a11\n")
    assert loaded.documents[0].parse_error and "aliases expand" in loaded.documents[0].parse_error.message
    small = load_text("base: &b {cpu: 1, memory: 1Gi}\nrequests: *b\nlimits: *b\n")
    assert small.documents[0].data == {"base": {"cpu": 1, "memory": "1Gi"}, "requests": {"cpu": 1, "memory": "1Gi"},
                                       "limits": {"cpu": 1, "memory": "1Gi"}}
    budget = load_text("a: &a [1, 2, 3, 4]\nb: [*a, *a, *a]\n", limits=Limits(max_alias_values=10))
    assert budget.documents[0].parse_error and "at most 10" in budget.documents[0].parse_error.message


def test_recursive_alias_is_refused():
    loaded = load_text("a: &a [1, *a]\n")
    assert "refers to a value that contains it" in loaded.documents[0].parse_error.message


# -- 3: many documents stay linear ------------------------------------------------

def test_cross_document_facts_are_worked_out_once_per_run(monkeypatch, tmp_path):
    from gpukb.lint import lint_files
    from gpukb.rules import tenancy

    calls = []
    real = tenancy._quota_gpu_keys
    monkeypatch.setattr(tenancy, "_quota_gpu_keys", lambda doc: calls.append(1) or real(doc))
    f = tmp_path / "many.yaml"
    f.write_text(many_documents(500))
    lint_files([str(f)], profile={"multi_tenant_namespaces": ["team-1"]})
    quotas = 500 // 5
    assert len(calls) <= 2 * quotas  # once per quota (and its own rule), not once per (pod, quota)


# -- 4, 5: questions ----------------------------------------------------------------

@pytest.fixture
def hash_index(tiny_settings):
    from gpukb.ingest import ingest

    ingest(tiny_settings, embedder=make_hash_embedder())
    return tiny_settings


def _hash_env(settings) -> dict:
    return {"GPUKB_HOME": str(settings.home), "GPUKB_ROOT": str(settings.root)}


def test_invalid_utf8_question_fails_before_anything_loads(tmp_path):
    code, _, err = gpukb("ask", os.fsdecode(b"caf\xe9 \xff pending"), "--home", str(tmp_path / "none"))
    assert code == 1 and "not valid UTF-8 text at byte 3" in error_line(err)


def test_empty_question_and_empty_request_are_usage_errors(tmp_path):
    # no index: an empty question is rejected before the index (or the model) is opened
    code, _, err = gpukb("ask", "   ", "--home", str(tmp_path / "none"))
    assert code == 2 and "the question is empty" in error_line(err)
    code, _, err = gpukb("generate", " ")
    assert code == 2 and "empty request" in error_line(err)


def test_overlong_request_is_refused_not_truncated():
    code, _, err = gpukb("generate", "pytorchjob " + "9" * 100_000)
    assert code == 1 and "at most 4,000" in error_line(err)


def test_batch_ask_reports_a_bad_line_and_carries_on(hash_index, hostile):
    code, out, _ = gpukb("ask", "--json", "-", stdin=hostile / "questions-bad.txt", env=_hash_env(hash_index),
                         hash_model=True, memory_mb=4000)
    rows = [json.loads(line) for line in out.decode().splitlines()]
    assert code == 1 and len(rows) == 3
    assert rows[0]["question"] == "how do I cap team-a at 8 GPUs" and "answer" in rows[0]
    assert rows[1]["line"] == 2 and "not valid UTF-8 at byte 3" in rows[1]["error"]
    assert rows[2]["question"] == "what is MIG" and "answer" in rows[2]


def test_endless_stdin_line_ends_the_batch_with_an_error(tmp_path):
    code, _, err = gpukb("ask", "--json", "-", "--home", str(tmp_path / "none"), stdin=Path("/dev/zero"),
                         env={"GPUKB_MAX_INPUT_MB": "1"})
    assert code == 1 and "no end within 1 MB" in error_line(err)


def test_text_mode_prints_questions_as_text(hash_index):
    q = "why does [/foo] fail with [bold]x[/bold] \x1b[2J"
    code, out, err = gpukb("ask", "-", stdin=q + "\n", env=_hash_env(hash_index), hash_model=True, memory_mb=4000)
    assert code == 0, err
    text = out.decode()
    assert "[/foo]" in text and "[bold]x[/bold]" in text and "\x1b" not in text


def test_question_mostly_in_another_script_is_refused(hash_index):
    from gpukb.engine import Engine
    from gpukb.questions import foreign_share

    hash_index.answer.refuse_below = -1.0  # the hash embedder's cosines are low: answer anything in English
    engine = Engine(hash_index, embedder=make_hash_embedder())
    assert not engine.ask("how do I request nvidia.com/gpu in limits").refused
    assert engine.ask("如何为笔记本配置MIG切分策略？").refused
    assert engine.ask("Как ограничить число видеокарт для команды в кластере?").refused
    assert foreign_share("what does Insufficient nvidia.com/gpu mean, café") == 0.0
    assert foreign_share("如何在 Kubernetes 上配置 MIG 策略") > 0.5


# -- 6: nesting, encodings, endless files ------------------------------------------------

@pytest.mark.parametrize("name", ["deep900.yaml", "deep-cr.yaml"])
def test_deep_nesting_is_a_finding(hostile, name):
    code, out, _ = gpukb("validate", "--json", str(hostile / name))
    assert code == 1
    [f] = findings(out)
    assert f["rule"] == "yaml-parse" and "nested more than 100 levels deep" in f["message"]


def test_invalid_utf8_names_the_byte(hostile):
    code, _, err = gpukb("validate", "-", stdin=hostile / "latin1.yaml")
    assert code == 1 and "<stdin>: not valid UTF-8 at byte 51" in error_line(err)
    code, _, err = gpukb("recipe", "render", "gpu-pod", "-f", str(hostile / "values-latin1.yaml"))
    assert code == 1 and "values-latin1.yaml: not valid UTF-8 at byte 9" in error_line(err)


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_endless_input_is_refused_at_the_size_limit(source):
    args = ["validate", "/dev/zero"] if source == "file" else ["validate", "-"]
    code, _, err = gpukb(*args, stdin=Path("/dev/zero") if source == "stdin" else None,
                         env={"GPUKB_MAX_INPUT_MB": "2"})
    assert code == 1 and "larger than the 2 MB input limit" in error_line(err)


def test_size_limit_applies_to_regular_files(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + "  k: v\n" * 300_000)
    with pytest.raises(ManifestError, match="larger than the 1 MB input limit"):
        read_input(big, limits=Limits(max_bytes=2**20))
    code, _, err = gpukb("validate", str(big), env={"GPUKB_MAX_INPUT_MB": "1"})
    assert code == 1 and "input limit" in error_line(err)


def test_huge_integers_are_refused(hostile):
    code, out, _ = gpukb("validate", "--json", str(hostile / "bigint.yaml"))
    assert code == 1 and "more than 1,000 digits" in findings(out)[0]["message"]


def test_loader_builds_only_json_shapes():
    data = load_text("\ufeffa: !!binary aGVsbG8=\nb: !!set {x, y}\nc: !!omap [{k: 1}]\nd: !!pairs [{k: 1}, {k: 2}]\n"
                     "e: 2001-12-14\n").documents[0].data
    assert data == {"a": "aGVsbG8=", "b": {"x": None, "y": None}, "c": {"k": 1}, "d": [["k", 1], ["k", 2]],
                    "e": "2001-12-14"}
    bad = load_text("x: !custom 1\n").documents[0]
    assert bad.parse_error and "could not determine a constructor" in bad.parse_error.message


# -- 8: duplicate keys ---------------------------------------------------------------

def test_duplicate_keys_are_errors_with_their_lines(hostile, tmp_path):
    code, out, _ = gpukb("validate", "--json", str(hostile / "dupkeys.yaml"))
    assert code == 1
    dup = [f for f in findings(out) if f["rule"] == "duplicate-key"]
    assert len(dup) == 1 and "'name' at line 5 (first at line 4)" in dup[0]["message"]
    values = tmp_path / "values.yaml"
    values.write_text("gpus: 1\ngpus: 8\n")
    with pytest.raises(ManifestError, match="duplicate key 'gpus' at line 2"):
        load_document(values)
    merged = load_text("base: &b {a: 1}\nx:\n  <<: *b\n  a: 2\n").documents[0]
    assert not merged.problems and merged.data["x"] == {"a": 2}  # overriding a merged key is not a duplicate


# -- 9: terminal escapes ---------------------------------------------------------------

def test_escapes_never_reach_the_terminal(hostile, tmp_path):
    code, out, err = gpukb("validate", str(hostile / "escapes.yaml"))
    assert code == 1 and b"\x1b" not in out and "\x1b" not in err
    values = tmp_path / "v.yaml"
    values.write_text('name: "\\e[2J\\e]0;owned\\a"\n')
    code, out, err = gpukb("recipe", "render", "gpu-pod", "-f", str(values))
    assert code == 1 and "\x1b" not in err and "\x07" not in err
    code, out, err = gpukb("generate", "-", stdin="gpu pod \x1b[2J named x\n")
    assert b"\x1b" not in out and "\x1b" not in err


def test_messages_quote_values_in_short_form():
    x: list = ["lol"] * 9
    for _ in range(40):  # 9**40 strings if formatted in full
        x = [x] * 9
    assert len(short(x)) <= 60 and short(x).endswith("...")
    assert len(short("y" * 10**7)) <= 60
    assert short(2**20000) == "<20001-bit integer>"
    assert "\x1b" not in short("\x1b[2J") and clean("a\x1bb\x9bc") == "a\ufffdb\ufffdc"


def test_recipe_parameter_errors_are_bounded():
    from gpukb.errors import ParameterError
    from gpukb.recipes import find_recipe, load_recipes, resolve_params

    recipe = find_recipe("gpu-pod", load_recipes())
    with pytest.raises(ParameterError) as exc:
        resolve_params(recipe, {"name": ["x" * 10_000] * 100})
    assert len(str(exc.value)) < 300
    with pytest.raises(ParameterError) as exc:
        resolve_params(recipe, {"k" * 10**6: 1})
    assert len(str(exc.value)) < 400


def test_aliases_of_long_text_are_capped_by_characters(tmp_path):
    # 1,000 aliases of one 1 MB string: few values, but a gigabyte if a message quoted it
    values = tmp_path / "values.yaml"
    values.write_text('s: &s "' + "x" * 2**20 + '"\nname: [' + ", ".join(["*s"] * 1000) + "]\n")
    code, _, err = gpukb("recipe", "render", "gpu-pod", "-f", str(values))
    assert code == 1 and "characters; at most" in error_line(err)


# -- 7, 10, 11: the index ------------------------------------------------------------

def _published(home: Path) -> dict[str, tuple[int, int, bytes]]:
    out = {}
    for p in sorted((home / "generations").rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p.relative_to(home))] = (st.st_size, st.st_mtime_ns, p.read_bytes())
    out["CURRENT"] = (0, (home / "CURRENT").stat().st_mtime_ns, (home / "CURRENT").read_bytes())
    return out


def test_readers_never_write_to_the_published_index(hash_index):
    from gpukb.engine import Engine

    before = _published(hash_index.home)
    time.sleep(0.05)  # a rewrite would show in the mtimes
    for _ in range(2):  # two engines: one makes the readers' copy, one reuses it
        engine = Engine(hash_index, embedder=make_hash_embedder())
        engine.ask("how do I request nvidia.com/gpu in limits")
        engine.ask("ReadWriteMany volumes")
        assert engine.index.store.count() == engine.index.manifest["chunks"]  # opens Chroma too
        del engine
    assert _published(hash_index.home) == before


@pytest.mark.parametrize("damage, what", [
    ("rm-bm25", "bm25/"),
    ("rm-meta", "meta.sqlite: missing"),
    ("truncate-vectors", "vectors.npy: "),
    ("truncate-npy", "bytes, expected"),
    ("truncate-manifest", "manifest.json does not match the checksum in CURRENT"),
    ("rm-chroma", "chroma/"),
])
def test_damaged_index_is_reported_refused_and_rebuilt(hash_index, damage, what):
    import shutil

    from gpukb.index import current_generation, open_index
    from gpukb.ingest import index_status, ingest

    home = hash_index.home
    gen = home / "generations" / current_generation(home)
    if damage == "rm-bm25":
        shutil.rmtree(gen / "bm25")
    elif damage == "rm-meta":
        (gen / "meta.sqlite").unlink()
    elif damage == "truncate-vectors":
        v = gen / "vectors.npy"
        v.write_bytes(v.read_bytes()[:-64])
    elif damage == "truncate-npy":
        npy = next((gen / "bm25").glob("*.npy"))
        npy.write_bytes(npy.read_bytes()[:20])
    elif damage == "truncate-manifest":
        m = gen / "manifest.json"
        m.write_bytes(m.read_bytes()[:-10])
    else:
        shutil.rmtree(gen / "chroma")
    st = index_status(hash_index)
    assert st["state"] == "damaged" and any(what in p for p in st["problems"])
    with pytest.raises(IndexDamagedError, match="damaged .*run `gpukb ingest` to rebuild it"):
        open_index(hash_index)
    code, _, err = gpukb("status", "--home", str(home), env={"GPUKB_ROOT": str(hash_index.root)})
    assert code == 1
    code, _, err = gpukb("ask", "what is a quota", "--home", str(home), env={"GPUKB_ROOT": str(hash_index.root)})
    assert code == 1 and "is damaged" in error_line(err) and "gpukb ingest" in error_line(err)
    summary = ingest(hash_index, embedder=make_hash_embedder())  # a plain ingest, no --rebuild
    assert not summary.noop and summary.repaired
    assert index_status(hash_index, deep=True)["state"] == "current"


def test_changed_bytes_are_found_by_verify(hash_index):
    from gpukb.index import current_generation
    from gpukb.ingest import index_status

    p = hash_index.home / "generations" / current_generation(hash_index.home) / "meta.sqlite"
    data = bytearray(p.read_bytes())
    data[10] ^= 0x01  # same size, one bit flipped
    p.write_bytes(bytes(data))
    assert index_status(hash_index)["state"] == "current"  # sizes only: fast
    st = index_status(hash_index, deep=True)
    assert st["state"] == "damaged" and "meta.sqlite: contents differ" in st["problems"][0]


def test_partial_generation_is_removed_by_the_next_ingest(hash_index, monkeypatch):
    from gpukb import bm25 as bm25_mod
    from gpukb import ingest as ingest_mod

    def killed(*a, **kw):
        raise KeyboardInterrupt  # as if the process died while writing the keyword index

    monkeypatch.setattr(bm25_mod, "write_scores", killed)
    with pytest.raises(KeyboardInterrupt):
        ingest_mod.ingest(hash_index, embedder=make_hash_embedder(), rebuild=True)
    monkeypatch.undo()
    gens = sorted(p.name for p in (hash_index.home / "generations").iterdir())
    assert len(gens) == 2  # the published one and the partial one
    summary = ingest_mod.ingest(hash_index, embedder=make_hash_embedder())
    assert summary.noop
    assert sorted(p.name for p in (hash_index.home / "generations").iterdir()) == [summary.generation]


def test_current_never_leads_outside_the_home(hash_index, tmp_path):
    from gpukb.index import current_generation, open_index
    from gpukb.ingest import index_status

    home = hash_index.home
    outside = tmp_path / "elsewhere"
    (outside / "generations" / "g").mkdir(parents=True)
    (outside / "generations" / "g" / "manifest.json").write_text("{}")
    for name in ["../../elsewhere/generations/g", "/etc", "g-20260101T000000-abcdef/../..", 7]:
        (home / "CURRENT").write_text(json.dumps({"generation": name}))
        assert current_generation(home) is None
        st = index_status(hash_index)
        assert st["state"] == "damaged" and "not a generation" in st["problems"][0]
        with pytest.raises(IndexDamagedError):
            open_index(hash_index)


def test_busy_ingest_is_exit_1_or_waits(hash_index):
    home = hash_index.home
    env = _hash_env(hash_index)
    with open(home / "ingest.lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        code, _, err = gpukb("ingest", "--home", str(home), env=env, hash_model=True, memory_mb=4000)
        assert code == 1 and "another ingest is running" in error_line(err) and "--wait" in error_line(err)
        waiting = subprocess.Popen([sys.executable, "-c", HASH_CLI, "ingest", "--wait", "--home", str(home)],
                                   env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   preexec_fn=_limit(4000))
        time.sleep(1.0)
        assert waiting.poll() is None  # still waiting for the lock
    try:
        out, err = waiting.communicate(timeout=TIMEOUT)
    finally:
        waiting.kill()
    assert waiting.returncode == 0, err.decode()
    assert b"up to date" in out


# -- the fast path of schema validation never hides a finding --------------------------

def test_fast_validation_path_agrees_with_jsonschema():
    from gpukb.validate.core import core_fast_check, core_validator, resolve_version

    root = TESTS.parent
    docs = []
    for p in sorted((root / "recipes").rglob("golden/*.yaml")) + sorted((TESTS / "fixtures").rglob("*.yaml")):
        for d in load_text(p.read_text(encoding="utf-8"), str(p)).documents:
            if isinstance(d.data, dict) and isinstance(d.data.get("apiVersion"), str):
                docs.append(d.data)
    docs.append(json.loads(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                       "spec": {"containers": [{"name": "c", "image": "i", "ports": [
                                           {"containerPort": 1.0, "protocol": "TCP"}]}]}})))
    rng = random.Random(7)
    values = [None, True, False, 0, 1, -1, 1.5, 2.0, "", "x", "1", [], {}, [1], {"a": 1}, "TCP", "Always"]

    def mutate(doc):
        doc = json.loads(json.dumps(doc))
        node, parent, key = doc, None, None
        for _ in range(rng.randint(1, 8)):
            if isinstance(node, dict) and node:
                key = rng.choice(list(node))
            elif isinstance(node, list) and node:
                key = rng.randrange(len(node))
            else:
                break
            parent, node = node, node[key]
        if parent is not None:
            if rng.random() < 0.7:
                parent[key] = rng.choice(values)
            elif isinstance(parent, dict):
                parent["unknownField"] = rng.choice(values)
        return doc

    version = resolve_version(None)
    checked = 0
    for doc in docs:
        for i in range(25):
            d = doc if i == 0 else mutate(doc)
            api, kind = d.get("apiVersion"), d.get("kind")
            if not isinstance(api, str) or not isinstance(kind, str):
                continue
            group, _, ver = api.rpartition("/")
            for strict in (True, False):
                validator = core_validator(version, strict, group, ver, kind)
                if validator is None:
                    continue
                fast = core_fast_check(version, strict, group, ver, kind)
                errors = list(validator.iter_errors(d))
                assert not (fast(d) and errors), (kind, errors[0].message)
                checked += 1
    assert checked > 500


def test_broken_readers_copy_is_made_again(hash_index):
    from gpukb.engine import Engine
    from gpukb.index import READERS, current_generation

    gen = current_generation(hash_index.home)
    first = Engine(hash_index, embedder=make_hash_embedder())
    chunks = first.index.store.count()  # the llama-index adapters open Chroma through a readers' copy
    del first
    db = hash_index.home / READERS / gen / "chroma" / "chroma.sqlite3"
    db.write_bytes(b"not a database" * 100)
    hash_index.answer.refuse_below = -1.0
    engine = Engine(hash_index, embedder=make_hash_embedder())
    assert engine.ask("how do I request nvidia.com/gpu in limits").citations
    assert engine.index.store.count() == chunks == engine.index.manifest["chunks"]
