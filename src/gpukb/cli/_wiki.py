"""``gpukb wiki build DIR``: the KB as a static, searchable MkDocs site."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from . import app
from ._common import JsonOpt, emit_json

wiki_app = typer.Typer(
    name="wiki",
    help="The KB as a static wiki.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(wiki_app, name="wiki")


@wiki_app.command("build")
def build_cmd(
    out_dir: Path = typer.Argument(..., help="Folder to write the site into (created; an old build there is replaced)."),
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help="KB folder (default: kb/ of the project)."),
    strict: bool = typer.Option(False, "--strict", help="Fail on any MkDocs warning (broken links or anchors)."),
    json_out: bool = JsonOpt,
) -> None:
    """Write the KB as a static MkDocs Material site with built-in search.

    One page per doc (front-matter facts, sources, staleness note), links
    between docs rewritten to resolve, heading anchors as in the app's deep
    links. Needs the wiki extra: pip install 'gpukb[wiki]'."""
    from ..wiki import build_site

    res = build_site(out_dir, kb_dir=kb_dir, strict=strict)
    if json_out:
        emit_json(res)
        return
    sys.stdout.write(f"Wrote {res.docs} doc pages to {res.out_dir} in {res.seconds:.1f} s; "
                     f"open {Path(res.out_dir) / 'index.html'}\n")
