"""JSON-RPC 2.0 on the server side: jsonrpcserver at ``POST /mcp`` of an agent's FastAPI app.

This is the only module that imports jsonrpcserver (5.0.9 imports OSlash, which breaks on
some interpreters: the ImportError then names the interpreter and what to use instead). A
service hands it an explicit table of methods; each is also served under the message_type it
carries (as many published agents call it); params are repaired or refused by the league's
protocol mode (``sdk.tolerance``) and validated by the message's model; a ``ProtocolError``
or a failed validation is answered as a LEAGUE_ERROR result (the public agents' convention);
JSON-RPC's own codes are kept for transport faults (-32700 parse error, -32600 invalid
request, -32601 unknown method, -32602 params that are not an object, -32603 an unexpected
failure, whose details stay in the agent's log). Batches are answered element by element and
notifications get no answer, as the spec says; every answer tells that batches are taken
(``sdk.posting.BATCH_HEADER``). Every call is logged as received and sent (a broadcast's
copy in one short line each way, ``RpcMethod.broadcast``), except in a batch, whose log is
bounded by its size: its refused calls are counted in one summary line, its broadcast copies
named in one line (``sdk.refusal_log.BatchShare``); and
refusals (a LEAGUE_ERROR answer, single or a batch's summary) are logged only while their
caller's address, and all callers together, have log budget left in the current window
(``sdk.refusal_log``), then counted in one ``refusals_unlogged`` line per window.

Bad input never reaches a handler as a crash: the body is read up to ``http.max_body_bytes``
(HTTP 413 beyond, without keeping the rest in memory), parsed strictly as RFC 8259 JSON
(lone surrogates, NaN and numbers beyond a double are parse errors, since they could not be
logged or answered), and refused with -32600 when it nests deeper than
``http.max_json_depth`` or batches more than ``http.max_batch`` requests.
"""

from __future__ import annotations

import asyncio
import inspect
import platform
import time
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import FastAPI, Request, Response
from pydantic import ValidationError
from starlette.types import Receive, Scope, Send

from sdk.agent_log import AgentLog
from sdk.config import HttpConfig
from sdk.errors import ErrorCode, ProtocolError
from sdk.json_bytes import json_bytes
from sdk.jsonrpc_shapes import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    error_response,
    is_request,
    usable_id,
)
from sdk.messages import LeagueError, Message, protocol_error_from_validation
from sdk.nesting import nests_deeper
from sdk.posting import TAKES_BATCHES
from sdk.refusal_log import BatchShare, RefusalBudget
from sdk.rpc_wire import named
from sdk.service_app import ServiceApp
from sdk.tolerance import Deviation, ProtocolMode, repair, request_defaults, strict_refusal

with warnings.catch_warnings():
    # jsonrpcserver 5.0.9 reads its schema with importlib.resources.read_text, deprecated
    # since Python 3.11: the warning would fail every run with warnings as errors.
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        from jsonrpcserver import Error, InvalidParams, Success, async_dispatch_to_serializable
    except AttributeError as exc:  # OSlash's Protocol checks against this interpreter's typing
        raise ImportError(
            f"jsonrpcserver 5.0.9 cannot be imported on Python {platform.python_version()}: "
            f"its dependency OSlash breaks on this interpreter's typing module ({exc}; "
            "jsonrpcserver issue 273, reported on Python 3.12.2); use Python "
            "3.10, 3.11, 3.12.0-3.12.1 or 3.13 (the scripts take PYTHON=/path/to/python)"
        ) from exc

__all__ = [
    "MCP_PATH",
    "JsonRpcEndpoint",
    "RpcMethod",
    "caller_address",
    "served_methods",
]

MCP_PATH = "/mcp"
"""Where an agent serves JSON-RPC."""

Handler = Callable[[Any], Awaitable[Message | dict[str, Any]]]


@dataclass(frozen=True)
class RpcMethod:
    """One method of a service: its handler and the model that validates its params
    (``None``: the handler takes the raw params object)."""

    handler: Handler
    model: type[Message] | None = None
    broadcast: bool = False
    """Copies of a message its sender logs whole once (a round's news): logged one short line
    each way (``AgentLog.brief``: 64 rows of standings cost more to log than to validate)."""


def served_methods(methods: Mapping[str, RpcMethod]) -> dict[str, tuple[RpcMethod, str | None]]:
    """Every name a method table is served under, each with the protocol's name when it is
    an alias: the table's own names, and the message_type each method carries (many
    published agents name the method by it)."""
    served: dict[str, tuple[RpcMethod, str | None]] = {
        name: (method, None) for name, method in methods.items()
    }
    for name, method in methods.items():
        alias = method.model.MESSAGE_TYPE if method.model else None
        if alias and alias not in served:
            served[alias] = (method, name)
    return served


