"""Agents that fail to register say so, with real processes on loopback ports.

- Referees and players started by hand without ``--name`` take names of their own (the
  port), so two of them never collide.
- One the League Manager refuses for a reason no retry can fix (a name taken, a full
  league, a wrong secret) prints one line on stderr saying why and exits 4.
- One that cannot read the League Manager's answer (here a timestamp with a local offset,
  which the protocol forbids) tries again with backoff, logs why each time, and says on
  ``/health`` and ``/status`` that it is not registered, until an answer it can read
  registers it.
- A foreign agent (a raw HTTP client) whose registration answer is lost registers again
  with the same request and gets the same id and token back.
- ``league up`` (``start_processes``) stops at once, naming the agent and its line, when
  an agent it started is refused.
- A League Manager SIGKILLed right after answering registrations restarts with every one
  of them, and their tokens.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess, Launcher, LaunchError
from league_cli.up import LeaguePlan, start_processes, wait_for
from league_manager.registry_files import RegistryFiles
from sdk.config import SharedDir
from sdk.service import KEEP_ALIVE_SEC
from tests.conftest import free_port, make_shared_dir
from tests.reliability.services import TRACEBACK_MARKS
from tests.reliability.wiretap import Exchange, running_taps

pytestmark = pytest.mark.e2e

EXIT_REFUSED = 4
LEAGUE = "league_2025_even_odd"


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def launcher(shared: SharedDir) -> Iterator[Launcher]:
    started = Launcher(shared.root)
    try:
        yield started
    finally:
        started.stop_all()


def league_command(shared: SharedDir, agent: str, port: int, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "league_cli",
        agent,
        "--shared-dir",
        str(shared.root),
        "--port",
        str(port),
        *args,
    ]


def by_hand(launcher: Launcher, agent: str, lm_url: str) -> AgentProcess:
    """``league AGENT`` as a person types it: no --name, only a port and the League
    Manager's URL."""
    port = free_port()
    return launcher.start(
        agent,
        f"{agent}-{port}",
        port,
        league_command(SharedDir(launcher.shared_dir), agent, port, "--lm-url", lm_url),
    )


def lm_status(lm: AgentProcess) -> dict[str, Any]:
    return httpx.get(f"{lm.base_url}/status", timeout=10).json()  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Ending:
    """How a refused agent ended: its exit code and what it printed where."""

    code: int
    stdout: str
    stderr: str


