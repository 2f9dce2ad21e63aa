"""Changing registered agents' states (ACTIVE, SUSPENDED, REMOVED, SHUTDOWN): one journal
line per change of several agents, and each change is a league event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from league_manager.agents import AgentRegistry, AgentState
from league_manager.registry_files import REGISTRY_JOURNAL

__all__ = ["AgentStates", "Persist"]

Persist = Callable[[str, Callable[[], Any]], bool]
"""``Upkeep.persist``: write a file now, or mark it unwritten (written again once it can)."""


class AgentStates:
    """The one way the League Manager's parts change an agent's state."""

    def __init__(self, agents: AgentRegistry, persist: Persist, event: Callable[..., None]):
        self._agents = agents
        self._persist = persist
        self._event = event

    def set_state(self, agent_id: str, state: AgentState) -> None:
        self.set_states([agent_id], state)

    def set_states(self, agent_ids: list[str], state: AgentState) -> None:
        """Change agents' states, journaled in one line for all of them."""
        changed = self._agents.set_states(agent_ids, state)
        if changed:  # if not now, a snapshot holds it once one can be written
            self._persist(REGISTRY_JOURNAL, lambda: self._agents.journal_states(changed, state))
        for agent_id in changed:
            self._event("agent_state", agent_id=agent_id, state=state)
