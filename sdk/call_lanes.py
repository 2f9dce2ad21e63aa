"""Calls sent together: to one endpoint, a call made while another one to it is on its
way waits for that one's answer, and then everything waiting goes in one JSON-RPC batch,
one HTTP exchange for many calls (``RpcClient.call(..., together=True)``).

A league's calls to one agent come in bursts: a round's start hands tens of matches to each
referee at once, and matches that start together end together, so their results reach the
League Manager in bursts too (in a 200-player league, half of a referee's reports came
within 2 ms of its previous one). One request each costs both sides more than the message
in it (doc/benchmarks.md). A call that finds the endpoint idle goes at once, alone.

Each call keeps its own answer, its own errors and its own timeout: one still waiting when
its timeout ends gives up (E001) and is never sent."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.shared_message import Signed
from sdk.timeouts import within

__all__ = ["CallLanes", "Outcome", "Pending"]

Outcome = dict[str, Any] | TransportError | RemoteError
"""One call's end: the answer's ``result``, or the error it came to."""


@dataclass(eq=False)
class Pending:
    """A call waiting for its endpoint's call on the way."""

    method: str
    params: dict[str, Any] | Signed
    kept_whole: bool
    limit: float
    answer: asyncio.Future[dict[str, Any]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


Together = Callable[[str, Sequence[Pending], float], Awaitable[list[Outcome]]]
"""Send calls to an endpoint in one exchange within a timeout: each one's outcome, in order.
Raises TransportError or RemoteError when the exchange as a whole fails."""


@dataclass(eq=False)
class _Lane:
    waiting: deque[Pending] = field(default_factory=deque)
    on_way: list[Pending] = field(default_factory=list)
    sender: asyncio.Task[None] | None = None


def _each(error: TransportError | RemoteError) -> TransportError | RemoteError:
    """A copy of ``error`` for one of the calls it ended (each raises its own)."""
    if isinstance(error, TransportError):
        return TransportError(error.code, error.description)
    return RemoteError(error.code, error.description, error.payload)


def _closing(endpoint: str, calls: Iterable[Pending]) -> None:
    """Fail the calls left when their client closes (E009)."""
    for waiting in calls:
        if not waiting.answer.done():
            waiting.answer.set_exception(
                TransportError(
                    ErrorCode.CONNECTION_ERROR,
                    f"no answer from {endpoint} to {waiting.method}: the client closed",
                )
            )


class CallLanes:
    """One lane per endpoint with a call on its way; ``together`` sends what waits in it,
    at most ``max_batch`` calls an exchange."""

    def __init__(self, together: Together, *, max_batch: int):
        self._together = together
        self._max_batch = max_batch
        self._lanes: dict[str, _Lane] = {}
        self._closed = False

    async def call(
        self,
        endpoint: str,
        alone: Callable[[], Awaitable[dict[str, Any]]],
        pending: Callable[[], Pending],
    ) -> dict[str, Any]:
        """The call's ``result``: sent ``alone`` when nothing is on its way to ``endpoint``,
        else waiting (as ``pending`` makes it) for the next exchange of its lane."""
        lane = self._lanes.get(endpoint)
        if lane is None:
            lane = self._lanes[endpoint] = _Lane()
            try:
                return await alone()
            finally:
                self._next(endpoint, lane)
        waiting = pending()
        lane.waiting.append(waiting)
        try:
            return await within(waiting.answer, waiting.limit)
        except asyncio.TimeoutError:
            raise TransportError(
                ErrorCode.TIMEOUT_ERROR,
                f"{endpoint} did not answer {waiting.method} within {waiting.limit:g} s "
                "(it waited to go with the others made while one was on its way)",
            ) from None
        finally:
            if waiting in lane.waiting:  # gave up (timed out, cancelled) before it left
                lane.waiting.remove(waiting)

    def _next(self, endpoint: str, lane: _Lane) -> None:
        """After an exchange: send what waits, or close the lane."""
        if lane.waiting and not self._closed:
            lane.sender = asyncio.create_task(self._send_waiting(endpoint, lane))
        else:
            del self._lanes[endpoint]
            _closing(endpoint, lane.waiting)

    async def _send_waiting(self, endpoint: str, lane: _Lane) -> None:
        try:
            while lane.waiting:
                batch = lane.on_way
                while lane.waiting and len(batch) < self._max_batch:
                    batch.append(lane.waiting.popleft())
                limit = max(waiting.limit for waiting in batch)
                try:
                    outcomes = await self._together(endpoint, batch, limit)
                except (TransportError, RemoteError) as exc:
                    outcomes = [_each(exc) for _ in batch]
                for waiting, outcome in zip(batch, outcomes, strict=True):
                    if waiting.answer.done():  # its caller gave up meanwhile
                        continue
                    if isinstance(outcome, dict):
                        waiting.answer.set_result(outcome)
                    else:
                        waiting.answer.set_exception(outcome)
                batch.clear()
        finally:
            del self._lanes[endpoint]
            _closing(endpoint, [*lane.on_way, *lane.waiting])  # only when the client closes

    async def aclose(self) -> None:
        """Stop every lane's sender; what still waits, or waits later, fails (E009)."""
        self._closed = True
        senders = [lane.sender for lane in self._lanes.values() if lane.sender is not None]
        for sender in senders:
            sender.cancel()
        await asyncio.gather(*senders, return_exceptions=True)
