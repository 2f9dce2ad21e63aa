"""A foreign League Manager, written the way a student in another course writes a minimal one:
only Python's standard library, nothing shared with Agent League, the league flow taken
from the public league.v2 text.

    python foreign_league_manager.py --port 8000 --league-id league_2025_even_odd

It registers referees and players (each gets an id and a random hex token), takes result
reports signed with the referee's token, answers league_query (GET_STANDINGS) and
get_standings. ``POST /start`` plays a round robin of the registered players: per round a
ROUND_ANNOUNCEMENT to the players, each match handed to a referee with ``start_match`` in
Agent League's documented form (so such a referee can serve it), the reports awaited, then
LEAGUE_STANDINGS_UPDATE and ROUND_COMPLETED (with ``matches_played``, as one version of the
protocol text names it); at the end LEAGUE_COMPLETED to everyone. ``GET /state`` shows what
it recorded: registrations exactly as received, reports, standings and every call it made
with its answer.

``--sender league_manager:LM01`` signs its messages in that form (published League Managers
use both), ``--basic-timestamps`` writes its timestamps in ISO-8601's basic form
(20261121T041449Z). ``--player-proofs`` puts each player's match proof in ``start_match``
(``player_proofs``, made from the player's token as Agent League's doc/protocol.md, Tokens,
says), for the referee to show the players; without it the referee gets none.
"""

import argparse
import base64
import hashlib
import hmac
import json
import random
import threading
import urllib.request
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "league.v2"
CALL_TIMEOUT_SEC = 10
REPORT_PATIENCE_SEC = 60
BASIC = False
"""Whether timestamps are written in the basic form (--basic-timestamps)."""


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ" if BASIC else "%Y-%m-%dT%H:%M:%SZ")


def new_token():
    return f"{random.getrandbits(128):032x}"


