"""The line of the league.v2 protocol each check rests on, quoted in the report beside every
WARN and FAIL, so that a student sees which rule an answer broke (and can tell a rule of
the protocol from a choice of ours, marked so). Keyed by check name, or by the part before
the dot for a family of checks."""

from __future__ import annotations

__all__ = ["PROTOCOL_LINES", "rests_on"]

_ANY_ACK = (
    "league.v2, methods: the notifications (GAME_OVER, GAME_ERROR, "
    "ROUND_ANNOUNCEMENT, LEAGUE_STANDINGS_UPDATE, ROUND_COMPLETED, LEAGUE_COMPLETED) "
    'are answered with "any acknowledgement" within their timeout (GAME_OVER 5 s, '
    "the others 10 s)"
)

_METHOD_NAMES = (
    "league.v2, methods: handle_game_invitation, choose_parity, notify_match_result, "
    "notify_round, update_standings, notify_round_completed, notify_league_completed, "
    "notify_game_error"
)

PROTOCOL_LINES: dict[str, str] = {
    "transport": "league.v2, Transport: every agent is an HTTP server; all protocol traffic is "
    "POST /mcp with a JSON-RPC 2.0 body",
    "jsonrpc.framing": "league.v2, Transport: answers are JSON-RPC 2.0 results "
    '({"jsonrpc": "2.0", "result": ..., "id": N})',
    "jsonrpc.method_names": _METHOD_NAMES,
    "notify.method_names": _METHOD_NAMES,
    "invitation": "league.v2, methods: handle_game_invitation (player) GAME_INVITATION -> "
    "GAME_JOIN_ACK (match_id, player_id, arrival_timestamp, accept: bool), 5 s",
    "move": "league.v2, methods: choose_parity (player) CHOOSE_PARITY_CALL -> "
    'CHOOSE_PARITY_RESPONSE (match_id, player_id, parity_choice: exactly "even" or '
    '"odd"), 30 s',
    "move.parity_value": "league.v2, errors: E004 INVALID_PARITY_CHOICE; CHOOSE_PARITY_RESPONSE "
    'parity_choice is exactly "even" or "odd"',
    "game_error": _ANY_ACK,
    "game_over": _ANY_ACK,
    "game_over.survives": "league.v2, Rules of play: a round robin, so a player is called again "
    "after each GAME_OVER; Agent states: a player that stops answering is SUSPENDED",
    "round_announcement": _ANY_ACK,
    "standings_update": _ANY_ACK,
    "round_completed": _ANY_ACK,
    "league_completed": _ANY_ACK,
    "player_state": "league.v2, methods: get_player_state (player) is a debugging tool (optional)",
    "envelope.fields": "league.v2, Envelope (in every message): protocol, message_type, "
    "sender, timestamp, conversation_id are required",
    "envelope.protocol": 'league.v2, Envelope: protocol is always "league.v2" (E018)',
    "envelope.message_type": "league.v2, methods: each method carries one message_type "
    "(ours: E016 for another)",
    "envelope.sender": "league.v2, Envelope: sender is league_manager (published agents also "
    "use league_manager:LM01), referee:REF01, player:P01",
    "envelope.timestamp": "league.v2, Envelope: timestamp is ISO-8601 in UTC; a local offset "
    "or none is refused with E021 (ours: the protocol's form is "
    "YYYY-MM-DDTHH:MM:SSZ, a strict league takes no other)",
    "envelope.conversation_id": "league.v2, Envelope: conversation_id correlates a whole "
    "exchange (e.g. one match)",
    "match": "league.v2, JSON-RPC methods: handle_game_invitation (GAME_INVITATION -> "
    "GAME_JOIN_ACK), the move call, notify_match_result (GAME_OVER) to both players",
    "bad_input": "JSON-RPC 2.0 (the protocol's transport): -32601 method not found, -32602 "
    "invalid params; league-level refusals as LEAGUE_ERROR (E003, E005, E011, "
    "E012)",
    "register_referee": "league.v2, methods: register_referee (LM) REFEREE_REGISTER_REQUEST -> "
    "REFEREE_REGISTER_RESPONSE (status, referee_id, auth_token, league_id, "
    "reason), 10 s",
    "register_player": "league.v2, methods: register_player (LM) LEAGUE_REGISTER_REQUEST -> "
    "LEAGUE_REGISTER_RESPONSE (status, player_id, auth_token, league_id, "
    "reason), 10 s",
    "query": "league.v2, methods: league_query (LM) LEAGUE_QUERY -> LEAGUE_QUERY_RESPONSE; "
    "the auth_token is required after registration (E011 missing, E012 invalid)",
    "get_standings": "league.v2, methods: get_standings (LM) -> the standings object",
    "league": "ours: POST /start_league starts a league of our League Manager",
    "referee": "ours: start_match (START_MATCH) and report_match_result (MATCH_RESULT_REPORT "
    "-> an acknowledgement)",
    "notify": "league.v2, methods: notify_round, update_standings, notify_round_completed, "
    "notify_league_completed carry ROUND_ANNOUNCEMENT, LEAGUE_STANDINGS_UPDATE, "
    "ROUND_COMPLETED, LEAGUE_COMPLETED",
    "notify.auth_token": "league.v2, Envelope: auth_token is issued at registration; a token "
    "goes to nobody but its owner (ours: DESIGN, security)",
}


def rests_on(check: str) -> str | None:
    """The protocol line ``check`` rests on (its own, else its family's)."""
    return PROTOCOL_LINES.get(check) or PROTOCOL_LINES.get(check.split(".", 1)[0])
