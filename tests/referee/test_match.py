"""The match state machine against scripted players and a fake League Manager."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import pytest

from games import even_odd
from match_engine.plan import match_seed
from sdk.messages import WinLossRecord
from sdk.store import Journal
from sdk.timeutil import parse_utc
from tests.referee.conftest import (
    LEAGUE_ID,
    FakeLeagueManager,
    MatchHarness,
    ScriptedAgent,
    ScriptedPlayer,
    seed_drawing,
)

EVEN_SEED = seed_drawing("even")
ODD_SEED = seed_drawing("odd")


def methods_sent(record_doc: dict[str, Any], peer: str) -> list[str]:
    return [
        entry["method"]
        for entry in record_doc["transcript"]
        if entry["peer"] == peer and entry["direction"] == "sent"
    ]


def game_errors(player: ScriptedPlayer) -> list[dict[str, Any]]:
    return player.received("notify_game_error")


async def test_a_normal_win_is_announced_recorded_and_reported(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    outcome, record = await harness.run(a, b, seed=EVEN_SEED)
    drawn = even_odd.draw_number(random.Random(EVEN_SEED))

    assert (outcome.status, outcome.winner, outcome.game_result().drawn_number) == (
        "WIN",
        "P01",
        drawn,
    )
    for player in (a, b):
        (game_over,) = player.received("notify_match_result")
        result = game_over["game_result"]
        assert result["status"] == "WIN" and result["winner_player_id"] == "P01"
        assert result["drawn_number"] == drawn and result["number_parity"] == "even"
        assert result["choices"] == {"P01": "even", "P02": "odd"}
        assert game_over["message_type"] == "GAME_OVER"
    (report,) = lm.received("report_match_result")
    assert report["auth_token"] == FakeLeagueManager.TOKEN
    assert report["sender"] == "referee:REF07"
    assert (report["league_id"], report["round_id"], report["match_id"]) == (
        "league_2025_even_odd",
        1,
        "R1M1",
    )
    assert report["result"]["winner"] == "P01"
    assert report["result"]["score"] == {"P01": 3, "P02": 0}
    details = report["result"]["details"]
    assert details["status"] == "WIN" and details["technical_losers"] == []
    assert details["choices"] == {"P01": "even", "P02": "odd"} and details["drawn_number"] == drawn
    assert record.report_status == "reported"
    assert game_errors(a) == [] and game_errors(b) == []


async def test_a_decided_match_is_durable_before_anyone_hears_it_and_its_file_written_once(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    """The decided record is in the referee's decisions journal (synced) before the report
    is sent and before the GAME_OVERs, with no match file yet; the match file is written
    once, after them, with the report's status, and the journal is emptied."""
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    path = harness.shared.match_path(LEAGUE_ID, "R1M1")
    journal = harness.decisions.path
    seen: dict[str, tuple[list[dict[str, Any]], bool]] = {}

    def decided_then(agent: ScriptedAgent, method: str) -> None:
        def answer(params: dict[str, Any]) -> dict[str, Any]:
            seen[agent.agent_id] = (Journal.read(journal), path.exists())
            return type(agent).answer(agent, method, params)

        agent.overrides[method] = answer

    decided_then(lm, "report_match_result")
    decided_then(a, "notify_match_result")
    decided_then(b, "notify_match_result")
    _, record = await harness.run(a, b, seed=EVEN_SEED)

    for agent_id in ("league_manager", "P01", "P02"):
        (document,), file_written = seen[agent_id]
        assert document["lifecycle"][-1]["state"] == "FINISHED", agent_id
        assert document["result"]["report"]["winner"] == "P01", agent_id
        assert document["report_status"] == "pending", agent_id
        assert not file_written, agent_id
    final = harness.match_file(record)
    assert final["report_status"] == "reported"
    assert [entry["method"] for entry in final["transcript"]][-2:] == [
        "notify_match_result",
        "notify_match_result",
    ]
    assert journal.stat().st_size == 0, "every decided record is in its match file now"


