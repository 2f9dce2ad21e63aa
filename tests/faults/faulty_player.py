"""A league.v2 Even/Odd player with one deliberate fault, run as its own process for the
referee's fault tests. Only the standard library and nothing shared with Agent League, as
a student's player would be.

    python faulty_player.py --port 8120 --player-id P07 --fault never_answers

It answers handle_game_invitation, choose_parity and every notification as the protocol
says, except for its fault (``GET /health`` tells whether it is up):

    none                  no fault: a sound player (the control case)
    never_answers         choose_parity: holds the connection open and never answers
    hangs_after_invitation  accepts the invitation, then holds every call (choose_parity,
                          GAME_ERROR, GAME_OVER) open and never answers again
    answers_late          choose_parity: answers 1.5 s after the call's deadline
    closes_connection     choose_parity: closes the connection without an answer
    http_500              choose_parity: HTTP 500 with a text body
    not_json              choose_parity: HTTP 200 with an HTML page
    jsonrpc_error         choose_parity: a JSON-RPC error object (-32000) instead of a result
    wrong_id              choose_parity: a sound answer under another request's id
    wrong_types           choose_parity: match_id and player_id as numbers
    choice_upper          parity_choice "EVEN"
    choice_empty          parity_choice ""
    choice_null           parity_choice null
    choice_number         parity_choice 7
    other_match_id        choose_parity: answers for another match_id
    other_player_id       choose_parity: answers as another player_id
    deep_json             choose_parity: a valid answer with one more field, arrays nested
                          100000 deep (200 KB)
    deep_json_900         the same, 900 deep (what Python's own parser still takes)
    huge_body             choose_parity: a valid answer padded to 10 MB, Content-Length set
    huge_body_unsized     the same 10 MB without Content-Length (the body ends at close)
    trickle               choose_parity: the headers at once, then 4 bytes a second of a
                          body that would take minutes
    dies_after_invitation accepts the invitation, then the process exits (os._exit)
    refuses_invitation    answers the invitation with accept: false
    holds_game_over       plays soundly, then holds GAME_OVER open and never answers it
"""

import argparse
import json
import os
import socket
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INVALID_CHOICES = {
    "choice_upper": "EVEN",
    "choice_empty": "",
    "choice_null": None,
    "choice_number": 7,
}
DEEP_JSON = {"deep_json": 100_000, "deep_json_900": 900}
FAULTS = (
    "none",
    "never_answers",
    "hangs_after_invitation",
    "answers_late",
    "closes_connection",
    "http_500",
    "not_json",
    "jsonrpc_error",
    "wrong_id",
    "wrong_types",
    *INVALID_CHOICES,
    "other_match_id",
    "other_player_id",
    *DEEP_JSON,
    "huge_body",
    "huge_body_unsized",
    "trickle",
    "dies_after_invitation",
    "refuses_invitation",
    "holds_game_over",
)
NOTIFICATIONS = (
    "notify_match_result",
    "notify_game_error",
    "notify_round",
    "update_standings",
    "notify_round_completed",
    "notify_league_completed",
)

HUGE_BYTES = 10 * 1024 * 1024
LATE_BY_SEC = 1.5
"""After the stated deadline: whole seconds on the wire, so the caller's own wait ends at
most 1 s after it."""
TRICKLE_BYTES, TRICKLE_EVERY_SEC, TRICKLE_BODY_BYTES = 4, 1.0, 1024
HOLD_AT_MOST_SEC = 300
"""A held or trickling connection ends when the caller closes it, or after this."""


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Player:
    def __init__(self, player_id, fault):
        self.player_id = player_id
        self.fault = fault
        self.dying = False
        """dies_after_invitation once its answer is being sent: no later request is answered
        (one may come on its own connection before the process has exited)."""

    def message(self, message_type, request, **fields):
        envelope = {
            "protocol": "league.v2",
            "message_type": message_type,
            "sender": "player:" + self.player_id,
            "timestamp": now(),
            "conversation_id": request.get("conversation_id", "none"),
        }
        envelope.update(fields)
        return envelope

    def join(self, invitation):
        return self.message(
            "GAME_JOIN_ACK",
            invitation,
            match_id=invitation.get("match_id"),
            player_id=self.player_id,
            arrival_timestamp=now(),
            accept=self.fault != "refuses_invitation",
        )

    def choose(self, call):
        answer = self.message(
            "CHOOSE_PARITY_RESPONSE",
            call,
            match_id=call.get("match_id"),
            player_id=self.player_id,
            parity_choice="even",
        )
        if self.fault in INVALID_CHOICES:
            answer["parity_choice"] = INVALID_CHOICES[self.fault]
        elif self.fault == "wrong_types":
            answer.update(match_id=12345, player_id=7)
        elif self.fault == "other_match_id":
            answer["match_id"] = "R99M99"
        elif self.fault == "other_player_id":
            answer["player_id"] = "SOMEONE_ELSE"
        return answer

    def result(self, method, params):
        """(result, None) or (None, JSON-RPC error)."""
        if method == "handle_game_invitation":
            return self.join(params), None
        if method == "choose_parity":
            return self.choose(params), None
        if method in NOTIFICATIONS:
            return self.message("ACK", params, status="ok"), None
        return None, {"code": -32601, "message": "Method not found", "data": method}


