"""Job and service definitions from other systems, read as the words a request would use.

People moving to Kubernetes paste what they run today: a PBS or LSF batch script, a
docker-compose service, a SageMaker launcher, a Ray cluster file, a Helm chart's values, a
JSON export of some scheduler UI, a mig-parted config, or a table of settings from a design
document. Each of these formats says the same few things (a
name, an image, how many nodes, GPUs and CPUs per node, a queue, an array of tasks) with
its own keys. :func:`translate` reads each known format and returns those things as
:class:`Fact` objects: canonical words ("4 nodes", "4 gpus per node", "named x") with the
span of the request they came from. The extractor reads the facts' words with the
recipe's own rules and lets them fill what the request's words leave open (a value the
user states in words always wins over the paste).

A format is data: a name, a test that finds its blocks, and a reader that turns a block
into facts. Add one to :data:`FORMATS`. Anything a reader recognises but cannot say in
the canonical words stays uncovered, so it is reported as not understood.
"""

from __future__ import annotations

import copy
import json
import math
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

__all__ = ["Fact", "Format", "FORMATS", "SETTINGS_FORMATS", "translate", "key_words", "csv_rows", "GPUS_PER_INSTANCE"]


# the format of a remark beside a setting (a table's "notes" cell): it says why, and sets nothing
NOTE = "note"


@dataclass(frozen=True)
class Fact:
    """Canonical words for one thing a pasted definition says, and where it says it."""

    words: str
    start: int
    end: int
    fmt: str


@dataclass(frozen=True)
class Format:
    """A foreign format: ``find`` yields the (start, end) of each block of it in a request;
    ``read`` turns the text of one block into facts (offsets within the block) and the spans
    of the block that are boilerplate of the format (understood, saying nothing to change)."""

    name: str
    find: Callable[[str], Iterator[tuple[int, int]]]
    # (a fact may carry a fourth item: its own format, as a table's remarks do, NOTE)
    read: Callable[[str], tuple[list[tuple[Any, ...]], list[tuple[int, int]]]]


# GPUs per instance of the common AWS GPU instance types (EC2 accelerated computing docs); a
# SageMaker "ml." type has the same hardware as the EC2 type it names.
GPUS_PER_INSTANCE: dict[str, int] = {
    **{f"p3.{s}": n for s, n in (("2xlarge", 1), ("8xlarge", 4), ("16xlarge", 8))},
    "p3dn.24xlarge": 8, "p4d.24xlarge": 8, "p4de.24xlarge": 8, "p5.48xlarge": 8, "p5e.48xlarge": 8,
    "p5en.48xlarge": 8,
    **{f"{fam}.{s}": 1 for fam in ("g4dn", "g5", "g6", "g6e") for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge",
                                                                          "16xlarge")},
    **{f"{fam}.{s}": n for fam in ("g5", "g6", "g6e") for s, n in (("12xlarge", 4), ("24xlarge", 4),
                                                                   ("48xlarge", 8))},
    "g4dn.12xlarge": 4, "g4dn.metal": 8,
}


def _gib(size: str) -> str | None:
    """A batch system's memory size ("384gb", "64G", "500MB") as a Kubernetes quantity."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?", size.strip().lower())
    if not m:
        return None
    unit = {"k": "Ki", "m": "Mi", "g": "Gi", "t": "Ti", "p": "Pi", "": "Mi"}[m.group(2)]
    return f"{m.group(1)}{unit}"


# ---------------------------------------------------------------- batch schedulers


def _options(line: str, with_value: frozenset[str]) -> Iterator[tuple[str, str, int, int]]:
    """The ``-opt value`` pairs of a command or directive line, with the span of each pair;
    a lone flag yields an empty value. The command after the options yields ``("", cmd)``."""
    toks = [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\"[^\"]*\"|'[^']*'|\S+", line)]
    i = 0
    while i < len(toks):
        tok, a, b = toks[i]
        if tok.startswith("-") and len(tok) > 1:
            if tok in with_value and i + 1 < len(toks):
                val, _a2, b2 = toks[i + 1]
                yield tok, val.strip("\"'"), a, b2
                i += 2
                continue
            yield tok, "", a, b
            i += 1
            continue
        # the first bare word after the options opens the command
        yield "", line[a:].strip(), a, len(line.rstrip())
        return


def _find_lines(rx: str) -> Callable[[str], Iterator[tuple[int, int]]]:
    """Blocks made of lines that match ``rx`` (one block per run of such lines, other lines between
    allowed when they are comments, blank or shell)."""
    # a directive opens its line; a command may also follow words ("the LSF line: bsub -J x ...")
    line_rx = re.compile(rf"(?m)(?:^[ \t]*(?:\$[ \t]*)?|(?<=[:`]\s)|(?<=`)){rx}[^\n`]*")

    def find(text: str) -> Iterator[tuple[int, int]]:
        for m in line_rx.finditer(text):
            yield m.span()

    return find


_PBS_VALUED = frozenset({"-N", "-q", "-l", "-J", "-A", "-P", "-o", "-e", "-j", "-m", "-M", "-W", "-v", "-S"})


def _read_pbs(line: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = []
    body = re.sub(r"^[ \t]*(?:\$[ \t]*)?(?:#PBS|qsub)", lambda m: " " * len(m.group(0)), line)
    head = re.match(r"[ \t]*(?:\$[ \t]*)?(?:#PBS|qsub)", line)
    if head:
        boiler.append(head.span())
    for opt, val, a, b in _options(body, _PBS_VALUED):
        if opt == "-N" and val:
            facts.append((f"named {val}", a, b))
        elif opt == "-q" and val:
            facts.append((f"queue {val}", a, b))
        elif opt == "-J" and val:
            arr = re.fullmatch(r"(\d+)-(\d+)(?::\d+)?(?:%(\d+))?", val)
            if arr:
                n = int(arr.group(2)) - int(arr.group(1)) + 1
                facts.append((f"{n} tasks" + (f", {arr.group(3)} at a time" if arr.group(3) else ""), a, b))
        elif opt == "-l" and val:
            got = _pbs_resources(val, a + body[a:b].index(val))
            if got:
                boiler.append((a, a + 2))  # the flag of a resource list read
            facts += got
        elif opt in ("-j", "-o", "-e"):
            boiler.append((a, b))  # where the output goes: the pod's log is read with kubectl logs
    return facts, boiler


def _pbs_resources(val: str, at: int) -> list[tuple[str, int, int]]:
    """``select=4:ncpus=32:ngpus=4:mem=384gb`` (PBS Pro) or ``nodes=2:ppn=16:gpus=4`` (Torque)."""
    out: list[tuple[str, int, int]] = []
    for chunk in re.finditer(r"[^,]+", val):
        parts = chunk.group(0).split(":")
        first = re.fullmatch(r"(select|nodes)=(\d+)", parts[0])
        off = at + chunk.start()
        if first:
            out.append((f"{first.group(2)} nodes", off, off + len(parts[0])))
            parts_at = off + len(parts[0]) + 1
            rest = parts[1:]
        else:
            parts_at, rest = off, parts
        for p in rest:
            kv = re.fullmatch(r"(\w+)=(\S+)", p)
            if kv:
                key, v = kv.group(1).lower(), kv.group(2)
                phrase = {"ngpus": f"{v} gpus per node", "gpus": f"{v} gpus per node",
                          "ncpus": f"{v} cpus per node", "ppn": f"{v} cpus per node"}.get(key)
                if key == "mem" and _gib(v):
                    phrase = f"{_gib(v)} memory per node"
                if phrase:
                    out.append((phrase, parts_at, parts_at + len(p)))
            parts_at += len(p) + 1
    return out


_LSF_VALUED = frozenset({"-J", "-q", "-n", "-R", "-gpu", "-M", "-W", "-o", "-e", "-P", "-G", "-m", "-app", "-sla",
                         "-u", "-cwd", "-outdir", "-We", "-g"})


def _read_lsf(line: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = []
    head = re.match(r"[ \t]*(?:\$[ \t]*)?(?:#BSUB|bsub)", line)
    if head:
        boiler.append(head.span())
    body = " " * head.end() + line[head.end():] if head else line
    slots: tuple[int, int, int] | None = None
    ptile: int | None = None
    opts = list(_options(body, _LSF_VALUED))
    for opt, val, a, b in opts:
        if opt == "-J" and val:
            arr = re.fullmatch(r"([\w.-]+)\[(\d+)-(\d+)(?::\d+)?\](?:%(\d+))?", val)
            if arr:
                n = int(arr.group(3)) - int(arr.group(2)) + 1
                facts.append((f"named {arr.group(1)}, {n} tasks" + (f", {arr.group(4)} at a time" if arr.group(4)
                                                                    else ""), a, b))
            else:
                facts.append((f"named {val}", a, b))
        elif opt == "-q" and val:
            facts.append((f"queue {val}", a, b))
        elif opt == "-n" and val.isdigit():
            slots = (int(val), a, b)
        elif opt == "-R" and val:
            pt = re.search(r"span\[\s*ptile\s*=\s*(\d+)\s*\]", val)
            if pt:
                ptile = int(pt.group(1))
                if re.fullmatch(r"\s*span\[\s*ptile\s*=\s*\d+\s*\]\s*", val):
                    boiler.append((a, b))  # nothing but the hosts' share: read into the node count
        elif opt == "-gpu" and val:
            num = re.search(r"num\s*=\s*(\d+)", val)
            if num:
                # the GPUs each host gives the job; other settings of the request stay to be reported
                inner = body[a:b]
                k = inner.index(num.group(0))
                facts.append((f"{num.group(1)} gpus per node", a + k, a + k + len(num.group(0))))
                boiler.append((a, a + len(opt)))
        elif opt == "-M" and _gib(val):
            facts.append((f"{_gib(val)} memory per node", a, b))
        elif opt in ("-o", "-e"):
            boiler.append((a, b))
        elif opt == "" and val:
            facts.append((f"command: {val}", a, b))
    if slots:
        n, a, b = slots
        if ptile:
            facts.append((f"{math.ceil(n / ptile)} nodes", a, b))
        else:
            facts.append((f"{n} tasks", a, b))
    return facts, boiler


# ---------------------------------------------------------------- YAML definitions


def _yaml_blocks(key_rx: str) -> Callable[[str], Iterator[tuple[int, int]]]:
    """Blocks of YAML whose top level has a key matching ``key_rx``: a fenced block, or the run of
    lines from such a key at column 0 to the first unindented line that is not YAML."""

    def find(text: str) -> Iterator[tuple[int, int]]:
        for m in re.finditer(rf"(?m)^{key_rx}\s*:", text):
            start = m.start()
            # go back to the top of the YAML document this key belongs to
            while start > 0:
                prev = text.rfind("\n", 0, start - 1) + 1
                line = text[prev:start - 1]
                if line.startswith("```") or not line.strip() or not re.match(r"(?:[\w\"'-]+\s*:|\s+\S|-\s)", line):
                    break
                start = prev
            end = m.end()
            for ln in re.finditer(r"[^\n]*(?:\n|$)", text[m.end():]):
                s = ln.group(0)
                if not s:
                    break
                if s.startswith("```") or (s.strip() and not s.startswith((" ", "\t", "-"))
                                           and not re.match(r"[\w\"'.-]+\s*:", s)):
                    break
                end = m.end() + ln.end()
            yield start, end

    return find


# libyaml's C parser when PyYAML has it: the same safe semantics, several times faster
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=128)
def _parsed(block: str, many: bool) -> tuple[Any, str | None]:
    try:
        return (list(yaml.load_all(block, Loader=_LOADER)) if many else yaml.load(block, Loader=_LOADER)), None
    except yaml.YAMLError as exc:
        return None, str(exc)


def load_yaml(block: str, many: bool = False) -> Any:
    """A pasted YAML block (its first 20,000 characters) parsed safely: one document, or with ``many``
    the list of them. A request's block is read by several recipes and readers, so it is parsed once
    and each caller gets its own copy. Raises ``yaml.YAMLError`` as ``yaml.safe_load`` does."""
    data, err = _parsed(block[:20000], many)
    if err is not None:
        raise yaml.YAMLError(err)
    return copy.deepcopy(data)


def _load(block: str) -> object:
    try:
        return load_yaml(block)
    except yaml.YAMLError:
        return None


def _span_of(block: str, pattern: str, start: int = 0) -> tuple[int, int] | None:
    m = re.search(pattern, block[start:])
    return (start + m.start(), start + m.end()) if m else None


def _key_line(block: str, key: str, start: int = 0) -> tuple[int, int] | None:
    """The span of the line that holds ``key:`` in ``block`` at or after ``start``."""
    return _span_of(block, rf"(?m)^[ \t]*(?:-[ \t]*)?[\"']?{re.escape(key)}[\"']?[ \t]*:[^\n]*", start)


def _command(v: object) -> str | None:
    if isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
        return " ".join(str(x) for x in v)
    return v if isinstance(v, str) and v.strip() else None


def _read_compose(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    data = _load(block)
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = []
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        return facts, boiler
    services = {k: v for k, v in data["services"].items() if isinstance(v, dict)}
    if not services:
        return facts, boiler

    def gpus(svc: dict) -> object:
        devs = (((svc.get("deploy") or {}).get("resources") or {}).get("reservations") or {}).get("devices") or []
        for d in devs if isinstance(devs, list) else []:
            if isinstance(d, dict) and ("gpu" in (d.get("capabilities") or []) or d.get("driver") == "nvidia"):
                if d.get("count") is not None:
                    return d["count"]
                if isinstance(d.get("device_ids"), list):
                    return len(d["device_ids"])
        return None

    # the service that uses GPUs, or the only one
    pick = [k for k, v in services.items() if gpus(v) is not None] or list(services)
    if len(pick) != 1:
        return facts, boiler
    name = pick[0]
    svc = services[name]
    for key in ("services", "deploy", "resources", "reservations", "devices", "limits", "version", "restart",
                "runtime", "capabilities", "driver", "healthcheck"):
        for m in re.finditer(rf"(?m)^[ \t]*(?:-[ \t]*)?{key}[ \t]*:[^\n]*", block):
            boiler.append(m.span())
    at = _key_line(block, str(name))
    if at:
        facts.append((f"named {svc.get('container_name') or name}", *at))
    if isinstance(svc.get("image"), str) and (sp := _key_line(block, "image")):
        facts.append((f"image {svc['image']}", *sp))
    cmd = _command(svc.get("command"))
    if cmd and (sp := _key_line(block, "command")):
        facts.append((f"command: {cmd}", *sp))
    n = gpus(svc)
    if isinstance(n, int) and (sp := _key_line(block, "count") or _key_line(block, "device_ids")):
        facts.append((f"{n} gpus", *sp))
    limits = ((svc.get("deploy") or {}).get("resources") or {}).get("limits") or {}
    if limits.get("cpus") is not None and (sp := _key_line(block, "cpus")):
        facts.append((f"{limits['cpus']} cpus", *sp))
    mem = limits.get("memory") or svc.get("mem_limit")
    if isinstance(mem, str) and _gib(mem) and (sp := _key_line(block, "memory") or _key_line(block, "mem_limit")):
        facts.append((f"{_gib(mem)} memory", *sp))
    replicas = (svc.get("deploy") or {}).get("replicas")
    if isinstance(replicas, int) and (sp := _key_line(block, "replicas")):
        facts.append((f"{replicas} replicas", *sp))
    shm = svc.get("shm_size")
    if isinstance(shm, str) and _gib(shm) and (sp := _key_line(block, "shm_size")):
        facts.append((f"shm {_gib(shm)}", *sp))
    # a tmpfs mount ("type: tmpfs, target: /scratch, tmpfs: {size: 40g}"): a memory-backed scratch space of that size
    for vol in svc.get("volumes") or [] if isinstance(svc.get("volumes"), list) else []:
        size = (vol.get("tmpfs") or {}).get("size") if isinstance(vol, dict) and vol.get("type") == "tmpfs" and \
            isinstance(vol.get("tmpfs"), dict) else None
        target = str(vol.get("target") or "") if isinstance(vol, dict) else ""
        if isinstance(size, str) and _gib(size) and (sp := _key_line(block, "size")):
            what = "shm" if target == "/dev/shm" else f"{target.rsplit('/', 1)[-1] or 'scratch'} tmpfs"
            facts.append((f"{what} {_gib(size)}", *sp))
    ports = svc.get("ports")
    if isinstance(ports, list) and len(ports) == 1:
        port = re.search(r"(\d+)(?:/\w+)?$", str(ports[0]))
        sp = _span_of(block, re.escape(str(ports[0])))
        if port and sp:
            facts.append((f"port {port.group(1)}", *sp))
    test = (svc.get("healthcheck") or {}).get("test") if isinstance(svc.get("healthcheck"), dict) else None
    url = re.search(r"(?:https?://)?[\w.-]+:\d+(/[\w./-]*)", " ".join(map(str, test)) if isinstance(test, list)
                    else str(test or ""))
    if url and (sp := _key_line(block, "test")):
        facts.append((f"readiness on {url.group(1)}", *sp))
    return facts, boiler


def _image_ref(repo: str, tag: object) -> str:
    """A chart's ``image.repository`` and ``image.tag`` as one reference (a repository that carries its
    own tag keeps it)."""
    return f"{repo}:{tag}" if tag not in (None, "") and ":" not in repo.split("/")[-1] else repo


def _read_helm_values(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A chart's values: ``image.repository`` with ``image.tag`` is one image; ``replicaCount``
    is the replicas."""
    data = _load(block)
    facts: list[tuple[str, int, int]] = []
    if not isinstance(data, dict) or "kind" in data or "apiVersion" in data:
        return facts, []
    image = data.get("image")
    if isinstance(image, dict) and isinstance(image.get("repository"), str):
        ref = _image_ref(image["repository"], image.get("tag"))
        sp = _key_line(block, "repository")
        if sp:
            end = (_key_line(block, "tag", sp[1]) or sp)[1]
            facts.append((f"image {ref}", sp[0], end))
    if isinstance(data.get("replicaCount"), int) and (sp := _key_line(block, "replicaCount")):
        facts.append((f"{data['replicaCount']} replicas", *sp))
    # every other value as a settings file's ("resources: {gpu: 2}" -> "2 resources gpu")
    flat = _one_item_lists(data)
    rest = {k: v for k, v in flat.items() if k not in ("image", "replicaCount")} if isinstance(flat, dict) else {}
    facts += _settings_facts(rest, block, _yaml_setting_line)
    # (its parent keys stay reported when nothing reads them: "imagePullSecrets:" says what its lines are)
    return facts, []


