"""The JSON-RPC 2.0 mount: the specification's examples, LEAGUE_ERROR answers, the agent log."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import given
from hypothesis import strategies as st

from sdk.agent_log import AgentLog
from sdk.config import HttpConfig
from sdk.errors import ErrorCode, ProtocolError
from sdk.examples import example
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.messages import (
    Acknowledgement,
    ChooseParityCall,
    ChooseParityResponse,
    Message,
    RoundAnnouncement,
)
from sdk.service_app import ServiceApp
from sdk.tolerance import ProtocolMode

SECRET_DETAIL = "database password is hunter2"
MAX_BODY = 4096
LIMITS = HttpConfig(max_body_bytes=MAX_BODY, max_batch=8, max_json_depth=8)


class Service:
    """A tiny agent: what its handlers saw, so tests can check notifications ran."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.mode: ProtocolMode = "lenient"

    async def choose_parity(self, call: ChooseParityCall) -> Message:
        self.seen.append(call)
        return ChooseParityResponse(
            sender=f"player:{call.player_id}",
            conversation_id=call.conversation_id,
            match_id=call.match_id,
            player_id=call.player_id,
            parity_choice="even",
        )

    async def notify_round(self, announcement: RoundAnnouncement) -> Message:
        self.seen.append(announcement)
        return Acknowledgement(
            sender="player:P01",
            conversation_id=announcement.conversation_id,
            acknowledged=announcement.message_type,
        )

    async def raw(self, params: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(params)
        return {"echo": params}

    async def huge(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"value": 2**70}

    async def refuse(self, params: dict[str, Any]) -> Message:
        raise ProtocolError(
            ErrorCode.NOT_AUTHORIZED, "players may not report results", {"player_id": "P01"}
        )

    async def explode(self, params: dict[str, Any]) -> Message:
        raise RuntimeError(SECRET_DETAIL)


@pytest.fixture
def service() -> Service:
    return Service()


@pytest.fixture
def agent_log(tmp_path: Path) -> Iterator[AgentLog]:
    log = AgentLog(tmp_path / "logs" / "agents" / "P01.log.jsonl", "P01")
    yield log
    log.close()


@pytest.fixture
async def client(service: Service, agent_log: AgentLog) -> AsyncIterator[httpx.AsyncClient]:
    endpoint = JsonRpcEndpoint(
        {
            "choose_parity": RpcMethod(service.choose_parity, ChooseParityCall),
            "notify_round": RpcMethod(service.notify_round, RoundAnnouncement),
            "broadcast_round": RpcMethod(service.notify_round, RoundAnnouncement, broadcast=True),
            "raw": RpcMethod(service.raw),
            "refuse": RpcMethod(service.refuse),
            "huge": RpcMethod(service.huge),
            "explode": RpcMethod(service.explode),
        },
        sender=lambda: "player:P01",
        log=agent_log,
        limits=LIMITS,
        mode=lambda: service.mode,
    )
    app = ServiceApp()
    endpoint.mount(app)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def post(client: httpx.AsyncClient, body: Any) -> httpx.Response:
    content = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return await client.post("/mcp", content=content, headers={"content-type": "application/json"})


async def answer(client: httpx.AsyncClient, body: Any) -> Any:
    response = await post(client, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    return response.json()


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        body["params"] = params
    if request_id is not None:
        body["id"] = request_id
    return body


def error_code(reply: dict[str, Any]) -> int:
    assert reply["jsonrpc"] == "2.0"
    assert "result" not in reply
    return int(reply["error"]["code"])


def log_records(log: AgentLog) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.path.read_text().splitlines()]


# --- success --------------------------------------------------------------------------------


async def test_a_valid_call_answers_with_the_handlers_message(
    client: httpx.AsyncClient, service: Service
) -> None:
    reply = await answer(client, request("choose_parity", example("CHOOSE_PARITY_CALL"), 7))
    assert reply["id"] == 7 and "error" not in reply
    result = reply["result"]
    assert result["message_type"] == "CHOOSE_PARITY_RESPONSE"
    assert result["parity_choice"] == "even"
    assert result["conversation_id"] == "conv-001"
    assert isinstance(service.seen[0], ChooseParityCall)


async def test_a_method_without_model_gets_the_raw_params(
    client: httpx.AsyncClient, service: Service
) -> None:
    reply = await answer(client, request("raw", {"anything": [1, 2]}, "req-1"))
    assert reply == {"jsonrpc": "2.0", "result": {"echo": {"anything": [1, 2]}}, "id": "req-1"}
    assert service.seen == [{"anything": [1, 2]}]


# --- transport faults: JSON-RPC's own codes -------------------------------------------------


async def test_invalid_json_is_a_parse_error_with_null_id(client: httpx.AsyncClient) -> None:
    reply = await answer(client, '{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]')
    assert error_code(reply) == -32700
    assert reply["id"] is None


async def test_a_body_that_is_not_utf8_is_a_parse_error(client: httpx.AsyncClient) -> None:
    reply = await answer(client, b'{"jsonrpc": "2.0", "method": "r\xffaw", "id": 1}')
    assert error_code(reply) == -32700
    assert reply["id"] is None


@pytest.mark.parametrize(
    ("body", "expected_id"),
    [
        (1, None),
        ('"a string"', None),
        ({"jsonrpc": "2.0", "method": 1, "params": "bar"}, None),
        ({"jsonrpc": "2.0", "params": {}, "id": 3}, 3),
        ({"jsonrpc": "1.0", "method": "raw", "params": {}, "id": "x"}, "x"),
        ({"method": "raw", "params": {}, "id": 4}, 4),
    ],
    ids=["number", "string", "method-not-string", "no-method", "jsonrpc-1.0", "no-jsonrpc"],
)
async def test_an_invalid_request_is_32600(
    client: httpx.AsyncClient, body: Any, expected_id: Any
) -> None:
    reply = await answer(client, json.dumps(body) if not isinstance(body, str) else body)
    assert error_code(reply) == -32600
    assert reply["id"] == expected_id


async def test_an_empty_batch_is_one_invalid_request(client: httpx.AsyncClient) -> None:
    reply = await answer(client, "[]")
    assert isinstance(reply, dict)
    assert error_code(reply) == -32600


@pytest.mark.parametrize("batch", [[1], [1, 2, 3]])
async def test_a_batch_of_invalid_elements_gets_one_error_each(
    client: httpx.AsyncClient, batch: list[int]
) -> None:
    reply = await answer(client, batch)
    assert isinstance(reply, list) and len(reply) == len(batch)
    assert [error_code(item) for item in reply] == [-32600] * len(batch)
    assert all(item["id"] is None for item in reply)


async def test_a_nested_batch_is_an_invalid_element(client: httpx.AsyncClient) -> None:
    reply = await answer(client, [[request("raw", {}, 1)], request("raw", {}, 2)])
    assert isinstance(reply, list) and len(reply) == 2
    by_id = {item["id"]: item for item in reply}
    assert error_code(by_id[None]) == -32600
    assert by_id[2]["result"] == {"echo": {}}


async def test_a_mixed_batch_answers_all_but_the_notifications(
    client: httpx.AsyncClient, service: Service
) -> None:
    batch = [
        request("raw", {"n": 1}, "1"),
        request("raw", {"n": "notification"}, None),
        request("raw", {"n": 2}, "2"),
        {"foo": "boo"},
        request("foo.get", {"name": "myself"}, "5"),
        request("notify_round", example("ROUND_ANNOUNCEMENT"), None),
    ]
    reply = await answer(client, batch)
    assert isinstance(reply, list)
    by_id = {item["id"]: item for item in reply}
    assert sorted(by_id, key=str) == sorted(["1", "2", "5", None], key=str)
    assert by_id["1"]["result"] == {"echo": {"n": 1}}
    assert by_id["2"]["result"] == {"echo": {"n": 2}}
    assert error_code(by_id[None]) == -32600
    assert error_code(by_id["5"]) == -32601
    assert {"n": "notification"} in service.seen, "a notification must still be handled"
    assert any(isinstance(item, RoundAnnouncement) for item in service.seen)


async def test_a_batch_of_notifications_gets_204_and_no_body(
    client: httpx.AsyncClient, service: Service
) -> None:
    response = await post(client, [request("raw", {"n": 1}, None), request("raw", {"n": 2}, None)])
    assert response.status_code == 204
    assert response.content == b""
    assert sorted(item["n"] for item in service.seen) == [1, 2]


async def test_a_single_notification_gets_204_and_no_body(
    client: httpx.AsyncClient, service: Service
) -> None:
    response = await post(client, request("notify_round", example("ROUND_ANNOUNCEMENT"), None))
    assert response.status_code == 204
    assert response.content == b""
    assert len(service.seen) == 1


@pytest.mark.parametrize("request_id", [42, "abc-42"])
async def test_an_unknown_method_is_32601_with_the_id_echoed(
    client: httpx.AsyncClient, request_id: Any
) -> None:
    reply = await answer(client, request("no_such_method", {}, request_id))
    assert error_code(reply) == -32601
    assert reply["id"] == request_id


async def test_params_as_an_array_are_32602(client: httpx.AsyncClient, service: Service) -> None:
    reply = await answer(client, request("choose_parity", [1, 2], 9))
    assert error_code(reply) == -32602
    assert reply["id"] == 9
    assert service.seen == []


async def test_an_oversized_body_is_413_with_a_jsonrpc_error(client: httpx.AsyncClient) -> None:
    params = example("CHOOSE_PARITY_CALL", padding="x" * MAX_BODY)
    response = await post(client, request("choose_parity", params))
    assert response.status_code == 413
    reply = response.json()
    assert error_code(reply) == -32600
    assert str(MAX_BODY) in reply["error"]["data"]


async def test_an_oversized_body_sent_in_chunks_is_413_too(client: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(MAX_BODY // 1024 + 2):
            yield b" " * 1024

    response = await client.post("/mcp", content=chunks())
    assert response.status_code == 413
    assert error_code(response.json()) == -32600


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b'{"jsonrpc": "2.0", "method": "raw", "params": {"a": "\\ud800"}, "id": 1}', "surrogate"),
        (b'{"jsonrpc": "2.0", "method": "raw", "params": {"a": NaN}, "id": 1}', "character"),
        (b'{"jsonrpc": "2.0", "method": "raw", "id": 1e400}', "infinity"),
        (b'{"jsonrpc": "2.0", "method": "raw", "id": ' + b"9" * 1000 + b"}", "infinity"),
        (b"[" * 1500 + b"]" * 1500, "depth"),
        (b"\xef\xbb\xbf{}", "BOM"),
    ],
    ids=["lone-surrogate", "nan", "number-beyond-double", "1000-digits", "1500-deep", "bom"],
)
async def test_json_we_could_not_log_or_answer_is_a_parse_error(
    client: httpx.AsyncClient, service: Service, body: bytes, named: str
) -> None:
    reply = await answer(client, body)
    assert error_code(reply) == -32700 and reply["id"] is None
    assert named in reply["error"]["data"]
    assert service.seen == []


