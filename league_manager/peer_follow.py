"""Following the other League Managers on a shared store: every ``every_sec``, the agents
they registered or changed and the results they kept, taken in as if told here.

The agents first: a referee registered at another League Manager may report here, and a
player may ask here, within the same look. A new referee gets its room and a new player may
complete the league's number (``joined``: the League Manager's reaction to a registration);
a change of state is taken as the store has it, never journaled again. A store that cannot
be read now is asked again at the next look: the results log's alarm tells it is away.

The look comes at once, not at the period's end, when the event relay hears another League
Manager tell an event that means it changed the store (``heard``, ``WAKING_EVENTS``): so a
result reported to one reaches the round the leader waits on in milliseconds. The periodic
look stays: a notification is lost when the listening connection drops, and a change whose
event comes before its commit (a change of state) is read by a later look."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from league_manager.agents import Heard, RegisteredAgent
from league_manager.pg.errors import PgStoreError
from sdk.store import StoreError

__all__ = ["WAKING_EVENTS", "PeerFollow"]

WAKING_EVENTS = frozenset(
    {"result_recorded", "player_registered", "referee_registered", "agent_state", "resync"}
)
"""The other League Managers' events after which the store holds something new for the look:
a result kept (told once committed; a forfeit too), an agent registered (once committed), a
change of state (``agent_state``: also behind a suspension, a recovery, a removal), and
``resync``, where the relay may have missed some."""


class PeerFollow:
    """The League Manager's look at its peers' work, given only what it calls."""

    def __init__(
        self,
        agents: Callable[[], Awaitable[Heard]],
        results: Callable[[], Awaitable[None]],
        joined: Callable[[RegisteredAgent], None],
        event: Callable[..., None],
    ):
        """``agents``: ``AgentRegistry.follow``; ``results``: ``ResultDesk.follow``."""
        self._agents = agents
        self._results = results
        self._joined = joined
        self._event = event
        self._turn = asyncio.Lock()
        """One look at a time: a take-over's catch-up may come during the regular look, and
        the stores read on one connection each."""
        self.wake = asyncio.Event()
        """Set when the next look should not wait for its period (``heard``)."""

    def heard(self, name: str) -> None:
        """Another League Manager's event, as the event relay heard it: one of
        ``WAKING_EVENTS`` wakes the next look. Only sets a flag, so many heard while a look
        runs make one more look, not one each; returns at once, never raises."""
        if name in WAKING_EVENTS:
            self.wake.set()

    async def follow_once(self) -> None:
        """Take in what the peers did since the last look.

        Raises:
            PgStoreError, StoreError: the store cannot be read now (the next look asks
                again from where this one began).
        """
        async with self._turn:
            await self._follow_once()

    async def _follow_once(self) -> None:
        heard = await self._agents()
        for agent in heard.joined:
            self._event("agent_heard", agent_id=agent.agent_id, kind=agent.kind, state=agent.state)
            self._joined(agent)
        for agent in heard.changed:
            self._event("agent_state_heard", agent_id=agent.agent_id, state=agent.state)
        await self._results()

    async def look(self) -> None:
        """``follow_once``, a store that cannot be read now left for the next look."""
        with contextlib.suppress(StoreError, PgStoreError):
            await self.follow_once()
