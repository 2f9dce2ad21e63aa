"""Judging an answer: what kind of JSON-RPC answer it is, its framing, its league.v2
envelope and its own fields (validated with the SDK's message models)."""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from pydantic import ValidationError

from league_cli.conformance.probe import Exchange
from league_cli.conformance.report import Finding, Recorder
from sdk.messages import PROTOCOL, Message
from sdk.rpc_wire import answer_id_mismatch
from sdk.timeutil import PROTOCOL_TIMESTAMP_FORM, parse_utc, protocol_form
from sdk.tolerance import ENVELOPE_FIELDS, Deviation, answer_defaults, repair
from sdk.variants import is_league_manager

__all__ = [
    "ENVELOPE_CHECKS",
    "AnswerKind",
    "describe",
    "judge_envelope",
    "judge_first_contact",
    "judge_framing",
    "kind_of",
    "missing_envelope",
    "problem_finding",
    "read_answer",
    "read_message",
]

ENVELOPE_CHECKS: dict[str, str] = {
    "jsonrpc.framing": 'every answer is a JSON-RPC 2.0 response object: "jsonrpc": "2.0", '
    "the request's id, exactly one of result and error",
    "envelope.fields": "every message judged (an answer; for check-league also each "
    "notification) carries every envelope field: protocol, message_type, "
    "sender, timestamp, conversation_id",
    "envelope.protocol": 'protocol is exactly "league.v2"',
    "envelope.message_type": "message_type is exactly the type the method answers with",
    "envelope.sender": "sender names the answering agent in the protocol's form",
    "envelope.timestamp": "timestamp is ISO-8601 in UTC (Z or +00:00)",
    "envelope.conversation_id": "the conversation_id of an answer echoes the request's",
}


class AnswerKind(str, Enum):
    RESULT = "result"
    LEAGUE_ERROR = "league_error"
    RPC_ERROR = "rpc_error"
    HTTP_ERROR = "http_error"
    NOT_JSON = "not_json"
    MALFORMED = "malformed"
    NO_ANSWER = "no_answer"


def kind_of(exchange: Exchange) -> AnswerKind:
    """Classify an exchange: a crash (HTTP 5xx), garbage, an error, or a result."""
    if not exchange.answered:
        return AnswerKind.NO_ANSWER
    status = exchange.http_status or 0
    if status >= 500:
        return AnswerKind.HTTP_ERROR
    if exchange.text is not None:
        return AnswerKind.NOT_JSON
    body = exchange.body
    if not isinstance(body, dict):
        return AnswerKind.HTTP_ERROR if status >= 400 else AnswerKind.MALFORMED
    if exchange.error is not None:
        return AnswerKind.RPC_ERROR
    if "result" not in body:
        return AnswerKind.HTTP_ERROR if status >= 400 else AnswerKind.MALFORMED
    if exchange.league_error is not None:
        return AnswerKind.LEAGUE_ERROR
    return AnswerKind.RESULT


def describe(exchange: Exchange) -> str:
    """The answer in a few words, for a report's reason."""
    kind = kind_of(exchange)
    if kind == AnswerKind.NO_ANSWER:
        return f"no answer ({exchange.detail})"
    if kind == AnswerKind.HTTP_ERROR:
        return f"HTTP {exchange.http_status} without a JSON-RPC answer"
    if kind == AnswerKind.NOT_JSON:
        return f"HTTP {exchange.http_status} with a body that is not JSON"
    if kind == AnswerKind.MALFORMED:
        if exchange.body is None:
            return f"HTTP {exchange.http_status} with an empty body"
        return "JSON that is neither a JSON-RPC result nor an error"
    if kind == AnswerKind.RPC_ERROR:
        error = exchange.error or {}
        return f"JSON-RPC error {error.get('code')} {error.get('message', '')!s}".rstrip()
    if kind == AnswerKind.LEAGUE_ERROR:
        error = exchange.league_error or {}
        return (
            f"LEAGUE_ERROR {error.get('error_code')}: {error.get('error_description', '')}"
        ).rstrip(": ")
    result = exchange.result
    if isinstance(result, dict):
        return f"a result ({result.get('message_type') or 'no message_type'})"
    return f"a result that is not an object ({type(result).__name__})"


def judge_first_contact(recorder: Recorder, exchange: Exchange, *, who: str, url: str) -> bool:
    """transport.reachable, from the answer to the first call to ``who`` at ``url``; False
    when nothing could be reached there at all (the run stops)."""
    if exchange.failure is None:
        recorder.passed(
            "transport.reachable",
            f"answered the first call ({exchange.method}) with HTTP {exchange.http_status}",
            latency_ms=exchange.latency_ms,
        )
        return True
    unreachable = exchange.failure in ("connect", "invalid_url")
    recorder.failed(
        "transport.reachable",
        f"{exchange.detail}; is {who} running, and is this its /mcp URL?"
        if unreachable
        else f"the first call got no answer: {exchange.detail}",
        evidence=exchange.evidence(),
        field="url" if unreachable else "answer",
        expected=f"an HTTP answer to POST {url}",
        got=exchange.detail,
    )
    return not unreachable


