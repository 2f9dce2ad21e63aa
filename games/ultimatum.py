"""The ultimatum game (``ultimatum``, version 1): one offer, take it or leave it.

Rules
    Two players, two stages, in turn. PLAYER_A, the proposer, offers the responder
    (PLAYER_B) a whole amount from 0 to ``pie``. The responder, having seen the offer,
    accepts or rejects it. Accepted: the proposer keeps ``pie - offer``, the responder gets
    ``offer``. Rejected: both get 0. Then the game is over.

Actions
    Stage 1, proposer: an integer from 0 to ``pie`` (``ActionSpace.number(0, pie,
    integer=True)``; ``legal_actions`` is ``[]``). Stage 2, responder: the protocol strings
    ``"accept"`` or ``"reject"`` (``legal_actions`` gives both, sorted). At each stage
    ``acting_players()`` names the one player who moves; the other's space is empty.

Observation (``observation(player)``)
    Perfect information: ``player_id``, ``role`` (``"proposer"``/``"responder"``),
    ``opponent_id``, ``pie``, ``stage`` (``"offer"``, ``"response"``, ``"over"``),
    ``to_move``, ``offer``, ``response``, ``action_space``, ``legal_actions``, ``returns``,
    ``terminal``.

Payoffs (``rewards()`` = ``returns()``, paid at the end)
    ========  ============  =========
    response  proposer      responder
    ========  ============  =========
    accept    pie - offer   offer
    reject    0             0
    ========  ============  =========
    General-sum (constant-sum only on acceptance); bounds [0, 10] with the default pie.

Parameters (defaults)
    ``pie`` 10 (1 to 1000000). Randomness: none.

Version history
    1: integer offers, one round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from games import offers
from games.guide import Guide, MoveMeaning
from games.offers import MOVE_TYPES, RESPONSES, OfferStages
from games.params import check_int
from games.spec import ActionSpace, GameSpec, check_players

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_ID",
    "GAME_VERSION",
    "SPEC",
    "VERSIONED_ID",
    "Response",
    "UltimatumState",
    "split",
]


class Response(str, Enum):
    """The responder's answer, as it travels."""

    ACCEPT = offers.ACCEPT
    REJECT = offers.REJECT


GAME_ID = "ultimatum"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Ultimatum Game"
NUM_PLAYERS = 2
ROLES = ("proposer", "responder")
SIMULTANEOUS = False
ZERO_SUM = False
DEFAULT_PARAMETERS: dict[str, Any] = {"pie": 10}
PAYOFF_BOUNDS = (0.0, float(DEFAULT_PARAMETERS["pie"]))
MAX_PIE = 1_000_000


def split(pie: int, offer: int, response: Response) -> tuple[float, float]:
    """(proposer, responder) payoffs of ``offer`` out of ``pie`` and the response.

    Raises:
        ValueError: an offer outside 0..pie.
    """
    if not 0 <= offer <= pie:
        raise ValueError(f"an offer is from 0 to the pie {pie}, not {offer}")
    if Response(response) is Response.REJECT:
        return 0.0, 0.0
    return float(pie - offer), float(offer)


class UltimatumState(OfferStages):
    """One ultimatum game: PLAYER_A proposes, PLAYER_B responds."""

    def __init__(self, player_ids: Sequence[str], *, pie: int = DEFAULT_PARAMETERS["pie"]):
        self._players = check_players(player_ids, NUM_PLAYERS, NUM_PLAYERS)
        self.pie = check_int("pie", pie, 1, MAX_PIE)
        self._offer_space = ActionSpace.number(0, pie, integer=True)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """No offer yet (no chance move: the seed changes nothing)."""
        self._offer: int | None = None
        self._response: Response | None = None

    def is_terminal(self) -> bool:
        return self._response is not None

    def _proposer_seat(self) -> int:
        """PLAYER_A always proposes."""
        return 0

    def step(self, actions: Mapping[str, Any]) -> None:
        """The proposer's offer, then the responder's answer.

        Raises:
            ValueError: the game is over, the wrong player moves, or the move is not a
                whole offer in 0..pie (resp. ``"accept"``/``"reject"``).
        """
        self._check_joint_action(actions)
        (mover,) = self.acting_players()
        if self._offer is None:
            self._offer = int(actions[mover])
        else:
            self._response = Response(actions[mover])

    def rewards(self) -> dict[str, float]:
        if self._offer is None or self._response is None:
            return dict.fromkeys(self._players, 0.0)
        return dict(zip(self._players, split(self.pie, self._offer, self._response), strict=True))

    def returns(self) -> dict[str, float]:
        return self.rewards()

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: everything (perfect information) and its own role."""
        self._check_player(player)
        seat = self._players.index(player)
        acting = self.acting_players()
        return {
            "player_id": player,
            "role": ROLES[seat],
            "opponent_id": self._players[1 - seat],
            "pie": self.pie,
            "stage": self._stage(),
            "to_move": acting[0] if acting else None,
            "offer": self._offer,
            "response": self._response.value if self._response else None,
            "action_space": self.action_space(player).describe(),
            "legal_actions": self.legal_actions(player),
            "returns": self.returns(),
            "terminal": self.is_terminal(),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state: pie, offer, response, returns."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "pie": self.pie,
            "offer": self._offer,
            "response": self._response.value if self._response else None,
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


GUIDE = Guide(
    rules=(
        "The proposer (the first player) offers the responder a whole amount of a pie (10 "
        "by default); the responder accepts or rejects it. Accepted, the responder gets the "
        "offer and the proposer keeps the rest; rejected, both get 0. One offer, then the "
        "game is over."
    ),
    moves=(
        MoveMeaning(
            "offer",
            "offer",
            "the amount you offer the responder; you keep the rest if it is accepted.",
        ),
        MoveMeaning("accept", "accept", "take the offer: you get it, the proposer keeps the rest."),
        MoveMeaning("reject", "reject", "refuse the offer: both players get 0."),
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
    new_state=UltimatumState,
    parameters=DEFAULT_PARAMETERS,
    guide=GUIDE,
)
