"""The registered referees and players: ids, endpoints, lifecycle states and tokens.

Each registration and each change of states is one line appended to the registry's journal
before it is acknowledged; the public facts (``agents.json``) and the tokens
(``secrets.json``, mode 0600) are snapshots written now and then (``snapshot_due``, checked
by the watchdog once a second) and at shutdown. So a registration costs the same at 10,000
agents as at 10, and a restart finds every agent it acknowledged (``registry_files.py``).
The League Manager makes its proofs from the tokens (``sdk.auth``) and must keep doing so
after a restart, together with the digest of each registration's idempotency key. Incoming
tokens are checked against SHA-256 digests in constant time.

With a PostgreSQL store (``league_manager.pg.registry``) the rows are the registry: the
database gives ids and refuses duplicates across League Managers (``register``), and this
class keeps what it knows in memory as for the files, learning what the others registered
or changed when it looks (``follow``).

One agent is one endpoint: endpoints are compared in their canonical form and names by
their key (``sdk.identity``), so spelling cannot register one server twice or one name as
two people.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from league_manager.agent_records import (
    AgentKind,
    AgentState,
    KeptAgent,
    RegisteredAgent,
    Registration,
    RegistryStore,
    StateChange,
)
from league_manager.registry_files import RegistryFiles
from sdk.auth import (
    TokenBook,
    issue_token,
    league_manager_proof,
    match_proof,
    token_digest,
    token_matches,
)
from sdk.errors import ErrorCode, ProtocolError
from sdk.identity import canonical_endpoint, clean_display_name, name_key
from sdk.messages import PlayerMeta, RefereeMeta, sender_id
from sdk.timeutil import utc_now_str

__all__ = ["AgentKind", "AgentRegistry", "AgentState", "Heard", "RegisteredAgent"]

SNAPSHOT_MIN_CHANGES = 64
"""Changes journaled since the last snapshot that make one due at any size..."""
SNAPSHOT_EVERY_SEC = 1.0
"""...or, with fewer, the time after the last snapshot that makes one due, at least..."""
SNAPSHOT_COST_SHARE = 50
"""...this many times what the last one took: snapshots take at most 2% of the League
Manager's time, and each costs O(agents) paid by as many changes, O(1) a change."""


@dataclass
class Heard:
    """What ``AgentRegistry.follow`` learnt from the store."""

    joined: list[RegisteredAgent] = field(default_factory=list)
    """Agents registered at another League Manager, new here."""
    changed: list[RegisteredAgent] = field(default_factory=list)
    """Agents known here whose state another League Manager changed."""


