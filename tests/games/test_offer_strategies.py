"""Baselines of the ultimatum game and bargaining: expected plays on hand-built observations,
and the textbook results of whole games (subgame perfection, the Rubinstein split, no
deal below one's outside option, the soft bargainer exploited)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from games import ActionSpace, load_game
from games.episode import play_episode
from games.strategies import build_observed
from games.strategies.ultimatum import UltimatumBestResponder
from tests.games.observed import Row, check_move, row_id

RESPONSE = ActionSpace.of_choices(["accept", "reject"])


def offer_space(pie: int) -> ActionSpace:
    return ActionSpace.number(0, pie, integer=True)


def ultimatum(pie: int = 10, offer: int | None = None) -> dict[str, Any]:
    """The proposer's observation (no offer yet) or the responder's (an offer on the table)."""
    return {"player_id": "P1", "pie": pie, "offer": offer}


def table(
    round_: int = 1,
    reservation: int = 0,
    offer: int | None = None,
    pie: int = 100,
    discount: float = 0.95,
    max_rounds: int = 10,
) -> dict[str, Any]:
    """A bargaining observation: what the baselines read of it."""
    return {
        "player_id": "P1",
        "pie": pie,
        "discount": discount,
        "max_rounds": max_rounds,
        "round": round_,
        "private": {"reservation_value": reservation},
        "offer": offer,
    }


# (game, strategy, options, observation, space, expected move)
TABLE: list[Row] = [
    ("ultimatum", "subgame_perfect", {}, ultimatum(), offer_space(10), 0),
    ("ultimatum", "subgame_perfect", {}, ultimatum(offer=0), RESPONSE, "accept"),
    ("ultimatum", "greedy", {}, ultimatum(), offer_space(10), 1),
    ("ultimatum", "greedy", {}, ultimatum(offer=0), RESPONSE, "reject"),
    ("ultimatum", "greedy", {}, ultimatum(offer=1), RESPONSE, "accept"),
    ("ultimatum", "fair", {}, ultimatum(), offer_space(10), 5),
    # Half of 11, rounded up as the proposer, down as the responder.
    ("ultimatum", "fair", {}, ultimatum(pie=11), offer_space(11), 6),
    ("ultimatum", "fair", {}, ultimatum(pie=11, offer=5), RESPONSE, "accept"),
    ("ultimatum", "fair", {}, ultimatum(pie=11, offer=4), RESPONSE, "reject"),
    ("ultimatum", "fairness_threshold", {}, ultimatum(), offer_space(10), 3),
    ("ultimatum", "fairness_threshold", {}, ultimatum(offer=2), RESPONSE, "reject"),
    ("ultimatum", "fairness_threshold", {}, ultimatum(offer=3), RESPONSE, "accept"),
    # 25% of 10 is 2.5: at least 3.
    ("ultimatum", "fairness_threshold", {"share": 0.25}, ultimatum(offer=2), RESPONSE, "reject"),
    ("ultimatum", "fairness_threshold", {"share": 0.25}, ultimatum(), offer_space(10), 3),
    # Against thresholds 0, 1, 5, 3: offering 3 keeps 7 three times in four (5.25).
    ("ultimatum", "best_responder", {}, ultimatum(), offer_space(10), 3),
    # Of 100: 30 keeps 70 · 3/4 = 52.5 > 50 (offer 50) > 49.5 (offer 1).
    ("ultimatum", "best_responder", {}, ultimatum(pie=100), offer_space(100), 30),
    # Thresholds 4, 4, 5, 1: 5 keeps 5 for sure (5) > 4 keeps 6 · 3/4 (4.5).
    (
        "ultimatum",
        "best_responder",
        {"thresholds": [0.4, 0.4, 0.5, 0.1]},
        ultimatum(),
        offer_space(10),
        5,
    ),
    ("ultimatum", "best_responder", {}, ultimatum(offer=0), RESPONSE, "accept"),
    # δ/(1+δ) of 100 with δ = 0.95 is 48.72: offers 49, accepts 49 and more.
    ("bargaining", "rubinstein", {}, table(), offer_space(100), 49),
    ("bargaining", "rubinstein", {}, table(offer=48), RESPONSE, "reject"),
    ("bargaining", "rubinstein", {}, table(offer=49), RESPONSE, "accept"),
    # An outside option of 60 caps the offer at 40.
    ("bargaining", "rubinstein", {}, table(reservation=60), offer_space(100), 40),
    # Round 10: 49 · 0.95^9 = 30.88, more than 30, less than 31.
    ("bargaining", "rubinstein", {}, table(10, 30, offer=49), RESPONSE, "accept"),
    ("bargaining", "rubinstein", {}, table(10, 31, offer=49), RESPONSE, "reject"),
    ("bargaining", "nash_split", {}, table(), offer_space(100), 50),
    ("bargaining", "nash_split", {}, table(pie=101), offer_space(101), 51),
    ("bargaining", "nash_split", {}, table(offer=50, pie=101), RESPONSE, "accept"),
    ("bargaining", "nash_split", {}, table(offer=49, pie=101), RESPONSE, "reject"),
    ("bargaining", "always_accept", {}, table(reservation=30, offer=0), RESPONSE, "accept"),
    ("bargaining", "always_accept", {}, table(reservation=90), offer_space(100), 50),
    # Boulware: the whole pie in round 1; 96.8 of it in round 6 (of 10); in round 10 the
    # least share worth 30 now (48 · 0.95^9 = 30.25), offering the other 52.
    ("bargaining", "hard_bargainer", {}, table(reservation=30), offer_space(100), 0),
    ("bargaining", "hard_bargainer", {}, table(6, 30), offer_space(100), 3),
    ("bargaining", "hard_bargainer", {}, table(6, 30, offer=96), RESPONSE, "reject"),
    ("bargaining", "hard_bargainer", {}, table(6, 30, offer=97), RESPONSE, "accept"),
    ("bargaining", "hard_bargainer", {}, table(10, 30), offer_space(100), 52),
    ("bargaining", "hard_bargainer", {}, table(10, 30, offer=48), RESPONSE, "accept"),
    ("bargaining", "hard_bargainer", {}, table(10, 30, offer=47), RESPONSE, "reject"),
    # β = 2 concedes early: 1 − (5/9)^(1/2) of the pie is left to it in round 6.
    ("bargaining", "hard_bargainer", {"beta": 2}, table(6), offer_space(100), 74),
    # Discount 0: from round 2 on every deal is worth nothing, less than 5: it offers nothing.
    ("bargaining", "nash_split", {}, table(2, 5, discount=0.0), offer_space(100), 0),
]


@pytest.mark.parametrize("row", TABLE, ids=row_id)
def test_expected_plays_on_hand_built_observations(row: Row) -> None:
    check_move(row)


@pytest.mark.parametrize("game", ["ultimatum", "bargaining"])
def test_the_random_player_offers_any_share_and_answers_either_way(game: str) -> None:
    strategy, rng = build_observed(game, "random"), random.Random(1)
    observation = table(offer=50) if game == "bargaining" else ultimatum(offer=5)
    offers = {strategy.choose(observation, offer_space(4), rng) for _ in range(200)}
    answers = [strategy.choose(observation, RESPONSE, rng) for _ in range(400)]
    assert offers == {0, 1, 2, 3, 4}
    assert 0.4 < answers.count("accept") / len(answers) < 0.6


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"share": 1.5}, "share is a part of the pie from 0 to 1, not 1.5"),
        ({"thresholds": []}, "thresholds are shares of the pie from 0 to 1, at least one"),
        ({"thresholds": [0.2, -1]}, "thresholds are shares of the pie from 0 to 1"),
        ({"beta": 0}, "beta is a positive number, not 0"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    name = {"share": "fairness_threshold", "thresholds": "best_responder", "beta": "hard_bargainer"}
    (option,) = options
    game = "bargaining" if option == "beta" else "ultimatum"
    with pytest.raises(ValueError, match=message):
        build_observed(game, name[option], **options)


# Whole games --------------------------------------------------------------------------------


def play(game: str, first: str, second: str, seed: int = 0, **parameters: Any) -> list[float]:
    players = {"P0": build_observed(game, first), "P1": build_observed(game, second)}
    payoffs = play_episode(load_game(game), players, seed, **parameters)
    return [payoffs["P0"], payoffs["P1"]]


def test_the_subgame_perfect_proposer_keeps_the_pie_and_a_fair_responder_refuses_it() -> None:
    assert play("ultimatum", "subgame_perfect", "subgame_perfect") == [10, 0]
    assert play("ultimatum", "greedy", "greedy") == [9, 1]
    assert play("ultimatum", "subgame_perfect", "greedy") == [0, 0]
    assert play("ultimatum", "subgame_perfect", "fair") == [0, 0]
    assert play("ultimatum", "fair", "fair", pie=11) == [5, 6]
    assert play("ultimatum", "fairness_threshold", "fair") == [0, 0], "3 is below half"


def test_subgame_perfect_play_is_a_best_reply_to_itself() -> None:
    """No other offer pays the proposer more against a responder who accepts anything, and
    the responder cannot gain by rejecting (a rejection pays 0)."""
    for pie in (1, 7, 10, 100):
        best = max(pie - offer for offer in range(pie + 1))
        assert play("ultimatum", "subgame_perfect", "subgame_perfect", pie=pie)[0] == best


@pytest.mark.parametrize("pie", [1, 2, 3, 10, 11, 37, 100])
def test_the_best_responder_s_offer_is_best_against_the_shipped_responders(pie: int) -> None:
    """Every offer from 0 to the pie, tried against each deterministic responder: none
    keeps more on average than the best responder's."""
    responders = ["subgame_perfect", "greedy", "fair", "fairness_threshold"]

    def mean_kept(offer: int) -> float:
        kept = [
            pie - offer
            for name in responders
            if build_observed("ultimatum", name).choose(
                ultimatum(pie, offer), RESPONSE, random.Random(0)
            )
            == "accept"
        ]
        return sum(kept) / len(responders)

    best = UltimatumBestResponder().best_offer(pie)
    assert mean_kept(best) == max(mean_kept(offer) for offer in range(pie + 1)), pie


