"""One valid wire form of every message: the examples of doc/messages.md, of the tests and
of the conformance kit."""

from __future__ import annotations

import copy
from typing import Any

ENVELOPE: dict[str, Any] = {
    "protocol": "league.v2",
    "sender": "league_manager",
    "timestamp": "2025-01-15T10:30:00Z",
    "conversation_id": "conv-001",
}

_BODIES: dict[str, dict[str, Any]] = {
    "REFEREE_REGISTER_REQUEST": {
        "sender": "referee:unregistered",
        "auth_token": "the-league-referee-secret",
        "referee_meta": {
            "display_name": "Referee Alpha",
            "version": "1.0.0",
            "game_types": ["even_odd"],
            "contact_endpoint": "http://127.0.0.1:8001/mcp",
            "max_concurrent_matches": 2,
        },
    },
    "REFEREE_REGISTER_RESPONSE": {
        "status": "ACCEPTED",
        "referee_id": "REF01",
        "auth_token": "tok-ref-01",
        "league_id": "league_2025_even_odd",
        "reason": None,
        "auth_proofs": "hmac-sha256-v1",
    },
    "LEAGUE_REGISTER_REQUEST": {
        "sender": "player:unregistered",
        "player_meta": {
            "display_name": "Alice",
            "version": "1.0.0",
            "game_types": ["even_odd"],
            "contact_endpoint": "http://127.0.0.1:8101/mcp",
            "protocol_version": "2.1.0",
        },
    },
    "LEAGUE_REGISTER_RESPONSE": {
        "status": "ACCEPTED",
        "player_id": "P01",
        "auth_token": "tok-p01",
        "league_id": "league_2025_even_odd",
        "reason": None,
        "auth_proofs": "hmac-sha256-v1",
    },
    "MATCH_RESULT_REPORT": {
        "sender": "referee:REF01",
        "auth_token": "tok-ref-01",
        "league_id": "league_2025_even_odd",
        "round_id": 1,
        "match_id": "R1M1",
        "game_type": "even_odd",
        "result": {"winner": "P01", "score": {"P01": 3, "P02": 0}, "details": {"drawn_number": 8}},
    },
    "LEAGUE_QUERY": {
        "sender": "player:P01",
        "auth_token": "tok-p01",
        "league_id": "league_2025_even_odd",
        "query_type": "GET_NEXT_MATCH",
        "query_params": {"player_id": "P01"},
    },
    "LEAGUE_QUERY_RESPONSE": {
        "query_type": "GET_NEXT_MATCH",
        "success": True,
        "data": {"match_id": "R2M1"},
        "error": None,
    },
    "GAME_INVITATION": {
        "sender": "referee:REF01",
        "league_id": "league_2025_even_odd",
        "round_id": 1,
        "match_id": "R1M1",
        "game_type": "even_odd",
        "role_in_match": "PLAYER_A",
        "opponent_id": "P02",
    },
    "GAME_JOIN_ACK": {
        "sender": "player:P01",
        "match_id": "R1M1",
        "player_id": "P01",
        "arrival_timestamp": "2025-01-15T10:30:01Z",
        "accept": True,
    },
    "CHOOSE_PARITY_CALL": {
        "sender": "referee:REF01",
        "match_id": "R1M1",
        "player_id": "P01",
        "game_type": "even_odd",
        "context": {
            "opponent_id": "P02",
            "round_id": 1,
            "your_standings": {"wins": 1, "losses": 0, "draws": 2},
        },
        "deadline": "2025-01-15T10:30:30Z",
    },
    "CHOOSE_PARITY_RESPONSE": {
        "sender": "player:P01",
        "match_id": "R1M1",
        "player_id": "P01",
        "parity_choice": "even",
    },
    "GAME_OVER": {
        "sender": "referee:REF01",
        "match_id": "R1M1",
        "game_type": "even_odd",
        "game_result": {
            "status": "WIN",
            "winner_player_id": "P01",
            "drawn_number": 8,
            "number_parity": "even",
            "choices": {"P01": "even", "P02": "odd"},
            "reason": "P01 chose even, number was 8",
        },
    },
    "ROUND_ANNOUNCEMENT": {
        "league_id": "league_2025_even_odd",
        "round_id": 1,
        "matches": [
            {
                "match_id": "R1M1",
                "game_type": "even_odd",
                "player_A_id": "P01",
                "player_B_id": "P02",
                "referee_endpoint": "http://127.0.0.1:8001/mcp",
            }
        ],
    },
    "LEAGUE_STANDINGS_UPDATE": {
        "league_id": "league_2025_even_odd",
        "round_id": 1,
        "standings": [
            {
                "rank": 1,
                "player_id": "P01",
                "display_name": "Alice",
                "played": 1,
                "wins": 1,
                "draws": 0,
                "losses": 0,
                "points": 3,
                "technical_losses": 0,
            }
        ],
    },
    "ROUND_COMPLETED": {
        "league_id": "league_2025_even_odd",
        "round_id": 1,
        "matches_completed": 2,
        "next_round_id": 2,
        "summary": {"total_matches": 2, "wins": 1, "draws": 1, "technical_losses": 0},
    },
    "LEAGUE_COMPLETED": {
        "league_id": "league_2025_even_odd",
        "total_rounds": 3,
        "total_matches": 6,
        "champion": {"player_id": "P01", "display_name": "Alice", "points": 9},
        "final_standings": [
            {"rank": 1, "player_id": "P01", "points": 9},
            {"rank": 2, "player_id": "P02", "points": 4},
        ],
    },
    "GAME_ERROR": {
        "sender": "referee:REF01",
        "match_id": "R1M1",
        "error_code": "E001",
        "error_description": "no answer to choose_parity within 30 s",
        "affected_player": "P02",
        "action_required": "answer choose_parity",
        "retryable": True,
        "retry_count": 1,
        "max_retries": 3,
        "consequence": "a technical loss after the last retry",
    },
    "LEAGUE_ERROR": {
        "error_code": "E012",
        "error_description": "the auth_token does not belong to 'P01'",
        "original_message_type": "LEAGUE_QUERY",
        "context": {"player_id": "P01"},
    },
    "GAME_MOVE_CALL": {
        "sender": "referee:REF01",
        "league_id": "league_2025_pd",
        "round_id": 1,
        "match_id": "R1M1",
        "player_id": "P01",
        "game_type": "prisoners_dilemma",
        "move_request": {
            "move_type": "action",
            "valid_options": ["C", "D"],
            "context": {
                "stage": 2,
                "round_id": 1,
                "action_space": {"kind": "choice", "choices": ["C", "D"]},
                "observation": {
                    "player_id": "P01",
                    "round": 2,
                    "rounds_played": 1,
                    "history": [["C", "D"]],
                    "legal_actions": ["C", "D"],
                },
            },
        },
        "deadline": "2025-01-15T10:30:30Z",
    },
    "GAME_MOVE_RESPONSE": {
        "sender": "player:P01",
        "match_id": "R1M1",
        "player_id": "P01",
        "game_type": "prisoners_dilemma",
        "move_data": {"move_type": "action", "move": "D"},
    },
    "MATCH_RESULT_ACK": {"match_id": "R1M1", "status": "RECORDED"},
    "ACK": {"sender": "player:P01", "status": "ok", "acknowledged": "ROUND_ANNOUNCEMENT"},
    "LEAGUE_STANDINGS": {
        "league_id": "league_2025_even_odd",
        "version": 4,
        "rounds_completed": 1,
        "standings": [
            {
                "rank": 1,
                "player_id": "P01",
                "display_name": "Alice",
                "played": 1,
                "wins": 1,
                "draws": 0,
                "losses": 0,
                "points": 3,
                "technical_losses": 0,
            }
        ],
    },
    "START_MATCH": {
        "auth_token": "proof-lm-to-ref01-for-this-conversation",
        "league_id": "league_2025_even_odd",
        "round_id": 1,
        "match_id": "R1M1",
        "game_type": "even_odd",
        "game_params": {},
        "players": [
            {
                "player_id": "P01",
                "display_name": "Alice",
                "contact_endpoint": "http://127.0.0.1:8101/mcp",
                "role": "PLAYER_A",
                "standings": {"wins": 0, "losses": 0, "draws": 0},
            },
            {
                "player_id": "P02",
                "display_name": "Bob",
                "contact_endpoint": "http://127.0.0.1:8102/mcp",
                "role": "PLAYER_B",
                "standings": {"wins": 0, "losses": 0, "draws": 0},
            },
        ],
        "communication": {"enabled": False, "max_message_chars": 280},
        "player_proofs": {
            "P01": "proof-of-REF01-for-P01-in-R1M1",
            "P02": "proof-of-REF01-for-P02-in-R1M1",
        },
    },
    "START_MATCH_ACK": {"sender": "referee:REF01", "match_id": "R1M1", "accepted": True},
    "PLAY_PROOF_REQUEST": {
        "sender": "referee:play",
        "auth_token": "the-league-referee-secret",
        "league_id": "play",
        "match_id": "play-even_odd-42",
        "player_id": "P01",
        "referee_id": "play",
    },
    "PLAY_PROOF_RESPONSE": {
        "league_id": "play",
        "match_id": "play-even_odd-42",
        "player_id": "P01",
        "player_proofs": {"P01": "hmac-of-play-play-even_odd-42-play-by-P01s-token"},
    },
}


__all__ = ["example", "example_types"]


def example(message_type: str, /, **overrides: Any) -> dict[str, Any]:
    """A fresh valid wire dict of ``message_type``; ``overrides`` replace top-level fields."""
    wire = {**ENVELOPE, "message_type": message_type, **copy.deepcopy(_BODIES[message_type])}
    wire.update(overrides)
    return wire


def example_types() -> list[str]:
    return sorted(_BODIES)
