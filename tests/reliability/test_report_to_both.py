"""Every result report of a whole league delivered to two League Manager processes at once
(tests/tee.py), on one PostgreSQL store: each match is counted once. The referees report
through the tee, which sends each report to both League Managers concurrently, so their two
inserts of one result race; one of them keeps the row and answers RECORDED, the other is
refused by the results' primary key and answers DUPLICATE (as it does where it heard of the
kept result before the report reached it). Players register directly, half at each League
Manager; everything but the reports goes through the tee to one League Manager."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import AgentProcess, Launcher
from league_cli.up import wait_for
from tests.ports import free_port
from tests.postgres import accepted_rows
from tests.reliability.crash_league import (
    FAST_STRATEGIES,
    LEAGUE,
    check_league,
    league_shared_dir,
)
from tests.reliability.league_managers import (
    start_at_leader,
    wait_completed,
    wait_every_agent_known,
)
from tests.tee import Tee, TeedReport, tee

pytestmark = pytest.mark.e2e

PLAYERS = 8
REFEREES = 2
ACKS = {"RECORDED", "DUPLICATE"}
"""The answers a sound report may get: a refusal (E014 another's match, E022 not kept…) or
no answer has no cause in this league."""


def writer_pid(recorded_by: str) -> int:
    """The process id in a row's ``recorded_by`` (``host:pid:nonce``)."""
    return int(recorded_by.split(":")[-2])


def recorded_by_whom(
    reports: list[TeedReport], managers: list[AgentProcess]
) -> dict[str, list[int]]:
    """For each reported match, the pids of the League Managers that answered one of its
    deliveries RECORDED (a referee's retry is delivered again: its answers are counted
    too)."""
    recorded: dict[str, list[int]] = defaultdict(list)
    for report in reports:
        recorded[report.match_id] += [
            manager.popen.pid
            for manager, status in zip(managers, report.statuses(), strict=True)
            if status == "RECORDED"
        ]
    return recorded


def every_match_teed(relay: Tee, total: int) -> list[TeedReport] | None:
    """The tee's reports once ``total`` matches have one (a report is kept once both League
    Managers answered it, which may be after the league completed at the leader)."""
    reports = list(relay.reports)
    return reports if len({r.match_id for r in reports}) >= total else None


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_each_report_sent_to_both_league_managers_counts_once(
    tmp_path: Path, store_url: str | None
) -> None:
    assert store_url is not None
    shared = league_shared_dir(tmp_path)
    launcher = Launcher(shared.root)
    try:
        managers = [launcher.manager(free_port(), LEAGUE, store_url=store_url) for _ in (1, 2)]
        with (
            tee(0, [m.base_url for m in managers]) as relay,
            httpx.Client(timeout=10) as client,
        ):
            agents = [
                launcher.referee(f"Ref{n + 1}", free_port(), f"{relay.url}/mcp", 4)
                for n in range(REFEREES)
            ]
            agents += [
                launcher.player(
                    f"Player{n + 1}",
                    free_port(),
                    f"{managers[n % 2].base_url}/mcp",
                    FAST_STRATEGIES[n % len(FAST_STRATEGIES)],
                )
                for n in range(PLAYERS)
            ]
            for process in managers + agents:
                launcher.wait_healthy(process)
            wait_every_agent_known(client, managers, PLAYERS, REFEREES)
            leader, total = start_at_leader(client, shared, managers)
            wait_completed(client, managers, 40)
            reports = wait_for(
                lambda: every_match_teed(relay, total), 10, "every match's report to pass the tee"
            )
            standings = [client.get(f"{m.base_url}/standings").json() for m in managers]
        final = standings[managers.index(leader)]
        check = check_league(shared, final, store_url)
        rows = {row["match_id"]: row for row in accepted_rows(store_url, LEAGUE)}
        log = shared.league_log_path(LEAGUE).read_text().splitlines()
        raced = sum(json.loads(line)["event"] == "result_kept_elsewhere" for line in log)
    finally:
        launcher.stop_all()
    refused = [report for report in reports if not set(report.statuses()) <= ACKS]
    assert [r.why() for r in refused] == [], "a report refused, or not answered"
    recorded = recorded_by_whom(reports, managers)
    assert sorted(recorded) == sorted(rows), "a match reported but not kept, or kept unreported"
    assert {m: len(pids) for m, pids in recorded.items() if len(pids) != 1} == {}, (
        "a match answered RECORDED by none or by both League Managers"
    )
    assert {
        match_id: (pids[0], writer_pid(rows[match_id]["recorded_by"]))
        for match_id, pids in recorded.items()
        if pids[0] != writer_pid(rows[match_id]["recorded_by"])
    } == {}, "RECORDED answered by a League Manager whose row the database did not keep"
    assert raced >= 1, "no two inserts of one result met at the primary key"
    assert check.double_counts == [], "a match was counted twice"
    assert check.mismatches == []
    assert check.counted == check.scheduled == total == len(rows)
    assert standings[0]["standings"] == standings[1]["standings"], "the League Managers disagree"
