"""A foreign Even/Odd referee, written the way a student in another course writes one: only
Python's standard library, nothing shared with Agent League, the match taken from the
public league.v2 text.

    python foreign_referee.py --port 8001 --lm http://127.0.0.1:8000/mcp --name Ref \
        --record ref.jsonl

It registers with REFEREE_REGISTER_REQUEST (the league's referee secret in auth_token, as
the operator hands it out with --referee-secret), serves ``start_match`` as Agent League
documents it (its doc/protocol.md: the one method a referee must serve to referee in that
league; the League Manager's proof checked with HMAC-SHA256, each player's proof passed on
in that player's messages) and
``notify_league_completed``, and runs every match itself: GAME_INVITATION and
CHOOSE_PARITY_CALL to both players, a draw of 1..10, GAME_OVER to both, MATCH_RESULT_REPORT
to the League Manager. It checks the players' answers as a careful student would (the
envelope, the echoed ids, a parity that is exactly "even" or "odd"); a player whose answer
fails a check, or who does not answer, loses by technical loss.

Every request it receives or sends goes to the --record file as one JSON line: direction,
method, peer, params, the JSON-RPC response and the problems found in it.

A League Manager that says nothing of proofs in its registration answer (``auth_proofs``)
proves itself with this referee's own token instead, and gives no player proofs.

--style says how it speaks (a comma list; ``spec``, the default, is the protocol's text),
each a variation that published referees show:

    upper_status        GAME_OVER's status told from each player's side: "WIN", "LOSS" or
                        "DRAW" (the winner still named)
    bare_game_over      GAME_OVER sent as just match_id, winner_id, drawn_number and choices:
                        no envelope, no game_result, no auth_token
    basic_timestamps    every timestamp it writes in ISO-8601's basic form, 20261121T041449Z
"""

import argparse
import base64
import hashlib
import hmac
import json
import random
import threading
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "league.v2"
ENVELOPE_FIELDS = ("protocol", "message_type", "sender", "timestamp", "conversation_id")
# The protocol's timeouts, in seconds, for the calls a referee makes.
TIMEOUTS = {
    "handle_game_invitation": 5,
    "choose_parity": 30,
    "notify_match_result": 5,
    "report_match_result": 10,
    "register_referee": 10,
}
# Scoring from the rules of play: win 3, draw 1, loss 0.
WIN, DRAW, LOSS = 3, 1, 0
REGISTRATION_PATIENCE_SEC = 30
STYLES = ("spec", "upper_status", "bare_game_over", "basic_timestamps")
BASIC = False
"""Whether timestamps are written in the basic form (--style basic_timestamps)."""


def utc_now(seconds_ahead=0):
    moment = datetime.now(timezone.utc) + timedelta(seconds=seconds_ahead)
    return moment.strftime("%Y%m%dT%H%M%SZ" if BASIC else "%Y-%m-%dT%H:%M:%SZ")


def timestamp_problem(name, text):
    """The protocol takes ISO-8601 in UTC, "...Z" or "+00:00"; nothing else."""
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return f"{name} {text!r} is not an ISO-8601 timestamp"
    if moment.utcoffset() != timedelta(0):
        return f"{name} {text!r} is not in UTC"
    return None


def message_problems(message, message_type, conversation_id, fields):
    """What is wrong with an answer that should be a full ``message_type`` message."""
    if not isinstance(message, dict):
        return [f"the answer {message!r} is not a {message_type} object"]
    problems = [
        f"{field} is missing" for field in (*ENVELOPE_FIELDS, *fields) if field not in message
    ]
    if message.get("protocol", PROTOCOL) != PROTOCOL:
        problems.append(f"protocol is {message['protocol']!r}, not {PROTOCOL!r}")
    if message.get("message_type", message_type) != message_type:
        problems.append(f"message_type is {message['message_type']!r}, not {message_type!r}")
    if message.get("conversation_id", conversation_id) != conversation_id:
        problems.append(f"conversation_id {message['conversation_id']!r} is not ours")
    for field in ("timestamp", "arrival_timestamp"):
        if field in message:
            problem = timestamp_problem(field, message[field])
            if problem:
                problems.append(problem)
    return problems


def echo_problems(message, match_id, player_id):
    return [
        f"{field} is {message.get(field)!r}, not {expected!r}"
        for field, expected in (("match_id", match_id), ("player_id", player_id))
        if field in message and message[field] != expected
    ]


