"""Standings: outcomes of a reported result, points from the league's scoring, and the ranking.

Ranking (deterministic): points, then wins, then head-to-head points among the players still
tied, then fewer technical losses, then registration order. The public text's "draw
difference" is ambiguous; head-to-head is what leagues usually mean by the next tie-break.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

from sdk.config import ScoringConfig
from sdk.messages import MatchResult

__all__ = ["Outcome", "PlayerRecord", "StandingsTable", "outcomes_of"]

Outcome = Literal["WIN", "DRAW", "LOSS", "TECHNICAL_LOSS"]


class PlayerRecord(BaseModel):
    player_id: str
    display_name: str = ""
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    technical_losses: int = 0
    points: float = 0


def outcomes_of(result: MatchResult, player_a: str, player_b: str) -> dict[str, Outcome]:
    """Each player's outcome from a reported result.

    A technical loss gives the opponent the win; both faulty is a technical loss for both.

    Raises:
        ValueError: the winner or a technical loser is not one of the two players.
    """
    players = (player_a, player_b)
    if result.winner is not None and result.winner not in players:
        raise ValueError(f"winner {result.winner!r} is not a player of this match")
    raw_losers = result.details.get("technical_losers") or []
    if not isinstance(raw_losers, list) or any(p not in players for p in raw_losers):
        raise ValueError("details.technical_losers must list players of this match")
    losers = set(raw_losers)
    winner = result.winner
    if winner is None and len(losers) == 1:
        winner = player_b if player_a in losers else player_a
    outcomes: dict[str, Outcome] = {}
    for player in players:
        if player in losers:
            outcomes[player] = "TECHNICAL_LOSS"
        elif winner is None:
            outcomes[player] = "DRAW"
        else:
            outcomes[player] = "WIN" if player == winner else "LOSS"
    return outcomes


class StandingsTable:
    """Every player's record, kept up to date one result at a time."""

    def __init__(self, players: Iterable[tuple[str, str]], scoring: ScoringConfig):
        self._scoring = scoring
        self._records: dict[str, PlayerRecord] = {}
        self._order: dict[str, int] = {}
        for index, (player_id, display_name) in enumerate(players):
            self._records[player_id] = PlayerRecord(player_id=player_id, display_name=display_name)
            self._order[player_id] = index
        self._head_to_head: dict[tuple[str, str], float] = defaultdict(float)

    def points_for(self, outcome: Outcome) -> float:
        return {
            "WIN": self._scoring.win,
            "DRAW": self._scoring.draw,
            "LOSS": self._scoring.loss,
            "TECHNICAL_LOSS": self._scoring.technical_loss,
        }[outcome]

    def apply(self, outcomes: dict[str, Outcome]) -> dict[str, float]:
        """Count one match; returns the points each player earned in it."""
        earned: dict[str, float] = {}
        for player_id, outcome in outcomes.items():
            record = self._records[player_id]
            points = self.points_for(outcome)
            record.played += 1
            record.points += points
            if outcome == "WIN":
                record.wins += 1
            elif outcome == "DRAW":
                record.draws += 1
            else:
                record.losses += 1
                if outcome == "TECHNICAL_LOSS":
                    record.technical_losses += 1
            earned[player_id] = points
        first, second = outcomes
        self._head_to_head[(first, second)] += earned[first]
        self._head_to_head[(second, first)] += earned[second]
        return earned

    def record(self, player_id: str) -> PlayerRecord:
        return self._records[player_id]

    def ranked(self) -> list[tuple[int, PlayerRecord]]:
        """(rank, record) pairs, best first; ranks are 1..n with no shared rank."""
        by_score: dict[tuple[float, int], list[str]] = defaultdict(list)
        for player_id, record in self._records.items():
            by_score[(record.points, record.wins)].append(player_id)
        ordered: list[str] = []
        for key in sorted(by_score, reverse=True):
            tied = by_score[key]
            ordered.extend(sorted(tied, key=lambda p, group=tied: self._tie_key(p, group)))
        return [(rank, self._records[p]) for rank, p in enumerate(ordered, start=1)]

    def _tie_key(self, player_id: str, group: list[str]) -> tuple[float, int, int]:
        head_to_head = sum(self._head_to_head[(player_id, other)] for other in group)
        return (-head_to_head, self._records[player_id].technical_losses, self._order[player_id])
