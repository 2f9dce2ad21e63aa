"""The processes of an interoperability test: the foreign agents (the standard-library scripts
beside this file, run in isolated mode) and ours (through the Launcher), on free loopback
ports, each stopped by its pid; and what the tests read back from them."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

from league_cli.launcher import AgentProcess, Launcher, LaunchError
from league_cli.up import wait_for
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir

__all__ = [
    "INTEROP_DIR",
    "LEAGUE",
    "UTC_WHOLE_SECONDS",
    "Agents",
    "ForeignAgent",
    "league_query",
    "rpc",
    "start_our_league",
]

INTEROP_DIR = Path(__file__).resolve().parent
LEAGUE = "league_2025_even_odd"
UTC_WHOLE_SECONDS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
"""What our agents send: ``YYYY-MM-DDTHH:MM:SSZ`` (doc/protocol.md, Timestamps)."""


@dataclass
class ForeignAgent:
    """One foreign agent process; its record file outlives it."""

    name: str
    port: int
    popen: subprocess.Popen[bytes]
    output: Path
    record: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"

    def health(self) -> dict[str, Any]:
        health: dict[str, Any] = httpx.get(f"{self.base_url}/health", timeout=2).json()
        return health

    def records(self) -> list[dict[str, Any]]:
        """Every line the agent wrote to its --record file, in order."""
        if self.record is None or not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]


@dataclass
class Agents:
    """Every process of one test: ours through a Launcher, the foreign ones as scripts.
    ``stop_all`` stops each by its pid; call it in a ``finally``."""

    root: Path
    foreign: list[ForeignAgent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.shared: SharedDir = make_shared_dir(self.root / "SHARED")
        self.ours = Launcher(self.shared.root)
        self.folder = self.root / "foreign"
        self.folder.mkdir(parents=True, exist_ok=True)

    # -- ours ---------------------------------------------------------------------------

    def our_manager(self) -> AgentProcess:
        manager = self.ours.manager(free_port())
        self.ours.wait_healthy(manager)
        return manager

    def our_referee(self, lm: str, name: str = "Ref1") -> AgentProcess:
        return self.ours.referee(name, free_port(), lm)

    def our_player(self, lm: str, name: str, strategy: str = "random") -> AgentProcess:
        return self.ours.player(name, free_port(), lm, strategy)

    # -- foreign ------------------------------------------------------------------------

    def _spawn(self, script: str, name: str, args: list[str], recorded: bool) -> ForeignAgent:
        port = free_port()
        record = self.folder / f"{name}.jsonl" if recorded else None
        output = self.folder / f"{name}.out"
        command = [sys.executable, "-I", str(INTEROP_DIR / script), "--port", str(port), *args]
        if record is not None:
            command += ["--record", str(record)]
        with open(output, "ab") as sink:
            popen = subprocess.Popen(
                command,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.folder,
            )
        agent = ForeignAgent(name, port, popen, output, record)
        self.foreign.append(agent)
        return agent

    def foreign_player(self, lm: str, name: str, styles: str = "spec") -> ForeignAgent:
        return self._spawn(
            "foreign_player.py",
            name,
            ["--lm", lm, "--name", name, "--style", styles],
            recorded=True,
        )

    def foreign_referee(
        self, lm: str, name: str = "ForeignRef", styles: str = "spec", secret: str | None = None
    ) -> ForeignAgent:
        """A foreign referee: in our league the operator hands it the referee secret that
        our League Manager (started first) wrote; a foreign League Manager needs none."""
        if secret is None:
            secret = self.shared.referee_secret_path(LEAGUE).read_text().strip()
        return self._spawn(
            "foreign_referee.py",
            name,
            ["--lm", lm, "--name", name, f"--referee-secret={secret}", "--style", styles],
            recorded=True,
        )

    def foreign_league_manager(self, *options: str) -> ForeignAgent:
        """``options``: its flags (``--sender league_manager:LM01``, ``--basic-timestamps``)."""
        manager = self._spawn(
            "foreign_league_manager.py",
            "foreign_league_manager",
            ["--league-id", LEAGUE, *options],
            recorded=False,
        )
        self.wait_healthy(manager)
        return manager

    def wait_healthy(self, agent: ForeignAgent, timeout: float = 10) -> None:
        def healthy() -> bool:
            if agent.popen.poll() is not None:
                raise LaunchError(
                    f"{agent.name} exited with code {agent.popen.returncode}: "
                    f"{agent.output.read_text()[-2000:]}"
                )
            try:
                return agent.health()["status"] == "ok"
            except httpx.HTTPError:
                return False

        wait_for(healthy, timeout, f"{agent.name} to answer /health")

    def wait_registered(self, agent: ForeignAgent, timeout: float = 15) -> str:
        """The foreign agent's registration outcome once it has one (``ACCEPTED`` or
        ``REFUSED: why``)."""
        self.wait_healthy(agent)

        def settled() -> str | None:
            outcome: str = agent.health()["registration"]
            return None if outcome == "PENDING" else outcome

        return str(wait_for(settled, timeout, f"{agent.name} to hear from the League Manager"))

    def stop_all(self) -> None:
        """SIGTERM each foreign agent (then SIGKILL if it lingers) and stop ours."""
        try:
            for agent in self.foreign:
                if agent.popen.poll() is None:
                    agent.popen.send_signal(signal.SIGTERM)
            for agent in self.foreign:
                try:
                    agent.popen.wait(5)
                except subprocess.TimeoutExpired:
                    agent.popen.kill()
                    agent.popen.wait(5)
        finally:
            self.ours.stop_all()


# -- talking to our League Manager -------------------------------------------------------


def start_our_league(
    agents: Agents, manager: AgentProcess, *, referees: int, players: int, timeout: float = 30
) -> dict[str, Any]:
    """Wait until ``referees`` and ``players`` are registered, start the league as the
    admin, wait for it to complete and return the League Manager's final /status."""
    with httpx.Client(base_url=manager.base_url, timeout=10) as client:

        def registered() -> bool:
            status = client.get("/status").json()
            return len(status["referees"]) >= referees and len(status["players"]) >= players

        wait_for(registered, 15, f"{referees} referee(s) and {players} player(s) to register")
        token = (agents.shared.league_dir(LEAGUE) / "admin_token").read_text().strip()
        started = client.post("/start_league", headers={"Authorization": f"Bearer {token}"})
        assert started.status_code == 200, f"the League Manager did not start: {started.text}"

        def completed() -> dict[str, Any] | None:
            status: dict[str, Any] = client.get("/status").json()
            return status if status["state"] == "COMPLETED" else None

        final: dict[str, Any] = wait_for(completed, timeout, "the league to complete")
        return final


def rpc(
    url: str, method: str, params: dict[str, Any], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """One JSON-RPC call as any outside client makes it (with ``headers`` of its own); the
    whole response."""
    body = {"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
    response: dict[str, Any] = httpx.post(url, json=body, headers=headers, timeout=10).json()
    return response


def league_query(sender: str, **token: str) -> dict[str, Any]:
    """A GET_STANDINGS LEAGUE_QUERY as the protocol shows it, with ``auth_token`` if given."""
    return {
        "protocol": "league.v2",
        "message_type": "LEAGUE_QUERY",
        "sender": sender,
        "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "conversation_id": "standings-query",
        "query_type": "GET_STANDINGS",
        "query_params": {},
        **token,
    }


# -- what our agents leave on disk -------------------------------------------------------
