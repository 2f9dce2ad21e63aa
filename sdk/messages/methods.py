"""The protocol's JSON-RPC methods by name: one catalogue that the agents, the conformance
kit and the benchmarks use instead of string literals, and the timeout that the league.v2
text gives each (``SHARED/config/system.json`` may set others)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ["PROTOCOL_TIMEOUTS_SEC", "Method"]


class Method:
    """The method names, as plain ``str`` constants rather than an Enum: they go on the wire
    and into ``system.json``'s keys as they are, and a ``str`` Enum's ``format`` changed
    between Python 3.10 and 3.12."""

    REGISTER_REFEREE: Final = "register_referee"
    REGISTER_PLAYER: Final = "register_player"
    REPORT_MATCH_RESULT: Final = "report_match_result"
    LEAGUE_QUERY: Final = "league_query"
    GET_STANDINGS: Final = "get_standings"
    START_MATCH: Final = "start_match"
    """Ours: the League Manager hands a match to a referee."""
    HANDLE_GAME_INVITATION: Final = "handle_game_invitation"
    CHOOSE_PARITY: Final = "choose_parity"
    """Carries CHOOSE_PARITY_CALL (even/odd)."""
    MAKE_MOVE: Final = "make_move"
    """Ours: carries GAME_MOVE_CALL for every other game."""
    NOTIFY_MATCH_RESULT: Final = "notify_match_result"
    NOTIFY_ROUND: Final = "notify_round"
    UPDATE_STANDINGS: Final = "update_standings"
    NOTIFY_ROUND_COMPLETED: Final = "notify_round_completed"
    NOTIFY_LEAGUE_COMPLETED: Final = "notify_league_completed"
    NOTIFY_GAME_ERROR: Final = "notify_game_error"
    GET_MATCH_STATE: Final = "get_match_state"
    GET_PLAYER_STATE: Final = "get_player_state"
    GET_PLAY_PROOF: Final = "get_play_proof"
    """Ours: the play service asks the League Manager for a player's proof of a friendly
    game."""


PROTOCOL_TIMEOUTS_SEC: Final[Mapping[str, float]] = MappingProxyType(
    {
        Method.REGISTER_REFEREE: 10,
        Method.REGISTER_PLAYER: 10,
        Method.REPORT_MATCH_RESULT: 10,
        Method.LEAGUE_QUERY: 10,
        Method.GET_STANDINGS: 10,
        Method.HANDLE_GAME_INVITATION: 5,
        Method.CHOOSE_PARITY: 30,
        Method.NOTIFY_MATCH_RESULT: 5,
        Method.NOTIFY_ROUND: 10,
        Method.UPDATE_STANDINGS: 10,
        Method.NOTIFY_ROUND_COMPLETED: 10,
        Method.NOTIFY_LEAGUE_COMPLETED: 10,
        Method.NOTIFY_GAME_ERROR: 10,
        Method.GET_MATCH_STATE: 10,
        Method.GET_PLAYER_STATE: 10,
    }
)
"""The league.v2 text's timeouts, in seconds, of the methods it names."""
