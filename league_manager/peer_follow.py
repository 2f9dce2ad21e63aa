"""Following the other League Managers on a shared store: every ``every_sec``, the agents
they registered or changed and the results they kept, taken in as if told here.

The agents first: a referee registered at another League Manager may report here, and a
player may ask here, within the same look. A new referee gets its room and a new player may
complete the league's number (``joined``: the League Manager's reaction to a registration);
a change of state is taken as the store has it, never journaled again. A store that cannot
be read now is asked again at the next look: the results log's alarm tells it is away."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from league_manager.agents import Heard, RegisteredAgent
from league_manager.pg.errors import PgStoreError
from sdk.store import StoreError

__all__ = ["PeerFollow"]


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
