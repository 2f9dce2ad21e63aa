"""A recording TCP relay for loopback agents: each agent is reached through a tap of its own
(it advertises the tap's URL), so every HTTP message of a whole league passes a tap, whole,
in both directions, and the tests read what was said on the wire, not what the agents say
they said.

The taps run on one event loop in a thread of the test process. Each parses what it relays
with h11 (requests as a server would, answers as a client would), so a message is recorded
exactly as sent, and holds each message back until it is complete: a test's rule, called
then, may act at that moment (pause a process) and may drop the message: the tap then
closes the connection, as a lost request or a lost answer would look.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import h11

from tests.conftest import free_port

__all__ = ["Exchange", "Rule", "Tap", "Wiretaps", "running_taps"]

_READ_SIZE = 65536


@dataclass(frozen=True)
class Exchange:
    """One HTTP request to a tapped agent and what came back (``answer`` None: nothing,
    or the tap dropped it)."""

    agent: str
    method: str
    target: str
    request_head: bytes
    """The request line and headers (a token may travel in a header or a query string)."""
    request: bytes
    status: int | None
    answer_head: bytes
    answer: bytes | None
    dropped: bool = False

    def sent(self) -> bytes:
        """Everything the caller sent."""
        return self.request_head + b"\r\n\r\n" + self.request

    def received(self) -> bytes:
        """Everything the agent answered (empty: nothing)."""
        return self.answer_head + b"\r\n\r\n" + (self.answer or b"")

    def rpc(self) -> dict[str, Any]:
        """The request's JSON-RPC object ({} for a GET, a batch or a body that is not JSON)."""
        payload = self._payload()
        return payload if isinstance(payload, dict) else {}

    def rpcs(self) -> list[dict[str, Any]]:
        """The request's JSON-RPC objects: its one, or each of a batch's (none for a GET or
        a body that is not JSON)."""
        payload = self._payload()
        calls = payload if isinstance(payload, list) else [payload]
        return [call for call in calls if isinstance(call, dict)]

    def _payload(self) -> Any:
        try:
            return json.loads(self.request)
        except ValueError:
            return None

    def result(self) -> dict[str, Any]:
        """The answer's JSON-RPC result ({} when there is none)."""
        try:
            payload = json.loads(self.answer or b"")
        except ValueError:
            return {}
        result = payload.get("result") if isinstance(payload, dict) else None
        return result if isinstance(result, dict) else {}


Rule = Callable[[Exchange], bool]
"""Called with a complete request (``answer`` None) or a complete answer, before it is
relayed; True drops it."""


@dataclass
class Tap:
    """A listening port that relays to one agent's port and records what passes."""

    agent: str
    upstream_port: int
    port: int = 0
    exchanges: list[Exchange] = field(default_factory=list)
    on_request: Rule | None = None
    on_answer: Rule | None = None
    errors: list[str] = field(default_factory=list)
    """HTTP the tap could not parse (a test asserts there is none: its record would miss
    that message)."""
    _relays: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def url(self) -> str:
        """The /mcp URL the agent advertises: its callers reach it through the tap."""
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def relay(
        self, caller_in: asyncio.StreamReader, caller_out: asyncio.StreamWriter
    ) -> None:
        relay = asyncio.current_task()
        assert relay is not None
        self._relays.add(relay)
        relay.add_done_callback(self._relays.discard)
        try:
            agent_in, agent_out = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            caller_out.close()
            return
        talk = _Conversation(self)
        pumps = [
            asyncio.create_task(self._requests(caller_in, agent_out, talk)),
            asyncio.create_task(self._answers(agent_in, caller_out, talk)),
        ]
        try:
            done, _ = await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            self.errors += [repr(pump.exception()) for pump in done if pump.exception()]
        finally:
            for pump in pumps:
                pump.cancel()
            for writer in (caller_out, agent_out):
                writer.close()
            talk.unanswered()

    def stop(self) -> None:
        """End every relayed connection (the agents behind it may keep theirs alive)."""
        for relay in list(self._relays):
            relay.cancel()

    async def _requests(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, talk: _Conversation
    ) -> None:
        await _pump(source, sink, talk.heard_caller)

    async def _answers(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, talk: _Conversation
    ) -> None:
        await _pump(source, sink, talk.heard_agent)


async def _pump(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, heard: Callable[[bytes], str]
) -> None:
    """Relay one direction a whole message at a time: ``heard`` says "partial" (hold on),
    "complete" (relay what is held) or "drop" (close instead)."""
    held = bytearray()
    while data := await source.read(_READ_SIZE):
        held += data
        outcome = heard(data)
        if outcome == "drop":
            return
        if outcome == "complete":
            sink.write(bytes(held))
            held.clear()
            await sink.drain()
    if held:
        sink.write(bytes(held))
        await sink.drain()


