"""The calls of ``check-player`` off a match's path: the bad input (each answer judged by
``bad_input``) and the optional get_player_state."""

from __future__ import annotations

from typing import Any

from league_cli.conformance import bad_input
from league_cli.conformance.answers import AnswerKind, describe, kind_of
from league_cli.conformance.player_calls import PlayerCalls
from league_cli.conformance.player_messages import LeagueSide, MatchPlan, RefereeSide, Table
from sdk.auth import issue_token
from sdk.messages import Method
from sdk.timeutil import utc_now_str

__all__ = ["ask_player_state", "send_bad_input"]


async def send_bad_input(
    calls: PlayerCalls,
    referee: RefereeSide,
    league: LeagueSide,
    table: Table,
    *,
    run_id: str,
    opponent_id: str,
    last_round: int,
) -> None:
    """Every bad_input check, on a match never announced (R99M9)."""
    recorder = calls.recorder
    player_id = referee.player_id
    spare = MatchPlan(
        match_id="R99M9",
        round_id=99,
        conversation_id=f"conformance-{run_id}-R99M9",
        role="PLAYER_A",
        opponent_id=opponent_id,
    )
    timeout = calls.system.timeout_for(Method.CHOOSE_PARITY)
    record = table.record(player_id)

    unknown = {
        **referee.envelope(spare),
        "protocol": "league.v2",
        "message_type": "CONFORMANCE_PROBE",
        "timestamp": utc_now_str(),
    }
    exchange = await calls.call("conformance_no_such_method", unknown, aliases=False)
    if exchange is not None:
        bad_input.unknown_method(recorder, exchange)

    exchange = await calls.call(Method.CHOOSE_PARITY, [referee.move_call(spare, timeout, record)])
    if exchange is not None:
        bad_input.refusal(recorder, "bad_input.params_array", exchange)

    partial = referee.move_call(spare, timeout, record)
    for name in ("match_id", "player_id", "context", "deadline"):
        partial.pop(name)
    exchange = await calls.call(Method.CHOOSE_PARITY, partial)
    if exchange is not None:
        bad_input.refusal(recorder, "bad_input.missing_fields", exchange)

    exchange = await calls.call(Method.CHOOSE_PARITY, referee.move_call(spare, timeout, record))
    if exchange is not None:
        bad_input.wrong_match(recorder, exchange, spare.match_id)

    other_id = next(f"P{n}" for n in range(77, 100) if f"P{n}" != player_id)
    addressed = referee.move_call(spare, timeout, record)
    addressed["player_id"] = other_id
    exchange = await calls.call(Method.CHOOSE_PARITY, addressed)
    if exchange is not None:
        bad_input.wrong_player(recorder, exchange, other_id)

    for check, token in (
        ("bad_input.auth_missing", None),
        ("bad_input.auth_wrong", "expired-" + issue_token(16)),
    ):
        exchange = await calls.call(
            Method.UPDATE_STANDINGS, league.standings_update(last_round, table, token=token)
        )
        if exchange is not None:
            bad_input.any_answer(recorder, check, exchange)


async def ask_player_state(calls: PlayerCalls, league: LeagueSide, *, run_id: str) -> None:
    """player_state.answer: optional, so never worse than a WARN. Asked as the League
    Manager asks, with its proof (a player that requires a token has one)."""
    params: dict[str, Any] = {
        **league.envelope(f"state-{run_id}"),
        "protocol": "league.v2",
        "timestamp": utc_now_str(),
    }
    exchange = await calls.call(Method.GET_PLAYER_STATE, params)
    if exchange is None:
        return
    kind = kind_of(exchange)
    check = "player_state.answer"
    if kind == AnswerKind.RESULT:
        calls.recorder.passed(
            check, f"answered with {describe(exchange)}", latency_ms=exchange.latency_ms
        )
    elif exchange.error is not None and exchange.error.get("code") == -32601:
        calls.recorder.warned(
            check,
            "not served (optional: a debugging tool)",
            field="method",
            expected=f"{Method.GET_PLAYER_STATE} served (optional)",
            got=describe(exchange),
        )
    else:
        calls.recorder.warned(
            check,
            f"optional, but answered {describe(exchange)}",
            evidence=exchange.evidence(),
            field="result",
            expected="a JSON-RPC result (the player's state)",
            got=describe(exchange),
        )
