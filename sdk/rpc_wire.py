"""JSON-RPC 2.0's JSON as our client writes and reads it (``sdk.client``): a request
encoded (a broadcast's copy spliced in as it was encoded once), an answer's id matched to
its request's, an error answer and the body of an HTTP error told in a sentence."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson

from sdk.errors import RemoteError
from sdk.shared_message import Signed

__all__ = [
    "answer_id_mismatch",
    "answers_by_id",
    "encoded_request",
    "error_answer",
    "error_evidence",
    "named",
    "request_parts",
]

_ID_SHOWN = 40
"""Characters of a wrong answer id quoted in the error (a peer chooses its length)."""
_ERROR_SHOWN = 300
"""Characters of a peer's error message or body quoted in the error's description."""


def answer_id_mismatch(body: dict[str, Any], request_id: int) -> str | None:
    """What makes ``body`` the answer to another request than ``request_id``'s, or None.

    The request's id echoed as a number or as a string is the same id; so is none at all
    (tolerated: HTTP pairs an answer with its request), and a null id on an error (the
    peer could not read the request's, as JSON-RPC 2.0 says). Any other id is a mismatch.
    """
    if "id" not in body:
        return None
    answered = body["id"]
    if answered is None and "error" in body:
        return None
    if (
        isinstance(answered, (int, str))
        and not isinstance(answered, bool)
        and str(answered) == str(request_id)
    ):
        return None
    return f"id {json.dumps(answered)[:_ID_SHOWN]}, not {request_id}, the id of the request"


def answers_by_id(answers: list[Any]) -> dict[str, dict[str, Any]]:
    """A batch's answers by their ids as text (a number or a string is the same id); the
    first one of an id kept, those without a usable id dropped."""
    by_id: dict[str, dict[str, Any]] = {}
    for answer in answers:
        if isinstance(answer, dict) and isinstance(answer.get("id"), (int, str)):
            by_id.setdefault(str(answer["id"]), answer)
    return by_id


def encoded_request(method: str, params: dict[str, Any] | Signed, request_id: int) -> bytes:
    """A JSON-RPC request's JSON (a broadcast's copy spliced in as it was encoded once)."""
    if isinstance(params, Signed):
        return b"".join(request_parts(method, params, request_id))
    return orjson.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": request_id})


def request_parts(method: str, params: Signed, request_id: int) -> list[bytes | memoryview]:
    """A broadcast copy's request in pieces, to be joined once (``SharedMessage.parts``)."""
    head = b'{"jsonrpc":"2.0","method":%s,"params":' % orjson.dumps(method)
    return [head, *params.parts(), b',"id":%d}' % request_id]


def named(method: str, message: Mapping[str, Any]) -> dict[str, Any]:
    """A message named in a batch's log line: its method, type and conversation."""
    return {
        "method": method,
        "message_type": message.get("message_type"),
        "conversation_id": message.get("conversation_id"),
    }


def error_answer(body: dict[str, Any], endpoint: str, what: str) -> RemoteError:
    """The RemoteError of a JSON-RPC error answer ``body``."""
    error = body["error"]
    code = error.get("code") if isinstance(error, dict) else None
    text = error.get("message", "") if isinstance(error, dict) else str(error)
    return RemoteError(str(code), f"{endpoint} answered {what} with an error: {text}", body)


def error_evidence(content: bytes) -> tuple[str, dict[str, Any]]:
    """What the body of an HTTP error status says (``: JSON-RPC error -32001 ...`` or its
    text, cut), and what of it a transcript keeps: the JSON object, or the text."""
    text = content.decode("utf-8", errors="replace").strip()
    if not text:
        return "", {}
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            said = f"JSON-RPC error {error.get('code')} {error.get('message', '')}".rstrip()
            data = error.get("data")
            if data not in (None, ""):
                said += f" ({json.dumps(data)[:_ERROR_SHOWN]})"
        else:
            said = json.dumps(body)
        return f": {said[:_ERROR_SHOWN]}", body
    cut = text[:_ERROR_SHOWN] + ("..." if len(text) > _ERROR_SHOWN else "")
    return f": {cut!r}", {"body": text}