class _Conversation:
    """One relayed connection, parsed: h11 reads the caller's bytes as the agent's side and
    the agent's as the caller's side; each side is told what the other sent, so both parsers
    keep in step over keep-alive requests."""

    def __init__(self, tap: Tap) -> None:
        self._tap = tap
        self._as_agent = h11.Connection(h11.SERVER)
        self._as_caller = h11.Connection(h11.CLIENT)
        self._request: h11.Request | None = None
        self._request_body = bytearray()
        self._response: h11.Response | None = None
        self._answer_body = bytearray()

    def heard_caller(self, data: bytes) -> str:
        """ "partial", "complete" (relay what is held) or "drop" (close instead)."""
        self._as_agent.receive_data(data)
        return self._read_requests()

    def _read_requests(self) -> str:
        while True:
            event = self._as_agent.next_event()
            if event in (h11.NEED_DATA, h11.PAUSED) or isinstance(event, h11.ConnectionClosed):
                return "partial"
            if isinstance(event, h11.Request):
                self._request, self._request_body = event, bytearray()
                self._as_caller.send(event)
            elif isinstance(event, h11.Data):
                self._request_body += event.data
                self._as_caller.send(event)
            elif isinstance(event, h11.EndOfMessage):
                self._as_caller.send(event)
                return self._request_complete()

    def _request_complete(self) -> str:
        rule = self._tap.on_request
        if rule is not None and rule(exchange := self._exchange(None)):
            self._tap.exchanges.append(replace(exchange, dropped=True))
            self._request = None
            return "drop"
        return "complete"

    def heard_agent(self, data: bytes) -> str:
        """ "partial", "complete" (relay what is held) or "drop" (close instead)."""
        self._as_caller.receive_data(data)
        while True:
            event = self._as_caller.next_event()
            if event in (h11.NEED_DATA, h11.PAUSED) or isinstance(event, h11.ConnectionClosed):
                return "partial"
            if isinstance(event, h11.Response):
                self._response, self._answer_body = event, bytearray()
                self._as_agent.send(event)
            elif isinstance(event, h11.Data):
                self._answer_body += event.data
                self._as_agent.send(event)
            elif isinstance(event, h11.EndOfMessage):
                self._as_agent.send(event)
                return self._complete()

    def _complete(self) -> str:
        exchange = self._exchange(bytes(self._answer_body))
        drop = self._tap.on_answer is not None and self._tap.on_answer(exchange)
        self._tap.exchanges.append(replace(exchange, dropped=True) if drop else exchange)
        self._request = self._response = None
        if drop:
            return "drop"
        if self._as_caller.our_state is h11.DONE and self._as_caller.their_state is h11.DONE:
            self._as_caller.start_next_cycle()
            self._as_agent.start_next_cycle()
            self._read_requests()
        return "complete"

    def _exchange(self, answer: bytes | None) -> Exchange:
        request, response = self._request, self._response
        assert request is not None, "an answer before any request"
        return Exchange(
            self._tap.agent,
            request.method.decode(),
            request.target.decode(),
            b" ".join((request.method, request.target)) + _head(request),
            bytes(self._request_body),
            response.status_code if response else None,
            _head(response) if response else b"",
            None if answer is None else bytes(answer),
        )

    def unanswered(self) -> None:
        """The connection closed: a request that got no answer is recorded as such."""
        if self._request is not None:
            self._tap.exchanges.append(self._exchange(None))
            self._request = None


def _head(message: h11.Request | h11.Response) -> bytes:
    return b"".join(b"\r\n" + name + b": " + value for name, value in message.headers)


class Wiretaps:
    """Taps on one event loop in a daemon thread; ``close`` stops them all."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="wiretaps", daemon=True)
        self._thread.start()
        self._servers: list[asyncio.Server] = []
        self.taps: list[Tap] = []

    def tap(
        self,
        agent: str,
        upstream_port: int,
        *,
        on_request: Rule | None = None,
        on_answer: Rule | None = None,
    ) -> Tap:
        """A tap in front of ``agent`` (listening on ``upstream_port``), on a free port.

        The port comes from ``free_port``, not from binding port 0: the kernel could hand
        the tap a port already given to an agent that has not bound it yet."""
        tap = Tap(agent, upstream_port, on_request=on_request, on_answer=on_answer)
        tap.port = free_port()
        server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(tap.relay, "127.0.0.1", tap.port), self._loop
        ).result(timeout=10)
        self._servers.append(server)
        self.taps.append(tap)
        return tap

    def exchanges(self) -> list[Exchange]:
        """Everything recorded so far, by every tap."""
        return [exchange for tap in self.taps for exchange in list(tap.exchanges)]

    def close(self) -> None:
        async def stop() -> None:
            for server in self._servers:
                server.close()
            for tap in self.taps:
                tap.stop()
            for server in self._servers:
                await server.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


@contextlib.contextmanager
def running_taps() -> Iterator[Wiretaps]:
    taps = Wiretaps()
    try:
        yield taps
    finally:
        taps.close()
