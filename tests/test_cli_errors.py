"""Bad input on the command line: one `Error:` line, the right exit code, no traceback."""

import subprocess

import pytest

from conftest import gpukb_cmd


@pytest.mark.parametrize("args,code,text", [
    (["ask", "x", "--home", "{tmp}/nohome"], 1, "no index at"),
    (["ask", "x", "--k", "0", "--home", "{tmp}/nohome"], 2, "--k"),
    (["ask", "x", "--area", "cooking", "--home", "{tmp}/nohome"], 2, "--area must be one of"),
    (["ask", "x", "--mode", "magic", "--home", "{tmp}/nohome"], 2, "--mode must be one of"),
    (["ingest", "--kb", "{tmp}/missing", "--home", "{tmp}/h"], 1, "knowledge base folder not found"),
    (["eval", "--questions", "{tmp}/none.yaml", "--home", "{tmp}/nohome"], 1, "none.yaml"),
    (["status", "--home", "{tmp}/nohome"], 1, None),
    (["no-such-command"], 2, "No such command"),
])
def test_cli_error_lines(tmp_path, args, code, text):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    res = subprocess.run(gpukb_cmd(*args), capture_output=True, text=True, timeout=120)
    assert res.returncode == code, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr + res.stdout
    errors = [l for l in res.stderr.splitlines() if l.startswith("Error: ")]
    if text:
        assert len(errors) == 1 and text in errors[0], res.stderr


def test_command_table_names_every_registered_command():
    """`main` imports only the module of the command it runs; the table it
    uses must name every command and group the modules register."""
    import gpukb.cli as cli

    cli.load_commands(None)
    names = {c.name or c.callback.__name__ for c in cli.app.registered_commands}
    names |= {g.name for g in cli.app.registered_groups}
    assert names == set(cli._COMMANDS)


def test_lint_imports_only_its_own_command_module(tmp_path):
    code = ("import sys; from gpukb.cli import main; rc = main(['lint', '--help']);"
            "print(sorted(m for m in sys.modules if m.startswith('gpukb.cli._')))")
    import sys
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in res.stderr
    loaded = res.stdout.strip().splitlines()[-1]
    assert "gpukb.cli._validate" in loaded and "gpukb.cli._ask" not in loaded and "gpukb.cli._recipes" not in loaded
    full = subprocess.run(gpukb_cmd("--help"), capture_output=True, text=True, timeout=120)
    assert full.returncode == 0 and all(n in full.stdout for n in ("ask", "lint", "generate", "wiki", "feedback"))


@pytest.mark.parametrize("name", sorted(__import__("gpukb.cli", fromlist=["_COMMANDS"])._COMMANDS))
def test_every_command_runs_when_only_its_module_is_loaded(name):
    res = subprocess.run(gpukb_cmd(name, "--help"), capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert f"gpukb {name}" in res.stdout
