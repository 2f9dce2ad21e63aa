"""The registered referees and players: ids, endpoints, lifecycle states and tokens.

Public facts go to ``agents.json``; tokens go to ``secrets.json`` (mode 0600), because the
League Manager makes its proofs from them (``sdk.auth``) and must keep doing so after a
restart, together with the digest of each registration's idempotency key. Incoming tokens
are checked against SHA-256 digests in constant time.

One agent is one endpoint: endpoints are compared in their canonical form and names by
their key (``sdk.identity``), so spelling cannot register one server twice or one name as
two people.

Both files keep their previous version as ``<file>.bak``. ``secrets.json`` is written first
and ``agents.json`` is the commit point: a token without its agent is a registration that a
crash cut short before it was answered, and is dropped at start-up. A damaged file is
recovered from its backup (and kept as ``<file>.corrupt-<stamp>``); an agent left without its
token cannot be, and the League Manager refuses to start, naming the file.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from sdk.auth import TokenBook, league_manager_proof, match_proof, token_digest, token_matches
from sdk.errors import ErrorCode, ProtocolError
from sdk.identity import canonical_endpoint, clean_display_name, name_key
from sdk.messages import PlayerMeta, RefereeMeta, sender_id
from sdk.store import (
    RECOVERY_HINT,
    Loaded,
    LostFileError,
    StoreError,
    atomic_write_json,
    backup_path,
    load_with_backup,
    quarantine,
    write_document,
)
from sdk.timeutil import utc_now_str

__all__ = ["AgentKind", "AgentRegistry", "AgentState", "RegisteredAgent"]

_log = logging.getLogger(__name__)

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


class AgentRegistry:
    """Every agent registered in one league, in registration order."""

    def __init__(
        self,
        league_dir: Path,
        league_id: str,
        token_bytes: int = 32,
        *,
        league_files: tuple[Path, ...] = (),
    ):
        """``league_files``: files whose content means the league has begun (its journal,
        its schedule): beside any of them, a missing registry is damage, never a new
        league."""
        self._league_files = league_files
        self._agents_path = league_dir / "agents.json"
        self._secrets_path = league_dir / "secrets.json"
        self._league_id = league_id
        self._token_bytes = token_bytes
        self._agents: dict[str, RegisteredAgent] = {}
        self._tokens: dict[str, str] = {}
        self._keys: dict[str, str] = {}
        """Each agent's registration key digest (``registration_key``)."""
        self._book = TokenBook()
        self.recovery_notes: list[str] = []
        """What start-up found damaged and how it recovered, a sentence each."""
        self._load()
        self._kinds: dict[AgentKind, dict[str, RegisteredAgent]] = {"referee": {}, "player": {}}
        self._endpoints: dict[str, RegisteredAgent] = {}
        self._names: dict[tuple[AgentKind, str], RegisteredAgent] = {}
        for agent in self._agents.values():
            self._index(agent)
        for agent_id, token in self._tokens.items():
            self._book.remember(agent_id, token)

    def _index(self, agent: RegisteredAgent) -> None:
        """Lookups by kind, endpoint and name in O(1): a league of thousands asks them
        at every registration and every hand-over."""
        self._kinds[agent.kind][agent.agent_id] = agent
        self._endpoints.setdefault(canonical_endpoint(agent.contact_endpoint), agent)
        self._names.setdefault((agent.kind, name_key(agent.display_name)), agent)

    def _load(self) -> None:
        """Read both files (or their backups), check that every agent has its token, and
        write back what had to be recovered.

        Raises:
            StoreError: a file and its backup are both unusable, or an agent's token is lost.
            LostFileError: one registry file is gone, or both are beside the league's data.
        """
        try:
            agents = load_with_backup(self._agents_path, _agents_of)
            tokens = load_with_backup(self._secrets_path, _tokens_of)
        except StoreError as exc:
            raise StoreError(f"cannot start: {exc}; {RECOVERY_HINT}") from exc
        if agents is None or tokens is None:
            if (agents is None or not agents.value) and (tokens is None or not tokens.value.tokens):
                self._refuse_lost_registry(agents is None, tokens is None)
                # A new league (or its first start cut short): write both, empty, so that
                # from now on a missing file is damage, never "nobody registered yet".
                self._write(keep_backup=False)
                return
            present, absent = (
                (self._secrets_path, self._agents_path)
                if agents is None
                else (self._agents_path, self._secrets_path)
            )
            raise LostFileError(
                f"cannot start: {absent} is missing (no backup either) beside "
                f"{present}; {RECOVERY_HINT}"
            )
        lost = [agent_id for agent_id in agents.value if agent_id not in tokens.value.tokens]
        if lost:
            raise StoreError(
                f"cannot start: {tokens.source} has no token for "
                f"{', '.join(lost)}, so the League Manager cannot sign its calls "
                f"to them; {RECOVERY_HINT}"
            )
        self._agents = agents.value
        self._tokens = {
            agent_id: token
            for agent_id, token in tokens.value.tokens.items()
            if agent_id in self._agents
        }
        self._keys = {
            agent_id: key for agent_id, key in tokens.value.keys.items() if agent_id in self._agents
        }
        unanswered = sorted(set(tokens.value.tokens) - set(self._agents))
        if unanswered and agents.problem is not None:
            self._note(
                f"{', '.join(unanswered)} registered after {agents.source.name} was "
                "written and are forgotten; they must register again"
            )
        for loaded, path in ((agents, self._agents_path), (tokens, self._secrets_path)):
            if loaded.problem is not None:
                self._recovered(loaded, path)
        if agents.problem is not None or tokens.problem is not None:
            self._write(keep_backup=False)

    def _refuse_lost_registry(self, no_agents: bool, no_tokens: bool) -> None:
        """No registry, or an empty one, where the league's data says agents registered.

        Raises:
            LostFileError: naming the missing file and the data beside it.
        """
        begun = [
            path
            for path in self._league_files
            if path.is_file() and path.stat().st_size > 0 or backup_path(path).is_file()
        ]
        if not begun or not (no_agents or no_tokens):
            return
        missing = " and ".join(
            str(path)
            for path, gone in ((self._agents_path, no_agents), (self._secrets_path, no_tokens))
            if gone
        )
        raise LostFileError(
            f"cannot start: {missing} {'are' if no_agents and no_tokens else 'is'} missing "
            f"(no backup either) but {begun[0]} holds this league's data: its players and referees "
            f"would be forgotten; {RECOVERY_HINT}"
        )

    def _recovered(self, loaded: Loaded[Any], path: Path) -> None:
        kept = f"; kept it as {quarantine(path).name}" if path.exists() else ""
        self._note(
            f"{loaded.problem}{kept}; recovered its previous version from {loaded.source.name}"
        )

    def _note(self, note: str) -> None:
        self.recovery_notes.append(note)
        _log.warning(note)

    def _next_id(self, kind: AgentKind) -> str:
        prefix = "REF" if kind == "referee" else "P"
        return f"{prefix}{len(self._kinds[kind]) + 1:02d}"

    def add(
        self, kind: AgentKind, meta: RefereeMeta | PlayerMeta, key: str
    ) -> tuple[RegisteredAgent, str]:
        """Register an agent; returns it and its fresh token. ``key``: what a retry of
        this registration repeats (``registration_key``)."""
        agent = RegisteredAgent(
            agent_id=self._next_id(kind),
            kind=kind,
            display_name=clean_display_name(meta.display_name),
            version=meta.version,
            game_types=list(meta.game_types),
            contact_endpoint=meta.contact_endpoint,
            max_concurrent_matches=getattr(meta, "max_concurrent_matches", 1),
            registered_at=utc_now_str(),
        )
        token = self._book.issue(agent.agent_id, self._token_bytes)
        self._agents[agent.agent_id] = agent
        self._tokens[agent.agent_id] = token
        self._keys[agent.agent_id] = token_digest(key)
        try:
            self.save()
        except BaseException:  # not saved, not registered: its id is given out again
            del self._agents[agent.agent_id], self._tokens[agent.agent_id]
            del self._keys[agent.agent_id]
            raise
        self._index(agent)
        return agent, token

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

    def set_state(self, agent_id: str, state: AgentState) -> bool:
        """Change an agent's lifecycle state; True if it changed (the caller saves)."""
        agent = self._agents[agent_id]
        if agent.state == state:
            return False
        agent.state = state
        return True

    def save(self) -> None:
        """Write both files, tokens first (see the module's docstring for why)."""
        self._write(keep_backup=True)

    def _write(self, *, keep_backup: bool) -> None:
        atomic_write_json(
            self._secrets_path,
            {"tokens": self._tokens, "registration_keys": self._keys},
            keep_backup=keep_backup,
        )
        os.chmod(self._secrets_path, 0o600)
        write_document(
            self._agents_path,
            {
                "agents": [agent.model_dump() for agent in self._agents.values()],
            },
            keep_backup=keep_backup,
        )


def _agents_of(document: Any) -> dict[str, RegisteredAgent]:
    """agents.json's agents by id, in registration order.

    Raises:
        ValueError, KeyError, TypeError: it does not hold agents.
    """
    agents = [RegisteredAgent.model_validate(raw) for raw in document["agents"]]
    return {agent.agent_id: agent for agent in agents}


class _Secrets(BaseModel):
    tokens: dict[str, str]
    keys: dict[str, str]


def _tokens_of(document: Any) -> _Secrets:
    """secrets.json's tokens and registration key digests by agent id (a file written
    before keys were kept has none: those agents' retries are told to send their token).

    Raises:
        ValueError, KeyError, TypeError: it does not hold tokens.
    """
    tokens = document["tokens"]
    keys = document.get("registration_keys", {})
    for name, table in (("tokens", tokens), ("registration_keys", keys)):
        if not isinstance(table, dict) or not all(
            isinstance(value, str) and value for value in table.values()
        ):
            raise ValueError(f"{name} is not a map of agent ids to strings")
    return _Secrets(
        tokens={str(a): t for a, t in tokens.items()}, keys={str(a): k for a, k in keys.items()}
    )
