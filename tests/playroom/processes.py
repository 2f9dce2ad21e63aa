"""The play service with real processes around it, for the tests that play through it: a
League Manager, a player registered in its league and the play service, on free loopback
ports; or, for prose games, the play service and the scripted model server."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from league_cli.launcher import AgentProcess, Launcher
from sdk.config import SharedDir
from tests.conftest import REPO_ROOT, free_port

__all__ = ["ProseRunning", "Running", "play_league", "prose_service"]


@dataclass
class Running:
    """A League Manager process, one player process registered in its league (the fixed
    strategy, even/odd), and the play service process beside them."""

    manager: AgentProcess
    play: AgentProcess
    player: AgentProcess
    player_id: str

    @property
    def url(self) -> str:
        """The play service's base URL."""
        return self.play.base_url

    @property
    def play_url(self) -> str:
        return f"{self.play.base_url}/play"


def _first_player(play_url: str, timeout: float = 30.0) -> str:
    """The id of the first player the play service offers, once the League Manager lists one."""
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=5) as client:
        while True:
            players = client.get(f"{play_url}/api/play/defaults").json()["players"]
            if players:
                return str(players[0]["player_id"])
            assert time.monotonic() < deadline, "the player never showed in /api/play/defaults"
            time.sleep(0.1)


@contextmanager
def play_league(shared: SharedDir) -> Iterator[Running]:
    """Start the three processes on free loopback ports (the dashboard links to the play
    service); stopped, by pid, at the end."""
    launcher = Launcher(shared.root)
    play_port = free_port()
    try:
        manager = launcher.manager(free_port(), play_url=f"http://127.0.0.1:{play_port}/play")
        launcher.wait_healthy(manager)
        play = launcher.play_service(play_port, manager.mcp_url)
        player = launcher.player(
            "Fixed", free_port(), manager.mcp_url, strategy="fixed", game_type="even_odd"
        )
        launcher.wait_healthy(play)
        launcher.wait_healthy(player)
        yield Running(manager, play, player, _first_player(play.base_url))
    finally:
        launcher.stop_all()


LLM_SERVER = REPO_ROOT / "tests" / "strategies" / "llm_server.py"


@dataclass
class ProseRunning:
    """The play service process with the scripted model server process behind it: the
    server answers as the model a request names (``gamemaster``, ``accept``)."""

    play: AgentProcess
    llm: AgentProcess
    shared: SharedDir

    @property
    def url(self) -> str:
        """The play service's base URL."""
        return self.play.base_url

    @property
    def llm_url(self) -> str:
        """The scripted model server's root (``/faults``, ``/requests``)."""
        return self.llm.base_url


@contextmanager
def prose_service(shared: SharedDir, **limits: str) -> Iterator[ProseRunning]:
    """The scripted model server and a play service that calls it, on free loopback ports
    (no League Manager: prose games need none); ``limits`` are ``LEAGUE_PLAY_<NAME>``
    values. Both stopped, by pid, at the end."""
    launcher = Launcher(shared.root)
    try:
        llm_port = free_port()
        llm = launcher.start(
            "llm",
            "llm_server",
            llm_port,
            [sys.executable, str(LLM_SERVER), "--port", str(llm_port)],
        )
        env = {
            "LEAGUE_LLM_BASE_URL": f"http://127.0.0.1:{llm_port}/model/prose/v1",
            "LEAGUE_LLM_MODEL": "unscripted",
            "LEAGUE_LLM_API_KEY": "",
            "OPENAI_API_KEY": "",
            **{f"LEAGUE_PLAY_{name.upper()}": value for name, value in limits.items()},
        }
        play = launcher.play_service(free_port(), f"http://127.0.0.1:{free_port()}/mcp", env)
        launcher.wait_healthy(llm)
        launcher.wait_healthy(play)
        yield ProseRunning(play, llm, shared)
    finally:
        launcher.stop_all()
