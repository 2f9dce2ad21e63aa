"""Why a chat-completions call gave no text; each maps to a fallback reason."""

from __future__ import annotations

from typing import ClassVar, Literal

__all__ = ["LlmBadResponse", "LlmError", "LlmHttpError", "LlmTimeout"]

CallFailure = Literal["timeout", "http_error", "bad_response", "error"]


class LlmError(Exception):
    """A call to the model gave no usable text."""

    reason: ClassVar[CallFailure] = "error"


class LlmTimeout(LlmError):
    """No answer before the move's deadline (less the safety margin)."""

    reason: ClassVar[CallFailure] = "timeout"


class LlmHttpError(LlmError):
    """The endpoint could not be reached (``status`` None) or answered with an HTTP error
    status."""

    reason: ClassVar[CallFailure] = "http_error"

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class LlmBadResponse(LlmError):
    """The endpoint answered 200 with a body that is not a chat completion."""

    reason: ClassVar[CallFailure] = "bad_response"
