"""What the registry holds and how it changes: the registered agents, their tokens and
registration key digests, and the journal records that change them (a registration, a change
of states), each numbered so that replaying one twice changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, Field, TypeAdapter

__all__ = [
    "AgentKind",
    "AgentState",
    "KeptAgent",
    "Registration",
    "RegistryChange",
    "RegistryState",
    "RegistryStore",
    "RegisteredAgent",
    "StateChange",
    "change_of",
]

AgentKind = Literal["referee", "player"]
AgentState = Literal["INIT", "REGISTERED", "ACTIVE", "SUSPENDED", "SHUTDOWN", "REMOVED"]
"""REMOVED: taken out of the league by the admin, for good (``admin.py``)."""


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


class Registration(BaseModel):
    """A journal line: ``agent`` registered, with its token and its key's digest."""

    op: Literal["register"] = "register"
    seq: int
    agent: RegisteredAgent
    token: str = Field(min_length=1)
    key: str = Field(min_length=1)


class StateChange(BaseModel):
    """A journal line: the agents ``agent_ids`` are now in ``state``."""

    op: Literal["state"] = "state"
    seq: int
    agent_ids: list[str]
    state: AgentState


RegistryChange = Annotated[Registration | StateChange, Field(discriminator="op")]
_CHANGE: TypeAdapter[Registration | StateChange] = TypeAdapter(RegistryChange)


def change_of(record: object) -> Registration | StateChange:
    """A journal record as the change it is.

    Raises:
        ValueError: it is not one (pydantic's ValidationError).
    """
    return _CHANGE.validate_python(record)


@dataclass
class RegistryState:
    """The registry as numbered changes made it: the public part (``agents``, ``seq``, what
    agents.json holds) and the secret part (``tokens``, ``keys``, ``secrets_seq``, what
    secrets.json holds). Each part takes a change once: one numbered after it."""

    agents: dict[str, RegisteredAgent] = field(default_factory=dict)
    seq: int = 0
    tokens: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    """Each agent's registration key digest (``registration_key``)."""
    secrets_seq: int = 0

    def apply(self, change: Registration | StateChange) -> None:
        """Take ``change`` into each part that does not hold it yet."""
        if change.seq > self.secrets_seq:
            if isinstance(change, Registration):
                self.tokens[change.agent.agent_id] = change.token
                self.keys[change.agent.agent_id] = change.key
            self.secrets_seq = change.seq
        if change.seq > self.seq:
            if isinstance(change, Registration):
                self.agents[change.agent.agent_id] = change.agent.model_copy()
            else:
                for agent_id in change.agent_ids:
                    if agent_id in self.agents:
                        self.agents[agent_id].state = change.state
            self.seq = change.seq


@dataclass(frozen=True)
class KeptAgent:
    """An agent as a shared store keeps it, with its token and its registration key's
    digest (None: registered before keys were kept)."""

    agent: RegisteredAgent
    token: str
    key: str | None


class RegistryStore(Protocol):
    """Where a registry is kept: its files (``registry_files.RegistryFiles``) or PostgreSQL
    (``league_manager.pg.registry.PgRegistry``). ``load`` at start-up, then ``open``; a
    change is acknowledged once ``durable`` has returned after its ``append``. A store
    shared by several League Managers ``claim``s registrations itself."""

    recovery_notes: list[str]

    def load(self) -> RegistryState: ...

    def open(self) -> None: ...

    async def claim(self, registration: Registration) -> KeptAgent | list[KeptAgent] | None:
        """Keep a new registration, the store giving its id and refusing a duplicate: it as
        kept, or the agents that hold its name or endpoint already; None where the
        registry's memory decides instead (one League Manager: ``append`` it)."""
        ...

    async def others(self) -> list[KeptAgent]:
        """The agents registered or changed since the last call (since ``load``, the first
        time) by other League Managers sharing the store, as the store holds them now; none
        where the store has one League Manager.

        Raises:
            PgStoreError, StoreError: the store cannot be read now (asked again next time).
        """
        ...

    def append(self, change: Registration | StateChange, *, sync: bool) -> None: ...

    async def durable(self) -> None: ...

    def write_snapshots(self, state: RegistryState, *, keep_backup: bool = True) -> None: ...

    def close(self) -> None: ...
