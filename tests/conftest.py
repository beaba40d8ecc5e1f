"""Shared fixtures.

Unit tests use a deterministic hashing embedder (registered as an embedder
backend, exactly as an extra would be) and tiny KBs written into tmp dirs.
Tests marked ``slow`` use the real model, real Chroma and real subprocesses;
``real_index_home`` builds one real index of the bundled KB per session.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO.parent / "shared" / "upstream"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def require_upstream() -> Path:
    """../shared/upstream, or a skip that says what is missing and why it matters."""
    if not (UPSTREAM / "index.json").is_file():
        pytest.skip(f"upstream fixtures not found at {UPSTREAM} (the real CRDs and example manifests "
                    "these tests check gpukb against); the bundled schemas are still checked by the golden tests")
    return UPSTREAM


def upstream_manifest_paths() -> list[str]:
    """Every YAML file listed in ../shared/upstream/index.json (see require_upstream)."""
    import json

    index = require_upstream() / "index.json"
    entries = json.loads(index.read_text())
    return [str(UPSTREAM / e["path"]) for e in entries if e["path"].endswith((".yaml", ".yml"))]


def upstream_rel(p: str) -> str:
    return str(Path(p).relative_to(UPSTREAM))


def read_params(recipe_id: str, text: str) -> dict:
    """The parameter values extraction reads from ``text`` for one recipe."""
    from gpukb.recipes.extract import extract_params
    from gpukb.recipes.model import find_recipe

    return extract_params(find_recipe(recipe_id), text).values


def generate_request(text: str):
    """``gpukb generate`` for ``text`` with the rules alone (no language model)."""
    from gpukb.recipes import generate

    return generate(text, llm=False)


def make_hash_embedder(dim: int = 64):
    """A deterministic bag-of-words embedder: same text, same vector."""
    from llama_index.core.embeddings import BaseEmbedding

    from gpukb.backends.embedders import Embedder

    def vec(text: str) -> list[float]:
        v = [0.0] * dim
        for tok in re.findall(r"[a-z0-9./-]+", text.lower()):
            h = int(hashlib.md5(tok.encode()).hexdigest(), 16)
            v[h % dim] += 1.0 if (h >> 8) & 1 else -1.0
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / n for x in v]

    class HashEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return vec(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return vec(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return vec(text)

    calls: list[int] = []

    class CountingEmbedder(Embedder):
        def embed_documents(self, texts, progress=False):
            calls.append(len(texts))
            return [vec(t) for t in texts]

    emb = CountingEmbedder(model_id=f"test/hash-{dim}", dim=dim, llama=HashEmbedding(model_name="hash"))
    emb.calls = calls  # type: ignore[attr-defined]
    return emb


@pytest.fixture
def hash_embedder():
    return make_hash_embedder()


DOC_TMPL = """\
---
id: {id}
title: {title}
area: {area}
tags: [test]
sources: [https://example.org/{id}]
reviewed: "2026-11-29"
applies_to: {{kubernetes: "1.30+"}}
---
# {title}

{intro}

{body}
"""


def write_doc(root: Path, area: str, slug: str, **kw) -> Path:
    p = root / "kb" / area / f"{slug}.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    kw.setdefault("intro", "Introduction.")
    p.write_text(DOC_TMPL.format(area=area, **kw))
    return p


@pytest.fixture
def tiny_root(tmp_path: Path) -> Path:
    """A project root with three small docs and the default ingest config."""
    root = tmp_path / "proj"
    (root / "ingest").mkdir(parents=True)
    (root / "ingest" / "config.yaml").write_text((REPO / "ingest" / "config.yaml").read_text())
    write_doc(root, "device-plugin", "requesting", id="dp-requesting", title="Requesting GPUs",
              intro="Pods ask for GPUs through the nvidia.com/gpu extended resource.",
              body=textwrap.dedent("""\
                ## Request a GPU in limits

                Set `nvidia.com/gpu` under `resources.limits`; requests default to the limit. Whole numbers only.

                ```yaml
                apiVersion: v1
                kind: Pod
                metadata:
                  name: gpu-pod
                spec:
                  containers:
                    - name: cuda
                      image: nvidia/cuda:12.4.0-base-ubuntu22.04
                      resources:
                        limits:
                          nvidia.com/gpu: 1
                ```

                ## Fractions are rejected

                A value such as 0.5 is refused because GPUs cannot be overcommitted.
                """))
    write_doc(root, "multi-tenancy", "quota", id="mt-quota", title="GPU quota",
              intro="Cap a namespace's GPUs with a ResourceQuota.",
              body="## Use requests.nvidia.com/gpu\n\nExtended resources only take the `requests.` prefix in a quota.\n")
    write_doc(root, "storage", "rwx", id="st-rwx", title="Shared datasets",
              intro="ReadWriteMany volumes share one dataset between many pods.",
              body="## Access modes\n\nReadWriteMany lets pods on many nodes mount the volume read-write.\n")
    return root


@pytest.fixture
def tiny_settings(tiny_root: Path, tmp_path: Path):
    from gpukb.config import load_settings

    return load_settings(home=tmp_path / "home", root=tiny_root)


def gpukb_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "gpukb", *args]


@pytest.fixture(scope="session")
def real_index_home(tmp_path_factory) -> Path:
    """One real index (real model, embedded Chroma) of the bundled KB."""
    home = tmp_path_factory.mktemp("gpukb-home")
    env = {**os.environ, "GPUKB_HOME": str(home), "GPUKB_ROOT": str(REPO)}
    res = subprocess.run(gpukb_cmd("ingest", "--json"), env=env, capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    return home


# -- real servers on loopback --------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 60.0, proc: subprocess.Popen | None = None) -> None:
    """Wait until something listens on 127.0.0.1:``port`` (fails if ``proc`` exits first)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode} before listening on port {port}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing listens on port {port} after {timeout:g} s") from None
            time.sleep(0.2)


@contextmanager
def chroma_server(data_dir: Path) -> Iterator[str]:
    """A real ``chroma run`` server on loopback for the test's duration; yields its URL."""
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent))
    assert chroma, "the chroma CLI ships with chromadb"
    port = free_port()
    srv = subprocess.Popen([chroma, "run", "--path", str(data_dir), "--host", "127.0.0.1", "--port", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc=srv)
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.terminate()
        try:
            srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()


# A Pod asking for half a GPU: every manifest check must flag it.
HALF_GPU_POD = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata:
      name: half-gpu
    spec:
      containers:
        - name: cuda
          image: nvidia/cuda:12.4.0-base-ubuntu22.04
          resources:
            limits:
              nvidia.com/gpu: 0.5
    """)