def test_two_rubinstein_bargainers_agree_at_once_on_the_rubinstein_split() -> None:
    assert play("bargaining", "rubinstein", "rubinstein", reservation_high=0) == [51, 49]
    assert play("bargaining", "nash_split", "nash_split", reservation_high=0) == [50, 50]


def test_the_soft_bargainer_is_exploited_by_the_hard_one() -> None:
    assert play("bargaining", "hard_bargainer", "always_accept", reservation_high=0) == [100, 0]


def test_two_hard_bargainers_agree_only_at_the_deadline() -> None:
    rounds = []
    for seed in range(30):
        accepted = [
            seen["round"]
            for _, seen, move in moves("hard_bargainer", "hard_bargainer", seed)
            if move == "accept"
        ]
        assert accepted, f"seed {seed}: values of 30 at most leave room to agree"
        rounds.extend(accepted)
    assert min(rounds) >= 9, rounds


def moves(
    first: str, second: str, seed: int, **parameters: Any
) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """Every move of a seeded bargaining game: the strategy's name, the mover's
    observation, the move."""
    names = {"P0": first, "P1": second}
    players = {p: build_observed("bargaining", name) for p, name in names.items()}
    rng = random.Random(seed)
    state = load_game("bargaining").create(list(names), **parameters)
    state.reset(seed)
    while not state.is_terminal():
        (mover,) = state.acting_players()
        observation = state.observation(mover)
        move = players[mover].choose(observation, state.action_space(mover), rng)
        yield names[mover], observation, move
        state.step({mover: move})


