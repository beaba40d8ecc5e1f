"""The MCP server (`gpukb mcp`), driven by the MCP SDK's own clients.

Fast tests run the server in-process (the SDK's in-memory client). Slow tests
start `gpukb mcp` as a subprocess and talk to it over stdio and over
streamable HTTP on a free loopback port, with a real index for ask/search_kb.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402

from conftest import REPO  # noqa: E402
from conftest import free_port as _free_port  # noqa: E402

TOOL_NAMES = {"ask", "search_kb", "list_recipes", "render_recipe", "generate_manifest",
              "validate_manifest", "lint_manifest"}

GOOD_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda
spec:
  containers:
    - name: cuda
      image: nvidia/cuda:12.4.0-base-ubuntu22.04
      resources:
        requests: {cpu: "1", memory: 4Gi}
        limits: {nvidia.com/gpu: 1, memory: 4Gi}
"""

FRACTIONAL_POD = GOOD_POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 0.5")
BROKEN_YAML = "apiVersion: v1\nkind: [Pod\n"


def _payload(result) -> dict:
    assert not result.is_error, result.content[0].text
    data = json.loads(result.content[0].text)
    assert result.structured_content == data
    return data


def _tool_error(result) -> str:
    assert result.is_error
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text and text
    return text


# -- wiki links ---------------------------------------------------------------

def test_wiki_link_default_and_env(monkeypatch):
    from gpukb.links import doc_uri, wiki_link

    monkeypatch.delenv("GPUKB_WIKI_URL", raising=False)
    assert wiki_link("sharing-mig", "mig-strategies") == "http://127.0.0.1:8501/?doc=sharing-mig#mig-strategies"
    assert wiki_link("sharing-mig") == "http://127.0.0.1:8501/?doc=sharing-mig"
    monkeypatch.setenv("GPUKB_WIKI_URL", "https://wiki.example.org/gpukb/")
    assert wiki_link("a b", "x") == "https://wiki.example.org/gpukb/?doc=a%20b#x"
    assert doc_uri("sharing-mig") == "gpukb://doc/sharing-mig"


# -- in-process server (fast) ----------------------------------------------------

def _inproc(fn, tools=None):
    from mcp import Client

    from gpukb.mcp_server import GpukbTools, build_server

    server = build_server(tools or GpukbTools())

    async def main():
        async with Client(server) as client:
            return await fn(client)

    return anyio.run(main)


def test_inproc_tools_have_schemas_and_offline_tools_work():
    async def run(c):
        listed = await c.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert set(tools) == TOOL_NAMES
        for t in tools.values():
            assert t.input_schema["type"] == "object" and t.description
        assert "list_recipes" in tools["render_recipe"].input_schema["properties"]["params"]["description"]

        recipes = _payload(await c.call_tool("list_recipes", {}))["recipes"]
        assert recipes and all(r["parameters"].get("type") == "object" for r in recipes)
        vj = next(r for r in recipes if r["id"] == "volcano-job")
        assert "workers" in vj["parameters"]["properties"]
        area = _payload(await c.call_tool("list_recipes", {"area": "gang-scheduling"}))["recipes"]
        assert area and {r["area"] for r in area} == {"gang-scheduling"}

        out = _payload(await c.call_tool("render_recipe", {"id": "volcano-job", "params": {"workers": 3}}))
        assert out["valid"] is True and out["params"]["workers"] == 3 and "kind: Job" in out["yaml"]

        gen = _payload(await c.call_tool("generate_manifest",
                                         {"request": "volcano job, 4 workers x 8 GPUs, queue research"}))
        assert gen["recipe"] == "volcano-job" and gen["valid"] is True
        assert gen["params"]["queue"] == "research" and gen["params"]["workers"] == 4

        rep = _payload(await c.call_tool("validate_manifest", {"yaml": GOOD_POD}))
        assert rep["errors"] == 0 and rep["files"][0]["documents"][0]["kind"] == "Pod"
        lint = _payload(await c.call_tool("lint_manifest", {"yaml": FRACTIONAL_POD, "filename": "k8s/pod.yaml"}))
        assert lint["errors"] >= 1 and lint["files"][0]["path"] == "k8s/pod.yaml"
        finding = next(f for f in lint["files"][0]["documents"][0]["findings"] if f["rule"] == "gpu-fractional")
        assert set(finding) >= {"rule", "severity", "path", "message", "doc_id"}
        assert finding["wiki_url"].endswith(f"?doc={finding['doc_id']}")
        return True

    assert _inproc(run)


