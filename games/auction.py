"""Sealed-bid auctions with private values (``auction_first_price`` and
``auction_second_price``, version 1): one implementation, two registered games.

Rules
    2 to 10 bidders compete for one item. At reset each bidder gets a private value, an
    integer drawn uniformly from ``value_low`` to ``value_high`` by the game's generator;
    a bidder knows its own value and nothing of the others'. Then every bidder submits one
    sealed bid, all at the same time. The highest bid wins; among equal highest bids the
    bidder with the lowest seat index wins (the earliest id in the player list, PLAYER_A
    first). The winner pays:

    - ``first_price``: its own bid;
    - ``second_price`` (Vickrey): the highest bid of the others (its own bid in a tie).

    One stage, then the game is over.

Actions
    A number from 0 to ``bid_cap`` (``ActionSpace.number``). With ``integer_bids`` (the
    default) a bid must be a whole number: ``7`` and ``7.0`` are both taken and recorded as
    ``7``; ``True`` is not a bid. ``legal_actions`` is ``[]`` (a number space):
    ``action_space(player)`` describes the range.

Observation (``observation(player)``)
    ``player_id``, ``seat``, ``players``, ``mechanism``, ``private`` (``{"value": v}``, the
    player's own value only), ``action_space``, ``legal_actions``, ``terminal``; once the
    auction is resolved also ``bids`` (every bid, by player), ``winner``, ``price`` and
    ``own_payoff`` (the player's own payoff only: the winner's would reveal its value).

Payoffs (``rewards()`` = ``returns()``, one stage)
    The winner gets ``value - price``, every other bidder 0. General-sum. With the default
    parameters the bounds are [-100, 100]: a first-price winner who bids 100 on a value of
    0 loses 100; a value of 100 won at price 0 gains 100.

Parameters (defaults)
    ``value_low`` 0, ``value_high`` 100, ``bid_cap`` 100, ``integer_bids`` True.

Randomness
    ``reset(None)`` draws the values from ``secrets.SystemRandom()``; ``reset(seed)`` from
    ``random.Random(seed)``, exactly repeatable. Values are drawn in seat order.

Version history
    1: first- and second-price sealed-bid auctions, ties to the lowest seat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from functools import partial
from typing import Any

from games.guide import Guide, MoveMeaning
from games.params import check_int, rng_for
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, check_players

__all__ = [
    "DEFAULT_PARAMETERS",
    "FIRST_PRICE_SPEC",
    "GAME_VERSION",
    "MAX_BIDDERS",
    "MIN_BIDDERS",
    "SECOND_PRICE_SPEC",
    "SPECS",
    "AuctionState",
    "Mechanism",
    "resolve",
]


class Mechanism(str, Enum):
    """Who pays what: the winner's own bid, or the best bid of the others."""

    FIRST_PRICE = "first_price"
    SECOND_PRICE = "second_price"


GAME_VERSION = 1
MIN_BIDDERS, MAX_BIDDERS = 2, 10
SIMULTANEOUS = True
ZERO_SUM = False
MOVE_TYPE = "bid"
DEFAULT_PARAMETERS: dict[str, Any] = {
    "value_low": 0,
    "value_high": 100,
    "bid_cap": 100,
    "integer_bids": True,
}
PAYOFF_BOUNDS = (
    float(DEFAULT_PARAMETERS["value_low"] - DEFAULT_PARAMETERS["bid_cap"]),
    float(DEFAULT_PARAMETERS["value_high"]),
)


def resolve(bids: Sequence[float], mechanism: Mechanism) -> tuple[int, float]:
    """The winner's seat and the price it pays, for bids in seat order.

    Raises:
        ValueError: fewer than two bids.
    """
    if len(bids) < MIN_BIDDERS:
        raise ValueError(f"an auction needs at least {MIN_BIDDERS} bids, got {len(bids)}")
    best = max(bids)
    winner = bids.index(best)  # the first of equal highest bids: the lowest seat wins
    if mechanism is Mechanism.FIRST_PRICE:
        return winner, best
    return winner, max(bid for seat, bid in enumerate(bids) if seat != winner)


