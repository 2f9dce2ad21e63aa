"""Observation strategies (public goods, auctions, Colonel Blotto, congestion; the
ultimatum game, bargaining and tic-tac-toe have their tables in test_offer_strategies.py and
test_tic_tac_toe_strategies.py): expected plays on hand-built observations, legality on
random states of every game, seeded reproducibility, whole episodes, the registry, and the
player host serving them."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pytest

from games import ActionSpace, GameState, load_game
from games.colonel_blotto_equilibrium import payoff_matrix, symmetric_equilibrium
from games.episode import play_episode
from games.strategies import (
    ObservationBaseline,
    UnknownStrategyError,
    baseline_names,
    build_observed,
    observed_game_types,
    observed_strategies_for,
)
from games.strategies.congestion import optimal_loads
from strategies import MoveView, build_strategy
from strategies.baseline import Baseline
from tests.games.observed import Row, check_move, row_id

OBSERVED = [
    (game, name) for game in observed_game_types() for name in observed_strategies_for(game)
]
PIGOU = {"a": [0, 1], "b": [10, 0]}
CONTRIBUTE = ActionSpace.number(0, 20, integer=True)


def goods(
    history: list[dict[str, int]] | None = None,
    endowment: int = 20,
    revealed: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A public goods observation of P1 (seat 0 of four): past rounds' contributions by id,
    and this round's when it is the punishment stage."""
    return {
        "player_id": "P1",
        "seat": 0,
        "players": ["P1", "P2", "P3", "P4"],
        "endowment": endowment,
        "revealed_contributions": revealed,
        "history": [
            {"contributions": c, "punishments": None, "payoffs": {}} for c in history or []
        ],
    }


def others(*contributions: int) -> dict[str, int]:
    return {"P1": 20, **{f"P{i}": c for i, c in enumerate(contributions, start=2)}}


def bidder(value: int) -> dict[str, Any]:
    return {"player_id": "P1", "seat": 0, "private": {"value": value}}


