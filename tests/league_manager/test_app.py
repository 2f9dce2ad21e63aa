from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_manager.assignments import BLOCK, AssignmentNumbers
from league_manager.book import LeagueBook
from league_manager.config import LeagueManagerSettings
from league_manager.service import LeagueManager
from sdk.auth import league_manager_proof, match_proof
from sdk.config import ConfigError, SharedDir
from sdk.store import StoreError
from tests.league_manager.conftest import PLAYER, REFEREE, World, envelope, wait_until


def admin(world: World) -> dict[str, str]:
    return {"Authorization": f"Bearer {world.manager.admin_token}"}


async def league_of(world: World, players: int, referees: int = 2, capacity: int = 2) -> None:
    for n in range(1, referees + 1):
        assert (await world.register_referee(n, capacity))["status"] == "ACCEPTED"
    for n in range(1, players + 1):
        assert (await world.register_player(n))["status"] == "ACCEPTED"


async def test_registration_issues_ids_and_tokens(world: World) -> None:
    referee = await world.register_referee(1)
    player = await world.register_player(1)
    assert referee["referee_id"] == "REF01" and player["player_id"] == "P01"
    assert len(player["auth_token"]) >= 32 and player["auth_token"] != referee["auth_token"]
    assert player["league_id"] == "league_2025_even_odd"
    assert player["sender"] == "league_manager" and player["timestamp"].endswith("Z")
    agents = json.loads(
        (world.manager.shared.league_dir("league_2025_even_odd") / "agents.json").read_text()
    )
    assert player["auth_token"] not in json.dumps(agents), "tokens stay out of agents.json"


async def test_registration_refusals_say_why(world: World) -> None:
    await world.register_player(1)
    wrong_game = await world.register_player(2, game_types=["chess"])
    assert wrong_game["status"] == "REJECTED" and "even_odd" in wrong_game["reason"]
    again = await world.rpc(
        "register_player",
        envelope(
            "LEAGUE_REGISTER_REQUEST",
            "player:x",
            player_meta={"display_name": "dup", "contact_endpoint": PLAYER.format(n=1)},
        ),
    )
    assert again["result"]["status"] == "REJECTED" and "P01" in again["result"]["reason"]
    namesake = await world.rpc(
        "register_player",
        envelope(
            "LEAGUE_REGISTER_REQUEST",
            "player:x",
            player_meta={
                "display_name": " player 1",
                "contact_endpoint": "http://elsewhere.test/mcp",
            },
        ),
    )
    assert namesake["result"]["status"] == "REJECTED"
    assert "display name ' player 1' is taken by P01" in namesake["result"]["reason"]
    old = await world.rpc(
        "register_player",
        envelope(
            "LEAGUE_REGISTER_REQUEST",
            "player:x",
            player_meta={
                "display_name": "old",
                "contact_endpoint": "http://old.test/mcp",
                "protocol_version": "1.0.0",
            },
        ),
    )
    assert old["result"]["message_type"] == "LEAGUE_ERROR"
    assert old["result"]["error_code"] == "E018"
    nowhere = await world.rpc(
        "register_player",
        envelope(
            "LEAGUE_REGISTER_REQUEST",
            "player:x",
            player_meta={"display_name": "lost", "contact_endpoint": "port 8105 please"},
        ),
    )
    assert nowhere["result"]["error_code"] == "E002"
    assert "contact_endpoint" in nowhere["result"]["error_description"]


META = {
    "display_name": "Wild",
    "version": "1.0.0",
    "game_types": ["even_odd"],
    "contact_endpoint": "http://wild.test/mcp",
}


