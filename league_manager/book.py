"""The League Manager's durable record of one league: the schedule (``rounds.json``), the
results journal (``journal.jsonl``, appended and fsynced before a result is acknowledged)
and the standings (``standings.json``). A restarted League Manager rebuilds everything from
these files; the journal is the truth, the two snapshots are written once per round.

The standings' version counter is the number of results counted, so it grows with every
accepted result and means the same after a restart."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from league_manager.scheduler import round_robin
from league_manager.standings import Outcome, StandingsTable
from sdk.config import ScoringConfig
from sdk.messages import StandingsRow
from sdk.store import Journal, read_json, write_document
from sdk.timeutil import utc_now_str

__all__ = ["LeagueBook", "LeagueStatus", "MatchRecord", "ResultRecord", "RoundRecord"]

MatchStatus = Literal["PENDING", "ASSIGNED", "RUNNING", "COMPLETED"]
RoundStatus = Literal["PENDING", "RUNNING", "COMPLETED"]


class LeagueStatus(str, Enum):
    REGISTRATION = "REGISTRATION"
    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"


class MatchRecord(BaseModel):
    match_id: str
    round_id: int
    player_A_id: str
    player_B_id: str
    referee_id: str | None = None
    referee_endpoint: str | None = None
    status: MatchStatus = "PENDING"
    winner: str | None = None
    attempts: int = 0


class RoundRecord(BaseModel):
    round_id: int
    status: RoundStatus = "PENDING"
    bye: str | None = None
    matches: list[MatchRecord]
    started_at: str | None = None
    completed_at: str | None = None


class ResultRecord(BaseModel):
    """One accepted result, as journaled."""

    match_id: str
    round_id: int
    referee_id: str
    outcomes: dict[str, Outcome]
    points: dict[str, float]
    winner: str | None
    details: dict[str, Any]
    recorded_at: str


class LeagueBook:
    """Schedule, results and standings of one league, in memory and on disk."""

    def __init__(self, league_dir: Path, league_id: str, scoring: ScoringConfig):
        self.league_id = league_id
        self._scoring = scoring
        self._rounds_path = league_dir / "rounds.json"
        self._standings_path = league_dir / "standings.json"
        journal_path = league_dir / "journal.jsonl"
        self.status = LeagueStatus.REGISTRATION
        self.players: list[tuple[str, str]] = []
        self.rounds: list[RoundRecord] = []
        self.matches: dict[str, MatchRecord] = {}
        self.results: dict[str, ResultRecord] = {}
        self.table = StandingsTable([], scoring)
        if self._rounds_path.exists():
            self._load_schedule(read_json(self._rounds_path))
        for raw in Journal.read(journal_path):
            self._apply(ResultRecord.model_validate(raw))
        self._journal = Journal(journal_path)

    def _load_schedule(self, document: dict[str, Any]) -> None:
        self.status = LeagueStatus(document["status"])
        self.players = [(p["player_id"], p["display_name"]) for p in document["players"]]
        self.rounds = [RoundRecord.model_validate(r) for r in document["rounds"]]
        self.matches = {m.match_id: m for r in self.rounds for m in r.matches}
        self.table = StandingsTable(self.players, self._scoring)

    def create_schedule(self, players: list[tuple[str, str]]) -> None:
        """Fix the players and the round-robin schedule (registration closes here)."""
        self.players = list(players)
        plan = round_robin([player_id for player_id, _ in players])
        self.rounds = [
            RoundRecord(round_id=r.round_id, bye=r.bye,
                        matches=[MatchRecord(**m.model_dump()) for m in r.matches])
            for r in plan
        ]
        self.matches = {m.match_id: m for r in self.rounds for m in r.matches}
        self.table = StandingsTable(self.players, self._scoring)
        self.status = LeagueStatus.SCHEDULED
        self.write_rounds()
        self.write_standings()

    @property
    def total_matches(self) -> int:
        return len(self.matches)

    def current_round(self) -> RoundRecord | None:
        """The first round not completed yet."""
        return next((r for r in self.rounds if r.status != "COMPLETED"), None)

    @property
    def standings_version(self) -> int:
        return len(self.results)

    def record(self, result: ResultRecord) -> None:
        """Journal a result (fsynced), then count it; ``write_standings`` snapshots later."""
        self._journal.append(result.model_dump())
        self._apply(result)

    def _apply(self, result: ResultRecord) -> None:
        if result.match_id in self.results:
            return
        self.results[result.match_id] = result
        self.table.apply(result.outcomes)
        match = self.matches.get(result.match_id)
        if match is not None:
            match.status = "COMPLETED"
            match.winner = result.winner

    def standings_rows(self) -> list[StandingsRow]:
        return [
            StandingsRow(rank=rank, player_id=r.player_id, display_name=r.display_name,
                         played=r.played, wins=r.wins, draws=r.draws, losses=r.losses,
                         points=r.points)
            for rank, r in self.table.ranked()
        ]

    def rounds_completed(self) -> int:
        return sum(1 for r in self.rounds if r.status == "COMPLETED")

    def standings_document(self) -> dict[str, Any]:
        return {
            "league_id": self.league_id,
            "version": self.standings_version,
            "rounds_completed": self.rounds_completed(),
            "matches_completed": len(self.results),
            "total_matches": self.total_matches,
            "standings": [
                {**row.model_dump(),
                 "technical_losses": self.table.record(row.player_id).technical_losses}
                for row in self.standings_rows()
            ],
        }

    def write_standings(self) -> dict[str, Any]:
        return write_document(self._standings_path, self.standings_document())

    def schedule_document(self) -> dict[str, Any]:
        return {
            "league_id": self.league_id,
            "status": self.status.value,
            "total_rounds": len(self.rounds),
            "total_matches": self.total_matches,
            "players": [{"player_id": p, "display_name": n} for p, n in self.players],
            "rounds": [r.model_dump() for r in self.rounds],
        }

    def write_rounds(self) -> None:
        write_document(self._rounds_path, self.schedule_document())

    def mark_round(self, round_record: RoundRecord, status: RoundStatus) -> None:
        round_record.status = status
        if status == "RUNNING" and round_record.started_at is None:
            round_record.started_at = utc_now_str()
        if status == "COMPLETED":
            round_record.completed_at = utc_now_str()
        self.write_rounds()

    def close(self) -> None:
        self._journal.close()
