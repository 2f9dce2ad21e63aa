"""The JSON-RPC client against httpx's mock transport: results, remote errors, timeouts and
retries (with the fast retry policy of tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from sdk.agent_log import AgentLog
from sdk.client import ERROR_BODY_BYTES, RpcClient
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.examples import example
from sdk.messages import Acknowledgement, LeagueQuery, Message
from sdk.nesting import nesting_depth
from sdk.shared_message import SharedMessage
from tests.conftest import make_shared_dir

ENDPOINT = "http://127.0.0.1:8000/mcp"
Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]


def query() -> LeagueQuery:
    return LeagueQuery.model_validate(example("LEAGUE_QUERY"))


def ok(request: httpx.Request, result: Any) -> httpx.Response:
    request_id = json.loads(request.content)["id"]
    return httpx.Response(200, json={"jsonrpc": "2.0", "result": result, "id": request_id})


class Recorder:
    """A mock agent: counts requests, answers with ``reply`` (a coroutine per request)."""

    def __init__(self, reply: Handler):
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        return await self.reply(request)


@pytest.fixture
async def make_client(
    tmp_path: Path, agent_log: AgentLog
) -> AsyncIterator[Callable[..., RpcClient]]:
    clients: list[RpcClient] = []

    def build(handler: Recorder, **system: Any) -> RpcClient:
        shared = make_shared_dir(tmp_path / f"SHARED{len(clients)}", **system)
        client = RpcClient(shared.system(), agent_log, transport=httpx.MockTransport(handler))
        clients.append(client)
        return client

    yield build
    for client in clients:
        await client.aclose()


class Retries:
    """An ``on_retry`` hook that remembers what it was called with."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, str]] = []

    async def __call__(self, number: int, failure: TransportError) -> None:
        self.calls.append((number, failure.code.value))


async def hang(request: httpx.Request) -> httpx.Response:
    await asyncio.Event().wait()  # never set: only the client's timeout ends this
    raise AssertionError("unreachable")


async def refuse_connection(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


# --- answers --------------------------------------------------------------------------------


async def test_a_success_returns_the_result_object(make_client: Callable[..., RpcClient]) -> None:
    result = {
        "message_type": "LEAGUE_QUERY_RESPONSE",
        "query_type": "GET_NEXT_MATCH",
        "success": True,
        "data": {"match_id": "R1M1"},
    }

    async def reply(request: httpx.Request) -> httpx.Response:
        assert request.url == ENDPOINT
        assert request.headers["content-type"] == "application/json"
        return ok(request, result)

    agent = Recorder(reply)
    client = make_client(agent)
    assert await client.call(ENDPOINT, "league_query", query()) == result
    assert await client.call(ENDPOINT, "league_query", example("LEAGUE_QUERY")) == result
    first, second = agent.requests
    assert first["jsonrpc"] == "2.0" and first["method"] == "league_query"
    assert first["params"] == query().to_wire()
    assert second["params"] == example("LEAGUE_QUERY")
    assert first["id"] != second["id"], "every request needs its own id"


async def test_a_factory_is_called_before_every_attempt(
    make_client: Callable[..., RpcClient],
) -> None:
    attempts = 0

    async def reply(request: httpx.Request) -> httpx.Response:
        if attempts < 2:
            raise httpx.ConnectError("not yet", request=request)
        return ok(request, {"message_type": "ACK"})

    built: list[Message] = []

    def fresh() -> Message:
        nonlocal attempts
        attempts += 1
        built.append(Acknowledgement(sender="league_manager", conversation_id=f"c{attempts}"))
        return built[-1]

    agent = Recorder(reply)
    await make_client(agent).call(ENDPOINT, "notify_round", fresh)
    assert [r["params"]["conversation_id"] for r in agent.requests] == ["c1", "c2"]


async def test_a_league_error_result_raises_remote_error(
    make_client: Callable[..., RpcClient],
) -> None:
    league_error = example("LEAGUE_ERROR")

    async def reply(request: httpx.Request) -> httpx.Response:
        return ok(request, league_error)

    with pytest.raises(RemoteError) as caught:
        await make_client(Recorder(reply)).call(ENDPOINT, "league_query", query())
    assert caught.value.code == "E012"
    assert caught.value.description == league_error["error_description"]
    assert caught.value.payload == league_error


async def test_a_jsonrpc_error_raises_remote_error(make_client: Callable[..., RpcClient]) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "error": {"code": -32602, "message": "Invalid params", "data": "league_query"},
            },
        )

    agent = Recorder(reply)
    with pytest.raises(RemoteError) as caught:
        await make_client(agent).call(ENDPOINT, "league_query", query())
    assert caught.value.code == "-32602"
    assert "Invalid params" in caught.value.description
    assert len(agent.requests) == 1, "a remote error is an answer: never retried"


