"""The move the ``llm`` strategy plays when its model gives none in time: what a careful
person would play, read from the player's own observation. A default that accepts every
offer loses money to any greedy opponent; these never accept less than the player can get
without a deal, never bid more than the item is worth to them, and take the move whose
worst case is best where there is no more to go on.

Per game: a response to an offer accepts it only when it is worth at least the player's
reservation value (bargaining, discount applied) or more than nothing (ultimatum); an
offer is half the pie (bargaining: less if half would leave the proposer under its
reservation value); a bid is the player's value in a second-price auction and half of it
in a first-price one; a punishment spends no point; tic-tac-toe takes the centre, then a
corner; a matrix game the maximin move. Anything else, a fixed legal move (the first
choice, the lowest number, the total spread evenly).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from games.matrix import parse_table
from games.spec import Action, ActionSpace

__all__ = ["careful_move", "default_move", "fixed_move"]

_ACCEPT, _REJECT = "accept", "reject"
_CELLS = ("4", "0", "2", "6", "8")
"""Tic-tac-toe's centre, then its corners."""


def fixed_move(space: ActionSpace) -> Action:
    """A deterministic legal move: the first choice, the lowest number, or the total spread
    evenly (the remainder to the first places).

    Raises:
        ValueError: the space is an empty choice (nothing is legal).
    """
    if space.kind == "choice":
        if not space.choices:
            raise ValueError("no move is legal now")
        return space.choices[0]
    if space.kind == "number":
        return math.ceil(space.low) if space.integer else space.low
    share, extra = divmod(space.total, space.size)
    return [share + (1 if i < extra else 0) for i in range(space.size)]


def _number(space: ActionSpace, value: float) -> Action:
    """``value`` as a legal number of ``space`` (rounded down when whole, clipped)."""
    value = min(max(value, space.low), space.high)
    return max(math.ceil(space.low), math.floor(value)) if space.integer else value


def _factor(observation: Mapping[str, Any]) -> float:
    """What a share is worth now: the discount to the power (round - 1)."""
    return float(observation.get("discount", 1.0)) ** (int(observation.get("round") or 1) - 1)


def _reservation(observation: Mapping[str, Any]) -> float:
    private = observation.get("private")
    return float(private.get("reservation_value", 0)) if isinstance(private, Mapping) else 0.0


def _respond(game_type: str, observation: Mapping[str, Any]) -> str:
    offer = float(observation.get("offer") or 0)
    if game_type == "ultimatum":
        return _ACCEPT if offer > 0 else _REJECT
    worth = offer * _factor(observation)
    return _ACCEPT if worth > 0 and worth >= _reservation(observation) else _REJECT


def _offer(game_type: str, observation: Mapping[str, Any], space: ActionSpace) -> Action:
    pie = float(observation.get("pie", space.high))
    keep = pie / 2
    factor = _factor(observation)
    if game_type == "bargaining" and factor > 0:
        keep = max(keep, math.ceil(_reservation(observation) / factor))
    return _number(space, pie - math.ceil(keep))


def _bid(game_type: str, observation: Mapping[str, Any], space: ActionSpace) -> Action:
    private = observation.get("private")
    value = float(private.get("value", 0)) if isinstance(private, Mapping) else 0.0
    return _number(space, value if game_type == "auction_second_price" else value / 2)


def _maximin(observation: Mapping[str, Any], space: ActionSpace) -> Action | None:
    """The choice whose worst payoff is best, from the table the observation shows."""
    parameters = observation.get("parameters")
    players = observation.get("players")
    seat = observation.get("seat")
    if not (isinstance(parameters, Mapping) and isinstance(players, list)):
        return None
    if not isinstance(seat, int):
        return None
    table = parse_table(parameters["actions"], parameters["payoffs"], len(players))
    worst = {
        action: min(p[seat] for profile, p in table.payoffs.items() if profile[seat] == action)
        for action in table.actions[seat]
    }
    best = [choice for choice in space.choices if choice in worst]
    return max(best, key=lambda choice: worst[choice]) if best else None


def careful_move(game_type: str, observation: Mapping[str, Any], space: ActionSpace) -> Action:
    """What a careful player plays now (see the module's docstring); always legal.

    Raises:
        ValueError: the space is an empty choice (nothing is legal).
    """
    try:
        move = _careful(game_type, observation, space)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        move = None  # an observation of another shape: no more to go on
    return move if move is not None and space.contains(move) else fixed_move(space)


def _careful(game_type: str, observation: Mapping[str, Any], space: ActionSpace) -> Action | None:
    if space.kind == "choice":
        if set(space.choices) == {_ACCEPT, _REJECT}:
            return _respond(game_type, observation)
        if game_type == "tic_tac_toe":
            return next((cell for cell in _CELLS if cell in space.choices), None)
        return _maximin(observation, space)
    if space.kind == "number":
        if game_type in ("bargaining", "ultimatum"):
            return _offer(game_type, observation, space)
        if game_type.startswith("auction_"):
            return _bid(game_type, observation, space)
        return None
    if observation.get("stage") == "punishment" and isinstance(observation.get("seat"), int):
        spent = [0] * space.size
        spent[observation["seat"]] = space.total  # points at one's own seat punish nobody
        return spent
    return None


def default_move(
    space: ActionSpace,
    declared: Any = None,
    *,
    game_type: str = "",
    observation: Mapping[str, Any] | None = None,
) -> Action:
    """The fallback move: ``declared`` (the ``default_move`` option) when it is legal
    here, else ``careful_move``.

    Raises:
        ValueError: the space is an empty choice (nothing is legal).
    """
    if declared is not None and space.contains(declared):
        return declared
    return careful_move(game_type, observation or {}, space)
