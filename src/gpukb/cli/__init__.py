"""The ``gpukb`` command line.

The library raises :class:`gpukb.errors.GpukbError`; this layer turns errors
into one ``Error: ...`` line on stderr and an exit code: 0 ok, 1 findings or
failure, 2 usage. Set ``GPUKB_DEBUG=1`` to see tracebacks.
"""

from __future__ import annotations

import os
import sys

# The CLI uses no pydantic plugins; not scanning installed packages for them
# saves start-up time on every command.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import click  # noqa: E402
import typer  # noqa: E402

from ..errors import GpukbError  # noqa: E402

try:  # recent typer releases vendor their own copy of click (typer._click)
    import typer.exceptions as _typer_exc
    from typer._click import exceptions as _vendored

    _EXIT: tuple = (click.exceptions.Exit, _typer_exc.Exit)
    _USAGE: tuple = (click.exceptions.UsageError, _vendored.UsageError)
    _ABORT: tuple = (click.exceptions.Abort, _typer_exc.Abort)
except (ImportError, AttributeError):  # pragma: no cover - typer using the click package
    _EXIT, _USAGE, _ABORT = (click.exceptions.Exit,), (click.exceptions.UsageError,), (click.exceptions.Abort,)

app = typer.Typer(
    name="gpukb",
    help="Answers, manifests, validation and linting for AI workloads on Kubernetes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root() -> None:
    # A callback keeps ``gpukb`` a command group even when only one command
    # module is loaded (typer runs a lone command directly otherwise).
    pass


# Command modules register themselves on ``app`` when imported. Only the
# module of the command being run is imported, so ``lint`` and ``validate``
# do not pay for the others; help and unknown names import them all.
_COMMANDS: dict[str, str] = {
    "ask": "_ask", "ingest": "_ask", "status": "_ask", "kb": "_ask",
    "eval": "_eval", "bench": "_eval",
    "feedback": "_feedback",
    "mcp": "_mcp",
    "recipe": "_recipes", "generate": "_recipes",
    "slack": "_slack",
    "validate": "_validate", "lint": "_validate",
    "wiki": "_wiki",
}


def load_commands(args: list[str] | None = None) -> None:
    """Register the command named first in *args*, or every command."""
    import importlib

    first = args[0] if args else None  # a top-level option such as --help lists every command
    wanted = [_COMMANDS[first]] if first in _COMMANDS else sorted(set(_COMMANDS.values()))
    for name in wanted:
        importlib.import_module(f"{__name__}.{name}")


def _error(line: str) -> None:
    from ..output import clean

    text = " ".join(str(line).split("\n"))
    if len(text) > 2000:
        text = text[:1997] + "..."
    sys.stderr.write(f"Error: {clean(text)}\n")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        load_commands(args)
        rv = app(args=args, prog_name="gpukb", standalone_mode=False)
        return int(rv or 0) if isinstance(rv, int) else 0
    except _EXIT as exc:
        return int(exc.exit_code)
    except _USAGE as exc:
        _error(exc.format_message().splitlines()[0] if exc.format_message() else "usage error")
        return 2
    except _ABORT:
        _error("aborted")
        return 1
    except GpukbError as exc:
        if os.environ.get("GPUKB_DEBUG"):
            raise
        for line in exc.lines():
            _error(line)
        return exc.exit_code
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # last line of defence: never show a traceback
        if os.environ.get("GPUKB_DEBUG"):
            raise
        msg = str(exc)[:300].splitlines()[0] if str(exc) else ""
        _error(f"internal error ({type(exc).__name__}{': ' + msg if msg else ''}); set GPUKB_DEBUG=1 for details")
        return 1