async def test_a_lenient_league_takes_what_published_agents_send(world: World) -> None:
    meta_only = (await world.rpc("register_player", {"player_meta": META}))["result"]
    assert meta_only["status"] == "ACCEPTED" and meta_only["player_id"] == "P01"
    by_type = (
        await world.rpc(
            "LEAGUE_REGISTER_REQUEST",
            envelope(
                "LEAGUE_REGISTER_REQUEST",
                "player:wild2",
                player_meta={
                    **META,
                    "display_name": "Wild 2",
                    "contact_endpoint": "http://wild2.test/mcp",
                },
                timestamp="2026-01-01T00:00:00.123456+00:00",
            ),
        )
    )["result"]
    assert by_type["status"] == "ACCEPTED" and by_type["timestamp"].endswith("Z")
    assert len(by_type["timestamp"]) == len("2026-01-01T00:00:00Z"), "we send whole seconds"
    log = world.manager.log.path.read_text()
    assert '"kind":"missing_envelope_field"' in log and '"kind":"method_alias"' in log


async def test_a_strict_league_refuses_the_same_naming_each_deviation(strict_world: World) -> None:
    meta_only = (await strict_world.rpc("register_player", {"player_meta": META}))["result"]
    assert meta_only["message_type"] == "LEAGUE_ERROR" and meta_only["error_code"] == "E003"
    for field in ("protocol", "message_type", "sender", "timestamp", "conversation_id"):
        assert f"has no {field}" in meta_only["error_description"]
    by_type = (
        await strict_world.rpc(
            "LEAGUE_REGISTER_REQUEST",
            envelope("LEAGUE_REGISTER_REQUEST", "player:wild", player_meta=META),
        )
    )["result"]
    assert by_type["error_code"] == "E016" and "register_player" in by_type["error_description"]
    exact = await strict_world.register_player(1)
    assert exact["status"] == "ACCEPTED", "the protocol to the letter is always taken"


async def test_registration_closes_when_the_league_starts(world: World) -> None:
    await league_of(world, players=2, referees=1)
    response = await world.lm.post("/start_league", headers=admin(world))
    assert response.status_code == 200
    late = await world.register_player(9)
    assert late["status"] == "REJECTED" and "closed" in late["reason"]


