from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league_manager.scheduler import default_group_rounds, group_rounds, round_robin


def ids(n: int) -> list[str]:
    return [f"P{i:02d}" for i in range(1, n + 1)]


@given(st.integers(min_value=2, max_value=60))
def test_every_pair_meets_exactly_once(n: int) -> None:
    rounds = round_robin(ids(n))
    pairs = [frozenset((m.player_A_id, m.player_B_id)) for r in rounds for m in r.matches]
    assert len(pairs) == n * (n - 1) // 2, f"{n} players should play {n * (n - 1) // 2} matches"
    assert len(set(pairs)) == len(pairs), "a pair met twice"


@given(st.integers(min_value=2, max_value=60))
def test_round_count_and_one_match_per_player_per_round(n: int) -> None:
    rounds = round_robin(ids(n))
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    for r in rounds:
        seated = [p for m in r.matches for p in (m.player_A_id, m.player_B_id)]
        assert len(seated) == len(set(seated)), f"a player plays twice in round {r.round_id}"
        assert len(r.byes) == n % 2, "a bye exactly when n is odd"
        assert not set(r.byes) & set(seated)


@given(st.integers(min_value=3, max_value=61).filter(lambda n: n % 2 == 1))
def test_odd_count_each_player_sits_out_once(n: int) -> None:
    byes = Counter(bye for r in round_robin(ids(n)) for bye in r.byes)
    assert set(byes) == set(ids(n)) and set(byes.values()) == {1}


@given(st.integers(min_value=2, max_value=60))
def test_roles_are_balanced(n: int) -> None:
    rounds = round_robin(ids(n))
    as_a = Counter(m.player_A_id for r in rounds for m in r.matches)
    as_b = Counter(m.player_B_id for r in rounds for m in r.matches)
    for player in ids(n):
        difference = abs(as_a[player] - as_b[player])
        assert difference <= 1, f"{player}: A {as_a[player]}, B {as_b[player]}"


def test_match_ids_follow_the_protocol() -> None:
    rounds = round_robin(ids(4))
    assert [m.match_id for m in rounds[0].matches] == ["R1M1", "R1M2"]
    assert [r.round_id for r in rounds] == [1, 2, 3]
    assert all(m.round_id == r.round_id for r in rounds for m in r.matches)


@pytest.mark.parametrize(
    "players,message",
    [
        ([], "at least two"),
        (["P01"], "at least two"),
        (["P01", "P01"], "listed twice"),
    ],
)
def test_bad_input_is_refused_with_a_sentence(players: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        round_robin(players)


sizes = st.integers(min_value=3, max_value=6).flatmap(
    lambda k: st.tuples(st.just(k), st.integers(min_value=k, max_value=40))
)


@given(sizes)
def test_groups_fill_every_round_and_seat_everyone_once(size_and_n: tuple[int, int]) -> None:
    size, n = size_and_n
    rounds = group_rounds(ids(n), size)
    assert len(rounds) == default_group_rounds(n, size)
    for r in rounds:
        seated = [p for m in r.matches for p in m.player_ids]
        assert all(len(m.player_ids) == size for m in r.matches)
        assert len(seated) == len(set(seated)), f"a player plays twice in round {r.round_id}"
        assert sorted(seated + r.byes) == ids(n), "everyone plays or sits out"
        assert len(r.byes) == n % size
        assert [m.match_id for m in r.matches] == [
            f"R{r.round_id}M{i + 1}" for i in range(len(r.matches))
        ]


@given(sizes, st.integers(min_value=1, max_value=12))
def test_byes_and_seats_are_shared_evenly(size_and_n: tuple[int, int], total: int) -> None:
    size, n = size_and_n
    rounds = group_rounds(ids(n), size, total)
    byes = Counter(bye for r in rounds for bye in r.byes)
    assert max(byes[p] for p in ids(n)) - min(byes[p] for p in ids(n)) <= 1
    played = Counter(p for r in rounds for m in r.matches for p in m.player_ids)
    for seat in range(size):  # seats go least used first: near a fair share, never far off
        taken = Counter(m.player_ids[seat] for r in rounds for m in r.matches)
        for player in ids(n):
            assert taken[player] <= -(-played[player] // size) + 3, (player, seat)


def test_groups_spread_meetings_before_repeating_them() -> None:
    rounds = group_rounds(ids(9), 3)  # a resolvable design exists: greedy finds every pair once
    met = Counter(
        frozenset(pair) for r in rounds for m in r.matches for pair in combinations(m.player_ids, 2)
    )
    assert len(met) == 36 and set(met.values()) == {1}


@pytest.mark.parametrize(
    "players,size,total,message",
    [
        (["P01", "P02"], 3, None, "at least 3 players"),
        (["P01", "P02", "P02"], 3, None, "listed twice"),
        (ids(6), 1, None, "at least two"),
        (ids(6), 3, 0, "at least one round"),
    ],
)
def test_bad_group_input_is_refused_with_a_sentence(
    players: list[str], size: int, total: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        group_rounds(players, size, total)
