"""Two League Managers on one PostgreSQL store behind a load balancer (tests/balancer.py),
every agent a real process registered through it: one of them drives the rounds. The leader
is SIGKILLed mid-round five times, each time started again on its port; the other takes the
lead within seconds, and the league completes with every match counted exactly once and the
standings what the referees' match files say."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import wait_for
from tests.balancer import balancer
from tests.ports import free_port
from tests.reliability.crash_league import (
    FAST_STRATEGIES,
    LEAGUE,
    check_league,
    kill_points,
    league_shared_dir,
)
from tests.reliability.league_managers import (
    LEAD_SEC,
    leading,
    start_at_leader,
    status_of,
    wait_completed,
    wait_every_agent_known,
)

pytestmark = pytest.mark.e2e

SEED = 20261129
PLAYERS = 12
TAKE_OVER_SEC = 5.0
"""The lead passes to the other League Manager within this of the leader's death."""


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_the_leader_killed_five_times_the_other_takes_over(
    tmp_path: Path, store_url: str | None
) -> None:
    assert store_url is not None
    shared = league_shared_dir(tmp_path)
    launcher = Launcher(shared.root)
    ports, front = [free_port(), free_port()], free_port()
    front_url = f"http://127.0.0.1:{front}"
    take_overs: list[float] = []
    try:
        with balancer(front, ports), httpx.Client(timeout=10) as client:
            managers = [launcher.manager(port, LEAGUE, store_url=store_url) for port in ports]
            agents = [
                launcher.referee(f"Ref{n}", free_port(), f"{front_url}/mcp", 4) for n in (1, 2)
            ]
            agents += [
                launcher.player(
                    f"Player{n + 1}", free_port(), f"{front_url}/mcp", FAST_STRATEGIES[n % 3]
                )
                for n in range(PLAYERS)
            ]
            for process in managers + agents:
                launcher.wait_healthy(process)
            wait_every_agent_known(client, managers, PLAYERS, 2)
            leader, total = start_at_leader(client, shared, managers)
            for point in kill_points(total, 5, SEED):
                reached = wait_for(
                    lambda p=point: (
                        (s := status_of(client, front_url))["matches_completed"] >= p
                        or s["state"] == "COMPLETED"
                    ),
                    60,
                    f"{point} results",
                    interval=0.02,
                )
                assert reached
                leader = wait_for(lambda m=managers: leading(client, m), LEAD_SEC, "a leader")
                killed = time.monotonic()
                os.kill(leader.popen.pid, signal.SIGKILL)
                leader.popen.wait(10)
                others = [m for m in managers if m is not leader]
                wait_for(
                    lambda o=others: leading(client, o), LEAD_SEC, "the other to take the lead"
                )
                take_overs.append(time.monotonic() - killed)
                again = launcher.manager(leader.port, LEAGUE, store_url=store_url)
                launcher.wait_healthy(again)
                managers = [*others, again]
            wait_completed(client, managers, 90)
            leader = wait_for(lambda: leading(client, managers), LEAD_SEC, "a leader")
            final = client.get(f"{leader.base_url}/standings").json()
            behind = client.get(f"{front_url}/standings").json()
        check = check_league(shared, final, store_url)
        log = shared.league_log_path(LEAGUE).read_text().splitlines()
        elected = [r for line in log if (r := json.loads(line))["event"] == "leader_elected"]
    finally:
        launcher.stop_all()
    assert len(take_overs) == 5, "the league completed before the fifth kill"
    assert max(take_overs) < TAKE_OVER_SEC, take_overs
    assert len(elected) >= 6, "a leader at the start and after each kill"
    assert check.double_counts == [], "a match was counted twice"
    assert check.mismatches == []
    assert check.counted == check.scheduled == total
    assert behind["standings"] == final["standings"], "the League Managers disagree"
