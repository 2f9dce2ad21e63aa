"""Our League Manager and our players with a foreign referee (``foreign_referee.py``, standard
library only): the league completes through it, and the careful checks it makes find our
players' answers exact and full."""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import pytest

from league_cli.up import wait_for
from tests.interop.harness import UTC_WHOLE_SECONDS, Agents, start_our_league

pytestmark = pytest.mark.e2e

PLAYERS = 3
ENVELOPE = {"protocol", "message_type", "sender", "timestamp", "conversation_id"}
CONTEXT = {"auth_token", "league_id", "round_id", "match_id"}
"""Envelope fields a message carries "by context" (league.v2, Envelope)."""
ANSWERS = {
    "handle_game_invitation": (
        "GAME_JOIN_ACK",
        {"match_id", "player_id", "arrival_timestamp", "accept"},
    ),
    "choose_parity": ("CHOOSE_PARITY_RESPONSE", {"match_id", "player_id", "parity_choice"}),
}


def check_answer(entry: dict[str, Any]) -> None:
    """One answer of ours, as the foreign referee recorded it: every field the protocol names,
    none it does not, the request's ids echoed, our wire formats."""
    player, request, answer = entry["peer"], entry["params"], entry["response"]["result"]
    message_type, fields = ANSWERS[entry["method"]]
    where = f"{player}'s {message_type} in {request['match_id']}"
    named = ENVELOPE | fields
    assert named <= set(answer), f"{where} lacks {named - set(answer)}"
    assert set(answer) <= named | CONTEXT, (
        f"{where} carries fields the protocol does not name: {set(answer) - named - CONTEXT}"
    )
    assert (answer["protocol"], answer["message_type"]) == ("league.v2", message_type), where
    assert answer["sender"] == f"player:{player}", where
    assert answer["conversation_id"] == request["conversation_id"], where
    assert (answer["match_id"], answer["player_id"]) == (request["match_id"], player), where
    assert UTC_WHOLE_SECONDS.match(answer["timestamp"]), f"{where}: {answer['timestamp']}"
    if message_type == "GAME_JOIN_ACK":
        assert answer["accept"] is True, where
        assert UTC_WHOLE_SECONDS.match(answer["arrival_timestamp"]), where
    else:
        assert answer["parity_choice"] in ("even", "odd"), where


def test_a_league_runs_through_a_foreign_referee(agents: Agents) -> None:
    manager = agents.our_manager()
    referee = agents.foreign_referee(manager.mcp_url)
    assert agents.wait_registered(referee) == "ACCEPTED"
    players = [agents.our_player(manager.mcp_url, f"Player{n}") for n in range(1, PLAYERS + 1)]
    for player in players:
        agents.ours.wait_healthy(player)

    status = start_our_league(agents, manager, referees=1, players=PLAYERS)
    assert status["matches_completed"] == status["total_matches"] == PLAYERS * (PLAYERS - 1) // 2
    # LEAGUE_COMPLETED goes out once the league is COMPLETED, so it may still be on its way
    records = wait_for(
        lambda: (
            (found := referee.records())
            and any(r["method"] == "notify_league_completed" for r in found)
            and found
        ),
        10,
        "the foreign referee to hear LEAGUE_COMPLETED",
    )
    problems = [(r["method"], r["peer"], r["problems"]) for r in records if r["problems"]]
    assert not problems, f"the foreign referee found problems: {problems}"

    received = Counter(r["method"] for r in records if r["direction"] == "received")
    assert received == {"start_match": status["total_matches"], "notify_league_completed": 1}
    acks = [
        r["response"]["result"]
        for r in records
        if r["direction"] == "received" and r["method"] == "start_match"
    ]
    assert all(ack["message_type"] == "START_MATCH_ACK" and ack["accepted"] for ack in acks)

    sent = [r for r in records if r["direction"] == "sent" and r["peer"] != "league_manager"]
    per_player = Counter((r["peer"], r["method"]) for r in sent)
    for player in (f"P{n:02d}" for n in range(1, PLAYERS + 1)):
        for method in ("handle_game_invitation", "choose_parity", "notify_match_result"):
            assert per_player[(player, method)] == PLAYERS - 1, (
                f"{player} got {per_player[(player, method)]} {method}, not {PLAYERS - 1}"
            )
    for entry in sent:
        if entry["method"] in ANSWERS:
            check_answer(entry)

    reports = [r for r in records if r["method"] == "report_match_result"]
    assert [r["response"]["result"]["status"] for r in reports] == ["RECORDED"] * len(reports)
    earned: Counter[str] = Counter()
    for report in reports:
        earned.update(report["params"]["result"]["score"])
    standings = httpx.get(f"{manager.base_url}/standings", timeout=10).json()["standings"]
    assert {row["player_id"]: row["points"] for row in standings} == earned, (
        "our standings disagree with the foreign referee's reports"
    )
