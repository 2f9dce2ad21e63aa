"""Standings: outcomes of a reported result, points from the league's scoring, and the ranking.

Ranking (deterministic): points, then wins, then head-to-head points among the players still
tied, then fewer technical losses, then registration order. The public text's "draw
difference" is ambiguous; head-to-head is what leagues usually mean by the next tie-break.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import partial

from pydantic import BaseModel

from sdk.config import ScoringConfig
from sdk.messages import MatchResult, Outcome, outcome_of

__all__ = ["PlayerRecord", "StandingsTable", "outcomes_of"]


class PlayerRecord(BaseModel):
    player_id: str
    display_name: str = ""
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    technical_losses: int = 0
    points: float = 0


def outcomes_of(result: MatchResult, players: Sequence[str]) -> dict[str, Outcome]:
    """Each player's outcome from a reported result.

    The technical losers lose; a named winner wins and the other sound players lose. With no
    winner, a single sound player wins (a technical loss gives the opponent the win); among
    several, those with the best payoff in ``details.payoffs`` draw and the others lose, and
    without payoffs they all draw.

    Raises:
        ValueError: the winner, a technical loser or a payoff names someone who is not a
            player of this match, or a payoff is not a number.
    """
    if result.winner is not None and result.winner not in players:
        raise ValueError(f"winner {result.winner!r} is not a player of this match")
    raw_losers = result.details.get("technical_losers") or []
    if not isinstance(raw_losers, list) or any(p not in players for p in raw_losers):
        raise ValueError("details.technical_losers must list players of this match")
    losers = set(raw_losers)
    sound = [player for player in players if player not in losers]
    winner = result.winner
    if winner is None and len(sound) == 1 and losers:
        winner = sound[0]
    leaders = set(sound) if winner is None else {winner}
    payoffs = result.details.get("payoffs")
    if winner is None and payoffs is not None:
        best = _best_payoff(payoffs, players, sound)
        leaders = {player for player in sound if payoffs[player] == best}
    return {
        player: outcome_of(player, winner=winner, technical_losers=losers, drew=player in leaders)
        for player in players
    }


def _best_payoff(payoffs: object, players: Sequence[str], sound: list[str]) -> float:
    if (
        not isinstance(payoffs, dict)
        or not set(payoffs) <= set(players)
        or not set(sound) <= set(payoffs)
        or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in payoffs.values()
        )
    ):
        raise ValueError("details.payoffs must map each player of this match to a number")
    return max(float(payoffs[player]) for player in sound)


class StandingsTable:
    """Every player's record, kept up to date one result at a time."""

    def __init__(self, players: Iterable[tuple[str, str]], scoring: ScoringConfig):
        self._scoring = scoring
        self._records: dict[str, PlayerRecord] = {}
        self._order: dict[str, int] = {}
        for index, (player_id, display_name) in enumerate(players):
            self._records[player_id] = PlayerRecord(player_id=player_id, display_name=display_name)
            self._order[player_id] = index
        self._head_to_head: dict[str, dict[str, float]] = defaultdict(dict)
        """Points each player took from each opponent it met (O(results) in all)."""

    @classmethod
    def of_records(
        cls,
        players: Iterable[tuple[str, str]],
        scoring: ScoringConfig,
        records: Iterable[PlayerRecord],
    ) -> StandingsTable:
        """A table of records counted elsewhere (a store's query over its results), with no
        head-to-head points yet (``met``); records of players not in ``players`` are left
        out, their names are the players'."""
        table = cls(players, scoring)
        for record in records:
            if (known := table._records.get(record.player_id)) is not None:
                table._records[record.player_id] = record.model_copy(
                    update={"display_name": known.display_name}
                )
        return table

    def met(self, player_id: str, other: str, points: float) -> None:
        """The points ``player_id`` took from ``other`` in all their matches (for a table
        of records counted elsewhere: only the tied players' are needed to rank it)."""
        self._head_to_head[player_id][other] = points

    def tied(self) -> set[str]:
        """The players whose points and wins another player has too: only their
        head-to-head points decide ranks."""
        groups = self._by_score().values()
        return {player_id for tied in groups if len(tied) > 1 for player_id in tied}

    def points_for(self, outcome: Outcome) -> float:
        return self._scoring.points(outcome)

    def apply(self, outcomes: dict[str, Outcome], times: int = 1) -> dict[str, float]:
        """Count one match (``times=-1``: take back one counted before, which another
        League Manager's result of it replaces); returns the points each player earned in
        it."""
        earned: dict[str, float] = {}
        for player_id, outcome in outcomes.items():
            record = self._records[player_id]
            points = self.points_for(outcome)
            record.played += times
            record.points += times * points
            if outcome == "WIN":
                record.wins += times
            elif outcome == "DRAW":
                record.draws += times
            else:
                record.losses += times
                if outcome == "TECHNICAL_LOSS":
                    record.technical_losses += times
            earned[player_id] = points
        for player_id in outcomes:
            taken = self._head_to_head[player_id]
            for other in outcomes:
                if other != player_id:
                    taken[other] = taken.get(other, 0.0) + times * earned[player_id]
        return earned

    def record(self, player_id: str) -> PlayerRecord:
        return self._records[player_id]

    def ranked(self) -> list[tuple[int, PlayerRecord]]:
        """(rank, record) pairs, best first; ranks are 1..n with no shared rank."""
        by_score = self._by_score()
        ordered: list[str] = []
        for key in sorted(by_score, reverse=True):
            tied = by_score[key]
            group = set(tied) if len(tied) > 1 else set()
            ordered.extend(sorted(tied, key=partial(self._tie_key, group=group)))
        return [(rank, self._records[p]) for rank, p in enumerate(ordered, start=1)]

    def _by_score(self) -> dict[tuple[float, int], list[str]]:
        """The players by (points, wins)."""
        by_score: dict[tuple[float, int], list[str]] = defaultdict(list)
        for player_id, record in self._records.items():
            by_score[(record.points, record.wins)].append(player_id)
        return by_score

    def _tie_key(self, player_id: str, group: set[str]) -> tuple[float, int, int]:
        """Head-to-head points against the others tied (summed over the opponents met, the
        smaller side: a big tie early in a league costs O(results), not O(tied²))."""
        taken = self._head_to_head.get(player_id, {})
        if len(taken) <= len(group):
            head_to_head = sum(points for other, points in taken.items() if other in group)
        else:
            head_to_head = sum(taken.get(other, 0.0) for other in group)
        return (-head_to_head, self._records[player_id].technical_losses, self._order[player_id])
