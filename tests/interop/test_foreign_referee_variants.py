"""Our players in a foreign league whose agents speak as published ones do: a League Manager
(``foreign_league_manager.py``) that signs ``league_manager:LM01`` and writes basic-form
timestamps, and two referees (``foreign_referee.py``): one tells GAME_OVER's status from each
player's side (``"WIN"``/``"LOSS"``), the other sends GAME_OVER without envelope or
``game_result`` (just ``match_id``, ``winner_id``, ``drawn_number``, ``choices``), both in
basic-form timestamps.

The league completes with no technical loss; our players take every message (each variation
noted in their logs) and their own histories hold every match as the referees decided it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess
from league_cli.up import wait_for
from players.history import PlayerHistory
from sdk.config import SharedDir
from tests.interop.harness import Agents, ForeignAgent

pytestmark = pytest.mark.e2e

PLAYERS = 4
# The referees, then the players, register one by one, in order. Player1 plays "even", the
# others "odd". The foreign League Manager's circle method puts the first player in the
# first match of every round, and gives every first match to the first referee to register
# (upper_status), so each of that referee's matches has a winner and a loser: its
# "WIN"/"LOSS" statuses are certain, not left to chance.
REFEREE_STYLES = ("upper_status,basic_timestamps", "bare_game_over,basic_timestamps")


@dataclass
class ForeignLeague:
    state: dict[str, Any]
    referees: list[ForeignAgent]
    players: list[AgentProcess]
    shared: SharedDir


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> ForeignLeague:
    agents = Agents(Path(tmp_path_factory.mktemp("foreign_referee_variants")))
    try:
        manager = agents.foreign_league_manager(
            "--sender", "league_manager:LM01", "--basic-timestamps"
        )
        referees = []
        for n, styles in enumerate(REFEREE_STYLES, 1):
            referee = agents.foreign_referee(
                manager.mcp_url, f"Ref{n}", styles, secret="not-checked"
            )
            assert agents.wait_registered(referee) == "ACCEPTED", referee.name
            referees.append(referee)

        def state() -> dict[str, Any]:
            snapshot: dict[str, Any] = httpx.get(f"{manager.base_url}/state", timeout=5).json()
            return snapshot

        players = []
        for n in range(1, PLAYERS + 1):
            strategy = "fixed" if n == 1 else "tests.players.scripted:always_odd"
            players.append(agents.our_player(manager.mcp_url, f"Player{n}", strategy))
            wait_for(
                lambda n=n: len(state()["players"]) == n,
                15,
                f"Player{n} to register with the foreign League Manager",
            )
        assert httpx.post(f"{manager.base_url}/start", timeout=5).status_code == 200
        wait_for(lambda: state()["state"] == "COMPLETED", 60, "the foreign league to complete")
        return ForeignLeague(state(), referees, players, agents.shared)
    finally:
        agents.stop_all()


def game_overs(league: ForeignLeague) -> list[dict[str, Any]]:
    return [
        record
        for referee in league.referees
        for record in referee.records()
        if record["method"] == "notify_match_result"
    ]


def test_the_league_completes_with_no_technical_loss(league: ForeignLeague) -> None:
    state = league.state
    assert state["problems"] == [] and state["refused_reports"] == []
    assert len(state["reports"]) == PLAYERS * (PLAYERS - 1) // 2
    for report in state["reports"]:
        details = report["result"]["details"]
        assert details["status"] != "TECHNICAL_LOSS", f"{report['match_id']}: {details}"
    problems = [
        (r["method"], r["peer"], r["problems"])
        for referee in league.referees
        for r in referee.records()
        if r["problems"]
    ]
    assert problems == [], f"the foreign referees found problems: {problems}"


def test_our_players_take_every_variant(league: ForeignLeague) -> None:
    sent = game_overs(league)
    assert len(sent) == 2 * len(league.state["reports"])
    shapes = {
        "bare" if "game_result" not in r["params"] else r["params"]["game_result"]["status"]
        for r in sent
    }
    assert {"bare", "LOSS"} <= shapes, f"the referees did not speak their styles: {shapes}"
    for record in sent:
        result = record["response"]["result"]
        assert not (isinstance(result, dict) and result.get("message_type") == "LEAGUE_ERROR"), (
            f"{record['peer']} refused {record['params']}: {result}"
        )
    notifications = [call for call in league.state["calls"] if call["to"].startswith("P")]
    assert notifications and all(
        call["params"]["sender"] == "league_manager:LM01" for call in notifications
    )
    for call in notifications:
        result = call["response"]["result"]
        assert not (isinstance(result, dict) and result.get("message_type") == "LEAGUE_ERROR"), (
            f"{call['to']} refused {call['method']}: {result}"
        )


def test_our_players_note_each_variant_in_their_logs(league: ForeignLeague) -> None:
    kinds: set[str] = set()
    for player_id in league.state["players"]:
        for line in league.shared.agent_log_path(player_id).read_text().splitlines():
            entry = json.loads(line)
            if entry.get("event") == "protocol_deviation":
                kinds.update(d["kind"] for d in entry["deviations"])
    assert {
        "timestamp_form",
        "sender_form",
        "result_shape",
        "status_value",
        "missing_envelope_field",
    } <= kinds, kinds


def test_our_players_histories_hold_every_match_as_the_referees_decided_it(
    league: ForeignLeague,
) -> None:
    reports = {report["match_id"]: report["result"] for report in league.state["reports"]}
    for player_id in league.state["players"]:
        path = league.shared.player_history_path(player_id)  # and its journal, read back
        history = PlayerHistory.load(
            path, player_id=player_id, display_name="", strategy=""
        ).document()
        records = {record["match_id"]: record for record in history["matches"]}
        mine = {
            match_id
            for match_id, players in league.state["schedule"].items()
            if player_id in players
        }
        assert set(records) == mine, (
            f"{player_id}'s history holds {sorted(records)}, not {sorted(mine)}"
        )
        for match_id, record in records.items():
            result = reports[match_id]
            winner = result["winner"]
            expected = "DRAW" if winner is None else "WIN" if winner == player_id else "LOSS"
            assert record["outcome"] == expected, f"{player_id} {match_id}: {record}"
            assert record["winner_player_id"] == winner, f"{player_id} {match_id}: {record}"
            assert record["drawn_number"] == result["details"]["drawn_number"], match_id
            others = [p for p in league.state["schedule"][match_id] if p != player_id]
            assert record["opponent_id"] == others[0], f"{player_id} {match_id}: {record}"