class AgentRegistry:
    """Every agent registered in one league, in registration order."""

    def __init__(
        self,
        league_dir: Path,
        league_id: str,
        token_bytes: int = 32,
        *,
        league_files: tuple[Path, ...] = (),
        store: RegistryStore | None = None,
    ):
        """``league_files``: files whose content means the league has begun (its journal,
        its schedule): beside any of them, a missing registry is damage, never a new
        league. ``store``: where the registry is kept, its files in ``league_dir`` if None.
        Opens the registry's journal: ``close`` at shutdown.

        Raises:
            StoreError: a registry file cannot be recovered (``RegistryFiles.load``).
            LostFileError: a registry file is gone beside the league's data.
        """
        self._league_id = league_id
        self._token_bytes = token_bytes
        self._store = store or RegistryFiles(league_dir, league_files)
        self._state = self._store.load()
        self.recovery_notes = self._store.recovery_notes
        """What start-up found damaged and how it recovered, a sentence each."""
        self._store.open()
        self._agents = self._state.agents
        self._tokens = self._state.tokens
        self._keys = self._state.keys
        self._snapshot_seq = self._state.seq
        self._snapshot_at = time.monotonic()
        self._snapshot_cost = 0.0
        self._book = TokenBook()
        self._kinds: dict[AgentKind, dict[str, RegisteredAgent]] = {"referee": {}, "player": {}}
        self._endpoints: dict[str, RegisteredAgent] = {}
        self._names: dict[tuple[AgentKind, str], RegisteredAgent] = {}
        for agent in self._agents.values():
            self._index(agent)
        for agent_id, token in self._tokens.items():
            self._book.remember(agent_id, token)

    @property
    def in_files(self) -> bool:
        """Whether the registry is kept in its files (which the watchdog writes again
        where they were deleted), not in a database."""
        return isinstance(self._store, RegistryFiles)

    def _index(self, agent: RegisteredAgent) -> None:
        """Lookups by kind, endpoint and name in O(1): a league of thousands asks them
        at every registration and every hand-over."""
        self._kinds[agent.kind][agent.agent_id] = agent
        self._endpoints.setdefault(canonical_endpoint(agent.contact_endpoint), agent)
        self._names.setdefault((agent.kind, name_key(agent.display_name)), agent)

    def _next_id(self, kind: AgentKind) -> str:
        prefix = "REF" if kind == "referee" else "P"
        return f"{prefix}{len(self._kinds[kind]) + 1:02d}"

    def add(
        self, kind: AgentKind, meta: RefereeMeta | PlayerMeta, key: str
    ) -> tuple[RegisteredAgent, str]:
        """Register an agent; returns it and its fresh token, journaled but acknowledged
        only after ``durable``. ``key``: what a retry of this registration repeats
        (``registration_key``).

        Raises:
            StoreError: it could not be journaled (a full disk): it is not registered.
        """
        agent = self._new_agent(self._next_id(kind), kind, meta)
        token = self._book.issue(agent.agent_id, self._token_bytes)
        digest = token_digest(key)
        seq = self._state.seq + 1
        # Not journaled, not registered: its id is given out again.
        self._store.append(Registration(seq=seq, agent=agent, token=token, key=digest), sync=False)
        self._state.seq = self._state.secrets_seq = seq
        self._agents[agent.agent_id] = agent
        self._tokens[agent.agent_id] = token
        self._keys[agent.agent_id] = digest
        self._index(agent)
        return agent, token

    async def register(
        self, kind: AgentKind, meta: RefereeMeta | PlayerMeta, key: str
    ) -> tuple[RegisteredAgent, str] | None:
        """Register an agent and return it and its token once kept (``add`` then
        ``durable`` where this registry's memory refuses duplicates). None: the store
        holds another agent with its name or endpoint (another League Manager registered
        it), now known here too: decide again.

        Raises:
            StoreError: it could not be kept: it is not registered.
        """
        token = issue_token(self._token_bytes)
        agent = self._new_agent("", kind, meta)
        claimed = await self._store.claim(
            Registration(seq=0, agent=agent, token=token, key=token_digest(key))
        )
        if claimed is None:
            agent, token = self.add(kind, meta, key)
            await self.durable()
            return agent, token
        for kept in claimed if isinstance(claimed, list) else [claimed]:
            self._learn(kept)
        return None if isinstance(claimed, list) else (claimed.agent, token)

    def _learn(self, kept: KeptAgent) -> None:
        """Take an agent the store kept into memory (once)."""
        agent = kept.agent
        if agent.agent_id not in self._agents:
            self._agents[agent.agent_id] = agent
            self._tokens[agent.agent_id] = kept.token
            if kept.key is not None:
                self._keys[agent.agent_id] = kept.key
            self._book.remember(agent.agent_id, kept.token)
            self._index(agent)

    async def follow(self) -> Heard:
        """Learn the agents the store's other League Managers registered or changed since
        the last look: a new one is known here (its token authenticates it), a known one
        takes its state from the store, neither journaled again (the store has them).

        Raises:
            PgStoreError, StoreError: the store cannot be read now (the next look asks
                again).
        """
        heard = Heard()
        for kept in await self._store.others():
            known = self._agents.get(kept.agent.agent_id)
            if known is None:
                self._learn(kept)
                heard.joined.append(kept.agent)
            elif known.state != kept.agent.state:
                known.state = kept.agent.state
                heard.changed.append(known)
        return heard

    async def durable(self) -> None:
        """Return once every registration and change so far is on disk: before one is
        acknowledged (one fsync for all those made meanwhile).

        Raises:
            StoreError: the fsync failed; the next call tries again.
        """
        await self._store.durable()

    def _new_agent(
        self, agent_id: str, kind: AgentKind, meta: RefereeMeta | PlayerMeta
    ) -> RegisteredAgent:
        return RegisteredAgent(
            agent_id=agent_id,
            kind=kind,
            display_name=clean_display_name(meta.display_name),
            version=meta.version,
            game_types=list(meta.game_types),
            contact_endpoint=meta.contact_endpoint,
            max_concurrent_matches=getattr(meta, "max_concurrent_matches", 1),
            registered_at=utc_now_str(),
        )

    def find_by_endpoint(self, endpoint: str) -> RegisteredAgent | None:
        """The agent, of either kind, registered at this endpoint in any spelling."""
        return self._endpoints.get(canonical_endpoint(endpoint))

    def find_by_name(self, kind: AgentKind, display_name: str) -> RegisteredAgent | None:
        """The agent of ``kind`` registered under this name in any spelling (case, width,
        invisible characters, spaces)."""
        return self._names.get((kind, name_key(display_name)))

    def same_registration(self, agent_id: str, key: str) -> bool:
        """Whether ``key`` is the one ``agent_id`` registered with: a retry of a
        registration whose answer was lost."""
        digest = self._keys.get(agent_id)
        return digest is not None and token_matches(key, digest)

    def holds_token(self, agent_id: str, token: str | None) -> bool:
        return self._book.holds(agent_id, token)

    def count(self, kind: AgentKind) -> int:
        return len(self._kinds[kind])

    def of_kind(self, kind: AgentKind) -> list[RegisteredAgent]:
        """The agents of ``kind`` in registration order."""
        return list(self._kinds[kind].values())

    def get(self, agent_id: str) -> RegisteredAgent | None:
        return self._agents.get(agent_id)

    def token_of(self, agent_id: str) -> str:
        """The agent's token: for its own registration answer only, never another's."""
        return self._tokens[agent_id]

    def proof_for(self, agent_id: str, conversation_id: str) -> str:
        """What the League Manager shows ``agent_id`` on a call of ``conversation_id``."""
        return league_manager_proof(self._tokens[agent_id], self._league_id, conversation_id)

    def match_proof_for(
        self, player_id: str, match_id: str, referee_id: str, league_id: str | None = None
    ) -> str:
        """What ``referee_id`` shows ``player_id`` in the messages of ``match_id`` (of this
        league, or of ``league_id``: the play room's games against a registered player)."""
        return match_proof(
            self._tokens[player_id], league_id or self._league_id, match_id, referee_id
        )

    def authenticate(
        self, sender: str, token: str | None, kind: AgentKind | None = None
    ) -> RegisteredAgent:
        """The agent behind ``sender``, if its token is right and it is of ``kind``.

        Raises:
            ProtocolError: E005/E013 unknown sender, E011 no token, E012 wrong token,
                E014 a valid agent of the wrong kind.
        """
        agent_id = sender_id(sender)
        agent = self._agents.get(agent_id)
        if agent is None:
            unknown = (
                ErrorCode.REFEREE_NOT_REGISTERED
                if kind == "referee"
                else ErrorCode.PLAYER_NOT_REGISTERED
            )
            raise ProtocolError(unknown, f"{sender!r} is not registered in this league")
        self._book.verify(agent_id, token, ErrorCode.PLAYER_NOT_REGISTERED)
        if kind is not None and agent.kind != kind:
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"{agent_id} is a {agent.kind}; only a {kind} may send this",
            )
        return agent

    def set_states(self, agent_ids: list[str], state: AgentState) -> list[str]:
        """Change agents' lifecycle states; returns those that changed, for the caller to
        journal (``journal_states``)."""
        changed = []
        for agent_id in agent_ids:
            agent = self._agents[agent_id]
            if agent.state != state:
                agent.state = state
                changed.append(agent_id)
        return changed

    def journal_states(self, agent_ids: list[str], state: AgentState) -> None:
        """Journal (and fsync) one change of states.

        Raises:
            StoreError: it could not be written; a snapshot (``save``) holds it instead.
        """
        seq = self._state.seq + 1
        self._store.append(StateChange(seq=seq, agent_ids=agent_ids, state=state), sync=True)
        self._state.seq = self._state.secrets_seq = seq

    def snapshot_due(self, *, at_once: bool = False) -> bool:
        """Whether the journal holds enough changes, or old enough ones, to write the
        snapshots (the rule is at the top of the module); ``at_once``: any (at shutdown)."""
        pending = self._state.seq - self._snapshot_seq
        if pending <= 0:
            return False
        if at_once or pending >= max(SNAPSHOT_MIN_CHANGES, len(self._agents)):
            return True
        wait = max(SNAPSHOT_EVERY_SEC, SNAPSHOT_COST_SHARE * self._snapshot_cost)
        return time.monotonic() - self._snapshot_at >= wait

    def save(self) -> None:
        """Write both snapshots from memory and roll the journal over.

        Raises:
            FileSystemError: the file system refused a file.
        """
        began = time.monotonic()
        self._store.write_snapshots(self._state)
        self._snapshot_seq = self._state.seq
        self._snapshot_at = time.monotonic()
        self._snapshot_cost = self._snapshot_at - began

    def close(self) -> None:
        self._store.close()