async def test_a_body_nested_past_the_limit_is_32600(
    client: httpx.AsyncClient, service: Service
) -> None:
    params: dict[str, Any] = {}
    for _ in range(LIMITS.max_json_depth - 1):  # with the request object: one level too many
        params = {"a": params}
    reply = await answer(client, request("raw", params, 3))
    assert error_code(reply) == -32600 and reply["id"] is None
    assert f"more than {LIMITS.max_json_depth} levels" in reply["error"]["data"]
    assert service.seen == []
    within = await answer(client, request("raw", params["a"], 4))
    assert within["result"] == {"echo": params["a"]}


async def test_a_batch_at_the_limit_is_answered_in_full(client: httpx.AsyncClient) -> None:
    reply = await answer(client, [request("raw", {"n": n}, n) for n in range(LIMITS.max_batch)])
    assert [item["result"]["echo"]["n"] for item in reply] == list(range(LIMITS.max_batch))


async def test_a_batch_over_the_limit_is_refused_whole(
    client: httpx.AsyncClient, service: Service
) -> None:
    size = LIMITS.max_batch + 1
    reply = await answer(client, [request("raw", {"n": n}, None) for n in range(size)])
    assert isinstance(reply, dict) and error_code(reply) == -32600 and reply["id"] is None
    assert f"at most {LIMITS.max_batch} requests" in reply["error"]["data"]
    assert f"this one holds {size}" in reply["error"]["data"]
    assert service.seen == [], "no request of a refused batch is handled, notifications neither"


