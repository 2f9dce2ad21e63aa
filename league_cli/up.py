"""``league up``: one league on this machine, from nothing to final standings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from league_cli.console import console, standings_table
from league_cli.kept_leagues import remember
from league_cli.launcher import AgentProcess, Launcher, LaunchError

__all__ = ["LeaguePlan", "run_league", "start_processes", "wait_for"]


@dataclass
class LeaguePlan:
    """What to start: counts, ports, strategies and the league."""

    shared_dir: Path
    players: list[tuple[str, int, str]]
    referees: list[tuple[str, int, int]]
    lm_port: int = 8000
    league_id: str | None = None
    seed: int | None = None
    game_type: str | None = None
    """The league's game; None: the referees' and players' defaults (even/odd)."""
    play_port: int | None = None
    """Where the play service (the /play page) listens; None: no play service."""
    store_url: str | None = None
    """The League Manager's PostgreSQL store (--store); None: it resolves its own
    ($LEAGUE_STORE_URL, system.json's store_url, else the JSON files)."""

    @property
    def play_url(self) -> str | None:
        """The play service's page, which the dashboard links to (None: none started)."""
        return None if self.play_port is None else f"http://127.0.0.1:{self.play_port}/play"


def wait_for(condition: Any, timeout: float, what: str, interval: float = 0.1) -> Any:
    """Poll ``condition()`` until it returns something truthy, or raise LaunchError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise LaunchError(f"timed out after {timeout:g} s waiting for {what}")


def _registration(client: httpx.Client, agent: AgentProcess) -> str | None:
    """What an agent's ``/health`` says of its registration (``registered``, ``not
    registered: <why>``), or None while it does not answer."""
    try:
        response = client.get(f"{agent.base_url}/health")
        health = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return str(health.get("registration")) if isinstance(health, dict) else None


def _status(client: httpx.Client, lm_url: str) -> dict[str, Any]:
    response = client.get(f"{lm_url}/status")
    response.raise_for_status()
    status: dict[str, Any] = response.json()
    return status


def start_processes(plan: LeaguePlan, launcher: Launcher, client: httpx.Client) -> str:
    """Start the League Manager, the play service (when ``plan.play_port`` says where), the
    referees and the players; wait until every one is healthy and registered. Returns the
    League Manager's base URL."""
    manager = launcher.manager(
        plan.lm_port, plan.league_id, play_url=plan.play_url, store_url=plan.store_url
    )
    launcher.wait_healthy(manager)
    lm_mcp = manager.mcp_url
    services = [] if plan.play_port is None else [launcher.play_service(plan.play_port, lm_mcp)]
    agents = [
        launcher.referee(name, port, lm_mcp, capacity, plan.seed, plan.game_type)
        for name, port, capacity in plan.referees
    ]
    agents += [
        launcher.player(name, port, lm_mcp, strategy, plan.game_type)
        for name, port, strategy in plan.players
    ]
    started = services + agents
    for process in started:
        launcher.wait_healthy(process)
    unregistered = list(agents)

    def registered() -> bool:
        """Every referee and player started here registered, as each says on its own
        ``/health`` (the League Manager's list also holds the agents of an earlier run on
        the same data folder); one that exited (its registration refused for good) fails
        the start at once, with its last line."""
        for process in [manager, *started]:
            exited = process.exit_error()
            if exited is not None:
                raise exited
        unregistered[:] = [p for p in unregistered if _registration(client, p) != "registered"]
        return not unregistered

    wait_for(registered, 60, "every agent to register with the League Manager")
    return manager.base_url


def _wait_until_told(client: httpx.Client, lm_url: str, timeout: float = 15) -> None:
    """Wait until the League Manager has told every agent the league is over (it shows
    COMPLETED before its LEAGUE_COMPLETED broadcast, and marks each agent it told
    SHUTDOWN after), so that stopping them does not cut the news off."""

    def told() -> bool:
        status = _status(client, lm_url)
        agents = status["players"] + status["referees"]
        return all(agent["state"] in ("SHUTDOWN", "REMOVED") for agent in agents)

    try:
        wait_for(told, timeout, "the agents to be told the league is over")
    except LaunchError as late:
        console.print(f"[yellow]{late}; stopping them anyway[/yellow]")


def run_league(
    plan: LeaguePlan, admin_token: Callable[[], str], *, stop_at_end: bool, timeout: float = 3600
) -> dict[str, Any]:
    """Start everything, start the league, show progress, print and return the standings.

    On any failure every process started here is stopped before the error goes on: a
    league that could not start leaves nothing behind. Kept running at the end, the SHARED
    folder is recorded for ``league down`` (``league_cli.kept_leagues``)."""
    launcher = Launcher(plan.shared_dir)
    failed = True
    try:
        with httpx.Client(timeout=10) as client:
            lm_url = start_processes(plan, launcher, client)
            console.print(
                f"[green]League Manager at {lm_url}: {len(plan.referees)} referee(s), "
                f"{len(plan.players)} player(s) registered[/green]"
            )
            if plan.play_url:
                console.print(f"[green]Play a game at {plan.play_url}[/green]")
            response = client.post(
                f"{lm_url}/start_league", headers={"Authorization": f"Bearer {admin_token()}"}
            )
            if response.status_code != 200:
                raise LaunchError(f"the League Manager refused to start: {response.text}")
            status = response.json()
            with Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            ) as progress:
                task = progress.add_task("matches", total=status["total_matches"])
                deadline = time.monotonic() + timeout
                while status["state"] != "COMPLETED":
                    if time.monotonic() > deadline:
                        raise LaunchError(f"the league did not complete within {timeout:g} s")
                    time.sleep(0.25)
                    status = _status(client, lm_url)
                    done = status["state"] == "COMPLETED"
                    current = status["current_round"] or (status["total_rounds"] if done else "-")
                    progress.update(
                        task,
                        completed=status["matches_completed"],
                        description=f"round {current}/{status['total_rounds']}",
                    )
            standings: dict[str, Any] = client.get(f"{lm_url}/standings").json()
            if stop_at_end:
                _wait_until_told(client, lm_url)
        console.print(standings_table(standings, "Final standings"))
        failed = False
        return standings
    finally:
        if stop_at_end or failed:
            running = any(process.popen.poll() is None for process in launcher.processes)
            launcher.stop_all()
            if running:  # else the error is the one line: the League Manager did not start
                console.print("[dim]all league processes stopped[/dim]")
        else:
            remember(plan.shared_dir)
            console.print(
                f"[dim]processes keep running; stop them with scripts/stop_league.sh "
                f"(or league down; pid files in {launcher.run_dir})[/dim]"
            )
