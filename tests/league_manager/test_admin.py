"""The admin's routes on an in-process League Manager with scripted referees and players:
pause and resume, removing a player, the exports, and the admin token in front of them."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from league_manager.admin import ADMIN_FILE
from league_manager.config import LeagueManagerSettings
from league_manager.exports import RESULTS_COLUMNS, STANDINGS_COLUMNS
from league_manager.registry_files import RegistryFiles
from league_manager.service import LeagueManager
from sdk.config import SharedDir
from tests.league_manager.conftest import PLAYER, REFEREE, World, envelope, wait_until
from tests.league_manager.test_app import admin, league_events, league_of

LEAGUE = "league_2025_even_odd"
ROUTES = [
    ("POST", "/admin/start"),
    ("POST", "/admin/pause"),
    ("POST", "/admin/resume"),
    ("POST", "/admin/players/P01/remove"),
    ("GET", "/admin/export/standings.csv"),
    ("GET", "/admin/export/standings.json"),
    ("GET", "/admin/export/results.csv"),
    ("GET", "/admin/export/results.json"),
]


@dataclass
class HeldReferees:
    """The scripted referees take every match and report it only when the test says so
    (``release``), or at once once ``auto`` is set."""

    world: World
    held: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    auto: bool = False

    def __post_init__(self) -> None:
        self._play = self.world.handle
        self.world.handle = self.handle  # type: ignore[method-assign]

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body["method"] != "start_match" or self.auto:
            return await self._play(request)
        endpoint, params = str(request.url), body["params"]
        self.world.received[endpoint].append(("start_match", params))
        self.held.append((endpoint, params))
        return httpx.Response(
            200,
            json={
                "jsonrpc": "2.0",
                "id": body["id"],
                "result": envelope(
                    "START_MATCH_ACK", "referee:x", match_id=params["match_id"], accepted=True
                ),
            },
        )

    def started(self) -> list[str]:
        return [
            params["match_id"]
            for endpoint in (REFEREE.format(n=1), REFEREE.format(n=2))
            for method, params in self.world.received[endpoint]
            if method == "start_match"
        ]

    async def release(self) -> list[str]:
        """Report every held match (PLAYER_A wins); returns their ids."""
        released, self.held = self.held, []
        for endpoint, params in released:
            answer = await self.world.rpc(
                "report_match_result",
                self.world.report(endpoint, params, params["players"][0]["player_id"]),
            )
            assert answer["result"]["status"] == "RECORDED", answer
        return [params["match_id"] for _, params in released]

    async def play_on(self) -> None:
        """Report what is held and every match from now on at once."""
        self.auto = True
        await self.release()


def journal(world: World) -> list[dict[str, Any]]:
    path = world.manager.shared.league_dir(LEAGUE) / "journal.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def standings_from(records: list[dict[str, Any]]) -> dict[str, tuple[int, float]]:
    """(played, points) per player, added up from journal records."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for record in records:
        for player_id, points in record["points"].items():
            totals[player_id][0] += 1
            totals[player_id][1] += points
    return {player_id: (int(played), points) for player_id, (played, points) in totals.items()}


async def completed(world: World) -> None:
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    await world.manager.wait_until_completed()


# -- the admin token -----------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_every_admin_route_needs_the_admin_token(
    world: World, method: str, path: str
) -> None:
    for headers, status in (
        ({}, 401),
        ({"Authorization": "Basic abc"}, 401),
        ({"Authorization": "Bearer"}, 401),
        ({"Authorization": "Bearer wrong-token"}, 403),
    ):
        response = await world.lm.request(method, path, headers=headers)
        assert response.status_code == status, (headers, response.text)
        assert set(response.json()) == {"error"} and response.json()["error"].endswith(
            ("<admin token>'", "wrong")
        ), response.text
    assert not (world.manager.shared.league_dir(LEAGUE) / ADMIN_FILE).exists()


async def test_admin_start_is_start_league(world: World) -> None:
    await league_of(world, players=2, referees=1)
    started = await world.lm.post("/admin/start", headers=admin(world))
    assert started.status_code == 200 and started.json()["state"] == "RUNNING"
    assert started.json()["paused"] is False
    again = await world.lm.post("/admin/start", headers=admin(world))
    assert again.status_code == 409 and "already" in again.json()["error"]


# -- pause and resume ----------------------------------------------------------------------


async def test_pause_and_resume_say_when_they_do_not_apply(world: World) -> None:
    referees = HeldReferees(world)
    await league_of(world, players=2, referees=1)
    before = await world.lm.post("/admin/pause", headers=admin(world))
    assert before.status_code == 409
    assert before.json()["error"] == (
        "the league is not running (it is REGISTRATION); only a running league can be paused"
    )
    not_paused = await world.lm.post("/admin/resume", headers=admin(world))
    assert not_paused.status_code == 409
    assert not_paused.json() == {"error": "the league is not paused"}
    await world.lm.post("/admin/start", headers=admin(world))
    paused = await world.lm.post("/admin/pause", headers=admin(world))
    assert paused.status_code == 200 and paused.json()["paused"] is True
    twice = await world.lm.post("/admin/pause", headers=admin(world))
    assert twice.status_code == 409 and twice.json() == {"error": "the league is paused already"}
    assert (await world.lm.get("/status")).json()["paused"] is True
    resumed = await world.lm.post("/admin/resume", headers=admin(world))
    assert resumed.status_code == 200 and resumed.json()["paused"] is False
    await referees.play_on()
    await completed(world)
    after = await world.lm.post("/admin/pause", headers=admin(world))
    assert after.status_code == 409 and "COMPLETED" in after.json()["error"]


async def test_pause_holds_hand_overs_and_rounds_while_running_matches_finish(world: World) -> None:
    referees = HeldReferees(world)
    await league_of(world, players=6, referees=1, capacity=2)  # 3 matches a round, 2 at once
    await world.lm.post("/start_league", headers=admin(world))
    # Held by the referee, and counted by the League Manager once the referee's accept is in.
    await wait_until(
        lambda: len(referees.held) == 2 and world.manager.referees.running_on("REF01") == 2
    )
    paused = await world.lm.post("/admin/pause", headers=admin(world))
    assert paused.status_code == 200
    assert paused.json()["referees"][0]["running_matches"] == 2
    running = await referees.release()
    schedule, control = world.manager.schedule, world.manager.control
    assert set(running) <= set(world.manager.results), "a match running at the pause counts"
    await wait_until(lambda: control.held == 1 and world.manager.referees.running_on("REF01") == 0)
    assert referees.started() == running, "the third match of round 1 waits for the resume"
    await world.lm.post("/admin/resume", headers=admin(world))
    await wait_until(lambda: len(referees.held) == 1)
    # Paused while the round's last match runs: it finishes, and round 2 does not start.
    await world.lm.post("/admin/pause", headers=admin(world))
    await referees.release()
    await wait_until(lambda: schedule.rounds[0].status == "COMPLETED" and control.held == 1)
    assert schedule.rounds[1].status == "PENDING" and len(referees.started()) == 3
    announced = [
        params["round_id"]
        for method, params in world.received[PLAYER.format(n=1)]
        if method == "notify_round"
    ]
    assert announced == [1]
    await world.lm.post("/admin/resume", headers=admin(world))
    await referees.play_on()
    await completed(world)
    counts = Counter(record["match_id"] for record in journal(world))
    scheduled = sorted(m.match_id for m in schedule.iter_matches())
    assert sorted(counts) == scheduled and set(counts.values()) == {1}
    assert sorted(referees.started()) == scheduled, "each match handed over once"
    assert [e["running_matches"] for e in league_events(world, "league_paused")] == [2, 1]


async def test_a_paused_league_stays_paused_when_the_league_manager_starts_again(
    world: World,
) -> None:
    HeldReferees(world)
    await league_of(world, players=2, referees=1)
    await world.lm.post("/start_league", headers=admin(world))
    await world.lm.post("/admin/pause", headers=admin(world))
    settings = LeagueManagerSettings(shared_dir=world.manager.shared.root)
    again = LeagueManager(settings)
    try:
        assert again.control.paused is True and again.status()["paused"] is True
        again.control.resume()
    finally:
        again.results.close()
        again.log.close()
        again.league_log.close()
    third = LeagueManager(settings)
    try:
        assert third.control.paused is False, "the resume was saved"
    finally:
        third.results.close()
        third.log.close()
        third.league_log.close()