class AuctionState(Game):
    """One sealed-bid auction between bidders named by their ids, in seat order."""

    def __init__(
        self,
        player_ids: Sequence[str],
        *,
        mechanism: Mechanism,
        value_low: int = DEFAULT_PARAMETERS["value_low"],
        value_high: int = DEFAULT_PARAMETERS["value_high"],
        bid_cap: int = DEFAULT_PARAMETERS["bid_cap"],
        integer_bids: bool = DEFAULT_PARAMETERS["integer_bids"],
    ):
        self._players = check_players(player_ids, MIN_BIDDERS, MAX_BIDDERS)
        self.mechanism = Mechanism(mechanism)
        self.value_low = check_int("value_low", value_low, 0)
        self.value_high = check_int("value_high", value_high, value_low)
        self.bid_cap = check_int("bid_cap", bid_cap, 0)
        if not isinstance(integer_bids, bool):
            raise ValueError(
                f"the parameter integer_bids must be true or false, not {integer_bids!r}"
            )
        self._space = ActionSpace.number(0, bid_cap, integer=integer_bids)
        self.reset()

    @property
    def values(self) -> dict[str, int]:
        """Every private value (for the referee and tests; never for a player)."""
        return dict(zip(self._players, self._values, strict=True))

    def reset(self, seed: int | None = None) -> None:
        """Draw fresh private values; ``None`` → cryptographic, a seed → exact repetition."""
        rng = rng_for(seed)
        self._values = [rng.randint(self.value_low, self.value_high) for _ in self._players]
        self._bids: list[float] | None = None
        self._winner: int | None = None
        self._price: float | None = None

    def is_terminal(self) -> bool:
        return self._bids is not None

    def acting_players(self) -> tuple[str, ...]:
        return () if self.is_terminal() else self._players

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        return NO_MOVE if self.is_terminal() else self._space

    def step(self, actions: Mapping[str, float]) -> None:
        """Every bid at once; then the winner and the price.

        Raises:
            ValueError: the game is over, a bidder is missing or unknown, or a bid is out of
                range (or not whole, with integer bids).
        """
        self._check_joint_action(actions)
        bids = [actions[player] for player in self._players]
        if self._space.integer:
            bids = [int(bid) for bid in bids]
        self._winner, self._price = resolve(bids, self.mechanism)
        self._bids = bids

    def rewards(self) -> dict[str, float]:
        if self._winner is None or self._price is None:
            return dict.fromkeys(self._players, 0.0)
        gain = float(self._values[self._winner] - self._price)
        return {p: gain if seat == self._winner else 0.0 for seat, p in enumerate(self._players)}

    def returns(self) -> dict[str, float]:
        return self.rewards()

    def _outcome(self) -> dict[str, Any]:
        bids = self._bids
        return {
            "bids": None if bids is None else dict(zip(self._players, bids, strict=True)),
            "winner": None if self._winner is None else self._players[self._winner],
            "price": self._price,
        }

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: its own value, never another's; the bids once resolved."""
        self._check_player(player)
        seat = self._players.index(player)
        view: dict[str, Any] = {
            "player_id": player,
            "seat": seat,
            "players": list(self._players),
            "mechanism": self.mechanism.value,
            "private": {"value": self._values[seat]},
            "action_space": self.action_space(player).describe(),
            "legal_actions": self.legal_actions(player),
            "terminal": self.is_terminal(),
        }
        if self.is_terminal():
            view.update(self._outcome(), own_payoff=self.rewards()[player])
        return view

    def to_json(self) -> dict[str, Any]:
        """The whole state: every value and bid, the winner, the price, the returns."""
        return {
            "game_id": f"auction_{self.mechanism.value}_v{GAME_VERSION}",
            "players": list(self._players),
            "values": self.values,
            **self._outcome(),
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


_BID = MoveMeaning(
    "bid", "sealed bid", "what you offer to pay for the item, from 0 to the cap (100 by default)."
)
_PRIVATE_VALUES = (
    "Each bidder has a private value for one item (a whole number from 0 to 100 by default), "
    "known only to itself, and all bid once, in secret, at the same time. The highest bid wins "
    "(a tie goes to the first player). "
)
GUIDES = {
    Mechanism.FIRST_PRICE: Guide(
        rules=_PRIVATE_VALUES + "The winner pays its own bid: its payoff is its value minus "
        "its bid, and the others get 0, so bidding below your value is how you gain.",
        moves=(_BID,),
    ),
    Mechanism.SECOND_PRICE: Guide(
        rules=_PRIVATE_VALUES + "The winner pays the highest of the other bids: its payoff is "
        "its value minus that price, and the others get 0, so bidding your value is safe.",
        moves=(_BID,),
    ),
}
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""


def _spec(mechanism: Mechanism, display_name: str) -> GameSpec:
    game_type = f"auction_{mechanism.value}"
    return GameSpec(
        game_type=game_type,
        versioned_id=f"{game_type}_v{GAME_VERSION}",
        display_name=display_name,
        rules_module=__name__,
        min_players=MIN_BIDDERS,
        max_players=MAX_BIDDERS,
        simultaneous=SIMULTANEOUS,
        zero_sum=ZERO_SUM,
        move_types=(MOVE_TYPE,),
        valid_choices=(),
        payoff_bounds=PAYOFF_BOUNDS,
        new_state=partial(AuctionState, mechanism=mechanism),
        parameters=DEFAULT_PARAMETERS,
        guide=GUIDES[mechanism],
    )


FIRST_PRICE_SPEC = _spec(Mechanism.FIRST_PRICE, "First-Price Sealed-Bid Auction")
SECOND_PRICE_SPEC = _spec(Mechanism.SECOND_PRICE, "Second-Price Sealed-Bid Auction")
SPECS = (FIRST_PRICE_SPEC, SECOND_PRICE_SPEC)
"""Both games this module registers (its one implementation, two mechanisms)."""
