"""Answer generators that call a language model: grounded, cited, checked.

``llm`` uses the provider in the ``llm`` config section; ``openai`` and
``ollama`` force one. The model sees only the retrieved sections, numbered and
delimited (:mod:`.grounding`); what it returns goes through
:func:`.grounding.check_answer`. Whenever the model cannot be used (timeout,
connection error, HTTP error, malformed or empty response) or its answer fails
the checks, the extractive answer is returned instead, with a notice saying
why. No exception leaves ``compose`` or ``stream``.
"""

from __future__ import annotations

import logging
from typing import Any, Iterator, Sequence

from ..errors import LlmError
from .base import Composed, Evidence
from .grounding import REFUSAL_TOKEN, check_answer, strip_thinking, system_prompt, user_prompt

__all__ = ["LlmGenerator", "llm", "openai", "ollama"]

log = logging.getLogger(__name__)

FALLBACK = "extractive (fallback)"


class LlmGenerator:
    name = "llm"

    def __init__(self, *, llm: Any = None, client: Any = None, provider: str | None = None, max_words: int = 180,
                 fallback: Any = None, **_: Any):
        from ..llm import LlmClient

        if client is None:
            from ..config import LlmConfig

            cfg = llm if llm is not None else LlmConfig()
            if provider and provider != cfg.provider:
                cfg = cfg.model_copy(update={"provider": provider})
            client = LlmClient(cfg)
        self.client = client
        self.max_words = int(max_words)
        self.max_source_chars = int(getattr(getattr(client, "config", None), "max_source_chars", 2400))
        if fallback is None:
            from .registry import get_generator

            fallback = get_generator("extractive", max_words=max_words)
        self.fallback = fallback

    @property
    def label(self) -> str:
        return self.client.label

    def prompts(self, question: str, evidence: Sequence[Evidence]) -> tuple[str, str]:
        return (system_prompt(len(evidence), self.max_words),
                user_prompt(question, evidence, self.max_source_chars))

    # -- the two entry points ---------------------------------------------------------
    def compose(self, question: str, evidence: Sequence[Evidence]) -> Composed:
        if not evidence:
            return Composed("", [])
        system, user = self.prompts(question, evidence)
        try:
            reply = self.client.chat(system, user)
        except LlmError as exc:
            return self._fallback(question, evidence, str(exc))
        except Exception as exc:  # never a traceback: anything else falls back too
            log.exception("language model call failed")
            return self._fallback(question, evidence, f"the language model call failed ({type(exc).__name__})")
        return self._finish(question, evidence, reply.text)

    def stream(self, question: str, evidence: Sequence[Evidence]) -> Iterator[str | Composed]:
        """Text deltas as the model writes them, then the checked answer."""
        if not evidence:
            yield Composed("", [])
            return
        system, user = self.prompts(question, evidence)
        raw = ""
        shown = 0
        try:
            for delta in self.client.stream(system, user):
                raw += delta
                head = raw.lstrip()
                if len(head) < 7 and "<think>".startswith(head):
                    continue  # maybe the start of a reasoning block
                visible = strip_thinking(raw).lstrip()
                if REFUSAL_TOKEN.startswith(visible.strip("`*_ ")):
                    continue  # never show the refusal token
                if len(visible) > shown:
                    yield visible[shown:]
                    shown = len(visible)
        except LlmError as exc:
            yield self._fallback(question, evidence, str(exc))
            return
        except Exception as exc:
            log.exception("language model stream failed")
            yield self._fallback(question, evidence, f"the language model call failed ({type(exc).__name__})")
            return
        yield self._finish(question, evidence, raw)

    # -- checking ---------------------------------------------------------------------
    def _finish(self, question: str, evidence: Sequence[Evidence], raw: str) -> Composed:
        chk = check_answer(raw, question, evidence)
        if chk.refused:
            return Composed("", [], refused=True, generator=self.label,
                            notices=chk.notices + ["the language model found no answer in the retrieved sources"])
        if not chk.ok:
            log.info("generated answer rejected: %s", chk.reason)
            return self._fallback(question, evidence, chk.reason, chk.notices)
        return Composed(chk.text, chk.cited, notices=chk.notices, generator=self.label)

    def _fallback(self, question: str, evidence: Sequence[Evidence], reason: str,
                  notices: Sequence[str] = ()) -> Composed:
        c = self.fallback.compose(question, _without_instructions(evidence))
        extra = list(getattr(c, "notices", None) or [])
        return Composed(c.text, list(c.cited), notices=[*notices, f"{reason}; showing the extractive answer instead",
                                                        *extra], generator=FALLBACK)


def _without_instructions(evidence: Sequence[Evidence]) -> list[Evidence]:
    """Evidence without the passages that read like instructions to a language
    model, so that a fallback answer does not quote them either."""
    import dataclasses

    from .grounding import instruction_like

    out = []
    for e in evidence:
        text = e.text
        for p in instruction_like(text):
            text = text.replace(p, "")
        out.append(e if text == e.text else dataclasses.replace(e, text=text))
    return out


def llm(**options: Any) -> LlmGenerator:
    return LlmGenerator(**options)


def openai(**options: Any) -> LlmGenerator:
    return LlmGenerator(provider="openai", **options)


def ollama(**options: Any) -> LlmGenerator:
    return LlmGenerator(provider="ollama", **options)
