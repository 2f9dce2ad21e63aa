"""Round-robin schedule by the circle method.

n players (a bye added for odd n) play n−1 rounds (n rounds for odd n); each pair meets once,
nobody plays twice in a round, and roles alternate so that every player is PLAYER_A in half
of its matches (one more or less when it plays an odd number). Match ids are ``R<round>M<match>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

__all__ = ["ScheduledMatch", "ScheduledRound", "round_robin"]


class ScheduledMatch(BaseModel):
    match_id: str
    round_id: int
    player_A_id: str
    player_B_id: str


class ScheduledRound(BaseModel):
    round_id: int
    matches: list[ScheduledMatch]
    bye: str | None = None


def round_robin(player_ids: Sequence[str]) -> list[ScheduledRound]:
    """The whole schedule for ``player_ids`` in their given (registration) order.

    Raises:
        ValueError: fewer than two players, or a player listed twice.
    """
    if len(player_ids) < 2:
        raise ValueError(f"a round robin needs at least two players, got {len(player_ids)}")
    if len(set(player_ids)) != len(player_ids):
        raise ValueError("a player is listed twice; every player must be distinct")
    seats: list[str | None] = list(player_ids)
    if len(seats) % 2:
        seats.insert(0, None)  # the bye takes the fixed seat: the others rotate past it
    n = len(seats)
    rounds: list[ScheduledRound] = []
    for index in range(n - 1):
        round_id = index + 1
        pairs: list[tuple[str | None, str | None]] = []
        for k in range(n // 2):
            first, second = seats[k], seats[n - 1 - k]
            # The fixed seat alternates by round; the others by position, which balances roles.
            home_first = index % 2 == 0 if k == 0 else k % 2 == 1
            pairs.append((first, second) if home_first else (second, first))
        matches: list[ScheduledMatch] = []
        bye = None
        for home, away in pairs:
            if home is None or away is None:
                bye = home or away
                continue
            matches.append(ScheduledMatch(
                match_id=f"R{round_id}M{len(matches) + 1}", round_id=round_id,
                player_A_id=home, player_B_id=away,
            ))
        rounds.append(ScheduledRound(round_id=round_id, matches=matches, bye=bye))
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds
