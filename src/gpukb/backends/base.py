"""Backend contracts.

* Embedder: ``model_id`` (recorded in the index manifest; two backends that
  give the same vectors share it), ``dim``, ``embed_query(text)``,
  ``embed_documents(texts, progress=False)``, ``token_counter()`` (text ->
  token ids, for chunk sizing) and ``llama`` (the same model as a llama-index
  ``BaseEmbedding``, for llama-index retrievers; built on first use). Built-ins:
  ``onnx`` (:mod:`.onnx`, the default; never imports torch to answer) and
  ``sentence-transformers`` (:mod:`.embedders`).
* Vector store: :class:`VectorStore` below; the built-in is Chroma
  (embedded on disk, or a Chroma server for teams).
* Answer generator: :class:`AnswerGenerator` below; the built-in is extractive
  and needs no LLM. A generator that can stream also implements
  :class:`StreamingAnswerGenerator`: ``stream`` yields text deltas (``str``)
  and then, last, the checked :class:`Composed` answer, which may differ from
  the streamed text (citations removed, or a fallback answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Protocol, Sequence, runtime_checkable


@dataclass
class StoredChunk:
    id: str
    text: str
    metadata: dict[str, Any]
    embedding: list[float] | None = None


@runtime_checkable
class VectorStore(Protocol):
    """One generation of the index's vectors."""

    def add(self, chunks: Sequence[StoredChunk]) -> None: ...

    def get_all(self, include_embeddings: bool = True) -> list[StoredChunk]: ...

    def count(self) -> int: ...

    def llama_vector_store(self) -> Any:
        """The same data as a llama-index vector store, for llama-index retrievers."""
        ...

    def drop(self) -> None: ...


@dataclass
class Evidence:
    """A retrieved section handed to a generator."""

    key: str  # doc_id#anchor
    doc_id: str
    title: str
    section: str
    anchor: str
    path: str
    area: str
    source_urls: list[str]
    text: str  # the section's Markdown body (heading line removed)
    score: float = 0.0
    vector_score: float | None = None
    rank: int = 0
    pointed_from: str = ""  # the key of the section whose text sends its reader here ("See the next section")
    # the cosine similarity between the question and each of the section's first sentences and list
    # items, in order (gpukb.sentences); empty when not known
    unit_similarity: tuple[float, ...] = ()
    # the questions of a message that lists them (1 for its first item ...) this section was retrieved
    # first for (gpukb.text.listed_questions); empty for any other message
    answers: tuple[int, ...] = ()

    @classmethod
    def from_section(cls, key: str, s: Mapping[str, Any], **extra: Any) -> Evidence:
        """The evidence of section ``key`` as the index stores it (``IndexHandle.sections[key]``)."""
        return cls(key=key, doc_id=s["doc_id"], title=s["title"], section=s["section"], anchor=s["anchor"],
                   path=s["path"], area=s["area"], source_urls=list(s["source_urls"]), text=s["text"], **extra)


@dataclass
class Composed:
    """What a generator returns: answer text with [n] markers, and which
    evidence items (by index into the evidence list) the markers refer to, in
    citation order."""

    text: str
    cited: list[int] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # shown to the user (e.g. a fallback and why)
    refused: bool = False  # the generator found no answer in the evidence
    generator: str = ""  # what produced the text, when not the generator's own name (e.g. a fallback)


class AnswerGenerator(Protocol):
    name: str

    def compose(self, question: str, evidence: Sequence[Evidence]) -> Composed: ...


@runtime_checkable
class StreamingAnswerGenerator(Protocol):
    name: str

    def compose(self, question: str, evidence: Sequence[Evidence]) -> Composed: ...

    def stream(self, question: str, evidence: Sequence[Evidence]) -> Iterator[str | Composed]: ...
