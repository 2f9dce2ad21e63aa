"""The League Manager's notifications to agents (rounds, standings, the league's end):
each sent once, in order per agent, a bounded number at a time and a bounded backlog per
agent; a failure is logged and never stops the league."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable

from league_manager.agents import RegisteredAgent
from league_manager.suspension import PlayerHealth
from sdk.client import RpcClient
from sdk.errors import RemoteError, TransportError
from sdk.messages import Message
from sdk.shared_message import SharedMessage, Signed

__all__ = ["OUTBOX_LIMIT", "Notifier"]

OUTBOX_LIMIT = 8
"""Notifications on their way to one agent beyond which new ones to it are dropped (a dead
player's backlog stays bounded; it can ask league_query for what it missed)."""


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
    ):
        self._client = client
        self._health = health
        self._event = event
        self._limit = asyncio.Semaphore(concurrency)
        self._lenient = lenient
        """A lenient league also calls peers by message_type when they serve it that way."""
        self._outbox: dict[str, int] = defaultdict(int)
        self._in_order: dict[str, asyncio.Lock] = {}
        self._sending: set[asyncio.Task[None]] = set()

    async def broadcast(
        self,
        method: str,
        recipients: list[RegisteredAgent],
        message: Message,
        proof: Callable[[RegisteredAgent], str],
        *,
        grace: float | None = None,
    ) -> dict[str, asyncio.Task[None]]:
        """Send ``message`` to each recipient with its own ``proof`` as its auth_token, at
        most ``concurrency`` at a time, each once (no retry) within its method's timeout.
        The message is encoded and logged once, whatever the number of recipients. Waits
        ``grace`` seconds at most (None: until all are sent): a slow or dead player does not
        hold the round up for the others, and what is still on its way goes on in the
        background, in order for each recipient. Returns each recipient's sending, by
        agent id."""
        shared = SharedMessage(message)
        self._event(
            "broadcast",
            method=method,
            recipients=len(recipients),
            message_type=shared.message_type,
            conversation_id=shared.conversation_id,
            data=shared.wire,
        )
        tasks: dict[str, asyncio.Task[None]] = {}
        for agent in recipients:
            if self._outbox[agent.agent_id] >= OUTBOX_LIMIT:
                self._event(
                    "notification_dropped",
                    agent_id=agent.agent_id,
                    method=method,
                    reason=f"{OUTBOX_LIMIT} notifications to it still on their way",
                )
                continue
            self._outbox[agent.agent_id] += 1
            task = asyncio.create_task(self._notify(agent, method, shared.signed(proof(agent))))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
            tasks[agent.agent_id] = task
        if tasks and grace != 0:
            await asyncio.wait(tasks.values(), timeout=grace)
        return tasks

    async def _notify(self, agent: RegisteredAgent, method: str, message: Signed) -> None:
        lock = self._in_order.setdefault(agent.agent_id, asyncio.Lock())
        try:
            async with lock, self._limit:
                try:
                    await self._client.call(
                        agent.contact_endpoint,
                        method,
                        message,
                        method_aliases=self._lenient,
                        retries=0,
                    )
                except (TransportError, RemoteError) as exc:
                    self._event(
                        "notification_failed",
                        agent_id=agent.agent_id,
                        method=method,
                        error_code=str(exc.code),
                        reason=exc.description,
                    )
                    if isinstance(exc, TransportError):  # silence, not an error answer
                        self._health.failed(agent.agent_id, f"{method}: {exc.description}")
                        return
                self._health.answered(agent.agent_id)
        finally:
            self._outbox[agent.agent_id] -= 1

    async def close(self) -> None:
        """Stop the notifications still on their way (at shutdown)."""
        for task in list(self._sending):
            task.cancel()
        await asyncio.gather(*self._sending, return_exceptions=True)