async def test_a_boolean_id_is_not_echoed(client: httpx.AsyncClient) -> None:
    reply = await answer(client, {"jsonrpc": "2.0", "method": "raw", "id": True})
    assert error_code(reply) == -32600 and reply["id"] is None


async def test_a_failure_outside_the_handler_is_32603_without_its_details(
    client: httpx.AsyncClient, agent_log: AgentLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_log(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(SECRET_DETAIL)

    monkeypatch.setattr(agent_log, "message", broken_log)
    reply = await answer(client, request("choose_parity", example("CHOOSE_PARITY_CALL"), 6))
    assert error_code(reply) == -32603 and reply["id"] == 6
    assert SECRET_DETAIL not in json.dumps(reply)
    assert reply["error"]["data"].startswith("E020")


async def test_an_unexpected_failure_is_32603_without_its_details(
    client: httpx.AsyncClient, agent_log: AgentLog
) -> None:
    reply = await answer(client, request("explode", {"conversation_id": "c9"}, 5))
    assert error_code(reply) == -32603
    assert reply["id"] == 5
    assert SECRET_DETAIL not in json.dumps(reply)
    assert "RuntimeError" not in json.dumps(reply)
    failures = [r for r in log_records(agent_log) if r["event"] == "handler_failed"]
    assert len(failures) == 1 and SECRET_DETAIL in failures[0]["exception"], (
        "the details belong in the agent's own log"
    )


# --- league-level refusals: LEAGUE_ERROR inside the result ----------------------------------


async def test_a_message_that_fails_validation_gets_league_error(
    client: httpx.AsyncClient, service: Service
) -> None:
    params = example("CHOOSE_PARITY_CALL", conversation_id="conv-77")
    params["context"] = {"round_id": 1}
    reply = await answer(client, request("choose_parity", params, 11))
    assert reply["id"] == 11 and "error" not in reply
    result = reply["result"]
    assert result["message_type"] == "LEAGUE_ERROR"
    assert result["error_code"] == ErrorCode.MISSING_REQUIRED_FIELD.value
    assert "context.opponent_id" in result["error_description"]
    assert "CHOOSE_PARITY_CALL" in result["error_description"]
    assert result["conversation_id"] == "conv-77"
    assert result["original_message_type"] == "CHOOSE_PARITY_CALL"
    assert result["sender"] == "player:P01"
    assert result["protocol"] == "league.v2"
    assert service.seen == [], "the handler must not see an invalid message"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"protocol": "league.v1"}, ErrorCode.PROTOCOL_VERSION_MISMATCH),
        ({"timestamp": "2025-01-15T10:30:00+03:00"}, ErrorCode.INVALID_TIMESTAMP),
        ({"message_type": "GAME_OVER"}, ErrorCode.MESSAGE_TYPE_MISMATCH),
        ({"round_id": "first"}, ErrorCode.INVALID_FIELD_VALUE),
    ],
)
async def test_validation_codes_reach_the_caller(
    client: httpx.AsyncClient, change: dict[str, Any], code: ErrorCode
) -> None:
    params = example("CHOOSE_PARITY_CALL", **change)
    result = (await answer(client, request("choose_parity", params)))["result"]
    assert result["message_type"] == "LEAGUE_ERROR"
    assert result["error_code"] == code.value