def test_inproc_bad_inputs_are_one_line_tool_errors():
    async def run(c):
        msgs = {
            "unknown recipe": _tool_error(await c.call_tool("render_recipe", {"id": "no-such-recipe"})),
            "bad param": _tool_error(await c.call_tool("render_recipe", {"id": "volcano-job", "params": {"workers": "many"}})),
            "invalid yaml (lint)": _tool_error(await c.call_tool("lint_manifest", {"yaml": BROKEN_YAML})),
            "invalid yaml (validate)": _tool_error(await c.call_tool("validate_manifest", {"yaml": BROKEN_YAML})),
            "missing arg": _tool_error(await c.call_tool("ask", {})),
            "wrong type": _tool_error(await c.call_tool("search_kb", {"query": "x", "k": 0})),
            "extra arg": _tool_error(await c.call_tool("lint_manifest", {"yaml": GOOD_POD, "profile": "x"})),
            "no recipe matches": _tool_error(await c.call_tool("generate_manifest", {"request": "bake a cake"})),
            "unknown tool": _tool_error(await c.call_tool("rm_rf", {})),
        }
        return msgs

    msgs = _inproc(run)
    assert "no recipe with id 'no-such-recipe'" in msgs["unknown recipe"]
    assert "workers" in msgs["bad param"]
    assert msgs["invalid yaml (lint)"].startswith("invalid YAML")
    assert msgs["invalid yaml (validate)"].startswith("invalid YAML")
    assert "'question' is a required property" in msgs["missing arg"]
    assert "k" in msgs["wrong type"]
    assert "profile" in msgs["extra arg"]
    assert "no recipe matches" in msgs["no recipe matches"]
    assert "unknown tool" in msgs["unknown tool"]


def test_inproc_unexpected_exception_is_internal_error(caplog):
    from gpukb.mcp_server import GpukbTools

    class Broken(GpukbTools):
        def lint_manifest(self, yaml):
            raise ZeroDivisionError("secret detail\nsecond line")

    async def run(c):
        return _tool_error(await c.call_tool("lint_manifest", {"yaml": GOOD_POD}))

    msg = _inproc(run, Broken())
    assert msg.startswith("internal error (ZeroDivisionError)")
    assert "secret detail" not in msg
    assert any("lint_manifest" in r.getMessage() for r in caplog.records)


def test_inproc_missing_index_is_tool_error(tmp_path):
    from gpukb.mcp_server import GpukbTools

    async def run(c):
        return _tool_error(await c.call_tool("ask", {"question": "how do I cap team-a at 8 GPUs"}))

    tools = GpukbTools(home=tmp_path / "empty-home")
    msg = _inproc(run, tools)
    assert "ingest" in msg
    assert not tools.engine_loaded  # retried on the next call


def test_inproc_kb_docs_are_resources():
    from mcp.shared.exceptions import MCPError

    async def run(c):
        listed = await c.list_resources()
        uris = [str(r.uri) for r in listed.resources]
        assert all(u.startswith("gpukb://doc/") for u in uris) and len(set(uris)) == len(uris)
        first = listed.resources[0]
        assert first.mime_type == "text/markdown" and first.title
        read = await c.read_resource(str(first.uri))
        text = read.contents[0].text
        assert text.startswith("# ") and read.contents[0].mime_type == "text/markdown"
        templates = await c.list_resource_templates()
        assert templates.resource_templates[0].uri_template == "gpukb://doc/{doc_id}"
        with pytest.raises(MCPError, match="no KB doc"):
            await c.read_resource("gpukb://doc/not-a-doc")
        return len(uris)

    n = _inproc(run)
    assert n > 10


# -- subprocess over stdio and streamable HTTP (slow: real model) -------------------