def test_a_damaged_pause_file_is_recovered_or_starts_paused(shared_dir: SharedDir) -> None:
    settings = LeagueManagerSettings(shared_dir=shared_dir.root)
    league_dir = shared_dir.league_dir(LEAGUE)

    def fresh() -> LeagueManager:
        manager = LeagueManager(settings)
        manager.results.close()
        manager.log.close()
        manager.league_log.close()
        return manager

    assert fresh().control.paused is False
    league_dir.mkdir(parents=True, exist_ok=True)
    (league_dir / ADMIN_FILE).write_text('{"paused": true}')
    (league_dir / f"{ADMIN_FILE}.bak").write_text('{"paused": false}')
    assert fresh().control.paused is True
    (league_dir / ADMIN_FILE).write_text('{"paused": tr')
    recovered = fresh()
    assert recovered.control.paused is False, "the backup said not paused"
    assert "recovered it from admin.json.bak" in recovered.control.recovery_notes[0]
    (league_dir / ADMIN_FILE).write_text('{"paused": "yes"}')
    (league_dir / f"{ADMIN_FILE}.bak").write_text("garbage")
    lost = fresh()
    assert lost.control.paused is True, "nothing usable: paused, the safe side"
    assert "starts paused" in lost.control.recovery_notes[0]
    assert list(league_dir.glob(f"{ADMIN_FILE}.corrupt-*"))


# -- removing a player ---------------------------------------------------------------------


async def test_a_removed_player_forfeits_what_it_has_not_played_and_hears_no_more(
    world: World,
) -> None:
    referees = HeldReferees(world)
    await league_of(world, players=4, referees=2, capacity=2)
    early = await world.lm.post("/admin/players/P04/remove", headers=admin(world))
    assert early.status_code == 409 and "POST /create_schedule" in early.json()["error"]
    await world.lm.post("/start_league", headers=admin(world))
    await wait_until(lambda: len(referees.held) == 2)
    running = next(
        p["match_id"] for _, p in referees.held if "P04" in [s["player_id"] for s in p["players"]]
    )
    removed = await world.lm.post("/admin/players/P04/remove", headers=admin(world))
    assert removed.status_code == 200, removed.text
    schedule, results = world.manager.schedule, world.manager.results
    later = sorted(
        m.match_id
        for m in schedule.iter_matches()
        if "P04" in m.player_ids and m.match_id != running
    )
    assert removed.json() == {
        "player_id": "P04",
        "state": "REMOVED",
        "unplayed_matches": [running, *later],
    }
    twice = await world.lm.post("/admin/players/P04/remove", headers=admin(world))
    assert twice.status_code == 409 and twice.json() == {"error": "P04 was removed already"}
    for unknown in ("P77", "REF01"):
        missing = await world.lm.post(f"/admin/players/{unknown}/remove", headers=admin(world))
        assert missing.status_code == 404
        assert missing.json() == {"error": f"there is no player '{unknown}' in this league"}
    p04 = PLAYER.format(n=4)
    heard_before = len(world.received[p04])
    asked = await world.rpc(
        "league_query",
        envelope(
            "LEAGUE_QUERY",
            "player:P04",
            auth_token=world.tokens[p04],
            query_type="GET_NEXT_MATCH",
            query_params={},
        ),
    )
    assert asked["result"]["success"] is True
    assert world.manager.agents.get("P04").state == "REMOVED", "an answer lifts no removal"
    await referees.play_on()
    await completed(world)
    assert results[running].details.get("forfeit") is None, "its running match counts"
    for match_id in later:
        result = results[match_id]
        other = next(p for p in schedule.match(match_id).player_ids if p != "P04")
        assert result.outcomes == {"P04": "TECHNICAL_LOSS", other: "WIN"}
        assert result.details["forfeit"] is True and result.referee_id == "league_manager"
        assert result.details["reason"] == "not played: P04 REMOVED by the admin"
    assert not set(later) & set(referees.started()), "no referee is given its matches"
    others = [m for m in schedule.iter_matches() if "P04" not in m.player_ids]
    assert all(results[m.match_id].outcomes[m.player_A_id] == "WIN" for m in others)
    assert len(world.received[p04]) == heard_before, "no notification after the removal"
    assert world.manager.agents.get("P04").state == "REMOVED", "the league's end leaves it REMOVED"
    records = journal(world)
    assert len(records) == schedule.total_matches
    standings = (await world.lm.get("/standings")).json()["standings"]
    assert {r["player_id"]: (r["played"], r["points"]) for r in standings} == standings_from(
        records
    )
    assert next(r for r in standings if r["player_id"] == "P04")["technical_losses"] == 2
    agents = RegistryFiles(world.manager.shared.league_dir(LEAGUE)).read().agents
    assert agents["P04"].state == "REMOVED", "and so do the registry's files"
    final = await world.lm.post("/admin/players/P01/remove", headers=admin(world))
    assert final.status_code == 409 and "completed" in final.json()["error"]