def judge_framing(recorder: Recorder, exchange: Exchange) -> None:
    """jsonrpc.framing, for any answer that is a JSON object. Ids as numbers or strings and
    ``"error": null`` beside a result are valid JSON-RPC and pass in both modes; another
    request's id fails in both, as our agents never take such an answer."""
    body = exchange.body
    if not exchange.answered or not isinstance(body, dict):
        return
    request_id = exchange.request.get("id") if isinstance(exchange.request, dict) else None
    mismatch = answer_id_mismatch(body, request_id) if isinstance(request_id, int) else None
    if mismatch is not None:
        recorder.failed(
            "jsonrpc.framing",
            f"{exchange.method}: an answer with {mismatch}; a "
            "referee or League Manager never takes it (E009, as if none came)",
            evidence=exchange.evidence(),
            field="id",
            expected=f"the request's id, {request_id}",
            got=body.get("id"),
        )
        return
    problems: dict[str, str] = {}
    if body.get("jsonrpc") != "2.0":
        problems["jsonrpc"] = f'"jsonrpc" is {body.get("jsonrpc")!r}, not "2.0"'
    if "id" not in body:
        problems["id"] = 'no "id"'
    if "result" in body and body.get("error") is not None:
        problems["error"] = 'both a "result" and an "error"'
    if problems:
        recorder.tolerated(
            "jsonrpc.framing",
            f"{exchange.method}: " + "; ".join(problems.values()),
            evidence=exchange.evidence(),
            field=", ".join(problems),
            expected='"jsonrpc": "2.0", the request\'s id, a result or an error (not both)',
            got={name: body.get(name, "absent") for name in problems},
        )
    else:
        recorder.passed("jsonrpc.framing", "well-formed JSON-RPC 2.0 answers")


def problem_finding(
    problems: list[str], message: dict[str, Any], *, expected: str, evidence: dict[str, Any]
) -> Finding:
    """What a list of ``field: what`` problems of ``message`` is about: the fields they name
    (each once, in order) and what ``message`` holds in each (None where nothing: a missing
    token must not look like one)."""
    names = list(dict.fromkeys(problem.split(":", 1)[0].split(" ", 1)[0] for problem in problems))
    return Finding(
        field=", ".join(names),
        expected=expected,
        got={name: _held(message, name) for name in names},
        evidence=evidence,
    )


def _held(message: Any, path: str) -> Any:
    """The value at a dotted ``path`` of ``message`` (``context.round_id``), or None."""
    for part in path.split("."):
        if isinstance(message, dict):
            message = message.get(part)
        elif isinstance(message, list) and part.isdigit() and int(part) < len(message):
            message = message[int(part)]
        else:
            return None
    return message


def missing_envelope(deviations: list[Deviation]) -> list[str]:
    """The envelope fields the SDK had to fill in (``sdk.tolerance.repair``)."""
    return [d.field or "?" for d in deviations if d.kind == "missing_envelope_field"]


