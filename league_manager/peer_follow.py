"""Following the other League Managers on a shared store: every ``every_sec``, the agents
they registered or changed and the results they kept, taken in as if told here.

The agents first: a referee registered at another League Manager may report here, and a
player may ask here, within the same look. A new referee gets its room and a new player may
complete the league's number (``joined``: the League Manager's reaction to a registration);
a change of state is taken as the store has it, never journaled again. A store that cannot
be read now is asked again at the next look: the results log's alarm tells it is away.

The look comes at once, not at the period's end, when the event relay hears another League
Manager tell an event that means it changed the store (``heard``): so a result reported to
one reaches the round the leader waits on in milliseconds. Such a look reads only what the
events heard changed (a result heard: the results, not the agents), since one comes after
nearly every result. The whole look stays, at least every ``every_sec``: a notification is
lost when the listening connection drops, and a change whose event comes before its commit
(a change of state) is read by a later look."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from league_manager.agents import Heard, RegisteredAgent
from league_manager.pg.errors import PgStoreError
from sdk.store import StoreError

__all__ = ["AGENT_EVENTS", "RESULT_EVENTS", "RESYNC", "PeerFollow"]

AGENT_EVENTS = frozenset({"player_registered", "referee_registered", "agent_state"})
"""The other League Managers' events after which the store holds agents new to the look: an
agent registered (told once committed), a change of state (``agent_state``: also behind a
suspension, a recovery, a removal)."""
RESULT_EVENTS = frozenset({"result_recorded"})
"""After which it holds a result new to the look (told once committed; a forfeit too)."""
RESYNC = "resync"
"""The relay may have missed some events: both are looked at."""


class PeerFollow:
    """The League Manager's look at its peers' work, given only what it calls."""

    def __init__(
        self,
        agents: Callable[[], Awaitable[Heard]],
        results: Callable[[], Awaitable[None]],
        joined: Callable[[RegisteredAgent], None],
        event: Callable[..., None],
        *,
        every_sec: float,
    ):
        """``agents``: ``AgentRegistry.follow``; ``results``: ``ResultDesk.follow``;
        ``every_sec``: the most a whole look waits for its turn."""
        self._agents = agents
        self._results = results
        self._joined = joined
        self._event = event
        self.every_sec = every_sec
        self._turn = asyncio.Lock()
        """One look at a time: a take-over's catch-up may come during the regular look, and
        the stores read on one connection each."""
        self.wake = asyncio.Event()
        """Set when the next look should not wait for its period (``heard``)."""
        self._agents_heard = self._results_heard = False
        self._whole_at = 0.0
        """The event loop's time at which a whole look is due."""

    def heard(self, name: str) -> None:
        """Another League Manager's event, as the event relay heard it: one that changed
        the store wakes the next look. Only sets flags, so many heard while a look runs
        make one more look, not one each; returns at once, never raises."""
        agents = name in AGENT_EVENTS or name == RESYNC
        results = name in RESULT_EVENTS or name == RESYNC
        self._agents_heard |= agents
        self._results_heard |= results
        if agents or results:
            self.wake.set()

    async def follow_once(self) -> None:
        """Take in what the peers did since the last look.

        Raises:
            PgStoreError, StoreError: the store cannot be read now (the next look asks
                again from where this one began).
        """
        async with self._turn:
            await self._follow(agents=True, results=True)

    async def look(self) -> None:
        """The whole look where one is due, else what the events heard since the last look
        changed; a store that cannot be read now left for the next whole look."""
        now = asyncio.get_running_loop().time()
        whole = now >= self._whole_at
        agents, results = whole or self._agents_heard, whole or self._results_heard
        self._agents_heard = self._results_heard = False
        with contextlib.suppress(StoreError, PgStoreError):
            async with self._turn:
                await self._follow(agents=agents, results=results)
            if whole:
                self._whole_at = now + self.every_sec

    async def _follow(self, *, agents: bool, results: bool) -> None:
        if agents:
            heard = await self._agents()
            for agent in heard.joined:
                self._event(
                    "agent_heard", agent_id=agent.agent_id, kind=agent.kind, state=agent.state
                )
                self._joined(agent)
            for agent in heard.changed:
                self._event("agent_state_heard", agent_id=agent.agent_id, state=agent.state)
        if results:
            await self._results()