def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "GPUKB_HOME": str(home), "GPUKB_ROOT": str(REPO),
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


async def _exercise(session) -> dict:
    """List the tools and call each once with a good input, plus two bad inputs."""
    await session.initialize()
    seen: dict = {"tools": {t.name for t in (await session.list_tools()).tools}}

    ask = _payload(await session.call_tool("ask", {"question": "how do I cap team-a at 8 GPUs", "k": 3}))
    assert ask["refused"] is False and "requests.nvidia.com/gpu" in ask["answer"]
    c0 = ask["citations"][0]
    assert set(c0) >= {"n", "doc_id", "title", "section", "path", "source_urls", "anchor", "wiki_url"}
    assert c0["wiki_url"].startswith("http://127.0.0.1:8501/?doc=" + c0["doc_id"])
    seen["ask"] = c0["doc_id"]

    hits = _payload(await session.call_tool("search_kb", {"query": "time-slicing replicas", "k": 2}))["results"]
    assert 1 <= len(hits) <= 2
    assert set(hits[0]) >= {"text", "doc_id", "title", "anchor", "path", "wiki_url"} and hits[0]["text"]
    seen["search_kb"] = hits[0]["doc_id"]

    recipes = _payload(await session.call_tool("list_recipes", {}))["recipes"]
    assert any(r["id"] == "volcano-job" for r in recipes)
    rendered = _payload(await session.call_tool("render_recipe", {"id": "volcano-job", "params": {"workers": 2}}))
    assert rendered["valid"] and rendered["params"]["workers"] == 2
    gen = _payload(await session.call_tool("generate_manifest",
                                           {"request": "volcano job, 4 workers x 8 GPUs, queue research"}))
    assert gen["recipe"] == "volcano-job" and gen["valid"]
    val = _payload(await session.call_tool("validate_manifest", {"yaml": GOOD_POD}))
    assert val["errors"] == 0
    lint = _payload(await session.call_tool("lint_manifest", {"yaml": FRACTIONAL_POD}))
    assert lint["errors"] >= 1

    seen["bad_recipe"] = _tool_error(await session.call_tool("render_recipe", {"id": "no-such-recipe", "params": {}}))
    seen["bad_yaml"] = _tool_error(await session.call_tool("validate_manifest", {"yaml": BROKEN_YAML}))

    res = await session.list_resources()
    doc = await session.read_resource(f"gpukb://doc/{seen['ask']}")
    assert doc.contents[0].text.startswith("# ")
    seen["resources"] = len(res.resources)
    return seen


def _check(seen: dict) -> None:
    assert seen["tools"] == TOOL_NAMES
    assert "no recipe with id 'no-such-recipe'" in seen["bad_recipe"]
    assert seen["bad_yaml"].startswith("invalid YAML")
    assert seen["resources"] > 10  # every KB doc (the KB grows while the server runs in other tests)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # includes building the real index (session fixture)
def test_stdio_subprocess(real_index_home):
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "gpukb", "mcp"], env=_env(real_index_home),
                                   cwd=str(REPO))

    async def main():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=300) as session:
                    return await _exercise(session)

    _check(anyio.run(main))


@pytest.mark.slow
@pytest.mark.timeout(1800)  # includes building the real index (session fixture)
def test_streamable_http_subprocess(real_index_home, tmp_path):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    errlog = (tmp_path / "server.err").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "gpukb", "mcp", "--http", "--port", str(port)],
                            env=_env(real_index_home), cwd=str(REPO), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=errlog)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "server.err").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not start listening"
                time.sleep(0.2)

        async def main():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=300) as session:
                    return await _exercise(session)

        _check(anyio.run(main))

        # A second server on the same port fails with one line.
        busy = subprocess.run([sys.executable, "-m", "gpukb", "mcp", "--http", "--port", str(port)],
                              env=_env(real_index_home), cwd=str(REPO), capture_output=True, text=True, timeout=60)
        assert busy.returncode == 1
        assert busy.stderr.strip().splitlines() == [f"Error: cannot listen on 127.0.0.1:{port} (Address already in use)"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        errlog.close()
    assert "Traceback" not in (tmp_path / "server.err").read_text()
