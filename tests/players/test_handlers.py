"""Every JSON-RPC method of the player, over HTTP in-process."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from players.history import journal_path
from tests.players import scripted
from tests.players.conftest import (
    LEAGUE,
    Player,
    SettingsFactory,
    game_over,
    invitation,
    league_message,
    move_call,
    parity_call,
    serving,
)

WIRE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def log_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_invitation_is_accepted_and_remembered(player: Player) -> None:
    ack = await player.rpc("handle_game_invitation", invitation())

    assert ack["message_type"] == "GAME_JOIN_ACK"
    assert (ack["match_id"], ack["player_id"], ack["accept"]) == ("R1M1", "P01", True)
    assert ack["sender"] == "player:P01" and ack["conversation_id"] == "conv-R1M1"
    assert WIRE_TIME.match(ack["arrival_timestamp"]), ack["arrival_timestamp"]
    status = await player.get("/status")
    assert status["state"] == "ACTIVE"
    [match] = status["current_matches"]
    assert (match["match_id"], match["opponent_id"], match["role"], match["round_id"]) == (
        "R1M1",
        "P02",
        "PLAYER_A",
        1,
    )


async def test_invitation_to_a_game_it_cannot_play_is_declined(player: Player) -> None:
    ack = await player.rpc("handle_game_invitation", invitation(game_type="chess"))

    assert ack["accept"] is False
    assert (await player.get("/status"))["current_matches"] == []


async def test_choose_parity_answers_with_the_configured_strategy(player: Player) -> None:
    answer = await player.rpc("choose_parity", parity_call())

    assert answer["message_type"] == "CHOOSE_PARITY_RESPONSE"
    assert (answer["match_id"], answer["player_id"], answer["parity_choice"]) == (
        "R1M1",
        "P01",
        "odd",
    )
    assert answer["league_id"] == LEAGUE
    stats = await player.get("/stats")
    assert (stats["decisions"], stats["choices"], stats["fallbacks"]) == (1, {"odd": 1}, 0)
    assert stats["average_decision_ms"] >= 0


async def test_the_strategy_sees_invitation_call_and_history(
    make_settings: SettingsFactory,
) -> None:
    settings = make_settings(strategy="tests.players.scripted:RecordingStrategy")
    async with serving(settings) as player:
        await player.rpc("handle_game_invitation", invitation("R1M1"))
        await player.rpc("choose_parity", parity_call("R1M1"))
        await player.rpc("notify_match_result", game_over("R1M1"))
        await player.rpc("handle_game_invitation", invitation("R2M1", role_in_match="PLAYER_B"))
        await player.rpc("choose_parity", parity_call("R2M1"))
        strategy = player.host.runner.strategy

    assert isinstance(strategy, scripted.RecordingStrategy)
    assert strategy.resets == 1, "reset() is called once at start-up"
    first, second = strategy.views
    assert (first.player_id, first.opponent_id, first.role, first.round_id) == (
        "P01",
        "P02",
        "PLAYER_A",
        1,
    )
    assert first.legal_moves == ("even", "odd")
    assert (first.my_record.wins, first.my_record.losses, first.my_record.draws) == (2, 1, 0)
    assert first.history == () and second.role == "PLAYER_B"
    [past] = second.history
    assert (past.match_id, past.my_choice, past.opponent_choice, past.outcome) == (
        "R1M1",
        "odd",
        "even",
        "WIN",
    )
    assert strategy.results == [past], "on_match_over gets the record just added"


@pytest.mark.parametrize(
    ("strategy", "reason"),
    [
        ("tests.players.scripted:IllegalStrategy", "illegal"),
        ("tests.players.scripted:RaisingStrategy", "raised"),
        ("tests.players.scripted:SlowStrategy", "timeout"),
    ],
)
async def test_a_faulty_strategy_falls_back_to_a_legal_move(
    make_settings: SettingsFactory, release_slow_strategy: None, strategy: str, reason: str
) -> None:
    settings = make_settings(strategy=strategy, decision_margin_sec=0.1)
    async with serving(settings) as player:
        answer = await player.rpc("choose_parity", parity_call(deadline_in=0.3))
        stats = await player.get("/stats")
        log_path = player.host.log.path

    assert answer["message_type"] == "CHOOSE_PARITY_RESPONSE"
    assert answer["parity_choice"] in ("even", "odd")
    assert (stats["fallbacks"], stats["fallbacks_by_reason"]) == (1, {reason: 1})
    fallbacks = [e for e in log_events(log_path) if e["event"] == "strategy_fallback"]
    assert [e["reason"] for e in fallbacks] == [reason]


async def test_a_call_for_another_player_is_refused(player: Player) -> None:
    answer = await player.rpc("choose_parity", parity_call(player_id="P09"))

    assert answer["message_type"] == "LEAGUE_ERROR"
    assert answer["error_code"] == "E005"
    assert "P01" in answer["error_description"] and "P09" in answer["error_description"]
    assert answer["original_message_type"] == "CHOOSE_PARITY_CALL"
    assert (await player.get("/stats"))["decisions"] == 0


async def test_an_invitation_naming_another_player_is_refused(player: Player) -> None:
    answer = await player.rpc("handle_game_invitation", invitation(player_id="P09"))

    assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", "E005")
    assert (await player.get("/status"))["current_matches"] == []


async def test_a_player_without_an_id_adopts_the_first_one_it_is_called_by(
    make_settings: SettingsFactory,
) -> None:
    settings = make_settings(player_id=None)
    async with serving(settings) as player:
        assert player.host.sender == "player:Alice"
        answer = await player.rpc("choose_parity", parity_call(player_id="P07"))
        refused = await player.rpc("choose_parity", parity_call(player_id="P08"))
        log_path = player.host.log.path

    assert (answer["player_id"], answer["sender"]) == ("P07", "player:P07")
    assert refused["error_code"] == "E005"
    assert log_path == settings.shared_dir / "logs" / "agents" / "P07.log.jsonl"
    assert any(e["event"] == "identity_taken" for e in log_events(log_path))


async def test_a_malformed_call_gets_the_protocols_error_code(player: Player) -> None:
    call = parity_call()
    del call["deadline"]

    answer = await player.rpc("choose_parity", call)

    assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", "E003")
    assert "deadline" in answer["error_description"]


async def test_game_over_is_journaled_and_the_history_file_written_when_the_player_stops(
    make_settings: SettingsFactory,
) -> None:
    async with serving(
        make_settings(strategy="fixed", strategy_options={"choice": "odd"})
    ) as player:
        await player.rpc("handle_game_invitation", invitation())
        await player.rpc("choose_parity", parity_call())

        ack = await player.rpc("notify_match_result", game_over())

        assert (ack["message_type"], ack["acknowledged"]) == ("ACK", "GAME_OVER")
        path = player.host.shared.player_history_path("P01")
        [journaled] = [json.loads(line) for line in journal_path(path).read_text().splitlines()]
        assert not path.exists(), "a match costs one appended line, not a rewrite"
        served = await player.get("/history")
        stats = await player.get("/stats")
        assert (stats["played"], stats["wins"], stats["win_rate"]) == (1, 1, 1.0)
        assert (await player.get("/status"))["current_matches"] == []

    document = json.loads(path.read_text())
    assert document["schema_version"] == "1.0.0" and WIRE_TIME.match(document["last_updated"])
    assert (document["player_id"], document["display_name"], document["strategy"]) == (
        "P01",
        "Alice",
        "fixed",
    )
    [match] = document["matches"]
    assert (
        match
        == journaled
        == {
            "match_id": "R1M1",
            "league_id": LEAGUE,
            "round_id": 1,
            "opponent_id": "P02",
            "role": "PLAYER_A",
            "my_choice": "odd",
            "opponent_choice": "even",
            "drawn_number": 7,
            "status": "WIN",
            "winner_player_id": "P01",
            "outcome": "WIN",
            "at": match["at"],
        }
    )
    assert document["totals"] == {
        "played": 1,
        "wins": 1,
        "draws": 0,
        "losses": 0,
        "technical_losses": 0,
    }
    assert served["matches"] == document["matches"] and served["totals"] == document["totals"]
    assert [p.name for p in path.parent.iterdir()] == ["history.json"], (
        "the journal is folded in, no temp file left"
    )


async def test_a_crashing_hook_does_not_stop_the_acknowledgement(
    make_settings: SettingsFactory,
) -> None:
    settings = make_settings(strategy="tests.players.scripted:BrokenHookStrategy")
    async with serving(settings) as player:
        ack = await player.rpc("notify_match_result", game_over())
        stats = await player.get("/stats")
        log_path = player.host.log.path

    assert ack["message_type"] == "ACK" and stats["played"] == 1
    [failure] = [e for e in log_events(log_path) if e["event"] == "strategy_hook_failed"]
    assert failure["hook"] == "on_match_over" and "a bug in the hook" in failure["exception"]


async def test_a_repeated_game_over_is_counted_once(player: Player) -> None:
    await player.rpc("notify_match_result", game_over())
    again = await player.rpc("notify_match_result", game_over())

    assert again["message_type"] == "ACK"
    assert (await player.get("/stats"))["played"] == 1


async def test_a_game_over_between_other_players_is_refused(player: Player) -> None:
    answer = await player.rpc(
        "notify_match_result", game_over(choices={"P03": "odd", "P04": "even"}, winner="P03")
    )

    assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", "E005")
    assert (await player.get("/stats"))["played"] == 0


ROUND_MATCH = {
    "match_id": "R1M1",
    "game_type": "even_odd",
    "player_A_id": "P01",
    "player_B_id": "P02",
    "referee_endpoint": "http://127.0.0.1:8001/mcp",
}


@pytest.mark.parametrize(
    ("method", "message_type", "fields", "status_key", "expected"),
    [
        (
            "notify_round",
            "ROUND_ANNOUNCEMENT",
            {"round_id": 1, "matches": [ROUND_MATCH]},
            "current_round",
            1,
        ),
        (
            "update_standings",
            "LEAGUE_STANDINGS_UPDATE",
            {"round_id": 1, "standings": [{"rank": 1, "player_id": "P01", "points": 3, "wins": 1}]},
            "standings_round",
            1,
        ),
        (
            "notify_round_completed",
            "ROUND_COMPLETED",
            {"round_id": 1, "matches_completed": 2, "next_round_id": 2},
            "next_round",
            2,
        ),
        (
            "notify_league_completed",
            "LEAGUE_COMPLETED",
            {
                "total_rounds": 3,
                "total_matches": 6,
                "champion": {"player_id": "P01", "display_name": "Alice", "points": 9},
                "final_standings": [{"rank": 1, "player_id": "P01", "points": 9}],
            },
            "state",
            "SHUTDOWN",
        ),
        (
            "notify_game_error",
            "GAME_ERROR",
            {
                "match_id": "R1M1",
                "error_code": "E001",
                "error_description": "no answer in 30 s",
                "affected_player": "P01",
                "action_required": "answer choose_parity",
                "retryable": True,
                "retry_count": 1,
                "max_retries": 3,
                "consequence": "retry",
            },
            "recent_errors",
            None,
        ),
    ],
)
async def test_notifications_are_acknowledged_and_kept(
    player: Player,
    method: str,
    message_type: str,
    fields: dict[str, Any],
    status_key: str,
    expected: Any,
) -> None:
    ack = await player.rpc(method, league_message(message_type, **fields))

    assert (ack["message_type"], ack["acknowledged"]) == ("ACK", message_type)
    assert ack["conversation_id"] == f"conv-{message_type.lower()}"
    status = await player.get("/status")
    if status_key == "recent_errors":
        [error] = status["recent_errors"]
        assert (error["error_code"], error["retry_count"]) == ("E001", 1)
    else:
        assert status[status_key] == expected


async def test_the_lifecycle_follows_the_league(player: Player) -> None:
    states = [(await player.get("/status"))["state"]]
    await player.rpc(
        "notify_round", league_message("ROUND_ANNOUNCEMENT", round_id=1, matches=[ROUND_MATCH])
    )
    states.append((await player.get("/status"))["state"])
    await player.rpc(
        "notify_league_completed",
        league_message("LEAGUE_COMPLETED", total_rounds=1, total_matches=1, final_standings=[]),
    )
    status = await player.get("/status")
    states.append(status["state"])
    ack = await player.rpc("handle_game_invitation", invitation("R9M1"))

    assert states == ["INIT", "ACTIVE", "SHUTDOWN"]
    assert ack["accept"] is True, "a player past SHUTDOWN still answers until stopped"
    assert (await player.get("/status"))["state"] == "SHUTDOWN"
    assert (await player.get("/health"))["status"] == "ok"


async def test_get_player_state_returns_state_stats_and_history(player: Player) -> None:
    await player.rpc("notify_match_result", game_over())

    answer = await player.rpc("get_player_state", {"conversation_id": "debug-1"})

    assert (answer["message_type"], answer["sender"], answer["conversation_id"]) == (
        "PLAYER_STATE",
        "player:P01",
        "debug-1",
    )
    assert answer["status"]["player_id"] == "P01"
    assert answer["stats"]["played"] == 1
    assert [m["match_id"] for m in answer["history"]["matches"]] == ["R1M1"]


async def test_make_move_answers_any_game_from_its_action_space(
    make_settings: SettingsFactory,
) -> None:
    async with serving(make_settings(strategy="random")) as player:
        choice = await player.rpc(
            "make_move", move_call({"kind": "choice", "choices": ["C", "D"]}, ["C", "D"])
        )
        assert choice["message_type"] == "GAME_MOVE_RESPONSE"
        assert choice["move_data"]["move_type"] == "action"
        assert choice["move_data"]["move"] in ("C", "D")
        bid_space = {"kind": "number", "low": 0, "high": 100, "integer": True}
        bid = await player.rpc(
            "make_move", move_call(bid_space, [bid_space], "auction_first_price", "R1M2")
        )
        assert isinstance(bid["move_data"]["move"], int) and 0 <= bid["move_data"]["move"] <= 100
        troops = {"kind": "allocation", "size": 3, "total": 10}
        split = await player.rpc("make_move", move_call(troops, [troops], "colonel_blotto", "R1M3"))
        assert sum(split["move_data"]["move"]) == 10 and len(split["move_data"]["move"]) == 3
        assert (await player.get("/stats"))["fallbacks"] == 0


async def test_make_move_never_sends_an_illegal_move(make_settings: SettingsFactory) -> None:
    async with serving(make_settings(strategy="fixed")) as player:  # plays "even" everywhere
        answer = await player.rpc(
            "make_move", move_call({"kind": "choice", "choices": ["C", "D"]}, ["C", "D"])
        )
        assert answer["move_data"]["move"] in ("C", "D")
        stats = await player.get("/stats")
        assert stats["fallbacks"] == 1 and stats["fallbacks_by_reason"] == {"illegal": 1}


async def test_make_move_is_also_served_as_game_move_call(make_settings: SettingsFactory) -> None:
    async with serving(make_settings(strategy="random")) as player:
        answer = await player.rpc(
            "GAME_MOVE_CALL", move_call({"kind": "choice", "choices": ["C", "D"]}, ["C", "D"])
        )
        assert answer["message_type"] == "GAME_MOVE_RESPONSE"


def pd_call(history: list[dict[str, Any]], match_id: str = "R1M1") -> dict[str, Any]:
    call = move_call({"kind": "choice", "choices": ["C", "D"]}, ["C", "D"], match_id=match_id)
    call["move_request"]["context"]["observation"] = {
        "player_id": "P01",
        "seat": 0,
        "round": len(history) + 1,
        "history": history,
    }
    return call


def turn(mine: str, theirs: str) -> dict[str, Any]:
    return {"actions": {"P01": mine, "P02": theirs}, "rewards": {}, "own_intended": mine}


@pytest.mark.parametrize(
    ("strategy", "history", "expected"),
    [
        ("tit_for_tat", [], "C"),
        ("tit_for_tat", [turn("C", "D")], "D"),
        ("tit_for_tat", [turn("C", "D"), turn("D", "C")], "C"),
        ("grim_trigger", [turn("C", "D"), turn("D", "C")], "D"),
        ("always_defect", [], "D"),
        ("pavlov", [turn("D", "D")], "C"),
    ],
)
async def test_the_games_baselines_play_from_the_referee_s_observation(
    make_settings: SettingsFactory, strategy: str, history: list[dict[str, Any]], expected: str
) -> None:
    async with serving(make_settings(strategy=strategy)) as player:
        answer = await player.rpc("make_move", pd_call(history))
        assert answer["move_data"]["move"] == expected
        assert (await player.get("/stats"))["fallbacks"] == 0


async def test_a_baseline_in_a_game_it_does_not_play_falls_back_legally(
    make_settings: SettingsFactory,
) -> None:
    async with serving(make_settings(strategy="tit_for_tat")) as player:
        bid_space = {"kind": "number", "low": 0, "high": 10, "integer": True}
        answer = await player.rpc(
            "make_move", move_call(bid_space, [bid_space], "auction_first_price")
        )
        assert 0 <= answer["move_data"]["move"] <= 10
        assert (await player.get("/stats"))["fallbacks_by_reason"] == {"raised": 1}


def public_goods_call(space: dict[str, Any], revealed: dict[str, int] | None) -> dict[str, Any]:
    call = move_call(space, [space], "public_goods")
    call["move_request"]["context"]["observation"] = {
        "player_id": "P01",
        "seat": 0,
        "players": ["P01", "P02", "P03"],
        "endowment": 20,
        "stage": "contribute" if revealed is None else "punish",
        "revealed_contributions": revealed,
        "history": [
            {"contributions": {"P01": 20, "P02": 4, "P03": 9}, "punishments": None, "payoffs": {}}
        ],
    }
    return call


@pytest.mark.parametrize(
    ("strategy", "space", "revealed", "expected"),
    [
        # The others gave 4 and 9 last round: 6.5, rounded half up.
        (
            "conditional_cooperator",
            {"kind": "number", "low": 0, "high": 20, "integer": True},
            None,
            7,
        ),
        ("full_contributor", {"kind": "number", "low": 0, "high": 20, "integer": True}, None, 20),
        (
            "punisher",
            {"kind": "allocation", "size": 3, "total": 10},
            {"P01": 20, "P02": 3, "P03": 20},
            [0, 10, 0],
        ),
    ],
)
async def test_observation_baselines_play_public_goods_from_the_referee_s_observation(
    make_settings: SettingsFactory,
    strategy: str,
    space: dict[str, Any],
    revealed: dict[str, int] | None,
    expected: Any,
) -> None:
    async with serving(make_settings(strategy=strategy)) as player:
        answer = await player.rpc("make_move", public_goods_call(space, revealed))
        assert answer["move_data"]["move"] == expected
        assert (await player.get("/stats"))["fallbacks"] == 0


async def test_a_strategy_can_talk_and_hear_when_the_league_lets_it(
    make_settings: SettingsFactory,
) -> None:
    async with serving(make_settings(strategy="tests.players.scripted:talker")) as player:
        call = pd_call([])
        call["move_request"]["context"]["messages"] = [
            {"player_id": "P02", "stage": 1, "text": "let us cooperate", "truncated": False}
        ]
        answer = await player.rpc("make_move", call)
        assert answer["move_data"] == {
            "move_type": "action",
            "move": "C",
            "message": "heard: let us cooperate",
            "reasoning": "be nice first",
        }