async def test_both_right_is_a_draw_worth_a_point_each(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01", "odd"), ScriptedPlayer("P02", "odd")
    outcome, _ = await harness.run(a, b, seed=ODD_SEED)
    assert (outcome.status, outcome.winner) == ("DRAW", None)
    (report,) = lm.received("report_match_result")
    assert report["result"]["winner"] is None
    assert report["result"]["score"] == {"P01": 1, "P02": 1}


async def test_invitation_and_choice_carry_the_protocol_fields(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    standings = (WinLossRecord(wins=2, losses=1, draws=0), WinLossRecord(wins=0, losses=3))
    await harness.run(a, b, standings=standings)
    (invitation,) = b.received("handle_game_invitation")
    assert invitation["role_in_match"] == "PLAYER_B" and invitation["opponent_id"] == "P01"
    assert invitation["conversation_id"] == "league_2025_even_odd:R1M1"
    assert "auth_token" not in invitation, "players never get the referee's token"
    (call,) = a.received("choose_parity")
    assert call["message_type"] == "CHOOSE_PARITY_CALL" and call["player_id"] == "P01"
    assert call["context"] == {
        "opponent_id": "P02",
        "round_id": 1,
        "your_standings": {"wins": 2, "losses": 1, "draws": 0},
    }
    remaining = (parse_utc(call["deadline"]) - parse_utc(call["timestamp"])).total_seconds()
    assert 0 <= remaining <= 1, "deadline = now + the choose_parity timeout (0.2 s here)"


async def test_a_player_that_always_times_out_gets_three_retries_then_a_technical_loss(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    b.fail("choose_parity", "timeout")
    outcome, record = await harness.run(a, b)

    assert (outcome.status, outcome.winner, outcome.technical_losers) == (
        "TECHNICAL_LOSS",
        "P01",
        ["P02"],
    )
    assert len(b.received("choose_parity")) == 4, "one call and three retries"
    errors = game_errors(b)
    assert [(e["retryable"], e["retry_count"], e["error_code"]) for e in errors] == [
        (True, 1, "E001"),
        (True, 2, "E001"),
        (True, 3, "E001"),
        (False, 3, "E001"),
    ]
    assert all(e["max_retries"] == 3 and e["affected_player"] == "P02" for e in errors)
    assert game_errors(a) == []
    order = [name for name, _ in b.calls]
    assert order[:8] == [
        "handle_game_invitation",
        "choose_parity",
        "notify_game_error",
        "choose_parity",
        "notify_game_error",
        "choose_parity",
        "notify_game_error",
        "choose_parity",
    ], "each retry announced first"
    (report,) = lm.received("report_match_result")
    assert report["result"]["winner"] == "P01"
    assert report["result"]["score"] == {"P01": 3, "P02": 0}
    assert report["result"]["details"]["technical_losers"] == ["P02"]
    assert report["result"]["details"]["choices"] == {"P01": "even", "P02": None}
    failed = [e for e in harness.match_file(record)["transcript"] if e["direction"] == "failed"]
    assert len(failed) == 4 and all(e["error"]["code"] == "E001" for e in failed)


async def test_a_connection_error_that_heals_on_retry_changes_nothing(
    harness: MatchHarness,
) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    b.fail("choose_parity", "connect", times=1)
    outcome, _ = await harness.run(a, b, seed=ODD_SEED)
    assert (outcome.status, outcome.winner) == ("WIN", "P02")
    (notice,) = game_errors(b)
    assert (notice["error_code"], notice["retryable"], notice["retry_count"]) == ("E009", True, 1)
    calls = b.received("choose_parity")
    assert len(calls) == 2
    assert parse_utc(calls[1]["deadline"]) >= parse_utc(calls[0]["deadline"]), (
        "a retry carries a fresh deadline"
    )


async def test_an_invalid_parity_is_a_technical_loss_without_retry(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    b.overrides["choose_parity"] = lambda params: {
        **b.answer("choose_parity", params),
        "parity_choice": "EVEN",
    }
    outcome, _ = await harness.run(a, b)
    assert (outcome.status, outcome.winner, outcome.technical_losers) == (
        "TECHNICAL_LOSS",
        "P01",
        ["P02"],
    )
    assert len(b.received("choose_parity")) == 1, "no retry for an invalid answer"
    (notice,) = game_errors(b)
    assert (notice["error_code"], notice["retryable"]) == ("E004", False)
    assert "parity_choice" in notice["error_description"]


async def test_an_answer_missing_a_field_is_a_technical_loss(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")

    def without_choice(params: dict[str, Any]) -> dict[str, Any]:
        answer = a.answer("choose_parity", params)
        del answer["parity_choice"]
        return answer

    a.overrides["choose_parity"] = without_choice
    outcome, _ = await harness.run(a, b)
    assert outcome.technical_losers == ["P01"] and outcome.winner == "P02"
    assert game_errors(a)[0]["error_code"] == "E003"


async def test_a_wrong_match_id_in_the_answer_is_a_technical_loss(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    a.overrides["choose_parity"] = lambda params: {
        **a.answer("choose_parity", params),
        "match_id": "R9M9",
    }
    outcome, _ = await harness.run(a, b)
    assert outcome.technical_losers == ["P01"] and outcome.winner == "P02"
    (notice,) = game_errors(a)
    assert notice["error_code"] == "E002" and "R9M9" in notice["error_description"]


async def test_a_league_error_answer_is_a_technical_loss_at_once(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    a.fail("choose_parity", "league_error")
    outcome, _ = await harness.run(a, b)
    assert outcome.technical_losers == ["P01"]
    assert len(a.received("choose_parity")) == 1


async def test_refusing_the_invitation_loses_before_any_choice(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01", accept=False), ScriptedPlayer("P02")
    outcome, record = await harness.run(a, b)
    assert (outcome.status, outcome.winner, outcome.technical_losers) == (
        "TECHNICAL_LOSS",
        "P02",
        ["P01"],
    )
    assert a.received("choose_parity") == [] and b.received("choose_parity") == []
    states = [step["state"] for step in harness.match_file(record)["lifecycle"]]
    assert states == ["WAITING_FOR_PLAYERS", "FINISHED"]
    assert len(a.received("notify_match_result")) == 1, "the refuser still hears GAME_OVER"
    (report,) = lm.received("report_match_result")
    assert report["result"]["score"] == {"P01": 0, "P02": 3}


async def test_both_players_failing_is_a_technical_loss_for_both(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    a.fail("handle_game_invitation", "connect")
    b.fail("handle_game_invitation", "connect")
    outcome, _ = await harness.run(a, b)
    assert (outcome.status, outcome.winner) == ("TECHNICAL_LOSS", None)
    assert sorted(outcome.technical_losers) == ["P01", "P02"]
    assert len(a.received("handle_game_invitation")) == 4
    (report,) = lm.received("report_match_result")
    assert report["result"]["winner"] is None
    assert report["result"]["score"] == {"P01": 0, "P02": 0}
    assert sorted(report["result"]["details"]["technical_losers"]) == ["P01", "P02"]


async def test_a_failed_game_over_does_not_change_the_result(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    b.fail("notify_match_result", "connect")
    a.fail("notify_match_result", "http500")
    outcome, record = await harness.run(a, b, seed=EVEN_SEED)
    assert (outcome.status, outcome.winner) == ("WIN", "P01")
    assert len(b.received("notify_match_result")) == 4, "a sound player gets the retries"
    (report,) = lm.received("report_match_result")
    assert report["result"]["winner"] == "P01"
    assert record.report_status == "reported"


async def test_no_player_sees_the_other_choice_before_game_over(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    a.fail("choose_parity", "timeout", times=1)
    _, record = await harness.run(a, b)
    for player in (a, b):
        names = [name for name, _ in player.calls]
        assert names[-1] == "notify_match_result", "GAME_OVER comes last"
        for name, params in player.calls[:-1]:
            text = json.dumps(params)
            for secret in ("choices", "parity_choice", "game_result", "drawn_number"):
                assert secret not in text, f"{player.player_id} saw {secret} in {name}"
    transcript = harness.match_file(record)["transcript"]
    received = [
        i
        for i, e in enumerate(transcript)
        if e["direction"] == "received" and e["method"] == "choose_parity"
    ]
    game_over = [
        i
        for i, e in enumerate(transcript)
        if e["direction"] == "sent" and e["method"] == "notify_match_result"
    ]
    assert len(received) == 2 and max(received) < min(game_over)


async def test_the_match_file_holds_lifecycle_transcript_and_result(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    _, record = await harness.run(a, b, seed=EVEN_SEED)
    assert record.path == harness.shared.data_dir / "matches" / "league_2025_even_odd" / "R1M1.json"
    doc = harness.match_file(record)
    assert doc["schema_version"] and doc["last_updated"].endswith("Z")
    assert [s["state"] for s in doc["lifecycle"]] == [
        "WAITING_FOR_PLAYERS",
        "COLLECTING_CHOICES",
        "DRAWING_NUMBER",
        "FINISHED",
    ]
    assert all(s["at"].endswith("Z") for s in doc["lifecycle"])
    assert (doc["match_id"], doc["round_id"], doc["game_type"], doc["referee_id"]) == (
        "R1M1",
        1,
        "even_odd",
        "REF07",
    )
    assert [(p["player_id"], p["role"], p["endpoint"]) for p in doc["players"]] == [
        ("P01", "PLAYER_A", a.endpoint),
        ("P02", "PLAYER_B", b.endpoint),
    ]
    for player in ("P01", "P02"):
        assert methods_sent(doc, player) == [
            "handle_game_invitation",
            "choose_parity",
            "notify_match_result",
        ]
    assert methods_sent(doc, "league_manager") == ["report_match_result"]
    assert len(doc["transcript"]) == 14, "7 requests, 7 answers"
    assert doc["result"]["game_result"]["winner_player_id"] == "P01"
    assert doc["result"]["report"]["score"] == {"P01": 3, "P02": 0}
    assert doc["report_status"] == "reported"
    assert FakeLeagueManager.TOKEN not in record.path.read_text(), "tokens are redacted"


async def test_the_log_has_each_player_call_in_a_short_line_the_match_file_has_it_whole(
    harness: MatchHarness,
) -> None:
    """The match file's transcript holds every message to and from the players whole, so the
    referee's log has each in one short line (type, conversation, method, peer), as the
    copies of a broadcast are: except a refusal, which the log keeps whole as evidence."""
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    a.fail("choose_parity", "league_error")
    _, record = await harness.run(a, b)
    transcript = harness.match_file(record)["transcript"]
    to_players = [e for e in transcript if e.get("peer") in ("P01", "P02")]
    assert all(e["message"]["message_type"] for e in to_players)
    records = [json.loads(line) for line in harness.log.path.read_text().splitlines()]
    calls = [
        r
        for r in records
        if r["event"] in ("message_sent", "message_received")
        and r.get("peer") != harness.lm.endpoint
    ]
    whole = [(r["event"], r["message_type"]) for r in calls if "data" in r]
    assert whole == [("message_received", "LEAGUE_ERROR")], whole
    short = {(r["event"], r["method"]) for r in calls if "data" not in r}
    assert ("message_sent", "handle_game_invitation") in short
    assert ("message_received", "notify_match_result") in short
    assert all(r["message_type"] for r in calls)
    assert len(calls) == len(to_players), "each message once in the log, once in the file"


async def test_an_unreachable_league_manager_leaves_the_result_unreported(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    lm.fail("report_match_result", "connect")
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    outcome, record = await harness.run(a, b, seed=EVEN_SEED)
    assert outcome.winner == "P01"
    assert len(lm.received("report_match_result")) == 4
    doc = harness.match_file(record)
    assert doc["report_status"] == "unreported" and "lm.test" in doc["report_detail"]
    assert doc["result"]["report"]["winner"] == "P01", "the result is kept for later"
    assert "result_unreported" in harness.log.path.read_text()


async def test_a_refused_report_is_marked_rejected(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    lm.fail("report_match_result", "league_error")
    _, record = await harness.run(ScriptedPlayer("P01"), ScriptedPlayer("P02"))
    assert record.report_status == "rejected"
    assert "E012" in harness.match_file(record)["report_detail"]


async def test_a_standalone_match_reports_to_no_one(
    harness: MatchHarness, lm: FakeLeagueManager
) -> None:
    _, record = await harness.run(ScriptedPlayer("P01"), ScriptedPlayer("P02"), report=False)
    assert lm.calls == []
    assert record.report_status == "not_required"


async def test_seeded_matches_draw_the_same_number_every_time(harness: MatchHarness) -> None:
    seed = match_seed(2025, "R1M1")
    assert seed == match_seed(2025, "R1M1") and seed is not None
    assert match_seed(None, "R1M1") is None, "no seed: cryptographic draws"
    first, _ = await harness.run(
        ScriptedPlayer("P01"), ScriptedPlayer("P02"), seed=seed, match_id="R1M1"
    )
    again, _ = await harness.run(
        ScriptedPlayer("P01"), ScriptedPlayer("P02"), seed=seed, match_id="R1M2"
    )
    drawn = first.game_result().drawn_number
    assert drawn == again.game_result().drawn_number
    assert drawn == even_odd.draw_number(random.Random(seed))
    numbers = {even_odd.draw_number(random.Random(match_seed(2025, f"R1M{i}"))) for i in range(40)}
    assert len(numbers) > 5, "each match gets its own seed"


async def test_cancelling_a_match_leaves_it_aborted_on_disk(harness: MatchHarness) -> None:
    a, b = ScriptedPlayer("P01"), ScriptedPlayer("P02")
    harness.network.add(a, b)
    harness.system.timeouts_sec["handle_game_invitation"] = 30
    a.fail("handle_game_invitation", "timeout")
    runner, record = harness.runner(harness.plan(a, b))
    task = asyncio.create_task(runner.run())
    await asyncio.wait_for(a.arrived.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    doc = harness.match_file(record)
    assert [s["state"] for s in doc["lifecycle"]] == ["WAITING_FOR_PLAYERS", "ABORTED"]
    assert doc["report_status"] == "aborted"


# --- what published agents send: lenient and strict leagues ----------------------------------


def bare_answers(player: ScriptedPlayer) -> None:
    """The player answers with only the message's own fields, no envelope."""
    envelope = ("protocol", "message_type", "sender", "timestamp", "conversation_id")
    for method in ("handle_game_invitation", "choose_parity"):

        def strip(params: dict[str, Any], method: str = method) -> dict[str, Any]:
            full = ScriptedPlayer.answer(player, method, params)
            return {k: v for k, v in full.items() if k not in envelope}

        player.overrides[method] = strip


class MessageTypePlayer(ScriptedPlayer):
    """Serves the message_type as the method name, and -32601 to the protocol's names."""

    SPEC = {
        "GAME_INVITATION": "handle_game_invitation",
        "CHOOSE_PARITY_CALL": "choose_parity",
        "GAME_OVER": "notify_match_result",
        "GAME_ERROR": "notify_game_error",
    }

    def __init__(self, player_id: str, choice: Any) -> None:
        super().__init__(player_id, choice)
        self.methods_called: list[str] = []

    async def respond(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.methods_called.append(body["method"])
        if body["method"] not in self.SPEC:
            return httpx.Response(
                200,
                json={
                    "jsonrpc": "2.0",
                    "id": body["id"],
                    "error": {"code": -32601, "message": "Method not found"},
                },
            )
        body["method"] = self.SPEC[body["method"]]
        return await super().respond(httpx.Request("POST", request.url, json=body))


async def test_a_lenient_league_completes_bare_answers_and_notes_them(
    harness: MatchHarness,
) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "odd")
    bare_answers(b)
    outcome, record = await harness.run(a, b, seed=EVEN_SEED)
    assert outcome.winner == "P01" and not outcome.technical_losers
    deviations = harness.match_file(record)["deviations"]
    assert {(d["peer"], d["kind"]) for d in deviations} == {("P02", "missing_envelope_field")}
    assert {d["method"] for d in deviations} == {"handle_game_invitation", "choose_parity"}


async def test_a_strict_league_gives_a_technical_loss_for_a_bare_answer(
    harness: MatchHarness,
) -> None:
    a, b = ScriptedPlayer("P01", "even"), ScriptedPlayer("P02", "even")
    bare_answers(b)
    outcome, record = await harness.run(a, b, seed=EVEN_SEED, protocol_mode="strict")
    assert outcome.winner == "P01" and list(outcome.technical_losers) == ["P02"]
    assert "strict league" in outcome.reason and "has no sender" in outcome.reason
    document = harness.match_file(record)
    assert {d["field"] for d in document["deviations"]} >= {"sender", "timestamp"}


async def test_a_player_serving_message_types_plays_in_a_lenient_league_only(
    harness: MatchHarness,
) -> None:
    a, b = ScriptedPlayer("P01", "even"), MessageTypePlayer("P02", "odd")
    outcome, _ = await harness.run(a, b, seed=EVEN_SEED)
    assert outcome.winner == "P01" and not outcome.technical_losers
    assert b.methods_called == [
        "handle_game_invitation",
        "GAME_INVITATION",
        "choose_parity",
        "CHOOSE_PARITY_CALL",
        "notify_match_result",
        "GAME_OVER",
    ]
    b.methods_called.clear()
    await harness.run(a, b, seed=EVEN_SEED, match_id="R1M2")
    assert b.methods_called == ["GAME_INVITATION", "CHOOSE_PARITY_CALL", "GAME_OVER"], (
        "the names it serves are remembered"
    )

    a2, b2 = ScriptedPlayer("P03", "even"), MessageTypePlayer("P04", "odd")
    strict, _ = await harness.run(a2, b2, seed=EVEN_SEED, match_id="R1M3", protocol_mode="strict")
    assert list(strict.technical_losers) == ["P04"]
    assert (
        b2.methods_called[0] == "handle_game_invitation"
        and "GAME_INVITATION" not in b2.methods_called
    )