def refusal(method, response):
    """Why a JSON-RPC response holds no usable result: an error, or a LEAGUE_ERROR."""
    if not isinstance(response, dict) or "result" not in response:
        return f"{method} was answered with an error: {response!r}"
    result = response["result"]
    if isinstance(result, dict) and result.get("message_type") == "LEAGUE_ERROR":
        return f"{method} was refused: {result.get('error_code')} {result.get('error_description')}"
    return None


def post_json(url, body, timeout, patience=0):
    """POST one JSON-RPC request; an agent that cannot be reached is tried again every 0.2 s
    for ``patience`` seconds (at start-up the League Manager may not be up yet)."""
    give_up = time.monotonic() + patience
    while True:
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                return json.loads(reply.read())
        except OSError:
            if time.monotonic() >= give_up:
                raise
            time.sleep(0.2)


def points(player, winner, faults):
    """Win 3, loss 0, draw 1; a technical loss gives the opponent the win, the faulty 0."""
    if winner is not None:
        return WIN if player == winner else LOSS
    return LOSS if player in faults else DRAW


def both(work, first, second):
    """work(first, second) and work(second, first) at the same time; their two results."""
    results = [None, None]

    def run(index, me, other):
        results[index] = work(me, other)

    threads = [
        threading.Thread(target=run, args=(0, first, second)),
        threading.Thread(target=run, args=(1, second, first)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


class Referee:
    def __init__(self, args):
        self.name = args.name
        self.lm_url = args.lm
        self.endpoint = f"http://{args.host}:{args.port}/mcp"
        self.capacity = args.max_concurrent
        self.record_path = args.record
        self.lock = threading.Lock()
        self.calls_made = 0
        self.referee_id = None
        self.auth_token = None
        self.referee_secret = args.referee_secret
        self.styles = set(args.style.split(","))
        self.league_proofs = True
        self.registration = "PENDING"
        self.methods = {
            "start_match": self.start_match,
            "notify_league_completed": self.league_completed,
        }

    def envelope(self, message_type, conversation_id, **context):
        return {
            "protocol": PROTOCOL,
            "message_type": message_type,
            "sender": f"referee:{self.referee_id or self.name}",
            "timestamp": utc_now(),
            "conversation_id": conversation_id,
            **context,
        }

    # -- calls ------------------------------------------------------------------------

    def call(self, peer, url, method, params, check=None, patience=0):
        """One request: (result, []) if the answer passes the checks, else (None, problems).
        Everything is written down, with the problems found."""
        with self.lock:
            self.calls_made += 1
            request = {"jsonrpc": "2.0", "method": method, "params": params, "id": self.calls_made}
        response, problems = None, []
        try:
            response = post_json(url, request, TIMEOUTS[method], patience)
        except (OSError, ValueError) as exc:
            problems.append(f"no usable answer to {method}: {exc}")
        else:
            refused = refusal(method, response)
            if refused:
                problems.append(refused)
            elif check is not None:
                problems.extend(check(response["result"]))
        self.write_down(
            {
                "direction": "sent",
                "method": method,
                "peer": peer,
                "params": params,
                "response": response,
                "problems": problems,
            }
        )
        return (None if problems else response["result"]), problems

    def register(self):
        """REFEREE_REGISTER_REQUEST, again every 0.2 s while the League Manager is not up."""
        params = {
            **self.envelope("REFEREE_REGISTER_REQUEST", f"register-{self.name}"),
            "auth_token": self.referee_secret,
            "referee_meta": {
                "display_name": self.name,
                "version": "1.0.0",
                "game_types": ["even_odd"],
                "contact_endpoint": self.endpoint,
                "max_concurrent_matches": self.capacity,
            },
        }
        result, problems = self.call(
            "league_manager",
            self.lm_url,
            "register_referee",
            params,
            patience=REGISTRATION_PATIENCE_SEC,
        )
        if isinstance(result, dict) and result.get("status") == "ACCEPTED":
            self.referee_id = result["referee_id"]
            self.auth_token = result["auth_token"]
            self.league_proofs = result.get("auth_proofs") == "hmac-sha256-v1"
            self.registration = "ACCEPTED"
        else:
            self.registration = f"REFUSED: {problems or result}"

    # -- the methods it serves --------------------------------------------------------

    def start_match(self, start):
        # Agent League's START_MATCH: the League Manager proves itself with an HMAC-SHA256 of
        # ("league_manager", league_id, conversation_id) keyed by this referee's token.
        context = "\x1f".join(
            ("league_manager", str(start.get("league_id")), str(start.get("conversation_id")))
        )
        mac = hmac.new(str(self.auth_token).encode(), context.encode(), hashlib.sha256)
        expected = base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()
        if not self.league_proofs:  # a League Manager without proofs shows our own token
            expected = str(self.auth_token)
        if not hmac.compare_digest(str(start.get("auth_token") or ""), expected):
            code = "E011" if not start.get("auth_token") else "E012"
            return {
                **self.envelope("LEAGUE_ERROR", start.get("conversation_id")),
                "error_code": code,
                "error_description": "start_match needs our token",
                "original_message_type": start.get("message_type"),
                "context": {},
            }
        threading.Thread(target=Match(self, start).play, daemon=True).start()
        return {
            **self.envelope(
                "START_MATCH_ACK",
                start.get("conversation_id"),
                league_id=start["league_id"],
                round_id=start["round_id"],
            ),
            "match_id": start["match_id"],
            "accepted": True,
        }

    def league_completed(self, message):
        return {**self.envelope("ACK", message.get("conversation_id")), "status": "ok"}

    def dispatch(self, request):
        if (
            not isinstance(request, dict)
            or request.get("jsonrpc") != "2.0"
            or not isinstance(request.get("method"), str)
        ):
            return {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Invalid Request"},
            }
        method, params = request["method"], request.get("params") or {}
        handler = self.methods.get(method)
        if handler is None:
            response = {
                "jsonrpc": "2.0",
                "id": request.get("id"),
                "error": {"code": -32601, "message": "Method not found", "data": method},
            }
        else:
            response = {"jsonrpc": "2.0", "id": request.get("id"), "result": handler(params)}
        self.write_down(
            {
                "direction": "received",
                "method": method,
                "peer": "league_manager",
                "params": params,
                "response": response,
                "problems": [],
            }
        )
        return response

    def write_down(self, entry):
        line = json.dumps(entry)
        with self.lock, open(self.record_path, "a") as record:
            record.write(line + "\n")


class Match:
    """One match, from the invitations to the report."""

    def __init__(self, referee, start):
        self.referee = referee
        seats = {seat["role"]: seat for seat in start["players"]}
        self.seats = (seats["PLAYER_A"], seats["PLAYER_B"])
        self.ids = {
            "league_id": start["league_id"],
            "round_id": start["round_id"],
            "match_id": start["match_id"],
        }
        self.conversation_id = f"{start['match_id']}-{random.getrandbits(32):08x}"
        self.faults = {}
        self.choices = {seat["player_id"]: None for seat in self.seats}
        self.proofs = start.get("player_proofs") or {}

    def message(self, message_type, **fields):
        return {**self.referee.envelope(message_type, self.conversation_id, **self.ids), **fields}

    def to_player(self, me, message_type, **fields):
        """A message to one player, with the proof the League Manager gave for it."""
        return self.message(message_type, auth_token=self.proofs.get(me["player_id"]), **fields)

    def call_player(self, me, method, params, check=None):
        return self.referee.call(me["player_id"], me["contact_endpoint"], method, params, check)

    def invite(self, me, other):
        # GAME_INVITATION (league_id, round_id, match_id, game_type, role_in_match,
        # opponent_id) -> GAME_JOIN_ACK (match_id, player_id, arrival_timestamp, accept)
        params = self.to_player(
            me,
            "GAME_INVITATION",
            game_type="even_odd",
            role_in_match=me["role"],
            opponent_id=other["player_id"],
        )

        def check(answer):
            problems = message_problems(
                answer,
                "GAME_JOIN_ACK",
                self.conversation_id,
                ("match_id", "player_id", "arrival_timestamp", "accept"),
            )
            if not problems and answer["accept"] is not True:
                problems.append("the player did not accept the invitation")
            return problems or echo_problems(answer, self.ids["match_id"], me["player_id"])

        return self.call_player(me, "handle_game_invitation", params, check)

    def ask(self, me, other):
        # CHOOSE_PARITY_CALL (match_id, player_id, game_type, context{opponent_id, round_id,
        # your_standings}, deadline) -> CHOOSE_PARITY_RESPONSE (match_id, player_id,
        # parity_choice: exactly "even" or "odd")
        context = {
            "opponent_id": other["player_id"],
            "round_id": self.ids["round_id"],
            "your_standings": me.get("standings", {"wins": 0, "losses": 0, "draws": 0}),
        }
        params = self.to_player(
            me,
            "CHOOSE_PARITY_CALL",
            player_id=me["player_id"],
            game_type="even_odd",
            context=context,
            deadline=utc_now(TIMEOUTS["choose_parity"]),
        )

        def check(answer):
            problems = message_problems(
                answer,
                "CHOOSE_PARITY_RESPONSE",
                self.conversation_id,
                ("match_id", "player_id", "parity_choice"),
            )
            if not problems and answer["parity_choice"] not in ("even", "odd"):
                problems.append(
                    f"parity_choice {answer['parity_choice']!r} is not exactly 'even' or 'odd'"
                )
            return problems or echo_problems(answer, self.ids["match_id"], me["player_id"])

        return self.call_player(me, "choose_parity", params, check)

    def play(self):
        for seat, (_, problems) in zip(self.seats, both(self.invite, *self.seats), strict=True):
            if problems:
                self.faults[seat["player_id"]] = problems
        if not self.faults:
            for seat, (answer, problems) in zip(
                self.seats, both(self.ask, *self.seats), strict=True
            ):
                if problems:
                    self.faults[seat["player_id"]] = problems
                else:
                    self.choices[seat["player_id"]] = answer["parity_choice"]
        result = self.decide()
        # GAME_OVER (match_id, game_type, game_result{status, winner_player_id, drawn_number,
        # number_parity, choices, reason}) to both players
        both(
            lambda me, _: self.call_player(me, "notify_match_result", self.game_over(me, result)),
            *self.seats,
        )
        # MATCH_RESULT_REPORT (league_id, round_id, match_id, game_type, result{winner,
        # score{pid: points}, details}), signed with the referee's token
        winner = result["winner_player_id"]
        score = {player: points(player, winner, self.faults) for player in self.choices}
        report = self.message(
            "MATCH_RESULT_REPORT",
            auth_token=self.referee.auth_token,
            game_type="even_odd",
            result={"winner": winner, "score": score, "details": result},
        )
        self.referee.call("league_manager", self.referee.lm_url, "report_match_result", report)

    def game_over(self, me, result):
        """GAME_OVER to one player, in the referee's style."""
        styles = self.referee.styles
        if "bare_game_over" in styles:
            return {
                "match_id": self.ids["match_id"],
                "winner_id": result["winner_player_id"],
                "drawn_number": result["drawn_number"],
                "choices": result["choices"],
            }
        if "upper_status" in styles and result["status"] == "WIN":
            won = result["winner_player_id"] == me["player_id"]
            result = {**result, "status": "WIN" if won else "LOSS"}
        return self.to_player(me, "GAME_OVER", game_type="even_odd", game_result=result)

    def decide(self):
        """The game_result: a technical loss if anyone failed, else the draw of 1..10."""
        if self.faults:
            sound = [player for player in self.choices if player not in self.faults]
            reason = "; ".join(
                f"{player}: {', '.join(problems)}" for player, problems in self.faults.items()
            )
            return {
                "status": "TECHNICAL_LOSS",
                "winner_player_id": sound[0] if len(sound) == 1 else None,
                "drawn_number": None,
                "number_parity": None,
                "choices": self.choices,
                "reason": reason,
            }
        number = random.randint(1, 10)
        parity = "even" if number % 2 == 0 else "odd"
        right = [player for player, choice in self.choices.items() if choice == parity]
        winner = right[0] if len(right) == 1 else None
        return {
            "status": "WIN" if winner else "DRAW",
            "winner_player_id": winner,
            "drawn_number": number,
            "number_parity": parity,
            "choices": self.choices,
            "reason": f"the number {number} is {parity}",
        }


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        referee = self.server.referee
        if self.path != "/health":
            self.send_json(404, {"error": "not found"})
            return
        self.send_json(
            200,
            {
                "status": "ok",
                "name": referee.name,
                "referee_id": referee.referee_id,
                "registration": referee.registration,
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
        self.send_json(200, self.server.referee.dispatch(request))

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
    parser = argparse.ArgumentParser(description="A foreign league.v2 Even/Odd referee.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--lm", required=True, help="the League Manager's /mcp URL")
    parser.add_argument("--name", default="ForeignRef")
    parser.add_argument("--max-concurrent", type=int, default=4)
    parser.add_argument("--referee-secret", required=True, help="the league's referee secret")
    parser.add_argument("--record", required=True, help="JSON Lines file of every request")
    parser.add_argument("--style", default="spec", help="comma list of: " + ", ".join(STYLES))
    args = parser.parse_args()
    unknown = set(args.style.split(",")) - set(STYLES)
    if unknown:
        parser.error(f"unknown style(s) {', '.join(sorted(unknown))}")
    global BASIC
    BASIC = "basic_timestamps" in args.style.split(",")
    referee = Referee(args)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.referee = referee
    threading.Thread(target=referee.register, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
