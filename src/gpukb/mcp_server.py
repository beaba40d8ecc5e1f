"""gpukb as a Model Context Protocol server (``gpukb mcp``).

Coding agents and chat clients reach the knowledge base, the recipes, the
validator and the linter through MCP tools; every KB doc is also a resource
(``gpukb://doc/<doc-id>``, its Markdown).

Layers:

* :class:`GpukbTools` holds the tool implementations as plain functions over
  the public ``gpukb`` API (``Engine``, ``load_recipes``, ``render_recipe``,
  ``generate``, ``validate_files``, ``lint_files``, ``load_kb``). The engine
  (embedding model + index) loads once, on the first ``ask`` or
  ``search_kb``; a failed load (no index yet) is retried on the next call.
* :func:`build_server` wires them into the SDK's low-level ``Server``: tool
  inputs are checked against each tool's JSON Schema, results come back as
  JSON text plus ``structuredContent``, a :class:`~gpukb.errors.GpukbError`
  becomes a tool error (``isError``) carrying its one-line message, anything
  else is logged and reported as a one-line internal error.
* :func:`serve_stdio` and :func:`serve_http` run it over stdio or streamable
  HTTP (``/mcp``).

Written against the ``mcp`` 2.x SDK (``pip install 'gpukb[mcp]'``).
"""

from __future__ import annotations

import io
import json
import logging
import threading
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote

from .errors import GpukbError, UsageError
from .links import doc_uri, wiki_link

__all__ = ["GpukbTools", "TOOLS", "build_server", "serve_stdio", "serve_http", "ToolInputError",
           "MAX_YAML_CHARS", "MAX_TEXT_CHARS", "DOC_URI_PREFIX"]

log = logging.getLogger("gpukb.mcp")

SERVER_NAME = "gpukb"
DOC_URI_PREFIX = "gpukb://doc/"
MAX_YAML_CHARS = 1_000_000  # one manifest text per call
MAX_TEXT_CHARS = 4_000  # a question, a query or a request
MAX_PARAMS_CHARS = 100_000  # render_recipe params, as JSON

INSTRUCTIONS = """\
gpukb answers questions about running AI workloads on Kubernetes GPU clusters \
(GPU Operator, device plugin, MIG/time-slicing/MPS, scheduling, Kubeflow and \
Volcano jobs, gang scheduling, quotas, autoscaling, storage, inference, \
troubleshooting) from a curated knowledge base, with citations and wiki links. \
It also renders manifests from recipes, turns plain-language requests into \
validated manifests, and validates or lints Kubernetes YAML for GPU mistakes. \
Use `ask` for an answer, `search_kb` for the raw sections, `list_recipes` + \
`render_recipe` or `generate_manifest` for YAML, `validate_manifest` / \
`lint_manifest` to check YAML. KB docs are resources at gpukb://doc/<doc-id>."""


class ToolInputError(GpukbError):
    """Tool arguments that break the tool's input schema."""


# -- tool input schemas ----------------------------------------------------

_K = {"type": "integer", "minimum": 1, "maximum": 50, "default": 5,
      "description": "How many KB sections to retrieve (1-50, default 5)."}
_YAML = {"type": "string", "maxLength": MAX_YAML_CHARS,
         "description": "Kubernetes manifest text: one or more YAML documents separated by '---'."}
_FILENAME = {"type": "string", "minLength": 1, "maxLength": 500, "default": "manifest.yaml",
             "description": "Name to report the YAML under in the result's `path` (default manifest.yaml)."}

