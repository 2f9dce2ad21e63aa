"""A foreign Even/Odd player, written the way a student in another course writes one: only
Python's standard library, nothing shared with Agent League, everything taken from the
public league.v2 text.

    python foreign_player.py --port 8101 --lm http://127.0.0.1:8000/mcp --name Zed \
        --record zed.jsonl --style spec

It registers with the League Manager, serves every player method of the protocol, moves at
random, and appends one JSON line per request (sent or received) to the --record file:
direction, method, params and the JSON-RPC response. ``GET /health`` shows its registration.

--style says how it speaks; each value is a variation that published student agents show,
and a comma list combines them:

    spec                    everything exactly as the protocol text shows (the default)
    message_type_methods    serves the message_type as the method name (GAME_INVITATION...),
                            answers -32601 to the spec names, registers as
                            LEAGUE_REGISTER_REQUEST
    bare_answers            answers with the message's own fields only, no envelope
    meta_only_registration  its registration params hold only player_meta
    string_ids              JSON-RPC ids of its own requests are strings
    error_null              every response carries "error": null beside the result
    odd_acks                acknowledges with {"status": "ok"}, true and "ack" in turn
    fractional_timestamps   timestamps with microseconds and +00:00
    extra_fields            adds fields the protocol does not know to everything it sends

two that a league must refuse:

    upper_parity            chooses "EVEN" or "ODD"
    local_offset            stamps its moves (CHOOSE_PARITY_RESPONSE) in local time, +02:00

and two that answer some requests with an HTTP error status and a JSON-RPC error body:

    require_token           once registered, refuses every request without an auth_token
                            with HTTP 401 (the protocol: the token is required after
                            registration; it has nothing to check a proof against, so any
                            non-empty auth_token will do)
    error_status            its strategy crashes: every CHOOSE_PARITY_CALL is answered HTTP
                            500 with a JSON-RPC error saying why
"""

import argparse
import json
import random
import threading
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "league.v2"
PROTOCOL_VERSION = "2.1.0"
STYLES = (
    "spec",
    "message_type_methods",
    "bare_answers",
    "meta_only_registration",
    "string_ids",
    "error_null",
    "odd_acks",
    "fractional_timestamps",
    "extra_fields",
    "upper_parity",
    "local_offset",
    "require_token",
    "error_status",
)

# The protocol's table "JSON-RPC methods and the messages they carry", player side.
MESSAGE_OF_METHOD = {
    "handle_game_invitation": "GAME_INVITATION",
    "choose_parity": "CHOOSE_PARITY_CALL",
    "notify_match_result": "GAME_OVER",
    "notify_round": "ROUND_ANNOUNCEMENT",
    "update_standings": "LEAGUE_STANDINGS_UPDATE",
    "notify_round_completed": "ROUND_COMPLETED",
    "notify_league_completed": "LEAGUE_COMPLETED",
    "notify_game_error": "GAME_ERROR",
}
ODD_ACKS = ({"status": "ok"}, True, "ack")
CRASH = "strategy crashed: ZeroDivisionError: division by zero"
EXTRA_FIELDS = {"student_note": "Even/Odd homework, group 7", "client": {"language": "python"}}
REGISTRATION_PATIENCE_SEC = 30


