"""Games other than even/odd: one GAME_MOVE_CALL per acting player per stage, over make_move."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from match_engine.outcome import MatchOutcome
from match_engine.remote import RemotePlayers
from match_engine.rules import load_rules
from referee.match import LeagueReport, referee_match
from sdk.messages import Communication, GameMoveResponse, MoveData
from tests.referee.conftest import MatchHarness, ScriptedPlayer


class MovePlayer(ScriptedPlayer):
    """Plays the given moves in order (with what it says, if anything) and keeps every move
    call it received."""

    def __init__(
        self,
        player_id: str,
        moves: list[Any],
        says: list[str | None] | None = None,
        thinks: str | None = None,
    ):
        super().__init__(player_id)
        self.moves = list(moves)
        self.says = list(says or [])
        self.thinks = thinks
        self.move_calls: list[dict[str, Any]] = []

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method != "make_move":
            return super().answer(method, params)
        self.move_calls.append(params)
        return GameMoveResponse(
            sender=f"player:{self.player_id}",
            conversation_id=params["conversation_id"],
            match_id=params["match_id"],
            player_id=self.player_id,
            game_type=params["game_type"],
            move_data=MoveData(
                move_type=params["move_request"]["move_type"],
                move=self.moves.pop(0),
                message=self.says.pop(0) if self.says else None,
                reasoning=self.thinks,
            ),
        ).to_wire()


async def play(
    harness: MatchHarness,
    game_type: str,
    a: MovePlayer,
    b: MovePlayer,
    talk: Communication | None = None,
    **game_params: Any,
) -> tuple[MatchOutcome, dict[str, Any]]:
    harness.network.add(a, b)
    plan = dataclasses.replace(
        harness.plan(a, b),
        game_type=game_type,
        game_params=game_params,
        communication=talk or Communication(),
    )
    record = harness.record_for(plan, report=True)
    runner = referee_match(
        RemotePlayers(
            plan,
            load_rules(harness.shared, game_type),
            client=harness.client,
            system=harness.system,
            log=harness.log,
            record=record,
            sender=harness.SENDER,
        ),
        LeagueReport(harness.lm.endpoint, harness.lm.TOKEN),
    )
    outcome = await asyncio.wait_for(runner.run(), timeout=10)
    return outcome, harness.match_file(record)


async def test_a_repeated_prisoners_dilemma_is_played_stage_by_stage(harness: MatchHarness) -> None:
    a, b = MovePlayer("P01", ["C", "C", "D"]), MovePlayer("P02", ["C", "D", "D"])
    outcome, document = await play(harness, "prisoners_dilemma", a, b, rounds=3)
    assert outcome.payoffs == {"P01": 4.0, "P02": 9.0}, "CC 3/3, CD 0/5, DD 1/1"
    assert outcome.winner == "P02" and outcome.status == "WIN"
    assert [s["moves"] for s in document["stages"]] == [
        {"P01": "C", "P02": "C"},
        {"P01": "C", "P02": "D"},
        {"P01": "D", "P02": "D"},
    ]
    assert [e["state"] for e in document["lifecycle"]] == [
        "WAITING_FOR_PLAYERS",
        "COLLECTING_MOVES",
        "FINISHED",
    ]
    calls = a.move_calls
    assert len(calls) == 3 and calls[0]["move_request"]["valid_options"] == ["C", "D"]
    assert calls[0]["move_request"]["context"]["action_space"] == {
        "kind": "choice",
        "choices": ["C", "D"],
    }
    second = calls[1]["move_request"]["context"]["observation"]
    assert second["history"] and second["rounds_played"] == 1, "round 1 is public history"
    over = [p for m, p in a.calls if m == "notify_match_result"][0]["game_result"]
    assert over["payoffs"] == {"P01": 4.0, "P02": 9.0} and "drawn_number" in over
    report = harness.lm.received("report_match_result")[0]["result"]
    assert report["winner"] == "P02" and report["details"]["payoffs"]["P02"] == 9.0
    assert document["result"]["game_state"]["returns"] == {"P01": 4.0, "P02": 9.0}


async def test_a_move_outside_the_action_space_is_a_technical_loss(harness: MatchHarness) -> None:
    a, b = MovePlayer("P01", ["C"]), MovePlayer("P02", ["cooperate"])
    outcome, document = await play(harness, "prisoners_dilemma", a, b)
    assert outcome.winner == "P01" and list(outcome.technical_losers) == ["P02"]
    assert outcome.faults[0].code == "E007" and "'cooperate'" in outcome.faults[0].description
    assert document["stages"] == [], "an illegal stage is never applied"
    errors = [p for m, p in b.calls if m == "notify_game_error"]
    assert errors and errors[-1]["error_code"] == "E007"


async def test_a_sequential_game_asks_one_player_at_a_time(harness: MatchHarness) -> None:
    proposer, responder = MovePlayer("P01", [3]), MovePlayer("P02", ["accept"])
    outcome, document = await play(harness, "ultimatum", proposer, responder, pie=10)
    assert outcome.payoffs == {"P01": 7.0, "P02": 3.0}
    assert [s["moves"] for s in document["stages"]] == [{"P01": 3}, {"P02": "accept"}]
    assert len(proposer.move_calls) == 1 and len(responder.move_calls) == 1
    offer = responder.move_calls[0]["move_request"]
    assert offer["valid_options"] == ["accept", "reject"]


async def test_messages_are_relayed_next_stage_and_reasoning_never(harness: MatchHarness) -> None:
    a = MovePlayer(
        "P01",
        ["C", "C", "C"],
        says=["let us cooperate", None, "x" * 50],
        thinks="tit for tat, secretly",
    )
    b = MovePlayer("P02", ["C", "D", "D"], says=[None, "sorry"])
    talk = Communication(enabled=True, max_message_chars=20)
    _, document = await play(harness, "prisoners_dilemma", a, b, talk, rounds=3)
    seen_by_b = [call["move_request"]["context"]["messages"] for call in b.move_calls]
    assert seen_by_b[0] == [], "nothing said before the first stage"
    assert [m["text"] for m in seen_by_b[1]] == ["let us cooperate"]
    assert seen_by_b[2] == [], "each message is relayed once"
    seen_by_a = [call["move_request"]["context"]["messages"] for call in a.move_calls]
    assert [m["text"] for m in seen_by_a[2]] == ["sorry"], "no echo of its own words"
    assert "secretly" not in str(b.calls), "reasoning is never relayed"
    stages = document["stages"]
    assert stages[0]["reasoning"] == {"P01": "tit for tat, secretly"}
    assert stages[2]["messages"][0]["text"] == "x" * 20 and stages[2]["messages"][0]["truncated"]
    assert '"player_message"' in harness.log.path.read_text()


async def test_without_talk_nothing_is_relayed_or_recorded(harness: MatchHarness) -> None:
    a = MovePlayer("P01", ["C"], says=["hello"], thinks="plan")
    b = MovePlayer("P02", ["D"])
    _, document = await play(harness, "prisoners_dilemma", a, b)
    assert "messages" not in b.move_calls[0]["move_request"]["context"]
    assert "messages" not in document["stages"][0] and "reasoning" not in document["stages"][0]
