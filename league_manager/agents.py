"""The registered referees and players: ids, endpoints, lifecycle states and tokens.

Public facts go to ``agents.json``; tokens go to ``secrets.json`` (mode 0600), because the
League Manager signs its own calls with them and must keep doing so after a restart.
Incoming tokens are checked against SHA-256 digests in constant time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from sdk.auth import TokenBook
from sdk.errors import ErrorCode, ProtocolError
from sdk.messages import PlayerMeta, RefereeMeta, sender_id
from sdk.store import atomic_write_json, read_json, write_document
from sdk.timeutil import utc_now_str

__all__ = ["AgentKind", "AgentRegistry", "AgentState", "RegisteredAgent"]

AgentKind = Literal["referee", "player"]
AgentState = Literal["INIT", "REGISTERED", "ACTIVE", "SUSPENDED", "SHUTDOWN"]


class RegisteredAgent(BaseModel):
    agent_id: str
    kind: AgentKind
    display_name: str
    version: str
    game_types: list[str]
    contact_endpoint: str
    max_concurrent_matches: int = 1
    state: AgentState = "REGISTERED"
    registered_at: str


class AgentRegistry:
    """Every agent registered in one league, in registration order."""

    def __init__(self, league_dir: Path, token_bytes: int = 32):
        self._agents_path = league_dir / "agents.json"
        self._secrets_path = league_dir / "secrets.json"
        self._token_bytes = token_bytes
        self._agents: dict[str, RegisteredAgent] = {}
        self._tokens: dict[str, str] = {}
        self._book = TokenBook()
        if self._agents_path.exists():
            for raw in read_json(self._agents_path)["agents"]:
                agent = RegisteredAgent.model_validate(raw)
                self._agents[agent.agent_id] = agent
            self._tokens = dict(read_json(self._secrets_path)["tokens"])
            for agent_id, token in self._tokens.items():
                self._book.remember(agent_id, token)

    def _next_id(self, kind: AgentKind) -> str:
        prefix = "REF" if kind == "referee" else "P"
        count = sum(1 for agent in self._agents.values() if agent.kind == kind)
        return f"{prefix}{count + 1:02d}"

    def add(self, kind: AgentKind, meta: RefereeMeta | PlayerMeta) -> tuple[RegisteredAgent, str]:
        """Register an agent; returns it and its fresh token."""
        agent = RegisteredAgent(
            agent_id=self._next_id(kind),
            kind=kind,
            display_name=meta.display_name,
            version=meta.version,
            game_types=list(meta.game_types),
            contact_endpoint=meta.contact_endpoint,
            max_concurrent_matches=getattr(meta, "max_concurrent_matches", 1),
            registered_at=utc_now_str(),
        )
        token = self._book.issue(agent.agent_id, self._token_bytes)
        self._agents[agent.agent_id] = agent
        self._tokens[agent.agent_id] = token
        self.save()
        return agent, token

    def find_by_endpoint(self, kind: AgentKind, endpoint: str) -> RegisteredAgent | None:
        return next(
            (a for a in self.of_kind(kind) if a.contact_endpoint == endpoint), None
        )

    def of_kind(self, kind: AgentKind) -> list[RegisteredAgent]:
        return [agent for agent in self._agents.values() if agent.kind == kind]

    def get(self, agent_id: str) -> RegisteredAgent | None:
        return self._agents.get(agent_id)

    def token_of(self, agent_id: str) -> str:
        return self._tokens[agent_id]

    def authenticate(self, sender: str, token: str | None, kind: AgentKind | None = None
                     ) -> RegisteredAgent:
        """The agent behind ``sender``, if its token is right and it is of ``kind``.

        Raises:
            ProtocolError: E005/E013 unknown sender, E011 no token, E012 wrong token,
                E014 a valid agent of the wrong kind.
        """
        agent_id = sender_id(sender)
        agent = self._agents.get(agent_id)
        if agent is None:
            unknown = (ErrorCode.REFEREE_NOT_REGISTERED if kind == "referee"
                       else ErrorCode.PLAYER_NOT_REGISTERED)
            raise ProtocolError(unknown, f"{sender!r} is not registered in this league")
        self._book.verify(agent_id, token, ErrorCode.PLAYER_NOT_REGISTERED)
        if kind is not None and agent.kind != kind:
            raise ProtocolError(ErrorCode.NOT_AUTHORIZED,
                                f"{agent_id} is a {agent.kind}; only a {kind} may send this")
        return agent

    def set_state(self, agent_id: str, state: AgentState) -> bool:
        """Change an agent's lifecycle state; True if it changed (the caller saves)."""
        agent = self._agents[agent_id]
        if agent.state == state:
            return False
        agent.state = state
        return True

    def save(self) -> None:
        write_document(self._agents_path, {
            "agents": [agent.model_dump() for agent in self._agents.values()],
        })
        atomic_write_json(self._secrets_path, {"tokens": self._tokens})
        os.chmod(self._secrets_path, 0o600)
