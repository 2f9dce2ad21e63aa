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
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from pydantic import BaseModel

__all__ = [
    "CircleSchedule",
    "ListedSchedule",
    "Schedule",
    "ScheduledMatch",
    "ScheduledRound",
    "default_group_rounds",
    "group_rounds",
    "make_schedule",
    "parse_match_id",
    "round_robin",
]


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
        raise ValueError(
            f"a match of {size} players needs at least {size} players, got {len(player_ids)}"
        )
    if len(set(player_ids)) != len(player_ids):
        raise ValueError("a player is listed twice; every player must be distinct")


class Schedule(ABC):
    """A league's whole schedule, asked one round or one match at a time: a round robin of
    n players has n(n−1)/2 matches, so nothing here lists them all unless asked to."""

    total_rounds: int
    total_matches: int

    @abstractmethod
    def round(self, round_id: int) -> ScheduledRound:
        """Round ``round_id`` (1-based) with its matches and byes."""

    @abstractmethod
    def match(self, match_id: str) -> ScheduledMatch | None:
        """The scheduled match with this id, or None when there is none."""

    @abstractmethod
    def match_of(self, player_id: str, round_id: int) -> ScheduledMatch | None:
        """``player_id``'s match in round ``round_id``, or None (a bye, or not a player)."""

    @abstractmethod
    def matches_in(self, round_id: int) -> int:
        """How many matches round ``round_id`` has."""

    @abstractmethod
    def byes(self, round_id: int) -> list[str]:
        """Who sits round ``round_id`` out."""

    def rounds(self) -> list[ScheduledRound]:
        """Every round, listed (O(matches): for small leagues and tests)."""
        return [self.round(round_id) for round_id in range(1, self.total_rounds + 1)]


_MATCH_ID = re.compile(r"R([1-9][0-9]{0,8})M([1-9][0-9]{0,8})")


def parse_match_id(match_id: str) -> tuple[int, int] | None:
    """(round, match number) of ``R<round>M<match>``, or None for any other text."""
    found = _MATCH_ID.fullmatch(match_id)
    return (int(found[1]), int(found[2])) if found else None