_CALLER: ContextVar[str | None] = ContextVar("jsonrpc_caller", default=None)


_BATCH: ContextVar[BatchShare | None] = ContextVar("jsonrpc_batch", default=None)


@dataclass(frozen=True)
class _Outcome:
    """One call's answer; ``refusal``: its error code when it is a LEAGUE_ERROR."""

    wire: dict[str, Any]
    deviations: list[Deviation]
    refusal: str | None = None


def caller_address() -> str | None:
    """The network address of the peer whose request a handler is answering (None outside
    an HTTP request): what a per-address limit counts by."""
    return _CALLER.get()


_BATCH_HEADERS = [(name.lower().encode(), value.encode()) for name, value in TAKES_BATCHES.items()]
_JSON_HEADERS = [(b"content-type", b"application/json"), *_BATCH_HEADERS]


async def _send_answer(send: Send, status: int, payload: Any) -> None:
    """Send ``payload`` as the answer (None: 204, nothing to say), telling that batches are
    taken."""
    if payload is None:
        await send({"type": "http.response.start", "status": 204, "headers": _BATCH_HEADERS})
        await send({"type": "http.response.body", "body": b""})
        return
    body = json_bytes(payload)
    length = (b"content-length", str(len(body)).encode())
    await send(
        {"type": "http.response.start", "status": status, "headers": [length, *_JSON_HEADERS]}
    )
    await send({"type": "http.response.body", "body": body})


class _AnsweredBy(Response):
    """The endpoint's own ASGI answer as a FastAPI route's response."""

    def __init__(self, endpoint: JsonRpcEndpoint):
        super().__init__()
        self._endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._endpoint(scope, receive, send)