@pytest.mark.parametrize(
    ("response", "code"),
    [
        (httpx.Response(500, text="Internal Server Error"), "HTTP_500"),
        (httpx.Response(404, json={"detail": "Not Found"}), "HTTP_404"),
        (httpx.Response(200, text="<html>hello</html>"), ErrorCode.INVALID_FIELD_VALUE.value),
        (httpx.Response(200, json=[1, 2]), ErrorCode.INVALID_FIELD_VALUE.value),
        (
            httpx.Response(200, json={"jsonrpc": "2.0", "id": 1}),
            ErrorCode.INVALID_FIELD_VALUE.value,
        ),
    ],
    ids=["http-500", "http-404", "not-json", "json-array", "no-result-no-error"],
)
async def test_an_unusable_answer_raises_remote_error_without_retry(
    make_client: Callable[..., RpcClient], response: httpx.Response, code: str
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return response

    agent = Recorder(reply)
    with pytest.raises(RemoteError) as caught:
        await make_client(agent).call(ENDPOINT, "league_query", query())
    assert caught.value.code == code
    assert ENDPOINT in caught.value.description
    assert len(agent.requests) == 1


# --- timeouts and retries -------------------------------------------------------------------


async def test_a_timeout_is_retried_then_raised_as_e001(
    make_client: Callable[..., RpcClient],
) -> None:
    agent = Recorder(hang)
    client = make_client(agent)
    retries = Retries()
    with pytest.raises(TransportError) as caught:
        await client.call(ENDPOINT, "choose_parity", query(), timeout=0.05, on_retry=retries)
    assert caught.value.code is ErrorCode.TIMEOUT_ERROR
    assert "0.05 s" in caught.value.description
    assert client.retry_policy.max_retries == 3
    assert retries.calls == [(1, "E001"), (2, "E001"), (3, "E001")]
    assert len(agent.requests) == 4


async def test_a_connection_error_is_retried_then_raised_as_e009(
    make_client: Callable[..., RpcClient],
) -> None:
    agent = Recorder(refuse_connection)
    retries = Retries()
    with pytest.raises(TransportError) as caught:
        await make_client(agent).call(ENDPOINT, "league_query", query(), on_retry=retries)
    assert caught.value.code is ErrorCode.CONNECTION_ERROR
    assert "ConnectError" in caught.value.description
    assert retries.calls == [(1, "E009"), (2, "E009"), (3, "E009")]
    assert len(agent.requests) == 4


async def test_the_retry_count_comes_from_system_json(
    make_client: Callable[..., RpcClient],
) -> None:
    agent = Recorder(refuse_connection)
    policy = {
        "max_retries": 1,
        "backoff_sec": 0.01,
        "backoff_multiplier": 1.0,
        "max_backoff_sec": 0.01,
    }
    client = make_client(agent, retry_policy=policy)
    assert client.retry_policy.max_retries == 1
    with pytest.raises(TransportError):
        await client.call(ENDPOINT, "league_query", query())
    assert len(agent.requests) == 2


async def test_success_on_the_second_attempt_is_returned(
    make_client: Callable[..., RpcClient],
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        if len(agent.requests) == 1:
            raise httpx.ReadError("connection reset", request=request)
        return ok(request, {"message_type": "ACK", "status": "ok"})

    agent = Recorder(reply)
    retries = Retries()
    result = await make_client(agent).call(ENDPOINT, "notify_round", query(), on_retry=retries)
    assert result == {"message_type": "ACK", "status": "ok"}
    assert retries.calls == [(1, "E009")]
    assert len(agent.requests) == 2


async def test_retries_zero_makes_a_single_attempt(
    make_client: Callable[..., RpcClient],
) -> None:
    agent = Recorder(refuse_connection)
    retries = Retries()
    with pytest.raises(TransportError):
        await make_client(agent).call(
            ENDPOINT, "league_query", query(), retries=0, on_retry=retries
        )
    assert len(agent.requests) == 1
    assert retries.calls == []


async def test_the_per_method_timeout_comes_from_system_json(
    make_client: Callable[..., RpcClient],
) -> None:
    agent = Recorder(hang)
    client = make_client(agent, timeouts_sec={"choose_parity": 0.05}, default_timeout_sec=0.1)
    with pytest.raises(TransportError) as caught:
        await client.call(ENDPOINT, "choose_parity", query(), retries=0)
    assert "within 0.05 s" in caught.value.description
    with pytest.raises(TransportError) as caught:
        await client.call(ENDPOINT, "not_in_the_table", query(), retries=0)
    assert "within 0.1 s" in caught.value.description


# --- call_until_answered --------------------------------------------------------------------


async def test_call_until_answered_waits_for_the_agent_to_come_up(
    make_client: Callable[..., RpcClient],
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        if len(agent.requests) <= 5:
            raise httpx.ConnectError("not listening yet", request=request)
        return ok(request, example("LEAGUE_REGISTER_RESPONSE"))

    agent = Recorder(reply)
    result = await make_client(agent).call_until_answered(
        ENDPOINT, "register_player", query(), interval=0.01, give_up_after=5
    )
    assert result["status"] == "ACCEPTED"
    assert len(agent.requests) == 6


async def test_call_until_answered_gives_up_after_its_limit(
    make_client: Callable[..., RpcClient],
) -> None:
    agent = Recorder(refuse_connection)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TransportError) as caught:
        await make_client(agent).call_until_answered(
            ENDPOINT, "register_player", query(), interval=0.02, give_up_after=0.5
        )
    elapsed = loop.time() - started
    assert caught.value.code is ErrorCode.CONNECTION_ERROR
    # a loaded machine may spend most of the limit on the first attempt (the pool's set-up)
    assert 0.45 <= elapsed < 3.0
    assert 2 <= len(agent.requests) <= 26


async def test_call_until_answered_does_not_retry_a_refusal(
    make_client: Callable[..., RpcClient],
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return ok(request, example("LEAGUE_ERROR", error_code="E010"))

    agent = Recorder(reply)
    with pytest.raises(RemoteError) as caught:
        await make_client(agent).call_until_answered(
            ENDPOINT, "register_player", query(), interval=0.01, give_up_after=5
        )
    assert caught.value.code == "E010"
    assert len(agent.requests) == 1


# --- the agent log --------------------------------------------------------------------------


async def test_traffic_is_logged_with_tokens_redacted(
    make_client: Callable[..., RpcClient], agent_log: AgentLog
) -> None:
    token = "s3cr3t-token-that-must-not-leak-0123456789"

    async def reply(request: httpx.Request) -> httpx.Response:
        return ok(request, example("LEAGUE_REGISTER_RESPONSE", auth_token=token))

    message = query().model_copy(update={"auth_token": token, "conversation_id": "conv-42"})
    await make_client(Recorder(reply)).call(ENDPOINT, "league_query", message)
    text = agent_log.path.read_text()
    assert token not in text
    records = [json.loads(line) for line in text.splitlines()]
    traffic = [(r["event"], r["message_type"], r["conversation_id"], r["peer"]) for r in records]
    assert traffic == [
        ("message_sent", "LEAGUE_QUERY", "conv-42", ENDPOINT),
        ("message_received", "LEAGUE_REGISTER_RESPONSE", "conv-001", ENDPOINT),
    ]


@pytest.mark.parametrize("refused", [False, True], ids=["acknowledged", "league-error"])
async def test_the_answer_to_a_broadcast_copy_is_one_short_line_unless_refused(
    make_client: Callable[..., RpcClient], agent_log: AgentLog, refused: bool
) -> None:
    """A broadcast's copies are logged short, sent and answered alike (one line each per
    recipient); a refusal keeps its whole answer as evidence."""
    answer = (
        example("LEAGUE_ERROR", conversation_id="conv-42")
        if refused
        else example("ACK", conversation_id="conv-42")
    )

    async def reply(request: httpx.Request) -> httpx.Response:
        return ok(request, answer)

    copy = SharedMessage(query().model_copy(update={"conversation_id": "conv-42"})).signed("p")
    client = make_client(Recorder(reply))
    if refused:
        with pytest.raises(RemoteError):
            await client.call(ENDPOINT, "league_query", copy)
    else:
        await client.call(ENDPOINT, "league_query", copy)
    records = [json.loads(line) for line in agent_log.path.read_text().splitlines()]
    sent, received = records
    assert (sent["event"], "data" in sent) == ("message_sent", False)
    assert (received["event"], received["message_type"], received["conversation_id"]) == (
        "message_received",
        answer["message_type"],
        "conv-42",
    )
    assert ("data" in received) is refused


# --- peers that name methods by message_type ------------------------------------------------


def message_type_server(request: httpx.Request) -> httpx.Response:
    """A published-agent style peer: serves LEAGUE_QUERY, not league_query."""
    body = json.loads(request.content)
    if body["method"] != "LEAGUE_QUERY":
        return httpx.Response(
            200,
            json={
                "jsonrpc": "2.0",
                "id": body["id"],
                "error": {"code": -32601, "message": "Method not found"},
            },
        )
    return ok(request, {"answered": body["method"]})


async def test_a_peer_serving_message_types_is_asked_again_and_remembered(
    make_client: Callable[..., RpcClient],
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return message_type_server(request)

    agent = Recorder(reply)
    client = make_client(agent)
    assert (await client.call(ENDPOINT, "league_query", query()))["answered"] == "LEAGUE_QUERY"
    assert (await client.call(ENDPOINT, "league_query", query()))["answered"] == "LEAGUE_QUERY"
    methods = [r["method"] for r in agent.requests]
    assert methods == ["league_query", "LEAGUE_QUERY", "LEAGUE_QUERY"], "asked once by name"


async def test_a_strict_caller_does_not_fall_back_to_message_types(
    make_client: Callable[..., RpcClient],
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return message_type_server(request)

    agent = Recorder(reply)
    with pytest.raises(RemoteError) as caught:
        await make_client(agent).call(ENDPOINT, "league_query", query(), method_aliases=False)
    assert caught.value.code == "-32601" and len(agent.requests) == 1


# --- answers too large or too slow ----------------------------------------------------------

LIMIT = 4096
"""``http.max_response_bytes`` of the tests below (the smallest value the config allows is
1024)."""


def http_limits(**limits: int) -> dict[str, Any]:
    """system.json overrides: the ``http`` section with these limits."""
    return {"http": {"max_body_bytes": 1_048_576, "max_connections": 16, **limits}}


def small_limit() -> dict[str, Any]:
    return http_limits(max_response_bytes=LIMIT)


def padded_answer(request: httpx.Request, size: int) -> bytes:
    """A valid JSON-RPC answer of exactly ``size`` bytes (whitespace after the object)."""
    request_id = json.loads(request.content)["id"]
    body = json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "result": {"message_type": "ACK", "status": "ok"}}
    ).encode()
    return body + b" " * (size - len(body))


async def test_an_answer_at_the_limit_is_read(make_client: Callable[..., RpcClient]) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=padded_answer(request, LIMIT))

    result = await make_client(Recorder(reply), **small_limit()).call(
        ENDPOINT, "notify_round", query()
    )
    assert result == {"message_type": "ACK", "status": "ok"}


async def test_an_answer_declared_above_the_limit_is_refused_unread(
    make_client: Callable[..., RpcClient],
) -> None:
    pulled: list[int] = []

    async def body() -> AsyncIterator[bytes]:
        for _ in range(100):
            pulled.append(1)
            yield b" " * 1024

    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-length": str(100 * 1024)}, content=body())

    agent = Recorder(reply)
    with pytest.raises(RemoteError) as caught:
        await make_client(agent, **small_limit()).call(ENDPOINT, "choose_parity", query())
    assert caught.value.code == ErrorCode.INVALID_FIELD_VALUE.value
    assert "of 102400 bytes" in caught.value.description
    assert "max_response_bytes" in caught.value.description
    assert pulled == [], "a declared size above the limit is refused before any byte"
    assert len(agent.requests) == 1, "an oversized answer is an answer: never retried"


async def test_an_undeclared_answer_is_cut_at_the_limit(
    make_client: Callable[..., RpcClient],
) -> None:
    pulled: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        while True:  # a peer that would send forever: only the limit stops the reading
            pulled.append(1024)
            yield b" " * 1024

    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=endless())

    with pytest.raises(RemoteError) as caught:
        await make_client(Recorder(reply), **small_limit()).call(
            ENDPOINT, "choose_parity", query(), retries=0
        )
    assert caught.value.code == ErrorCode.INVALID_FIELD_VALUE.value
    assert f"more than {LIMIT} bytes" in caught.value.description
    assert sum(pulled) <= LIMIT + 1024, "reading stops at the first chunk past the limit"


async def test_of_the_body_of_an_http_error_only_a_bounded_start_is_read(
    make_client: Callable[..., RpcClient],
) -> None:
    pulled: list[int] = []

    async def endless() -> AsyncIterator[bytes]:
        while True:
            pulled.append(1)
            yield b"x" * 1024

    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, content=endless())

    with pytest.raises(RemoteError) as caught:
        await make_client(Recorder(reply), **small_limit()).call(ENDPOINT, "choose_parity", query())
    assert caught.value.code == "HTTP_500"
    assert len(pulled) <= ERROR_BODY_BYTES // 1024 + 1
    assert len(caught.value.payload["body"]) <= ERROR_BODY_BYTES


