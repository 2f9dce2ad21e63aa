"""Our own processes crash, with real processes on loopback: the League Manager killed with
SIGKILL at chosen moments of a 16-player league and restarted on its data folder; a referee
killed in the middle of a match; the League Manager started on data files found damaged.
In every case the league completes, each match is counted exactly once, and the standings
are what the referees' match files say."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from league_cli.up import wait_for
from sdk.store import backup_path
from tests.reliability.crash_league import (
    LEAGUE,
    CrashLeague,
    check_league,
    kill_points,
    running_league,
)

pytestmark = pytest.mark.e2e

SEED = 20250115


def league_events(league: CrashLeague, event: str) -> list[dict[str, object]]:
    """The League Manager's league-log records of one event."""
    path = league.shared.league_log_path(LEAGUE)
    return [
        record
        for line in path.read_text().splitlines()
        if (record := json.loads(line))["event"] == event
    ]


@pytest.mark.parametrize("store_url", ["files", "postgresql"], indirect=True)
def test_the_league_manager_killed_three_times_loses_and_doubles_nothing(
    tmp_path: Path, store_url: str | None
) -> None:
    """On either store: a restarted League Manager reads its results back (journal.jsonl,
    or the database's rows) and counts each once."""
    with running_league(tmp_path, players=16, match_timeout_sec=10, store_url=store_url) as league:
        total = league.start()
        assert total == 120
        points = kill_points(total, 3, SEED)
        kills = league.kill_manager_at(points, timeout=30)
        final = league.wait_completed(60)
        check = check_league(league.shared, final, store_url)
    assert kills == 3, f"the league completed before kill point {points[kills]}"
    assert check.double_counts == [], "a match was counted twice"
    assert check.mismatches == []
    assert check.counted == check.scheduled == 120
    assert final["version"] == 120
    assert all(row["played"] == 15 for row in final["standings"])


def test_a_referee_killed_mid_match_loses_it_to_the_other_within_seconds(tmp_path: Path) -> None:
    match_timeout = 60.0
    with running_league(
        tmp_path,
        players=4,
        capacity=2,
        match_timeout_sec=match_timeout,
        strategies=("tests.reliability.deliberate:Deliberate",),
    ) as league:
        victim = league.process("referee-Ref1")
        victim_url = victim.base_url
        league.start()

        def mid_match() -> tuple[str, str] | None:
            """(referee id, match id) once Ref1 plays a match whose moves are being asked."""
            status = league.client.get(f"{victim_url}/status").json()
            for match_id in status["running_matches"]:
                answer = league.client.post(
                    f"{victim_url}/mcp",
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "get_match_state",
                        "params": {"match_id": match_id},
                    },
                ).json()
                if answer["result"]["state"] == "COLLECTING_CHOICES":
                    return status["referee_id"], match_id
            return None

        referee_id, match_id = wait_for(
            mid_match, 20, "Ref1 to be in the middle of a match", interval=0.05
        )
        killed_at = time.monotonic()
        league.kill(victim)
        final = league.wait_completed(40)
        took = time.monotonic() - killed_at
        check = check_league(league.shared, final)
        journal = [
            json.loads(line)
            for line in (league.league_dir / "journal.jsonl").read_text().splitlines()
        ]
        lost = league_events(league, "referee_lost")
        timed_out = league_events(league, "match_timed_out")
    assert check.double_counts == [] and check.mismatches == []
    assert check.counted == check.scheduled == 6
    record = next(r for r in journal if r["match_id"] == match_id)
    assert record["referee_id"] != referee_id, "the killed referee's match was played again"
    assert any(e["data"]["referee_id"] == referee_id for e in lost), "the death was noticed"
    assert timed_out == [], "noticed by asking the referee, not by the match timeout"
    assert took < match_timeout / 2, f"{took:.1f} s from the kill to the league's end"


def test_damaged_files_at_start_up_are_recovered_and_the_standings_served_stay_right(
    tmp_path: Path,
) -> None:
    with running_league(tmp_path, players=4) as league:
        league.start()
        final = league.wait_completed(30)
        league_dir = league.league_dir
        schedule = league.client.get(f"{league.lm_url}/schedule").json()

        def restart_and_check(what: str) -> None:
            league.start_manager()
            served = league.wait_completed(20)
            assert served["standings"] == final["standings"], what
            assert served["version"] == final["version"], what
            on_disk = json.loads((league_dir / "standings.json").read_text())
            assert on_disk["standings"] == final["standings"], what
            assert json.loads((league_dir / "rounds.json").read_text())["status"] == "COMPLETED"
            now = league.client.get(f"{league.lm_url}/schedule").json()
            assert now["status"] == "COMPLETED", what
            assert [
                [m["match_id"], m["player_ids"]] for r in now["rounds"] for m in r["matches"]
            ] == [
                [m["match_id"], m["player_ids"]] for r in schedule["rounds"] for m in r["matches"]
            ], what
            assert check_league(league.shared, served).sound, what

        # standings.json cut short and rounds.json overwritten: the journal and the backup.
        league.stop_manager()
        standings = (league_dir / "standings.json").read_bytes()
        (league_dir / "standings.json").write_bytes(standings[: len(standings) // 2])
        (league_dir / "rounds.json").write_text("\0\0\0 not json")
        restart_and_check("standings.json truncated, rounds.json corrupt")
        recovered = [e["data"]["detail"] for e in league_events(league, "data_file_recovered")]
        assert any("standings.json" in note for note in recovered), recovered
        assert any("rounds.json.bak" in note for note in recovered), recovered
        assert list(league_dir.glob("rounds.json.corrupt-*"))

        # rounds.json and its backup both lost: made again from the registered players.
        league.stop_manager()
        (league_dir / "rounds.json").write_text("{}")
        backup_path(league_dir / "rounds.json").unlink()
        restart_and_check("rounds.json corrupt, no backup")

        # A journal line damaged in the middle: the match is recovered from its referee.
        league.stop_manager()
        journal = (league_dir / "journal.jsonl").read_text().splitlines(keepends=True)
        journal[2] = journal[2][:40] + "\n"
        (league_dir / "journal.jsonl").write_text("".join(journal))
        restart_and_check("a torn journal line in the middle")
        assert league_events(league, "referee_result_recovered")

        # secrets.json and its backup lost: the tokens cannot be recovered, so no start.
        league.stop_manager()
        (league_dir / "secrets.json").write_text('{"tokens": ')
        backup_path(league_dir / "secrets.json").unlink(missing_ok=True)  # if one was made
        output = league.lm.output
        before = output.stat().st_size
        refused = league.start_manager(healthy=False)
        assert refused.popen.wait(30) == 1
        said = " ".join(output.read_bytes()[before:].decode(errors="replace").split())
    assert "secrets.json" in said and "cannot start" in said, said[-600:]
    assert "Traceback" not in said


def test_the_kill_points_are_seeded_and_within_the_league() -> None:
    points = kill_points(120, 3, SEED)
    assert points == kill_points(120, 3, SEED) == sorted(set(points))
    assert all(1 <= p < 80 for p in points) and len(points) == 3, "in the first two thirds"
    assert kill_points(3, 10, SEED) == [1, 2]
