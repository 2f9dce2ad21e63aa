"""The League Manager's notifications to agents (rounds, standings, the league's end):
each sent once, in order per agent, a bounded number at a time and a bounded backlog per
agent; a failure is logged and never stops the league.

Each agent has an outbox, emptied by one sender at a time: to an agent whose answers tell
that it takes JSON-RPC batches (``sdk.posting.BATCH_HEADER``), everything waiting in its
outbox goes in one request. A round's end and the next round's start are three
notifications to every player (the standings, the round's completion, the announcement):
one request each is 6 per result in all, and each costs both sides more than the message
in it (doc/benchmarks.md)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from league_manager.agents import RegisteredAgent
from league_manager.suspension import PlayerHealth
from sdk.client import RpcClient
from sdk.errors import RemoteError, TransportError
from sdk.messages import Message
from sdk.shared_message import SharedMessage, Signed

__all__ = ["OUTBOX_LIMIT", "Notifier", "take_batch"]

OUTBOX_LIMIT = 8
"""Notifications on their way to one agent beyond which new ones to it are dropped (a dead
player's backlog stays bounded; it can ask league_query for what it missed)."""


@dataclass
class _Copy:
    """One agent's copy of a notification, in its outbox until sent."""

    method: str
    message: Signed
    sent: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class _Outbox:
    waiting: deque[_Copy] = field(default_factory=deque)
    on_way: int = 0
    """Copies taken from ``waiting`` and not yet sent."""
    sender: asyncio.Task[None] | None = None


def take_batch(waiting: deque[_Copy], max_bytes: int) -> list[_Copy]:
    """The copies at the head of ``waiting`` that go in one batch of at most ``max_bytes``
    (the first always: alone, it is the agent's to take or refuse), taken out of it."""
    copies = [waiting.popleft()]
    size = copies[0].message.size
    while waiting and size + 1 + waiting[0].message.size <= max_bytes:
        size += 1 + waiting[0].message.size
        copies.append(waiting.popleft())
    return copies


class Notifier:
    """Sends notifications; a player that never takes one counts a failure (``health``)."""

    def __init__(
        self,
        client: RpcClient,
        health: PlayerHealth,
        event: Callable[..., None],
        *,
        concurrency: int,
        lenient: bool,
        max_batch_bytes: int,
    ):
        """``max_batch_bytes``: a batch is at most this large (the agents' limit on a
        request's body, ``http.max_body_bytes``: a copy that fits alone is never made too
        large to take by the copies batched with it)."""
        self._client = client
        self._health = health
        self._event = event
        self._limit = asyncio.Semaphore(concurrency)
        self._lenient = lenient
        """A lenient league also calls peers by message_type when they serve it that way."""
        self._outboxes: dict[str, _Outbox] = {}
        self._max_batch_bytes = max_batch_bytes

    async def broadcast(
        self,
        method: str,
        recipients: list[RegisteredAgent],
        message: Message,
        proof: Callable[[RegisteredAgent], str],
        *,
        grace: float | None = None,
    ) -> dict[str, asyncio.Future[None]]:
        """Send ``message`` to each recipient with its own ``proof`` as its auth_token, at
        most ``concurrency`` requests at a time, each once (no retry) within its method's
        timeout. The message is encoded and logged once, whatever the number of recipients.
        Waits ``grace`` seconds at most (None: until all are sent): a slow or dead player
        does not hold the round up for the others, and what is still on its way goes on in
        the background, in order for each recipient. Returns each recipient's copy being
        sent (done once sent or failed), by agent id."""
        shared = SharedMessage(message)
        self._event(
            "broadcast",
            method=method,
            recipients=len(recipients),
            message_type=shared.message_type,
            conversation_id=shared.conversation_id,
            data=shared.wire,
        )
        sending: dict[str, asyncio.Future[None]] = {}
        for agent in recipients:
            outbox = self._outboxes.setdefault(agent.agent_id, _Outbox())
            if len(outbox.waiting) + outbox.on_way >= OUTBOX_LIMIT:
                self._event(
                    "notification_dropped",
                    agent_id=agent.agent_id,
                    method=method,
                    reason=f"{OUTBOX_LIMIT} notifications to it still on their way",
                )
                continue
            copy = _Copy(method, shared.signed(proof(agent)))
            outbox.waiting.append(copy)
            if outbox.sender is None:
                outbox.sender = asyncio.create_task(self._empty(agent, outbox))
            sending[agent.agent_id] = copy.sent
        if sending and grace != 0:
            await asyncio.wait(sending.values(), timeout=grace)
        return sending

    async def _empty(self, agent: RegisteredAgent, outbox: _Outbox) -> None:
        """Send what ``agent``'s outbox holds, in order, until it is empty: all that waits in
        one batch to an agent that takes them, else one at a time."""
        try:
            while outbox.waiting:
                async with self._limit:
                    if self._client.takes_batches(agent.contact_endpoint):
                        copies = take_batch(outbox.waiting, self._max_batch_bytes)
                    else:
                        copies = [outbox.waiting.popleft()]
                    outbox.on_way = len(copies)
                    try:
                        if len(copies) == 1:
                            await self._send(agent, copies[0])
                        else:
                            await self._send_batch(agent, copies)
                    finally:
                        outbox.on_way = 0
                        for copy in copies:
                            if not copy.sent.done():
                                copy.sent.set_result(None)
        finally:
            outbox.sender = None

    async def _send(self, agent: RegisteredAgent, copy: _Copy) -> None:
        try:
            await self._client.call(
                agent.contact_endpoint,
                copy.method,
                copy.message,
                method_aliases=self._lenient,
                retries=0,
            )
        except (TransportError, RemoteError) as exc:
            self._failed(agent, copy.method, exc)
            return
        self._health.answered(agent.agent_id)

    async def _send_batch(self, agent: RegisteredAgent, copies: list[_Copy]) -> None:
        try:
            outcomes = await self._client.call_batch(
                agent.contact_endpoint, [(copy.method, copy.message) for copy in copies]
            )
        except (TransportError, RemoteError) as exc:
            for copy in copies:
                self._failed(agent, copy.method, exc)
            return
        for copy, outcome in zip(copies, outcomes, strict=True):
            if isinstance(outcome, (TransportError, RemoteError)):
                self._failed(agent, copy.method, outcome)
            else:
                self._health.answered(agent.agent_id)

    def _failed(
        self, agent: RegisteredAgent, method: str, exc: TransportError | RemoteError
    ) -> None:
        """Log a copy that was not taken; silence (not an error answer) counts a failure."""
        self._event(
            "notification_failed",
            agent_id=agent.agent_id,
            method=method,
            error_code=exc.code.value if isinstance(exc, TransportError) else exc.code,
            reason=exc.description,
        )
        if isinstance(exc, TransportError):
            self._health.failed(agent.agent_id, f"{method}: {exc.description}")

    async def close(self) -> None:
        """Stop the notifications still on their way (at shutdown)."""
        senders = [o.sender for o in self._outboxes.values() if o.sender is not None]
        for sender in senders:
            sender.cancel()
        await asyncio.gather(*senders, return_exceptions=True)
        for outbox in self._outboxes.values():
            for copy in outbox.waiting:
                copy.sent.cancel()
            outbox.waiting.clear()
