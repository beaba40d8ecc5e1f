"""``gpukb mcp``: the Model Context Protocol server."""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from ..errors import GpukbError
from . import app
from ._common import HomeOpt


@app.command("mcp")
def mcp_cmd(
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on with --http."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port to listen on with --http."),
    home: Optional[Path] = HomeOpt,
    log_level: str = typer.Option("warning", "--log-level", help="Server log level on stderr: debug, info, warning or error."),
) -> None:
    """Serve gpukb to coding agents over the Model Context Protocol (stdio by default).

    Tools: ask, search_kb, list_recipes, render_recipe, generate_manifest,
    validate_manifest, lint_manifest. Resources: every KB doc at gpukb://doc/<doc-id>.
    The embedding model and the index load on the first ask or search_kb.
    """
    level = getattr(logging, log_level.upper(), None)
    if not isinstance(level, int) or log_level.lower() not in ("debug", "info", "warning", "error"):
        from ..errors import UsageError

        raise UsageError("--log-level must be one of: debug, info, warning, error")
    try:
        import mcp.server.lowlevel  # noqa: F401
        import mcp_types  # noqa: F401  (ships with mcp 2.x)

        from .. import mcp_server
    except ImportError as exc:  # the mcp extra is missing, or an mcp 1.x is installed
        raise GpukbError(f"gpukb mcp needs the MCP SDK 2.x ({exc.name or 'mcp'} is missing): "
                         "pip install 'gpukb[mcp]'") from None
    # Handler-level filtering: some libraries set DEBUG on their own loggers.
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    tools = mcp_server.GpukbTools(home=home)
    if http:
        def ready(url: str) -> None:
            sys.stderr.write(f"gpukb MCP server listening on {url}\n")
            sys.stderr.flush()

        mcp_server.serve_http(tools, host=host, port=port, ready=ready)
    else:
        mcp_server.serve_stdio(tools)
