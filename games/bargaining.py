"""Alternating-offers bargaining with private outside options and a deadline
(``bargaining``, version 1), after Rubinstein (1982) with incomplete information.

Rules
    Two players split a pie of ``pie`` units. At reset each player gets a private
    reservation value, an integer drawn uniformly from 0 to ``reservation_high`` by the
    game's generator: what it gets if no deal is made (its outside option). A player knows
    its own reservation value, never the other's.

    Rounds 1, 2, ... ``max_rounds``; in each, two stages. In odd rounds PLAYER_A proposes,
    in even rounds PLAYER_B. The proposer offers the responder a whole share from 0 to
    ``pie`` (keeping the rest); the responder accepts or rejects. An acceptance in round
    ``t`` ends the game with the shares discounted by the common, public factor
    ``discount`` δ: proposer ``(pie - offer)·δ^(t-1)``, responder ``offer·δ^(t-1)``. A
    rejection moves to the next round. If the last round's offer is rejected, there is no
    deal and each player gets its own reservation value (undiscounted: it is what the
    player holds anyway), so a deal worth less than one's reservation value is a mistake.

Actions
    Offer stage, proposer: an integer from 0 to ``pie`` (``ActionSpace.number``,
    ``legal_actions`` is ``[]``), the share offered to the responder. Response stage,
    responder: the protocol strings ``"accept"`` or ``"reject"``. ``acting_players()`` names
    the one player who moves.

Observation (``observation(player)``)
    ``player_id``, ``role`` (PLAYER_A/PLAYER_B), ``opponent_id``, ``pie``, ``discount``,
    ``max_rounds``, ``private`` (``{"reservation_value": r}``, its own only), ``round``
    (1-based; the last one at the end), ``stage`` (``"offer"``/``"response"``/``"over"``),
    ``to_move``, ``offer`` (the offer on the table), ``history`` (every offer made: round,
    proposer, offer, response), ``agreement`` (``None``, or the round and both shares),
    ``own_return``, ``action_space``, ``legal_actions``, ``terminal``. The other's
    reservation value and, without a deal, its payoff (which is that value) are never shown.

Payoffs (``rewards()`` = ``returns()``, paid at the end)
    Deal in round t: discounted shares as above. No deal: each its reservation value.
    General-sum, bounds [0, 100] with the default pie.

Parameters (defaults)
    ``pie`` 100 (1 to 1000000), ``max_rounds`` 10 (1 to 1000), ``discount`` 0.95 (0 to 1),
    ``reservation_high`` 30 (0 to pie).

Randomness
    ``reset(None)``: ``secrets.SystemRandom()``; ``reset(seed)``: ``random.Random(seed)``,
    exactly repeatable. PLAYER_A's value is drawn first.

Version history
    1: private outside options, common public discount, A proposes first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.guide import Guide, MoveMeaning
from games.offers import ACCEPT, MOVE_TYPES, RESPONSES, OfferStages
from games.params import check_int, check_number, rng_for
from games.spec import ActionSpace, GameSpec, check_players

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_ID",
    "GAME_VERSION",
    "SPEC",
    "VERSIONED_ID",
    "BargainingState",
    "deal_payoffs",
]

GAME_ID = "bargaining"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Alternating-Offers Bargaining"
NUM_PLAYERS = 2
PLAYER_ROLES = ("PLAYER_A", "PLAYER_B")
SIMULTANEOUS = False
ZERO_SUM = False
DEFAULT_PARAMETERS: dict[str, Any] = {
    "pie": 100,
    "max_rounds": 10,
    "discount": 0.95,
    "reservation_high": 30,
}
PAYOFF_BOUNDS = (0.0, float(DEFAULT_PARAMETERS["pie"]))
MAX_PIE, MAX_ROUNDS = 1_000_000, 1000


def deal_payoffs(pie: int, offer: int, round_number: int, discount: float) -> tuple[float, float]:
    """(proposer, responder) payoffs of ``offer`` accepted in round ``round_number`` (1-based).

    Raises:
        ValueError: an offer outside 0..pie, or a round before the first.
    """
    if not 0 <= offer <= pie:
        raise ValueError(f"an offer is from 0 to the pie {pie}, not {offer}")
    if round_number < 1:
        raise ValueError(f"rounds are numbered from 1, not {round_number}")
    factor = discount ** (round_number - 1)
    return (pie - offer) * factor, offer * factor


class BargainingState(OfferStages):
    """One bargaining game between two players, named by their ids (PLAYER_A opens)."""

    def __init__(
        self,
        player_ids: Sequence[str],
        *,
        pie: int = DEFAULT_PARAMETERS["pie"],
        max_rounds: int = DEFAULT_PARAMETERS["max_rounds"],
        discount: float = DEFAULT_PARAMETERS["discount"],
        reservation_high: int = DEFAULT_PARAMETERS["reservation_high"],
    ):
        self._players = check_players(player_ids, NUM_PLAYERS, NUM_PLAYERS)
        self.pie = check_int("pie", pie, 1, MAX_PIE)
        self.max_rounds = check_int("max_rounds", max_rounds, 1, MAX_ROUNDS)
        self.discount = check_number("discount", discount, 0.0, 1.0)
        self.reservation_high = check_int("reservation_high", reservation_high, 0, pie)
        self._offer_space = ActionSpace.number(0, pie, integer=True)
        self.reset()

    @property
    def reservation_values(self) -> dict[str, int]:
        """Both private values (for the referee and tests; never for a player)."""
        return dict(zip(self._players, self._reservations, strict=True))

    def reset(self, seed: int | None = None) -> None:
        """Fresh private values; ``None`` → cryptographic, a seed → exact repetition."""
        rng = rng_for(seed)
        self._reservations = [rng.randint(0, self.reservation_high) for _ in self._players]
        self._history: list[dict[str, Any]] = []
        self._offer: int | None = None
        self._agreed = False

    def _round(self) -> int:
        """The current round, 1-based; at the end, the last round played."""
        return len(self._history) + (0 if self.is_terminal() else 1)

    def is_terminal(self) -> bool:
        return self._agreed or len(self._history) == self.max_rounds

    def _proposer_seat(self) -> int:
        """PLAYER_A opens; the proposer alternates round by round."""
        return len(self._history) % 2

    def step(self, actions: Mapping[str, Any]) -> None:
        """An offer, or the answer to the offer on the table.

        Raises:
            ValueError: the game is over, the wrong player moves, or the move is not a
                whole offer in 0..pie (resp. ``"accept"``/``"reject"``).
        """
        self._check_joint_action(actions)
        (mover,) = self.acting_players()
        if self._offer is None:
            self._offer = int(actions[mover])
            return
        proposer = self._players[len(self._history) % 2]
        self._history.append(
            {
                "round": len(self._history) + 1,
                "proposer": proposer,
                "offer": self._offer,
                "response": actions[mover],
            }
        )
        self._agreed = actions[mover] == ACCEPT
        self._offer = None

    def _agreement(self) -> dict[str, Any] | None:
        if not self._agreed:
            return None
        last = self._history[-1]
        proposer = last["proposer"]
        responder = self._players[1 - self._players.index(proposer)]
        mine, theirs = deal_payoffs(self.pie, last["offer"], last["round"], self.discount)
        shares = {proposer: mine, responder: theirs}
        return {"round": last["round"], "shares": {p: shares[p] for p in self._players}}

    def rewards(self) -> dict[str, float]:
        agreement = self._agreement()
        if agreement is not None:
            return dict(agreement["shares"])
        if self.is_terminal():
            return {p: float(r) for p, r in zip(self._players, self._reservations, strict=True)}
        return dict.fromkeys(self._players, 0.0)

    def returns(self) -> dict[str, float]:
        return self.rewards()

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: its own reservation value, the public offers, nothing more."""
        self._check_player(player)
        seat = self._players.index(player)
        acting = self.acting_players()
        return {
            "player_id": player,
            "role": PLAYER_ROLES[seat],
            "opponent_id": self._players[1 - seat],
            "pie": self.pie,
            "discount": self.discount,
            "max_rounds": self.max_rounds,
            "private": {"reservation_value": self._reservations[seat]},
            "round": self._round(),
            "stage": self._stage(),
            "to_move": acting[0] if acting else None,
            "offer": self._offer,
            "history": [dict(entry) for entry in self._history],
            "agreement": self._agreement(),
            "own_return": self.returns()[player],
            "action_space": self.action_space(player).describe(),
            "legal_actions": self.legal_actions(player),
            "terminal": self.is_terminal(),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state: both reservation values, every offer, the agreement, returns."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "pie": self.pie,
            "discount": self.discount,
            "max_rounds": self.max_rounds,
            "reservation_values": self.reservation_values,
            "offer": self._offer,
            "history": [dict(entry) for entry in self._history],
            "agreement": self._agreement(),
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


GUIDE = Guide(
    rules=(
        "Two players split a pie (100 by default) in up to 10 rounds. In each round one "
        "player proposes (the first player in odd rounds, the second in even ones): it "
        "offers the other a whole share and keeps the rest, and the other accepts or "
        "rejects. A deal in round t pays both shares times the discount (0.95 by default) "
        "to the power t-1, so waiting costs both. If the last offer is rejected there is no "
        "deal and each player gets its own reservation value: a private amount from 0 to 30 "
        "by default, which only its owner knows. A deal worth less to you than your "
        "reservation value is worse than no deal."
    ),
    moves=(
        MoveMeaning(
            "offer",
            "offer",
            "the whole share of the pie you offer the other player; you keep the rest if it "
            "is accepted.",
        ),
        MoveMeaning(
            "accept", "accept", "take the offer on the table: the deal is made and the game ends."
        ),
        MoveMeaning(
            "reject",
            "reject",
            "refuse it: the next round starts with the other player proposing (and a "
            "smaller pie), or, after the last round, no deal.",
        ),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = GameSpec(
    game_type=GAME_ID,
    versioned_id=VERSIONED_ID,
    display_name=DISPLAY_NAME,
    rules_module=__name__,
    min_players=NUM_PLAYERS,
    max_players=NUM_PLAYERS,
    simultaneous=SIMULTANEOUS,
    zero_sum=ZERO_SUM,
    move_types=MOVE_TYPES,
    valid_choices=RESPONSES,
    payoff_bounds=PAYOFF_BOUNDS,
    new_state=BargainingState,
    parameters=DEFAULT_PARAMETERS,
    guide=GUIDE,
)
