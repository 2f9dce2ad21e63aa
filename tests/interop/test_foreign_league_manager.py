"""Our referee and our players in a league run by a foreign League Manager
(``foreign_league_manager.py``, standard library only): they register with exactly the
requests the protocol shows, the league runs, our referee reports complete results and our
agents acknowledge every notification, ``matches_played`` in ROUND_COMPLETED included.

One league is played for the whole module; each test reads what it left."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess
from league_cli.up import wait_for
from sdk.config import SharedDir
from tests.interop.harness import (
    LEAGUE,
    UTC_WHOLE_SECONDS,
    Agents,
    league_query,
    rpc,
)
from tests.match_files import match_files, recompute_standings

pytestmark = pytest.mark.e2e

PLAYERS = 3
ENVELOPE = {"protocol", "message_type", "sender", "timestamp", "conversation_id"}
REFEREE_META = {
    "display_name",
    "version",
    "game_types",
    "contact_endpoint",
    "max_concurrent_matches",
}
PLAYER_META = {"display_name", "version", "game_types", "contact_endpoint", "protocol_version"}


@dataclass
class ForeignLeague:
    """What the league left: the foreign League Manager's GET /state, its answers to a
    standings query, our processes and our match files."""

    state: dict[str, Any]
    get_standings_answer: dict[str, Any]
    league_query_answer: dict[str, Any]
    referee: AgentProcess
    players: list[AgentProcess]
    shared: SharedDir


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> ForeignLeague:
    agents = Agents(Path(tmp_path_factory.mktemp("foreign_league_manager")))
    try:
        manager = agents.foreign_league_manager()
        referee = agents.our_referee(manager.mcp_url)
        players = [agents.our_player(manager.mcp_url, f"Player{n}") for n in range(1, PLAYERS + 1)]
        for process in (referee, *players):
            agents.ours.wait_healthy(process)

        def state() -> dict[str, Any]:
            snapshot: dict[str, Any] = httpx.get(f"{manager.base_url}/state", timeout=5).json()
            return snapshot

        wait_for(
            lambda: len(state()["registrations"]) == 1 + PLAYERS,
            15,
            "our referee and players to register with the foreign League Manager",
        )
        started = httpx.post(f"{manager.base_url}/start", timeout=5)
        assert started.status_code == 200, f"the foreign league did not start: {started.text}"
        wait_for(lambda: state()["state"] == "COMPLETED", 30, "the foreign league to complete")
        return ForeignLeague(
            state=state(),
            get_standings_answer=rpc(manager.mcp_url, "get_standings", {}),
            league_query_answer=rpc(manager.mcp_url, "league_query", league_query("player:P01")),
            referee=referee,
            players=players,
            shared=agents.shared,
        )
    finally:
        agents.stop_all()


def test_our_agents_register_with_exactly_the_protocols_request(league: ForeignLeague) -> None:
    expected = {
        league.referee.mcp_url: (
            "register_referee",
            "REFEREE_REGISTER_REQUEST",
            "referee",
            "referee_meta",
            REFEREE_META,
        )
    }
    expected |= {
        player.mcp_url: (
            "register_player",
            "LEAGUE_REGISTER_REQUEST",
            "player",
            "player_meta",
            PLAYER_META,
        )
        for player in league.players
    }
    registrations = league.state["registrations"]
    assert len(registrations) == len(expected), "one registration per agent"
    for request in registrations:
        params = request["params"]
        method, message_type, kind, meta_key, meta_fields = expected[
            params[request["method"].removeprefix("register_") + "_meta"]["contact_endpoint"]
        ]
        meta = params[meta_key]
        who = f"{meta['display_name']}'s {message_type}"
        assert request["jsonrpc"] == "2.0" and request["method"] == method, who
        assert isinstance(request["id"], int), f"{who}: JSON-RPC id {request['id']!r}"
        assert set(params) == ENVELOPE | {meta_key}, (
            f"{who} carries {sorted(params)}, not the envelope and {meta_key}"
        )
        assert (params["protocol"], params["message_type"]) == ("league.v2", message_type), who
        assert params["sender"].startswith(f"{kind}:") and params["conversation_id"], who
        assert UTC_WHOLE_SECONDS.match(params["timestamp"]), (
            f"{who}: timestamp {params['timestamp']!r} is not UTC Z in whole seconds"
        )
        assert set(meta) == meta_fields, f"{who}: {meta_key} holds {sorted(meta)}"
        assert meta["game_types"] == ["even_odd"] and meta["version"], who
        if kind == "player":
            assert meta["protocol_version"] == "2.1.0", who
        else:
            assert meta["max_concurrent_matches"] >= 1, who


def test_the_league_runs_and_our_referee_reports_complete_results(league: ForeignLeague) -> None:
    state = league.state
    assert state["problems"] == [], state["problems"]
    assert state["refused_reports"] == [], f"reports refused: {state['refused_reports']}"
    handed = {
        call["params"]["match_id"]: call
        for call in state["calls"]
        if call["method"] == "start_match"
    }
    assert len(handed) == PLAYERS * (PLAYERS - 1) // 2
    for call in handed.values():
        ack = call["response"]["result"]
        assert (ack["message_type"], ack["accepted"]) == ("START_MATCH_ACK", True), ack
    reports = {report["match_id"]: report for report in state["reports"]}
    assert set(reports) == set(handed), "a match was not reported"
    fields = ENVELOPE | {"auth_token", "league_id", "round_id", "match_id", "game_type", "result"}
    for match_id, call in handed.items():
        report, players = reports[match_id], {p["player_id"] for p in call["params"]["players"]}
        assert fields <= set(report), f"{match_id}: the report lacks {fields - set(report)}"
        assert (report["message_type"], report["sender"]) == (
            "MATCH_RESULT_REPORT",
            "referee:REF01",
        ), match_id
        assert UTC_WHOLE_SECONDS.match(report["timestamp"]), match_id
        assert (report["league_id"], report["round_id"], report["game_type"]) == (
            LEAGUE,
            call["params"]["round_id"],
            "even_odd",
        ), match_id
        result = report["result"]
        assert {"winner", "score", "details"} <= set(result), f"{match_id}: result {result}"
        assert result["winner"] in players | {None}, match_id
        assert set(result["score"]) == players, f"{match_id}: score {result}"
        assert result["details"]["technical_losers"] == [], f"{match_id}: {result['details']}"


def test_the_foreign_standings_agree_with_our_match_files(league: ForeignLeague) -> None:
    recomputed = recompute_standings(league.shared, LEAGUE, match_files(league.shared, LEAGUE))
    assert len(recomputed) == PLAYERS
    for answer in (
        league.get_standings_answer["result"]["standings"],
        league.league_query_answer["result"]["data"]["standings"],
    ):
        for row in answer:
            mine = recomputed[row["player_id"]]
            assert [row[key] for key in ("played", "wins", "draws", "losses", "points")] == [
                mine[key] for key in ("played", "wins", "draws", "losses", "points")
            ], f"{row['player_id']}: the foreign standings disagree with our match files"


@pytest.mark.parametrize(
    "method, message_type",
    [
        ("notify_round", "ROUND_ANNOUNCEMENT"),
        ("update_standings", "LEAGUE_STANDINGS_UPDATE"),
        ("notify_round_completed", "ROUND_COMPLETED"),
        ("notify_league_completed", "LEAGUE_COMPLETED"),
    ],
)
def test_our_agents_acknowledge_every_notification(
    league: ForeignLeague, method: str, message_type: str
) -> None:
    calls = [call for call in league.state["calls"] if call["method"] == method]
    rounds = PLAYERS  # an odd count: one player sits out each round
    expected = 1 + PLAYERS if method == "notify_league_completed" else rounds * PLAYERS
    assert len(calls) == expected, f"{len(calls)} {message_type} sent, not {expected}"
    for call in calls:
        assert call["params"]["message_type"] == message_type
        assert "error" not in call, f"{message_type} to {call['to']}: {call['error']}"
        response = call["response"]
        assert "result" in response, f"{message_type} to {call['to']}: {response}"
        result = response["result"]
        assert result.get("message_type") != "LEAGUE_ERROR", (
            f"{call['to']} refused {message_type} {sorted(call['params'])}: "
            f"{result.get('error_code')} {result.get('error_description')}"
        )
