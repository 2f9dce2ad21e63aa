"""A small synchronous client of the OpenAI-compatible ``POST {base_url}/chat/completions``
(OpenAI, vLLM, Ollama, llama.cpp all serve it): one call, bounded by a time budget, its
answer read through a pydantic model so a stray body becomes ``LlmBadResponse``.

Synchronous on purpose: the host runs a non-inline strategy in a worker thread, one call
at a time, and abandons it at the move's deadline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from strategies.llm.errors import LlmBadResponse, LlmHttpError, LlmTimeout
from strategies.llm.options import LlmOptions

__all__ = ["ChatClient", "ChatReply", "Message"]

Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""


class _Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _ReplyMessage(BaseModel):
    content: str | None = None


class _Choice(BaseModel):
    message: _ReplyMessage


class _Completion(BaseModel):
    """The fields we read of a chat completion; servers add others."""

    model: str | None = None
    choices: list[_Choice]
    usage: _Usage | None = None


@dataclass(frozen=True)
class ChatReply:
    """The model's text and what the call cost (tokens as the API's ``usage`` states them;
    0 when a server does not report usage)."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float


class ChatClient:
    """Calls one endpoint with one model; ``close`` releases its connections."""

    def __init__(self, options: LlmOptions, *, transport: httpx.BaseTransport | None = None):
        self.options = options
        headers = {"Content-Type": "application/json"}
        if options.api_key is not None:
            headers["Authorization"] = f"Bearer {options.api_key.get_secret_value()}"
        self._http = httpx.Client(base_url=options.base_url, headers=headers, transport=transport)

    def complete(self, messages: list[Message], *, budget_sec: float) -> ChatReply:
        """The model's answer to ``messages``, waiting at most ``budget_sec`` per phase
        (connect, send, each read).

        Raises:
            LlmTimeout: no answer within the budget.
            LlmHttpError: unreachable, or an HTTP error status.
            LlmBadResponse: a 200 whose body is not a chat completion with text.
        """
        if budget_sec <= 0:
            raise LlmTimeout("no time left before the deadline")
        body: dict[str, Any] = {
            "model": self.options.model,
            "messages": messages,
            "temperature": self.options.temperature,
            "max_tokens": self.options.max_tokens,
        }
        started = time.perf_counter()
        try:
            response = self._http.post(
                "/chat/completions", json=body, timeout=httpx.Timeout(budget_sec)
            )
        except httpx.TimeoutException as exc:
            raise LlmTimeout(
                f"no answer within {budget_sec:.2f} s ({type(exc).__name__})"
            ) from None
        except httpx.HTTPError as exc:
            raise LlmHttpError(f"{type(exc).__name__}: {exc}") from None
        latency_ms = (time.perf_counter() - started) * 1000
        if response.is_error:
            raise LlmHttpError(
                f"HTTP {response.status_code}: {response.text[:200]}", response.status_code
            )
        try:
            completion = _Completion.model_validate_json(response.content)
        except ValidationError as exc:
            raise LlmBadResponse(
                f"not a chat completion: {exc.errors(include_url=False)[0]['msg']}"
            ) from None
        if not completion.choices or completion.choices[0].message.content is None:
            raise LlmBadResponse("the chat completion holds no text")
        usage = completion.usage or _Usage()
        return ChatReply(
            text=completion.choices[0].message.content,
            model=completion.model or self.options.model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            latency_ms=latency_ms,
        )

    def close(self) -> None:
        self._http.close()
