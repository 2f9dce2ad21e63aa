"""The variations published league.v2 agents show in particular fields, each read into the
protocol's form and noted as a ``Deviation`` (``sdk.tolerance`` decides, by the league's
protocol mode, whether a deviation is taken or refused):

- a timestamp in an ISO-8601 form other than the protocol's (``20261121T041449Z``);
- the League Manager signing in the form the league does not use (``league_manager`` and
  ``league_manager:LM01`` are both in use);
- a GAME_OVER whose result sits at the top level (``match_id``, ``winner_id``,
  ``drawn_number``, ``choices``) instead of in ``game_result``;
- a GAME_OVER ``status`` told from the recipient's side (``"LOSS"``) or in another case
  (``"win"``).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from sdk.messages import Message
from sdk.timeutil import PROTOCOL_TIMESTAMP_FORM, parse_utc, protocol_form

__all__ = [
    "Deviation",
    "DeviationKind",
    "LEAGUE_MANAGER",
    "RECIPIENT_STATUS",
    "game_over_shapes",
    "is_league_manager",
    "sender_form",
    "timestamp_forms",
]

DeviationKind = Literal[
    "missing_envelope_field",
    "field_variant",
    "extra_field",
    "method_alias",
    "timestamp_form",
    "sender_form",
    "result_shape",
    "status_value",
]

LEAGUE_MANAGER = "league_manager"
"""The League Manager's sender in the protocol's examples; published agents also write
``league_manager:<id>``."""

_NOTED_ONLY: frozenset[str] = frozenset({"extra_field", "field_variant"})
"""Kinds noted in every mode but never refused: extra fields are kept by design, and a field
variant is one the protocol text itself uses."""

RECIPIENT_STATUS = "recipient_status"
"""Where a GAME_OVER's status told from the recipient's side (``WIN``/``LOSS`` without a
winner named) is kept, in ``game_result``, for the recipient to read its outcome."""

_STATUSES = ("WIN", "DRAW", "TECHNICAL_LOSS")
_RESULT_FIELDS = (
    "status",
    "winner_player_id",
    "winner_id",
    "drawn_number",
    "number_parity",
    "choices",
    "reason",
)


class Deviation(BaseModel):
    """One way a received message differed from the protocol's form."""

    kind: DeviationKind
    field: str | None = None
    detail: str

    @property
    def refusable(self) -> bool:
        return self.kind not in _NOTED_ONLY


def is_league_manager(sender: Any) -> bool:
    """Whether ``sender`` names the League Manager, in either form in use."""
    return isinstance(sender, str) and (
        sender == LEAGUE_MANAGER or sender.startswith(LEAGUE_MANAGER + ":")
    )


@cache
def _timestamp_fields(model: type[Message]) -> tuple[str, ...]:
    return tuple(
        name
        for name, info in model.model_fields.items()
        if info.annotation in (datetime, datetime | None)
    )


def timestamp_forms(model: type[Message], data: dict[str, Any]) -> list[Deviation]:
    """A deviation for each timestamp that is ISO-8601 in UTC but not in the protocol's form
    (one that is not UTC ISO-8601 at all is the model's to refuse, E021, in every mode)."""
    deviations = []
    for name in _timestamp_fields(model):
        value = data.get(name)
        if not isinstance(value, str) or protocol_form(value):
            continue
        try:
            parse_utc(value)
        except ValueError:
            continue
        deviations.append(
            Deviation(
                kind="timestamp_form",
                field=name,
                detail=f"{name} {value!r} is ISO-8601 in UTC, but not in the protocol's form "
                f"{PROTOCOL_TIMESTAMP_FORM}",
            )
        )
    return deviations


def sender_form(data: dict[str, Any], league_manager_sender: str | None) -> list[Deviation]:
    """A deviation when the League Manager signs in another form than ``league_manager_sender``
    (the form this league's League Manager uses; None: either is expected)."""
    sender = data.get("sender")
    if (
        league_manager_sender is None
        or not is_league_manager(sender)
        or sender == league_manager_sender
    ):
        return []
    return [
        Deviation(
            kind="sender_form",
            field="sender",
            detail=f"sender {sender!r} names the League Manager, which signs "
            f"{league_manager_sender!r} in this league "
            "(system.json league_manager_sender)",
        )
    ]


def game_over_shapes(data: dict[str, Any]) -> list[Deviation]:
    """Read a GAME_OVER's result into ``game_result`` (in place): lifted from the top level,
    ``winner_id`` read as ``winner_player_id``, its status in the protocol's words. A
    GAME_OVER with no result at all is left for the model to refuse (E003)."""
    deviations = []
    if "game_result" not in data:
        flat = {name: data.pop(name) for name in _RESULT_FIELDS if name in data}
        if not flat:
            return []
        data["game_result"] = flat
        deviations.append(
            Deviation(
                kind="result_shape",
                field="game_result",
                detail="GAME_OVER has no game_result object; its result was read from the top "
                f"level ({', '.join(flat)})",
            )
        )
        if "game_type" not in data and "drawn_number" in flat:
            data["game_type"] = "even_odd"
            deviations.append(
                Deviation(
                    kind="result_shape",
                    field="game_type",
                    detail="GAME_OVER has no game_type; a drawn_number is even/odd's: read as "
                    "'even_odd'",
                )
            )
    result = data["game_result"]
    if not isinstance(result, dict):
        return deviations
    if "winner_id" in result and "winner_player_id" not in result:
        result["winner_player_id"] = result.pop("winner_id")
        deviations.append(
            Deviation(
                kind="result_shape",
                field="game_result.winner_id",
                detail="game_result.winner_id read as winner_player_id",
            )
        )
    return deviations + _status(result)


def _status(result: dict[str, Any]) -> list[Deviation]:
    """``status`` in the protocol's words: missing (a top-level result names only its winner)
    from the winner; another case upper-cased; ``LOSS``, or ``WIN`` naming no winner, told
    from the recipient's side, kept as ``recipient_status`` for the recipient."""
    status = result.get("status")
    winner = result.get("winner_player_id")
    field = "game_result.status"
    expected = f"the protocol's statuses are {', '.join(_STATUSES)}"
    if status is None:
        result["status"] = "WIN" if winner else "DRAW"
        return [
            Deviation(
                kind="status_value",
                field=field,
                detail=f"GAME_OVER has no {field}; read as {result['status']!r} from its winner",
            )
        ]
    if not isinstance(status, str):
        return []  # the model refuses it
    told = status.strip().upper()
    if told not in (*_STATUSES, "LOSS") or (status in _STATUSES and (winner or told != "WIN")):
        return []  # the protocol's own status, or one the model refuses
    if told in ("WIN", "LOSS") and not winner:
        result["status"] = "WIN"
        result[RECIPIENT_STATUS] = told
        return [
            Deviation(
                kind="status_value",
                field=field,
                detail=f"{field} {status!r} names no winner: read as the "
                f"recipient's {told} ({expected})",
            )
        ]
    result["status"] = "WIN" if told == "LOSS" else told
    return [
        Deviation(
            kind="status_value",
            field=field,
            detail=f"{field} {status!r} read as {result['status']!r}"
            + (" for the winner, the recipient's LOSS" if told == "LOSS" else "")
            + f" ({expected})",
        )
    ]
