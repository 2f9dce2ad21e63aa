"""Opening one league's book at start-up: its three files read, checked against one another
and recovered, then handed out as three parts, each named for the file it keeps:

- the schedule book (``schedule_book.py``, ``rounds.json``): the league's status, players,
  schedule and every round's status;
- the results book (``results_book.py``, ``journal.jsonl``): every accepted result, appended
  and fsynced before it is acknowledged;
- the standings (``standings_book.py``, ``standings.json``): the players' records and ranking.

The journal is the truth; rounds.json and standings.json are snapshots written once per
round (each keeping the version it replaces as ``<file>.bak``, for recovery), and a restarted
League Manager rebuilds everything from these files. Cost per accepted result is O(1)
whatever the league's size: one journal line, two players' records, a few dict entries."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from league_manager.records import ScheduleRecipe, check_results_fit, parse_schedule
from league_manager.result_log import KeptResults, ResultJournal, ResultLog
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook, StoredStandings
from sdk.config import ScoringConfig
from sdk.store import (
    RECOVERY_HINT,
    StoreError,
    backup_path,
    load_with_backup,
    quarantine,
    remove_temp_files,
)

__all__ = ["LeagueBook", "ReadLog", "StoreSchedule"]

_log = logging.getLogger(__name__)

_Source = Literal["file", "backup", "players"]
"""Where start-up found the schedule: rounds.json, its backup, or made again."""


@dataclass(frozen=True)
class StoreSchedule:
    """The schedule as a store keeps it in place of rounds.json (the PostgreSQL store's),
    read already: ``document`` is its content (None: it has none yet), ``publish`` where
    each new content goes."""

    document: dict[str, Any] | None
    publish: Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class ReadLog:
    """A results log other than the league's journal (the PostgreSQL store), read already:
    a starting League Manager reads a database before its event loop runs."""

    log: ResultLog
    kept: KeptResults
    name: str
    """How messages name where the results are (no password)."""
    schedule: StoreSchedule | None = None
    """The schedule, where the store keeps it too (rounds.json is then neither read nor
    written)."""
    standings: StoredStandings | None = None
    """Where the standings served to queries are counted, where the store counts them."""


@dataclass(frozen=True)
class LeagueBook:
    """One league's book as start-up opened it: its three parts (the League Manager hands
    each to the parts that use it, and none of them is given this whole), what start-up
    found damaged and how it recovered (``recovery_notes``, a sentence each, also logged as
    warnings), and the matches without a result that a referee may have been given before
    this start (``unsettled``: the referees are asked about them before they are handed
    out again).

    Start-up never resets a league silently. A damaged ``rounds.json`` is replaced by its
    previous version (``rounds.json.bak``) or, failing that, made again from ``recipe``
    (the schedule is deterministic in the registered players); a damaged journal line is
    set aside and its match recovered from its referee or played again; ``standings.json``
    is rewritten from the journal whenever it differs. Each damaged file is kept as
    ``<file>.corrupt-<stamp>`` and named in ``recovery_notes``. What cannot be recovered
    raises StoreError naming the file and what to do (one line, starting "cannot start:"),
    leaving the files as they were (a schedule made again from the players is the one
    exception: it is written before the journal is checked against it, the damaged files
    kept beside it).
    """

    schedule: ScheduleBook
    results: ResultsBook
    standings: StandingsBook
    recovery_notes: list[str]
    unsettled: frozenset[str]
    journal: ResultJournal | None = None
    """The results' file, which the watchdog checks is still there (None: the results are
    in the PostgreSQL store)."""

    @classmethod
    def open(
        cls,
        league_dir: Path,
        league_id: str,
        scoring: ScoringConfig,
        recipe: ScheduleRecipe | None = None,
        read: ReadLog | None = None,
    ) -> LeagueBook:
        """Read, check and recover the league's files, and open the journal to append to
        (the results log of the JSON files, ``result_log.ResultJournal``), or take the
        results from ``read``, a log read already (the PostgreSQL store's).

        Raises:
            StoreError: a file that cannot be recovered (see the class).
        """
        notes: list[str] = []

        def note(text: str) -> None:
            notes.append(text)
            _log.warning(text)

        remove_temp_files(league_dir)  # writes a kill cut short; the files are whole
        journal: ResultJournal | None = None
        if read is None:
            journal = ResultJournal(league_dir / "journal.jsonl")
            read = ReadLog(journal, journal.read_now(), str(journal.path))
        kept = read.kept
        results = ResultsBook(read.log, kept.results)
        if read.schedule is not None:
            schedule, source = _store_schedule(
                read.schedule, league_dir / "rounds.json", league_id, results, read, recipe, note
            )
        else:
            schedule, source = _read_schedule(
                league_dir / "rounds.json", league_id, results, read.name, kept, recipe, note
            )
        standings = StandingsBook(
            league_dir / "standings.json", league_id, scoring, schedule, read.standings
        )
        if source == "players":
            standings.write()  # as for any schedule just made
        check_results_fit(list(results.values()), schedule.match, read.name, schedule.path)
        for result in results.values():
            standings.count(result)
        unsettled, settled = schedule.settle(source == "file", note)
        if journal is not None:
            journal.drop_damaged(kept, note)
        if source != "file" or settled:
            schedule.write(keep_backup=source == "file")
        if schedule.rounds:
            standings.check_file(note)
        if journal is not None:
            journal.open()
        return cls(schedule, results, standings, notes, frozenset(unsettled), journal)

    def close(self) -> None:
        self.results.close()


def _store_schedule(
    store: StoreSchedule,
    path: Path,
    league_id: str,
    results: ResultsBook,
    read: ReadLog,
    recipe: ScheduleRecipe | None,
    note: Callable[[str], None],
) -> tuple[ScheduleBook, _Source]:
    """The schedule a store keeps: its statuses may lag the results a moment (its leader
    writes them after the fact), so start-up settles it as it would a backup ("backup").

    Raises:
        StoreError: the store's schedule cannot be used, or it has none but results.
    """
    size = recipe.players_per_match if recipe else 2
    document = store.document
    if document is not None and document["players"]:
        try:
            loaded = parse_schedule(document)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise StoreError(
                f"cannot start: the schedule in {read.name} cannot be used: {exc}"
            ) from None
        book = ScheduleBook(path, league_id, results, loaded=loaded, publish=store.publish)
        return book, "backup"
    schedule = ScheduleBook(path, league_id, results, players_per_match=size, publish=store.publish)
    if not read.kept.anything:
        return schedule, "file"
    if recipe is None or not recipe.players:
        raise StoreError(
            f"cannot start: {read.name} holds results but no schedule, and no registered "
            "players to make it again from"
        )
    schedule.create(list(recipe.players), recipe.players_per_match, recipe.rounds)
    note(
        f"{read.name} holds results but no schedule: made it again from the "
        f"{len(recipe.players)} registered players in registration order"
    )
    return schedule, "players"


def _read_schedule(
    path: Path,
    league_id: str,
    results: ResultsBook,
    journal_path: str,
    kept: KeptResults,
    recipe: ScheduleRecipe | None,
    note: Callable[[str], None],
) -> tuple[ScheduleBook, _Source]:
    """Load rounds.json, its backup, or make the schedule again from ``recipe``; a new
    league has none yet (its schedule book is empty, as read from the file).

    Raises:
        StoreError: no usable schedule and no players to make it again from.
    """
    size = recipe.players_per_match if recipe else 2
    try:
        loaded = load_with_backup(path, parse_schedule)
    except StoreError as exc:
        problem = str(exc)
    else:
        if loaded is None and not kept.anything:
            return ScheduleBook(path, league_id, results, players_per_match=size), "file"
        if loaded is not None:
            schedule = ScheduleBook(path, league_id, results, loaded=loaded.value)
            if loaded.problem is None:
                return schedule, "file"
            if path.exists():
                note(f"{loaded.problem}; kept it as {quarantine(path).name}")
            note(
                f"recovered the schedule from {loaded.source.name}, its previous "
                "version; the journal brings the results since"
            )
            return schedule, "backup"
        problem = f"{path} is missing but {journal_path} holds results"
    if recipe is None or not recipe.players:
        raise StoreError(
            f"cannot start: {problem}; no registered players to make the "
            f"schedule again from; {RECOVERY_HINT}"
        )
    for file in (path, backup_path(path)):
        if file.exists():
            quarantine(file)
    schedule = ScheduleBook(path, league_id, results, players_per_match=size)
    schedule.create(list(recipe.players), recipe.players_per_match, recipe.rounds)
    note(
        f"{problem}; made the schedule again from the {len(recipe.players)} "
        "registered players in registration order (it is deterministic in them); "
        "damaged files kept as .corrupt-*"
    )
    return schedule, "players"
