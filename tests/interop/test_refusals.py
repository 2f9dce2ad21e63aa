"""What the protocol forbids stays refused, whatever the league tolerates: a foreign player
that chooses "EVEN" or stamps its move with a local offset loses that match by technical
loss (the match file names why, and the player is told with GAME_ERROR), and a request to
our League Manager without its sender's token, or with a wrong one, is refused (E011, E012).
"""

from __future__ import annotations

import json

import pytest

from tests.interop.harness import LEAGUE, Agents, league_query, rpc, start_our_league
from tests.match_files import match_files

pytestmark = pytest.mark.e2e

REFUSED = {
    # style: (error code, the field the refusal names)
    "upper_parity": ("E004", "parity_choice"),
    "local_offset": ("E021", "timestamp"),
}


def test_a_forbidden_move_is_a_technical_loss(agents: Agents) -> None:
    manager = agents.our_manager()
    referee = agents.our_referee(manager.mcp_url)
    ours = agents.our_player(manager.mcp_url, "Ours")
    foreign = {style: agents.foreign_player(manager.mcp_url, style, style) for style in REFUSED}
    for process in (referee, ours):
        agents.ours.wait_healthy(process)
    ids = {}
    for style, agent in foreign.items():
        assert agents.wait_registered(agent) == "ACCEPTED", f"{style} was not registered"
        ids[style] = agent.health()["player_id"]
    status = start_our_league(agents, manager, referees=1, players=1 + len(foreign))
    assert status["matches_completed"] == status["total_matches"] == 3
    matches = match_files(agents.shared, LEAGUE)

    for style, (code, field) in REFUSED.items():
        player = ids[style]
        played = [
            match for match in matches if player in [seat["player_id"] for seat in match["players"]]
        ]
        assert len(played) == 2, f"{style} played {len(played)} matches, not 2"
        for match in played:
            where = f"{style} ({player}) in {match['match_id']}"
            details = match["result"]["report"]["details"]
            assert player in details["technical_losers"], f"{where} kept the match: {details}"
            assert match["result"]["game_result"]["status"] == "TECHNICAL_LOSS", where
            assert f"{player}: " in details["reason"] and field in details["reason"], (
                f"{where}: the reason does not name {field}: {details['reason']}"
            )
            refused = [
                entry["message"]["error_code"]
                for entry in match["transcript"]
                if entry["peer"] == player
                and entry["direction"] == "sent"
                and entry["method"] == "notify_game_error"
            ]
            assert refused == [code], f"{where}: GAME_ERROR codes {refused}, not [{code}]"
        told = [
            record["params"]
            for record in foreign[style].records()
            if record["method"] == "notify_game_error"
        ]
        assert sorted(error["match_id"] for error in told) == sorted(
            match["match_id"] for match in played
        ), f"{style} was not told of each loss"
        assert {error["error_code"] for error in told} == {code}, told


def test_a_request_without_its_token_is_refused(agents: Agents) -> None:
    manager = agents.our_manager()
    player = agents.foreign_player(manager.mcp_url, "Asker")
    assert agents.wait_registered(player) == "ACCEPTED"
    sender = f"player:{player.health()['player_id']}"
    issued = next(record for record in player.records() if record["direction"] == "sent")[
        "response"
    ]["result"]["auth_token"]

    answers = {
        "without": rpc(manager.mcp_url, "league_query", league_query(sender))["result"],
        "wrong": rpc(
            manager.mcp_url, "league_query", league_query(sender, auth_token=issued[::-1])
        )["result"],
        "right": rpc(manager.mcp_url, "league_query", league_query(sender, auth_token=issued))[
            "result"
        ],
    }
    assert (answers["without"]["message_type"], answers["without"]["error_code"]) == (
        "LEAGUE_ERROR",
        "E011",
    ), answers["without"]
    assert (answers["wrong"]["message_type"], answers["wrong"]["error_code"]) == (
        "LEAGUE_ERROR",
        "E012",
    ), answers["wrong"]
    assert (answers["right"]["message_type"], answers["right"]["success"]) == (
        "LEAGUE_QUERY_RESPONSE",
        True,
    ), answers["right"]


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_a_basic_form_timestamp_is_taken_or_refused_naming_it(agents: Agents, mode: str) -> None:
    """ISO-8601's basic form is ISO-8601: a lenient league answers; a strict one refuses it
    with E021, naming the field and the protocol's form."""
    config = agents.shared.root / "config" / "leagues" / f"{LEAGUE}.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "protocol_mode": mode}))
    manager = agents.our_manager()
    player = agents.foreign_player(manager.mcp_url, "Asker")
    assert agents.wait_registered(player) == "ACCEPTED"
    issued = next(record for record in player.records() if record["direction"] == "sent")[
        "response"
    ]["result"]
    query = {
        **league_query(f"player:{issued['player_id']}", auth_token=issued["auth_token"]),
        "timestamp": "20261121T041449Z",
    }
    answer = rpc(manager.mcp_url, "league_query", query)["result"]
    if mode == "lenient":
        assert (answer["message_type"], answer["success"]) == ("LEAGUE_QUERY_RESPONSE", True)
        return
    assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", "E021"), answer
    assert answer["error_description"].startswith("strict league: timestamp '20261121T041449Z'")
    assert "YYYY-MM-DDTHH:MM:SS" in answer["error_description"]
    assert [d["field"] for d in answer["context"]["deviations"]] == ["timestamp"]
