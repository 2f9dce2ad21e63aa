"""JSON-RPC 2.0 on the client side: an async caller (``sdk.posting``: aiohttp on the
network) with the per-method timeouts of ``system.json`` and the protocol's retry policy
(timeouts and connection errors only).

The timeout bounds a whole exchange (connect, send, every byte of the answer), so a peer
that trickles its answer costs no more than one that never answers; an answer is read up
to ``http.max_response_bytes`` only, so a peer cannot fill the caller's memory; and one
nested deeper than ``http.max_json_depth`` is refused before anything walks it."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import orjson

from sdk.agent_log import AgentLog
from sdk.config import RetryPolicy, SystemConfig
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.messages import LeagueError, Message
from sdk.nesting import nests_deeper
from sdk.posting import AiohttpPoster, HttpxPoster, Poster, Unreachable, UnusableURL
from sdk.shared_message import Signed

__all__ = ["OnRetry", "Outgoing", "RpcClient", "answer_id_mismatch"]

METHOD_NOT_FOUND = -32601
_TOO_DEEP = object()
_ID_SHOWN = 40
"""Characters of a wrong answer id quoted in the error (a peer chooses its length)."""
ERROR_BODY_BYTES = 4096
"""How much of the body of an HTTP error status is read: the evidence of why a peer refused
(a JSON-RPC error object, a sentence), bounded whatever the peer sends."""
_ERROR_SHOWN = 300
"""Characters of a peer's error message or body quoted in the error's description."""

OnRetry = Callable[[int, TransportError], Awaitable[None]]
"""Called before retry number N (1-based) with the failure that caused it."""

Outgoing = Message | dict[str, Any] | Signed | Callable[[], Message | dict[str, Any]]
"""What ``call`` sends: a message, its wire dict, one recipient's copy of a message encoded
once for many (``sdk.shared_message``), or a zero-argument factory called before every
attempt (so a retry carries a fresh timestamp or deadline)."""


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


class RpcClient:
    """Calls other agents' ``/mcp`` endpoints. One per agent; share it, close it at the end."""

    def __init__(
        self,
        system: SystemConfig,
        log: AgentLog,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self._system = system
        self._log = log
        self._ids = itertools.count(1)
        self._poster: Poster = (
            AiohttpPoster(system.http.max_connections)
            if transport is None
            else HttpxPoster(transport)
        )
        self._method_names: dict[tuple[str, str], str] = {}

    @property
    def retry_policy(self) -> RetryPolicy:
        return self._system.retry_policy

    async def aclose(self) -> None:
        await self._poster.aclose()

    async def call(
        self,
        endpoint: str,
        method: str,
        message: Outgoing,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        on_retry: OnRetry | None = None,
        method_aliases: bool = True,
    ) -> dict[str, Any]:
        """Send one request and return the ``result`` object of the answer.

        With ``method_aliases`` (a lenient league), a peer that answers -32601 to the
        protocol's method name is asked once more with the message_type as the method, as
        many published agents serve it, and is called that way from then on.

        Raises:
            TransportError: no answer after the last retry (E001 timeout, E009 connection
                failure or an answer carrying another request's id).
            RemoteError: the agent answered with LEAGUE_ERROR, a JSON-RPC error, or garbage.
        """
        limit = self._system.timeout_for(method) if timeout is None else timeout
        max_retries = self.retry_policy.max_retries if retries is None else retries
        attempt = 0
        while True:
            outgoing = message() if callable(message) else message
            params = outgoing.to_wire() if isinstance(outgoing, Message) else outgoing
            name = self._method_names.get((endpoint, method), method)
            try:
                return await self._call_once(endpoint, name, params, limit)
            except RemoteError as exc:
                alias = (
                    params.shared.message_type
                    if isinstance(params, Signed)
                    else params.get("message_type")
                )
                if not (
                    method_aliases
                    and exc.code == str(METHOD_NOT_FOUND)
                    and name == method
                    and isinstance(alias, str)
                    and alias
                    and alias != method
                ):
                    raise
                self._method_names[(endpoint, method)] = alias
                self._log.log.info(
                    "peer_method_alias", endpoint=endpoint, method=method, alias=alias
                )
            except TransportError as failure:
                attempt += 1
                if attempt > max_retries:
                    raise
                self._log.log.warning(
                    "call_retry",
                    method=method,
                    endpoint=endpoint,
                    retry=attempt,
                    error_code=failure.code.value,
                    reason=failure.description,
                )
                if on_retry is not None:
                    await on_retry(attempt, failure)
                await asyncio.sleep(self.retry_policy.delay(attempt))

    async def _call_once(
        self, endpoint: str, method: str, params: dict[str, Any] | Signed, limit: float
    ) -> dict[str, Any]:
        request_id = next(self._ids)
        content: bytes
        if isinstance(params, Signed):
            shared = params.shared
            content = b"".join(
                (
                    b'{"jsonrpc":"2.0","method":',
                    orjson.dumps(method),
                    b',"params":',
                    params.encoded(),
                    b',"id":%d}' % request_id,
                )
            )
            # its content is the same for every recipient: its sender logs that once
            self._log.brief("message_sent", shared.wire, method=method, peer=endpoint)
        else:
            request = {"jsonrpc": "2.0", "method": method, "params": params, "id": request_id}
            content = json.dumps(request).encode()
            self._log.message("message_sent", params, method=method, peer=endpoint)
        try:
            status, body = await asyncio.wait_for(
                self._post(endpoint, method, content), timeout=limit
            )
        except asyncio.TimeoutError:
            raise TransportError(
                ErrorCode.TIMEOUT_ERROR, f"{endpoint} did not answer {method} within {limit:g} s"
            ) from None
        except UnusableURL:
            raise TransportError(
                ErrorCode.CONNECTION_ERROR, f"{endpoint!r} is not a URL we can call for {method}"
            ) from None
        except Unreachable as exc:
            raise TransportError(
                ErrorCode.CONNECTION_ERROR, f"could not reach {endpoint} for {method}: {exc}"
            ) from None
        return self._result_of(
            status, body, endpoint, method, request_id, brief=isinstance(params, Signed)
        )

    async def _post(self, endpoint: str, method: str, content: bytes) -> tuple[int, bytes]:
        """The answer's status and body, read as a stream so that a body above
        ``http.max_response_bytes`` is refused before it is held (declared or not); of the
        body of a status other than 200, only the first ``ERROR_BODY_BYTES`` (the evidence
        of why, never a result).

        Raises:
            RemoteError: E002, the answer is larger than the limit.
        """
        cap = self._system.http.max_response_bytes
        async with self._poster.post(endpoint, content) as answer:
            if answer.status != 200:
                return answer.status, await _first_bytes(answer.chunks, ERROR_BODY_BYTES)
            declared = answer.declared_length
            if declared is not None and declared > cap:
                raise self._too_large(endpoint, method, f"of {declared} bytes")
            body = bytearray()
            async for chunk in answer.chunks:
                body += chunk
                if len(body) > cap:
                    raise self._too_large(endpoint, method, f"of more than {cap} bytes")
            return answer.status, bytes(body)

    def _too_large(self, endpoint: str, method: str, size: str) -> RemoteError:
        cap = self._system.http.max_response_bytes
        return RemoteError(
            ErrorCode.INVALID_FIELD_VALUE.value,
            f"{endpoint} answered {method} with a body {size}, above http.max_response_bytes "
            f"({cap}): refused without reading the rest",
        )

    def _result_of(
        self,
        status: int,
        content: bytes,
        endpoint: str,
        method: str,
        request_id: int,
        *,
        brief: bool = False,
    ) -> dict[str, Any]:
        """``brief``: the answer to a broadcast's copy is logged as its sending was, in one
        short line without its data (one per recipient: 6 per result in a league that
        broadcasts); a LEAGUE_ERROR answer is logged whole all the same."""
        if status != 200:
            why, evidence = _error_evidence(content)
            raise RemoteError(
                f"HTTP_{status}", f"{endpoint} answered {method} with HTTP {status}{why}", evidence
            )
        try:
            body = json.loads(content)
        except ValueError:
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value, f"{endpoint} answered {method} with non-JSON"
            ) from None
        except RecursionError:  # deeper than the parser goes: the peer's fault, not ours
            body = _TOO_DEEP
        depth = self._system.http.max_json_depth
        if body is _TOO_DEEP or nests_deeper(content, depth):
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value,
                f"{endpoint} answered {method} with JSON nested more than {depth} levels deep "
                f"(http.max_json_depth)",
            )
        if not isinstance(body, dict):
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value,
                f"{endpoint} answered {method} with a JSON {type(body).__name__}, not an object",
            )
        mismatch = answer_id_mismatch(body, request_id)
        if mismatch is not None:  # no usable answer: retried like a lost one
            raise TransportError(
                ErrorCode.CONNECTION_ERROR,
                f"{endpoint} answered {method} "
                f"with {mismatch}: an answer to another request, not taken",
            )
        error = body.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            text = error.get("message", "") if isinstance(error, dict) else str(error)
            raise RemoteError(
                str(code), f"{endpoint} answered {method} with an error: {text}", body
            )
        if "result" not in body:
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value,
                f"{endpoint} answered {method} with neither a result nor an error",
                body,
            )
        result = body["result"]
        if not isinstance(result, dict):
            result = {"value": result}
        refused = result.get("message_type") == LeagueError.MESSAGE_TYPE
        if brief and not refused:
            self._log.brief("message_received", result, method=method, peer=endpoint)
        else:
            self._log.message("message_received", result, method=method, peer=endpoint)
        if refused:
            raise RemoteError(
                str(result.get("error_code", "")),
                str(result.get("error_description", "")),
                result,
            )
        return result

    async def call_until_answered(
        self,
        endpoint: str,
        method: str,
        message: Outgoing,
        *,
        interval: float = 0.5,
        give_up_after: float = 60.0,
    ) -> dict[str, Any]:
        """Call until the other agent is up (start-up order is not guaranteed): connection
        errors and timeouts are retried every ``interval`` seconds for ``give_up_after``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + give_up_after
        while True:
            try:
                return await self.call(endpoint, method, message, retries=0)
            except TransportError:
                if loop.time() + interval > deadline:
                    raise
                await asyncio.sleep(interval)


async def _first_bytes(chunks: AsyncIterator[bytes], limit: int) -> bytes:
    """At most ``limit`` bytes of a streamed body; the rest is never read."""
    body = bytearray()
    async for chunk in chunks:
        body += chunk[: limit - len(body)]
        if len(body) >= limit:
            break
    return bytes(body)


def _error_evidence(content: bytes) -> tuple[str, dict[str, Any]]:
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
