"""The League Manager's records of one league, as its files hold them: matches, rounds and
journaled results, and the reading of ``rounds.json`` and ``journal.jsonl`` they are checked
by at start-up (``book.py``; ``schedule_book.py`` and ``results_book.py`` keep them)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal, cast

import orjson
from pydantic import BaseModel, ValidationError, model_validator

from league_manager.scheduler import Schedule, make_schedule
from sdk.messages import Outcome
from sdk.store import RECOVERY_HINT, BadLine, Journal, StoreError

__all__ = [
    "LeagueStatus",
    "LoadedSchedule",
    "MatchProgress",
    "MatchStatus",
    "ResultRecord",
    "RoundRecord",
    "RoundStatus",
    "ScheduleRecipe",
    "check_results_fit",
    "parse_schedule",
    "read_journal",
]


MatchStatus = Literal["PENDING", "ASSIGNED", "RUNNING", "COMPLETED"]
RoundStatus = Literal["PENDING", "RUNNING", "COMPLETED"]


class LeagueStatus(str, Enum):
    REGISTRATION = "REGISTRATION"
    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"


class MatchProgress(BaseModel):
    """How far one match of a round got: its seats, the referee that holds it and under
    which assignment, and its status."""

    match_id: str
    round_id: int
    player_A_id: str
    player_B_id: str
    player_ids: list[str] = []
    """Every player in seat order; the protocol's player_A_id and player_B_id are the first
    two (a file written before matches of more players had only those two)."""
    referee_id: str | None = None
    referee_endpoint: str | None = None
    status: MatchStatus = "PENDING"
    winner: str | None = None
    attempts: int = 0
    assignment: int | None = None
    """The number of the hand-over that holds the match now (``assignments.py``): only
    its referee's report, carrying it, is counted."""

    @model_validator(mode="after")
    def _seats_listed(self) -> MatchProgress:
        if not self.player_ids:
            self.player_ids = [self.player_A_id, self.player_B_id]
        return self


class RoundRecord(BaseModel):
    round_id: int
    status: RoundStatus = "PENDING"
    byes: list[str] = []
    matches: list[MatchProgress] = []
    """Listed while the round is played (who referees what); the other rounds' matches come
    from the schedule and the journal (``ScheduleBook.round_matches``)."""
    started_at: str | None = None
    completed_at: str | None = None


class _ResultLine(BaseModel):
    """A journal line of a result, checked as it is read."""

    match_id: str
    round_id: int
    referee_id: str
    outcomes: dict[str, Outcome]
    points: dict[str, float]
    winner: str | None
    details: dict[str, Any]
    recorded_at: str

    @model_validator(mode="after")
    def _points_of_the_players(self) -> _ResultLine:
        if list(self.points) != list(self.outcomes):
            raise ValueError("points must name the players of outcomes, in their order")
        return self


_NO_DETAILS = b"{}"