async def test_missing_params_are_a_league_error_not_a_crash(client: httpx.AsyncClient) -> None:
    result = (await answer(client, request("choose_parity")))["result"]
    assert result["error_code"] == ErrorCode.MISSING_REQUIRED_FIELD.value
    assert result["conversation_id"] == "none"
    assert "match_id" in result["error_description"]
    assert "deadline" in result["error_description"]


async def test_a_protocol_error_from_a_handler_is_a_league_error(
    client: httpx.AsyncClient,
) -> None:
    params = example("MATCH_RESULT_REPORT", conversation_id="conv-5")
    result = (await answer(client, request("refuse", params, 3)))["result"]
    assert result["message_type"] == "LEAGUE_ERROR"
    assert result["error_code"] == ErrorCode.NOT_AUTHORIZED.value
    assert result["error_description"] == "players may not report results"
    assert result["context"] == {"player_id": "P01"}
    assert result["conversation_id"] == "conv-5"
    assert result["original_message_type"] == "MATCH_RESULT_REPORT"


# --- the agent log --------------------------------------------------------------------------


async def test_every_message_received_and_sent_is_logged(
    client: httpx.AsyncClient, agent_log: AgentLog
) -> None:
    await answer(client, request("choose_parity", example("CHOOSE_PARITY_CALL")))
    bad = example("CHOOSE_PARITY_CALL", conversation_id="conv-bad", protocol="league.v1")
    await answer(client, request("choose_parity", bad))
    traffic = [
        (r["event"], r["message_type"], r["conversation_id"], r["method"])
        for r in log_records(agent_log)
        if r["event"] in ("message_received", "message_sent")
    ]
    assert traffic == [
        ("message_received", "CHOOSE_PARITY_CALL", "conv-001", "choose_parity"),
        ("message_sent", "CHOOSE_PARITY_RESPONSE", "conv-001", "choose_parity"),
        ("message_received", "CHOOSE_PARITY_CALL", "conv-bad", "choose_parity"),
        ("message_sent", "LEAGUE_ERROR", "conv-bad", "choose_parity"),
    ]
    for record in log_records(agent_log):
        assert record["agent_id"] == "P01"
        assert record["level"] == "info"
        assert record["timestamp"].endswith("Z")