async def test_admin_actions_need_the_admin_token(world: World) -> None:
    assert (await world.lm.post("/start_league")).status_code == 401
    wrong = await world.lm.post("/start_league", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403 and "wrong" in wrong.json()["error"]
    await world.register_player(1)
    await world.register_player(2)
    no_referee = await world.lm.post("/start_league", headers=admin(world))
    assert no_referee.status_code == 409 and "referee" in no_referee.json()["error"]
    schedule = await world.lm.post("/create_schedule", headers=admin(world))
    assert schedule.status_code == 200 and schedule.json()["total_matches"] == 1
    again = await world.lm.post("/create_schedule", headers=admin(world))
    assert again.status_code == 409


async def test_too_few_players_cannot_start(world: World) -> None:
    await world.register_referee(1)
    await world.register_player(1)
    response = await world.lm.post("/start_league", headers=admin(world))
    assert response.status_code == 409 and "at least 2" in response.json()["error"]


async def run_full_league(world: World, players: int) -> dict[str, Any]:
    await league_of(world, players=players)
    response = await world.lm.post("/start_league", headers=admin(world))
    assert response.status_code == 200, response.text
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    await world.manager.wait_until_completed()
    return (await world.lm.get("/standings")).json()


@pytest.mark.parametrize("players", [4, 5])
async def test_a_whole_league_in_process(world: World, players: int) -> None:
    standings = await run_full_league(world, players)
    expected_matches = players * (players - 1) // 2
    assert standings["matches_completed"] == expected_matches
    assert sum(row["played"] for row in standings["standings"]) == 2 * expected_matches
    # The scripted referee gives every match to PLAYER_A.
    assert sum(row["wins"] for row in standings["standings"]) == expected_matches
    assert sum(row["points"] for row in standings["standings"]) == 3 * expected_matches
    starts = [
        p
        for ref in (REFEREE.format(n=1), REFEREE.format(n=2))
        for m, p in world.received[ref]
        if m == "start_match"
    ]
    assert sorted(p["match_id"] for p in starts) == sorted(
        m.match_id for m in world.manager.schedule.iter_matches()
    )
    assert all(world.received[REFEREE.format(n=n)] for n in (1, 2)), "both referees got work"
    assert max(world.peak.values()) <= 2, "a referee ran more matches than its capacity"
    rounds = len(world.manager.schedule.rounds)
    for n in range(1, players + 1):
        methods = world.methods_to(PLAYER.format(n=n))
        assert methods.count("notify_round") == rounds
        assert methods.count("update_standings") == rounds
        assert methods.count("notify_round_completed") == rounds
        assert methods[-1] == "notify_league_completed"
    for n in (1, 2):
        assert world.methods_to(REFEREE.format(n=n))[-1] == "notify_league_completed"
    completed = world.received[PLAYER.format(n=1)][-1][1]
    assert completed["champion"]["player_id"] == standings["standings"][0]["player_id"]
    assert completed["total_matches"] == expected_matches
    assert all(a["state"] == "SHUTDOWN" for a in (await world.lm.get("/status")).json()["players"])


async def test_start_match_carries_proofs_and_player_seats_never_a_token(world: World) -> None:
    await run_full_league(world, 2)
    starts = [p for m, p in world.received[REFEREE.format(n=1)] if m == "start_match"]
    starts += [p for m, p in world.received[REFEREE.format(n=2)] if m == "start_match"]
    start = starts[0]
    referee = next(
        e
        for e in (REFEREE.format(n=1), REFEREE.format(n=2))
        if start in [p for _, p in world.received[e]]
    )
    league = world.manager.league_id
    assert start["auth_token"] == league_manager_proof(
        world.tokens[referee], league, start["conversation_id"]
    )
    player_tokens = {world.ids[e]: t for e, t in world.tokens.items() if "player" in e}
    assert start["player_proofs"] == {
        seat["player_id"]: match_proof(
            player_tokens[seat["player_id"]], league, start["match_id"], world.ids[referee]
        )
        for seat in start["players"]
    }
    assert not set(world.tokens.values()) & set(json.dumps(start).split('"')), (
        "no token travels in a start_match"
    )
    assert [seat["role"] for seat in start["players"]] == ["PLAYER_A", "PLAYER_B"]
    assert start["players"][0]["contact_endpoint"].startswith("http://player-")


async def test_reports_are_authenticated_and_authorised(world: World) -> None:
    await league_of(world, players=2, referees=2)
    world.decide = lambda start: None
    world.dead.add(REFEREE.format(n=1))
    world.dead.add(REFEREE.format(n=2))
    await world.lm.post("/start_league", headers=admin(world))
    match = {"league_id": "league_2025_even_odd", "round_id": 1, "match_id": "R1M1"}
    ref1, ref2 = REFEREE.format(n=1), REFEREE.format(n=2)
    await wait_until(lambda: bool(world.manager.fencing.referees_of("R1M1")))
    given = world.manager.fencing.referees_of("R1M1")
    holder = ref1 if world.ids[ref1] in given else ref2
    other = ref2 if holder == ref1 else ref1

    async def code_of(params: dict[str, Any]) -> str:
        result = (await world.rpc("report_match_result", params))["result"]
        return result.get("error_code") or result["status"]

    no_token = world.report(holder, match, None)
    no_token.pop("auth_token")
    assert await code_of(no_token) == "E011"
    assert await code_of({**world.report(holder, match, None), "auth_token": "x" * 40}) == "E012"
    assert await code_of({**world.report(holder, match, None), "sender": "referee:REF77"}) == "E013"
    p1 = PLAYER.format(n=1)
    player_report = {
        **world.report(holder, match, None),
        "sender": f"player:{world.ids[p1]}",
        "auth_token": world.tokens[p1],
    }
    assert await code_of(player_report) == "E014"
    if world.ids[other] not in given:
        assert await code_of(world.report(other, match, None)) == "E014"
    assert await code_of(world.report(holder, {**match, "match_id": "R9M9"}, None)) == "E006"
    assert await code_of(world.report(holder, {**match, "league_id": "other"}, None)) == "E008"
    assert await code_of(world.report(holder, match, "P77")) == "E002"
    assert await code_of(world.report(holder, match, "P01")) == "RECORDED"
    assert await code_of(world.report(holder, match, "P02")) == "DUPLICATE"
    standings = (await world.lm.get("/standings")).json()["standings"]
    assert [(r["player_id"], r["points"]) for r in standings] == [("P01", 3), ("P02", 0)]


async def test_only_the_current_assignment_of_a_match_counts(world: World) -> None:
    """Every hand-over is numbered, larger each time; a report of an assignment the
    League Manager has since replaced is refused (E014) and only noted in the league log,
    one without a number (a referee that keeps none) is judged by who holds the match."""
    await league_of(world, players=2, referees=1)
    ref = REFEREE.format(n=1)
    world.quiet.add(ref)
    await world.lm.post("/start_league", headers=admin(world))
    await wait_until(lambda: any(m == "start_match" for m, _ in world.received[ref]))
    start = next(p for m, p in world.received[ref] if m == "start_match")
    assignment = start["assignment"]
    assert isinstance(assignment, int) and assignment >= 1
    match = world.manager.schedule.match("R1M1")
    assert match is not None and match.assignment == assignment
    stale = (
        await world.rpc(
            "report_match_result",
            world.report(ref, start, "P01", assignment=assignment - 1 if assignment > 1 else 99),
        )
    )["result"]
    assert stale["error_code"] == "E014" and "was superseded" in stale["error_description"]
    assert "R1M1" not in world.manager.results
    (noted,) = league_events(world, "report_superseded")
    assert noted["current"] == assignment
    unnumbered = world.report(ref, start, "P02")
    answer = (await world.rpc("report_match_result", unnumbered))["result"]
    assert answer["status"] == "RECORDED"
    assert world.manager.results["R1M1"].winner == "P02"


def test_assignment_numbers_grow_across_restarts(tmp_path: Path) -> None:
    first = AssignmentNumbers(tmp_path, "L")
    given = [first.next() for _ in range(3)]
    assert given == [1, 2, 3]
    again = AssignmentNumbers(tmp_path, "L")  # a restart skips the rest of the block
    assert again.next() == BLOCK + 1
    (tmp_path / "assignments.json").write_text("{torn")
    recovered = AssignmentNumbers(tmp_path, "L")
    assert recovered.next() > BLOCK + 1 and recovered.recovery_notes
    (tmp_path / "assignments.json").write_text("{torn")
    (tmp_path / "assignments.json.bak").write_text("{torn")
    with pytest.raises(StoreError, match="assignments.json"):
        AssignmentNumbers(tmp_path, "L")


async def test_a_referee_that_cannot_be_reached_loses_the_match_to_another(world: World) -> None:
    await league_of(world, players=2, referees=2)
    world.dead.add(REFEREE.format(n=1))
    await world.lm.post("/start_league", headers=admin(world))
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    assert world.manager.results["R1M1"].referee_id == "REF02"
    states = {a["agent_id"]: a["state"] for a in (await world.lm.get("/status")).json()["referees"]}
    assert states["REF01"] in ("SUSPENDED", "SHUTDOWN")


async def test_a_busy_referee_is_asked_again_soon_not_suspended(world: World) -> None:
    await league_of(world, players=4, referees=1)
    world.busy_once.update({"R1M1", "R1M2", "R2M1"})
    started = asyncio.get_running_loop().time()
    await world.lm.post("/start_league", headers=admin(world))
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    assert asyncio.get_running_loop().time() - started < 5, "E017 must not cost a backoff"
    assert not world.busy_once, "every refused match was offered again"
    starts = [p["match_id"] for m, p in world.received[REFEREE.format(n=1)] if m == "start_match"]
    assert starts.count("R1M1") == 2 and len(starts) == 6 + 3
    league_log = world.manager.shared.league_log_path("league_2025_even_odd").read_text()
    assert "SUSPENDED" not in league_log


def league_events(world: World, name: str) -> list[dict[str, Any]]:
    path = world.manager.shared.league_log_path("league_2025_even_odd")
    return [
        entry["data"]
        for line in path.read_text().splitlines()
        if (entry := json.loads(line))["event"] == name
    ]


async def test_a_player_that_never_answers_is_suspended_and_forfeits_the_rest(
    stored_world: World,
) -> None:
    """On either store: PostgreSQL keeps the count in the agents' rows."""
    world = stored_world
    await league_of(world, players=6)
    silent = PLAYER.format(n=6)
    world.dead.add(silent)
    await world.lm.post("/start_league", headers=admin(world))
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    p06 = world.ids[silent]
    suspended = league_events(world, "player_suspended")
    assert [event["player_id"] for event in suspended] == [p06]
    assert suspended[0]["failures"] == world.manager.config.suspend_after_failures
    schedule, results = world.manager.schedule, world.manager.results
    its = [m for m in schedule.iter_matches() if p06 in m.player_ids]
    forfeits = [m for m in its if results[m.match_id].details.get("forfeit")]
    started = {
        p["match_id"]
        for n in (1, 2)
        for m, p in world.received[REFEREE.format(n=n)]
        if m == "start_match"
    }
    assert forfeits and all(m.match_id not in started for m in forfeits), (
        "a forfeit is recorded without a referee"
    )
    assert {m.round_id for m in forfeits} == set(range(2, 6)), (
        "three failures in a row (two broadcasts of round 1, the next announcement) suspend"
    )
    for match in forfeits:
        result = results[match.match_id]
        other = next(p for p in match.player_ids if p != p06)
        assert result.outcomes == {p06: "TECHNICAL_LOSS", other: "WIN"}
        assert result.referee_id == world.manager.sender
    standings = (await world.lm.get("/standings")).json()["standings"]
    row = next(r for r in standings if r["player_id"] == p06)
    assert row["technical_losses"] == len(forfeits) and row["played"] == 5


async def test_copies_sent_in_one_batch_that_fail_each_count_a_failure(world: World) -> None:
    """A player taking batches that falls silent after round 1's announcement: the batch of
    round 1's standings and completion and round 2's announcement fails, three failures,
    as three requests failing would be: suspended before round 2's match, which it forfeits
    (its notifications, and their failures, logged one by one)."""
    await league_of(world, players=6)
    silent = PLAYER.format(n=6)
    world.batching.add(silent)
    handle = world.handle

    async def dies_after_one(request: httpx.Request) -> httpx.Response:
        if str(request.url) == silent and world.requests[silent]:
            world.dead.add(silent)
        return await handle(request)

    world.handle = dies_after_one  # type: ignore[method-assign]
    await world.lm.post("/start_league", headers=admin(world))
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    p06 = world.ids[silent]
    failed = [e for e in league_events(world, "notification_failed") if e["agent_id"] == p06]
    assert [e["method"] for e in failed[:3]] == [
        "update_standings",
        "notify_round_completed",
        "notify_round",
    ]
    assert {e["error_code"] for e in failed} == {"E009"}
    suspended = league_events(world, "player_suspended")
    assert [(e["player_id"], e["failures"]) for e in suspended] == [(p06, 3)]
    results = world.manager.results
    its = [m for m in world.manager.schedule.iter_matches() if p06 in m.player_ids]
    forfeited = {m.round_id for m in its if results[m.match_id].details.get("forfeit")}
    assert forfeited == set(range(2, 6))


async def test_a_suspended_player_that_answers_again_plays_again(stored_world: World) -> None:
    world = stored_world
    await league_of(world, players=6)
    silent = PLAYER.format(n=6)
    world.dead.add(silent)
    await world.lm.post("/start_league", headers=admin(world))
    p06 = world.ids[silent]
    await wait_until(lambda: world.manager.agents.get(p06).state == "SUSPENDED")
    world.dead.discard(silent)
    asked = await world.rpc(
        "league_query",
        envelope(
            "LEAGUE_QUERY",
            f"player:{p06}",
            auth_token=world.tokens[silent],
            query_type="GET_NEXT_MATCH",
            query_params={},
        ),
    )
    assert asked["result"]["success"] is True
    assert world.manager.agents.get(p06).state == "ACTIVE"
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    assert [e["player_id"] for e in league_events(world, "player_recovered")] == [p06]
    schedule, results = world.manager.schedule, world.manager.results
    played_later = [
        m
        for m in schedule.iter_matches()
        if p06 in m.player_ids
        and m.round_id >= 3
        and not results[m.match_id].details.get("forfeit")
    ]
    assert played_later, "after it answered, its matches go to a referee again"


async def test_league_queries(world: World) -> None:
    await run_full_league(world, 4)
    p1 = PLAYER.format(n=1)

    async def query(query_type: str, **params: Any) -> dict[str, Any]:
        message = envelope(
            "LEAGUE_QUERY",
            f"player:{world.ids[p1]}",
            auth_token=world.tokens[p1],
            query_type=query_type,
            query_params=params,
        )
        return (await world.rpc("league_query", message))["result"]  # type: ignore[no-any-return]

    standings = await query("GET_STANDINGS")
    assert standings["success"] and len(standings["data"]["standings"]) == 4
    schedule = await query("GET_SCHEDULE", round_id=2)
    assert [r["round_id"] for r in schedule["data"]["rounds"]] == [2]
    assert (await query("GET_NEXT_MATCH"))["data"] is None, "every match is played"
    stats = await query("GET_PLAYER_STATS", player_id="P02")
    assert stats["data"]["record"]["played"] == 3 and len(stats["data"]["matches"]) == 3
    unknown = await query("GET_PLAYER_STATS", player_id="P99")
    assert unknown["success"] is False and "P99" in unknown["error"]
    no_token = envelope("LEAGUE_QUERY", "player:P01", query_type="GET_STANDINGS")
    assert (await world.rpc("league_query", no_token))["result"]["error_code"] == "E011"
    bad_type = envelope(
        "LEAGUE_QUERY", "player:P01", auth_token=world.tokens[p1], query_type="GET_EVERYTHING"
    )
    assert (await world.rpc("league_query", bad_type))["result"]["error_code"] == "E002"
    rpc_standings = (await world.rpc("get_standings", {}))["result"]
    assert rpc_standings["message_type"] == "LEAGUE_STANDINGS"
    assert rpc_standings["standings"][0]["rank"] == 1


async def test_next_match_while_the_league_waits(world: World) -> None:
    await league_of(world, players=4, referees=1)
    await world.lm.post("/create_schedule", headers=admin(world))
    p1 = PLAYER.format(n=1)
    message = envelope(
        "LEAGUE_QUERY",
        f"player:{world.ids[p1]}",
        auth_token=world.tokens[p1],
        query_type="GET_NEXT_MATCH",
    )
    data = (await world.rpc("league_query", message))["result"]["data"]
    assert data["round_id"] == 1 and data["opponent_id"] in ("P02", "P03", "P04")


async def test_http_routes(world: World) -> None:
    await run_full_league(world, 4)
    health = (await world.lm.get("/health")).json()
    assert health["status"] == "ok" and health["state"] == "COMPLETED"
    schedule = (await world.lm.get("/schedule")).json()
    assert schedule["total_rounds"] == 3 and schedule["total_matches"] == 6
    status = (await world.lm.get("/status")).json()
    assert status["matches_completed"] == 6 and {r["agent_id"] for r in status["referees"]} == {
        "REF01",
        "REF02",
    }
    p01 = world.manager.agents.get("P01")
    assert p01 is not None
    assert status["players"][0] == p01.model_dump(
        include={"agent_id", "display_name", "game_types", "contact_endpoint", "state"}
    )
    assert set(status["referees"][0]) == {
        "agent_id",
        "display_name",
        "game_types",
        "contact_endpoint",
        "state",
        "max_concurrent_matches",
        "running_matches",
    }
    assert status["registered"] == {"referees": 2, "players": 4}
    progress = (await world.lm.get("/status", params={"agents": "false"})).json()
    assert "players" not in progress and "referees" not in progress
    assert progress == {k: v for k, v in status.items() if k not in ("players", "referees")}
    page = await world.lm.get("/")
    assert page.status_code == 200 and "Even/Odd League 2025" in page.text
    assert 'src="/ui/static/dashboard.js"' in page.text, "the dashboard fills itself (tests/web)"


async def test_files_and_restart_rebuild_the_same_standings(
    world: World, shared_dir: SharedDir
) -> None:
    standings = await run_full_league(world, 4)
    league_dir = shared_dir.league_dir("league_2025_even_odd")
    on_disk = json.loads((league_dir / "standings.json").read_text())
    assert on_disk["schema_version"] and on_disk["last_updated"].endswith("Z")
    assert on_disk["standings"] == standings["standings"]
    assert on_disk["version"] == 6, "the version counts the accepted results"
    journal = (league_dir / "journal.jsonl").read_text().splitlines()
    assert len(journal) == 6
    rounds = json.loads((league_dir / "rounds.json").read_text())
    assert rounds["status"] == "COMPLETED" and all(
        r["status"] == "COMPLETED" for r in rounds["rounds"]
    )
    await world.manager.shutdown()
    reborn = LeagueManager(LeagueManagerSettings(shared_dir=shared_dir.root))
    try:
        assert reborn.schedule.status.value == "COMPLETED"
        assert reborn.standings.document()["standings"] == standings["standings"]
    finally:
        await reborn.shutdown()
    book = LeagueBook.open(league_dir, "league_2025_even_odd", world.manager.config.scoring)
    try:
        assert len(book.results) == 6
    finally:
        book.close()


async def test_auto_start_once_enough_players(shared_dir: SharedDir) -> None:
    from league_manager.app import create_app

    app = create_app(
        LeagueManagerSettings(shared_dir=shared_dir.root, auto_start_players=2),
        transport=httpx.MockTransport(lambda r: httpx.Response(503)),
    )
    manager: LeagueManager = app.state.manager
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://lm.test"
    ) as client:
        world = World(manager=manager, lm=client)
        await world.register_referee(1)
        await world.register_player(1)
        assert manager.schedule.status.value == "REGISTRATION"
        await world.register_player(2)
        assert manager.schedule.status.value == "RUNNING"
        await manager.shutdown()


