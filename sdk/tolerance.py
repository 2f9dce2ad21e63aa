"""What agents in the wild send, and how much of it a league takes.

Published league.v2 agents differ where the protocol text is open or contradicts itself:
they name methods by message_type, answer without the envelope, register with only
``player_meta``, write ``matches_played`` for ``matches_completed``, add fields. A league's
``protocol_mode`` decides: ``lenient`` (a league to play) repairs what it can and notes each
repair as a ``Deviation``; ``strict`` (grading) refuses every repair, naming it. What the
protocol forbids (a wrong parity, a non-UTC timestamp, a missing or wrong token) is refused
in both modes by the message models and the services.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from sdk.errors import ErrorCode, ProtocolError
from sdk.messages import PROTOCOL, Message
from sdk.timeutil import utc_now_str

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
DeviationKind = Literal["missing_envelope_field", "field_variant", "extra_field", "method_alias"]

ENVELOPE_FIELDS = ("protocol", "message_type", "sender", "timestamp", "conversation_id")

_FIELD_VARIANTS: dict[str, dict[str, str]] = {
    # "one version of the text says matches_played": both are the protocol's own words.
    "ROUND_COMPLETED": {"matches_played": "matches_completed"},
}
_NOTED_ONLY: frozenset[str] = frozenset({"extra_field", "field_variant"})
"""Kinds noted in every mode but never refused: extra fields are kept by design, and a field
variant is one the protocol text itself uses."""

_M = TypeVar("_M", bound=Message)


class Deviation(BaseModel):
    """One way a received message differed from the protocol's form."""

    kind: DeviationKind
    field: str | None = None
    detail: str

    @property
    def refusable(self) -> bool:
        return self.kind not in _NOTED_ONLY


def answer_defaults(model: type[Message], *, sender: str, conversation_id: str
                    ) -> dict[str, Any]:
    """What an answer without its envelope is taken to have said: that it comes from the
    agent we called, now, in our conversation."""
    return {"protocol": PROTOCOL, "message_type": model.MESSAGE_TYPE, "sender": sender,
            "timestamp": utc_now_str(), "conversation_id": conversation_id}


def request_defaults(model: type[Message]) -> dict[str, Any]:
    """What a request without its envelope is taken to have said (an unknown sender, who
    then fails any check that needs to know it)."""
    return answer_defaults(model, sender="unknown",
                           conversation_id=f"unnamed-{uuid.uuid4().hex[:12]}")


def repair(model: type[Message], data: dict[str, Any], defaults: Mapping[str, Any]
           ) -> tuple[dict[str, Any], list[Deviation]]:
    """The message in the protocol's form, and every repair it took: missing envelope
    fields filled from ``defaults``, variant field names renamed, extra fields noted."""
    fixed = dict(data)
    deviations: list[Deviation] = []
    for name in ENVELOPE_FIELDS:
        if fixed.get(name) in (None, "") and name in defaults:
            fixed[name] = defaults[name]
            deviations.append(Deviation(kind="missing_envelope_field", field=name,
                                        detail=f"{model.MESSAGE_TYPE} has no {name}"))
    for variant, name in _FIELD_VARIANTS.get(model.MESSAGE_TYPE, {}).items():
        if variant in fixed and name not in fixed:
            fixed[name] = fixed.pop(variant)
            deviations.append(Deviation(kind="field_variant", field=variant,
                                        detail=f"{variant} read as {name}"))
    for name in sorted(set(fixed) - set(model.model_fields)):
        deviations.append(Deviation(kind="extra_field", field=name,
                                    detail=f"{model.MESSAGE_TYPE} carries an unknown field "
                                           f"{name!r} (kept)"))
    return fixed, deviations


def strict_refusal(deviations: list[Deviation]) -> ProtocolError | None:
    """The refusal a strict league answers for these deviations, if any is refusable."""
    refused = [d for d in deviations if d.refusable]
    if not refused:
        return None
    code = (ErrorCode.MESSAGE_TYPE_MISMATCH if any(d.kind == "method_alias" for d in refused)
            else ErrorCode.MISSING_REQUIRED_FIELD)
    return ProtocolError(code, "strict league: " + "; ".join(d.detail for d in refused),
                         {"deviations": [d.model_dump() for d in refused]})


def receive(model: type[_M], data: Any, mode: ProtocolMode, defaults: Mapping[str, Any]
            ) -> tuple[_M, list[Deviation]]:
    """Validate a received message in a league's mode.

    Raises:
        ProtocolError: strict mode and a refusable deviation (E003, or E016 for a method
            named by message_type).
        pydantic.ValidationError: what no mode accepts (the models' own checks).
    """
    if not isinstance(data, dict):
        return model.from_wire(data), []
    fixed, deviations = repair(model, data, defaults)
    refusal = strict_refusal(deviations) if mode == "strict" else None
    if refusal is not None:
        raise refusal
    return model.from_wire(fixed), deviations