@pytest.mark.parametrize(
    ("first", "second"),
    list(itertools.product(["rubinstein", "nash_split", "hard_bargainer", "random"], repeat=2)),
)
def test_no_baseline_but_always_accept_trades_below_its_outside_option(
    first: str, second: str
) -> None:
    """It accepts no deal worth less than its reservation value now, and offers none that
    leaves it less, unless even the whole pie is worth less now (then it offers nothing)."""
    for seed in range(40):
        parameters = {"discount": 0.8, "max_rounds": 4, "reservation_high": 60}
        for name, seen, move in moves(first, second, seed, **parameters):
            if name == "random":
                continue
            value = seen["private"]["reservation_value"]
            factor = seen["discount"] ** (seen["round"] - 1)
            if move == "accept":
                assert seen["offer"] * factor >= value, (seed, name, seen)
            elif move != "reject" and seen["pie"] * factor >= value:
                assert (seen["pie"] - move) * factor >= value, (seed, name, seen, move)
            elif move != "reject":
                assert move == 0, (seed, name, seen, move)


def test_always_accept_can_end_below_its_outside_option() -> None:
    below = 0
    for seed in range(40):
        state = load_game("bargaining").create(["P0", "P1"], reservation_high=60)
        state.reset(seed)
        values = state.to_json()["reservation_values"]
        payoffs = play("bargaining", "hard_bargainer", "always_accept", seed, reservation_high=60)
        below += payoffs[1] < values["P1"]
    assert below > 30, "the hard bargainer offers nothing, and it takes it"