async def test_auto_start_waits_for_a_referee_without_failing_a_registration(
    shared_dir: SharedDir,
) -> None:
    from league_manager.app import create_app

    app = create_app(
        LeagueManagerSettings(shared_dir=shared_dir.root, auto_start_players=2),
        transport=httpx.MockTransport(lambda r: httpx.Response(503)),
    )
    manager: LeagueManager = app.state.manager
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://lm.test"
    ) as client:
        world = World(manager=manager, lm=client)
        await world.register_player(1)
        second = await world.register_player(2)
        assert second["status"] == "ACCEPTED" and second["auth_token"], second
        assert manager.schedule.status.value == "REGISTRATION", "no referee yet"
        assert "auto_start_waiting" in manager.league_log.path.read_text()
        await world.register_referee(1)
        assert manager.schedule.status.value == "RUNNING", "the referee completed the quorum"
        await manager.shutdown()


@pytest.mark.parametrize(
    "game_type,size,words",
    [
        ("even_odd", 3, "outside what even_odd allows (2 to 2)"),
        ("public_goods", 21, "outside what public_goods allows (2 to 20)"),
    ],
)
def test_a_match_size_the_game_does_not_allow_is_refused_at_start_up(
    shared_dir: SharedDir, game_type: str, size: int, words: str
) -> None:
    path = shared_dir.root / "config" / "leagues" / "league_2025_even_odd.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "game_type": game_type, "players_per_match": size}))
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        LeagueManager(LeagueManagerSettings(shared_dir=shared_dir.root))