async def test_a_broadcast_copy_is_logged_in_one_short_line_each_way_unless_refused(
    client: httpx.AsyncClient, agent_log: AgentLog
) -> None:
    announcement = example("ROUND_ANNOUNCEMENT", auth_token="proof-of-the-league-manager-0001")
    await answer(client, request("broadcast_round", announcement))
    bad = {**announcement, "conversation_id": "conv-bad", "round_id": "first"}
    await answer(client, request("broadcast_round", bad))
    traffic = [r for r in log_records(agent_log) if r["event"].startswith("message_")]
    assert [(r["event"], r["message_type"], r["conversation_id"]) for r in traffic] == [
        ("message_received", "ROUND_ANNOUNCEMENT", announcement["conversation_id"]),
        ("message_sent", "ACK", announcement["conversation_id"]),
        ("message_received", "ROUND_ANNOUNCEMENT", "conv-bad"),
        ("message_sent", "LEAGUE_ERROR", "conv-bad"),
    ]
    assert all("data" not in r for r in traffic[:3]), "the copies' data is not logged"
    assert "round_id" in traffic[3]["data"]["error_description"], "a refusal says why, whole"
    assert "proof-of-the-league-manager" not in agent_log.path.read_text()


async def test_a_batchs_broadcast_copies_are_named_in_one_line_and_a_refused_one_counted(
    client: httpx.AsyncClient, agent_log: AgentLog
) -> None:
    announcement = example("ROUND_ANNOUNCEMENT", auth_token="proof-of-the-league-manager-0001")
    second = {**announcement, "conversation_id": "conv-second"}
    bad = {**announcement, "conversation_id": "conv-bad", "round_id": "first"}
    batch = [
        request("broadcast_round", announcement, 1),
        request("broadcast_round", bad, 2),
        request("broadcast_round", second, 3),
    ]
    answers = {a["id"]: a["result"] for a in await answer(client, batch)}
    assert answers[1]["message_type"] == answers[3]["message_type"] == "ACK"
    assert answers[2]["message_type"] == "LEAGUE_ERROR"
    records = log_records(agent_log)
    assert not [r for r in records if r["event"].startswith("message_")], "no line per copy"
    (named,) = [r for r in records if r["event"] == "broadcasts_answered"]
    assert named["messages"] == [
        {
            "method": "broadcast_round",
            "message_type": "ROUND_ANNOUNCEMENT",
            "conversation_id": conversation,
        }
        for conversation in (announcement["conversation_id"], "conv-second")
    ]
    (summary,) = [r for r in records if r["event"] == "batch_summary"]
    assert summary["refused"] == {f"broadcast_round:{answers[2]['error_code']}": 1}
    assert "proof-of-the-league-manager" not in agent_log.path.read_text()


