"""The action space of a move call, checked before the strategy draws from it: a space that
no move can be drawn from, or whose move could not be answered exactly, is refused (E002)
rather than stalling or corrupting the player."""

from __future__ import annotations

from typing import Any

from games.spec import ActionSpace
from sdk.errors import ErrorCode, ProtocolError

__all__ = ["MAX_ALLOCATION_SIZE", "check_move_space"]

MAX_ALLOCATION_SIZE = 10_000
"""The largest allocation a move call may ask for (ours: Colonel Blotto allows 100
battlefields); drawing a move of a larger one would stall the player."""
_EXACT_INTEGERS = 2**53
"""Integers beyond this lose their value in many JSON readers (and in our log writer)."""


def check_move_space(space: Any) -> None:
    """Refuse (E002) a move call's action space that no move can be drawn from and answered:
    not a space's description, no legal move, bounds that are not numbers, or a move too
    large to draw or to send."""
    field = "move_request.context.action_space"
    if not isinstance(space, dict):
        raise ProtocolError(
            ErrorCode.INVALID_FIELD_VALUE,
            f'{field} must be an object such as {{"kind": "choice", "choices": [...]}}',
        )
    try:
        parsed = ActionSpace.from_description(space)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE, f"{field}: {exc}") from None
    bounds = (parsed.low, parsed.high)
    problem = None
    if parsed.empty:
        problem = "no move is legal in an empty choice"
    elif parsed.kind == "number" and not all(isinstance(b, (int, float)) for b in bounds):
        problem = f"the bounds of a number space must be numbers, not {bounds!r}"
    elif parsed.kind == "number" and parsed.integer and max(map(abs, bounds)) > _EXACT_INTEGERS:
        problem = "integer bounds beyond ±2^53 cannot be answered exactly"
    elif parsed.kind == "allocation" and parsed.size > MAX_ALLOCATION_SIZE:
        problem = (
            f"an allocation over {parsed.size} places; this player plays at most "
            f"{MAX_ALLOCATION_SIZE}"
        )
    elif parsed.kind == "allocation" and parsed.total > _EXACT_INTEGERS:
        problem = "an allocation total beyond 2^53 cannot be answered exactly"
    if problem:
        raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE, f"{field}: {problem}")
