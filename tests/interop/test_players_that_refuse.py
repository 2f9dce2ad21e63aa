"""Our League Manager and referee with foreign players that answer some requests with an HTTP
error status (``foreign_player.py``): two that require an auth_token on every request once
registered (HTTP 401 without one), and one whose strategy crashes on every move (HTTP 500
with a JSON-RPC error saying why). One of our players joins.

The league completes; no technical loss is ours to blame: the token-requiring players get
a token on every request, and it is never their own token (the referee shows the proof the
League Manager made for that match); the crashing player loses each match by technical loss,
and the reason and the match file keep what its error said.

Under a foreign League Manager (``foreign_league_manager.py``) our referee shows a player
what that League Manager handed it for the match, nothing else: the players' proofs when it
fills START_MATCH's ``player_proofs``, else no auth_token at all (a referee never holds a
player's token), and then a player that requires one refuses the match and loses it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.up import wait_for
from sdk.auth import match_proof
from tests.interop.harness import LEAGUE, Agents, ForeignAgent, start_our_league
from tests.match_files import match_files

pytestmark = pytest.mark.e2e

CRASH = "strategy crashed: ZeroDivisionError: division by zero"
"""What ``foreign_player.py --style error_status`` says in its JSON-RPC error."""


@dataclass
class League:
    status: dict[str, Any]
    matches: list[dict[str, Any]]
    locked: list[ForeignAgent]
    crashy: ForeignAgent
    ids: dict[str, str]
    """Player id -> the name it registered under."""


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    agents = Agents(Path(tmp_path_factory.mktemp("players_that_refuse")))
    try:
        manager = agents.our_manager()
        referee = agents.our_referee(manager.mcp_url)
        ours = agents.our_player(manager.mcp_url, "Ours")
        locked = [
            agents.foreign_player(manager.mcp_url, f"Locked{n}", "require_token") for n in (1, 2)
        ]
        crashy = agents.foreign_player(manager.mcp_url, "Crashy", "error_status")
        for process in (referee, ours):
            agents.ours.wait_healthy(process)
        ids = {}
        for agent in (*locked, crashy):
            assert agents.wait_registered(agent) == "ACCEPTED", agent.name
            ids[agent.health()["player_id"]] = agent.name
        status = start_our_league(agents, manager, referees=1, players=4)
        return League(status, match_files(agents.shared, LEAGUE), locked, crashy, ids)
    finally:
        agents.stop_all()


def technical_losers(match: dict[str, Any]) -> list[str]:
    return list(match["result"]["report"]["details"].get("technical_losers", []))


def test_the_league_completes_and_only_the_crashing_player_loses_technically(
    league: League,
) -> None:
    assert league.status["matches_completed"] == league.status["total_matches"] == 6
    crashy_id = next(pid for pid, name in league.ids.items() if name == "Crashy")
    for match in league.matches:
        players = [seat["player_id"] for seat in match["players"]]
        expected = [crashy_id] if crashy_id in players else []
        assert technical_losers(match) == expected, (
            f"{match['match_id']}: technical losers {technical_losers(match)}, not {expected}: "
            f"{match['result']['game_result'].get('reason')}"
        )


def test_a_player_that_requires_a_token_gets_one_on_every_request(league: League) -> None:
    for agent in league.locked:
        records = agent.records()
        token = records[0]["response"]["result"]["auth_token"]
        received = [r for r in records if r["direction"] == "received"]
        assert received, f"{agent.name} received nothing"
        refused = [(r["method"], r["params"].get("sender")) for r in received if r["status"] != 200]
        assert refused == [], f"{agent.name} answered 401 to {refused}"
        carried = [r["params"]["auth_token"] for r in received]
        assert token not in carried, (
            f"{agent.name} was sent its own token: a token goes only to its owner's requests"
        )
        from_referee = {
            r["params"]["match_id"]: r["params"]["auth_token"]
            for r in received
            if r["params"]["sender"].startswith("referee:")
        }
        assert len(set(from_referee.values())) == len(from_referee) == 3, (
            f"{agent.name}: one proof per match, each its own: {from_referee}"
        )


def test_the_error_a_player_answers_is_kept_in_the_reason_and_the_match_file(
    league: League,
) -> None:
    crashy_id = next(pid for pid, name in league.ids.items() if name == "Crashy")
    lost = [m for m in league.matches if crashy_id in technical_losers(m)]
    assert len(lost) == 3
    for match in lost:
        reason = match["result"]["game_result"]["reason"]
        assert "HTTP 500" in reason and "-32603" in reason and CRASH in reason, reason
        answers = [
            entry
            for entry in match["transcript"]
            if entry["peer"] == crashy_id
            and entry["method"] == "choose_parity"
            and entry["direction"] == "received"
        ]
        assert answers, f"{match['match_id']}: no answer of {crashy_id} in the transcript"
        assert answers[0]["error"]["code"] == "HTTP_500"
        assert answers[0]["message"]["error"]["data"] == CRASH, answers[0]


@pytest.mark.parametrize("proofs", [True, False], ids=["player_proofs", "no_proofs"])
def test_under_a_foreign_league_manager_the_referee_shows_what_it_was_handed(
    agents: Agents, proofs: bool
) -> None:
    manager = agents.foreign_league_manager(*(["--player-proofs"] if proofs else []))
    agents.our_referee(manager.mcp_url)
    locked = agents.foreign_player(manager.mcp_url, "Locked", "require_token")
    assert agents.wait_registered(locked) == "ACCEPTED"
    assert agents.wait_registered(agents.foreign_player(manager.mcp_url, "Open")) == "ACCEPTED"

    def state() -> dict[str, Any]:
        snapshot: dict[str, Any] = httpx.get(f"{manager.base_url}/state", timeout=5).json()
        return snapshot

    wait_for(lambda: len(state()["referees"]) == 1, 15, "our referee to register")
    assert httpx.post(f"{manager.base_url}/start", timeout=5).status_code == 200
    wait_for(lambda: state()["state"] == "COMPLETED", 30, "the foreign league to complete")
    [match] = match_files(agents.shared, LEAGUE)
    locked_id = locked.health()["player_id"]
    records = locked.records()
    from_referee = [
        r
        for r in records
        if r["direction"] == "received" and r["params"]["sender"].startswith("referee:")
    ]
    assert from_referee, "the referee never called the token-requiring player"
    if proofs:
        token = records[0]["response"]["result"]["auth_token"]
        assert technical_losers(match) == [], match["result"]["game_result"]["reason"]
        assert {r["params"]["auth_token"] for r in from_referee} == {
            match_proof(token, LEAGUE, match["match_id"], "REF01")
        }, "each referee message carries the match proof the League Manager made"
        assert {r["status"] for r in from_referee} == {200}
        return
    assert technical_losers(match) == [locked_id]
    reason = match["result"]["game_result"]["reason"]
    assert "HTTP 401" in reason and "auth_token required" in reason, reason
    assert f"the League Manager gave this referee no proof for {locked_id}" in reason, reason
    assert [("auth_token" in r["params"], r["status"]) for r in from_referee] == [
        (False, 401)
    ] * len(from_referee), "without a proof the referee sends no auth_token, never another's"