@pytest.mark.parametrize(
    ("response", "said", "kept"),
    [
        (
            httpx.Response(
                401,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "error": {
                        "code": -32001,
                        "message": "auth_token required",
                        "data": {"field": "auth_token"},
                    },
                },
            ),
            'HTTP 401: JSON-RPC error -32001 auth_token required ({"field": "auth_token"})',
            {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32001,
                    "message": "auth_token required",
                    "data": {"field": "auth_token"},
                },
            },
        ),
        (
            httpx.Response(503, text="strategy crashed: ZeroDivisionError"),
            "HTTP 503: 'strategy crashed: ZeroDivisionError'",
            {"body": "strategy crashed: ZeroDivisionError"},
        ),
        (httpx.Response(500), "HTTP 500", {}),
    ],
    ids=["jsonrpc-error", "text", "empty"],
)
async def test_the_body_of_an_http_error_is_kept_as_evidence(
    make_client: Callable[..., RpcClient], response: httpx.Response, said: str, kept: dict[str, Any]
) -> None:
    """Why the peer refused, in the description (cut) and whole in the payload (bounded)."""

    async def reply(request: httpx.Request) -> httpx.Response:
        return response

    with pytest.raises(RemoteError) as caught:
        await make_client(Recorder(reply)).call(ENDPOINT, "choose_parity", query())
    assert caught.value.description.endswith(said)
    assert caught.value.payload == kept


