"""The catalogue of ``check-player``: every check by its stable name, and the notifications
the run sends, each with the method and message_type it goes by. The report lists the
checks in this order, and doc/conformance.md explains each name."""

from __future__ import annotations

from league_cli.conformance.answers import ENVELOPE_CHECKS
from sdk.messages import (
    GameError,
    GameOver,
    LeagueCompleted,
    LeagueStandingsUpdate,
    Method,
    RoundAnnouncement,
    RoundCompleted,
)

__all__ = ["NOTIFICATIONS", "PLAYER_CHECKS"]

NOTIFICATIONS: dict[str, tuple[str, str]] = {
    "game_error": (Method.NOTIFY_GAME_ERROR, GameError.MESSAGE_TYPE),
    "game_over": (Method.NOTIFY_MATCH_RESULT, GameOver.MESSAGE_TYPE),
    "round_announcement": (Method.NOTIFY_ROUND, RoundAnnouncement.MESSAGE_TYPE),
    "standings_update": (Method.UPDATE_STANDINGS, LeagueStandingsUpdate.MESSAGE_TYPE),
    "round_completed": (Method.NOTIFY_ROUND_COMPLETED, RoundCompleted.MESSAGE_TYPE),
    "league_completed": (Method.NOTIFY_LEAGUE_COMPLETED, LeagueCompleted.MESSAGE_TYPE),
}
"""A notification's check prefix → (its method, its message_type)."""


def _catalogue() -> dict[str, str]:
    checks = {
        "transport.reachable": "the URL accepts a connection and answers the first call",
        "jsonrpc.framing": ENVELOPE_CHECKS["jsonrpc.framing"],
        "jsonrpc.method_names": "the player serves the protocol's method names "
        "(handle_game_invitation...), not only the message_types",
        "invitation.answer": "handle_game_invitation answers with a result object, not an error",
        "invitation.deadline": "GAME_JOIN_ACK arrives within handle_game_invitation's timeout",
        "invitation.fields": "GAME_JOIN_ACK: match_id echoes the invitation's, player_id is the "
        "one addressed, arrival_timestamp is UTC, accept is a JSON boolean",
        "invitation.accept": "the player accepts an even_odd invitation",
        "move.answer": "choose_parity answers with a result object, not an error",
        "move.deadline": "CHOOSE_PARITY_RESPONSE arrives within choose_parity's timeout",
        "move.fields": "CHOOSE_PARITY_RESPONSE: match_id and player_id echo the call's, "
        "parity_choice is present",
        "move.parity_value": 'parity_choice is exactly "even" or "odd"',
    }
    for prefix, (method, message_type) in NOTIFICATIONS.items():
        checks[f"{prefix}.ack"] = (
            f"{method} ({message_type}) is acknowledged: any result (an "
            'object, true, "ack"), not an error'
        )
        checks[f"{prefix}.deadline"] = f"the acknowledgement of {method} arrives within its timeout"
        if prefix == "game_over":
            checks["game_over.survives"] = "the player still accepts calls after GAME_OVER"
    checks.update(
        {
            "player_state.answer": "get_player_state (optional) answers with a result",
            **{name: text for name, text in ENVELOPE_CHECKS.items() if name != "jsonrpc.framing"},
            "match.sequence": "each match is played through: invitation accepted, a legal move in "
            "time, GAME_OVER acknowledged",
            "match.consistency": "the player answers as the same player_id and sender throughout, "
            "each answer naming its own match",
            "bad_input.unknown_method": "an unknown method gets the JSON-RPC error -32601",
            "bad_input.params_array": "params sent as an array are refused (an error), not a crash",
            "bad_input.missing_fields": "a CHOOSE_PARITY_CALL without match_id, player_id, context "
            "and deadline is refused (an error), not a crash",
            "bad_input.wrong_match": "a move call for a match never announced is refused, or "
            "answered for that match",
            "bad_input.wrong_player": "a move call addressed to another player_id is refused",
            "bad_input.auth_missing": "a League Manager message without auth_token gets an answer",
            "bad_input.auth_wrong": (
                "a League Manager message with a wrong auth_token gets an answer"
            ),
        }
    )
    return checks


PLAYER_CHECKS: dict[str, str] = _catalogue()
"""Every check of ``check-player``, by its stable name, with what it checks."""
