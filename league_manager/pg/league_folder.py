"""One league's state as a League Manager resumes it (``LeagueState``), read from its folder
under ``SHARED/data/leagues/<league_id>/`` and written back there, for moving a league
between the JSON files and PostgreSQL (``transfer.py``).

Reading goes through the League Manager's own readers, so a damaged file is recovered by
the rules of a starting League Manager (its repair written to the folder, as at a start,
and said in ``LeagueState.notes``). Writing goes through its own writers into a folder
beside the league's, moved into place whole: a reader never finds half a league."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from league_manager.admin import LeagueControl, save_pause
from league_manager.agent_records import RegisteredAgent, RegistryState
from league_manager.assignments import AssignmentNumbers, write_reservation
from league_manager.book import LeagueBook
from league_manager.config import league_game
from league_manager.credentials import keep_secret
from league_manager.pg.errors import TransferError
from league_manager.records import (
    LeagueStatus,
    LoadedSchedule,
    ResultRecord,
    RoundRecord,
    ScheduleRecipe,
)
from league_manager.registry_files import RegistryFiles
from league_manager.result_log import ResultJournal
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.scheduler import make_schedule
from league_manager.standings_book import StandingsBook
from sdk.config import SharedDir
from sdk.store import Journal

__all__ = ["LeagueState", "read_league_folder", "write_league_folder"]

JOURNAL_FILE = "journal.jsonl"
ROUNDS_FILE = "rounds.json"
STANDINGS_FILE = "standings.json"


@dataclass
class LeagueState:
    """What a League Manager needs to resume a league, whichever store holds it. Standings
    are not in it: they are counted from ``results``."""

    league_id: str
    status: LeagueStatus
    players_per_match: int
    paused: bool
    agents: list[RegisteredAgent]
    """In registration order."""
    tokens: dict[str, str]
    registration_keys: dict[str, str]
    """Each agent's registration key digest; an agent registered before the League Manager
    kept them has none (its retries are told to send their token)."""
    players: list[tuple[str, str]]
    """The players the schedule was made from, in order: (player_id, display_name)."""
    rounds: list[RoundRecord]
    """Every round; a round being played lists its matches (who holds each)."""
    results: list[ResultRecord]
    """In the order they were accepted."""
    highest_assignment: int
    """At or above every assignment number the store holds: given out, or reserved as the
    next (0: none ever was)."""
    admin_token: str | None = None
    """The token a League Manager made at the league's first start (None: configured)."""
    referee_secret: str | None = None
    notes: list[str] = field(default_factory=list)
    """What reading found damaged and how it recovered, a sentence each."""


def read_league_folder(shared: SharedDir, league_id: str) -> LeagueState:
    """The league's state as its folder holds it, recovered as a starting League Manager
    recovers it.

    Raises:
        TransferError: the folder holds no league.
        StoreError: a file that cannot be recovered.
        ConfigError: the league's configuration is missing or wrong.
    """
    league_dir = shared.league_dir(league_id)
    if not (league_dir / "agents.json").is_file() and not (league_dir / ROUNDS_FILE).is_file():
        raise TransferError(f"{league_dir} holds no league {league_id}: nothing to export")
    config = shared.league(league_id)
    _, size = league_game(shared, league_id, config)
    registry_files = RegistryFiles(
        league_dir, league_files=(league_dir / JOURNAL_FILE, league_dir / ROUNDS_FILE)
    )
    registry = registry_files.load()
    players = [agent for agent in registry.agents.values() if agent.kind == "player"]
    book = LeagueBook.open(
        league_dir,
        league_id,
        config.scoring,
        ScheduleRecipe([(p.agent_id, p.display_name) for p in players], size, config.rounds),
    )
    book.close()
    schedule = book.schedule
    numbers = AssignmentNumbers(league_dir, league_id)
    control = LeagueControl(league_dir, league_id, schedule, lambda *_, **__: None)
    live = [m.assignment or 0 for r in schedule.rounds for m in r.matches]
    return LeagueState(
        league_id=league_id,
        status=schedule.status,
        players_per_match=schedule.players_per_match,
        paused=control.paused,
        agents=list(registry.agents.values()),
        tokens=registry.tokens,
        registration_keys=registry.keys,
        players=schedule.players,
        rounds=schedule.rounds,
        results=list(book.results.values()),
        highest_assignment=max([numbers.next_number, *live]),
        admin_token=_secret_in(shared.admin_token_path(league_id)),
        referee_secret=_secret_in(shared.referee_secret_path(league_id)),
        notes=(
            registry_files.recovery_notes
            + book.recovery_notes
            + numbers.recovery_notes
            + control.recovery_notes
        ),
    )


