"""A league.v2 League Manager with one deliberate fault, for the conformance kit's tests.
Only the standard library and nothing shared with Agent League. It registers and answers
queries; it never schedules a match.

    python broken_league.py --port 8000 --fault query_without_token

--fault:
    none                 a correct League Manager (for what it serves)
    missing_auth_token   registration responses carry no auth_token
    query_without_token  answers a league_query that carries no auth_token
"""

import argparse
import json
import secrets
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("none", "missing_auth_token", "query_without_token")
LEAGUE_ID = "league_broken"


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class League:
    def __init__(self, fault):
        self.fault = fault
        self.tokens = {}
        self.lock = threading.Lock()

    def message(self, message_type, request, **fields):
        envelope = {
            "protocol": "league.v2",
            "message_type": message_type,
            "sender": "league_manager",
            "timestamp": now(),
            "conversation_id": request.get("conversation_id", "none"),
            "league_id": LEAGUE_ID,
        }
        envelope.update(fields)
        return envelope

    def refusal(self, code, description, request):
        return self.message(
            "LEAGUE_ERROR",
            request,
            error_code=code,
            error_description=description,
            original_message_type=request.get("message_type"),
            context={},
        )

    def register(self, prefix, response_type, id_field, request):
        with self.lock:
            number = 1 + sum(1 for agent_id in self.tokens if agent_id.startswith(prefix))
            agent_id = f"{prefix}{number:02d}"
            token = secrets.token_urlsafe(32)
            self.tokens[agent_id] = token
        fields = {"status": "ACCEPTED", id_field: agent_id, "reason": None}
        if self.fault != "missing_auth_token":
            fields["auth_token"] = token
        return self.message(response_type, request, **fields)

    def query(self, request):
        agent_id = str(request.get("sender", "")).split(":", 1)[-1]
        if agent_id not in self.tokens:
            return self.refusal("E005", agent_id + " is not registered", request)
        token = request.get("auth_token")
        if not token and self.fault != "query_without_token":
            return self.refusal("E011", "no auth_token", request)
        if token and token != self.tokens[agent_id]:
            return self.refusal("E012", "wrong auth_token", request)
        return self.message(
            "LEAGUE_QUERY_RESPONSE",
            request,
            query_type=request.get("query_type"),
            success=True,
            data={"standings": []},
            error=None,
        )

    def answer(self, method, params):
        if method == "register_referee":
            return self.register("REF", "REFEREE_REGISTER_RESPONSE", "referee_id", params), None
        if method == "register_player":
            return self.register("P", "LEAGUE_REGISTER_RESPONSE", "player_id", params), None
        if method == "league_query":
            return self.query(params), None
        if method == "get_standings":
            return self.message(
                "LEAGUE_STANDINGS", params, version=0, rounds_completed=0, standings=[]
            ), None
        return None, {"code": -32601, "message": "Method not found", "data": method}


def handler_for(league):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                request = json.loads(body)
            except ValueError:
                request = None
            if not isinstance(request, dict) or not isinstance(request.get("params"), dict):
                answer = {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Invalid request"},
                }
            else:
                result, error = league.answer(request.get("method"), request["params"])
                answer = {"jsonrpc": "2.0", "id": request.get("id")}
                answer.update({"result": result} if error is None else {"error": error})
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fault", choices=FAULTS, default="none")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(League(args.fault)))
    server.daemon_threads = True
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
