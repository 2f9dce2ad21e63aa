"""The player host never waits on its history's disk in its event loop: each GAME_OVER appends
one line to the journal, its fsyncs run in a worker thread, one at a time, the GAME_OVERs that
arrive during one share the next, each is acknowledged only once its line is fsynced, and an
append the file system refuses is refused to the referee (E022), shown on /health and written
with the next one."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from players.history import journal_path
from tests.players.conftest import Player, game_over
from tests.waiting import eventually


class SlowDisk(ThreadPoolExecutor):
    """The event loop's worker threads as one thread held busy until ``release``: every
    write handed to a thread waits (a disk as slow as the test needs); ``submitted`` counts
    them."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.release = threading.Event()
        self.submitted = 0
        super().submit(self.release.wait, 10)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


def history_file(player: Player) -> Path:
    return player.host.shared.player_history_path("P01")


def journaled(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in journal_path(path).read_text().splitlines()]


def match_ids(path: Path) -> list[str]:
    return [match["match_id"] for match in journaled(path)]


async def test_game_overs_during_a_slow_write_are_acknowledged_after_one_more_write(
    player: Player,
) -> None:
    disk = SlowDisk()
    asyncio.get_running_loop().set_default_executor(disk)
    path = history_file(player)
    try:
        first = asyncio.create_task(player.rpc("notify_match_result", game_over("R1M1")))
        await eventually(lambda: disk.submitted == 1)  # its write is held in the worker
        later = [
            asyncio.create_task(player.rpc("notify_match_result", game_over(f"R{n}M1")))
            for n in range(2, 7)
        ]
        await eventually(lambda: len(player.host.history.matches) == 6)

        # The event loop serves everyone during the write, from one consistent history.
        history = await player.get("/history")
        state = await player.rpc("get_player_state", {"conversation_id": "c-1"})
        stats = await player.get("/stats")
        assert [m["match_id"] for m in history["matches"]] == [f"R{n}M1" for n in range(1, 7)]
        assert history["totals"]["played"] == 6 and stats["played"] == 6
        assert state["history"]["matches"] == history["matches"]
        assert not first.done() and not any(task.done() for task in later), (
            "a GAME_OVER was acknowledged before its line was fsynced"
        )
        assert not path.exists(), "no rewrite of the whole history"
    finally:
        disk.release.set()
    answers = await asyncio.wait_for(asyncio.gather(first, *later), 10)

    assert [a["message_type"] for a in answers] == ["ACK"] * 6
    assert disk.submitted == 2, "five GAME_OVERs during one fsync cost one more fsync"
    assert match_ids(path) == [f"R{n}M1" for n in range(1, 7)]
    served = await player.get("/history")
    assert served["totals"]["played"] == 6 and served["matches"] == journaled(path)


async def test_a_refused_write_is_not_acknowledged_and_the_next_write_holds_it(
    player: Player,
) -> None:
    path = history_file(player)
    journal = journal_path(path)
    journal.mkdir(parents=True)  # a directory where the journal should be

    refused = await player.rpc("notify_match_result", game_over("R1M1"))
    health = await player.get("/health")
    repeated = await player.rpc("notify_match_result", game_over("R1M1"))

    assert (refused["message_type"], refused["error_code"]) == ("LEAGUE_ERROR", "E022")
    assert str(journal) in refused["error_description"]
    [reason] = health["reasons"]
    assert (health["status"], reason) == ("degraded", player.host.state.fault)
    assert str(journal) in reason and "directory" in reason
    assert (await player.get("/status"))["fault"] == reason
    assert repeated["error_code"] == "E022", "still not on disk: still not acknowledged"
    assert (await player.get("/stats"))["played"] == 1, "kept in memory, counted once"

    journal.rmdir()
    again = await player.rpc("notify_match_result", game_over("R1M1"))
    after = await player.rpc("notify_match_result", game_over("R2M1"))

    assert (again["message_type"], after["message_type"]) == ("ACK", "ACK")
    assert match_ids(path) == ["R1M1", "R2M1"], "each once"
    health = await player.get("/health")
    assert health["status"] == "ok" and "reasons" not in health
    assert (await player.get("/status"))["fault"] is None
