"""Schedules: a round robin of two-player matches by the circle method, and rounds of
matches of more players (groups) for games that need them.

Two players: n players (a bye added for odd n) play n−1 rounds (n rounds for odd n); each
pair meets once, nobody plays twice in a round, and roles alternate so that every player is
PLAYER_A in half of its matches (one more or less when it plays an odd number).

Groups of k: every round splits the players into groups of k, the n mod k left over sitting
out (byes go to those who sat out least). Each group is built greedily from players who met
least so far, so meetings spread before they repeat; by default there are enough rounds,
⌈(n−1)/(k−1)⌉, for every player to be able to meet every other once (a greedy schedule
does not always manage it). Seats go to the players who have had them least, so each
player takes each seat about equally often.

Match ids are ``R<round>M<match>``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from pydantic import BaseModel

__all__ = ["ScheduledMatch", "ScheduledRound", "default_group_rounds", "group_rounds",
           "round_robin"]


class ScheduledMatch(BaseModel):
    match_id: str
    round_id: int
    player_ids: list[str]
    """Every player in seat order: PLAYER_A, PLAYER_B, then PLAYER_C, ..."""

    @property
    def player_A_id(self) -> str:  # noqa: N802 - the protocol's field name
        return self.player_ids[0]

    @property
    def player_B_id(self) -> str:  # noqa: N802 - the protocol's field name
        return self.player_ids[1]


class ScheduledRound(BaseModel):
    round_id: int
    matches: list[ScheduledMatch]
    byes: list[str] = []
    """Who sits this round out."""


def _check(player_ids: Sequence[str], size: int) -> None:
    if len(player_ids) < size:
        raise ValueError(f"a match of {size} players needs at least {size} players, "
                         f"got {len(player_ids)}")
    if len(set(player_ids)) != len(player_ids):
        raise ValueError("a player is listed twice; every player must be distinct")


def round_robin(player_ids: Sequence[str]) -> list[ScheduledRound]:
    """The whole two-player schedule for ``player_ids`` in their given (registration) order.

    Raises:
        ValueError: fewer than two players, or a player listed twice.
    """
    if len(player_ids) < 2:
        raise ValueError(f"a round robin needs at least two players, got {len(player_ids)}")
    _check(player_ids, 2)
    seats: list[str | None] = list(player_ids)
    if len(seats) % 2:
        seats.insert(0, None)  # the bye takes the fixed seat: the others rotate past it
    n = len(seats)
    rounds: list[ScheduledRound] = []
    for index in range(n - 1):
        round_id = index + 1
        matches: list[ScheduledMatch] = []
        byes: list[str] = []
        for k in range(n // 2):
            first, second = seats[k], seats[n - 1 - k]
            if first is None or second is None:
                byes.append(first or second or "")
                continue
            # The fixed seat alternates by round; the others by position, which balances roles.
            home_first = index % 2 == 0 if k == 0 else k % 2 == 1
            pair = [first, second] if home_first else [second, first]
            matches.append(ScheduledMatch(match_id=f"R{round_id}M{len(matches) + 1}",
                                          round_id=round_id, player_ids=pair))
        rounds.append(ScheduledRound(round_id=round_id, matches=matches, byes=byes))
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


def default_group_rounds(players: int, size: int) -> int:
    """Rounds enough for every player to be able to meet every other once."""
    return max(1, math.ceil((players - 1) / (size - 1)))


def group_rounds(player_ids: Sequence[str], size: int,
                 rounds: int | None = None) -> list[ScheduledRound]:
    """Rounds of matches of ``size`` players each (see the module's docstring).

    Raises:
        ValueError: a size below 2, fewer players than one match needs, a player listed
            twice, or fewer than one round.
    """
    if size < 2:
        raise ValueError(f"a match needs at least two players, not {size}")
    _check(player_ids, size)
    total = default_group_rounds(len(player_ids), size) if rounds is None else rounds
    if total < 1:
        raise ValueError(f"a schedule needs at least one round, not {total}")
    order = {player: index for index, player in enumerate(player_ids)}
    met: Counter[tuple[str, str]] = Counter()
    sat_out: Counter[str] = Counter()
    seat_counts: dict[str, Counter[int]] = {player: Counter() for player in player_ids}
    schedule: list[ScheduledRound] = []
    for round_id in range(1, total + 1):
        shift = (round_id - 1) % len(player_ids)
        rotated = [*player_ids[shift:], *player_ids[:shift]]
        # Those who sat out least sit out now; the rotation breaks ties fairly.
        spare = len(player_ids) % size
        byes = sorted(rotated, key=lambda p: sat_out[p])[:spare] if spare else []
        free = [player for player in rotated if player not in byes]
        matches: list[ScheduledMatch] = []
        while free:
            group = [free.pop(0)]
            while len(group) < size:
                best = min(range(len(free)), key=lambda i, g=group: (
                    sum(met[_pair(free[i], q)] for q in g), i))
                group.append(free.pop(best))
            seated = _seat(group, seat_counts, order)
            for first, second in combinations(seated, 2):
                met[_pair(first, second)] += 1
            matches.append(ScheduledMatch(match_id=f"R{round_id}M{len(matches) + 1}",
                                          round_id=round_id, player_ids=seated))
        sat_out.update(byes)
        schedule.append(ScheduledRound(round_id=round_id, matches=matches, byes=byes))
    return schedule


def _pair(first: str, second: str) -> tuple[str, str]:
    return (first, second) if first < second else (second, first)


def _seat(group: list[str], seat_counts: dict[str, Counter[int]],
          order: dict[str, int]) -> list[str]:
    """Seat a group so that each player lands on a seat it holds less than its share of:
    the (player, seat) pairs are taken greedily, furthest below the share first; records
    the seats taken."""
    size = len(group)
    pairs = sorted((seat_counts[p][seat] * size - sum(seat_counts[p].values()), order[p], seat, p)
                   for p in group for seat in range(size))
    seated: dict[int, str] = {}
    for *_, seat, player in pairs:
        if seat not in seated and player not in seated.values():
            seated[seat] = player
            seat_counts[player][seat] += 1
    return [seated[seat] for seat in range(size)]
