"""Judging a player's answers to bad input: what passes, what is a tolerated variation
(WARN, FAIL under --strict) and what fails in both modes (a crash, garbage, silence)."""

from __future__ import annotations

from league_cli.conformance.answers import AnswerKind, describe, kind_of
from league_cli.conformance.probe import Exchange
from league_cli.conformance.report import Recorder

__all__ = ["any_answer", "crashed", "refusal", "unknown_method", "wrong_match", "wrong_player"]

_REFUSALS = {
    "bad_input.unknown_method": "the JSON-RPC error -32601 Method not found",
    "bad_input.params_array": "an error (JSON-RPC -32602 Invalid params is the right one)",
    "bad_input.missing_fields": "an error (LEAGUE_ERROR E003 is the right one)",
    "bad_input.wrong_match": "a refusal, or an answer for that very match",
    "bad_input.wrong_player": "a refusal (LEAGUE_ERROR E005): the call is for another player",
}
"""What each bad input should get; a check not listed here takes any proper answer."""
_ANY_ANSWER = "a proper JSON-RPC answer: a result, a LEAGUE_ERROR or an error"


def crashed(recorder: Recorder, check: str, exchange: Exchange) -> bool:
    """FAIL ``check`` if the answer is a crash, garbage or nothing; True if so."""
    if kind_of(exchange) in (AnswerKind.RESULT, AnswerKind.LEAGUE_ERROR, AnswerKind.RPC_ERROR):
        return False
    recorder.failed(
        check,
        f"{describe(exchange)}: a player must answer bad input with an "
        "error, not crash or stay silent",
        latency_ms=exchange.latency_ms,
        evidence=exchange.evidence(),
        field="answer",
        expected=_REFUSALS.get(check, _ANY_ANSWER),
        got=describe(exchange),
    )
    return True


def unknown_method(recorder: Recorder, exchange: Exchange) -> None:
    """bad_input.unknown_method: JSON-RPC's -32601 is the answer."""
    check = "bad_input.unknown_method"
    if crashed(recorder, check, exchange):
        return
    error = exchange.error
    expected = _REFUSALS[check]
    if error is not None and error.get("code") == -32601:
        recorder.passed(check, "answered JSON-RPC -32601 Method not found")
    elif kind_of(exchange) == AnswerKind.RESULT:
        recorder.tolerated(
            check,
            f"answered an unknown method with {describe(exchange)}; JSON-RPC wants error -32601",
            evidence=exchange.evidence(),
            field="error",
            expected=expected,
            got=describe(exchange),
        )
    else:
        recorder.tolerated(
            check,
            f"refused with {describe(exchange)}; JSON-RPC wants error -32601 Method not found",
            evidence=exchange.evidence(),
            field="error.code",
            expected=expected,
            got=error.get("code") if error is not None else describe(exchange),
        )


def refusal(recorder: Recorder, check: str, exchange: Exchange) -> None:
    """Malformed params: any error or LEAGUE_ERROR passes; an answer is tolerated."""
    if crashed(recorder, check, exchange):
        return
    if kind_of(exchange) == AnswerKind.RESULT:
        recorder.tolerated(
            check,
            f"answered malformed params with {describe(exchange)}, as if the call were valid",
            evidence=exchange.evidence(),
            field="error",
            expected=_REFUSALS[check],
            got=describe(exchange),
        )
    else:
        recorder.passed(check, f"refused with {describe(exchange)}")


def wrong_match(recorder: Recorder, exchange: Exchange, match_id: str) -> None:
    """A move for a match never announced: refused, or answered for that very match."""
    check = "bad_input.wrong_match"
    if crashed(recorder, check, exchange):
        return
    result = exchange.result
    if kind_of(exchange) != AnswerKind.RESULT:
        recorder.passed(check, f"refused with {describe(exchange)}")
    elif isinstance(result, dict) and result.get("match_id") == match_id:
        recorder.passed(check, f"answered the move of {match_id}, echoing its match_id")
    else:
        got = result.get("match_id") if isinstance(result, dict) else None
        recorder.failed(
            check,
            f"answered a move for {match_id} with match_id {got!r}",
            evidence=exchange.evidence(),
            field="match_id",
            expected=f"{match_id}, the call's (or a refusal)",
            got=got,
        )


def wrong_player(recorder: Recorder, exchange: Exchange, other_id: str) -> None:
    """A move addressed to another player: a refusal passes; an answer is a WARN in both
    modes (the protocol does not require the refusal)."""
    check = "bad_input.wrong_player"
    if crashed(recorder, check, exchange):
        return
    if kind_of(exchange) == AnswerKind.RESULT:
        recorder.warned(
            check,
            f"answered a move addressed to {other_id}; refusing it "
            "(LEAGUE_ERROR E005) keeps a misrouted call from being played",
            evidence=exchange.evidence(),
            field="player_id",
            expected=_REFUSALS[check],
            got=describe(exchange),
        )
    else:
        recorder.passed(check, f"refused with {describe(exchange)}")


def any_answer(recorder: Recorder, check: str, exchange: Exchange) -> None:
    """A token the player need not check: any proper answer passes."""
    if not crashed(recorder, check, exchange):
        recorder.passed(check, f"answered with {describe(exchange)}")