def _secret_in(path: Path) -> str | None:
    """The secret a League Manager kept in ``path``; None where it made none."""
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def write_league_folder(shared: SharedDir, state: LeagueState, *, replace: bool = False) -> Path:
    """Write the league's files with the League Manager's writers; returns its folder.
    Where the rows disagree with one another (a round completed without all its results),
    the League Manager's start-up rule says what they mean, in ``state.notes``.

    Raises:
        TransferError: the folder holds the league's data already and ``replace`` is off.
        ConfigError: the league's configuration is missing or wrong (standings need its
            scoring).
        FileSystemError: the file system refused a file.
    """
    league_id = state.league_id
    league_dir = shared.league_dir(league_id)
    if not replace and league_dir.is_dir() and any(league_dir.iterdir()):
        raise TransferError(
            f"{league_dir} holds league {league_id}'s data already: give --replace to overwrite it"
        )
    scoring = shared.league(league_id).scoring
    staging = league_dir.with_name(f".{league_id}.importing")
    shutil.rmtree(staging, ignore_errors=True)  # an import cut short
    staging.mkdir(parents=True)
    _write_registry(staging, state)
    journal = Journal(staging / JOURNAL_FILE)
    try:
        for number, result in enumerate(state.results, start=1):
            journal.append(result.to_line(), sync=number == len(state.results))
    finally:
        journal.close()
    if state.status != LeagueStatus.REGISTRATION:
        written = ResultJournal(staging / JOURNAL_FILE)
        results = ResultsBook(written, written.read_now().results)
        ids = [player_id for player_id, _ in state.players]
        loaded = LoadedSchedule(
            state.status,
            state.players,
            state.rounds,
            make_schedule(ids, state.players_per_match, len(state.rounds)),
            state.players_per_match,
        )
        schedule = ScheduleBook(staging / ROUNDS_FILE, league_id, results, loaded=loaded)
        schedule.write(keep_backup=False)
        schedule.settle(exact=True, note=state.notes.append)  # its count of rounds completed
        standings = StandingsBook(staging / STANDINGS_FILE, league_id, scoring, schedule)
        for result in results.values():
            standings.count(result)
        standings.write(keep_backup=False)
    if state.highest_assignment:
        write_reservation(staging, league_id, state.highest_assignment + 1)
    if state.paused:
        save_pause(staging, league_id, True)
    for secret, path in (
        (state.admin_token, shared.admin_token_path(league_id)),
        (state.referee_secret, shared.referee_secret_path(league_id)),
    ):
        if secret is not None:
            keep_secret(staging / path.name, secret)
    _move_into_place(staging, league_dir)
    return league_dir


def _write_registry(folder: Path, state: LeagueState) -> None:
    """agents.json and secrets.json (0600) as one snapshot of every agent, and the empty
    journal (0600) the changes after it go to."""
    changes = len(state.agents)  # the snapshot holds one registration per agent
    registry = RegistryState(
        agents={agent.agent_id: agent for agent in state.agents},
        seq=changes,
        tokens=state.tokens,
        keys=state.registration_keys,
        secrets_seq=changes,
    )
    files = RegistryFiles(folder)
    files.write_snapshots(registry, keep_backup=False)
    files.open()
    files.close()


def _move_into_place(staging: Path, league_dir: Path) -> None:
    """Swap the written folder in for the league's (the one it replaces deleted after)."""
    replaced = league_dir.with_name(f".{league_dir.name}.replaced")
    shutil.rmtree(replaced, ignore_errors=True)
    if league_dir.exists():
        os.replace(league_dir, replaced)
    os.replace(staging, league_dir)
    shutil.rmtree(replaced, ignore_errors=True)
