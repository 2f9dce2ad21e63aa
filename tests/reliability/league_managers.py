"""Helpers of the tests that run several League Manager processes on one PostgreSQL store
(``test_league_managers.py``, ``test_report_to_both.py``): which one leads, what each one's
``/status`` says, and the league started at the leader once every one knows every agent."""

from __future__ import annotations

from typing import Any

import httpx

from league_cli.launcher import AgentProcess
from league_cli.up import wait_for
from sdk.config import SharedDir
from tests.reliability.crash_league import LEAGUE

__all__ = ["leading", "start_at_leader", "status_of", "wait_completed", "wait_every_agent_known"]

LEAD_SEC = 15.0
"""A League Manager leads within this of the start or of the last leader's death."""


def leading(client: httpx.Client, managers: list[AgentProcess]) -> AgentProcess | None:
    """The League Manager whose /health says it leads (None: none does now)."""
    for manager in managers:
        try:
            health = client.get(f"{manager.base_url}/health", timeout=2).json()
        except httpx.HTTPError:
            continue
        if health.get("leadership", {}).get("leading"):
            return manager
    return None


def status_of(client: httpx.Client, url: str) -> dict[str, Any]:
    response = client.get(f"{url}/status")
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def wait_every_agent_known(
    client: httpx.Client, managers: list[AgentProcess], players: int, referees: int
) -> None:
    """Wait until every League Manager knows every player and referee (each registered at
    one of them: the others learn it from the database), so the league may start."""
    wait_for(
        lambda: all(
            (len(status["players"]), len(status["referees"])) == (players, referees)
            for status in (status_of(client, m.base_url) for m in managers)
        ),
        30,
        "every League Manager to know every agent",
    )


def start_at_leader(
    client: httpx.Client, shared: SharedDir, managers: list[AgentProcess]
) -> tuple[AgentProcess, int]:
    """Start the league as the admin does, at the League Manager that leads (the others
    refuse it); returns the leader and the league's number of matches."""
    leader = wait_for(lambda: leading(client, managers), LEAD_SEC, "a leader")
    token = (shared.league_dir(LEAGUE) / "admin_token").read_text().strip()
    started = client.post(
        f"{leader.base_url}/start_league", headers={"Authorization": f"Bearer {token}"}
    )
    assert started.status_code == 200, started.text
    return leader, int(started.json()["total_matches"])


def wait_completed(client: httpx.Client, managers: list[AgentProcess], timeout: float) -> None:
    """Wait until every League Manager says the league has completed."""
    wait_for(
        lambda: all(status_of(client, m.base_url)["state"] == "COMPLETED" for m in managers),
        timeout,
        "the league to complete",
    )