class Handler(BaseHTTPRequestHandler):
    """HTTP/1.0: one request per connection, so a fault never outlives its exchange."""

    server_version = "FaultyPlayer/1.0"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        if self.path == "/health":
            self.send_body(200, json.dumps({"status": "ok"}).encode())
        else:
            self.send_body(404, b"not found", "text/plain")

    def do_POST(self):
        player = self.server.player
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            request = json.loads(body)
            method, params = request["method"], request["params"]
        except (ValueError, KeyError, TypeError):
            self.send_json(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            )
            return
        request_id = request.get("id")
        if player.dying:
            self.close_connection = True  # no answer: as from a process that has exited
            return
        if player.fault == "hangs_after_invitation" and method != "handle_game_invitation":
            self.hold()
            return
        if player.fault == "holds_game_over" and method == "notify_match_result":
            self.hold()
            return
        if method == "choose_parity" and self.misbehave(params, request_id):
            return
        result, error = player.result(method, params)
        answer = {"jsonrpc": "2.0", "id": request_id}
        answer.update({"result": result} if error is None else {"error": error})
        dies = method == "handle_game_invitation" and player.fault == "dies_after_invitation"
        player.dying = dies
        self.send_json(answer)
        if dies:
            os._exit(0)  # the answer is on the wire: the player dies before its move

    def misbehave(self, call, request_id):
        """Play a fault that is more than a wrong field (those ``Player.choose`` shapes);
        True once the call is dealt with, False to answer it the ordinary way."""
        fault = self.server.player.fault
        if fault == "never_answers":
            self.hold()
        elif fault == "answers_late":
            deadline = parse_utc(call["deadline"]).timestamp()
            time.sleep(max(0.0, deadline + LATE_BY_SEC - time.time()))
            return False
        elif fault == "closes_connection":
            self.connection.shutdown(socket.SHUT_RDWR)
        elif fault == "http_500":
            self.send_body(500, b"Internal Server Error", "text/plain")
        elif fault == "not_json":
            self.send_body(200, b"<html><body>It works!</body></html>", "text/html")
        elif fault == "wrong_id":
            self.send_json(
                {
                    "jsonrpc": "2.0",
                    "id": request_id + 1000,
                    "result": self.server.player.choose(call),
                }
            )
        elif fault == "jsonrpc_error":
            self.send_json(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32000, "message": "strategy crashed"},
                }
            )
        elif fault in DEEP_JSON:
            depth = DEEP_JSON[fault]
            text = json.dumps(
                {"jsonrpc": "2.0", "id": request_id, "result": self.server.player.choose(call)}
            )
            nested = "[" * depth + "]" * depth  # written flat: json.dumps would recurse
            # the answer without its two closing braces, one more field, the braces again
            self.send_body(200, f'{text[:-2]}, "nested": {nested}}}}}'.encode())
        elif fault in ("huge_body", "huge_body_unsized"):
            self.send_huge(call, request_id, sized=fault == "huge_body")
        elif fault == "trickle":
            self.trickle(call, request_id)
        else:
            return False
        return True

    def answer_bytes(self, call, request_id, size=None):
        """The JSON-RPC answer to a move call, padded to exactly ``size`` bytes if given."""
        answer = {"jsonrpc": "2.0", "id": request_id, "result": self.server.player.choose(call)}
        body = json.dumps(answer).encode()
        if size is not None:  # a valid answer whose result carries a padding field
            answer["result"]["padding"] = ""
            bare = json.dumps(answer).encode()
            answer["result"]["padding"] = "x" * (size - len(bare))
            body = json.dumps(answer).encode()
        return body

    def hold(self):
        """Keep the connection open, answering nothing, until the caller hangs up."""
        self.connection.settimeout(HOLD_AT_MOST_SEC)
        try:
            while self.connection.recv(1024):
                pass
        except OSError:
            pass

    def send_huge(self, call, request_id, sized):
        body = self.answer_bytes(call, request_id, HUGE_BYTES)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if sized:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for start in range(0, len(body), 65536):
                self.wfile.write(body[start : start + 65536])
        except OSError:
            pass  # the caller stopped reading: what the fault is for

    def trickle(self, call, request_id):
        body = self.answer_bytes(call, request_id)
        body += b" " * (TRICKLE_BODY_BYTES - len(body))
        self.connection.settimeout(HOLD_AT_MOST_SEC)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for start in range(0, len(body), TRICKLE_BYTES):
                self.wfile.write(body[start : start + TRICKLE_BYTES])
                time.sleep(TRICKLE_EVERY_SEC)
        except OSError:
            pass  # the caller gave up waiting: what the fault is for

    def send_json(self, payload):
        self.send_body(200, json.dumps(payload).encode())

    def send_body(self, status, body, content_type="application/json"):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass  # the caller gave up (an answer after the deadline finds it gone)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--player-id", required=True)
    parser.add_argument("--fault", choices=FAULTS, required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    server.player = Player(args.player_id, args.fault)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