class JsonRpcEndpoint:
    """The ``/mcp`` endpoint of one agent."""

    def __init__(
        self,
        methods: Mapping[str, RpcMethod],
        *,
        sender: Callable[[], str],
        log: AgentLog,
        limits: HttpConfig | None = None,
        mode: Callable[[], ProtocolMode] = lambda: "lenient",
        league_manager_sender: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        """``league_manager_sender``: the form in which this league's League Manager signs
        (``system.json``), so that the other form is noted (and refused in a strict league);
        None where no League Manager calls this agent. ``clock``: the refusal log's windows
        are measured by it."""
        self._sender = sender
        self._log = log
        self._limits = limits or HttpConfig()
        self._refusals = RefusalBudget(
            per_address=self._limits.refusal_log_bytes,
            total=self._limits.refusal_log_total_bytes,
            window_sec=self._limits.refusal_log_window_sec,
            clock=clock,
        )
        self._mode = mode
        self._league_manager_sender = league_manager_sender
        self._methods = {
            name: self._adapt(name, method, alias_of)
            for name, (method, alias_of) in served_methods(methods).items()
        }

    def mount(self, app: FastAPI, path: str = MCP_PATH) -> None:
        """Serve the endpoint at ``path`` of ``app``, documented in its /docs by a FastAPI
        route. A ``ServiceApp`` (every agent's) hands each POST to it as a plain ASGI app,
        ahead of its middleware and routes: a call meets neither FastAPI's dependency
        solving (a fifth of a small call's CPU), nor Starlette's request and response
        objects, nor the middleware (a quarter of the rest). Any other FastAPI app is
        answered by the documenting route, by the same code."""
        app.add_api_route(
            path,
            self._documented,
            methods=["POST"],
            include_in_schema=True,
            summary="JSON-RPC 2.0 endpoint (league.v2 messages)",
        )
        if isinstance(app, ServiceApp):
            app.answer_posts(path, self)

    async def _documented(self, request: Request) -> Response:
        """The documenting route's handler, answered by the endpoint as a plain ASGI app."""
        return _AnsweredBy(self)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one POST: its body read up to ``http.max_body_bytes`` (beyond, HTTP 413
        once the rest is read and dropped: memory stays bounded, and the caller, still
        sending, gets its 413 instead of a connection reset)."""
        limit = self._limits.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the caller went away: nobody to answer
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size <= limit:
                chunks.append(chunk)
            elif chunks:
                chunks.clear()
            more = message.get("more_body", False)
        if size > limit:
            payload = error_response(
                INVALID_REQUEST,
                "Invalid request",
                f"the request body is larger than {limit} bytes, this agent's limit "
                "(http.max_body_bytes)",
            )
            await _send_answer(send, 413, payload)
            return
        client = scope.get("client")
        _CALLER.set(client[0] if client else None)
        await _send_answer(send, 200, await self.dispatch(b"".join(chunks)))

    async def dispatch(self, body: bytes | str) -> Any:
        """Answer one JSON-RPC payload: a dict, a list (batch) or None (notifications)."""
        ended = self._refusals.ended()
        if ended is not None:
            self._log.log.info("refusals_unlogged", **ended)
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return error_response(
                PARSE_ERROR, "Parse error", f"the body cannot be parsed as JSON: {exc}"
            )
        depth = self._limits.max_json_depth
        if nests_deeper(body, depth):
            return error_response(
                INVALID_REQUEST,
                "Invalid request",
                f"the body nests arrays and objects more than {depth} levels deep, "
                "this agent's limit (http.max_json_depth)",
            )
        if isinstance(parsed, list):
            if not parsed:
                return error_response(
                    INVALID_REQUEST, "Invalid request", "a batch must not be empty"
                )
            if len(parsed) > self._limits.max_batch:
                return error_response(
                    INVALID_REQUEST,
                    "Invalid request",
                    f"a batch may hold at most {self._limits.max_batch} requests, "
                    f"this agent's limit (http.max_batch); this one holds "
                    f"{len(parsed)}, and none of them was handled: send them in "
                    "smaller batches",
                )
            return await self._dispatch_batch(parsed, len(body)) or None
        return await self._dispatch_one(parsed)

    async def _dispatch_batch(self, batch: list[Any], size: int) -> list[Any]:
        """The answers to a batch's requests, handled concurrently, its log bounded by its
        ``size`` (``BatchShare``) and summed up in one ``batch_summary`` line; a summary of
        refusals alone is a refusal record, charged to the caller's refusal budget and only
        counted once that is spent."""
        share = BatchShare(budget=size)
        token = _BATCH.set(share)
        try:
            answers = await asyncio.gather(*(self._dispatch_one(item) for item in batch))
        finally:
            _BATCH.reset(token)
        caller = caller_address()
        if share.news:
            self._log.log.info("broadcasts_answered", caller=caller, messages=share.news)
        refusals_only = bool(share.refused) and not share.unlogged
        if refusals_only and self._refusals.muted(caller):
            self._refusals.withhold(caller, share.refused)
        elif share.refused or share.unlogged:
            start = self._log.size
            self._log.log.info(
                "batch_summary",
                caller=caller,
                requests=len(batch),
                refused=dict(share.refused),
                unlogged=share.unlogged,
            )
            if refusals_only:
                self._refusals.spend(caller, self._log.size - start)
        return [answer for answer in answers if answer is not None]

    async def _dispatch_one(self, request: Any) -> Any:
        if not is_request(request):
            return error_response(
                INVALID_REQUEST,
                "Invalid request",
                "not a JSON-RPC 2.0 request object (jsonrpc '2.0', method, optional params and id)",
                usable_id(request),
            )
        return await async_dispatch_to_serializable(
            request,
            self._methods,
            deserializer=lambda already_parsed: already_parsed,
            validator=lambda _: None,
        )

    def _league_error(self, error: ProtocolError, params: dict[str, Any]) -> dict[str, Any]:
        conversation_id = params.get("conversation_id")
        message = LeagueError(
            sender=self._sender(),
            conversation_id=conversation_id
            if isinstance(conversation_id, str) and conversation_id
            else "none",
            error_code=error.code.value,
            error_description=error.description,
            original_message_type=params.get("message_type")
            if isinstance(params.get("message_type"), str)
            else None,
            context=error.context,
        )
        return message.to_wire()

    async def _answer(
        self, name: str, method: RpcMethod, alias_of: str | None, params: dict[str, Any]
    ) -> Any:
        """Answer one call and log it as received and sent; in a batch, only once its answer
        is known, and only as far as the batch's share of the log goes (``BatchShare``): a
        broadcast's copy handled as it came is only named, in the batch's one line."""
        batch = _BATCH.get()
        if batch is None:
            return await self._answer_single(name, method, alias_of, params)
        outcome = await self._outcome(name, method, alias_of, params)
        if outcome.refusal is not None:
            batch.refused[f"{name}:{outcome.refusal}"] += 1
        elif batch.budget <= 0:
            batch.unlogged += 1
        elif method.broadcast and not outcome.deviations:
            batch.news.append(named(name, params))
        else:
            start = self._log.size
            self._log_received(name, method, params)
            self._log_answer(name, method, outcome)
            batch.budget -= self._log.size - start
        return outcome.wire

    async def _answer_single(
        self, name: str, method: RpcMethod, alias_of: str | None, params: dict[str, Any]
    ) -> Any:
        """Answer a call that came alone: logged as received before it is handled, and as
        sent after; a refusal is charged to its caller's refusal budget, and once that is
        spent only counted (``sdk.refusal_log``), while a handled call is logged always."""
        caller = caller_address()
        if self._refusals.muted(caller):
            outcome = await self._outcome(name, method, alias_of, params)
            if outcome.refusal is not None:
                self._refusals.withhold(caller, Counter({f"{name}:{outcome.refusal}": 1}))
            else:
                self._log_received(name, method, params)
                self._log_answer(name, method, outcome)
            return outcome.wire
        start = self._log.size
        self._log_received(name, method, params)
        reserved = self._log.size - start  # so calls in flight see it spent already
        self._refusals.spend(caller, reserved)
        outcome = await self._outcome(name, method, alias_of, params)
        start = self._log.size
        self._log_answer(name, method, outcome)
        if outcome.refusal is None:
            self._refusals.spend(caller, -reserved)
        else:
            self._refusals.spend(caller, self._log.size - start)
        return outcome.wire

    async def _outcome(
        self, name: str, method: RpcMethod, alias_of: str | None, params: dict[str, Any]
    ) -> _Outcome:
        """The handler's answer, or a LEAGUE_ERROR for a message that breaks the protocol or
        that the handler refuses. Anything else raised is our own fault."""
        deviations: list[Deviation] = []
        if alias_of is not None:
            deviations.append(
                Deviation(
                    kind="method_alias",
                    detail=f"the method is named {name} (the "
                    f"message_type); the protocol's name is {alias_of}",
                )
            )
        try:
            payload: Any = params
            if method.model is not None:
                fixed, repairs = repair(
                    method.model,
                    params,
                    request_defaults(method.model),
                    league_manager_sender=self._league_manager_sender,
                )
                deviations += repairs
                refusal = strict_refusal(deviations) if self._mode() == "strict" else None
                if refusal is not None:
                    raise refusal
                payload = method.model.from_wire(fixed)
        except ValidationError as exc:
            model_name = method.model.MESSAGE_TYPE if method.model else name
            return self._refused(protocol_error_from_validation(exc, model_name), params)
        except ProtocolError as exc:
            return self._refused(exc, params)
        try:
            answer = await method.handler(payload)
        except ProtocolError as exc:
            return self._refused(exc, params, deviations)
        wire = answer.to_wire() if isinstance(answer, Message) else answer
        return _Outcome(wire, deviations)

    def _refused(
        self,
        error: ProtocolError,
        params: dict[str, Any],
        deviations: list[Deviation] | None = None,
    ) -> _Outcome:
        return _Outcome(self._league_error(error, params), deviations or [], error.code.value)

    def _log_received(self, name: str, method: RpcMethod, params: dict[str, Any]) -> None:
        log = self._log.brief if method.broadcast else self._log.message
        log("message_received", params, method=name)

    def _log_answer(self, name: str, method: RpcMethod, outcome: _Outcome) -> None:
        if outcome.deviations:
            self._log.log.info(
                "protocol_deviation",
                method=name,
                mode=self._mode(),
                deviations=[d.model_dump() for d in outcome.deviations],
            )
        brief = method.broadcast and outcome.refusal is None  # a refusal is logged whole
        (self._log.brief if brief else self._log.message)("message_sent", outcome.wire, method=name)

    def _adapt(
        self, name: str, method: RpcMethod, alias_of: str | None = None
    ) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **params: Any) -> Any:
            if args:
                return InvalidParams("params must be a JSON object holding the league.v2 message")
            try:
                return Success(await self._answer(name, method, alias_of, params))
            except Exception:
                # Our own fault (a validation error in a handler is too): the details stay in
                # our log. Caught here, not by jsonrpcserver, which would answer the
                # exception's text and print its traceback.
                self._log.log.exception("handler_failed", method=name)
                return Error(
                    INTERNAL_ERROR,
                    "Internal error",
                    f"{ErrorCode.INTERNAL_ERROR.value}: the agent failed to handle "
                    f"{name}; the details are in its log",
                )

        # jsonrpcserver binds each call's params to inspect.signature(call): made once here,
        # not on every call (about a sixth of a small call's CPU)
        call.__signature__ = inspect.signature(call)  # type: ignore[attr-defined]
        return call