# --- the request check agrees with jsonrpcserver's JSON Schema -------------------------------

_json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_request_like = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2.0]) | _json_scalars,
        "method": st.text(max_size=8) | _json_scalars,
        "params": _json_values,
        "id": _json_values,
        "extra": _json_values,
    },
)


@given(_request_like | _json_values)
def test_the_request_check_agrees_with_the_jsonrpc_schema(candidate: object) -> None:
    import warnings

    from sdk.jsonrpc_shapes import is_request

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from jsonrpcserver.main import default_validator
    try:
        default_validator(candidate)
        schema_says = isinstance(candidate, dict)  # a batch is split before this check
    except Exception:
        schema_says = False
    assert is_request(candidate) == schema_says, candidate


# --- what agents in the wild send: lenient and strict leagues --------------------------------


def bare(message_type: str) -> dict[str, Any]:
    """A sample message with its envelope stripped, as some published agents send it."""
    envelope = ("protocol", "message_type", "sender", "timestamp", "conversation_id")
    return {k: v for k, v in example(message_type).items() if k not in envelope}


def logged_deviations(agent_log: AgentLog) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in agent_log.path.read_text().splitlines()]
    return [
        d for line in lines if line["event"] == "protocol_deviation" for d in line["deviations"]
    ]


async def test_a_method_is_also_served_under_its_message_type(
    client: httpx.AsyncClient, service: Service, agent_log: AgentLog
) -> None:
    reply = await answer(client, request("CHOOSE_PARITY_CALL", example("CHOOSE_PARITY_CALL")))
    assert reply["result"]["message_type"] == "CHOOSE_PARITY_RESPONSE"
    assert isinstance(service.seen[0], ChooseParityCall)
    assert [d["kind"] for d in logged_deviations(agent_log)] == ["method_alias"]


async def test_a_lenient_agent_repairs_a_request_without_envelope(
    client: httpx.AsyncClient, service: Service, agent_log: AgentLog
) -> None:
    reply = await answer(client, request("choose_parity", bare("CHOOSE_PARITY_CALL")))
    assert reply["result"]["parity_choice"] == "even"
    assert service.seen[0].protocol == "league.v2" and service.seen[0].sender == "unknown"
    fields = {d["field"] for d in logged_deviations(agent_log)}
    assert fields == {"protocol", "message_type", "sender", "timestamp", "conversation_id"}