def round_robin(player_ids):
    """The circle method: everyone meets everyone once; with an odd count one player sits
    out each round."""
    seats = list(player_ids) + ([None] if len(player_ids) % 2 else [])
    rounds = []
    for _ in range(len(seats) - 1):
        pairs = [(seats[i], seats[-1 - i]) for i in range(len(seats) // 2)]
        rounds.append([(a, b) for a, b in pairs if a is not None and b is not None])
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


def post_json(url, body):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=CALL_TIMEOUT_SEC) as reply:
        return json.loads(reply.read())


def match_proof(token, league_id, match_id, referee_id):
    """HMAC-SHA256 keyed by the player's token of "match", league, match and referee joined
    by the unit separator; URL-safe base64 without padding."""
    context = "\x1f".join(("match", league_id, match_id, referee_id)).encode()
    mac = hmac.new(token.encode(), context, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


class LeagueManager:
    def __init__(self, league_id, sender="league_manager", player_proofs=False):
        self.league_id = league_id
        self.sender = sender
        self.player_proofs = player_proofs
        self.lock = threading.Lock()
        self.reported = threading.Condition(self.lock)
        self.state = "REGISTRATION"
        self.registrations = []
        self.referees = {}
        self.players = {}
        self.schedule = {}
        self.reports = {}
        self.refused_reports = []
        self.table = {}
        self.calls = []
        self.problems = []
        self.methods = {
            "register_referee": self.register_referee,
            "register_player": self.register_player,
            "report_match_result": self.report_match_result,
            "league_query": self.league_query,
            "get_standings": self.get_standings,
        }

    def envelope(self, message_type, conversation_id, **context):
        return {
            "protocol": PROTOCOL,
            "message_type": message_type,
            "sender": self.sender,
            "timestamp": utc_now(),
            "conversation_id": conversation_id,
            **context,
        }

    def league_error(self, request, code, description):
        return {
            **self.envelope("LEAGUE_ERROR", request.get("conversation_id")),
            "error_code": code,
            "error_description": description,
            "original_message_type": request.get("message_type"),
            "context": {},
        }

    # -- registration -----------------------------------------------------------------

    def register(self, params, kind):
        """REFEREE_REGISTER_REQUEST / LEAGUE_REGISTER_REQUEST -> *_RESPONSE (status, id,
        auth_token, league_id, reason); registration closes when the league starts."""
        meta = params.get(f"{kind}_meta") or {}
        agents = self.referees if kind == "referee" else self.players
        response_type = (
            "REFEREE_REGISTER_RESPONSE" if kind == "referee" else "LEAGUE_REGISTER_RESPONSE"
        )
        answer = self.envelope(
            response_type, params.get("conversation_id"), league_id=self.league_id
        )
        with self.lock:
            if self.state != "REGISTRATION":
                return {
                    **answer,
                    "status": "REJECTED",
                    f"{kind}_id": None,
                    "reason": "registration is closed",
                }
            agent_id = f"{'REF' if kind == 'referee' else 'P'}{len(agents) + 1:02d}"
            token = new_token()
            agents[agent_id] = {
                "display_name": meta.get("display_name", agent_id),
                "endpoint": meta.get("contact_endpoint"),
                "token": token,
            }
        return {
            **answer,
            "auth_token": token,
            "status": "ACCEPTED",
            f"{kind}_id": agent_id,
            "reason": None,
        }

    def register_referee(self, params):
        return self.register(params, "referee")

    def register_player(self, params):
        return self.register(params, "player")

    # -- results and queries ----------------------------------------------------------

    def report_match_result(self, report):
        referee_id = str(report.get("sender", "")).split(":")[-1]
        token = report.get("auth_token")
        refusal = None
        if referee_id not in self.referees:
            refusal = ("E013", f"{report.get('sender')!r} is not a registered referee")
        elif not token:
            refusal = ("E011", "the report carries no auth_token")
        elif token != self.referees[referee_id]["token"]:
            refusal = ("E012", "the auth_token is not this referee's")
        elif report.get("match_id") not in self.schedule:
            refusal = ("E006", f"no match {report.get('match_id')!r} in the schedule")
        if refusal:
            with self.lock:
                self.refused_reports.append({"report": report, "refusal": refusal})
            return self.league_error(report, *refusal)
        with self.reported:
            if report["match_id"] not in self.reports:
                self.reports[report["match_id"]] = report
                self.count(report)
                self.reported.notify_all()
        return {
            **self.envelope(
                "MATCH_RESULT_ACK",
                report.get("conversation_id"),
                league_id=self.league_id,
                match_id=report["match_id"],
            ),
            "status": "RECORDED",
        }

    def count(self, report):
        """The standings take each player's points from the report's score."""
        result = report.get("result") or {}
        winner, score = result.get("winner"), result.get("score") or {}
        for player in self.schedule[report["match_id"]]:
            row = self.table[player]
            row["played"] += 1
            row["points"] += score.get(player, 0)
            if winner is None:
                row["draws"] += 1
            elif winner == player:
                row["wins"] += 1
            else:
                row["losses"] += 1

    def ranked(self):
        order = list(self.table)
        rows = sorted(
            self.table.values(),
            key=lambda row: (-row["points"], -row["wins"], order.index(row["player_id"])),
        )
        return [{"rank": rank, **row} for rank, row in enumerate(rows, 1)]

    def league_query(self, query):
        query_type = query.get("query_type")
        answer = self.envelope(
            "LEAGUE_QUERY_RESPONSE", query.get("conversation_id"), league_id=self.league_id
        )
        with self.lock:
            if query_type == "GET_STANDINGS":
                return {
                    **answer,
                    "query_type": query_type,
                    "success": True,
                    "data": {"standings": self.ranked()},
                    "error": None,
                }
        return {
            **answer,
            "query_type": query_type,
            "success": False,
            "data": None,
            "error": f"this League Manager answers GET_STANDINGS only, not {query_type!r}",
        }

    def get_standings(self, params):
        with self.lock:
            return {"league_id": self.league_id, "standings": self.ranked()}

    # -- the league -------------------------------------------------------------------

    def start(self):
        with self.lock:
            if self.state != "REGISTRATION":
                return 409, {"error": f"the league is {self.state}"}
            if len(self.players) < 2 or not self.referees:
                return 409, {"error": "the league needs two players and a referee"}
            self.state = "RUNNING"
            self.table = {
                pid: {
                    "player_id": pid,
                    "display_name": player["display_name"],
                    "played": 0,
                    "wins": 0,
                    "draws": 0,
                    "losses": 0,
                    "points": 0,
                }
                for pid, player in self.players.items()
            }
            rounds = round_robin(list(self.players))
        threading.Thread(target=self.run, args=(rounds,), daemon=True).start()
        return 200, {"state": "RUNNING", "rounds": len(rounds)}

    def run(self, rounds):
        referees = list(self.referees)
        total = 0
        for round_id, pairs in enumerate(rounds, 1):
            matches = []
            for number, (player_a, player_b) in enumerate(pairs, 1):
                referee_id = referees[total % len(referees)]
                total += 1
                match = {
                    "match_id": f"R{round_id}M{number}",
                    "game_type": "even_odd",
                    "player_A_id": player_a,
                    "player_B_id": player_b,
                    "referee_endpoint": self.referees[referee_id]["endpoint"],
                }
                with self.lock:
                    self.schedule[match["match_id"]] = (player_a, player_b)
                matches.append((match, referee_id))
            # ROUND_ANNOUNCEMENT (league_id, round_id, matches[...])
            self.tell_players(
                "notify_round",
                "ROUND_ANNOUNCEMENT",
                round_id,
                {"round_id": round_id, "matches": [m for m, _ in matches]},
            )
            for match, referee_id in matches:
                self.send(
                    referee_id,
                    self.referees[referee_id],
                    "start_match",
                    self.start_match_message(match, referee_id, round_id),
                )
            self.wait_for_reports(round_id, [match["match_id"] for match, _ in matches])
            with self.lock:
                standings = self.ranked()
                results = [
                    self.reports[m["match_id"]]["result"]
                    for m, _ in matches
                    if m["match_id"] in self.reports
                ]
            # LEAGUE_STANDINGS_UPDATE (league_id, round_id, standings[...])
            self.tell_players(
                "update_standings",
                "LEAGUE_STANDINGS_UPDATE",
                round_id,
                {"round_id": round_id, "standings": standings},
            )
            # ROUND_COMPLETED, with matches_played as one version of the text names it
            self.tell_players(
                "notify_round_completed",
                "ROUND_COMPLETED",
                round_id,
                {
                    "round_id": round_id,
                    "matches_played": len(results),
                    "next_round_id": round_id + 1 if round_id < len(rounds) else None,
                    "summary": {
                        "total_matches": len(results),
                        "wins": sum(1 for r in results if r.get("winner")),
                        "draws": sum(1 for r in results if not r.get("winner")),
                        "technical_losses": sum(
                            1
                            for r in results
                            if (r.get("details") or {}).get("status") == "TECHNICAL_LOSS"
                        ),
                    },
                },
            )
        with self.lock:
            final = self.ranked()
        champion = final[0]
        # LEAGUE_COMPLETED (league_id, total_rounds, total_matches, champion, final_standings)
        completed = {
            "total_rounds": len(rounds),
            "total_matches": total,
            "champion": {
                "player_id": champion["player_id"],
                "display_name": champion["display_name"],
                "points": champion["points"],
            },
            "final_standings": [
                {"rank": row["rank"], "player_id": row["player_id"], "points": row["points"]}
                for row in final
            ],
        }
        for agent_id, agent in [*self.players.items(), *self.referees.items()]:
            self.send(
                agent_id,
                agent,
                "notify_league_completed",
                {
                    **self.envelope(
                        "LEAGUE_COMPLETED",
                        f"{self.league_id}-completed",
                        auth_token=agent["token"],
                        league_id=self.league_id,
                    ),
                    **completed,
                },
            )
        with self.lock:
            self.state = "COMPLETED"

    def start_match_message(self, match, referee_id, round_id):
        """Agent League's START_MATCH (its doc/protocol.md), signed with the referee's token."""
        seats = []
        for role, player_id in (
            ("PLAYER_A", match["player_A_id"]),
            ("PLAYER_B", match["player_B_id"]),
        ):
            with self.lock:
                row = dict(self.table[player_id])
            seats.append(
                {
                    "player_id": player_id,
                    "display_name": self.players[player_id]["display_name"],
                    "contact_endpoint": self.players[player_id]["endpoint"],
                    "role": role,
                    "standings": {
                        "wins": row["wins"],
                        "losses": row["losses"],
                        "draws": row["draws"],
                    },
                }
            )
        message = {
            **self.envelope(
                "START_MATCH",
                f"{self.league_id}-{match['match_id']}",
                auth_token=self.referees[referee_id]["token"],
                league_id=self.league_id,
                round_id=round_id,
                match_id=match["match_id"],
            ),
            "game_type": "even_odd",
            "game_params": {},
            "players": seats,
        }
        if self.player_proofs:
            message["player_proofs"] = {
                seat["player_id"]: match_proof(
                    self.players[seat["player_id"]]["token"],
                    self.league_id,
                    match["match_id"],
                    referee_id,
                )
                for seat in seats
            }
        return message

    def wait_for_reports(self, round_id, match_ids):
        with self.reported:
            arrived = self.reported.wait_for(
                lambda: all(match_id in self.reports for match_id in match_ids),
                timeout=REPORT_PATIENCE_SEC,
            )
            if not arrived:
                missing = [m for m in match_ids if m not in self.reports]
                self.problems.append(
                    f"round {round_id}: no report for {missing} within {REPORT_PATIENCE_SEC} s"
                )

    def tell_players(self, method, message_type, round_id, fields):
        for player_id, player in self.players.items():
            self.send(
                player_id,
                player,
                method,
                {
                    **self.envelope(
                        message_type,
                        f"{self.league_id}-round-{round_id}",
                        auth_token=player["token"],
                        league_id=self.league_id,
                    ),
                    **fields,
                },
            )

    def send(self, agent_id, agent, method, params):
        """One call; the answer (or why there was none) is kept for GET /state."""
        call = {"to": agent_id, "method": method, "params": params}
        try:
            call["response"] = post_json(
                agent["endpoint"],
                {
                    "jsonrpc": "2.0",
                    "method": method,
                    "params": params,
                    "id": random.getrandbits(31),
                },
            )
        except (OSError, ValueError) as exc:
            call["error"] = f"{type(exc).__name__}: {exc}"
        with self.lock:
            self.calls.append(call)

    # -- HTTP -------------------------------------------------------------------------

    def dispatch(self, request):
        if (
            not isinstance(request, dict)
            or request.get("jsonrpc") != "2.0"
            or not isinstance(request.get("method"), str)
            or not isinstance(request.get("params", {}), dict)
        ):
            return {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Invalid Request"},
            }
        handler = self.methods.get(request["method"])
        if handler is None:
            return {
                "jsonrpc": "2.0",
                "id": request.get("id"),
                "error": {"code": -32601, "message": "Method not found", "data": request["method"]},
            }
        if request["method"] in ("register_referee", "register_player"):
            with self.lock:
                self.registrations.append(request)  # exactly as received, for GET /state
        return {
            "jsonrpc": "2.0",
            "id": request.get("id"),
            "result": handler(request.get("params", {})),
        }

    def snapshot(self):
        with self.lock:
            return {
                "state": self.state,
                "league_id": self.league_id,
                "registrations": self.registrations,
                "referees": {
                    rid: {"display_name": r["display_name"], "endpoint": r["endpoint"]}
                    for rid, r in self.referees.items()
                },
                "players": {
                    pid: {"display_name": p["display_name"], "endpoint": p["endpoint"]}
                    for pid, p in self.players.items()
                },
                "schedule": self.schedule,
                "reports": list(self.reports.values()),
                "refused_reports": self.refused_reports,
                "standings": self.ranked(),
                "calls": self.calls,
                "problems": self.problems,
            }


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        manager = self.server.manager
        if self.path == "/health":
            self.send_json(200, {"status": "ok", "state": manager.state})
        elif self.path == "/state":
            self.send_json(200, manager.snapshot())
        else:
            self.send_json(404, {"error": "not found"})

    def do_POST(self):
        manager = self.server.manager
        if self.path == "/start":
            self.send_json(*manager.start())
            return
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
        self.send_json(200, manager.dispatch(request))

    def send_json(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # GET /state holds the traffic


def main():
    parser = argparse.ArgumentParser(description="A foreign, minimal league.v2 League Manager.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--league-id", default="league_2025_even_odd")
    parser.add_argument("--sender", default="league_manager")
    parser.add_argument("--basic-timestamps", action="store_true")
    parser.add_argument("--player-proofs", action="store_true")
    args = parser.parse_args()
    global BASIC
    BASIC = args.basic_timestamps
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.manager = LeagueManager(args.league_id, args.sender, args.player_proofs)
    server.serve_forever()


if __name__ == "__main__":
    main()
