from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league_manager.scheduler import round_robin


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
        assert (r.bye is not None) == (n % 2 == 1), "a bye exactly when n is odd"
        if r.bye:
            assert r.bye not in seated


@given(st.integers(min_value=3, max_value=61).filter(lambda n: n % 2 == 1))
def test_odd_count_each_player_sits_out_once(n: int) -> None:
    byes = Counter(r.bye for r in round_robin(ids(n)))
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


@pytest.mark.parametrize("players,message", [
    ([], "at least two"), (["P01"], "at least two"), (["P01", "P01"], "listed twice"),
])
def test_bad_input_is_refused_with_a_sentence(players: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        round_robin(players)
