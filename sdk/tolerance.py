"""What agents in the wild send, and how much of it a league takes.

Published league.v2 agents differ where the protocol text is open or contradicts itself:
they name methods by message_type, answer without the envelope, register with only
``player_meta``, write ``matches_played`` for ``matches_completed``, add fields, write
timestamps in other ISO-8601 forms, sign as ``league_manager:LM01``, send GAME_OVER's
result without ``game_result`` or from the recipient's side (``sdk.variants``). A league's
``protocol_mode`` decides: ``lenient`` (a league to play) repairs what it can and notes each
repair as a ``Deviation``; ``strict`` (grading) refuses every repair, naming it. What the
protocol forbids (a wrong parity, a non-UTC timestamp, a missing or wrong token) is refused
in both modes by the message models and the services.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from sdk.errors import ErrorCode, ProtocolError
from sdk.messages import PROTOCOL, GameOver, Message, RoundCompleted
from sdk.timeutil import utc_now_str
from sdk.variants import Deviation, game_over_shapes, sender_form, timestamp_forms

__all__ = [
    "Deviation",
    "ENVELOPE_FIELDS",
    "answer_defaults",
    "ProtocolMode",
    "receive",
    "repair",
    "request_defaults",
    "strict_refusal",
]

ProtocolMode = Literal["lenient", "strict"]

ENVELOPE_FIELDS = ("protocol", "message_type", "sender", "timestamp", "conversation_id")

_FIELD_VARIANTS: dict[str, dict[str, str]] = {
    # "one version of the text says matches_played": both are the protocol's own words.
    RoundCompleted.MESSAGE_TYPE: {"matches_played": "matches_completed"},
}
_REFUSAL_CODES: tuple[tuple[str, ErrorCode], ...] = (
    ("method_alias", ErrorCode.MESSAGE_TYPE_MISMATCH),
    ("missing_envelope_field", ErrorCode.MISSING_REQUIRED_FIELD),
    ("result_shape", ErrorCode.MISSING_REQUIRED_FIELD),
    ("timestamp_form", ErrorCode.INVALID_TIMESTAMP),
    ("status_value", ErrorCode.INVALID_FIELD_VALUE),
    ("sender_form", ErrorCode.INVALID_FIELD_VALUE),
)
"""The code a strict league refuses each kind with, the first kind present deciding."""

_M = TypeVar("_M", bound=Message)


def answer_defaults(model: type[Message], *, sender: str, conversation_id: str) -> dict[str, Any]:
    """What an answer without its envelope is taken to have said: that it comes from the
    agent we called, now, in our conversation."""
    return {
        "protocol": PROTOCOL,
        "message_type": model.MESSAGE_TYPE,
        "sender": sender,
        "timestamp": utc_now_str(),
        "conversation_id": conversation_id,
    }


def request_defaults(model: type[Message]) -> dict[str, Any]:
    """What a request without its envelope is taken to have said (an unknown sender, who
    then fails any check that needs to know it)."""
    return answer_defaults(
        model, sender="unknown", conversation_id=f"unnamed-{uuid.uuid4().hex[:12]}"
    )


def repair(
    model: type[Message],
    data: dict[str, Any],
    defaults: Mapping[str, Any],
    *,
    league_manager_sender: str | None = None,
) -> tuple[dict[str, Any], list[Deviation]]:
    """The message in the protocol's form, and every repair it took: missing envelope
    fields filled from ``defaults``, variant field names renamed, GAME_OVER's result read
    into its form, timestamps in other ISO-8601 forms and the League Manager signing in
    another form than ``league_manager_sender`` (None: either) noted, extra fields noted."""
    fixed = dict(data)
    deviations: list[Deviation] = timestamp_forms(model, fixed)
    deviations += sender_form(fixed, league_manager_sender)
    if model is GameOver:
        if isinstance(fixed.get("game_result"), dict):
            fixed["game_result"] = dict(fixed["game_result"])
        deviations += game_over_shapes(fixed)
    for name in ENVELOPE_FIELDS:
        if fixed.get(name) in (None, "") and name in defaults:
            fixed[name] = defaults[name]
            deviations.append(
                Deviation(
                    kind="missing_envelope_field",
                    field=name,
                    detail=f"{model.MESSAGE_TYPE} has no {name}",
                )
            )
    for variant, name in _FIELD_VARIANTS.get(model.MESSAGE_TYPE, {}).items():
        if variant in fixed and name not in fixed:
            fixed[name] = fixed.pop(variant)
            deviations.append(
                Deviation(kind="field_variant", field=variant, detail=f"{variant} read as {name}")
            )
    for name in sorted(set(fixed) - set(model.model_fields)):
        deviations.append(
            Deviation(
                kind="extra_field",
                field=name,
                detail=f"{model.MESSAGE_TYPE} carries an unknown field {name!r} (kept)",
            )
        )
    return fixed, deviations


def strict_refusal(deviations: list[Deviation]) -> ProtocolError | None:
    """The refusal a strict league answers for these deviations, if any is refusable."""
    refused = [d for d in deviations if d.refusable]
    if not refused:
        return None
    kinds = {d.kind for d in refused}
    code = next(code for kind, code in _REFUSAL_CODES if kind in kinds)
    return ProtocolError(
        code,
        "strict league: " + "; ".join(d.detail for d in refused),
        {"deviations": [d.model_dump() for d in refused]},
    )


def receive(
    model: type[_M],
    data: Any,
    mode: ProtocolMode,
    defaults: Mapping[str, Any],
    *,
    league_manager_sender: str | None = None,
) -> tuple[_M, list[Deviation]]:
    """Validate a received message in a league's mode.

    Raises:
        ProtocolError: strict mode and a refusable deviation (``_REFUSAL_CODES``: E016 a
            method named by message_type, E003 a missing envelope field or result, E021 a
            timestamp not in the protocol's form, E002 a status or sender in another form).
        pydantic.ValidationError: what no mode accepts (the models' own checks).
    """
    if not isinstance(data, dict):
        return model.from_wire(data), []
    fixed, deviations = repair(model, data, defaults, league_manager_sender=league_manager_sender)
    refusal = strict_refusal(deviations) if mode == "strict" else None
    if refusal is not None:
        raise refusal
    return model.from_wire(fixed), deviations