class Player:
    def __init__(self, args):
        self.name = args.name
        self.lm_url = args.lm
        self.endpoint = f"http://{args.host}:{args.port}/mcp"
        self.record_path = args.record
        self.styles = set(args.style.split(","))
        self.lock = threading.Lock()
        self.acks_given = 0
        self.player_id = None
        self.auth_token = None
        self.registration = "PENDING"
        answers = {"GAME_INVITATION": self.join, "CHOOSE_PARITY_CALL": self.choose}
        self.methods = {}
        for method, message_type in MESSAGE_OF_METHOD.items():
            name = message_type if self.uses("message_type_methods") else method
            self.methods[name] = answers.get(message_type, self.acknowledge)

    def uses(self, style):
        return style in self.styles

    # -- what it sends ----------------------------------------------------------------

    def now(self, move=False):
        """The protocol wants ISO-8601 in UTC, "...Z" or "+00:00"."""
        if move and self.uses("local_offset"):
            return datetime.now(timezone(timedelta(hours=2))).isoformat(timespec="seconds")
        moment = datetime.now(timezone.utc)
        if self.uses("fractional_timestamps"):
            return moment.isoformat(timespec="microseconds")
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    def envelope(self, message_type, conversation_id, move=False):
        """The envelope fields that sit in every message (auth_token after registration)."""
        envelope = {
            "protocol": PROTOCOL,
            "message_type": message_type,
            "sender": f"player:{self.player_id or self.name}",
            "timestamp": self.now(move),
            "conversation_id": conversation_id,
        }
        if self.auth_token:
            envelope["auth_token"] = self.auth_token
        return envelope

    def with_extras(self, message):
        if self.uses("extra_fields"):
            message.update(EXTRA_FIELDS)
        return message

    def answer(self, message_type, request, fields, move=False):
        if self.uses("bare_answers"):
            return self.with_extras(dict(fields))
        envelope = self.envelope(message_type, request.get("conversation_id"), move)
        return self.with_extras({**envelope, **fields})

    # -- the methods it serves --------------------------------------------------------

    def join(self, invitation):
        # GAME_INVITATION -> GAME_JOIN_ACK (match_id, player_id, arrival_timestamp, accept)
        return self.answer(
            "GAME_JOIN_ACK",
            invitation,
            {
                "match_id": invitation.get("match_id"),
                "player_id": self.player_id,
                "arrival_timestamp": self.now(),
                "accept": True,
            },
        )

    def choose(self, call):
        # CHOOSE_PARITY_CALL -> CHOOSE_PARITY_RESPONSE (match_id, player_id, parity_choice)
        choice = random.choice(["even", "odd"])
        if self.uses("upper_parity"):
            choice = choice.upper()
        return self.answer(
            "CHOOSE_PARITY_RESPONSE",
            call,
            {
                "match_id": call.get("match_id"),
                "player_id": call.get("player_id"),
                "parity_choice": choice,
            },
            move=True,
        )

    def acknowledge(self, notification):
        # The protocol takes "any acknowledgement" for the notifications.
        if self.uses("odd_acks"):
            with self.lock:
                shape = ODD_ACKS[self.acks_given % len(ODD_ACKS)]
                self.acks_given += 1
            return shape
        return self.answer("ACK", notification, {"status": "ok"})

    def refusal(self, method, params):
        """(HTTP status, JSON-RPC error) for a request its styles refuse, else None."""
        if self.uses("require_token") and self.auth_token and not params.get("auth_token"):
            return 401, {
                "code": -32001,
                "message": "Unauthorized: auth_token required after registration",
            }
        if (
            self.uses("error_status")
            and MESSAGE_OF_METHOD.get(method, method) == "CHOOSE_PARITY_CALL"
        ):
            return 500, {"code": -32603, "message": "Internal error", "data": CRASH}
        return None

    def dispatch(self, request):
        """One JSON-RPC 2.0 request in, (HTTP status, response) out."""
        if (
            not isinstance(request, dict)
            or request.get("jsonrpc") != "2.0"
            or not isinstance(request.get("method"), str)
        ):
            return 200, {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Invalid Request"},
            }
        method, params = request["method"], request.get("params") or {}
        handler = self.methods.get(method)
        refused = self.refusal(method, params)
        if refused is not None:
            status, error = refused
            response = {"jsonrpc": "2.0", "id": request.get("id"), "error": error}
            self.write_down("received", method, params, response, status)
            return status, response
        if handler is None:
            response = {
                "jsonrpc": "2.0",
                "id": request.get("id"),
                "error": {"code": -32601, "message": "Method not found", "data": method},
            }
        else:
            response = {"jsonrpc": "2.0", "id": request.get("id"), "result": handler(params)}
            if self.uses("error_null"):
                response["error"] = None
        self.write_down("received", method, params, response)
        return 200, response

    # -- registration -----------------------------------------------------------------

    def register(self):
        """LEAGUE_REGISTER_REQUEST, again every 0.2 s while the League Manager is not up."""
        meta = self.with_extras(
            {
                "display_name": self.name,
                "version": "1.0.0",
                "game_types": ["even_odd"],
                "contact_endpoint": self.endpoint,
                "protocol_version": PROTOCOL_VERSION,
            }
        )
        if self.uses("meta_only_registration"):
            params = {"player_meta": meta}
        else:
            params = {
                **self.envelope("LEAGUE_REGISTER_REQUEST", f"register-{self.name}"),
                "player_meta": meta,
            }
        params = self.with_extras(params)
        method = (
            "LEAGUE_REGISTER_REQUEST" if self.uses("message_type_methods") else "register_player"
        )
        request = {
            "jsonrpc": "2.0",
            "method": method,
            "params": params,
            "id": "register-1" if self.uses("string_ids") else 1,
        }
        give_up = time.monotonic() + REGISTRATION_PATIENCE_SEC
        while True:
            try:
                response = post_json(self.lm_url, request)
                break
            except OSError as exc:
                if time.monotonic() > give_up:
                    self.registration = f"REFUSED: no answer from {self.lm_url} ({exc})"
                    return
                time.sleep(0.2)
        self.write_down("sent", method, params, response)
        result = response.get("result")
        if isinstance(result, dict) and result.get("status") == "ACCEPTED":
            self.player_id = result["player_id"]
            self.auth_token = result.get("auth_token")
            self.registration = "ACCEPTED"
        else:
            self.registration = f"REFUSED: {json.dumps(response.get('error') or result)}"

    def write_down(self, direction, method, params, response, status=200):
        line = json.dumps(
            {
                "direction": direction,
                "method": method,
                "params": params,
                "response": response,
                "status": status,
            }
        )
        with self.lock, open(self.record_path, "a") as record:
            record.write(line + "\n")


def post_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        player = self.server.player
        if self.path != "/health":
            self.send_json(404, {"error": "not found"})
            return
        self.send_json(
            200,
            {
                "status": "ok",
                "name": player.name,
                "player_id": player.player_id,
                "registration": player.registration,
            },
        )

    def do_POST(self):
        if self.path != "/mcp":
            self.send_json(404, {"error": "not found"})
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            request = json.loads(body)
        except ValueError:
            self.send_json(
                200,
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
            )
            return
        self.send_json(*self.server.player.dispatch(request))

    def send_json(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # the --record file holds the traffic


def main():
    parser = argparse.ArgumentParser(description="A foreign league.v2 Even/Odd player.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--lm", required=True, help="the League Manager's /mcp URL")
    parser.add_argument("--name", default="Foreign")
    parser.add_argument("--record", required=True, help="JSON Lines file of every request")
    parser.add_argument("--style", default="spec", help="comma list of: " + ", ".join(STYLES))
    args = parser.parse_args()
    unknown = set(args.style.split(",")) - set(STYLES)
    if unknown:
        parser.error(f"unknown style(s) {', '.join(sorted(unknown))}")
    player = Player(args)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.player = player
    threading.Thread(target=player.register, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
