"""The registry's files: a journal of its changes and two snapshots, so that a registration
costs one appended line whatever the league's size.

- ``registry.jsonl`` (mode 0600: it carries tokens): one line per registration (the agent,
  its token, its key's digest) and per change of states, each numbered (``seq``), appended
  before the change is acknowledged.
- ``agents.json``: the public facts (no token), and ``secrets.json`` (mode 0600): the tokens
  and key digests. Snapshots, each stamped with the number of the last change it holds,
  written now and then (``AgentRegistry.snapshot_due``) and at shutdown, secrets first. Each
  snapshot keeps the one it replaces as ``<file>.bak``, and the journal rolls over with it
  (``registry.jsonl.bak`` holds the changes since the snapshot before): whichever snapshot
  start-up reads, the journal holds every change after it.

Start-up reads each snapshot (or its backup, the damaged file kept as ``.corrupt-<stamp>``)
and replays the journal's changes numbered after it, so a change is never taken twice. A
torn last line is a change never acknowledged, and is dropped. A damaged line or a gap in
the numbers among the changes a snapshot lacks, an agent without its token, or a registry
gone beside the league's data cannot be recovered: the League Manager refuses to start,
naming the file.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from league_manager.agent_records import (
    KeptAgent,
    RegisteredAgent,
    Registration,
    RegistryState,
    StateChange,
    change_of,
)
from sdk.store import (
    RECOVERY_HINT,
    BadLine,
    Journal,
    Loaded,
    LostFileError,
    StoreError,
    atomic_write_json,
    backup_path,
    load_with_backup,
    quarantine,
    write_document,
)

__all__ = ["AGENTS_FILE", "REGISTRY_JOURNAL", "SECRETS_FILE", "JournalMark", "RegistryFiles"]

_log = logging.getLogger(__name__)

AGENTS_FILE = "agents.json"
SECRETS_FILE = "secrets.json"
REGISTRY_JOURNAL = "registry.jsonl"

_Line = tuple[Path, int, Registration | StateChange | BadLine]


class RegistryFiles:
    """One league's registry files: ``load`` at start-up, then ``open`` to append changes,
    ``write_snapshots`` now and then."""

    def __init__(self, league_dir: Path, league_files: tuple[Path, ...] = ()):
        """``league_files``: files whose content means the league has begun (its journal,
        its schedule): beside any of them, a missing registry is damage, never a new
        league."""
        self.agents_path = league_dir / AGENTS_FILE
        self.secrets_path = league_dir / SECRETS_FILE
        self.journal_path = league_dir / REGISTRY_JOURNAL
        self._league_files = league_files
        self._journal: Journal | None = None
        self.recovery_notes: list[str] = []
        """What start-up found damaged and how it recovered, a sentence each."""

    # -- start-up --------------------------------------------------------------------

    def read(self) -> RegistryState:
        """The registry the files hold, read without writing anything (for a reader beside
        a running League Manager: its tokens for a test, a report).

        Raises:
            StoreError: a file is damaged (``load`` is how a starting League Manager
                recovers), or there is no registry.
        """
        lines = self._journal_lines()  # first: a snapshot written meanwhile holds the rest
        agents = load_with_backup(self.agents_path, _agents_of)
        secrets = load_with_backup(self.secrets_path, _secrets_of)
        if agents is None or secrets is None:
            raise StoreError(f"{self.agents_path.parent} holds no registry")
        return self._replayed(agents, secrets, lines)

    def load(self) -> RegistryState:
        """Read both snapshots (or their backups), replay the journal's changes after them,
        check that every agent has its token, and write back what had to be recovered.

        Raises:
            StoreError: a file and its backup are both unusable, a change the snapshots lack
                is damaged or missing, or an agent's token is lost.
            LostFileError: a registry file is gone beside the registry's other files or the
                league's data.
        """
        try:
            agents = load_with_backup(self.agents_path, _agents_of)
            secrets = load_with_backup(self.secrets_path, _secrets_of)
        except StoreError as exc:
            raise StoreError(f"cannot start: {exc}; {RECOVERY_HINT}") from exc
        if agents is None or secrets is None:
            self._check_new_league(agents, secrets)
            state = RegistryState()
            # A new league (or its first start cut short): write both, empty, so that from
            # now on a missing file is damage, never "nobody registered yet".
            self.write_snapshots(state, keep_backup=False)
            return state
        state = self._replayed(agents, secrets, self._journal_lines())
        unanswered = sorted(set(state.tokens) - set(state.agents))
        if unanswered and agents.problem is not None:
            self._note(
                f"{', '.join(unanswered)} registered after {agents.source.name} was "
                "written and are forgotten; they must register again"
            )
        state.tokens = {a: t for a, t in state.tokens.items() if a in state.agents}
        state.keys = {a: k for a, k in state.keys.items() if a in state.agents}
        for loaded, path in ((agents, self.agents_path), (secrets, self.secrets_path)):
            if loaded.problem is not None:
                kept = f"; kept it as {quarantine(path).name}" if path.exists() else ""
                self._note(
                    f"{loaded.problem}{kept}; recovered its previous version from "
                    f"{loaded.source.name} and the changes after it from {self.journal_path.name}"
                )
        if agents.problem is not None or secrets.problem is not None:
            self.write_snapshots(state, keep_backup=False)
        return state

    def _check_new_league(
        self, agents: Loaded[_Agents] | None, secrets: Loaded[_Secrets] | None
    ) -> None:
        """A registry file missing with no backup: only a new league may have none.

        Raises:
            LostFileError: naming the missing file and what shows that it existed.
        """
        if (agents is None or not agents.value.agents) and (
            secrets is None or not secrets.value.tokens
        ):
            self._refuse_lost_registry(agents is None, secrets is None)
            return
        present, absent = (
            (self.secrets_path, self.agents_path)
            if agents is None
            else (self.agents_path, self.secrets_path)
        )
        raise LostFileError(
            f"cannot start: {absent} is missing (no backup either) beside "
            f"{present}; {RECOVERY_HINT}"
        )

    def _refuse_lost_registry(self, no_agents: bool, no_tokens: bool) -> None:
        """No registry, or an empty one, where the league's data (or the registry's journal)
        says agents registered.

        Raises:
            LostFileError: naming the missing file and the data beside it.
        """
        begun = [
            path
            for path in (*self._league_files, self.journal_path)
            if path.is_file() and path.stat().st_size > 0 or backup_path(path).is_file()
        ]
        if not begun:
            return
        missing = " and ".join(
            str(path)
            for path, gone in ((self.agents_path, no_agents), (self.secrets_path, no_tokens))
            if gone
        )
        raise LostFileError(
            f"cannot start: {missing} {'are' if no_agents and no_tokens else 'is'} missing "
            f"(no backup either) but {begun[0]} holds this league's data: its players and referees "
            f"would be forgotten; {RECOVERY_HINT}"
        )

    def _replayed(
        self, agents: Loaded[_Agents], secrets: Loaded[_Secrets], lines: list[_Line]
    ) -> RegistryState:
        """The snapshots with the journal's changes after them (``lines``).

        Raises:
            StoreError: a change they lack is damaged or missing; an agent has no token.
        """
        state = RegistryState(
            agents=agents.value.agents,
            seq=agents.value.seq,
            tokens=dict(secrets.value.tokens),
            keys=dict(secrets.value.keys),
            secrets_seq=secrets.value.seq,
        )
        base = min(state.seq, state.secrets_seq)
        _check_damage(lines, base)
        changes = [item for _, _, item in lines if not isinstance(item, BadLine)]
        expected = base + 1
        for change in changes:
            if change.seq < expected:
                continue  # a snapshot holds it already
            if change.seq > expected:
                raise StoreError(
                    f"cannot start: {self.journal_path} lacks change {expected} (it goes on "
                    f"at {change.seq}) and no snapshot holds it; {RECOVERY_HINT}"
                )
            state.apply(change)
            expected += 1
        if base > 0 and not any(path.exists() for path in self._journal_files()):
            raise LostFileError(
                f"cannot start: {self.journal_path} is missing beside {agents.source}: the "
                f"registrations since that snapshot would be forgotten; {RECOVERY_HINT}"
            )
        lost = [agent_id for agent_id in state.agents if agent_id not in state.tokens]
        if lost:
            raise StoreError(
                f"cannot start: {secrets.source} has no token for "
                f"{', '.join(lost)}, so the League Manager cannot sign its calls "
                f"to them; {RECOVERY_HINT}"
            )
        return state

    def _journal_lines(self) -> list[_Line]:
        """Every complete line of the journal's previous file and of the journal, in order:
        a change, or a damaged line."""
        lines: list[_Line] = []
        for path in self._journal_files():
            records, bad = Journal.scan(path)
            for number, record in records:
                try:
                    lines.append((path, number, change_of(record)))
                except ValueError as exc:
                    problem = " ".join(str(exc).split())[:200]
                    lines.append((path, number, BadLine(number, f"is not a change: {problem}")))
            lines.extend((path, damage.number, damage) for damage in bad)
        lines.sort(key=lambda line: (line[0] == self.journal_path, line[1]))
        return lines

    def _journal_files(self) -> tuple[Path, Path]:
        """The journal's previous file (the changes before the last roll), then itself."""
        return backup_path(self.journal_path), self.journal_path

    def _note(self, note: str) -> None:
        self.recovery_notes.append(note)
        _log.warning(note)

    # -- writing ---------------------------------------------------------------------

    def open(self) -> None:
        """Start appending to the journal (mode 0600)."""
        self._journal = Journal(self.journal_path, private=True)

    def append(self, change: Registration | StateChange, *, sync: bool) -> None:
        """Journal one change (fsynced now with ``sync``, else by ``durable``).

        Raises:
            StoreError: it could not be written (nothing of it is in the file) or synced.
        """
        assert self._journal is not None, "append after open"
        self._journal.append(change.model_dump(), sync=sync)

    async def claim(self, registration: Registration) -> None:
        """None: one League Manager writes these files, and its memory refuses duplicates."""
        return None

    async def others(self) -> list[KeptAgent]:
        """None ever: one League Manager writes these files."""
        return []

    async def durable(self) -> None:
        """Return once every change appended so far is on disk (group commit).

        Raises:
            StoreError: the fsync failed; the next call tries again.
        """
        assert self._journal is not None, "durable after open"
        await self._journal.durable()

    def write_snapshots(self, state: RegistryState, *, keep_backup: bool = True) -> None:
        """Write both snapshots of ``state``, secrets first; with ``keep_backup`` each keeps
        the one it replaces and the journal rolls over (its changes are in the snapshots),
        or, where it was deleted or replaced (``JournalMark``), starts afresh.

        Raises:
            FileSystemError: the file system refused a file.
        """
        atomic_write_json(
            self.secrets_path,
            {"seq": state.seq, "tokens": state.tokens, "registration_keys": state.keys},
            keep_backup=keep_backup,
        )
        os.chmod(self.secrets_path, 0o600)
        write_document(
            self.agents_path,
            {"seq": state.seq, "agents": [agent.model_dump() for agent in state.agents.values()]},
            keep_backup=keep_backup,
        )
        if keep_backup and self._journal is not None:
            if self._journal.lost():
                # Deleted or replaced: no roll keeps what went to the lost file, but these
                # snapshots hold it (from memory), so a fresh journal goes on after them.
                self._journal.restore([])
            else:
                self._journal.roll()

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()


