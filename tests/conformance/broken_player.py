"""A league.v2 player with one deliberate fault, for the conformance kit's tests. Only the
standard library and nothing shared with Agent League, as a student's player would be.

    python broken_player.py --port 8110 --fault uppercase_parity

--fault:
    none                a correct player
    wrong_field_names   answers moves with "parity" instead of "parity_choice"
    uppercase_parity    chooses "EVEN" or "ODD"
    slow_move           answers moves after --slow-sec seconds
    crash_on_game_over  the process exits when it receives GAME_OVER
    missing_envelope    answers with the message's own fields only, no envelope
    message_type_methods  serves each method under its message_type (GAME_INVITATION...)
                        and answers -32601 to the protocol's method names
    wrong_id            answers every call under another request's id
    basic_timestamps    writes its timestamps in ISO-8601's basic form (20261121T041449Z)

and ways of a correct player that the kit must not fail:

    require_token       refuses every request without an auth_token with HTTP 401 and a
                        JSON-RPC error (the protocol: the token is required after
                        registration; any non-empty one will do, it checks no proof)
    own_acks            acknowledges notifications in a shape of its own (league.v2 defines
                        none): {"ack": true, "sender": "P01", "timestamp": "21/11/2026"}

and a player of a league whose League Manager signs in the other form, correct only when
the kit is told so (--league-manager-sender league_manager:LM01):

    lm01_sender         refuses every League Manager message (a sender that begins with
                        league_manager) not signed league_manager:LM01, with a LEAGUE_ERROR
                        E002 naming the sender that came
"""

import argparse
import json
import os
import random
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = (
    "none",
    "wrong_field_names",
    "uppercase_parity",
    "slow_move",
    "crash_on_game_over",
    "missing_envelope",
    "message_type_methods",
    "wrong_id",
    "basic_timestamps",
    "require_token",
    "own_acks",
    "lm01_sender",
)
LEAGUE_MANAGER_SENDER = "league_manager:LM01"
"""How the League Manager signs in the league of the lm01_sender player."""
BY_MESSAGE_TYPE = {
    "GAME_INVITATION": "handle_game_invitation",
    "CHOOSE_PARITY_CALL": "choose_parity",
    "GAME_OVER": "notify_match_result",
    "GAME_ERROR": "notify_game_error",
    "ROUND_ANNOUNCEMENT": "notify_round",
    "LEAGUE_STANDINGS_UPDATE": "update_standings",
    "ROUND_COMPLETED": "notify_round_completed",
    "LEAGUE_COMPLETED": "notify_league_completed",
}
NOTIFICATIONS = (
    "notify_round",
    "update_standings",
    "notify_round_completed",
    "notify_league_completed",
    "notify_game_error",
    "notify_match_result",
)


def stamp(basic=False):
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ" if basic else "%Y-%m-%dT%H:%M:%SZ")


class Player:
    def __init__(self, player_id, fault, slow_sec):
        self.player_id = player_id
        self.fault = fault
        self.slow_sec = slow_sec

    def now(self):
        return stamp(self.fault == "basic_timestamps")

    def message(self, message_type, request, **fields):
        if self.fault == "missing_envelope":
            return fields
        envelope = {
            "protocol": "league.v2",
            "message_type": message_type,
            "sender": "player:" + self.player_id,
            "timestamp": self.now(),
            "conversation_id": request.get("conversation_id", "none"),
        }
        envelope.update(fields)
        return envelope

    def refusal(self, code, description, request):
        return {
            "protocol": "league.v2",
            "message_type": "LEAGUE_ERROR",
            "sender": "player:" + self.player_id,
            "timestamp": self.now(),
            "conversation_id": request.get("conversation_id", "none"),
            "error_code": code,
            "error_description": description,
            "original_message_type": request.get("message_type"),
            "context": {},
        }

    def answer(self, method, params):
        """(result, None) or (None, JSON-RPC error)."""
        sender = params.get("sender")
        if (
            self.fault == "lm01_sender"
            and str(sender).startswith("league_manager")
            and sender != LEAGUE_MANAGER_SENDER
        ):
            description = (
                f"sender {sender!r}: this league's League Manager signs {LEAGUE_MANAGER_SENDER}"
            )
            return self.refusal("E002", description, params), None
        if self.fault == "message_type_methods":
            if method in BY_MESSAGE_TYPE.values():
                return None, {"code": -32601, "message": "Method not found", "data": method}
            method = BY_MESSAGE_TYPE.get(method, method)
        if method == "handle_game_invitation":
            return self.message(
                "GAME_JOIN_ACK",
                params,
                match_id=params.get("match_id"),
                player_id=self.player_id,
                arrival_timestamp=self.now(),
                accept=True,
            ), None
        if method == "choose_parity":
            missing = [
                name
                for name in ("match_id", "player_id", "deadline", "context")
                if name not in params
            ]
            if missing:
                return self.refusal("E003", "missing " + ", ".join(missing), params), None
            if params["player_id"] != self.player_id:
                return self.refusal("E005", "this is " + self.player_id, params), None
            if self.fault == "slow_move":
                time.sleep(self.slow_sec)
            choice = random.choice(["even", "odd"])
            if self.fault == "uppercase_parity":
                choice = choice.upper()
            name = "parity" if self.fault == "wrong_field_names" else "parity_choice"
            return self.message(
                "CHOOSE_PARITY_RESPONSE",
                params,
                match_id=params["match_id"],
                player_id=self.player_id,
                **{name: choice},
            ), None
        if method in NOTIFICATIONS:
            if method == "notify_match_result" and self.fault == "crash_on_game_over":
                os._exit(3)
            if self.fault == "own_acks":
                return {"ack": True, "sender": self.player_id, "timestamp": "21/11/2026"}, None
            return self.message("ACK", params, status="ok"), None
        if method == "get_player_state":
            return self.message("PLAYER_STATE", params, player_id=self.player_id, history=[]), None
        return None, {"code": -32601, "message": "Method not found", "data": method}


def handler_for(player):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            if self.path != "/mcp":
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                request = json.loads(body)
            except ValueError:
                self.reply(
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32700, "message": "Parse error"},
                    }
                )
                return
            if not isinstance(request, dict):
                self.reply(
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32600, "message": "Invalid request"},
                    }
                )
                return
            params = request.get("params")
            if not isinstance(params, dict):
                self.reply(
                    {
                        "jsonrpc": "2.0",
                        "id": request.get("id"),
                        "error": {"code": -32602, "message": "Invalid params"},
                    }
                )
                return
            if player.fault == "require_token" and not params.get("auth_token"):
                self.reply(
                    {
                        "jsonrpc": "2.0",
                        "id": request.get("id"),
                        "error": {"code": -32001, "message": "Unauthorized: auth_token required"},
                    },
                    401,
                )
                return
            result, error = player.answer(request.get("method"), params)
            answer = {"jsonrpc": "2.0", "id": request.get("id")}
            if player.fault == "wrong_id":
                answer["id"] = 1000 + (request.get("id") or 0)
            answer.update({"result": result} if error is None else {"error": error})
            self.reply(answer)

        def reply(self, answer, status=200):
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fault", choices=FAULTS, default="none")
    parser.add_argument("--player-id", default="P01")
    parser.add_argument("--slow-sec", type=float, default=0.5)
    args = parser.parse_args()
    player = Player(args.player_id, args.fault, args.slow_sec)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(player))
    server.daemon_threads = True
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