async def test_a_trickled_answer_is_a_timeout_of_the_whole_call(
    make_client: Callable[..., RpcClient],
) -> None:
    """Each byte comes well within the timeout; the whole answer never does."""

    async def trickle() -> AsyncIterator[bytes]:
        while True:
            await asyncio.sleep(0.005)
            yield b" "

    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=trickle())

    agent = Recorder(reply)
    retries = Retries()
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TransportError) as caught:
        await make_client(agent).call(
            ENDPOINT, "choose_parity", query(), timeout=0.1, on_retry=retries
        )
    elapsed = loop.time() - started
    assert caught.value.code is ErrorCode.TIMEOUT_ERROR
    assert retries.calls == [(1, "E001"), (2, "E001"), (3, "E001")]
    assert len(agent.requests) == 4
    assert elapsed < 4 * 0.1 + 3 * 0.2 + 0.5, f"four attempts of 0.1 s took {elapsed:.2f} s"


# --- answers nested too deep ----------------------------------------------------------------


def nested_answer(request: httpx.Request, depth: int) -> bytes:
    """An ACK answer whose whole body nests ``depth`` levels (the answer object, its
    result, and arrays inside the result), written without recursion."""
    request_id = json.loads(request.content)["id"]
    arrays = depth - 2
    return (
        f'{{"jsonrpc": "2.0", "id": {request_id}, "result": {{"message_type": "ACK", '
        f'"nested": {"[" * arrays}{"]" * arrays}}}}}'
    ).encode()


