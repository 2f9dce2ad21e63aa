"""A local OpenAI-compatible chat-completions server for tests: no internet, no model.

``POST /<behaviour>/<tag>/v1/chat/completions`` answers by rule from the last messages:

- ``valid``: a legal move read off the prompt's "Legal moves:" line, as ``{"move": ...}``;
- ``invalid_then_valid``: prose with no move, then a legal move once clarified;
- ``invalid``: never a legal move;
- ``slow-<seconds>``: a legal move after sleeping that long;
- ``error500``: HTTP 500;
- ``gamemaster``: a scripted prose-game master (``game_master_reply``): greets, sends
  each human line's turn to the opponent inside ``[PLAYER_TURN]`` (never the human's
  words), relays the ``[PLAYER_DECISION]`` and writes ``[GAME_OVER]`` after two rounds;
- ``accept``: a prose-game opponent that answers ``ACCEPT (offer N)``, N counting the
  user messages of its own history;
- ``model``: the behaviour the request's ``model`` names (``gamemaster``, ``accept``…),
  so that one ``base_url`` serves both sides of a prose game, told apart by their models.

``tag`` names the caller (one per player), so a test can tell whose requests are whose.
Every request is kept: ``GET /requests`` lists them (path, tag, body) and
``DELETE /requests`` forgets them. Usage counts are 1 token per 4 characters.

Faults, to fail N times and then succeed: ``POST /faults`` with ``{"count": N}`` and
``"status": 500`` (the default) or ``"delay_sec": S`` (answer normally after S seconds),
optionally only for requests of a ``"tag"`` or a ``"model"``; the next N such requests
meet it, then requests are answered again. ``DELETE /faults`` forgets the faults left.

Run as a process: ``python tests/strategies/llm_server.py --port 8765``; or in a thread with
``start_in_thread``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LlmServer", "game_master_reply", "legal_answer", "serving", "start_in_thread"]

_CHOICES = re.compile(r"Legal moves: one of (.+?)\.?$", re.MULTILINE)
_NUMBER = re.compile(r"Legal moves: a (?:whole )?number from (-?[\d.]+) to (-?[\d.]+)")
_ALLOCATION = re.compile(
    r"Legal moves: a JSON list of (\d+) whole numbers.*?sum to (\d+)", re.DOTALL
)


def legal_answer(prompt: str) -> Any:
    """The move a rule-based player makes: the last listed choice, the middle of a range,
    an even allocation; None when the prompt states no legal moves."""
    if (found := _CHOICES.search(prompt)) is not None:
        return json.loads(f"[{found.group(1)}]")[-1]
    if (found := _NUMBER.search(prompt)) is not None:
        low, high = float(found.group(1)), float(found.group(2))
        return int((low + high) // 2)
    if (found := _ALLOCATION.search(prompt)) is not None:
        size, total = int(found.group(1)), int(found.group(2))
        share, extra = divmod(total, size)
        return [share + (1 if i < extra else 0) for i in range(size)]
    return None


_DECISION = re.compile(r"\[PLAYER_DECISION\](.*?)\[/PLAYER_DECISION\]", re.DOTALL)
GAME_MASTER_ROUNDS = 2


def game_master_reply(messages: list[dict[str, str]]) -> str:
    """The scripted game master's next reply to its conversation."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    last = users[-1]
    decisions = sum("[PLAYER_DECISION]" in text for text in users)
    if "[GAME_START]" in last:
        return "Welcome to Scripted Split: 10 coins to share. Type your offer."
    if (found := _DECISION.search(last)) is not None:
        text = f"Round {decisions}: your opponent says {found.group(1).strip()}."
        if decisions >= GAME_MASTER_ROUNDS:
            return text + "\nFinal score: you 6, opponent 4.\n[GAME_OVER]"
        return text + " Type your next offer."
    return (
        f"Noted, I keep your words to myself.\n[PLAYER_TURN]Round {decisions + 1}: "
        "the human offers you 4 of 10 coins. Answer ACCEPT or REJECT.[/PLAYER_TURN]\n"
        "(the opponent is thinking)"
    )


class LlmServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int):
        super().__init__(("127.0.0.1", port), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.faults: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def fault_for(self, tag: str, model: str) -> dict[str, Any] | None:
        """The first fault left that this request meets (its count taken down by one)."""
        with self.lock:
            for fault in self.faults:
                if fault.get("tag") in (None, tag) and fault.get("model") in (None, model):
                    fault["count"] -= 1
                    self.faults = [f for f in self.faults if f["count"] > 0]
                    return fault
        return None

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a slow answer past its deadline) is expected, not news."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: LlmServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads ``/requests``, not stderr."""

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/requests":
            with self.server.lock:
                self._send(200, list(self.server.requests))
        elif self.path == "/health":
            self._send(200, {"status": "ok"})
        else:
            self._send(404, {"error": "not found"})

    def do_DELETE(self) -> None:
        with self.server.lock:
            if self.path == "/faults":
                self.server.faults.clear()
            else:
                self.server.requests.clear()
        self._send(200, {"cleared": True})

    def do_POST(self) -> None:
        parts = self.path.strip("/").split("/")
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.path == "/faults":
            with self.server.lock:
                self.server.faults.append({"status": 500, **body})
            self._send(200, {"faults": len(self.server.faults)})
            return
        if len(parts) != 5 or parts[2:] != ["v1", "chat", "completions"]:
            self._send(404, {"error": f"no route {self.path}"})
            return
        behaviour, tag = parts[0], parts[1]
        if behaviour == "model":
            behaviour = str(body.get("model"))
        with self.server.lock:
            self.server.requests.append(
                {
                    "path": self.path,
                    "tag": tag,
                    "body": body,
                    "authorization": self.headers.get("Authorization"),
                }
            )
        messages = body["messages"]
        prompt = "\n".join(m["content"] for m in messages)
        last = messages[-1]["content"]
        move = legal_answer(last)
        fault = self.server.fault_for(tag, str(body.get("model")))
        if fault is not None and fault.get("delay_sec") is not None:
            time.sleep(float(fault["delay_sec"]))
        elif fault is not None:
            self._send(int(fault["status"]), {"error": {"message": "scripted fault"}})
            return
        if behaviour == "error500":
            self._send(500, {"error": {"message": "scripted failure"}})
            return
        if behaviour.startswith("slow-"):
            time.sleep(float(behaviour.removeprefix("slow-")))
            text = json.dumps({"move": move})
        elif behaviour == "invalid":
            text = "I would rather not say."
        elif behaviour == "invalid_then_valid" and "not a legal move" not in last:
            text = "Let me think about the options first."
        elif behaviour in ("valid", "invalid_then_valid"):
            text = json.dumps({"move": move})
        elif behaviour == "gamemaster":
            text = game_master_reply(messages)
        elif behaviour == "accept":
            text = f"ACCEPT (offer {sum(m['role'] == 'user' for m in messages)})"
        else:
            self._send(404, {"error": f"no behaviour {behaviour!r}"})
            return
        self._send(
            200,
            {
                "id": f"chatcmpl-{len(self.server.requests)}",
                "object": "chat.completion",
                "model": body.get("model", "scripted"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
                "usage": {
                    "prompt_tokens": len(prompt) // 4 + 1,
                    "completion_tokens": len(text) // 4 + 1,
                    "total_tokens": len(prompt) // 4 + len(text) // 4 + 2,
                },
            },
        )


def start_in_thread(port: int) -> tuple[LlmServer, threading.Thread]:
    """The server on ``port``, serving in a daemon thread until ``shutdown()``."""
    server = LlmServer(port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


@contextmanager
def serving(port: int) -> Iterator[tuple[LlmServer, str]]:
    """The server on ``port`` in a thread, and its root URL; shut down at the end."""
    server, thread = start_in_thread(port)
    try:
        yield server, f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, required=True)
    server = LlmServer(parser.parse_args().port)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
