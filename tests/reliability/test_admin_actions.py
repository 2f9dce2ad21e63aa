"""The admin's actions on a league of real processes on loopback: paused while matches run,
the League Manager killed and started again while paused, a player removed, resumed to the
end; then the files and the exports are checked against each other."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from league_cli.up import wait_for
from tests.match_files import match_files, scheduled_rounds
from tests.reliability.crash_league import LEAGUE, CrashLeague, running_league

pytestmark = pytest.mark.e2e

SLOW = ("tests.reliability.deliberate:Deliberate",)
"""Players that think about a second a move, so a pause lands while matches run."""


def running(status: dict[str, Any]) -> int:
    return sum(referee["running_matches"] for referee in status["referees"])


def admin(league: CrashLeague) -> dict[str, str]:
    """The admin's header, with the token the running League Manager wrote (a League
    Manager without a configured token writes a new one at each start)."""
    token = (league.league_dir / "admin_token").read_text().strip()
    return {"Authorization": f"Bearer {token}"}


def idle(league: CrashLeague) -> dict[str, Any] | None:
    """The League Manager's status once no referee runs a match of it, else None."""
    status = league.status()
    return status if running(status) == 0 else None


def league_command(league: CrashLeague, *args: str) -> subprocess.CompletedProcess[str]:
    """The ``league`` command as the admin runs it (the token from the League Manager's
    file, found through --shared-dir)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "league_cli",
            *args,
            "--lm-url",
            league.lm_url,
            "--shared-dir",
            str(league.shared.root),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "COLUMNS": "200"},
    )


def league_events(league: CrashLeague) -> list[str]:
    path = league.shared.league_log_path(LEAGUE)
    return [json.loads(line)["event"] for line in path.read_text().splitlines()]


def test_paused_across_a_restart_with_a_player_removed_the_league_completes_sound(
    tmp_path: Path,
) -> None:
    with running_league(
        tmp_path, players=4, referees=2, capacity=1, strategies=SLOW, match_timeout_sec=30
    ) as league:
        total = league.start()
        wait_for(lambda: running(league.status()) >= 1, 30, "a match to run")
        paused = league.client.post(f"{league.lm_url}/admin/pause", headers=admin(league))
        assert paused.status_code == 200 and paused.json()["paused"] is True
        assert running(paused.json()) >= 1, "the pause landed while matches ran"
        quiet = wait_for(lambda: idle(league), 30, "the running matches to finish")
        started = {match["match_id"] for match in match_files(league.shared, LEAGUE)}
        assert quiet["matches_completed"] == len(started) < total, (
            "every match a referee started finished and counted; none was started since"
        )

        league.restart_manager()
        again = league.status()
        assert (again["state"], again["paused"]) == ("RUNNING", True)
        assert again["matches_completed"] == quiet["matches_completed"]
        assert {m["match_id"] for m in match_files(league.shared, LEAGUE)} == started

        removed = league_command(league, "remove", "P04")
        assert removed.returncode == 0, removed.stdout + removed.stderr
        unplayed = {
            m.match_id
            for r in scheduled_rounds(league.shared, LEAGUE)
            for m in r.matches
            if "P04" in m.player_ids and m.match_id not in started
        }
        assert unplayed, "P04 had matches left"
        assert f"{len(unplayed)} unplayed match(es)" in removed.stdout
        resumed = league_command(league, "resume")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        final = league.wait_completed(60)

        journal = [
            json.loads(line)
            for line in (league.league_dir / "journal.jsonl").read_text().splitlines()
        ]
        counts = Counter(record["match_id"] for record in journal)
        assert len(counts) == total and set(counts.values()) == {1}, "each match counted once"
        forfeits = {r["match_id"] for r in journal if r["details"].get("forfeit")}
        assert forfeits == unplayed
        for record in journal:
            if record["match_id"] in forfeits:
                assert record["outcomes"]["P04"] == "TECHNICAL_LOSS"
                assert "REMOVED by the admin" in record["details"]["reason"]
        files = {match["match_id"]: match for match in match_files(league.shared, LEAGUE)}
        assert set(files) == set(counts) - forfeits, "every other match was played"
        assert (
            json.loads((league.league_dir / "standings.json").read_text())["standings"]
            == final["standings"]
        )
        # The players are told the league is over, then marked SHUTDOWN; P04 stays out.
        wait_for(
            lambda: (
                {p["agent_id"]: p["state"] for p in league.status()["players"]}
                == {"P01": "SHUTDOWN", "P02": "SHUTDOWN", "P03": "SHUTDOWN", "P04": "REMOVED"}
            ),
            20,
            "the players still in the league to be shut down",
        )

        exported = tmp_path / "results.csv"
        export = league_command(league, "export", "results", "-o", str(exported))
        assert export.returncode == 0, export.stdout + export.stderr
        rows = list(csv.DictReader(io.StringIO(exported.read_text())))
        assert [row["match_id"] for row in rows] == [r["match_id"] for r in journal]
        assert {row["match_id"] for row in rows if row["forfeit"] == "true"} == forfeits
        standings = league.client.get(
            f"{league.lm_url}/admin/export/standings.json", headers=admin(league)
        )
        assert standings.json() == final
        wrong = league.client.get(
            f"{league.lm_url}/admin/export/standings.json",
            headers={"Authorization": "Bearer not-the-token"},
        )
        assert wrong.status_code == 403

    events = league_events(league)
    order = [
        e
        for e in events
        if e
        in (
            "league_paused",
            "league_resumed",
            "player_removed",
            "league_resumed_by_admin",
            "league_completed",
        )
    ]
    assert order == [
        "league_paused",
        "league_resumed",
        "player_removed",
        "league_resumed_by_admin",
        "league_completed",
    ]