class CircleSchedule(Schedule):
    """The two-player round robin by the circle method, computed on demand in O(1) per match
    and O(n) per round from the players' order alone (O(n) memory whatever the league's size).

    Seats 0..N−1 (N even: a bye seat takes seat 0 when n is odd); seat 0 stays, the others
    rotate one place each round, and round i pairs seat k with seat N−1−k. The fixed seat
    alternates roles by round, the others by position, which balances roles."""

    def __init__(self, player_ids: Sequence[str]):
        if len(player_ids) < 2:
            raise ValueError(f"a round robin needs at least two players, got {len(player_ids)}")
        _check(player_ids, 2)
        self._odd = len(player_ids) % 2
        self._seats: list[str | None] = [None] * self._odd + list(player_ids)
        self._seat_of = {player: seat for seat, player in enumerate(self._seats) if player}
        self._n = len(self._seats)
        self.total_rounds = self._n - 1
        self.per_round = self._n // 2 - self._odd
        self.total_matches = len(player_ids) * (len(player_ids) - 1) // 2

    def _at(self, index: int, position: int) -> str | None:
        """Who sits at ``position`` in round ``index`` (0-based)."""
        if position == 0:
            return self._seats[0]
        return self._seats[1 + (position - 1 - index) % (self._n - 1)]

    def _pair(self, index: int, k: int) -> ScheduledMatch:
        first, second = self._at(index, k), self._at(index, self._n - 1 - k)
        assert first is not None and second is not None  # k >= self._odd: no bye seat
        home_first = index % 2 == 0 if k == 0 else k % 2 == 1
        round_id = index + 1
        return ScheduledMatch(
            match_id=f"R{round_id}M{k + 1 - self._odd}",
            round_id=round_id,
            player_ids=[first, second] if home_first else [second, first],
        )

    def _check_round(self, round_id: int) -> None:
        if not 1 <= round_id <= self.total_rounds:
            raise ValueError(f"round {round_id} is not between 1 and {self.total_rounds}")

    def round(self, round_id: int) -> ScheduledRound:
        return ScheduledRound(
            round_id=round_id,
            byes=self.byes(round_id),
            matches=[self._pair(round_id - 1, k) for k in range(self._odd, self._n // 2)],
        )

    def matches_in(self, round_id: int) -> int:
        self._check_round(round_id)
        return self.per_round

    def byes(self, round_id: int) -> list[str]:
        self._check_round(round_id)
        bye = self._at(round_id - 1, self._n - 1) if self._odd else None
        return [bye] if bye else []

    def match(self, match_id: str) -> ScheduledMatch | None:
        parsed = parse_match_id(match_id)
        if (
            parsed is None
            or not 1 <= parsed[0] <= self.total_rounds
            or not 1 <= parsed[1] <= self.per_round
        ):
            return None
        return self._pair(parsed[0] - 1, parsed[1] - 1 + self._odd)

    def match_of(self, player_id: str, round_id: int) -> ScheduledMatch | None:
        self._check_round(round_id)
        seat = self._seat_of.get(player_id)
        if seat is None:
            return None
        index = round_id - 1
        position = 0 if seat == 0 else 1 + (seat - 1 + index) % (self._n - 1)
        k = min(position, self._n - 1 - position)
        return None if k < self._odd else self._pair(index, k)


class ListedSchedule(Schedule):
    """A schedule made in full up front (the greedy group schedules), indexed for lookups."""

    def __init__(self, rounds: list[ScheduledRound]):
        self._rounds = rounds
        self._matches = {m.match_id: m for r in rounds for m in r.matches}
        self._by_player = {(p, m.round_id): m for m in self._matches.values() for p in m.player_ids}
        self.total_rounds = len(rounds)
        self.total_matches = len(self._matches)

    def round(self, round_id: int) -> ScheduledRound:
        if not 1 <= round_id <= self.total_rounds:
            raise ValueError(f"round {round_id} is not between 1 and {self.total_rounds}")
        return self._rounds[round_id - 1]

    def match(self, match_id: str) -> ScheduledMatch | None:
        return self._matches.get(match_id)

    def match_of(self, player_id: str, round_id: int) -> ScheduledMatch | None:
        return self._by_player.get((player_id, round_id))

    def matches_in(self, round_id: int) -> int:
        return len(self.round(round_id).matches)

    def byes(self, round_id: int) -> list[str]:
        return list(self.round(round_id).byes)


def make_schedule(
    player_ids: Sequence[str], players_per_match: int = 2, rounds: int | None = None
) -> Schedule:
    """The league's schedule: a round robin of two-player matches, or ``rounds`` rounds of
    matches of ``players_per_match`` (both deterministic in the players' order).

    Raises:
        ValueError: as ``round_robin`` and ``group_rounds``.
    """
    if players_per_match == 2:
        return CircleSchedule(player_ids)
    return ListedSchedule(group_rounds(player_ids, players_per_match, rounds))


def round_robin(player_ids: Sequence[str]) -> list[ScheduledRound]:
    """The whole two-player schedule for ``player_ids`` in their given (registration) order.

    Raises:
        ValueError: fewer than two players, or a player listed twice.
    """
    return CircleSchedule(player_ids).rounds()


def default_group_rounds(players: int, size: int) -> int:
    """Rounds enough for every player to be able to meet every other once."""
    return max(1, math.ceil((players - 1) / (size - 1)))


def group_rounds(
    player_ids: Sequence[str], size: int, rounds: int | None = None
) -> list[ScheduledRound]:
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
                group.append(free.pop(_least_met(free, group, met)))
            seated = _seat(group, seat_counts, order)
            for first, second in combinations(seated, 2):
                met[_pair(first, second)] += 1
            matches.append(
                ScheduledMatch(
                    match_id=f"R{round_id}M{len(matches) + 1}", round_id=round_id, player_ids=seated
                )
            )
        sat_out.update(byes)
        schedule.append(ScheduledRound(round_id=round_id, matches=matches, byes=byes))
    return schedule


def _least_met(free: list[str], group: list[str], met: Counter[tuple[str, str]]) -> int:
    """The index in ``free`` of the player who has met ``group`` least (the first on a tie)."""
    return min(range(len(free)), key=lambda i: (sum(met[_pair(free[i], q)] for q in group), i))


def _pair(first: str, second: str) -> tuple[str, str]:
    return (first, second) if first < second else (second, first)


def _seat(
    group: list[str], seat_counts: dict[str, Counter[int]], order: dict[str, int]
) -> list[str]:
    """Seat a group so that each player lands on a seat it holds less than its share of:
    the (player, seat) pairs are taken greedily, furthest below the share first; records
    the seats taken."""
    size = len(group)
    pairs = sorted(
        (seat_counts[p][seat] * size - sum(seat_counts[p].values()), order[p], seat, p)
        for p in group
        for seat in range(size)
    )
    seated: dict[int, str] = {}
    for *_, seat, player in pairs:
        if seat not in seated and player not in seated.values():
            seated[seat] = player
            seat_counts[player][seat] += 1
    return [seated[seat] for seat in range(size)]