def refused_run(shared: SharedDir, agent: str, lm: AgentProcess, *args: str) -> Ending:
    """Run ``league AGENT`` against ``lm`` until it ends (it must, within a minute); one
    still running then is killed (``subprocess.run``'s timeout), and the case fails."""
    ended = subprocess.run(
        league_command(shared, agent, free_port(), "--lm-url", lm.base_url, *args),
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    return Ending(
        ended.returncode,
        ended.stdout.decode(errors="replace"),
        ended.stderr.decode(errors="replace"),
    )


# -- names of agents started by hand --------------------------------------------------------


def test_agents_started_by_hand_without_a_name_never_collide(launcher: Launcher) -> None:
    lm = launcher.manager(free_port())
    launcher.wait_healthy(lm)
    agents = [
        by_hand(launcher, kind, lm.base_url) for kind in ("referee", "referee", "player", "player")
    ]
    for agent in agents:
        launcher.wait_healthy(agent)

    def everyone() -> dict[str, Any] | None:
        status = lm_status(lm)
        return status if len(status["referees"]) == 2 and len(status["players"]) == 2 else None

    status = wait_for(everyone, 30, "two referees and two players to register")
    names = {agent["display_name"] for agent in status["referees"] + status["players"]}
    assert names == {
        f"{'Referee' if agent.kind == 'referee' else 'Player'}-{agent.port}" for agent in agents
    }
    for agent in agents:
        answer = httpx.get(f"{agent.base_url}/health", timeout=10)
        health = answer.json()
        assert (health["status"], health["registration"]) == ("ok", "registered"), health
        assert answer.headers["keep-alive"] == f"timeout={KEEP_ALIVE_SEC}", "told to clients"
        assert agent.popen.poll() is None


# -- refusals no retry can fix --------------------------------------------------------------


def assert_one_line_on_stderr(ending: Ending, *expected: str, hidden: str = "") -> None:
    assert ending.code == EXIT_REFUSED, ending
    # stdout holds at most the line every agent prints once it listens (issue 20); why it
    # ends is the one line on stderr.
    said = ending.stdout.splitlines()
    assert len(said) <= 1 and all(" listening on http://" in line for line in said), (
        f"printed on stdout: {ending.stdout!r}"
    )
    lines = ending.stderr.splitlines()
    assert len(lines) == 1, ending.stderr
    assert not any(mark in ending.stderr for mark in TRACEBACK_MARKS), ending.stderr
    assert lines[0].startswith("error: the League Manager refused this "), lines[0]
    for part in expected:
        assert part in lines[0], lines[0]
    if hidden:
        assert hidden not in ending.stderr


def test_a_referee_whose_name_is_taken_says_so_and_exits(
    launcher: Launcher, shared: SharedDir
) -> None:
    lm = launcher.manager(free_port())
    launcher.wait_healthy(lm)
    first = launcher.referee("Umpire", free_port(), lm.mcp_url)
    launcher.wait_healthy(first)
    wait_for(lambda: lm_status(lm)["referees"], 30, "the first referee to register")

    ending = refused_run(shared, "referee", lm, "--name", "ＵＭＰＩＲＥ")  # full-width: the same

    assert_one_line_on_stderr(ending, "the display name", "is taken by REF01")
    assert len(lm_status(lm)["referees"]) == 1


def test_a_referee_with_a_wrong_secret_says_so_and_exits(
    launcher: Launcher, shared: SharedDir
) -> None:
    lm = launcher.manager(free_port())
    launcher.wait_healthy(lm)
    wrong = "not-the-secret-" + uuid.uuid4().hex

    ending = refused_run(shared, "referee", lm, "--referee-secret", wrong)

    assert_one_line_on_stderr(ending, "E012", "the referee secret is wrong", hidden=wrong)
    assert lm_status(lm)["referees"] == []


def test_a_player_refused_by_a_full_league_says_so_and_exits(
    launcher: Launcher, shared: SharedDir
) -> None:
    config_path = shared.config_dir / "leagues" / f"{LEAGUE}.json"
    config = json.loads(config_path.read_text())
    config_path.write_text(json.dumps({**config, "max_players": 2}))
    lm = launcher.manager(free_port())
    launcher.wait_healthy(lm)
    for name in ("Ann", "Ben"):
        launcher.wait_healthy(launcher.player(name, free_port(), lm.mcp_url))
    wait_for(lambda: len(lm_status(lm)["players"]) == 2, 30, "two players to register")

    full = refused_run(shared, "player", lm, "--name", "Cy")
    taken = refused_run(shared, "player", lm, "--name", " ann ")

    assert_one_line_on_stderr(full, "the league is full (2 players)")
    assert_one_line_on_stderr(taken, "the display name", "is taken by P01")


def test_league_up_stops_at_once_naming_an_agent_that_was_refused(shared: SharedDir) -> None:
    plan = LeaguePlan(
        shared.root,
        players=[("Twin", free_port(), "random"), ("twin", free_port(), "random")],
        referees=[("Ref", free_port(), 2)],
        lm_port=free_port(),
    )
    launcher = Launcher(shared.root)
    began = time.monotonic()
    try:
        with httpx.Client(timeout=10) as client, pytest.raises(LaunchError) as failed:
            start_processes(plan, launcher, client)
    finally:
        launcher.stop_all()
    assert time.monotonic() - began < 45, "it waited for a registration that cannot come"
    assert "exited with code 4" in str(failed.value)
    assert "the display name 'twin' is taken by" in str(
        failed.value
    ) or "the display name 'Twin' is taken by" in str(failed.value), str(failed.value)


# -- answers an agent cannot read -----------------------------------------------------------


class ScriptedLeagueManager:
    """A foreign League Manager in a thread of the test: its first ``unreadable``
    registration answers carry a timestamp with a local offset (the protocol forbids
    one: no agent of ours may take it), then it answers well. Keeps every request and
    when it came."""

    def __init__(self, unreadable: int):
        self.unreadable = unreadable
        self.requests: list[tuple[float, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.port = free_port()
        manager = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                payload = json.dumps(
                    {"jsonrpc": "2.0", "id": body["id"], "result": manager.answer(body)}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        params = body["params"]
        kind = "referee" if body["method"] == "register_referee" else "player"
        with self.lock:
            self.requests.append((time.monotonic(), body))
            bad = len(self.requests) <= self.unreadable
        return {
            "protocol": "league.v2",
            "message_type": f"{'REFEREE' if kind == 'referee' else 'LEAGUE'}_REGISTER_RESPONSE",
            "sender": "league_manager",
            "timestamp": "2025-01-15T12:00:00+02:00"
            if bad
            else datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "conversation_id": params["conversation_id"],
            "status": "ACCEPTED",
            f"{kind}_id": "REF01" if kind == "referee" else "P01",
            "auth_token": uuid.uuid4().hex,
            "league_id": LEAGUE,
            "reason": None,
        }


@contextmanager
def scripted_manager(unreadable: int) -> Iterator[ScriptedLeagueManager]:
    manager = ScriptedLeagueManager(unreadable)
    manager.thread.start()
    try:
        yield manager
    finally:
        manager.server.shutdown()
        manager.server.server_close()


def agent_log(shared: SharedDir) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted((shared.logs_dir / "agents").iterdir())
        for line in path.read_text().splitlines()
    ]


@pytest.mark.parametrize("agent", ["referee", "player"])
def test_an_answer_it_cannot_read_is_tried_again_with_backoff_and_shown(
    launcher: Launcher, shared: SharedDir, agent: str
) -> None:
    with scripted_manager(unreadable=2) as manager:
        process = by_hand(launcher, agent, manager.url)
        launcher.wait_healthy(process)
        seen: list[str] = []

        def registered() -> bool:
            health = httpx.get(f"{process.base_url}/health", timeout=10).json()
            assert health["status"] == "ok"
            seen.append(health["registration"])
            return bool(health["registration"] == "registered")

        wait_for(registered, 30, f"the {agent} to register", interval=0.05)
        status = httpx.get(f"{process.base_url}/status", timeout=10).json()
        requests = list(manager.requests)
    assert process.popen.poll() is None, "the agent keeps serving"
    not_yet = [line for line in seen if line != "registered"]
    assert any(
        "not registered: the League Manager's answer cannot be read: E021" in line
        for line in not_yet
    ), seen
    assert status["registration"] == {"status": "ACCEPTED", "reason": None}
    assert len(requests) == 3
    assert len({body["params"]["conversation_id"] for _, body in requests}) == 1
    gaps = [later - earlier for (earlier, _), (later, _) in pairwise(requests)]
    assert all(gap >= 0.95 for gap in gaps), f"retried faster than once a second: {gaps}"
    retries = [r for r in agent_log(shared) if r["event"] == "registration_retry"]
    assert [r["attempt"] for r in retries] == [1, 2]
    assert all("timestamp" in r["reason"] for r in retries), retries


# -- a foreign agent that loses its answer --------------------------------------------------


def _registration(
    kind: str, name: str, endpoint: str, conversation_id: str, secret: str | None = None
) -> dict[str, Any]:
    """A registration as a foreign agent writes it by hand (no SDK of ours)."""
    meta: dict[str, Any] = {
        "display_name": name,
        "version": "0.1",
        "game_types": ["even_odd"],
        "contact_endpoint": endpoint,
    }
    if kind == "referee":
        meta["max_concurrent_matches"] = 1
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": f"register_{kind}",
        "params": {
            "protocol": "league.v2",
            "message_type": "REFEREE_REGISTER_REQUEST"
            if kind == "referee"
            else "LEAGUE_REGISTER_REQUEST",
            "sender": f"{kind}:{name}",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "conversation_id": conversation_id,
            "auth_token": secret,
            f"{kind}_meta": meta,
        },
    }


@pytest.mark.parametrize("kind", ["player", "referee"])
def test_a_foreign_agent_that_loses_its_answer_gets_the_same_id_again(
    launcher: Launcher, shared: SharedDir, kind: str
) -> None:
    lost: list[Exchange] = []

    def drop_the_first_answer(exchange: Exchange) -> bool:
        if not lost and exchange.rpc().get("method") == f"register_{kind}":
            lost.append(exchange)
            return True
        return False

    with running_taps() as taps:
        manager_port = free_port()
        tap = taps.tap("league_manager", manager_port, on_answer=drop_the_first_answer)
        lm = launcher.manager(manager_port)
        launcher.wait_healthy(lm)
        secret = shared.referee_secret(LEAGUE) if kind == "referee" else None
        endpoint, conversation = f"http://127.0.0.1:{free_port()}/mcp", uuid.uuid4().hex
        with httpx.Client(timeout=10) as client:
            with pytest.raises(httpx.TransportError):  # the answer never reaches it
                client.post(
                    tap.url, json=_registration(kind, "Foreign", endpoint, conversation, secret)
                )
            time.sleep(1.1)  # a retry comes later, with a timestamp of its own
            again = client.post(
                tap.url, json=_registration(kind, "Foreign", endpoint, conversation, secret)
            ).json()["result"]
            other = client.post(
                tap.url, json=_registration(kind, "Foreign", endpoint, uuid.uuid4().hex, secret)
            ).json()["result"]
    issued = lost[0].result()
    assert issued["status"] == "ACCEPTED", "the League Manager registered it before the loss"
    assert again["status"] == "ACCEPTED"
    assert again[f"{kind}_id"] == issued[f"{kind}_id"]
    assert again["auth_token"] == issued["auth_token"]
    registered = lm_status(lm)[f"{kind}s"]
    assert [agent["agent_id"] for agent in registered] == [issued[f"{kind}_id"]]
    if kind == "player":  # anyone may name a player's endpoint: only its retry gets it back
        assert other["status"] == "REJECTED" and "auth_token" not in {
            key for key, value in other.items() if value
        }
        assert "must repeat its conversation_id" in other["reason"]
    else:  # a referee shows the league's secret: it is the operator's
        assert other[f"{kind}_id"] == issued[f"{kind}_id"]


# -- registrations survive a League Manager killed right after them --------------------------

KILLED_AFTER = 40
"""Registrations answered, all at once (their journal lines committed in groups), before
the League Manager is SIGKILLed: fewer than a snapshot waits for, so the journal alone
holds them."""


def test_a_league_manager_killed_after_registrations_restarts_with_every_one(
    launcher: Launcher, shared: SharedDir
) -> None:
    port = free_port()
    lm = launcher.manager(port)
    launcher.wait_healthy(lm)

    async def register_all() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(timeout=30) as client:
            answers = await asyncio.gather(
                *(
                    client.post(
                        lm.mcp_url,
                        json=_registration(
                            "player",
                            f"Killed {n}",
                            f"http://127.0.0.1:{20000 + n}/mcp",
                            uuid.uuid4().hex,
                        ),
                    )
                    for n in range(KILLED_AFTER)
                )
            )
        return [answer.json()["result"] for answer in answers]

    accepted = asyncio.run(register_all())
    os.kill(lm.popen.pid, signal.SIGKILL)
    lm.popen.wait(10)
    assert all(answer["status"] == "ACCEPTED" for answer in accepted), accepted
    league_dir = shared.league_dir(LEAGUE)
    assert (league_dir / "registry.jsonl").stat().st_mode & 0o777 == 0o600
    restarted = launcher.manager(port)
    launcher.wait_healthy(restarted)
    players = {p["agent_id"]: p["display_name"] for p in lm_status(restarted)["players"]}
    assert players == {a["player_id"]: f"Killed {n}" for n, a in enumerate(accepted)}
    tokens = RegistryFiles(league_dir).read().tokens
    assert {a["player_id"]: a["auth_token"] for a in accepted} == tokens
