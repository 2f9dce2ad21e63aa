"""A referee killed after a match is decided and before its match file is written (it waits
on a GAME_OVER that a player holds): the decided record is in the referee's decisions
journal only, and the next referee of the league on this machine writes the match file
from it when it opens its own journal, as the dead referee's first write would have left
it. Real processes on loopback: two referees, our sound player, and a faulty player."""

from __future__ import annotations

import json
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import wait_for
from match_engine.decisions import DECIDED_FOLDER
from tests.conftest import free_port, make_shared_dir
from tests.faults.test_faulty_players import (
    ADMIN_TOKEN,
    SOUND,
    TIMEOUTS_SEC,
    spawn_faulty,
    stop_faulty,
    wait_faulty_healthy,
)

pytestmark = pytest.mark.e2e

HELD_SEC = 30.0
"""GAME_OVER's timeout here: the referee waits this long on the held notice, far longer
than the test needs to kill it."""


def test_the_next_referee_writes_the_match_file_a_killed_one_had_only_journaled(
    tmp_path: Path,
) -> None:
    shared = make_shared_dir(
        tmp_path / "SHARED",
        timeouts_sec={**TIMEOUTS_SEC, "notify_match_result": HELD_SEC},
        security={
            "admin_token": ADMIN_TOKEN,
            "admin_token_env": "LEAGUE_FAULTS_ADMIN_TOKEN",
            "token_bytes": 32,
        },
    )
    launcher = Launcher(shared.root)
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"
    holder = spawn_faulty(tmp_path, "holds_game_over")
    control = spawn_faulty(tmp_path, "none")
    try:
        first = launcher.referee("First", free_port(), unused_lm, standalone=True)
        sound = launcher.player("Sound", free_port(), unused_lm, player_id=SOUND, standalone=True)
        for process in (first, sound):
            launcher.wait_healthy(process)
        wait_faulty_healthy(holder)
        wait_faulty_healthy(control)
        seats = [
            {"player_id": SOUND, "endpoint": sound.mcp_url},
            {"player_id": holder.player_id, "endpoint": holder.mcp_url},
        ]
        folder = shared.match_path("standalone", "held").parent
        headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

        def journaled() -> list[Path]:
            return [p for p in folder.glob(f"{DECIDED_FOLDER}/*.jsonl") if p.stat().st_size]

        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(
                httpx.post,
                f"{first.base_url}/run_match",
                json={"players": seats, "match_id": "held"},
                headers=headers,
                timeout=HELD_SEC + 10,
            )
            (journal,) = wait_for(journaled, 20, "the decided match in the journal", interval=0.05)
            assert not (folder / "held.json").exists(), "the match file waits for the GAME_OVERs"
            first.popen.send_signal(signal.SIGKILL)
            first.popen.wait(10)
            with pytest.raises(httpx.HTTPError):
                pending.result()
        decided = [json.loads(line) for line in journal.read_text().splitlines()]
        assert [record["match_id"] for record in decided] == ["held"]

        second = launcher.referee("Second", free_port(), unused_lm, standalone=True)
        launcher.wait_healthy(second)
        started = time.monotonic()
        answer = httpx.post(
            f"{second.base_url}/run_match",
            json={
                "players": [
                    seats[0],
                    {"player_id": control.player_id, "endpoint": control.mcp_url},
                ],
                "match_id": "next",
            },
            headers=headers,
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        wait_for(
            lambda: (folder / "held.json").exists(), 20, "the held match's file", interval=0.05
        )
        assert time.monotonic() - started < 20
        document = json.loads((folder / "held.json").read_text())
        assert document["referee_id"] == decided[0]["referee_id"]
        assert document["lifecycle"][-1]["state"] == "FINISHED"
        assert document["result"] == decided[0]["result"]
        assert document["report_status"] == "not_required"
        assert not journal.exists(), "the dead referee's journal is removed once written"
        logs = (shared.logs_dir / "agents").glob("*Second*.log.jsonl")
        events = [
            json.loads(line)["event"] for path in logs for line in path.read_text().splitlines()
        ]
        assert "decisions_recovered" in events
    finally:
        try:
            stop_faulty([holder, control])
        finally:
            launcher.stop_all()