@pytest.mark.parametrize(
    ("method", "params", "code", "named"),
    [
        ("CHOOSE_PARITY_CALL", example("CHOOSE_PARITY_CALL"), "E016", "choose_parity"),
        ("choose_parity", bare("CHOOSE_PARITY_CALL"), "E003", "has no sender"),
    ],
)
async def test_a_strict_agent_refuses_what_lenient_repairs(
    client: httpx.AsyncClient,
    service: Service,
    method: str,
    params: dict[str, Any],
    code: str,
    named: str,
) -> None:
    service.mode = "strict"
    result = (await answer(client, request(method, params)))["result"]
    assert result["message_type"] == "LEAGUE_ERROR" and result["error_code"] == code
    assert result["error_description"].startswith("strict league: ")
    assert named in result["error_description"]
    assert service.seen == []
    full = await answer(client, request("choose_parity", example("CHOOSE_PARITY_CALL")))
    assert full["result"]["message_type"] == "CHOOSE_PARITY_RESPONSE"


@pytest.mark.parametrize("mode", ["lenient", "strict"])
async def test_extra_fields_are_noted_never_refused(
    client: httpx.AsyncClient, service: Service, agent_log: AgentLog, mode: ProtocolMode
) -> None:
    service.mode = mode
    params = {**example("CHOOSE_PARITY_CALL"), "x_student_note": "hi"}
    reply = await answer(client, request("choose_parity", params))
    assert reply["result"]["message_type"] == "CHOOSE_PARITY_RESPONSE"
    assert service.seen[0].extras == {"x_student_note": "hi"}
    assert [d["field"] for d in logged_deviations(agent_log)] == ["x_student_note"]


@pytest.mark.parametrize("mode", ["lenient", "strict"])
async def test_what_the_protocol_forbids_is_refused_in_both_modes(
    client: httpx.AsyncClient, service: Service, mode: ProtocolMode
) -> None:
    service.mode = mode
    params = {**example("CHOOSE_PARITY_CALL"), "timestamp": "2025-01-15T12:30:00+02:00"}
    result = (await answer(client, request("choose_parity", params)))["result"]
    assert result["error_code"] == "E021"


async def test_the_endpoint_is_documented_and_answers_other_methods_405(
    client: httpx.AsyncClient,
) -> None:
    """Its POSTs are answered ahead of the routes, one of which documents it."""
    operation = (await client.get("/openapi.json")).json()["paths"]["/mcp"]
    assert list(operation) == ["post"]
    assert operation["post"]["summary"] == "JSON-RPC 2.0 endpoint (league.v2 messages)"
    refused = await client.get("/mcp")
    assert refused.status_code == 405 and refused.json() == {"detail": "Method Not Allowed"}
    assert refused.headers["allow"] == "POST"


async def test_an_answer_holding_an_integer_beyond_64_bits_is_still_json(
    client: httpx.AsyncClient,
) -> None:
    """orjson encodes answers, and cannot encode this one: the standard library does."""
    assert (await answer(client, request("huge", {})))["result"] == {"value": 2**70}


async def test_the_documenting_route_answers_as_the_plain_one(
    service: Service, agent_log: AgentLog
) -> None:
    """An app that is not a ``ServiceApp`` is answered by the route that documents the
    endpoint, by the same code."""
    endpoint = JsonRpcEndpoint(
        {"raw": RpcMethod(service.raw)}, sender=lambda: "player:P01", log=agent_log
    )
    app = FastAPI()
    endpoint.mount(app)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        reply = await answer(http, request("raw", {"a": 1}))
    assert reply == {"jsonrpc": "2.0", "result": {"echo": {"a": 1}}, "id": 1}
    assert service.seen == [{"a": 1}]