async def test_a_player_removed_before_the_start_forfeits_every_match(world: World) -> None:
    await league_of(world, players=4, referees=1)
    await world.lm.post("/create_schedule", headers=admin(world))
    removed = await world.lm.post("/admin/players/P02/remove", headers=admin(world))
    assert removed.status_code == 200 and len(removed.json()["unplayed_matches"]) == 3
    await world.lm.post("/admin/start", headers=admin(world))
    await completed(world)
    schedule, results = world.manager.schedule, world.manager.results
    its = [results[m.match_id] for m in schedule.iter_matches() if "P02" in m.player_ids]
    assert all(r.details["forfeit"] and r.outcomes["P02"] == "TECHNICAL_LOSS" for r in its)
    assert "notify_round" not in world.methods_to(PLAYER.format(n=2))


# -- exports -------------------------------------------------------------------------------


async def test_the_exports_agree_with_the_standings_and_the_journal(world: World) -> None:
    await league_of(world, players=4, referees=2)
    world.decide = lambda start: (
        None if start["match_id"] == "R1M1" else (start["players"][1]["player_id"])
    )
    await world.lm.post("/start_league", headers=admin(world))
    await completed(world)
    standings = (await world.lm.get("/standings")).json()
    exported: dict[str, httpx.Response] = {}
    for name in ("standings.csv", "standings.json", "results.csv", "results.json"):
        exported[name] = await world.lm.get(f"/admin/export/{name}", headers=admin(world))
        assert exported[name].status_code == 200
        assert exported[name].headers["content-disposition"] == (
            f'attachment; filename="{LEAGUE}-{name}"'
        )
    assert exported["standings.json"].json() == standings
    assert exported["standings.csv"].headers["content-type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(exported["standings.csv"].text)))
    assert tuple(rows[0]) == STANDINGS_COLUMNS
    assert [
        {k: str(v) for k, v in row.items() if k in STANDINGS_COLUMNS}
        for row in standings["standings"]
    ] == [{**row, "points": str(float(row["points"]))} for row in rows]
    results = exported["results.json"].json()
    records = journal(world)
    assert results["league_id"] == LEAGUE and results["version"] == standings["version"]
    assert [r["match_id"] for r in results["results"]] == [r["match_id"] for r in records]
    for mine, record in zip(results["results"], records, strict=True):
        for key in ("round_id", "outcomes", "points", "winner", "referee_id", "recorded_at"):
            assert mine[key] == record[key]
        assert mine["player_ids"] == world.manager.schedule.match(mine["match_id"]).player_ids
        assert mine["forfeit"] is False
    draw = next(r for r in results["results"] if r["match_id"] == "R1M1")
    assert draw["winner"] is None and set(draw["outcomes"].values()) == {"DRAW"}
    lines = list(csv.DictReader(io.StringIO(exported["results.csv"].text)))
    assert tuple(lines[0]) == RESULTS_COLUMNS and len(lines) == len(records)
    for line, mine in zip(lines, results["results"], strict=True):
        seats = line["player_ids"].split(";")
        assert seats == mine["player_ids"]
        assert dict(zip(seats, line["outcomes"].split(";"), strict=True)) == mine["outcomes"]
        assert {p: float(x) for p, x in zip(seats, line["points"].split(";"), strict=True)} == mine[
            "points"
        ]
        assert line["winner"] == (mine["winner"] or "") and line["forfeit"] == "false"
        assert (
            line["match_id"],
            int(line["round_id"]),
            line["referee_id"],
            line["recorded_at"],
        ) == (mine["match_id"], mine["round_id"], mine["referee_id"], mine["recorded_at"])
    unknown = await world.lm.get("/admin/export/standings.xml", headers=admin(world))
    assert unknown.status_code == 404 and "standings.csv" in unknown.json()["error"]


async def test_exports_before_any_result_are_headers_and_empty_lists(world: World) -> None:
    results = await world.lm.get("/admin/export/results.csv", headers=admin(world))
    assert results.text == ",".join(RESULTS_COLUMNS) + "\n"
    document = (await world.lm.get("/admin/export/results.json", headers=admin(world))).json()
    assert document == {"league_id": LEAGUE, "version": 0, "results": []}
