"""The JSON-RPC methods at /mcp: start_match's refusals, get_match_state, league completion."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee import RefereeService
from sdk.auth import league_manager_proof
from sdk.config import SharedDir
from tests.referee.conftest import (
    FAST_TIMEOUTS,
    LEAGUE_ID,
    FakeLeagueManager,
    Network,
    ScriptedPlayer,
    fast_shared_dir,
    referee_settings,
    registered,
    rpc,
    running_referee,
    start_match,
)
from tests.waiting import eventually


def patient_shared(tmp_path: Path, method: str) -> SharedDir:
    """Fast timeouts, except a long one for ``method`` (a test ends that wait itself)."""
    return fast_shared_dir(tmp_path / "SHARED", timeouts_sec={**FAST_TIMEOUTS, method: 30})


@pytest.fixture
def players() -> tuple[ScriptedPlayer, ScriptedPlayer]:
    return ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")


@pytest.fixture
def network(lm: FakeLeagueManager, players: tuple[ScriptedPlayer, ScriptedPlayer]) -> Network:
    return Network(lm, *players)


async def test_a_valid_start_match_is_accepted_played_and_reported(
    fast_shared: SharedDir,
    network: Network,
    lm: FakeLeagueManager,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
) -> None:
    a, b = players
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        ack = await rpc(http, "start_match", start_match(a, b))
        assert (ack["message_type"], ack["accepted"], ack["match_id"]) == (
            "START_MATCH_ACK",
            True,
            "R1M1",
        )
        assert ack["sender"] == "referee:REF07"
        assert service.state == "ACTIVE"
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
        (report,) = lm.received("report_match_result")
        assert report["auth_token"] == FakeLeagueManager.TOKEN
        assert report["result"]["winner"] in ("P01", "P02", None)
        assert report["conversation_id"] == "league_2025_even_odd:R1M1"


@pytest.mark.parametrize(
    ("token", "code"),
    [(None, "E011"), ("", "E011"), ("wrong", "E012"), (FakeLeagueManager.TOKEN, "E012")],
)
async def test_start_match_without_the_league_managers_proof_is_refused(
    fast_shared: SharedDir,
    network: Network,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
    token: str | None,
    code: str,
) -> None:
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        answer = await rpc(http, "start_match", start_match(*players, token=token))
        assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", code)
        assert answer["original_message_type"] == "START_MATCH"
        assert service.status().running_matches == []


async def test_an_unregistered_referee_takes_no_league_match(
    fast_shared: SharedDir, network: Network, players: tuple[ScriptedPlayer, ScriptedPlayer]
) -> None:
    settings = referee_settings(fast_shared, join_league=False)
    async with running_referee(settings, network) as (http, _):
        answer = await rpc(http, "start_match", start_match(*players))
        assert answer["error_code"] == "E013"


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        ({"game_type": "chess"}, "E019", "not 'chess'"),
        ({"match_id": "../../etc"}, "E002", "names a file"),
        ({"league_id": "a/b"}, "E002", "names a file"),
        ({"league_id": ".."}, "E002", "names a file"),  # matches/.. is the data folder
    ],
)
async def test_start_match_refuses_what_it_cannot_run(
    fast_shared: SharedDir,
    network: Network,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
    change: dict[str, Any],
    code: str,
    words: str,
) -> None:
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        start = {**start_match(*players), **change}
        start["auth_token"] = league_manager_proof(  # the League Manager signed what it sent
            FakeLeagueManager.TOKEN, start["league_id"], start["conversation_id"]
        )
        answer = await rpc(http, "start_match", start)
        assert answer["error_code"] == code and words in answer["error_description"]


async def test_start_match_refuses_a_player_against_itself(
    fast_shared: SharedDir, network: Network, players: tuple[ScriptedPlayer, ScriptedPlayer]
) -> None:
    a, _ = players
    message = start_match(a, a)
    message["players"][1]["role"] = "PLAYER_B"
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        answer = await rpc(http, "start_match", message)
        assert answer["error_code"] == "E002"
        assert "two seats of one match" in answer["error_description"]


async def test_a_match_id_already_running_or_finished_is_refused(
    fast_shared: SharedDir,
    network: Network,
    lm: FakeLeagueManager,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
) -> None:
    a, b = players
    gate = asyncio.Event()

    async def late_join(params: dict[str, Any]) -> dict[str, Any]:
        await gate.wait()
        return a.answer("handle_game_invitation", params)

    a.overrides["handle_game_invitation"] = late_join
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        assert (await rpc(http, "start_match", start_match(a, b)))["accepted"] is True
        running = await rpc(http, "start_match", start_match(a, b))
        assert running["error_code"] == "E015" and "is running" in running["error_description"]
        gate.set()
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
        await eventually(idle(service))
        finished = await rpc(http, "start_match", start_match(a, b))
        assert finished["error_code"] == "E015" and "has finished" in finished["error_description"]


def idle(service: RefereeService) -> Callable[[], bool]:
    return lambda: not service.status().running_matches


async def test_a_newer_assignment_replaces_the_run_it_supersedes(
    fast_shared: SharedDir,
    network: Network,
    lm: FakeLeagueManager,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
) -> None:
    """The League Manager gave the match again (it lost sight of this referee): the old
    run stops, tells its players nothing, and keeps its record as superseded; an older
    or the same assignment is refused."""
    a, b = players
    gate = asyncio.Event()
    joined = 0

    async def first_join_waits(params: dict[str, Any]) -> dict[str, Any]:
        nonlocal joined
        joined += 1
        if joined == 1:
            await gate.wait()
        return a.answer("handle_game_invitation", params)

    a.overrides["handle_game_invitation"] = first_join_waits
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        assert (await rpc(http, "start_match", start_match(a, b, assignment=4)))["accepted"]
        for stale in (4, 3):
            refused = await rpc(http, "start_match", start_match(a, b, assignment=stale))
            assert refused["error_code"] == "E015", stale
            assert "under assignment 4" in refused["error_description"]
        assert (await rpc(http, "start_match", start_match(a, b, assignment=9)))["accepted"]
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
        await eventually(idle(service))
    (report,) = lm.received("report_match_result")
    assert report["assignment"] == 9
    assert len(b.received("notify_match_result")) == 1, "only the new run tells the players"
    folder = fast_shared.data_dir / "matches" / LEAGUE_ID
    assert json.loads((folder / "R1M1.json").read_text())["assignment"] == 9
    (old,) = (folder / "superseded").glob("*.json")
    record = json.loads(old.read_text())
    assert (old.name, record["report_status"], record["lifecycle"][-1]["state"]) == (
        "R1M1.4.REF07.json",
        "superseded",
        "ABORTED",
    )


async def test_a_report_refused_as_superseded_stops_the_match_before_game_over(
    fast_shared: SharedDir,
    network: Network,
    lm: FakeLeagueManager,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
) -> None:
    a, b = players

    def superseded(params: dict[str, Any]) -> dict[str, Any]:
        return {
            "protocol": "league.v2",
            "message_type": "LEAGUE_ERROR",
            "sender": "league_manager",
            "timestamp": "2026-01-01T00:00:00Z",
            "conversation_id": params["conversation_id"],
            "error_code": "E014",
            "error_description": "assignment 2 of REF07 was superseded",
        }

    lm.overrides["report_match_result"] = superseded
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        assert (await rpc(http, "start_match", start_match(a, b, assignment=2)))["accepted"]
        await eventually(lambda: bool(lm.received("report_match_result")))
        await eventually(idle(service))
        state = await rpc(http, "get_match_state", {"match_id": "R1M1"})
    assert a.received("notify_match_result") == b.received("notify_match_result") == []
    assert state["match"]["report_status"] == "superseded"
    folder = fast_shared.data_dir / "matches" / LEAGUE_ID
    assert not (folder / "R1M1.json").exists(), "the match file is left to the counted run"
    assert [p.name for p in (folder / "superseded").glob("*.json")] == ["R1M1.2.REF07.json"]


async def test_start_match_over_capacity_is_refused(
    tmp_path: Path, network: Network, players: tuple[ScriptedPlayer, ScriptedPlayer]
) -> None:
    a, b = players
    a.fail("handle_game_invitation", "timeout")
    shared = patient_shared(tmp_path, "handle_game_invitation")
    settings = referee_settings(shared, max_concurrent_matches=1)
    async with running_referee(settings, network) as (http, service):
        await registered(service)
        assert (await rpc(http, "start_match", start_match(a, b)))["accepted"] is True
        busy = await rpc(http, "start_match", start_match(a, b, match_id="R1M2"))
        assert busy["error_code"] == "E017"
        assert service.status().running_matches == ["R1M1"]
        assert service.status().capacity == 1


async def test_a_decided_match_that_is_still_reporting_holds_no_slot(
    fast_shared: SharedDir,
    network: Network,
    lm: FakeLeagueManager,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
) -> None:
    a, b = players
    release_report = asyncio.Event()

    async def slow_ack(params: dict[str, Any]) -> dict[str, Any]:
        lm.reported.set()
        await release_report.wait()
        return FakeLeagueManager.answer(lm, "report_match_result", params)

    lm.overrides["report_match_result"] = slow_ack
    settings = referee_settings(fast_shared, max_concurrent_matches=1)
    async with running_referee(settings, network) as (http, service):
        await registered(service)
        assert (await rpc(http, "start_match", start_match(a, b)))["accepted"] is True
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
        assert service.status().running_matches == ["R1M1"], "R1M1 is still reporting"
        second = await rpc(http, "start_match", start_match(a, b, match_id="R1M2"))
        assert second.get("accepted") is True, second
        release_report.set()
        await eventually(idle(service))


async def test_get_match_state_hides_moves_until_the_match_is_over(
    tmp_path: Path,
    network: Network,
    lm: FakeLeagueManager,
    players: tuple[ScriptedPlayer, ScriptedPlayer],
) -> None:
    a, b = players
    gate = asyncio.Event()

    async def slow_choice(params: dict[str, Any]) -> dict[str, Any]:
        await gate.wait()
        return b.answer("choose_parity", params)

    b.overrides["choose_parity"] = slow_choice
    settings = referee_settings(patient_shared(tmp_path, "choose_parity"))
    async with running_referee(settings, network) as (http, service):
        await registered(service)
        await rpc(http, "start_match", start_match(a, b))
        await eventually(answered(service, "P01"))
        during = await rpc(http, "get_match_state", {"match_id": "R1M1"})
        assert during["message_type"] == "MATCH_STATE"
        assert during["state"] == "COLLECTING_CHOICES"
        text = json.dumps(during["match"])
        assert '"parity_choice": "hidden until GAME_OVER"' in text
        assert '"parity_choice": "even"' not in text, "P01's choice must not leak"
        gate.set()
        await asyncio.wait_for(lm.reported.wait(), timeout=5)
        await eventually(idle(service))
        after = await rpc(
            http,
            "get_match_state",
            {
                "protocol": "league.v2",
                "message_type": "GET_MATCH_STATE",
                "sender": "player:P01",
                "conversation_id": "debug",
                "match_id": "R1M1",
                "league_id": "league_2025_even_odd",
            },
        )
        assert after["state"] == "FINISHED"
        assert '"parity_choice": "even"' in json.dumps(after["match"])
        assert after["match"]["result"]["game_result"]["choices"] == {"P01": "even", "P02": "odd"}
        assert FakeLeagueManager.TOKEN not in json.dumps(after)


def answered(service: RefereeService, player_id: str) -> Callable[[], bool]:
    def check() -> bool:
        transcript = service.matches.lookup("R1M1", None)["transcript"]
        return any(
            e["direction"] == "received"
            and e["method"] == "choose_parity"
            and e["peer"] == player_id
            for e in transcript
        )

    return check


@pytest.mark.parametrize(("params", "code"), [({"match_id": "R7M7"}, "E006"), ({}, "E003")])
async def test_get_match_state_of_nothing(
    fast_shared: SharedDir, network: Network, params: dict[str, Any], code: str
) -> None:
    async with running_referee(referee_settings(fast_shared, join_league=False), network) as (
        http,
        _,
    ):
        answer = await rpc(http, "get_match_state", params)
        assert answer["error_code"] == code


async def test_league_completed_is_acknowledged_and_shown(
    fast_shared: SharedDir, network: Network
) -> None:
    message = {
        "protocol": "league.v2",
        "message_type": "LEAGUE_COMPLETED",
        "sender": "league_manager",
        "timestamp": "2026-01-01T00:00:00Z",
        "conversation_id": "end",
        "league_id": "league_2025_even_odd",
        "total_rounds": 3,
        "total_matches": 6,
        "champion": {"player_id": "P01", "points": 9},
        "final_standings": [{"rank": 1, "player_id": "P01", "points": 9}],
    }
    async with running_referee(referee_settings(fast_shared), network) as (http, service):
        await registered(service)
        forged = await rpc(
            http, "notify_league_completed", {**message, "auth_token": FakeLeagueManager.TOKEN}
        )
        assert forged["error_code"] == "E012", "the token itself is no proof"
        assert (await http.get("/status")).json()["league_completed"] is False
        proof = league_manager_proof(FakeLeagueManager.TOKEN, message["league_id"], "end")
        ack = await rpc(http, "notify_league_completed", {**message, "auth_token": proof})
        assert (ack["message_type"], ack["acknowledged"]) == ("ACK", "LEAGUE_COMPLETED")
        status = (await http.get("/status")).json()
        assert status["league_completed"] is True


async def test_matches_run_concurrently_one_task_each(
    fast_shared: SharedDir, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    c, d = ScriptedPlayer("P03"), ScriptedPlayer("P04")
    gate = asyncio.Event()
    invited: list[str] = []

    def held(player: ScriptedPlayer) -> Any:
        async def join(params: dict[str, Any]) -> dict[str, Any]:
            invited.append(player.player_id)
            await gate.wait()
            return player.answer("handle_game_invitation", params)

        return join

    for player in (a, b, c, d):
        player.overrides["handle_game_invitation"] = held(player)
    settings = referee_settings(fast_shared, max_concurrent_matches=2)
    async with running_referee(settings, Network(lm, a, b, c, d)) as (http, service):
        await registered(service)
        await rpc(http, "start_match", start_match(a, b, match_id="R1M1"))
        await rpc(http, "start_match", start_match(c, d, match_id="R1M2"))
        await eventually(lambda: len(invited) == 4)
        assert sorted(invited) == ["P01", "P02", "P03", "P04"], "both matches are in flight"
        assert service.status().running_matches == ["R1M1", "R1M2"]
        gate.set()
        await eventually(idle(service))
    assert sorted(r["match_id"] for r in lm.received("report_match_result")) == ["R1M1", "R1M2"]
