"""JSON-RPC 2.0's own error codes, its error answer, and the shape of a request: what an
agent's endpoint (``sdk.jsonrpc``) and its server's guard (``sdk.connections``) answer with."""

from __future__ import annotations

from typing import Any

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "SERVER_BUSY",
    "error_response",
    "is_request",
    "usable_id",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603
SERVER_BUSY = -32000
"""JSON-RPC's first implementation-defined server error: the agent has more requests in
progress than it handles at once, or took too long over this one (``sdk.connections``)."""

_REQUEST_KEYS = frozenset({"jsonrpc", "method", "params", "id"})


def error_response(code: int, message: str, data: str, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC error answer."""
    return {
        "jsonrpc": "2.0",
        "error": {"code": code, "message": message, "data": data},
        "id": request_id,
    }


def _valid_id(value: Any) -> bool:
    """A JSON-RPC id: a string or a number (not a boolean)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def usable_id(request: Any) -> Any:
    """The id to echo in an error about ``request``: its own when that is a valid id."""
    request_id = request.get("id") if isinstance(request, dict) else None
    return request_id if _valid_id(request_id) else None


def is_request(request: Any) -> bool:
    """A JSON-RPC 2.0 request object, by the rules of jsonrpcserver's request schema (checked
    here directly: evaluating that JSON Schema cost more than the rest of the dispatch)."""
    if not isinstance(request, dict) or not request.keys() <= _REQUEST_KEYS:
        return False
    if request.get("jsonrpc") != "2.0" or not isinstance(request.get("method"), str):
        return False
    if "params" in request and not isinstance(request["params"], (dict, list)):
        return False
    request_id = request.get("id")
    return request_id is None or _valid_id(request_id)
