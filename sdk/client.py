"""JSON-RPC 2.0 on the client side: an async caller (``sdk.posting``: aiohttp on the
network) with the per-method timeouts of ``system.json`` and the protocol's retry policy
(timeouts and connection errors only).

The timeout bounds a whole exchange (connect, send, every byte of the answer), so a peer
that trickles its answer costs no more than one that never answers; an answer is read up
to ``http.max_response_bytes`` only, so a peer cannot fill the caller's memory; and one
nested deeper than ``http.max_json_depth`` is refused before anything walks it."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import httpx

from sdk.agent_log import AgentLog
from sdk.call_lanes import CallLanes, Outcome, Pending
from sdk.config import RetryPolicy, SystemConfig
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.messages import LeagueError, Message
from sdk.nesting import nests_deeper
from sdk.posting import AiohttpPoster, HttpxPoster, Poster, Unreachable, UnusableURL
from sdk.rpc_wire import (
    answer_id_mismatch,
    answers_by_id,
    encoded_request,
    error_answer,
    error_evidence,
    named,
    request_parts,
)
from sdk.shared_message import Signed
from sdk.timeouts import within

__all__ = ["OnRetry", "Outgoing", "RpcClient"]

METHOD_NOT_FOUND = -32601
_TOO_DEEP = object()
ERROR_BODY_BYTES = 4096
"""How much of the body of an HTTP error status is read: the evidence of why a peer refused
(a JSON-RPC error object, a sentence), bounded whatever the peer sends."""

_Body = TypeVar("_Body", dict[str, Any], list[Any])

OnRetry = Callable[[int, TransportError], Awaitable[None]]
"""Called before retry number N (1-based) with the failure that caused it."""

Outgoing = Message | dict[str, Any] | Signed | Callable[[], Message | dict[str, Any]]
"""What ``call`` sends: a message, its wire dict, one recipient's copy of a message encoded
once for many (``sdk.shared_message``), or a zero-argument factory called before every
attempt (so a retry carries a fresh timestamp or deadline)."""


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
        self._batching: set[str] = set()
        """The endpoints whose last answer told that they take batches."""
        self._lanes = CallLanes(self._call_together, max_batch=system.http.max_batch)

    @property
    def retry_policy(self) -> RetryPolicy:
        return self._system.retry_policy

    async def aclose(self) -> None:
        await self._lanes.aclose()
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
        kept_whole: bool = False,
        together: bool = False,
    ) -> dict[str, Any]:
        """Send one request and return the ``result`` object of the answer.

        ``kept_whole``: the caller keeps the message and its answer whole elsewhere (a
        match's transcript, written to its match file): the log has each in one short line,
        a refusal whole all the same.

        ``together``: to an endpoint that takes batches, a call made while another
        ``together`` call to it is on its way waits for it, then goes in one batch with the
        others waiting (``sdk.call_lanes``); for the calls that come in bursts to one agent.

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
                if together and endpoint in self._batching:
                    return await self._lanes.call(
                        endpoint,
                        functools.partial(
                            self._call_once, endpoint, name, params, limit, kept_whole
                        ),
                        functools.partial(Pending, name, params, kept_whole, limit),
                    )
                return await self._call_once(endpoint, name, params, limit, kept_whole)
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
        self,
        endpoint: str,
        method: str,
        params: dict[str, Any] | Signed,
        limit: float,
        kept_whole: bool = False,
    ) -> dict[str, Any]:
        request_id = next(self._ids)
        brief = kept_whole or isinstance(params, Signed)
        content = self._request(method, params, request_id, endpoint, brief)
        status, body = await self._exchange(endpoint, method, content, limit)
        answer = self._parsed(status, body, endpoint, method, dict)
        return self._result_in(answer, endpoint, method, request_id, brief=brief)

    async def call_batch(
        self, endpoint: str, calls: Sequence[tuple[str, Signed]], *, timeout: float | None = None
    ) -> list[Outcome]:
        """Send several copies of broadcasts to one endpoint in one JSON-RPC 2.0 batch (one
        HTTP exchange) and return, in the order sent, each one's ``result`` or the error it
        came to: a RemoteError for an answer that refuses it, a TransportError for none at
        all in the batch's answer. Once, with the methods' names as the protocol has them:
        for an endpoint that ``takes_batches``.

        Raises:
            TransportError: no answer to the batch (E001 timeout, E009 connection failure).
            RemoteError: the batch as a whole was refused (an HTTP error, one JSON-RPC error
                for all, garbage).
        """
        limit = max(self._system.timeout_for(m) for m, _ in calls) if timeout is None else timeout
        results = await self._batch(endpoint, calls, limit, [None] * len(calls))
        # the copies' content is logged once by their sender: here one line a batch, once
        # answered (a refusal is logged whole; a batch unanswered is each copy's failure,
        # the caller's to log)
        self._log.log.info(
            "batch_answered",
            peer=endpoint,
            messages=[named(method, params.shared.wire) for method, params in calls],
            answered=sum(isinstance(result, dict) for result in results),
        )
        return results

    async def _call_together(
        self, endpoint: str, calls: Sequence[Pending], limit: float
    ) -> list[Outcome]:
        """Calls that waited in their lane (``sdk.call_lanes``), in one batch, each logged
        as it would be alone; to an endpoint whose last answer no longer tells that it
        takes batches, one request each, all at once."""
        if endpoint not in self._batching:
            return await asyncio.gather(*(self._outcome_alone(endpoint, c) for c in calls))
        briefly = [c.kept_whole or isinstance(c.params, Signed) for c in calls]
        return await self._batch(endpoint, [(c.method, c.params) for c in calls], limit, briefly)

    async def _outcome_alone(self, endpoint: str, call: Pending) -> Outcome:
        try:
            return await self._call_once(
                endpoint, call.method, call.params, call.limit, call.kept_whole
            )
        except (TransportError, RemoteError) as exc:
            return exc

    async def _batch(
        self,
        endpoint: str,
        calls: Sequence[tuple[str, dict[str, Any] | Signed]],
        limit: float,
        briefly: Sequence[bool | None],
    ) -> list[Outcome]:
        """The calls in one batch; each logged as ``_request`` and ``_result_in`` log one
        alone, ``briefly`` or whole, or not at all for None (a broadcast's copy, joined
        from its shared encoding: ``request_parts``).

        Raises:
            TransportError: no answer to the batch (E001 timeout, E009 connection failure).
            RemoteError: the batch as a whole was refused (an HTTP error, one JSON-RPC error
                for all, garbage).
        """
        ids = [next(self._ids) for _ in calls]
        parts: list[bytes | memoryview] = [b"["]
        for (method, params), request_id, brief in zip(calls, ids, briefly, strict=True):
            if brief is None and isinstance(params, Signed):
                parts += request_parts(method, params, request_id)
            else:
                parts.append(self._request(method, params, request_id, endpoint, bool(brief)))
            parts.append(b",")
        parts[-1] = b"]"
        what = f"a batch of {len(calls)} ({', '.join(method for method, _ in calls)})"
        status, body = await self._exchange(endpoint, what, b"".join(parts), limit)
        by_id = answers_by_id(self._parsed(status, body, endpoint, what, list))
        outcomes: list[Outcome] = []
        for (method, _), request_id, brief in zip(calls, ids, briefly, strict=True):
            answer = by_id.get(str(request_id))
            try:
                if answer is None:
                    raise TransportError(
                        ErrorCode.CONNECTION_ERROR,
                        f"{endpoint} answered {what} without an answer to {method} "
                        f"(id {request_id})",
                    )
                outcomes.append(self._result_in(answer, endpoint, method, request_id, brief=brief))
            except (TransportError, RemoteError) as exc:
                outcomes.append(exc)
        return outcomes

    def takes_batches(self, endpoint: str) -> bool:
        """Whether ``endpoint``'s last answer told that it takes JSON-RPC batches
        (``BATCH_HEADER``, as every agent served by ``sdk.jsonrpc`` tells)."""
        return endpoint in self._batching

    def _request(
        self,
        method: str,
        params: dict[str, Any] | Signed,
        request_id: int,
        endpoint: str,
        brief: bool,
    ) -> bytes:
        """The request's JSON, logged as sent: whole, or ``brief``ly in one short line (a
        broadcast's copy, whose content is the same for every recipient and logged once by
        its sender; a message kept whole elsewhere)."""
        if isinstance(params, Signed):
            self._log.brief("message_sent", params.shared.wire, method=method, peer=endpoint)
        else:
            log = self._log.brief if brief else self._log.message
            log("message_sent", params, method=method, peer=endpoint)
        return encoded_request(method, params, request_id)

    async def _exchange(
        self, endpoint: str, what: str, content: bytes, limit: float
    ) -> tuple[int, bytes]:
        """POST ``content``: the answer's status and body within ``limit`` seconds."""
        try:
            return await within(self._post(endpoint, what, content), timeout=limit)
        except asyncio.TimeoutError:
            raise TransportError(
                ErrorCode.TIMEOUT_ERROR, f"{endpoint} did not answer {what} within {limit:g} s"
            ) from None
        except UnusableURL:
            raise TransportError(
                ErrorCode.CONNECTION_ERROR, f"{endpoint!r} is not a URL we can call for {what}"
            ) from None
        except Unreachable as exc:
            raise TransportError(
                ErrorCode.CONNECTION_ERROR, f"could not reach {endpoint} for {what}: {exc}"
            ) from None

    async def _post(self, endpoint: str, what: str, content: bytes) -> tuple[int, bytes]:
        """The answer's status and body, read as a stream so that a body above
        ``http.max_response_bytes`` is refused before it is held (declared or not); of the
        body of a status other than 200, only the first ``ERROR_BODY_BYTES`` (the evidence
        of why, never a result). Whether the endpoint takes batches is learnt from the
        answer's headers.

        Raises:
            RemoteError: E002, the answer is larger than the limit.
        """
        cap = self._system.http.max_response_bytes
        async with self._poster.post(endpoint, content) as answer:
            if answer.takes_batches:
                self._batching.add(endpoint)
            else:
                self._batching.discard(endpoint)
            if answer.status != 200:
                return answer.status, await _first_bytes(answer.chunks, ERROR_BODY_BYTES)
            declared = answer.declared_length
            if declared is not None and declared > cap:
                raise self._too_large(endpoint, what, f"of {declared} bytes")
            body = bytearray()
            async for chunk in answer.chunks:
                body += chunk
                if len(body) > cap:
                    raise self._too_large(endpoint, what, f"of more than {cap} bytes")
            return answer.status, bytes(body)

    def _too_large(self, endpoint: str, what: str, size: str) -> RemoteError:
        cap = self._system.http.max_response_bytes
        return RemoteError(
            ErrorCode.INVALID_FIELD_VALUE.value,
            f"{endpoint} answered {what} with a body {size}, above http.max_response_bytes "
            f"({cap}): refused without reading the rest",
        )

    def _parsed(
        self, status: int, content: bytes, endpoint: str, what: str, kind: type[_Body]
    ) -> _Body:
        """The answer's JSON body, a ``kind`` (an object for a call, an array for a batch).

        Raises:
            RemoteError: an HTTP error status, or a body that is not JSON of that kind within
                ``http.max_json_depth``; a batch answered with one JSON-RPC error object.
        """
        if status != 200:
            why, evidence = error_evidence(content)
            raise RemoteError(
                f"HTTP_{status}", f"{endpoint} answered {what} with HTTP {status}{why}", evidence
            )
        try:
            body = json.loads(content)
        except ValueError:
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value, f"{endpoint} answered {what} with non-JSON"
            ) from None
        except RecursionError:  # deeper than the parser goes: the peer's fault, not ours
            body = _TOO_DEEP
        depth = self._system.http.max_json_depth
        if body is _TOO_DEEP or nests_deeper(content, depth):
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value,
                f"{endpoint} answered {what} with JSON nested more than {depth} levels deep "
                f"(http.max_json_depth)",
            )
        if kind is list and isinstance(body, dict) and isinstance(body.get("error"), dict):
            raise error_answer(body, endpoint, what)
        if not isinstance(body, kind):
            raise RemoteError(
                ErrorCode.INVALID_FIELD_VALUE.value,
                f"{endpoint} answered {what} with a JSON {type(body).__name__}, not "
                f"{'an object' if kind is dict else 'an array'}",
            )
        return body

    def _result_in(
        self,
        body: dict[str, Any],
        endpoint: str,
        method: str,
        request_id: int,
        *,
        brief: bool | None,
    ) -> dict[str, Any]:
        """The ``result`` of the JSON-RPC answer ``body`` to request ``request_id``.
        ``brief``: the answer is logged as its request was, in one short line without its
        data (a broadcast's copy, 6 per result in a league that broadcasts; a message kept
        whole elsewhere), None: not at all (a batch's, logged in one line); a LEAGUE_ERROR
        answer is logged whole all the same."""
        mismatch = answer_id_mismatch(body, request_id)
        if mismatch is not None:  # no usable answer: retried like a lost one
            raise TransportError(
                ErrorCode.CONNECTION_ERROR,
                f"{endpoint} answered {method} "
                f"with {mismatch}: an answer to another request, not taken",
            )
        if body.get("error") is not None:
            raise error_answer(body, endpoint, method)
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
        if refused or brief is False:
            self._log.message("message_received", result, method=method, peer=endpoint)
        elif brief:
            self._log.brief("message_received", result, method=method, peer=endpoint)
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