DEPTH = 16
"""``http.max_json_depth`` of the tests below."""


@pytest.mark.parametrize(
    "depth", [DEPTH + 1, 900, 100_000], ids=["one-too-deep", "parsable", "beyond-the-parser"]
)
async def test_an_answer_nested_too_deep_is_refused(
    make_client: Callable[..., RpcClient], depth: int
) -> None:
    """900 levels parse, but the log's token redaction would recurse past Python's limit;
    100000 do not even parse: both are the peer's fault (E002), never the caller's crash."""

    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=nested_answer(request, depth))

    agent = Recorder(reply)
    with pytest.raises(RemoteError) as caught:
        await make_client(agent, **http_limits(max_json_depth=DEPTH)).call(
            ENDPOINT, "notify_round", query()
        )
    assert caught.value.code == ErrorCode.INVALID_FIELD_VALUE.value
    assert f"more than {DEPTH} levels" in caught.value.description
    assert len(agent.requests) == 1


async def test_an_answer_at_the_depth_limit_is_read(
    make_client: Callable[..., RpcClient],
) -> None:
    async def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=nested_answer(request, DEPTH))

    result = await make_client(Recorder(reply), **http_limits(max_json_depth=DEPTH)).call(
        ENDPOINT, "notify_round", query()
    )
    assert nesting_depth(json.dumps(result["nested"])) == DEPTH - 2
