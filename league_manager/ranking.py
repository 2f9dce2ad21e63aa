"""The ranked standings of a league, ranked again only as often as a small share of the
process's time allows: re-ranking thousands of players on every query would make queries
cost O(n log n) per result. A ranking's ``version`` is the number of results it counts."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from league_manager.standings import StandingsTable

__all__ = ["Ranking", "RankingCache"]

_RANKING_SHARE = 0.1
"""Standings asked for while results arrive are ranked again only once the time since the
last ranking is 1/_RANKING_SHARE times what that ranking took: re-ranking thousands of
players on every query would make queries cost O(n log n) per result."""


@dataclass
class Ranking:
    key: tuple[int, int]
    """(results counted, rounds completed) when it was ranked."""
    document: dict[str, Any]
    ranks: dict[str, int]
    at: float
    cost: float


class RankingCache:
    """The latest ranking of one league's standings table."""

    def __init__(self, league_id: str):
        self._league_id = league_id
        self._ranked: Ranking | None = None

    def clear(self) -> None:
        self._ranked = None

    def ranking(
        self,
        table: StandingsTable,
        *,
        version: int,
        rounds_completed: int,
        total_matches: int,
        fresh: bool,
    ) -> Ranking:
        """The ranked standings; unless ``fresh``, one up to a few rankings' time old."""
        ranked, key = self._ranked, (version, rounds_completed)
        if ranked is not None and (
            ranked.key == key
            or (not fresh and time.monotonic() - ranked.at < ranked.cost / _RANKING_SHARE)
        ):
            return ranked
        started = time.monotonic()
        rows: list[dict[str, Any]] = [
            {
                "rank": rank,
                "player_id": r.player_id,
                "display_name": r.display_name,
                "played": r.played,
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
                "points": r.points,
                "technical_losses": r.technical_losses,
            }
            for rank, r in table.ranked()
        ]
        document = {
            "league_id": self._league_id,
            "version": version,
            "rounds_completed": rounds_completed,
            "matches_completed": version,
            "total_matches": total_matches,
            "standings": rows,
        }
        now = time.monotonic()
        self._ranked = Ranking(
            key,
            document,
            {row["player_id"]: row["rank"] for row in rows},
            at=now,
            cost=now - started,
        )
        return self._ranked