def router(
    seat: int = 0,
    num_players: int = 10,
    loads: list[dict[str, int]] | None = None,
    own: list[str] | None = None,
    routes: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """A congestion observation: past rounds' loads (latencies from the network) and this
    player's own past routes."""
    network = routes or PIGOU
    history = [
        {
            "loads": load,
            "latencies": {
                r: sum(c * n**k for k, c in enumerate(network[r])) for r, n in load.items()
            },
        }
        for load in loads or []
    ]
    return {
        "seat": seat,
        "num_players": num_players,
        "routes": network,
        "history": history,
        "own_choices": own or [],
    }


def routes(network: dict[str, list[float]] | None = None) -> ActionSpace:
    return ActionSpace.of_choices(sorted(network or PIGOU))


# (game, strategy, options, observation, space, expected move)
TABLE: list[Row] = [
    ("public_goods", "full_contributor", {}, goods(), CONTRIBUTE, 20),
    ("public_goods", "free_rider", {}, goods([others(20, 20, 20)]), CONTRIBUTE, 0),
    # Round 1: half the endowment, halves rounded up.
    ("public_goods", "conditional_cooperator", {}, goods(), CONTRIBUTE, 10),
    (
        "public_goods",
        "conditional_cooperator",
        {},
        goods(endowment=5),
        ActionSpace.number(0, 5, integer=True),
        3,
    ),
    # The others' average last round: (10 + 4 + 6) / 3 = 6.67 → 7; its own 20 not counted.
    (
        "public_goods",
        "conditional_cooperator",
        {},
        goods([others(0, 0, 0), others(10, 4, 6)]),
        CONTRIBUTE,
        7,
    ),
    ("public_goods", "conditional_cooperator", {}, goods([others(3, 4, 4)]), CONTRIBUTE, 4),
    ("public_goods", "punisher", {}, goods(), CONTRIBUTE, 20),
    # Punishment stage: the non-punishers leave the budget at their own seat.
    (
        "public_goods",
        "full_contributor",
        {},
        goods(revealed=others(0, 0, 0)),
        ActionSpace.allocation(4, 10),
        [10, 0, 0, 0],
    ),
    (
        "public_goods",
        "punisher",
        {},
        goods(revealed=others(5, 20, 5)),
        ActionSpace.allocation(4, 10),
        [0, 5, 0, 5],
    ),
    (
        "public_goods",
        "punisher",
        {},
        goods(revealed=others(5, 20, 5)),
        ActionSpace.allocation(4, 11),
        [0, 6, 0, 5],
    ),
    (
        "public_goods",
        "punisher",
        {},
        goods(revealed=others(0, 5, 19)),
        ActionSpace.allocation(4, 10),
        [0, 10, 0, 0],
    ),
    (
        "public_goods",
        "punisher",
        {},
        goods(revealed=others(20, 20, 20)),
        ActionSpace.allocation(4, 10),
        [10, 0, 0, 0],
    ),
    (
        "public_goods",
        "punisher",
        {},
        goods(revealed=others(0, 20, 20)),
        ActionSpace.allocation(4, 0),
        [0, 0, 0, 0],
    ),
    (
        "auction_second_price",
        "truthful_bidder",
        {},
        bidder(37),
        ActionSpace.number(0, 100, integer=True),
        37,
    ),
    (
        "auction_first_price",
        "truthful_bidder",
        {},
        bidder(120),
        ActionSpace.number(0, 100, integer=True),
        100,
    ),
    (
        "auction_first_price",
        "shade_50",
        {},
        bidder(37),
        ActionSpace.number(0, 100, integer=True),
        19,
    ),
    ("auction_first_price", "shade_50", {}, bidder(37), ActionSpace.number(0, 100), 18.5),
    ("colonel_blotto", "uniform", {}, {}, ActionSpace.allocation(3, 10), [4, 3, 3]),
    ("colonel_blotto", "uniform", {}, {}, ActionSpace.allocation(5, 5), [1, 1, 1, 1, 1]),
    ("colonel_blotto", "uniform", {}, {}, ActionSpace.allocation(3, 2), [1, 1, 0]),
    # Round 1: the fastest route alone on it (a: 1, b: 10).
    ("congestion", "selfish_router", {}, router(), routes(), "a"),
    # Staying on a costs 10, moving to b costs 10: a tie, to the first by name.
    (
        "congestion",
        "selfish_router",
        {},
        router(loads=[{"a": 10, "b": 0}], own=["a"]),
        routes(),
        "a",
    ),
    (
        "congestion",
        "selfish_router",
        {},
        router(loads=[{"a": 12, "b": 0}], own=["a"]),
        routes(),
        "b",
    ),
    # From b, a would cost its load 5 plus itself: 6 < 10.
    (
        "congestion",
        "selfish_router",
        {},
        router(loads=[{"a": 5, "b": 5}], own=["b"]),
        routes(),
        "a",
    ),
    ("congestion", "social_optimum", {}, router(seat=4), routes(), "a"),
    ("congestion", "social_optimum", {}, router(seat=5), routes(), "b"),
    ("congestion", "social_optimum", {}, router(seat=1, num_players=3), routes(), "a"),
    # Average latency experienced: a (8 and 12: 10) vs b (9): b.
    (
        "congestion",
        "epsilon_greedy",
        {"epsilon": 0.0},
        router(
            loads=[{"a": 8, "b": 2}, {"a": 9, "b": 1}, {"a": 12, "b": 0}],
            own=["a", "b", "a"],
            routes={"a": [0, 1], "b": [9, 0]},
        ),
        routes({"a": [0, 1], "b": [9, 0]}),
        "b",
    ),
    # A route never taken comes first.
    (
        "congestion",
        "epsilon_greedy",
        {"epsilon": 0.0},
        router(
            loads=[{"a": 1, "b": 9, "c": 0}, {"a": 5, "b": 5, "c": 0}],
            own=["a", "b"],
            routes={"a": [0, 1], "b": [0, 1], "c": [50]},
        ),
        routes({"a": [0, 1], "b": [0, 1], "c": [50]}),
        "c",
    ),
]


@pytest.mark.parametrize("row", TABLE, ids=row_id)
def test_expected_plays_on_hand_built_observations(row: Row) -> None:
    check_move(row)


@pytest.mark.parametrize(
    ("network", "players", "expected"),
    [
        (PIGOU, 10, {"a": 5, "b": 5}),
        (PIGOU, 4, {"a": 4, "b": 0}),
        ({"fast": [0, 0, 1], "slow": [20]}, 6, {"fast": 3, "slow": 3}),
        ({"x": [1, 1], "y": [1, 1], "z": [1, 1]}, 7, {"x": 3, "y": 2, "z": 2}),
    ],
)
def test_optimal_loads_split_by_marginal_cost(
    network: dict[str, list[float]], players: int, expected: dict[str, int]
) -> None:
    assert optimal_loads(network, players) == expected


def test_concentrated_puts_everything_on_one_random_battlefield() -> None:
    rng = random.Random(1)
    plays = [
        build_observed("colonel_blotto", "concentrated").choose(
            {}, ActionSpace.allocation(3, 10), rng
        )
        for _ in range(60)
    ]
    assert all(sorted(play) == [0, 0, 10] for play in plays), plays
    assert {play.index(10) for play in plays} == {0, 1, 2}


def test_equilibrium_mixed_draws_the_exact_equilibrium_that_nothing_exploits() -> None:
    rng, space = random.Random(2), ActionSpace.allocation(3, 10)
    strategy = build_observed("colonel_blotto", "equilibrium_mixed")
    seen = [tuple(strategy.choose({}, space, rng)) for _ in range(20_000)]
    assert all(space.contains(list(play)) for play in set(seen))
    mix = symmetric_equilibrium(3, 10)
    never = {play for play, p in zip(mix.allocations, mix.probabilities, strict=True) if p == 0}
    assert never.isdisjoint(seen), "only allocations of the mix's support are drawn"
    frequencies = np.array([seen.count(play) for play in mix.allocations]) / len(seen)
    np.testing.assert_allclose(frequencies, mix.probabilities, atol=0.015)
    # The draws' own mix is nearly unbeatable (the capped-uniform mix loses 0.194 to one).
    assert (payoff_matrix(3, 10) @ frequencies).max() < 0.05


def test_equilibrium_mixed_is_uniform_over_capped_allocations_in_games_too_large_to_solve() -> None:
    rng, space = random.Random(2), ActionSpace.allocation(4, 30)
    strategy = build_observed("colonel_blotto", "equilibrium_mixed")
    seen = [tuple(strategy.choose({}, space, rng)) for _ in range(2000)]
    assert all(space.contains(list(play)) for play in seen)
    assert max(max(play) for play in seen) == 15, "no battlefield gets more than 2·30/4"


def test_epsilon_greedy_explores_with_probability_epsilon() -> None:
    rng, strategy = random.Random(3), build_observed("congestion", "epsilon_greedy", epsilon=0.5)
    observation = router(loads=[{"a": 1, "b": 9}, {"a": 9, "b": 1}], own=["a", "b"])
    plays = [strategy.choose(observation, routes(), rng) for _ in range(2000)]
    assert 0.70 < plays.count("a") / len(plays) < 0.80, "greedy a, plus half the explorations"


# Random states of every game ---------------------------------------------------------------


def _public_goods(rng: random.Random) -> tuple[int, dict[str, Any]]:
    return rng.randint(2, 6), {
        "endowment": rng.randint(1, 30),
        "multiplier": rng.uniform(0.5, 3.0),
        "rounds": rng.randint(1, 3),
        "punishment": rng.random() < 0.6,
        "punishment_factor": rng.randint(0, 3),
        "punishment_budget": rng.randint(0, 12),
    }


def _auction(rng: random.Random) -> tuple[int, dict[str, Any]]:
    low = rng.randint(0, 30)
    return rng.randint(2, 6), {
        "value_low": low,
        "value_high": low + rng.randint(0, 200),
        "bid_cap": rng.randint(0, 150),
        "integer_bids": rng.random() < 0.7,
    }


def _blotto(rng: random.Random) -> tuple[int, dict[str, Any]]:
    return 2, {"battlefields": rng.randint(1, 8), "troops": rng.randint(1, 40)}


def _congestion(rng: random.Random) -> tuple[int, dict[str, Any]]:
    network = {
        f"r{i}": [rng.randint(0, 10) for _ in range(rng.randint(1, 3))]
        for i in range(rng.randint(1, 4))
    }
    return rng.randint(2, 10), {"routes": network, "rounds": rng.randint(1, 4)}


def _ultimatum(rng: random.Random) -> tuple[int, dict[str, Any]]:
    return 2, {"pie": rng.choice([1, 2, 3, rng.randint(4, 200)])}


def _bargaining(rng: random.Random) -> tuple[int, dict[str, Any]]:
    pie = rng.choice([1, 2, rng.randint(3, 300)])
    return 2, {
        "pie": pie,
        "max_rounds": rng.randint(1, 12),
        "discount": rng.choice([0.0, 1.0, rng.random()]),
        "reservation_high": rng.randint(0, pie),
    }


def _tic_tac_toe(rng: random.Random) -> tuple[int, dict[str, Any]]:
    return 2, {}


GAMES: dict[str, Callable[[random.Random], tuple[int, dict[str, Any]]]] = {
    "public_goods": _public_goods,
    "auction_first_price": _auction,
    "auction_second_price": _auction,
    "colonel_blotto": _blotto,
    "congestion": _congestion,
    "ultimatum": _ultimatum,
    "bargaining": _bargaining,
    "tic_tac_toe": _tic_tac_toe,
}


def random_positions(game: str, seed: int, episodes: int = 25) -> Iterator[tuple[GameState, str]]:
    """Every position of seeded episodes with random parameters, player by acting player;
    the moves between them made by randomly picked observation strategies."""
    rng = random.Random(seed)
    names = observed_strategies_for(game)
    for _ in range(episodes):
        count, parameters = GAMES[game](rng)
        state = load_game(game).create([f"P{i}" for i in range(count)], **parameters)
        state.reset(rng.randrange(2**32))
        while not state.is_terminal():
            for player in state.acting_players():
                yield state, player
            state.step(
                {
                    p: build_observed(game, rng.choice(names)).choose(
                        state.observation(p), state.action_space(p), rng
                    )
                    for p in state.acting_players()
                }
            )


def test_every_game_with_observation_strategies_is_covered_here() -> None:
    assert sorted(GAMES) == observed_game_types()


@pytest.mark.parametrize(("game", "name"), OBSERVED)
def test_every_move_is_legal_on_random_states(game: str, name: str) -> None:
    strategy, rng = build_observed(game, name), random.Random(4)
    for state, player in random_positions(game, seed=5):
        space = state.action_space(player)
        move = strategy.choose(state.observation(player), space, rng)
        assert space.contains(move), (
            f"{name} played {move!r} in {state.to_json()}: not in {space.describe()}"
        )


def moves(game: str, name: str, seed: int) -> list[Any]:
    strategy, rng = build_observed(game, name), random.Random(seed)
    return [
        strategy.choose(state.observation(player), state.action_space(player), rng)
        for state, player in random_positions(game, seed=6, episodes=10)
    ]


@pytest.mark.parametrize(("game", "name"), OBSERVED)
def test_seeded_plays_repeat_and_only_stochastic_ones_depend_on_the_draws(
    game: str, name: str
) -> None:
    assert moves(game, name, seed=7) == moves(game, name, seed=7), f"{name} with one seed"
    stochastic = build_observed(game, name).classifier.stochastic
    assert (moves(game, name, seed=7) != moves(game, name, seed=8)) == stochastic, (
        f"{name}: stochastic is {stochastic}"
    )


# Whole episodes ----------------------------------------------------------------------------


def episode(
    game: str, names: list[str], seed: int | None = 0, **parameters: Any
) -> dict[str, float]:
    players = {f"P{i}": build_observed(game, name) for i, name in enumerate(names)}
    return play_episode(load_game(game), players, seed, **parameters)


def test_full_contributors_each_get_the_endowment_times_the_multiplier() -> None:
    assert episode("public_goods", ["full_contributor"] * 4) == dict.fromkeys(
        ["P0", "P1", "P2", "P3"], 20 * 1.6
    )
    assert set(episode("public_goods", ["free_rider"] * 4).values()) == {20.0}


def test_conditional_cooperators_keep_to_half() -> None:
    payoffs = episode("public_goods", ["conditional_cooperator"] * 4, rounds=3)
    assert set(payoffs.values()) == {3 * (20 - 10 + 1.6 * 40 / 4)}


def test_a_punisher_fines_free_riders() -> None:
    payoffs = episode("public_goods", ["punisher"] + ["free_rider"] * 3, punishment=True)
    # 20 in the pot: 8 each; the budget of 10 split 4, 3, 3 at a factor of 3.
    assert payoffs == {"P0": 8 - 10, "P1": 28 - 12, "P2": 28 - 9, "P3": 28 - 9}


def test_a_truthful_bidder_never_loses_in_a_second_price_auction() -> None:
    rng = random.Random(9)
    for seed in range(200):
        rivals = [
            rng.choice(["random_bidder", "shade_50", "truthful_bidder"])
            for _ in range(rng.randint(1, 4))
        ]
        payoffs = episode("auction_second_price", ["truthful_bidder", *rivals], seed=seed)
        assert payoffs["P0"] >= 0, f"seed {seed} against {rivals}: {payoffs}"
        first = episode("auction_first_price", ["truthful_bidder", *rivals], seed=seed)
        assert first["P0"] == 0, f"first price, seed {seed}: {first}"


def test_the_even_split_beats_concentration_in_blotto() -> None:
    for seed in range(10):
        assert episode("colonel_blotto", ["uniform", "concentrated"], seed) == {
            "P0": 1.0,
            "P1": -1.0,
        }


def test_selfish_routing_costs_a_third_more_than_the_optimum_on_pigou_s_network() -> None:
    selfish = episode("congestion", ["selfish_router"] * 10, rounds=3)
    optimal = episode("congestion", ["social_optimum"] * 10, rounds=3)
    assert sum(selfish.values()) == 3 * -100
    assert sum(optimal.values()) == 3 * -75


def test_seeded_episodes_repeat() -> None:
    names = ["epsilon_greedy", "selfish_router", "epsilon_greedy", "social_optimum"]
    assert episode("congestion", names, 11, rounds=20) == episode(
        "congestion", names, 11, rounds=20
    )
    assert episode("auction_first_price", ["random_bidder"] * 3, 12) == episode(
        "auction_first_price", ["random_bidder"] * 3, 12
    )


def test_an_episode_refuses_a_parameter_the_game_does_not_take() -> None:
    with pytest.raises(ValueError, match="takes no parameter speed"):
        episode("congestion", ["selfish_router"] * 2, speed=3)


# The registry ------------------------------------------------------------------------------


def test_each_game_lists_its_strategies() -> None:
    assert observed_game_types() == [
        "auction_first_price",
        "auction_second_price",
        "bargaining",
        "colonel_blotto",
        "congestion",
        "public_goods",
        "tic_tac_toe",
        "ultimatum",
    ]
    assert observed_strategies_for("public_goods") == [
        "full_contributor",
        "free_rider",
        "conditional_cooperator",
        "punisher",
    ]
    assert observed_strategies_for("auction_second_price") == [
        "truthful_bidder",
        "shade_50",
        "random_bidder",
    ]
    assert observed_strategies_for("colonel_blotto") == [
        "uniform",
        "concentrated",
        "equilibrium_mixed",
    ]
    assert observed_strategies_for("congestion") == [
        "selfish_router",
        "social_optimum",
        "epsilon_greedy",
    ]
    assert observed_strategies_for("ultimatum") == [
        "subgame_perfect",
        "greedy",
        "fair",
        "fairness_threshold",
        "best_responder",
        "random",
    ]
    assert observed_strategies_for("bargaining") == [
        "rubinstein",
        "nash_split",
        "always_accept",
        "hard_bargainer",
        "random",
    ]
    assert observed_strategies_for("tic_tac_toe") == ["random", "heuristic", "minimax"]


@pytest.mark.parametrize(("game", "name"), OBSERVED)
def test_every_strategy_states_its_facts(game: str, name: str) -> None:
    strategy = build_observed(game, name)
    assert isinstance(strategy, ObservationBaseline) and strategy.name == name
    assert game in strategy.game_types and strategy.__doc__, name
    assert re.search(r"(Known as|Inspired by).*\b(19|20)\d\d\b", strategy.__doc__, re.S), (
        f"{name}: its docstring names no known name with a dated source"
    )
    assert name in baseline_names()


def test_baseline_names_keep_the_matrix_games_strategies() -> None:
    assert {"tit_for_tat", "random", "frequency_counter"} <= set(baseline_names())
    assert baseline_names() == sorted(set(baseline_names()))


@pytest.mark.parametrize(
    ("game", "name", "options", "error", "message"),
    [
        (
            "public_goods",
            "tit_for_tat",
            {},
            UnknownStrategyError,
            "no strategy 'tit_for_tat' plays public_goods; there are: full_contributor",
        ),
        (
            "prisoners_dilemma",
            "uniform",
            {},
            ValueError,
            "no observation strategy plays 'prisoners_dilemma'; they play: auction_first_price",
        ),
        ("chess", "uniform", {}, ValueError, "no observation strategy plays 'chess'"),
        (
            "public_goods",
            "free_rider",
            {"level": 3},
            ValueError,
            "free_rider takes no option level; it takes: none",
        ),
        (
            "congestion",
            "epsilon_greedy",
            {"rate": 3},
            ValueError,
            "epsilon_greedy takes no option rate; it takes: epsilon",
        ),
        (
            "congestion",
            "epsilon_greedy",
            {"epsilon": 1.5},
            ValueError,
            "epsilon is a probability from 0 to 1, not 1.5",
        ),
    ],
)
def test_unknown_names_games_and_options_are_refused(
    game: str, name: str, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        build_observed(game, name, **options)


def test_observed_strategies_for_an_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError, match="no observation strategy plays 'chess'"):
        observed_strategies_for("chess")


# The player host ---------------------------------------------------------------------------


def view_of(state: GameState, player: str, game_type: str) -> MoveView:
    space = state.action_space(player)
    return MoveView(
        game_type=game_type,
        match_id="R1M1",
        player_id=player,
        opponent_id="",
        deadline=datetime.now(timezone.utc),
        action_space=space.describe(),
        legal_moves=tuple(space.choices),
        observation=state.observation(player),
    )


def test_the_player_host_s_baseline_serves_observation_strategies() -> None:
    state = load_game("public_goods").create(["P1", "P2", "P3"], endowment=12)
    assert Baseline("full_contributor").choose(view_of(state, "P1", "public_goods")) == 12
    assert isinstance(build_strategy("truthful_bidder"), Baseline)
    auction = load_game("auction_second_price").create(["P1", "P2"])
    auction.reset(3)
    view = view_of(auction, "P2", "auction_second_price")
    assert build_strategy("truthful_bidder").choose(view) == view.observation["private"]["value"]


def test_a_seeded_host_baseline_repeats_after_reset() -> None:
    state = load_game("congestion").create([f"P{i}" for i in range(3)], rounds=2)
    state.step({"P0": "a", "P1": "b", "P2": "b"})
    view = view_of(state, "P0", "congestion")
    baseline = Baseline("epsilon_greedy", seed=4, epsilon=0.5)
    first = [baseline.choose(view) for _ in range(30)]
    baseline.reset()
    assert [baseline.choose(view) for _ in range(30)] == first
    assert set(first) == {"a", "b"}


def test_the_host_baseline_still_refuses_a_game_its_strategy_does_not_play() -> None:
    state = load_game("prisoners_dilemma").create(["P1", "P2"])
    with pytest.raises(UnknownStrategyError, match="full_contributor"):
        Baseline("full_contributor").choose(view_of(state, "P1", "prisoners_dilemma"))
    blotto = load_game("colonel_blotto").create(["P1", "P2"])
    with pytest.raises(UnknownStrategyError, match="tit_for_tat"):
        Baseline("tit_for_tat").choose(view_of(blotto, "P1", "colonel_blotto"))