TOOLS: dict[str, dict[str, Any]] = {
    "ask": {
        "title": "Ask the GPU-on-Kubernetes knowledge base",
        "description": (
            "Answer a question about AI workloads on Kubernetes GPU clusters from the curated gpukb "
            "knowledge base. Returns the answer with [n] citation markers, `refused` (true when the KB "
            "does not cover the question: do not guess then), citations (doc id, title, section, "
            "anchor, path, upstream source URLs, wiki_url), matching recipes, and a rendered manifest "
            "when the question asks for one."),
        "schema": {
            "type": "object",
            "properties": {
                "question": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS,
                             "description": "The question, as a user would ask it; pasted error text helps."},
                "k": _K,
            },
            "required": ["question"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "search_kb": {
        "title": "Search knowledge base sections",
        "description": (
            "Hybrid (vector + keyword) search over the gpukb knowledge base. Returns the best matching "
            "sections with their Markdown text, doc_id, title, section heading, anchor, path, area, "
            "score, upstream source URLs and wiki_url. Read a whole doc through its resource "
            "(gpukb://doc/<doc_id>)."),
        "schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS,
                          "description": "What to look for: keywords, a question or an error message."},
                "k": _K,
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "list_recipes": {
        "title": "List manifest recipes",
        "description": (
            "List the manifest recipes: id, title, area, description, the kinds they render, related "
            "KB docs, and each recipe's parameter JSON Schema (names, types, defaults, enums, limits) "
            "to pass to render_recipe."),
        "schema": {
            "type": "object",
            "properties": {
                "area": {"type": "string", "maxLength": 64,
                         "description": "Only recipes of this KB area, e.g. gang-scheduling or multi-tenancy."},
            },
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "render_recipe": {
        "title": "Render a recipe to YAML",
        "description": (
            "Render one recipe with parameter values into multi-document Kubernetes YAML, then validate "
            "it. Returns recipe, the full params (defaults filled in), yaml, valid and issues. Unknown "
            "recipe ids and parameter values that break the recipe's schema are errors."),
        "schema": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "minLength": 1, "maxLength": 200,
                       "description": "Recipe id, as returned by list_recipes."},
                "params": {
                    "type": "object",
                    "additionalProperties": True,
                    "default": {},
                    "description": (
                        "Parameter values by name (JSON values: strings, numbers, booleans, lists, objects). "
                        "Each recipe's own parameter JSON Schema, with defaults and required names, is in "
                        "the `parameters` field that list_recipes returns; omitted parameters take their "
                        "defaults."),
                },
            },
            "required": ["id"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "generate_manifest": {
        "title": "Generate a manifest from a plain-language request",
        "description": (
            "Turn a plain-language request (e.g. 'volcano job, 4 workers x 8 GPUs, queue research') into "
            "a rendered, validated manifest. Returns the chosen recipe, params, yaml, valid, issues, the "
            "values taken from the request and the defaults used, and - when available - used, unused and "
            "missing (request details applied, not understood, or still needed)."),
        "schema": {
            "type": "object",
            "properties": {
                "request": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS,
                            "description": "What manifest you need, in plain language."},
            },
            "required": ["request"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "validate_manifest": {
        "title": "Validate Kubernetes YAML",
        "description": (
            "Validate manifest YAML against the Kubernetes schemas and the built-in CRD schemas (GPU "
            "Operator, Volcano, Coscheduling, Kubeflow, Karpenter), plus API-server rules. Returns "
            "{files: [{path, documents: [{index, apiVersion, kind, name, findings: [{rule, severity, path, "
            "message, doc_id, fix, wiki_url}]}]}], errors, warnings}. YAML that does not parse is an error."),
        "schema": {
            "type": "object",
            "properties": {
                "yaml": _YAML,
                "filename": _FILENAME,
                "k8s_version": {"type": "string", "pattern": "^1\\.[0-9]{1,2}$",
                                "description": "Kubernetes minor version of the core schemas, e.g. 1.30 (default: newest)."},
            },
            "required": ["yaml"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "lint_manifest": {
        "title": "Lint Kubernetes YAML for GPU mistakes",
        "description": (
            "GPU-specific lint of manifest YAML: GPU requests and limits, scheduling and tolerations, "
            "sharing and MIG, gang scheduling, tenancy, autoscaling, storage. Same result shape as "
            "validate_manifest; each finding names the KB doc (doc_id, wiki_url) that explains it and a fix. "
            "YAML that does not parse is an error."),
        "schema": {
            "type": "object",
            "properties": {"yaml": _YAML, "filename": _FILENAME},
            "required": ["yaml"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
}


def _check_args(name: str, args: Any) -> dict[str, Any]:
    """Check ``args`` against the tool's input schema; one line on failure."""
    from jsonschema import Draft202012Validator

    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolInputError(f"{name}: arguments must be an object")
    errors = sorted(Draft202012Validator(TOOLS[name]["schema"]).iter_errors(args), key=lambda e: list(e.path))
    if errors:
        err = errors[0]
        where = ".".join(str(p) for p in err.path)
        msg = err.message
        if len(msg) > 200:
            msg = msg[:200] + "..."
        raise ToolInputError(f"{name}: invalid arguments: {where + ': ' if where else ''}{msg}")
    return args


def _one_line(text: str) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line[:500]


# -- the tools -------------------------------------------------------------

class GpukbTools:
    """The tool implementations: plain, synchronous functions returning JSON-able dicts."""

    def __init__(self, home: str | Path | None = None, recipes_dir: str | Path | None = None):
        self.home = home
        self.recipes_dir = Path(recipes_dir) if recipes_dir else None
        self._engine: Any = None
        self._engine_lock = threading.Lock()  # one load, and one retrieval at a time
        self._docs: dict[str, Any] | None = None
        self._docs_lock = threading.Lock()

    # shared state -----------------------------------------------------
    def settings(self):
        from . import load_settings

        return load_settings(home=self.home)

    def _with_engine(self, fn: Callable[[Any], Any]) -> Any:
        with self._engine_lock:
            if self._engine is None:
                from .live import LiveEngine

                log.info("loading the embedding model and the index")
                # follows re-ingests: each call is answered from the generation published then
                self._engine = LiveEngine(self.settings())
            return fn(self._engine)

    @property
    def engine_loaded(self) -> bool:
        return self._engine is not None

    def _recipes(self) -> list[Any]:
        from . import load_recipes

        return load_recipes(self.recipes_dir)

    def _find_recipe(self, recipe_id: str) -> Any:
        import difflib

        from .errors import RecipeError

        recipes = self._recipes()
        for r in recipes:
            if r.id == recipe_id:
                return r
        close = difflib.get_close_matches(recipe_id, [r.id for r in recipes], n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else " (see list_recipes)"
        raise RecipeError(f"no recipe with id {recipe_id!r}{hint}")

    def docs(self, *, reload: bool = False) -> dict[str, Any]:
        """KB docs by id (loaded once; ``reload`` reads the KB folder again)."""
        with self._docs_lock:
            if self._docs is None or reload:
                from .sources import load_knowledge

                s = self.settings()  # every knowledge source, team overrides applied
                self._docs = {d.id: d for d in load_knowledge(s).docs}
            return self._docs

    # tools ------------------------------------------------------------
    def ask(self, question: str, k: int = 5) -> dict[str, Any]:
        ans = self._with_engine(lambda e: e.ask(question, k=k))
        out = ans.to_dict()
        for c in out.get("citations", []):
            c["wiki_url"] = wiki_link(c["doc_id"], c.get("anchor"), c.get("source"))
            c["resource"] = doc_uri(c["doc_id"])
        return out

    def search_kb(self, query: str, k: int = 5) -> dict[str, Any]:
        q = query.strip()
        if not q:
            raise UsageError("the query is empty")

        def run(engine):
            if hasattr(engine, "refresh"):  # a LiveEngine: search the generation published now
                engine.refresh()
                engine = engine.engine
            search = getattr(engine, "search", None)
            found = search(q, k=k) if callable(search) else engine.retriever.retrieve(q, k=k).evidence
            return found, getattr(getattr(engine, "index", None), "sections", {})

        evidence, sections = self._with_engine(run)
        results = []
        for rank, e in enumerate(evidence, start=1):
            source = str(sections.get(f"{e.doc_id}#{e.anchor}", {}).get("source", ""))
            results.append({
                "rank": rank, "doc_id": e.doc_id, "title": e.title, "section": e.section,
                "anchor": e.anchor, "path": e.path, "area": getattr(e, "area", ""),
                "score": round(float(getattr(e, "score", 0.0) or 0.0), 4),
                "text": e.text, "source_urls": list(getattr(e, "source_urls", []) or []), "source": source,
                "wiki_url": wiki_link(e.doc_id, e.anchor, source), "resource": doc_uri(e.doc_id),
            })
        return {"query": q, "results": results}

    def list_recipes(self, area: str | None = None) -> dict[str, Any]:
        recipes = [r for r in self._recipes() if not area or r.area == area]
        return {"recipes": [{
            "id": r.id, "title": r.title, "area": r.area, "description": r.description,
            "kinds": list(r.kinds), "docs": [{"doc_id": d, "wiki_url": wiki_link(d)} for d in r.docs],
            "parameters": r.parameters,
        } for r in recipes]}

    def render_recipe(self, id: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        from . import render_recipe

        params = params or {}
        if len(json.dumps(params, default=str)) > MAX_PARAMS_CHARS:
            raise UsageError(f"params are too large (over {MAX_PARAMS_CHARS} characters as JSON)")
        rendered = render_recipe(self._find_recipe(id), params)
        return rendered.to_dict()

    def generate_manifest(self, request: str) -> dict[str, Any]:
        from . import generate

        g = generate(request, self._recipes())
        out = g.to_dict()
        for key in ("used", "unused", "missing"):
            if key not in out and hasattr(g, key):
                out[key] = getattr(g, key)
        out["request"] = request
        return out

    def validate_manifest(self, yaml: str, k8s_version: str | None = None,
                          filename: str = "manifest.yaml") -> dict[str, Any]:
        from . import validate_files

        kw = {"k8s_version": k8s_version} if k8s_version else {}
        return self._report(validate_files(["-"], stdin=io.StringIO(self._yaml(yaml)), **kw), filename)

    def lint_manifest(self, yaml: str, filename: str = "manifest.yaml") -> dict[str, Any]:
        from . import lint_files

        return self._report(lint_files(["-"], stdin=io.StringIO(self._yaml(yaml))), filename)

    # helpers ----------------------------------------------------------
    @staticmethod
    def _yaml(text: str) -> str:
        if len(text) > MAX_YAML_CHARS:
            raise UsageError(f"the YAML is too large (over {MAX_YAML_CHARS} characters)")
        if not text.strip():
            raise UsageError("the YAML is empty")
        return text

    @staticmethod
    def _report(report: Any, filename: str = "manifest.yaml") -> dict[str, Any]:
        out = report.to_dict()
        for f in out.get("files", []):
            if f.get("path") == "<stdin>":
                f["path"] = filename
            for d in f.get("documents", []):
                for finding in d.get("findings", []):
                    if finding.get("rule") == "yaml-parse":
                        msg = _one_line(str(finding.get("message") or "invalid YAML"))
                        if not msg.lower().startswith("invalid yaml"):
                            msg = f"invalid YAML: {msg}"
                        raise GpukbError(msg)
                    if finding.get("doc_id"):
                        finding["wiki_url"] = wiki_link(finding["doc_id"])
        return out

    def read_doc(self, uri: str) -> tuple[str, Any]:
        """The Markdown of the KB doc at ``gpukb://doc/<id>`` (a ``#anchor`` is ignored)."""
        if not uri.startswith(DOC_URI_PREFIX):
            raise UsageError(f"unknown resource {uri!r}: KB docs are {DOC_URI_PREFIX}<doc-id>")
        doc_id = unquote(uri[len(DOC_URI_PREFIX):].split("#", 1)[0].split("?", 1)[0]).strip("/")
        doc = self.docs().get(doc_id)
        if doc is None:  # a doc added since the server started
            doc = self.docs(reload=True).get(doc_id)
        if doc is None:
            raise UsageError(f"no KB doc with id {doc_id!r}")
        return doc.body.lstrip("\n"), doc

    def call(self, name: str, args: Any) -> dict[str, Any]:
        """Run one tool by name with raw arguments (schema-checked first)."""
        if name not in TOOLS:
            raise UsageError(f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")
        args = _check_args(name, args)
        return getattr(self, name)(**args)


# -- the MCP server ----------------------------------------------------------

def _text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1, default=str)


def build_server(tools: GpukbTools | None = None):
    """The MCP low-level ``Server`` with gpukb's tools and KB resources."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from . import __version__

    tools = tools or GpukbTools()

    tool_list = [
        types.Tool(
            name=name,
            title=spec["title"],
            description=spec["description"],
            input_schema=spec["schema"],
            annotations=types.ToolAnnotations(title=spec["title"], read_only_hint=spec["read_only"],
                                              destructive_hint=False, idempotent_hint=True,
                                              open_world_hint=False),
        )
        for name, spec in TOOLS.items()
    ]

    def error_result(message: str) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        try:
            data = await anyio.to_thread.run_sync(tools.call, name, params.arguments)
        except GpukbError as exc:
            log.info("tool %s: %s", name, _one_line(str(exc)))
            return error_result(_one_line(str(exc)) or type(exc).__name__)
        except Exception as exc:  # never a traceback to the client
            log.exception("tool %s failed", name)
            return error_result(f"internal error ({type(exc).__name__}) in tool {name!r}; see the server log")
        return types.CallToolResult(content=[types.TextContent(type="text", text=_text(data))],
                                    structured_content=data)

    def _doc_list() -> list[types.Resource]:
        return [
            types.Resource(uri=doc_uri(d.id), name=d.id, title=d.title, mime_type="text/markdown",
                           description=f"gpukb KB doc ({d.area}): {d.title}. Wiki: {wiki_link(d.id)}")
            for d in sorted(tools.docs().values(), key=lambda d: d.id)
        ]

    async def on_list_resources(ctx, params) -> types.ListResourcesResult:
        try:
            resources = await anyio.to_thread.run_sync(_doc_list)
        except GpukbError as exc:
            raise MCPError(code=types.INTERNAL_ERROR, message=_one_line(str(exc))) from None
        except Exception as exc:
            log.exception("listing resources failed")
            raise MCPError(code=types.INTERNAL_ERROR, message=f"internal error ({type(exc).__name__})") from None
        return types.ListResourcesResult(resources=resources)

    async def on_list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=DOC_URI_PREFIX + "{doc_id}", name="kb-doc", title="gpukb KB doc",
            description="A gpukb knowledge base doc as Markdown, by doc id (doc_id in ask/search_kb results).",
            mime_type="text/markdown")])

    async def on_read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            body, doc = await anyio.to_thread.run_sync(tools.read_doc, uri)
        except UsageError as exc:
            raise MCPError(code=types.INVALID_PARAMS, message=_one_line(str(exc)), data={"uri": uri}) from None
        except GpukbError as exc:
            raise MCPError(code=types.INTERNAL_ERROR, message=_one_line(str(exc)), data={"uri": uri}) from None
        except Exception as exc:
            log.exception("reading %s failed", uri)
            raise MCPError(code=types.INTERNAL_ERROR, message=f"internal error ({type(exc).__name__})",
                           data={"uri": uri}) from None
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, text=body, mime_type="text/markdown")])

    return Server(
        SERVER_NAME,
        version=__version__,
        title="gpukb: AI workloads on Kubernetes GPU clusters",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: TOOLS[name]["schema"] if name in TOOLS else None,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_resource_templates,
        on_read_resource=on_read_resource,
    )


def serve_stdio(tools: GpukbTools | None = None) -> None:
    """Serve over stdin/stdout until the client closes the connection."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(tools)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


def _check_bind(host: str, port: int) -> None:
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UsageError(f"--host {host!r}: {exc.strerror or exc}") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            raise GpukbError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None


def serve_http(tools: GpukbTools | None = None, *, host: str = "127.0.0.1", port: int = 8765,
               path: str = "/mcp", ready: Callable[[str], None] | None = None) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted."""
    import uvicorn

    _check_bind(host, port)
    server = build_server(tools)
    app = server.streamable_http_app(streamable_http_path=path, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=5)
    userver = uvicorn.Server(config)
    if ready is not None:
        shown = f"[{host}]" if ":" in host else host
        ready(f"http://{shown}:{port}{path}")
    userver.run()