class JournalMark:
    """``registry.jsonl`` as the watchdog knows it from beside the registry: the file at its
    path when marked (after each snapshot, which rolls the journal over). One deleted or
    replaced since is ``moved``: the registry appends to a file no start-up reads, as
    ``Journal.lost`` tells its writer (the registry's store is its own)."""

    def __init__(self, league_dir: Path):
        self.path = league_dir / REGISTRY_JOURNAL
        self._marked = self._found()

    def _found(self) -> tuple[int, int] | None:
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None
        return found.st_dev, found.st_ino

    def mark(self) -> None:
        """The file at the path is the registry's (it was just rolled over or written)."""
        self._marked = self._found()

    def moved(self) -> bool:
        found = self._found()
        return found is None or found != self._marked


def _check_damage(lines: list[_Line], base: int) -> None:
    """A damaged line is harmless where a snapshot holds its change: the change numbered
    before it plus one (or the one after it minus one) is at most ``base``.

    Raises:
        StoreError: naming the first damaged line a snapshot may lack.
    """
    seqs = [None if isinstance(item, BadLine) else item.seq for _, _, item in lines]
    before: int | None = None
    for index, (path, number, item) in enumerate(lines):
        if not isinstance(item, BadLine):
            before = item.seq
            continue
        after = next((seq for seq in seqs[index + 1 :] if seq is not None), None)
        if (before is None or before + 1 > base) and (after is None or after - 1 > base):
            raise StoreError(
                f"cannot start: {path} line {number} {item.problem}: a registration or a "
                f"change of states no snapshot holds is lost; {RECOVERY_HINT}"
            )


class _Agents(BaseModel):
    seq: int
    agents: dict[str, RegisteredAgent]


def _agents_of(document: Any) -> _Agents:
    """agents.json's agents by id, in registration order, and the last change it holds (0
    for a file written before the journal).

    Raises:
        ValueError, KeyError, TypeError: it does not hold agents.
    """
    agents = [RegisteredAgent.model_validate(raw) for raw in document["agents"]]
    return _Agents(seq=document.get("seq", 0), agents={agent.agent_id: agent for agent in agents})


class _Secrets(BaseModel):
    seq: int
    tokens: dict[str, str]
    keys: dict[str, str]


def _secrets_of(document: Any) -> _Secrets:
    """secrets.json's tokens and registration key digests by agent id (a file written
    before keys were kept has none: those agents' retries are told to send their token),
    and the last change it holds.

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
        seq=document.get("seq", 0),
        tokens={str(a): t for a, t in tokens.items()},
        keys={str(a): k for a, k in keys.items()},
    )