def _json_of(details: dict[str, Any]) -> bytes:
    """Compact JSON, kept: the standard library's, since orjson's bytes each hold a 4 KB
    buffer (measured with tracemalloc), and most results have no details at all. Keys
    sorted, so equal details are equal bytes (PostgreSQL's jsonb does not keep key order)."""
    if not details:
        return _NO_DETAILS
    return json.dumps(details, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()


_POINTS: dict[float, float] = {}
"""One float object per distinct number of points (a league awards three or four)."""


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """One accepted result. A league keeps every one in memory (a 1,000-player round robin
    holds half a million), so it is kept compact: ids interned, the players' outcomes and
    points as tuples in seat order, the referee's details as their JSON (read back on
    demand, rarely). About 0.5 KB each, against 2.1 KB as a pydantic model with its dicts
    (``bench/scale.py``)."""

    match_id: str
    round_id: int
    referee_id: str
    player_ids: tuple[str, ...]
    outcome_list: tuple[Outcome, ...]
    point_list: tuple[float, ...]
    winner: str | None
    recorded_at: str
    details_json: bytes

    @classmethod
    def of(
        cls,
        *,
        match_id: str,
        round_id: int,
        referee_id: str,
        outcomes: dict[str, Outcome],
        points: dict[str, float],
        winner: str | None,
        details: dict[str, Any],
        recorded_at: str,
    ) -> ResultRecord:
        """A result from its parts, as the results desk decides it (``points`` names the
        players of ``outcomes``)."""
        players = tuple(sys.intern(player) for player in outcomes)
        return cls(
            match_id=sys.intern(match_id),
            round_id=round_id,
            referee_id=sys.intern(referee_id),
            player_ids=players,
            outcome_list=tuple(cast(Outcome, sys.intern(o)) for o in outcomes.values()),
            point_list=tuple(_POINTS.setdefault(points[p], points[p]) for p in players),
            winner=None if winner is None else sys.intern(winner),
            recorded_at=recorded_at,
            details_json=_json_of(details),
        )

    @classmethod
    def from_line(cls, line: Any) -> ResultRecord:
        """A journal line as a result.

        Raises:
            ValidationError: the line is not a result.
        """
        checked = _ResultLine.model_validate(line)
        return cls.of(**dict(checked))

    @property
    def outcomes(self) -> dict[str, Outcome]:
        return dict(zip(self.player_ids, self.outcome_list, strict=True))

    @property
    def points(self) -> dict[str, float]:
        return dict(zip(self.player_ids, self.point_list, strict=True))

    @property
    def details(self) -> dict[str, Any]:
        """The referee's details (a fresh copy on every read)."""
        details: dict[str, Any] = orjson.loads(self.details_json)
        return details

    def to_line(self) -> dict[str, Any]:
        """The result as its journal line (and as the match page shows it)."""
        return {
            "match_id": self.match_id,
            "round_id": self.round_id,
            "referee_id": self.referee_id,
            "outcomes": self.outcomes,
            "points": self.points,
            "winner": self.winner,
            "details": self.details,
            "recorded_at": self.recorded_at,
        }


@dataclass(frozen=True)
class ScheduleRecipe:
    """What the schedule is made from, to make it again exactly when rounds.json and its
    backup are both lost: the registered players in registration order (the schedulers
    are deterministic in them) and the league's match size and rounds."""

    players: list[tuple[str, str]]
    players_per_match: int = 2
    rounds: int | None = None


@dataclass
class LoadedSchedule:
    status: LeagueStatus
    players: list[tuple[str, str]]
    rounds: list[RoundRecord]
    schedule: Schedule
    players_per_match: int


def parse_schedule(document: Any) -> LoadedSchedule:
    """rounds.json's content, checked enough to run the league from: the schedule made from
    its players must have its rounds, and each match it lists must be that schedule's.
    (A file written before schedules were computed on demand lists every round's matches and
    no ``players_per_match``: the size is read from its first match.)

    Raises:
        ValueError, KeyError, TypeError, IndexError: it is not a schedule this league can use.
    """
    status = LeagueStatus(document["status"])
    players = [(str(p["player_id"]), str(p["display_name"])) for p in document["players"]]
    rounds = [RoundRecord.model_validate(r) for r in document["rounds"]]
    size = document.get("players_per_match") or len(rounds[0].matches[0].player_ids)
    schedule = make_schedule([player_id for player_id, _ in players], int(size), len(rounds))
    if schedule.total_rounds != len(rounds):
        raise ValueError(f"it lists {len(rounds)} rounds; its players make {schedule.total_rounds}")
    for round_record in rounds:
        if round_record.status != "RUNNING":
            round_record.matches = []
        for match in round_record.matches:
            planned = schedule.match(match.match_id)
            if (
                planned is None
                or planned.player_ids != match.player_ids
                or planned.round_id != round_record.round_id
            ):
                raise ValueError(
                    f"match {match.match_id} between {', '.join(match.player_ids)} "
                    "is not in the schedule its players make"
                )
    return LoadedSchedule(status, players, rounds, schedule, int(size))


def read_journal(
    path: Path,
) -> tuple[list[tuple[dict[str, Any], ResultRecord]], list[BadLine]]:
    """The journal's results (each with its record as written) and its damaged lines.

    Raises:
        StoreError: every line is damaged: there is nothing to recover from.
    """
    records, damage = Journal.scan(path)
    results: list[tuple[dict[str, Any], ResultRecord]] = []
    for number, record in records:
        try:
            results.append((record, ResultRecord.from_line(record)))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "record"
            damage.append(BadLine(number, f"is not a result ({where}: {first['msg']})"))
    damage.sort(key=lambda bad: bad.number)
    if damage and not results:
        raise StoreError(
            f"cannot start: no line of {path} is a result (line "
            f"{damage[0].number} {damage[0].problem}); {RECOVERY_HINT}"
        )
    return results, damage


def check_results_fit(
    results: list[ResultRecord],
    match_of: Callable[[str], MatchProgress | None],
    journal_path: Path | str,
    rounds_path: Path,
) -> None:
    """Every journaled result is of a scheduled match and between its players: files
    of another league, or a schedule made again from changed settings, never mix."""
    for result in results:
        match = match_of(result.match_id)
        if match is None or set(result.outcomes) != set(match.player_ids):
            scheduled = (
                "is not scheduled"
                if match is None
                else (f"is scheduled between {', '.join(match.player_ids)}")
            )
            raise StoreError(
                f"cannot start: {journal_path} records {result.match_id} between "
                f"{', '.join(result.outcomes)} but {result.match_id} {scheduled} in "
                f"{rounds_path}: the files do not belong together; {RECOVERY_HINT}"
            )
