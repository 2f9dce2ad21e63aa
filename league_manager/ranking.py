"""The ranked standings of a league, ranked again only as often as a small share of the
process's time allows: re-ranking thousands of players on every query would make queries
cost O(n log n) per result. A ranking's ``version`` is the number of results it counts."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from league_manager.standings import StandingsTable
from sdk.store import StoreError, quarantine, read_json

__all__ = ["Ranking", "RankingCache", "refresh_standings_file"]

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


def refresh_standings_file(
    path: Path,
    expected: dict[str, Any],
    write: Callable[..., Any],
    note: Callable[[str], None],
) -> None:
    """standings.json is a snapshot of the journal: written again whenever it differs
    (it lags after a crash between rounds: normal), noted when it was damaged.
    ``write(keep_backup=...)`` writes it from ``expected``."""
    problem: str | None
    try:
        on_disk = read_json(path)
    except FileNotFoundError:
        note(f"{path} was missing; written again from the journal")
        write(keep_backup=False)
        return
    except StoreError as exc:
        on_disk, problem = None, str(exc)
    else:
        fields = isinstance(on_disk, dict) and set(expected) <= set(on_disk)
        problem = None if fields else (f"{path} does not hold standings")
    if problem is None:
        if all(on_disk.get(key) == value for key, value in expected.items()):
            return
        if on_disk.get("version") == expected["version"]:
            problem = f"{path} disagrees with the journal"
        else:
            write(keep_backup=True)  # lagging a crash behind: normal
            return
    note(
        f"{problem}; kept it as {quarantine(path).name} and wrote "
        "the standings again from the journal"
    )
    write(keep_backup=False)