def judge_envelope(
    recorder: Recorder,
    message: dict[str, Any],
    *,
    where: str,
    evidence: dict[str, Any],
    expected_type: str | None,
    expected_sender: str,
    sender_role: str | None = None,
    conversation_id: str | None = None,
    missing: list[str] | None = None,
) -> None:
    """The envelope of ``message``: ``missing`` fields (None: not judged, as for an
    acknowledgement, which may have any shape) are tolerated (WARN, FAIL under --strict,
    as a lenient league repairs them and a strict one refuses them); each field present
    must be right, in both modes.

    ``expected_type`` None means any type will do. ``sender_role`` (``"player:"``) lets a
    sender of the right role but another id pass with a WARN.
    """
    if missing:
        recorder.tolerated(
            "envelope.fields",
            f"{where}: the message has no "
            f"{', '.join(missing)} (a lenient league fills them in, a strict "
            "one refuses the message with E003)",
            evidence=evidence,
            field=", ".join(missing),
            expected="present in every message",
            got="absent",
        )
    elif missing is not None:
        recorder.passed("envelope.fields", "every envelope field is present")
    if message.get("protocol") not in (None, ""):
        if message["protocol"] == PROTOCOL:
            recorder.passed("envelope.protocol", f"protocol is {PROTOCOL}")
        else:
            recorder.failed(
                "envelope.protocol",
                f"{where}: protocol is {message['protocol']!r}, "
                f"not {PROTOCOL!r} (refused with E018)",
                evidence=evidence,
                field="protocol",
                expected=PROTOCOL,
                got=message["protocol"],
            )
    if message.get("message_type") not in (None, "") and expected_type is not None:
        if message["message_type"] == expected_type:
            recorder.passed("envelope.message_type", "message_type is the method's")
        else:
            recorder.failed(
                "envelope.message_type",
                f"{where}: message_type is {message['message_type']!r}, not "
                f"{expected_type!r} (refused with E016)",
                evidence=evidence,
                field="message_type",
                expected=expected_type,
                got=message["message_type"],
            )
    if message.get("sender") not in (None, ""):
        _judge_sender(recorder, message["sender"], where, expected_sender, sender_role, evidence)
    if message.get("timestamp") not in (None, ""):
        stamp = message["timestamp"]
        try:
            if not isinstance(stamp, str):
                raise ValueError(f"{stamp!r} is not text")
            parse_utc(stamp)
        except ValueError as exc:
            recorder.failed(
                "envelope.timestamp",
                f"{where}: timestamp {stamp!r} is not ISO-8601 in UTC: {exc} (refused with E021)",
                evidence=evidence,
                field="timestamp",
                expected=f"ISO-8601 in UTC, best {PROTOCOL_TIMESTAMP_FORM}",
                got=stamp,
            )
        else:
            if protocol_form(stamp):
                recorder.passed("envelope.timestamp", "timestamps are ISO-8601 in UTC")
            else:
                recorder.tolerated(
                    "envelope.timestamp",
                    f"{where}: timestamp {stamp!r} is "
                    "ISO-8601 in UTC in another form than the protocol's, "
                    f"{PROTOCOL_TIMESTAMP_FORM} (a lenient league takes it, a "
                    "strict one refuses it with E021)",
                    evidence=evidence,
                    field="timestamp",
                    expected=PROTOCOL_TIMESTAMP_FORM,
                    got=stamp,
                )
    if message.get("conversation_id") not in (None, "") and conversation_id is not None:
        if message["conversation_id"] == conversation_id:
            recorder.passed("envelope.conversation_id", "conversation_id echoes the request's")
        else:
            recorder.tolerated(
                "envelope.conversation_id",
                f"{where}: conversation_id is {message['conversation_id']!r}, "
                f"the request's was {conversation_id!r}",
                evidence=evidence,
                field="conversation_id",
                expected=conversation_id,
                got=message["conversation_id"],
            )


def _judge_sender(
    recorder: Recorder,
    sender: Any,
    where: str,
    expected: str,
    role: str | None,
    evidence: dict[str, Any],
) -> None:
    if sender == expected:
        recorder.passed("envelope.sender", f"sender is {expected}")
    elif not isinstance(sender, str):
        recorder.failed(
            "envelope.sender",
            f"{where}: sender {sender!r} is not a string",
            evidence=evidence,
            field="sender",
            expected=expected,
            got=sender,
        )
    elif role is not None and sender.startswith(role) and len(sender) > len(role):
        recorder.warned(
            "envelope.sender",
            f"{where}: sender is {sender!r}; it was addressed as {expected!r}",
            evidence=evidence,
            field="sender",
            expected=expected,
            got=sender,
        )
    elif is_league_manager(sender) and is_league_manager(expected):
        recorder.tolerated(
            "envelope.sender",
            f"{where}: sender is {sender!r}, the League "
            f"Manager's other form; this league's is {expected!r} "
            "(league_manager_sender: a lenient league takes both, a strict one "
            "refuses the other with E002)",
            evidence=evidence,
            field="sender",
            expected=expected,
            got=sender,
        )
    else:
        recorder.tolerated(
            "envelope.sender",
            f"{where}: sender is {sender!r}, not in the protocol's form {expected!r}",
            evidence=evidence,
            field="sender",
            expected=expected,
            got=sender,
        )


_M = TypeVar("_M", bound=Message)


def read_message(
    model: type[_M], message: dict[str, Any], defaults: dict[str, Any]
) -> tuple[_M | None, list[str], list[Deviation]]:
    """Read ``message`` as a lenient league does (``sdk.tolerance.repair``: missing envelope
    fields from ``defaults``, variant names, extras noted), then validate its own fields with
    the SDK model, the envelope taken from ``defaults`` (the envelope is judged on its own,
    so a wrong sender does not hide a bad parity).

    Returns the message (None if invalid), every problem as ``field: what``, and the repairs.
    """
    fixed, deviations = repair(model, message, defaults)
    envelope = {name: defaults[name] for name in ENVELOPE_FIELDS if name in defaults}
    try:
        return model.from_wire({**fixed, **envelope}), [], deviations
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            where = ".".join(str(part) for part in error["loc"]) or "message"
            shown = "" if error["type"] == "missing" else f" (got {error.get('input')!r})"
            problems.append(f"{where}: {error['msg']}{shown}")
        return None, problems, deviations


def read_answer(
    model: type[_M], message: dict[str, Any], *, sender: str, conversation_id: str
) -> tuple[_M | None, list[str], list[Deviation]]:
    """``read_message`` for an answer: its envelope defaults are the exchange's, as our
    referee takes them (``sdk.tolerance.answer_defaults``)."""
    return read_message(
        model, message, answer_defaults(model, sender=sender, conversation_id=conversation_id)
    )