def _read_ray(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A Ray cluster launcher file or a KubeRay RayCluster: the GPU worker group's count and GPUs."""
    data = _load(block)
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = []
    if not isinstance(data, dict):
        return facts, boiler
    groups: list[tuple[dict, int, int | None, int | None, int | None]] = []  # (group, gpus, min, max, replicas)
    for g in (data.get("available_node_types") or {}).values() if isinstance(data.get("available_node_types"),
                                                                            dict) else []:
        if isinstance(g, dict):
            gpu = (g.get("resources") or {}).get("GPU") if isinstance(g.get("resources"), dict) else None
            if isinstance(gpu, int) and gpu > 0:
                groups.append((g, gpu, g.get("min_workers"), g.get("max_workers"), None))
    spec = data.get("spec") if isinstance(data.get("spec"), dict) else data
    for g in spec.get("workerGroupSpecs") or [] if isinstance(spec, dict) else []:
        if not isinstance(g, dict):
            continue
        gpu = (g.get("rayStartParams") or {}).get("num-gpus")
        if gpu is None:
            found = re.search(r"nvidia\.com/gpu['\"]?\s*:\s*['\"]?(\d+)", json.dumps(g))
            gpu = found.group(1) if found else None
        if gpu is not None and str(gpu).isdigit() and int(gpu) > 0:
            groups.append((g, int(gpu), g.get("minReplicas"), g.get("maxReplicas"), g.get("replicas")))
    if len(groups) != 1:
        return facts, boiler
    _g, gpu, lo, hi, n = groups[0]
    sp = (_span_of(block, rf"[\"']?GPU[\"']?\s*:\s*{gpu}\b") or _span_of(block, rf"num-gpus[\"']?\s*:\s*[\"']?{gpu}\b")
          or (0, 0))
    facts.append((f"{gpu} gpus per worker", *sp))
    if isinstance(lo, int) and isinstance(hi, int) and lo == hi:
        n = lo
    if isinstance(n, int) and n > 0:
        sp = _key_line(block, "replicas") or _key_line(block, "min_workers") or (0, 0)
        facts.append((f"{n} workers", *sp))
    elif isinstance(lo, int) and isinstance(hi, int) and hi > lo:
        sp = _key_line(block, "min_workers") or _key_line(block, "minReplicas") or (0, 0)
        facts.append((f"between {max(lo, 1)} and {hi} workers", *sp))
    named = _key_line(block, "cluster_name")
    if isinstance(data.get("cluster_name"), str) and named:
        facts.append((f"named {data['cluster_name']}", *named))
    return facts, boiler


# ---------------------------------------------------------------- Python launchers


_KWARG = re.compile(r"(?<![\w.])(\w+)\s*=\s*(\"[^\"\n]*\"|'[^'\n]*'|\d+(?:\.\d+)?)")


def _find_sagemaker(text: str) -> Iterator[tuple[int, int]]:
    if not re.search(r"sagemaker|instance_type\s*=|instance_count\s*=|\bEstimator\(|HuggingFaceModel\(", text, re.I):
        return
    hits = [m for m in _KWARG.finditer(text) if m.group(1) in _SAGEMAKER_KEYS or m.group(1) in ("env",)]
    if hits:
        yield hits[0].start(), hits[-1].end()
    env = re.search(r"env\s*=\s*\{[^}]*\}", text)
    if env:
        yield env.span()


_SAGEMAKER_KEYS = frozenset({"instance_count", "initial_instance_count", "instance_type", "image_uri",
                             "base_job_name", "job_name", "endpoint_name", "container_startup_health_check_timeout"})


def _read_sagemaker(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    facts: list[tuple[str, int, int]] = []
    if re.match(r"env\s*=", block):
        for m in re.finditer(r"[\"'](\w+)[\"']\s*:\s*[\"']([^\"']+)[\"']", block):
            key, v = m.group(1), m.group(2)
            if key in ("HF_MODEL_ID", "MODEL_ID"):
                facts.append((f"model {v}", *m.span()))
            elif key == "SM_NUM_GPUS" and v.isdigit():
                facts.append((f"{v} gpus", *m.span()))
        return facts, []
    for m in _KWARG.finditer(block):
        key, v = m.group(1), m.group(2).strip("\"'")
        if key == "instance_count":
            facts.append((f"{v} nodes", *m.span()))
        elif key == "initial_instance_count":
            facts.append((f"{v} replicas", *m.span()))
        elif key == "instance_type":
            n = GPUS_PER_INSTANCE.get(re.sub(r"^ml\.", "", v))
            if n:
                facts.append((f"{n} gpus per node", *m.span()))
        elif key == "image_uri" and m.group(2)[0] in "\"'":
            facts.append((f"image {v}", *m.span()))
        elif key in ("base_job_name", "job_name", "endpoint_name"):
            facts.append((f"named {v}", *m.span()))
        elif key == "container_startup_health_check_timeout":
            facts.append((f"{v} seconds to start", *m.span()))
    return facts, []


# ---------------------------------------------------------------- JSON exports

_NAME_KEYS = frozenset({"name", "fullnameoverride", "nameoverride", "jobname", "job_name", "appname", "app_name", "servicename", "service_name",
                        "workloadname", "deploymentname", "runname", "run_name", "displayname", "display_name"})
_NAMESPACE_KEYS = frozenset({"ns", "namespace", "k8snamespace", "kubenamespace"})


def _find_json(text: str) -> Iterator[tuple[int, int]]:
    """A JSON object of settings, as a scheduler UI, a script or a platform config exports a job (on one
    line or several, values nested or in lists); never a Kubernetes object."""
    decoder = json.JSONDecoder()
    pos = 0
    while (i := text.find("{", pos)) >= 0:
        try:
            data, end = decoder.raw_decode(text, i)
        except ValueError:
            # ... or a dict literal of a Python script (single quotes, trailing commas, True/False)
            end = _closing(text, i)
            data = _python_literal(text[i:end]) if end else None
            if not isinstance(data, dict):
                pos = i + 1
                continue
        if isinstance(data, dict) and not {"apiVersion", "kind"} & set(data):
            # (one key around the object asked about counts its keys: '{"FileSystems": [{...}]}')
            inner = _one_item_lists(next(iter(data.values()))) if len(data) == 1 else None
            if len(data) >= 2 or isinstance(inner, dict) and len(inner) >= 2:
                yield i, end
        pos = max(end, i + 1)


def _closing(text: str, i: int, limit: int = 20000, comments: bool = False) -> int:
    """Where the brace or parenthesis opening at ``i`` closes (after it), quotes skipped (and a ``comments``
    line's ``#`` comment); 0 when it does not within ``limit`` or a bracket of another kind closes it. A brace
    counts braces and brackets; a parenthesis counts those too."""
    opens, closes = ("([{", ")]}") if text[i] == "(" else ("{[", "}]")
    depth, quote, j = 0, "", i
    end = min(len(text), i + limit)
    while j < end:
        ch = text[j]
        if quote:
            if ch == quote and text[j - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif comments and ch == "#":
            nl = text.find("\n", j)
            j = end if nl < 0 else nl
            continue
        elif ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
            if depth == 0:
                return j + 1 if ch == closes[opens.index(text[i])] else 0
        j += 1
    return 0


def _python_literal(block: str) -> object:
    """A Python literal (``{"num_shards": 64, 'image': "x",}``), or None: read by ``ast.literal_eval``,
    which evaluates no code."""
    import ast

    try:
        return ast.literal_eval(block)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def key_words(key: str) -> list[str]:
    """The words of a key, in order: "gpusPerReplica" -> ["gpus", "per", "replica"], "job_name" ->
    ["job", "name"]."""
    return [w.lower() for w in re.split(r"[\s_.-]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", key)) if w]


def _setting_words(path: list[str], v: object) -> str | None:
    """A setting as a request would say it: a name key names the object, a number counts what its key
    says ("gpu_limit: 64" -> "64 gpu limit"), a word follows its key, a nested key follows its parent's
    ("migManager: {enabled: false}" -> "mig manager enabled off"); a resource name keeps its last part
    ("nvidia.com/gpu: 32" -> "32 gpu"); a list of words is the list, a command's its words in order."""
    key = path[-1]
    if isinstance(v, list):
        if not v or not all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in v):
            return None
        # (a command's words in order, an argument holding spaces quoted as a shell would: "-c 'python -m x'")
        v = shlex.join(str(x) for x in v) if key.lower() in _COMMAND_KEYS else ", ".join(str(x) for x in v)
    if isinstance(v, dict) or v is None or (isinstance(v, str) and (not v.strip() or "\n" in v.strip())):
        return None  # nothing, or a whole document held as text (a block scalar): no one setting
    low = key.lower()
    # (a parent that only holds settings adds no word: a CI step's "with:", a form's "inputs:", "env:")
    path = [k for k in path[:-1] if k.lower() not in _HOLDER_KEYS] + [key]
    words = " ".join(w for k in path for w in key_words(k.rsplit("/", 1)[-1]))
    if low in _NAME_KEYS and len(path) == 1:
        return f"named {v}"
    if low == "name" and len(path) >= 2 and path[-2].lower() == "scaletargetref":  # what an HPA or a ScaledObject scales
        return f"deployment {v}"
    if low in _NAMESPACE_KEYS:
        return f"namespace {v}"
    if isinstance(v, bool):
        return f"{words} {'on' if v else 'off'}"
    if low in _COMMAND_KEYS - {"args"} and isinstance(v, str):
        return f"command: {v}"  # "entrypoint = [...]", "cmd: ...": what the container runs
    if isinstance(v, int) and not isinstance(v, bool) and low.replace("-", "_") in _PER_NODE_PROCESSES:
        return f"{v} gpus per node"  # a launcher's one process per GPU on each machine (Azure ML, SageMaker, torchrun)
    if isinstance(v, (int, float)) or (isinstance(v, str) and re.fullmatch(r"\d+\s*(?:-|to|\.\.)\s*\d+", v)):
        own = key_words(key.rsplit("/", 1)[-1])
        counted = own[:-1] if len(own) >= 2 and own[-1] in ("count", "number") else \
            own[1:] if len(own) >= 2 and own[0] in ("num", "n", "number", "count") else None
        bound = _BOUND_FIRST.match(words)
        if counted and isinstance(v, int) and not bound:
            # "InstanceCount: 3", "NUM_GPUS=8", "worker_count: 4": three instances, eight GPUs, four workers
            thing = " ".join(w for w in counted if w != "of")
            plural = thing if thing.endswith("s") else thing[:-1] + "ies" if thing.endswith("y") else thing + "s"
            parents = " ".join(w for k in path[:-1] for w in key_words(k.rsplit("/", 1)[-1]))
            return f"{v} {plural}" + (f" ({parents})" if parents else "")
        if bound:  # "MAX_NODES=6" is "at most 6 nodes", never "6 max nodes" (nor "6 min", minutes)
            return f"{bound.group(1)} {v} {words[bound.end():]}".strip()
        return f"{v} {words}"  # "replicas: 0-8" counts like "0-8 replicas"
    return f"{words} {v}"


# the keys launchers give the processes each machine runs, one per GPU
_PER_NODE_PROCESSES = frozenset({"process_count_per_instance", "processes_per_host", "nproc_per_node", "gpus_per_node",
                                 "processcountperinstance", "processesperhost", "nprocpernode", "gpuspernode"})
# keys whose value only holds settings: a CI step's inputs, a chart's or a form's values
_HOLDER_KEYS = frozenset({"with", "inputs", "variables", "vars", "params", "parameters"})
# a key that opens with a bound ("max_nodes", "minReplicas"): the bound goes before the amount
_BOUND_FIRST = re.compile(r"(min(?:imum)?|max(?:imum)?)\s+(?=[a-z])")
_COMMAND_KEYS = frozenset({"command", "cmd", "cmds", "args", "entrypoint", "script", "run"})


def _settings_facts(data: dict, block: str, where: Callable[[str, object], str],
                    path: tuple[str, ...] = (), start: int = 0) -> list[tuple[str, int, int]]:
    """Facts of a mapping of settings, nested mappings read key by key after their parent's key;
    ``where(key, value)`` is the pattern of a setting's text in ``block``."""
    facts: list[tuple[str, int, int]] = []
    # a program and its arguments under two keys ("command = \"nvidia-smi\"", "args = [\"-q\"]") are one command line
    head = next((k for k in data if str(k).lower() in ("command", "cmd", "entrypoint")), None)
    words = [data[head]] if head is not None and isinstance(data[head], str) else \
        data[head] if head is not None and isinstance(data[head], list) else None
    args = data.get("args")
    joined = None
    if words is not None and isinstance(args, (list, str)) and all(isinstance(w, (str, int, float)) for w in
                                                                    [*words, *(args if isinstance(args, list) else [args])]):
        joined = shlex.join([str(w) for w in [*words, *(args if isinstance(args, list) else shlex.split(args))]])
        if (sp := _span_of(block, where(str(head), data[head]), start)) is not None:
            facts.append((f"command: {joined}", *sp))
    for key, v in data.items():
        if joined is not None and key in (head, "args"):
            continue
        sp = _span_of(block, where(str(key), v), start)
        if isinstance(v, dict):
            if len(path) < 3 and sp:
                facts += _settings_facts(v, block, where, (*path, str(key)), sp[0])
            continue
        words = _setting_words([*path, str(key)], v)
        if words and sp:
            facts.append((words, *sp))
    return facts


def _json_setting(key: str, v: object) -> str:
    # (a mapping may stand as a list's one item: see _one_item_lists)
    value = r"\[[^\]]*\]" if isinstance(v, list) else r"\[?\s*\{" if isinstance(v, dict) else r"[^,}\n]*"
    return rf"[\"']{re.escape(key)}[\"']\s*:\s*{value}"


def _one_item_lists(data: object) -> object:
    """A list holding one mapping read as that mapping: a cloud CLI's describe output wraps the one
    object asked about (``{"FileSystems": [{"StorageCapacity": 9600, ...}]}``)."""
    if isinstance(data, dict):
        return {k: _one_item_lists(v) for k, v in data.items()}
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        return _one_item_lists(data[0])
    return data


def _found_key(data: object, key: str, depth: int = 0) -> object:
    """The value of ``key`` anywhere in nested mappings (three levels at most)."""
    if not isinstance(data, dict) or depth > 3:
        return None
    if key in data:
        return data[key]
    return next((v for x in data.values() if (v := _found_key(x, key, depth + 1)) is not None), None)


def _worker_pools(raw: object, block: str) -> list[tuple[str, int, int]]:
    """A Vertex AI CustomJob's ``workerPoolSpecs``: the first pool is the chief, the others its workers
    ("1 master and 3 workers"), each pool's ``acceleratorCount`` the GPUs of a pod, its container's image
    and its command with its args."""
    found = _found_key(raw, "workerPoolSpecs")
    pools = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    if not pools:
        return []
    at = _span_of(block, r"[\"']workerPoolSpecs[\"']\s*:") or (0, 0)
    end = (at[0], len(block.rstrip()))

    def count(p: dict) -> int | None:
        n = p.get("replicaCount", 1)
        return int(n) if isinstance(n, (int, str)) and str(n).isdigit() else None

    counts = [count(p) for p in pools]
    facts: list[tuple[str, int, int]] = []
    if None not in counts:
        said = f"{counts[0]} pods" if len(pools) == 1 else \
            f"{counts[0]} master and {sum(c for c in counts[1:] if c)} workers"
        facts.append((said, *end))
    gpus = {(p.get("machineSpec") or {}).get("acceleratorCount") for p in pools} - {None}
    if len(gpus) == 1:
        facts.append((f"{gpus.pop()} gpus per pod", *end))
    spec = pools[-1].get("containerSpec") or {}
    if isinstance(spec.get("imageUri"), str):
        facts.append((f"image {spec['imageUri']}", *end))
    cmd = [*(spec.get("command") or []), *(spec.get("args") or [])]
    if cmd and all(isinstance(c, str) for c in cmd):
        facts.append((f"command: {shlex.join(cmd)}", *end))
    return facts


def _read_json(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    try:
        raw = json.loads(block)
    except ValueError:
        raw = _python_literal(block)
    data = _one_item_lists(raw)
    if isinstance(data, dict) and isinstance(data.get("name"), str) and len(data) <= 3:
        # a tool call ('{"name": "make_manifest", "arguments": {...}}'): the tool's name names no object
        args = next((data[k] for k in ("arguments", "parameters", "input", "args") if isinstance(data.get(k), dict)), None)
        if args is not None:
            at = _span_of(block, r"[\"'](?:arguments|parameters|input|args)[\"']\s*:") or (0, 0)
            return _settings_facts(args, block, _json_setting, (), at[0]), [(0, at[1])]
    facts = _settings_facts(data, block, _json_setting) if isinstance(data, dict) else []
    return facts + _worker_pools(raw, block), []


# "cluster_name = \"prod\"", "gpu_limit = 64", "export JOB_NAME=x", "instance_types = [\"p5.48xlarge\"]":
# a line of HCL, TOML or a shell environment file; "NP ?= 16", "IMAGE := ghcr.io/x:1" in a Makefile
_ASSIGNMENT = re.compile(r"[ \t]*(?:export[ \t]+)?(?P<key>[A-Za-z_][\w.-]*)[ \t]*[?:+]?=[ \t]*(?P<value>[^\s#][^\n#]*?)"
                         r"[ \t]*(?:#[^\n]*)?")
# "clusterQueue: ml-batch", "quota:", "  nvidia.com/gpu: 32": a line of a flat or nested settings file
_YAML_SETTING = re.compile(r"[ \t]*[\"']?(?P<key>[A-Za-z_][\w./-]*)[\"']?[ \t]*:(?:[ \t]+(?P<value>\S[^\n]*))?")
_YAML_ITEM = re.compile(r"[ \t]+-[ \t]+\S[^\n]*")


def _runs(text: str, first: re.Pattern, more: re.Pattern | None = None) -> Iterator[tuple[int, int, list[str]]]:
    """Runs of two or more consecutive lines that each match ``first`` (or, after the first, ``more``):
    their span and the lines."""
    run: list[tuple[int, int, str]] = []
    for m in re.finditer(r"[^\n]*(?:\n|$)", text):
        line = m.group(0).rstrip("\n")
        fits = first.fullmatch(line) or (run and more is not None and more.fullmatch(line))
        if fits and m.group(0):
            run.append((m.start(), m.start() + len(line), line))
            continue
        if len(run) >= 2:
            yield run[0][0], run[-1][1], [ln for _, _, ln in run]
        run = []
        if not m.group(0):
            break


def _code_key(key: str) -> bool:
    """A key written for a program ("gpu_limit", "clusterQueue", "namespace"), not a label written for
    people ("Replicas", "GPU")."""
    return "_" in key or "." in key or "/" in key or key[0].islower() or bool(re.search(r"[a-z][A-Z]", key))


def _find_assignments(text: str) -> Iterator[tuple[int, int]]:
    for a, b, _lines in _runs(text, _ASSIGNMENT):
        yield a, b


# an HCL object or list written inline: "{ "nvidia.com/gpu" = "48" }", "[{ alias = "al2023@latest" }]"
_HCL_KEY = re.compile(r"(?P<q>\"[^\"\n]*\")\s*=(?!=)|(?<![\w\"./-])(?P<bare>[A-Za-z_][\w.-]*)\s*=(?!=)")


def _assigned(raw: str) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        pass
    if raw.strip()[:1] in "{[" and "=" in raw:
        # (its keys quoted and "=" written ":" it is JSON: a trailing comma is all HCL adds)
        text = _HCL_KEY.sub(lambda m: f"{m.group('q') or json.dumps(m.group('bare'))}:", raw)
        try:
            return json.loads(re.sub(r",\s*([}\]])", r"\1", text))
        except ValueError:
            pass
    return raw.strip().strip("\"'")


# "export POD=x NS=y GPUS=2": several assignments on one line, each a word without spaces
_SHELL_PAIRS = re.compile(r"[ \t]*(?:export[ \t]+)?(?:[A-Za-z_][\w.-]*=[^\s=#\"']+[ \t]+)+[A-Za-z_][\w.-]*=[^\s=#\"']+[ \t]*")


def _read_assignments(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    data: dict[str, object] = {}
    pairs: set[str] = set()
    for ln in block.split("\n"):
        if _SHELL_PAIRS.fullmatch(ln):
            for key, value in re.findall(r"([A-Za-z_][\w.-]*)=(\S+)", ln):
                data[key] = _assigned(value)
                pairs.add(key)
        elif m := _ASSIGNMENT.fullmatch(ln):
            data[m.group("key")] = _one_item_lists(_assigned(m.group("value")))

    def where(k: str, _v: object) -> str:
        if k in pairs:
            return rf"(?<![\w.-]){re.escape(k)}=\S+"
        # (a key inside an inline object stands where it is written: "limits = { "nvidia.com/gpu" = "48" }")
        return rf"(?m)^[ \t]*(?:export[ \t]+)?{re.escape(k)}[ \t]*[?:+]?=[^\n]*|(?<![\w.-])\"?{re.escape(k)}\"?[ \t]*=[ \t]*[^,}}\n]*"

    return _settings_facts(data, block, where), [m.span() for m in re.finditer(r"(?m)^[ \t]*export\b", block)]


def _find_yaml_settings(text: str) -> Iterator[tuple[int, int]]:
    """Lines of a settings file in YAML (a platform config, a values file): keys written for a program,
    values that are no Kubernetes object."""
    for a, b, lines in _runs(text, _YAML_SETTING, re.compile(f"{_YAML_SETTING.pattern}|{_YAML_ITEM.pattern}")):
        keys = [m.group("key") for ln in lines if (m := _YAML_SETTING.fullmatch(ln))]
        if any(_code_key(k) for k in keys) and not {"apiVersion", "kind"} & set(keys):
            yield a, b


def _yaml_setting_line(key: str, _value: object) -> str:
    """The pattern of a setting's line in YAML, with the list items under it."""
    return rf"(?m)^[ \t]*(?:-[ \t]+)?[\"']?{re.escape(key)}[\"']?[ \t]*:[^\n]*(?:\n[ \t]+-[^\n]*)*"


# a form's checkbox as a setting's value: "renameSharedResource: [x]", "driverManagedByOperator: [ ]"
_CHECKBOX = {"[x]": True, "[X]": True, "[ ]": False, "[]": False}


def _form_lines(block: str) -> dict[str, object] | None:
    """A form's lines that are no YAML ("clientsPerGpu:   6", "rename: [x]   (advertise as ...)"): each line's key
    and its value, without the remark after it (wide spaces and a parenthesis or '#')."""
    data: dict[str, object] = {}
    for m in re.finditer(r"(?m)^[ \t]*([A-Za-z_][\w./-]*)[ \t]*:[ \t]+(\S.*?)[ \t]*(?:(?:[ \t]{2,}|\t)[(#][^\n]*)?$", block):
        raw = m.group(2).strip()
        data[m.group(1)] = _CHECKBOX[raw] if raw in _CHECKBOX else _cli_value(raw)
    return data or None


def _read_yaml_settings(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    data = _load(block)
    if data is None:
        data = _form_lines(block)
    # an inventory's collection of one entry ("volcano_queues:\n  - name: cv-research\n    gpu_cap: 48") is that entry
    if isinstance(data, dict) and len(data) == 1:
        only = next(iter(data.values()))
        if isinstance(only, list) and len(only) == 1 and isinstance(only[0], dict):
            data = only[0]
    data = _one_item_lists(data)
    if not isinstance(data, dict):
        return [], []
    facts = _settings_facts(data, block, _yaml_setting_line) + _processes_per_machine(data, block)
    return facts, _parent_keys(block)


def _processes_per_machine(data: dict, block: str) -> list[tuple[str, int, int]]:
    """An accelerate config's ``num_processes`` counts the processes of all its ``num_machines``, one a GPU:
    12 processes on 3 machines are 4 GPUs per node."""
    procs, machines = data.get("num_processes"), data.get("num_machines")
    if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in (procs, machines)):
        return []
    assert isinstance(procs, int) and isinstance(machines, int)
    sp = _key_line(block, "num_processes")
    return [(f"{procs // machines} gpus per node", *sp)] if sp and procs % machines == 0 and machines > 1 else []


def _parent_keys(block: str) -> list[tuple[int, int]]:
    """The lines of keys that only open nested settings ("quota:"): they say nothing by themselves."""
    return [m.span() for m in re.finditer(r"(?m)^[ \t]*(?:-[ \t]+)?[\"']?[A-Za-z_][\w./-]*[\"']?[ \t]*:[ \t]*$", block)]


# ---------------------------------------------------------------- kustomize

# a JSON patch's path to the setting it changes: "/spec/replicas" -> replicas
_PATCH_PATH = re.compile(r"/spec(?:/template/spec)?/(?:containers/\d+/)?([A-Za-z][\w]*)$")


def _merge_patch_facts(obj: dict, block: str, at: int) -> list[tuple[str, int, int]]:
    """What a strategic-merge patch of a workload sets: its replicas, and each container's image and
    resources ("nvidia.com/gpu: 2" -> "2 gpu", "memory: 96Gi" -> "memory 96Gi")."""
    def sub(d: dict, key: str) -> dict:
        return d[key] if isinstance(d.get(key), dict) else {}

    facts: list[tuple[str, int, int]] = []
    spec = sub(obj, "spec")
    if isinstance(spec.get("replicas"), int) and (sp := _key_line(block, "replicas", at)):
        facts.append((f"{spec['replicas']} replicas", *sp))
    containers = sub(sub(spec, "template"), "spec").get("containers")
    for c in containers if isinstance(containers, list) else []:
        if not isinstance(c, dict):
            continue
        if isinstance(c.get("image"), str) and (sp := _key_line(block, "image", at)):
            facts.append((f"image {c['image']}", *sp))
        for kind in ("limits", "requests"):
            for key, v in sub(sub(c, "resources"), kind).items():
                said = _setting_words([str(key)], _cli_value(str(v)))
                sp = _span_of(block, rf"{re.escape(str(key))}[\"']?\s*:\s*[\"']?{re.escape(str(v))}", at)
                if said and sp:
                    facts.append((said, *sp))
    return facts


def _read_kustomization(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A kustomization: its ``namespace``, the object each patch targets ("deployment sam-segmenter")
    and the settings its JSON patches set (``path: /spec/replicas`` with ``value: 5`` -> "5 replicas")."""
    data = _load(block)
    facts: list[tuple[str, int, int]] = []
    if not isinstance(data, dict) or not isinstance(data.get("patches") or data.get("patchesJson6902"), list):
        return facts, []
    if isinstance(data.get("namespace"), str) and (sp := _key_line(block, "namespace")):
        facts.append((f"namespace {data['namespace']}", *sp))
    at = 0
    for patch in data.get("patches") or data.get("patchesJson6902") or []:
        target = patch.get("target") if isinstance(patch, dict) else None
        if isinstance(target, dict) and isinstance(target.get("kind"), str) and isinstance(target.get("name"), str):
            sp = _key_line(block, "name", at) or _key_line(block, "kind", at)
            if sp:
                facts.append((f"{target['kind'].lower()} {target['name']}", *sp))
                at = sp[1]
        body = patch.get("patch") if isinstance(patch, dict) else None
        ops = _load(body) if isinstance(body, str) else None
        if isinstance(ops, dict):  # a strategic-merge patch: the settings the object it carries sets
            got = _merge_patch_facts(ops, block, at)
            facts += got
            at = max([at, *(b for _w, _a, b in got)])
        for op in ops if isinstance(ops, list) else []:
            m = _PATCH_PATH.search(str(op.get("path", ""))) if isinstance(op, dict) else None
            if m and isinstance(op.get("value"), (int, str)) and op.get("op") in ("replace", "add"):
                sp = _key_line(block, "value", at)
                said = _setting_words([m.group(1)], op["value"])
                if sp and said:
                    facts.append((said, *sp))
                    at = sp[1]
    return facts, []


# ---------------------------------------------------------------- edits by path (JSON Patch, yq, test assertions)

# a fenced block, its body the first group
FENCED_BODY = re.compile(r"(?ms)^[ \t]*```[^\n]*\n(.*?)^[ \t]*```")

# the parts of an object's path that only hold its settings: "/spec/template/spec/containers/0/image" is the image
_HOLDING_PATH = frozenset({"spec", "template", "metadata", "containers", "initcontainers", "resources", "limits",
                           "requests", "tasks", "items", "mpireplicaspecs", "pytorchreplicaspecs", "replicaspecs",
                           "status", "parameters"})
# a JSON Patch: a list of operations, each an "op", a "path" and a "value"
_JSON_PATCH_START = re.compile(r"\[\s*\{\s*[\"']op[\"']\s*:")
_YAML_PATCH_RUN = re.compile(r"(?m)^[ \t]*-[ \t]+op:[ \t]*[\"']?(?:replace|add)\b[^\n]*(?:\n[ \t]+(?!-)[^\n]*)+")
_PATCH_CALL = re.compile(r"\bJsonPatch\.(?:add|replace)\(\s*([\"'])(/[^\"'\n]+)\1\s*,\s*")
_KUBECTL_PATCH = re.compile(r"(?m)^[ \t]*(?:\$[ \t]*)?kubectl[ \t]+patch\b")
# the patch a "kubectl patch" command applies, given as a mapping
_MERGE_PATCH_OPTION = re.compile(r"(?:\s-p|--patch)(?:[ \t]+|=)[\"']?(?=\{)")
# yq or jq: ".spec.replicas = 3", '.metadata.name = "x" |', ".spec.containers[0].resources.limits += {...}"
_YQ_PATH = r"(?<![\w\]\)\"'])\.(?:[A-Za-z_][\w-]*|\"[^\"\n]+\")(?:\.(?:[A-Za-z_][\w-]*|\"[^\"\n]+\")|\[\d+\])*"
_YQ_SET = re.compile(rf"({_YQ_PATH})[ \t]*(?:\+|\|)?=[ \t]*")
# Python: 'job["spec"]["queue"] == "x"', 'cfg["a"]["b"] = 3', '"ssh" not in job["spec"]["plugins"]'
_PY_SUBSCRIPTS = r"[A-Za-z_]\w*((?:\[\s*(?:\"[^\"\n]*\"|'[^'\n]*'|\d+)\s*\])+)"
_PY_SET = re.compile(rf"(?<![\w.]){_PY_SUBSCRIPTS}[ \t]*(?:==|=(?!=)|\bis\b)[ \t]*")
_PY_IN = re.compile(rf"(?<![\w.])(?:assert[ \t]+)?(\"[^\"\n]+\"|'[^'\n]+')[ \t]+(not[ \t]+)?in[ \t]+{_PY_SUBSCRIPTS}")


def _path_keys(segments: list[str]) -> list[str]:
    """The keys of a path that name a setting, without indices and holders: ["spec", "containers", "0",
    "image"] -> ["image"]; a JSON pointer's escapes undone ("nvidia.com~1gpu" -> "nvidia.com/gpu")."""
    keys = [s.replace("~1", "/").replace("~0", "~") for s in segments]
    return [k for k in keys if k and not k.isdigit() and k.lower() not in _HOLDING_PATH]


def _path_facts(keys: list[str], v: object, at: tuple[int, int], block: str = "") -> list[tuple[str, int, int]]:
    """A value set at a path as the words of its setting; a mapping set there is each of its settings (each
    where its key stands in ``block``, when given), and so is a list holding one mapping."""
    if isinstance(v, list) and len(v) == 1 and isinstance(v[0], dict):
        v = v[0]
    if isinstance(v, dict):
        out = []
        for k, x in v.items():
            sp = _span_of(block, _json_setting(str(k), x), at[0]) if block else None
            out += _path_facts([*keys, *_path_keys([str(k)])], x, sp or at, block)
        return out
    if not keys:
        return []
    said = _setting_words(keys, v)
    return [(said, *at)] if said else []


def _literal_at(text: str, i: int) -> tuple[object, int] | None:
    """The literal value that starts at ``i`` (JSON, a Python literal, a YAML scalar) and where it ends; a
    mapping or list may span lines."""
    import ast

    if text[i:i + 1] and text[i] in "{[":
        end = _closing(text, i)
        if not end:
            return None
        raw = text[i:end]
        try:
            return json.loads(raw), end
        except ValueError:
            try:
                return ast.literal_eval(raw), end
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return None
    m = re.match(r"\"[^\"\n]*\"|'[^'\n]*'|-?\d+(?:\.\d+)?(?![\w.])|True\b|False\b|true\b|false\b|None\b|null\b", text[i:])
    if m is None:
        return None
    tok = m.group(0)
    v: object = tok[1:-1] if tok[:1] in "\"'" else {"true": True, "false": False, "none": None, "null": None}.get(
        tok.lower(), tok)
    if isinstance(v, str) and v is tok:
        v = float(tok) if "." in tok else int(tok)
    return v, i + m.end()


def _find_paths(text: str) -> Iterator[tuple[int, int]]:
    """A JSON Patch, a run of yq assignments, or a run of lines of a test that asserts a rendered object's
    values by path: each the edits it makes to the recipe's object."""
    decoder = json.JSONDecoder()
    for m in _JSON_PATCH_START.finditer(text):
        try:
            _data, end = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        yield m.start(), end
    for m in _YAML_PATCH_RUN.finditer(text):
        # (a kustomization's patch is its reader's, read with the object it targets)
        if not re.search(r"(?m)^[ \t]*-?[ \t]*(?:patches|patchesJson6902|patch)[ \t]*:", text[max(0, m.start() - 600):m.start()]):
            yield m.span()
    for m in _PATCH_CALL.finditer(text):  # cdk8s's escape hatch: "JsonPatch.add('/spec/...', 2)"
        if (got := _literal_at(text, m.end())) is not None:
            yield m.start(), got[1]
    for m in _MERGE_PATCH_OPTION.finditer(text):  # "kubectl patch hpa x --type merge -p '{...}'"
        if end := _closing(text, m.end()):
            # (the command's own object is the one the patch renames or changes: read with it)
            cmd = list(_KUBECTL_PATCH.finditer(text, 0, m.start()))
            start = cmd[-1].start() if cmd and "\n\n" not in text[cmd[-1].start():m.start()] else m.end()
            yield start, end
    lines = [ln for ln in re.finditer(r"[^\n]+", text)
             if _YQ_SET.search(ln.group(0)) or _PY_SET.search(ln.group(0)) or _PY_IN.search(ln.group(0))]
    i = 0
    while i < len(lines):
        j = i
        # (lines of one edit or one test: at most a few lines of other code between them)
        while j + 1 < len(lines) and text.count("\n", lines[j].end(), lines[j + 1].start()) <= 4:
            j += 1
        if j > i:  # two or more edits: a single "x = 3" line is no edit by path
            start, end = lines[i].start(), lines[j].end()
            last = list(_YQ_SET.finditer(text, lines[j].start(), end)) + list(_PY_SET.finditer(text, lines[j].start(), end))
            k = max((x.end() for x in last), default=len(text))
            if k < len(text) and text[k] in "{[":
                end = max(end, _closing(text, k) or end)  # a mapping over several lines
            # (the code around the edits in the same fenced block is theirs: "job = rendered['Job']" names no job)
            fence = next((f for f in FENCED_BODY.finditer(text)
                          if f.start(1) <= start and end <= f.end(1)), None)
            yield (fence.start(1), fence.end(1)) if fence else (start, end)
        i = j + 1


def _read_paths(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """The settings an edit by path makes: a JSON Patch's "replace" and "add" operations, yq's assignments,
    a test's ``x["spec"]["queue"] == "q"`` (and ``"ssh" not in x["spec"]["plugins"]``: no ssh plugin)."""
    facts: list[tuple[str, int, int]] = []
    ops: object = None
    if _JSON_PATCH_START.match(block.lstrip()):
        ops = json.loads(block)
    elif _YAML_PATCH_RUN.match(block):
        ops = _load(block)
    if (call := _PATCH_CALL.match(block)) and (got := _literal_at(block, call.end())) is not None:
        return _path_facts(_path_keys(call.group(2).split("/")), got[0], (0, len(block))), []
    if block.startswith("{") or _KUBECTL_PATCH.match(block):  # a merge patch: each setting it holds, by its path
        i = block.find("{")
        data = _load(block[i:_closing(block, i) or len(block)])
        return (_path_facts([], data, (i, len(block)), block) if isinstance(data, dict) else []), []
    if isinstance(ops, list):
        at = 0
        for op in ops:
            if not isinstance(op, dict) or op.get("op") not in ("replace", "add") or not isinstance(op.get("path"), str):
                continue
            sp = _span_of(block, re.escape(op["path"]), at) or (0, len(block))
            at = sp[1]
            facts += _path_facts(_path_keys(op["path"].split("/")), op.get("value"), (sp[0], sp[1]))
        return facts, []
    for rx, split in ((_YQ_SET, lambda p: re.findall(r"\"([^\"]+)\"|([\w-]+)", p)),
                      (_PY_SET, lambda p: re.findall(r"\"([^\"]*)\"|'([^']*)'", p))):
        for m in rx.finditer(block):
            got = _literal_at(block, m.end())
            if got is None:
                continue
            keys = _path_keys([a or b for a, b in split(m.group(1))])
            facts += _path_facts(keys, got[0], (m.start(), got[1]))
    for m in _PY_IN.finditer(block):
        keys = _path_keys([a or b for a, b in re.findall(r"\"([^\"]*)\"|'([^']*)'", m.group(3))])
        if keys:
            thing = key_words(keys[-1])[-1]
            thing = thing[:-1] if thing.endswith("s") and not thing.endswith("ss") else thing
            facts.append((f"{'no ' if m.group(2) else ''}{m.group(1)[1:-1]} {thing}", *m.span()))
    return facts, []


# ---------------------------------------------------------------- cloud and Helm command lines

# "helm install x chart --set replicaCount=2 \\", "aws fsx create-file-system --storage-capacity 4800":
# a command of a tool that takes its settings as options, over lines joined by a trailing backslash
# the subcommand of a cloud CLI that only reads what exists ("describe-instance-types", "list", "get")
READING_VERB = r"(?:describe|get|list|show|ls)(?:-[\w-]+)?"
_CLI_LINE = r"(?:[^\n\\]|\\(?![ \t]*\n))*"  # a line's text up to a backslash that joins the next line
_CLI_START = re.compile(r"(?m)^[ \t]*(?:\$[ \t]*)?(?:helm|aws|gcloud|az|eksctl)[ \t]+[a-z]"
                        + _CLI_LINE + r"(?:\\[ \t]*\n" + _CLI_LINE + ")*")
_CLI_TOKEN = re.compile(r"(?:[^\s\\\"']|\\(?!\s)|\"[^\"\n]*\"|'[^'\n]*')+")
_HELM_SET = frozenset({"--set", "--set-string"})
_SHORTHAND_PAIR = re.compile(r"([A-Za-z][\w.]*)=([^,\s]+)")


def _find_cli(text: str) -> Iterator[tuple[int, int]]:
    for m in _CLI_START.finditer(text):
        if "--" in m.group(0):
            yield m.span()


def _set_path(key: str) -> list[str]:
    """A ``--set`` key's path: dots part it, an escaped dot or a quoted part does not
    (``nodeSelector."nvidia\\.com/gpu\\.product"``)."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|((?:[^."\\]|\\.)+)', key)
    return [(q or p).replace("\\.", ".") for q, p in parts if q or p]


def _cli_value(raw: str) -> object:
    raw = raw.strip("\"'")
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    return {"true": True, "false": False}.get(raw.lower(), raw)


def _read_cli(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A command's options as settings: ``--set a.b=c`` a nested key, ``--flag value`` and
    ``--flag=value`` a key of its own, ``Key=Value,Key2=Value2`` (a cloud CLI's shorthand) one key each;
    ``helm install <release>`` names the object, and ``image.repository`` with ``image.tag`` is one image."""
    toks = [(m.group(0), m.start(), m.end()) for m in _CLI_TOKEN.finditer(block)]
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = []
    image: dict[str, tuple[str, int, int]] = {}
    words = [t for t, _a, _b in toks]
    # "aws ec2 describe-instance-types --filters Name=instance-type,...", "gcloud compute accelerator-types list":
    # a command that only reads what exists sets nothing (what it printed is read as output)
    if words and words[0] != "helm" and any(re.fullmatch(READING_VERB, w) for w in words[1:4]):
        return [], []
    # "helm install <release> <chart>", "helm upgrade --install <release> <chart>"
    release = next((k for k in range(2, min(len(words), 5)) if not words[k].startswith("-")), None) \
        if len(words) >= 3 and words[0] == "helm" and words[1] in ("install", "upgrade") else None
    if release is not None:
        # a chart of the team's own ("./charts/triton", "app-1.2.tgz") is the app being carried over: its
        # release names the object; a published chart ("prometheus-community/kube-prometheus-stack") is
        # a release of its own that the request may point at ("the release label it selects on")
        chart = words[release + 1] if release + 1 < len(words) else ""
        own = chart.startswith((".", "/", "~")) or chart.endswith(".tgz")
        facts.append((f"{'named' if own else 'release'} {words[release]}", toks[release][1], toks[release][2]))
        boiler.append((toks[0][1], toks[release - 1][2]))  # "helm upgrade --install"
    boiler += [m.span() for m in re.finditer(r"\\[ \t]*(?=\n)", block)]  # the backslashes that join lines
    i = 0
    while i < len(toks):
        tok, a, b = toks[i]
        if not tok.startswith("--") or len(tok) < 3:
            i += 1
            continue
        flag, eq, inline = tok.partition("=")
        if eq:
            raw, at, end = inline, a + len(flag) + 1, b
        elif i + 1 < len(toks) and not toks[i + 1][0].startswith("-"):
            raw, at, end = toks[i + 1][0], toks[i + 1][1], toks[i + 1][2]
            i += 1
            # a cloud CLI's list: "--instance-types p5.48xlarge p4de.24xlarge", values up to the next option
            more = []
            while flag not in _HELM_SET and i + 1 < len(toks) and not toks[i + 1][0].startswith("-") \
                    and "=" not in toks[i + 1][0]:
                more.append(toks[i + 1][0])
                end = toks[i + 1][2]
                i += 1
            if more:
                raw = " ".join([raw, *more])
        else:
            raw, at, end = "", b, b
        i += 1
        before = len(facts)
        if flag in _HELM_SET:
            for key, value in (pair.split("=", 1) for pair in re.split(r",(?=[^,=]+=)", raw) if "=" in pair):
                path = _set_path(key)
                if path[:1] == ["image"] and path[-1] in ("repository", "tag"):
                    image[path[-1]] = (value.strip("\"'"), a, end)
                    continue
                said = _setting_words(path, _cli_value(value))
                if said:
                    facts.append((said, a, end))
            if len(facts) > before or image:
                boiler.append((a, a + len(flag)))
            continue
        name = flag[2:]
        pairs = list(_SHORTHAND_PAIR.finditer(raw)) if "=" in raw else []
        if pairs and all(re.fullmatch(r"[A-Z][\w.]*", m.group(1)) for m in pairs):
            for m in pairs:  # each pair where it stands
                said = _setting_words([m.group(1)], _cli_value(m.group(2)))
                if said:
                    facts.append((said, at + m.start(), at + m.end()))
        elif raw:
            said = _setting_words([name], [_cli_value(x) for x in raw.split()] if " " in raw else _cli_value(raw))
            if said:
                facts.append((said, a, end))
        if len(facts) > before:
            boiler.append((a, a + len(flag)))  # the option's name: its value says what it sets
    if "repository" in image:
        repo, a, b = image["repository"]
        tag = image.get("tag")
        ref = _image_ref(repo, tag[0] if tag else None)
        facts.append((f"image {ref}", min(a, tag[1] if tag else a), max(b, tag[2] if tag else b)))
    return facts, boiler


# ---------------------------------------------------------------- commands that create an object

# "kubectl run x --image=y --limits=nvidia.com/gpu=8", "kubectl create quota q -n ns --hard=...", "vcctl queue create
# --name x --weight 3", "runai submit-dist mpi x -i img --workers 16 -- cmd": a command that creates the object itself
_CREATE_START = re.compile(r"(?m)^[ \t]*(?:\$[ \t]*)?(?:kubectl[ \t]+(?:run|create)|vcctl[ \t]+[a-z]+[ \t]+(?:create|run)|"
                           r"runai[ \t]+submit[\w-]*)[ \t]" + _CLI_LINE + r"(?:\\[ \t]*\n" + _CLI_LINE + ")*")
# the words between the tool and the object's name: its verb and the kind it creates
_CREATE_VERBS = frozenset({"run", "create", "submit", "submit-dist", "queue", "job", "mpi", "pytorch", "tf", "xgboost"})
# options that take no value
_LONE_FLAGS = frozenset({"--rm", "-it", "-ti", "--tty", "-t", "--stdin", "--attach", "--interactive", "--save-config"})
# options whose values say what a request carries over only in part (reported as written)
_UNREAD_FLAGS = frozenset({"--labels", "-l", "--annotations", "--overrides", "--env", "-e", "--port", "--dry-run", "-o",
                           "--output", "--restart", "--image-pull-policy"})
_SHORT_FLAGS = {"kubectl": {"-n": "namespace"}, "vcctl": {"-n": "namespace"},
                "runai": {"-i": "image", "-p": "project", "-g": "gpu"}}
_RESOURCE_LISTS = frozenset({"--limits", "--requests", "--hard"})


def _read_create(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A command that creates the object: its name (the first word after the verb and kind, or ``--name``),
    ``-n``/``--namespace``, ``--image``, resource lists (``--limits=nvidia.com/gpu=8``, a quota's ``--hard``),
    other options as settings of their own ("--value=900000", "--workers 16") and the command after ``--``."""
    toks = [(m.group(0), m.start(), m.end()) for m in _CLI_TOKEN.finditer(block)]
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = [m.span() for m in re.finditer(r"\\[ \t]*(?=\n)", block)]
    if not toks:
        return [], []
    tool = toks[0][0]
    short = _SHORT_FLAGS.get(tool, {})
    i = 1
    while i < len(toks) and toks[i][0] in _CREATE_VERBS:
        i += 1
    if tool == "kubectl" and toks[1][0] == "create" and i < len(toks) and not toks[i][0].startswith("-"):
        i += 1  # "kubectl create priorityclass x": the kind, then the name
    boiler.append((toks[0][1], toks[i - 1][2]))
    named = False
    while i < len(toks):
        tok, a, b = toks[i]
        if tok == "--":  # the container's command
            if i + 1 < len(toks):
                facts.append((f"command: {block[toks[i + 1][1]:toks[-1][2]].strip()}", toks[i + 1][1], toks[-1][2]))
                boiler.append((a, b))
            break
        if not tok.startswith("-"):
            if not named:
                facts.append((f"named {tok.strip(chr(34) + chr(39))}", a, b))
                named = True
            i += 1
            continue
        flag, eq, inline = tok.partition("=")
        if tok in _LONE_FLAGS:
            boiler.append((a, b))
            i += 1
            continue
        if eq:
            raw, end = inline, b
        elif i + 1 < len(toks) and not toks[i + 1][0].startswith("-"):
            raw, end = toks[i + 1][0], toks[i + 1][2]
            i += 1
        else:
            raw, end = "", b
        i += 1
        raw = raw.strip("\"'")
        key = short.get(flag, flag.lstrip("-"))
        if flag in _UNREAD_FLAGS or not raw:
            continue
        if flag in _RESOURCE_LISTS:
            at = a
            for pair in raw.split(","):
                k, _, v = pair.partition("=")
                here = block.find(pair, at, end)
                sp = (here, here + len(pair)) if here >= 0 else (a, end)
                at = max(at, sp[1])
                if v and (said := _setting_words([k.strip()], _cli_value(v))):
                    facts.append((said, *sp))  # each resource where it stands: one read leaves the others to report
            boiler.append((a, a + len(flag)))
            continue
        said = _setting_words([key], _cli_value(raw))  # ("-n ns" is "namespace ns", as any settings key says it)
        if said:
            facts.append((said, a, end))
            boiler.append((a, a + len(flag)))
    return facts, boiler


# ---------------------------------------------------------------- MIG


def _read_mig_parted(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A mig-parted config file: the one layout under ``mig-configs`` is the config's name, and its
    ``mig-devices`` say how many of each profile a GPU holds."""
    data = _load(block)
    facts: list[tuple[str, int, int]] = []
    layouts = data.get("mig-configs") if isinstance(data, dict) else None
    if not isinstance(layouts, dict) or len(layouts) != 1:
        return facts, []
    name, entries = next(iter(layouts.items()))
    if (sp := _key_line(block, str(name))):
        facts.append((f"layout {name}", *sp))
    for entry in entries if isinstance(entries, list) else []:
        devices = entry.get("mig-devices") if isinstance(entry, dict) else None
        for profile, n in (devices or {}).items() if isinstance(devices, dict) else ():
            if isinstance(n, int) and (sp := _span_of(block, rf"[\"']?{re.escape(str(profile))}[\"']?\s*:\s*{n}")):
                facts.append((f"{n}x {profile}", *sp))
    plate = [sp for key in ("version", "mig-configs", "devices", "mig-enabled", "mig-devices")
             if (sp := _key_line(block, key))]
    return facts, plate


# ---------------------------------------------------------------- tables


def _find_tables(text: str) -> Iterator[tuple[int, int]]:
    """A Markdown table: two or more lines that open and close with a pipe."""
    for m in re.finditer(r"(?m)^[ \t]*\|[^\n]*\|[ \t]*(?:\n[ \t]*\|[^\n]*\|[ \t]*)+$", text):
        yield m.span()


_TABLE_RULE = re.compile(r"[\s|:-]+")
# a cell that says a thing is absent or off
_NO_CELL = re.compile(r"(?i)no|none|off|false|disabled?|n/?a|-+|—")
_YES_CELL = re.compile(r"(?i)yes|y|true|on|enabled?|\u2713|\u2714")
_PER_SLASH_RX = re.compile(r"(?<=[A-Za-z])\s*/\s*(?=[A-Za-z])")


def _per_slash(key: str) -> str:
    """"GPUs / replica", "GPUs/replica": an amount per unit, said as one ("GPUs per replica"); a resource
    name ("requests.nvidia.com/gpu", "nvidia.com/mig-1g.10gb"), a domain before its slash, stays whole."""
    def one(m: re.Match[str]) -> str:
        left = re.search(r"[\w.-]*$", key[:m.start()])
        return m.group(0) if m.group(0) == "/" and left is not None and "." in left.group(0) else " per "
    return _PER_SLASH_RX.sub(one, key)
_COUNT_HEADS = frozenset({"count", "number", "qty", "quantity", "instances", "#", "amount", "n"})
# the first two columns of a table of settings ("| setting | value | notes |", "| Field | Value | Why |")
_KEY_HEADS = frozenset({"setting", "settings", "parameter", "param", "field", "key", "option", "property", "item",
                        "knob", "config", "attribute", "what"})
_VALUE_HEADS = frozenset({"value", "values", "new value", "target", "desired", "want", "choice", "answer", "set to"})


def _cell(text: str) -> str:
    """A table cell without its Markdown marks ("**nlp**", "`h100`"), keeping a regular
    expression's own stars (".*a100-spot.*")."""
    cell = text.strip().strip("`")
    m = re.fullmatch(r"(\*{1,2}|_{1,2})(\S(?:.*\S)?)\1", cell)
    return m.group(2) if m else cell


def _cell_words(key: str, value: str) -> str:
    """A table cell under its key as words: "no taint" for a cell saying none, the key alone for a
    cell saying yes under a question ("preempts?" -> "preempts"), else "GPUs per pod 2"."""
    key = _per_slash(key)
    if key.rstrip().endswith("?"):
        key = key.rstrip().rstrip("?").rstrip()
        if _YES_CELL.fullmatch(value):
            return key
    return f"no {key}" if _NO_CELL.fullmatch(value) else f"{key} {value}"


def _read_table(block: str) -> tuple[list[tuple[Any, ...]], list[tuple[int, int]]]:
    """A table of settings says what a spec's lines would: a two-column row is a field line
    ("| Replicas | five |" -> "Replicas: five"), a row that counts a thing says how many
    ("| 1g.10gb | 2 |" -> "2 1g.10gb"), and a row of objects names one per row
    ("| ClusterQueue | llm-cq | quota 64 |" under a "Name" column -> "ClusterQueue: llm-cq", "quota 64")."""
    rows: list[tuple[list[str], int, int]] = []
    spans: list[list[tuple[int, int]]] = []  # each row's cells, where they stand in the block
    header: list[str] | None = None
    plate: list[tuple[int, int]] = []
    for ln in re.finditer(r"[^\n]+", block):
        line = ln.group(0)
        if _TABLE_RULE.fullmatch(line):
            if len(rows) == 1 and header is None:
                header = [h.lower() for h in rows.pop()[0]]  # the first row is the header
                spans.pop()
                plate.append((0, ln.end()))
            continue
        found = [(_cell(c.group(1)), ln.start() + c.start(1), ln.start() + c.end(1))
                 for c in re.finditer(r"(?<=\|)([^|]*)(?=\|)", line)]
        rows.append(([c[0] for c in found], ln.start(), ln.end()))
        spans.append([(a, b) for _c, a, b in found])
    facts: list[tuple[Any, ...]] = []
    counted = header is not None and len(header) == 2 and header[1] in _COUNT_HEADS
    # a table of settings and their values, with columns of remarks beside them
    keyed = header is not None and len(header) >= 3 and header[0] in _KEY_HEADS and header[1] in _VALUE_HEADS
    for (cells, a, b), where in zip(rows, spans):
        if len(cells) == 2 and all(cells):
            key, value = cells
            if counted or (re.search(r"\d", key) and re.fullmatch(r"\d+|[a-z]+", value, re.I)):
                facts.append((f"{value} {key}", a, b))
            elif _NO_CELL.fullmatch(value):
                facts.append((_cell_words(key, value), a, b))  # "| taint | none |": there is none
            else:
                # "GPUs / replica", "GPUs/replica": an amount per unit, said as one ("2 GPUs per replica")
                key = _per_slash(key)
                per = re.search(r"\sper\s", key) and re.fullmatch(r"\d+(?:\.\d+)?|[a-z]+", value, re.I)
                facts.append((f"{value} {key}" if per else f"{key}: {value}", a, b))
        elif keyed and header is not None and len(cells) == len(header) and cells[0] and cells[1]:
            # "| setting | value | notes |": each row a field line; the notes say why, and are reported on
            # their own when nothing reads them, never read as the setting
            facts.append((_cell_words(cells[0], cells[1]) if _NO_CELL.fullmatch(cells[1]) else
                          f"{_per_slash(cells[0])}: {cells[1]}", where[0][0], where[1][1]))
            facts += [(c, *where[j], NOTE) for j, c in enumerate(cells) if j >= 2 and c]
        elif header is not None and len(cells) == len(header) and "name" in header[1:]:
            i = header.index("name", 1)
            facts.append((f"{cells[0]}: {cells[i]}", where[0][0], where[i][1]))
            # each other cell says something of its own, and is reported on its own when nothing reads it
            facts += [(c, *where[j]) for j, c in enumerate(cells) if j not in (0, i) and c]
        elif header is not None and len(cells) == len(header) and len(rows) == 1:
            # the one row of a table with a column per setting: each cell a setting of its own, under its column
            facts += [(_cell_words(h, c), *where[j]) for j, (h, c) in enumerate(zip(header, cells)) if c and h]
        elif header is not None and len(cells) == len(header):
            # "| batch-train | 1000 | no |" under "may preempt": "may preempt" is no
            facts.append((", ".join(_cell_words(h, c) for h, c in zip(header, cells) if c), a, b))
    return facts, plate


# ---------------------------------------------------------------- CSV rows (a spreadsheet's export)

# a header cell: a column's name ("gpus", "gpu_product", "max GPUs", "lend_max")
_CSV_HEAD_CELL = re.compile(r"[A-Za-z#][\w ./#()-]{0,30}")


def _csv_fields(line: str) -> list[str] | None:
    """A line's cells: tab-separated as a spreadsheet copies them, else comma-separated."""
    import csv

    try:
        row = next(csv.reader([line], delimiter="\t" if "\t" in line.strip() else ",", skipinitialspace=True))
    except (csv.Error, StopIteration):
        return None
    return [c.strip() for c in row]


def _find_csv(text: str) -> Iterator[tuple[int, int]]:
    """Rows pasted from a spreadsheet: a header line of column names, then one line or more with as many
    comma-separated cells, short ones, at least one of them a number."""
    lines = list(re.finditer(r"[^\n]+", text))
    i = 0
    while i < len(lines):
        head = _csv_fields(lines[i].group(0))
        if not head or len(head) < 2 or not all(_CSV_HEAD_CELL.fullmatch(h) for h in head) or \
                any(len(h.split()) > 3 for h in head) or len({h.lower() for h in head}) < len(head):
            i += 1
            continue
        j = i + 1
        while j < len(lines):
            row = _csv_fields(lines[j].group(0))
            if not row or len(row) != len(head) or any(len(c.split()) > 6 for c in row):
                break
            j += 1
        rows = [_csv_fields(ln.group(0)) or [] for ln in lines[i + 1:j]]
        # a spreadsheet writes its commas bare, or has three columns or more ("ns inference, name x" is prose)
        bare = not any(re.search(r",\s", ln.group(0)) for ln in lines[i:j])
        if rows and any(re.search(r"\d", c) for r in rows for c in r) and (bare or len(head) >= 3) and \
                not any(re.search(r"\d", h) for h in head):
            yield lines[i].start(), lines[j - 1].end()
            i = j
        else:
            i += 1


def csv_rows(text: str) -> set[int]:
    """The numbers of the lines of ``text`` that are CSV rows (header included)."""
    out: set[int] = set()
    for a, b in _find_csv(text):
        first = text.count("\n", 0, a)
        out.update(range(first, first + text.count("\n", a, b) + 1))
    return out


def _read_csv(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """CSV rows read like a table of the same cells: one data row says each setting under its column
    ("gpus" 16 -> "16 gpus", as a settings file would); several rows name one object each, as a table's."""
    found = list(re.finditer(r"[^\n]+", block))
    header = [h.lower() for h in _csv_fields(found[0].group(0)) or []]
    rows = []
    for ln in found[1:]:
        cells, at = [], ln.start()
        for c in _csv_fields(ln.group(0)) or []:
            k = block.find(c, at, ln.end()) if c else -1
            a = k if k >= 0 else at
            cells.append((c, a, a + len(c)))
            at = a + len(c)
        rows.append(cells)
    plate = [(0, found[0].end())]
    if len(rows) == 1:
        facts = []
        for h, (c, a, b) in zip(header, rows[0]):
            words = _setting_words([h], _assigned(c)) if c else None
            if words:
                facts.append((words, a, b))
        return facts, plate
    pipe = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] +
                      ["| " + " | ".join(c for c, _a, _b in r) + " |" for r in rows])
    facts, _ = _read_table(pipe)
    # each fact stands for its row: where the row stands in the block
    starts = [m.start() for m in re.finditer(r"(?m)^\|", pipe)][2:]
    out = []
    for words, a, _b in facts:
        k = max((n for n, st in enumerate(starts) if st <= a), default=0)
        out.append((words, rows[k][0][1], rows[k][-1][2]))
    return out, plate


# ---------------------------------------------------------------- kubectl get output

# "NAME   REFERENCE   TARGETS   MINPODS": a header of upper-case column names, two spaces or more apart
_KUBECTL_HEAD = re.compile(r"(?m)^[ \t]*NAME(?:[ \t]{2,}[A-Z][A-Z0-9-]*(?: [A-Z][A-Z0-9-]*)?)+[ \t]*$")
# columns that report how an object is doing, not how it is set up
_STATUS_COLUMNS = frozenset({"age", "status", "ready", "restarts", "up-to-date", "available", "current", "targets",
                             "replicas", "pending workloads", "admitted workloads", "reserving", "admitted", "finished",
                             "phase", "nominated node", "readiness gates", "ip", "node", "external-ip", "volume",
                             "bound", "claim", "reason", "voluntary", "allowed disruptions", "completions",
                             "duration", "desired"})
# kubectl's column names in the words a request would use
_KUBECTL_COLUMNS = {"minpods": "min replicas", "maxpods": "max replicas", "capacity": "size",
                    "storageclass": "storage class", "access modes": "access mode", "cluster queue": "cluster queue",
                    "value": "value", "global-default": "global default", "preemptionpolicy": "preemption policy"}


def _find_kubectl_tables(text: str) -> Iterator[tuple[int, int]]:
    """The output of ``kubectl get``: the header and the rows under it, up to a blank line or a fence."""
    for m in _KUBECTL_HEAD.finditer(text):
        end = m.end()
        for row in re.finditer(r"\n([^\n]*)", text[end:]):
            if not row.group(1).strip() or row.group(1).strip().startswith("```"):
                break
            end = m.end() + row.end()
        if end > m.end():
            yield m.start(), end


def _read_kubectl_table(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """The one row of a ``kubectl get`` table as settings: each cell under its column ("min replicas 2",
    "name triton-hpa", "deployment triton" for a REFERENCE of Deployment/triton). Columns that report
    status (AGE, READY, TARGETS) say nothing to set. With several rows it is unclear which object is
    meant: nothing is read."""
    lines = list(re.finditer(r"[^\n]+", block))
    if len(lines) != 2:
        return [], [(0, len(block))] if lines else []
    head, row = lines
    cols = [(c.start(), c.group(0).strip().lower()) for c in re.finditer(r"\S+(?: \S+)*", head.group(0))]
    cells = [(c.start(), c.end(), c.group(0)) for c in re.finditer(r"\S+(?: \S+)*", row.group(0))]
    if len(cells) != len(cols):
        return [], [(0, len(block))]
    facts: list[tuple[str, int, int]] = []
    for (_at, col), (x, y, value) in zip(cols, cells):
        a, b = row.start() + x, row.start() + y
        if col in _STATUS_COLUMNS or value in ("<none>", "<unset>", "<pending>"):
            continue
        if col == "reference" and "/" in value:  # "Deployment/triton": the object it points at
            kind, _, target = value.partition("/")
            facts.append((f"{kind.lower()} {target}", a, b))
        else:
            facts.append((_cell_words(_KUBECTL_COLUMNS.get(col, col), value), a, b))
    return facts, [(head.start(), head.end())]


# ---------------------------------------------------------------- calls in code

# a call with keyword arguments in a pasted script: "KubernetesPodOperator(", "hpa.replicas(", "@kubernetes("
# (the name against its parenthesis, as code writes it: "SMs (X=60)" in prose is a remark)
_CALL_START = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*(?:\(\))?\.)*[A-Za-z_]\w*\(")
# a call's name that only says "do it" ("create_job", "new", "TrainingClient().submit"): its arguments are the
# object's own settings
_DOING = frozenset("""create new make build run submit launch start add set with call apply init deploy
define register""".split())


def _find_calls(text: str) -> Iterator[tuple[int, int]]:
    """A call with keyword arguments in pasted Python (an Airflow operator, a training client's
    ``create_job``, a flow's decorator, a library's builder chain), that Python's own parser reads."""
    import ast

    pos = 0
    while m := _CALL_START.search(text, pos):
        end = _closing(text, m.end() - 1, comments=True)
        if not end:
            pos = m.end()
            continue
        try:
            node = ast.parse(text[m.start():end].strip(), mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            pos = m.end()
            continue
        if isinstance(node, ast.Call) and node.keywords:
            yield m.start(), end
            pos = end
        else:
            pos = m.end()


def _call_name(func: object) -> str:
    import ast

    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def evaluated(node: object) -> object:
    """A call argument's value: a literal, arithmetic on numbers ("15 * 60"), a nested call as the mapping of
    its keyword arguments (``V1Toleration(key=..., operator="Exists")``), lists and mappings of these; None
    for what only running the code would give."""
    import ast
    import operator

    if isinstance(node, ast.Constant):
        return node.value
    ops = {ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub, ast.FloorDiv: operator.floordiv}
    if isinstance(node, ast.BinOp) and type(node.op) in ops:
        a, b = evaluated(node.left), evaluated(node.right)
        if all(isinstance(x, int) and not isinstance(x, bool) and abs(x) < 10 ** 9 for x in (a, b)) and \
                not (b == 0 and isinstance(node.op, ast.FloorDiv)):
            return ops[type(node.op)](a, b)
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [evaluated(x) for x in node.elts]
        return items if all(x is not None for x in items) else None
    if isinstance(node, ast.Dict):
        keys = [evaluated(k) for k in node.keys]
        return {str(k): v for k, x in zip(keys, node.values) if k is not None and (v := evaluated(x)) is not None}
    if isinstance(node, ast.Call):
        return {kw.arg: v for kw in node.keywords if kw.arg and (v := evaluated(kw.value)) is not None}
    return None


def _read_call(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """A call's keyword arguments as settings: under the call's name when it names a part of the object
    (``hpa.replicas(min=2, max=10)``: the replicas' bounds), as the object's own when the call only makes it
    (``KubernetesPodOperator(...)``, ``create_job(...)``); a bound's keyword goes first ("min replicas")."""
    import ast

    node = ast.parse(block.strip(), mode="eval").body
    assert isinstance(node, ast.Call)
    name = _call_name(node.func)
    words = key_words(name)
    own = not name or name[:1].isupper() or bool(words and words[0] in _DOING)
    data: dict[str, object] = {}
    for kw in node.keywords:
        v = evaluated(kw.value)
        if kw.arg is None or v is None:
            continue
        if own:
            data[kw.arg] = v
        elif kw.arg.lower() in ("min", "max", "minimum", "maximum"):
            data[f"{kw.arg}_{name}"] = v
        else:
            data.setdefault(name, {})[kw.arg] = v  # type: ignore[index]
    # (a container's resources, "resources_per_worker={"gpu": 8}", "V1ResourceRequirements(limits={...})", are
    # the pod's own amounts)
    for key in [k for k, v in data.items() if isinstance(v, dict) and "resources" in key_words(k)]:
        inner = data.pop(key)
        assert isinstance(inner, dict)
        for part in [p for p in ("limits", "requests") if isinstance(inner.get(p), dict)]:
            inner = {**inner.pop(part), **inner}
        for k, v in inner.items():
            data.setdefault(k, v)
    data = _one_item_lists(data)  # type: ignore[assignment]

    def where(key: str, v: object) -> str:
        if key.lower().startswith(("min_", "max_", "minimum_", "maximum_")) and key.split("_", 1)[1] == name:
            key = key.split("_", 1)[0]  # "min=2" of "replicas(min=2, ...)"
        if key == name:
            return rf"(?<![\w]){re.escape(key)}[ \t]*\("
        value = r"\[[^\]]*\]" if isinstance(v, list) else r"[^,)}\n]*"
        return rf"(?<![\w.]){re.escape(key)}[ \t]*=[ \t]*{value}|[\"']{re.escape(key)}[\"'][ \t]*:[ \t]*{value}"
    # (the call's own name is the code's, understood)
    opened = _CALL_START.match(block.lstrip())
    at = len(block) - len(block.lstrip())
    return _settings_facts(data, block, where), [(at, at + opened.end())] if opened else []


# ---------------------------------------------------------------- transcripts

# a turn of a chat transcript or an FAQ: "bot: How many GPUs?", "me: twelve", "Q: Upper bound?", "**A:** six",
# "[10:02] dana: ..."; the speaker is one or two words
_TURN = re.compile(r"[ \t]*(?:[>*-][ \t]+)?(?:\[[^\]\n]{1,24}\][ \t]*|\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]*[ap]m)?[ \t]+)?"
                   r"(?:\*\*|__)?(?P<who>[A-Za-z][\w.@'-]{0,20}(?:[ \t][A-Za-z][\w.@'-]{0,20})?)[ \t]*"
                   r"(?:\*\*|__)?:(?:\*\*|__)?[ \t]+(?P<said>\S[^\n]*?)[ \t]*", re.I)
# words that open a question or an answer and say nothing ("And CPU / memory?", "ok so, which image?")
_FILLER = re.compile(r"(?i)^(?:(?:and|also|so|ok(?:ay)?|great|cool|now|then|next|last(?:ly)?|finally|first|one more|"
                     r"thanks|thank you|got it|perfect)\b[,!.:]?[ \t]*)+")
# the thing a question asks for: "How many GPUs should the queue get?", "Which namespace is the team in?",
# "What's the image?"
_ASKED_FOR = re.compile(r"(?i)(?:how[ \t]+(?:many|much)|which|what(?:'s|[ \t]+is|[ \t]+are)?(?:[ \t]+the)?)[ \t]+"
                        r"(?P<noun>.+?)(?:[ \t]+(?:should|shall|do|does|did|will|would|can|could|is|are|was|were|must|"
                        r"has|have|you|we|they|it|i|to|for[ \t]+(?:it|this|them))\b.*)?")
# a question's head that each of its things shares: "Names for the ClusterQueue and the LocalQueue?"
_SHARED_HEAD = re.compile(r"(?i)(?P<head>name|size|number|count|image|version)s?[ \t]+(?:for|of)[ \t]+(?P<rest>.+)")


def _turns(block: str) -> list[tuple[str, int, int, int]]:
    """Each turn of a transcript: the speaker (lower case), where the words said start and end, and where
    its line starts."""
    out = []
    for m in re.finditer(r"[^\n]+", block):
        t = _TURN.fullmatch(m.group(0))
        if t:
            out.append((t.group("who").lower(), m.start() + t.start("said"), m.start() + t.end("said"), m.start()))
    return out


def _asker(turns: list[tuple[str, int, int, int]], block: str) -> str | None:
    """The speaker who asks: two speakers take turns, the one who opens asks at least two questions, most of
    its turns are questions, and the other answers more than it asks (a settings list has no speaker twice; in
    a thread where the one who wants the thing opens, the other's questions are a colleague's, not a form's)."""
    who = Counter(t[0] for t in turns)
    if len(who) != 2 or min(who.values()) < 2:
        return None
    asks = Counter(t[0] for t in turns if "?" in block[t[1]:t[2]])
    if not asks:
        return None
    asker, n = asks.most_common(1)[0]
    other = next(w for w in who if w != asker)
    if turns[0][0] != asker or n < 2 or n * 2 < who[asker] or asks[other] >= n:
        return None
    changes = sum(a[0] != b[0] for a, b in zip(turns, turns[1:]))
    return asker if changes * 3 >= (len(turns) - 1) * 2 else None


def _find_transcript(text: str) -> Iterator[tuple[int, int]]:
    """A chat transcript or an FAQ pasted into a request: runs of turns ("bot: ...", "me: ...") whose one
    speaker asks and the other answers."""
    run: list[tuple[int, int]] = []

    def done() -> Iterator[tuple[int, int]]:
        if len(run) >= 4:
            a, b = run[0][0], run[-1][1]
            if _asker(_turns(text[a:b]), text[a:b]):
                yield a, b

    for m in re.finditer(r"[^\n]*", text):
        line = m.group(0)
        if _TURN.fullmatch(line):
            run.append(m.span())
        elif line.strip():
            yield from done()
            run = []
    yield from done()


def _quoted_mask(s: str) -> str:
    """``s`` with what stands inside quotes or backticks blanked, so that a separator inside them splits nothing."""
    return re.sub(r"`[^`]*`|\"[^\"]*\"|'[^'\s][^']*'", lambda m: "_" * len(m.group(0)), s)


def _each(keys: list[str], answer: str, at: int) -> list[tuple[str, int, int]] | None:
    """An answer that gives the question's several things in turn ("Pod name and namespace?" "x in y",
    "CPU / memory?" "96 cores, 768Gi"), one fact each; None when its parts do not match the things."""
    mask = _quoted_mask(answer)
    seps = [r",?[ \t]+and[ \t]+", r"[ \t]*[,;][ \t]*", r"[ \t]*/[ \t]*"]
    if re.search(r"(?i)namespace$", keys[-1]):
        seps.append(r"[ \t]+in[ \t]+(?:namespace[ \t]+|ns[ \t]+)?")
    for sep in seps:
        cuts = list(re.finditer(sep, mask))
        if len(cuts) == len(keys) - 1:
            bounds = [0, *[x for c in cuts for x in c.span()], len(answer)]
            parts = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
            if all(answer[x:y].strip() for x, y in parts):
                # (each part's span runs to the next one's, so that "and" or "in" between them is understood)
                ends = [x for x, _y in parts[1:]] + [len(answer)]
                return [(f"{k}: {answer[x:y].strip()}", at + x, at + e) for k, (x, y), e in zip(keys, parts, ends)]
    return None


def _answered(question: str, answer: str, at: int) -> list[tuple[str, int, int]]:
    """The facts of one answer, read with the question it answers: the thing asked for is the answer's key
    ("How many GPUs?" "twelve": "GPUs: twelve"); an answer that picks one of the question's options is that
    option ("strict FIFO or best-effort?" "strict": "strict FIFO"); an answer to a question with no thing
    named ("What are we scaling?") stands alone."""
    whole = [(answer, at, at + len(answer))]
    asked = [s for s in re.split(r"(?<=[.!?])\s+", question) if "?" in s]
    if not asked:
        return whole
    key = _FILLER.sub("", asked[-1].rstrip("?").strip()).strip()
    no = re.match(r"(?i)(?:no|nope|nah|not really)\b[,.!:;]?[ \t]*", answer)
    if no and re.match(r"(?i)(?:should|shall|do|does|will|would|can|could|is|are|must|any|want)\b", key):
        # a question answered "no" declines what it offers, and sets nothing; what the answer goes on to say stands
        rest = answer[no.end():]
        return [(rest, at, at + len(answer))] if rest.strip() else []
    choice = key.rsplit(": ", 1)[-1]
    if re.search(r"(?i)\bor\b", choice):
        lead = re.match(r"[\w-]+(?:\.[\w-]+)*", answer)
        for opt in re.split(r"(?i)[ \t]*(?:,[ \t]*(?:or[ \t]+)?|\bor\b)[ \t]*", choice):
            opt = re.sub(r"^(?:the|a|an)\s+", "", opt.strip(), flags=re.I)
            words = re.findall(r"[A-Za-z][\w-]*", opt)
            if lead and words and (opt.lower().startswith(lead.group(0).lower())
                                   or "".join(w[0] for w in words).lower() == lead.group(0).lower()):
                said = opt if opt.lower().startswith(lead.group(0).lower()) else lead.group(0)
                return [(said + answer[lead.end():], at, at + len(answer))]
    m = _ASKED_FOR.fullmatch(key)
    if m:
        key = m.group("noun").strip()
        if re.fullmatch(r"(?i)(?:we|you|they|it|this|that|i|of)\b.*", key):
            return whole
    elif re.match(r"(?i)(?:when|why|where|who|how)\b", key):
        return [(f"{key}: {answer}", at, at + len(answer))]
    head = _SHARED_HEAD.fullmatch(key)
    things = re.split(r"(?i),?[ \t]+and[ \t]+|[ \t]*[,/&][ \t]*", head.group("rest") if head else key)
    things = [re.sub(r"(?i)^(?:the|a|an)[ \t]+", "", t).strip() for t in things]
    if head:
        things = [f"{t} {head.group('head').lower()}" for t in things]
    if len(things) > 1 and all(things) and (got := _each(things, answer, at)):
        return got
    return [(f"{key}: {answer}", at, at + len(answer))]


def _read_transcript(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """Each answer with the question before it; the asking side's turns are boilerplate (a bot's question is
    no part of the request)."""
    turns = _turns(block)
    asker = _asker(turns, block)
    facts: list[tuple[str, int, int]] = []
    boiler: list[tuple[int, int]] = []
    for i, (who, a, b, line) in enumerate(turns):
        if who == asker:
            boiler.append((a, b))
            continue
        answer = block[a:b]
        lead = _FILLER.match(answer)
        skip = lead.end() if lead and lead.end() < len(answer) else 0
        if i and turns[i - 1][0] == asker:
            got = _answered(block[turns[i - 1][1]:turns[i - 1][2]], answer[skip:], a + skip)
            facts += got
            if not got:
                boiler.append((a, b))  # a plain "no" to what the question offers: understood, it sets nothing
        else:
            facts.append((answer, a, b))
    return facts, boiler


# ---------------------------------------------------------------- TOML and INI

_SECTION_LINE = re.compile(r"[ \t]*\[{1,2}[ \t]*(?P<name>[\w\-\". ]+?)[ \t]*\]{1,2}[ \t]*(?:#[^\n]*)?")


def _find_sectioned(text: str) -> Iterator[tuple[int, int]]:
    """A settings file in sections ("[job]" then "name = x", TOML or INI): runs of section headers,
    ``key = value`` lines, blank lines and comments, with a header and two settings at least."""
    start = end = None
    heads = keys = 0
    for m in re.finditer(r"[^\n]*(?:\n|$)", text):
        line = m.group(0).rstrip("\n")
        head = _SECTION_LINE.fullmatch(line)
        key = not head and _ASSIGNMENT.fullmatch(line)
        if head or key or (start is not None and (not line.strip() or line.lstrip().startswith(("#", ";")))):
            if start is None:
                start, heads, keys = m.start(), 0, 0
            heads += bool(head)
            keys += bool(key)
            if head or key:
                end = m.start() + len(line)
        else:
            if start is not None and end is not None and heads and keys >= 2:
                yield start, end
            start = end = None
        if not m.group(0):
            break
    if start is not None and end is not None and heads and keys >= 2:
        yield start, end


def _sections(block: str) -> dict[str, Any]:
    """The settings of a sectioned file: TOML when it parses as such, otherwise INI (values as written)."""
    import tomllib

    try:
        return tomllib.loads(block)
    except tomllib.TOMLDecodeError:
        import configparser

        parser = configparser.ConfigParser(interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # (keys keep their case)
        try:
            parser.read_string(block)
        except configparser.Error as exc:
            raise ValueError(str(exc)) from exc
        data: dict[str, Any] = {}
        for sec in parser.sections():
            table = data
            for part in sec.split("."):
                table = table.setdefault(part.strip().strip('"'), {})
            table.update({k: _assigned(v) for k, v in parser.items(sec)})
        return data


def _read_sectioned(block: str) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """Each section's settings: one of several sections under the same one ("[tasks.master]", "[tasks.worker]"),
    or of several with the same keys, is one thing described ("worker: 3 replicas, 8 gpus."); another
    section's keys are read as the file's own ("[job]" / "name = x": named x)."""
    data = _sections(block)
    heads = [(m.group("name"), m.start(), m.end()) for m in re.finditer(r"(?m)^" + _SECTION_LINE.pattern + "$", block)]
    facts: list[tuple[str, int, int]] = []
    tables: list[tuple[list[str], dict[str, Any]]] = []

    def walk(path: list[str], table: dict[str, Any]) -> None:
        if any(not isinstance(v, dict) for v in table.values()):
            tables.append((path, {k: v for k, v in table.items() if not isinstance(v, dict)}))
        for k, v in table.items():
            if isinstance(v, dict):
                walk([*path, str(k)], v)

    walk([], data)
    shapes = Counter(frozenset(t) for p, t in tables if p)
    parents = Counter(tuple(p[:-1]) for p, _t in tables if len(p) >= 2)

    def where(k: str, _v: object) -> str:
        return rf"(?m)^[ \t]*{re.escape(k)}[ \t]*[=:][^\n]*"

    for path, table in tables:
        name = ".".join(path)
        head = next(((a, b) for h, a, b in heads if ".".join(x.strip().strip('"') for x in h.split(".")) == name), None)
        at = head[1] if head else 0
        if (len(path) >= 2 and parents[tuple(path[:-1])] >= 2) or (path and shapes[frozenset(table)] >= 2):
            said = [w for k, v in table.items() if (w := _setting_words([str(k)], v)) and not w.startswith("named ")]
            ends = [sp[1] for k in table if (sp := _span_of(block, where(str(k), None), at))]
            if said and head and ends:
                facts.append((f"{path[-1]}: {', '.join(said)}.", head[0], max(ends)))
            continue
        if len(path) >= 2 and head and not any(str(k).lower() in _NAME_KEYS for k in table):
            facts.append((f"named {path[-1]}", head[0], head[1]))  # "[pools.a100-train]": the entry's name
        facts += _settings_facts(table, block, where, start=at)
    return facts, [(a, b) for _h, a, b in heads]


FORMATS: tuple[Format, ...] = (
    Format("transcript", _find_transcript, _read_transcript),
    Format("pbs", _find_lines(r"(?:#PBS\b|qsub\s)"), _read_pbs),
    Format("lsf", _find_lines(r"(?:#BSUB\b|bsub\s)"), _read_lsf),
    Format("compose", _yaml_blocks("services"), _read_compose),
    Format("helm-values", _yaml_blocks(r"(?:image|replicaCount)"), _read_helm_values),
    Format("ray", _yaml_blocks(r"(?:available_node_types|cluster_name|spec|apiVersion)"), _read_ray),
    Format("sagemaker", _find_sagemaker, _read_sagemaker),
    Format("paths", _find_paths, _read_paths),
    Format("call", _find_calls, _read_call),
    Format("json", _find_json, _read_json),
    Format("cli", _find_cli, _read_cli),
    Format("create", lambda text: (m.span() for m in _CREATE_START.finditer(text)), _read_create),
    Format("kustomize", _yaml_blocks(r"(?:namespace|patches|patchesJson6902|resources)"), _read_kustomization),
    Format("mig-parted", _yaml_blocks(r"(?:version|mig-configs)"), _read_mig_parted),
    Format("table", _find_tables, _read_table),
    Format("csv", _find_csv, _read_csv),
    Format("kubectl-table", _find_kubectl_tables, _read_kubectl_table),
    Format("sectioned", _find_sectioned, _read_sectioned),
    Format("assignments", _find_assignments, _read_assignments),
    Format("yaml-settings", _find_yaml_settings, _read_yaml_settings),
)
# formats whose every line is one setting (a key and its value)
SETTINGS_FORMATS = frozenset({"json", "assignments", "yaml-settings", "helm-values", "sectioned", "cli", "kustomize",
                              "create", "transcript", "call", "paths"})


def translate(text: str) -> tuple[list[Fact], list[tuple[int, int]], list[tuple[int, int]]]:
    """The facts of every foreign definition pasted into ``text``, the spans of their
    boilerplate, and the spans of the blocks they were read from."""
    facts: list[Fact] = []
    boiler: list[tuple[int, int]] = []
    blocks: list[tuple[int, int]] = []
    for fmt in FORMATS:
        for a, b in fmt.find(text):
            if b <= a or any(x < b and a < y for x, y in blocks):
                continue  # a block inside one read already ("env={...}" of a launcher) is part of it
            try:
                got, plate = fmt.read(text[a:b])
            except (ValueError, TypeError, AttributeError, KeyError):
                continue
            if not got and not (plate and blocks):
                continue  # a directive line with nothing to say counts only beside lines that do
            blocks.append((a, b))
            facts += [Fact(str(w), a + int(x), a + int(y), str(more[0]) if more else fmt.name) for w, x, y, *more in got]
            boiler += [(a + x, a + y) for x, y in plate]
    return facts, boiler, blocks
