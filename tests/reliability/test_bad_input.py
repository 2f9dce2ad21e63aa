"""Bad input at every endpoint (issue 5): each kind of bad request, sent to the /mcp of a real
League Manager, referee and player, gets the JSON-RPC error or the LEAGUE_ERROR that
doc/protocol.md names, with a sentence and no traceback, and the service stays up.

The league is strict (grading), so the League Manager and the referee, which read requests
in their league's mode, refuse a message without its envelope with E003; the player takes
requests leniently in any league (it does not know its league's mode): it fills the
envelope in and answers what the message is then worth, and leniency never extends to
authentication: a message that does not prove its sender, which a filled-in envelope never
does, is refused for that (E011 without an auth_token).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from league_manager.registry_files import RegistryFiles
from sdk.auth import match_proof
from sdk.examples import example
from sdk.messages import sender_id
from tests.reliability.services import (
    SERVICE_NAMES,
    TRACEBACK_MARKS,
    Service,
    Services,
    answer_problems,
    running_services,
)

pytestmark = pytest.mark.e2e

REQUEST_ID = 7
MESSAGE_METHOD = {
    "league_manager": "league_query",
    "referee": "start_match",
    "player": "choose_parity",
}
"""The method each service is sent message cases on: one that validates a message."""
ENVELOPE = ("protocol", "message_type", "sender", "timestamp", "conversation_id", "auth_token")


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    with running_services(tmp_path_factory.mktemp("bad_input"), strict_league=True) as started:
        yield started


# --- what each case must get -----------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    """A JSON-RPC error object: its code, the HTTP status and the id it echoes."""

    code: int
    status: int = 200
    request_id: Any = REQUEST_ID
    mentions: str = ""


@dataclass(frozen=True)
class LeagueRefused:
    """A LEAGUE_ERROR result with this error_code, its description naming ``mentions``."""

    code: str
    mentions: str = ""


@dataclass(frozen=True)
class Answered:
    """The method's own answer: the request was repaired (a lenient agent) and taken."""

    message_type: str


@dataclass(frozen=True)
class EachAnswered:
    """A batch: every request answered on its own, each with this LEAGUE_ERROR code."""

    count: int
    code: str


@dataclass(frozen=True)
class NoAnswer:
    """HTTP 204 and no body: a notification is never answered, not even with an error."""


Expected = Refused | LeagueRefused | Answered | EachAnswered | NoAnswer
Body = Callable[[Service, Services], Any]


@dataclass(frozen=True)
class Case:
    name: str
    body: Body
    expected: Expected | dict[str, Expected]
    services: tuple[str, ...] = SERVICE_NAMES

    def expected_for(self, service: str) -> Expected:
        return self.expected[service] if isinstance(self.expected, dict) else self.expected


# --- how each case is built ------------------------------------------------------------------


def rpc(method: str, params: Any = None, request_id: Any = REQUEST_ID, **members: Any) -> bytes:
    request: dict[str, Any] = {"jsonrpc": "2.0", "method": method, **members}
    if params is not None:
        request["params"] = params
    if request_id is not None:
        request["id"] = request_id
    return json.dumps(request).encode()


def message(service: Service, **changes: Any) -> dict[str, Any]:
    """A valid example of the message the service's case method takes, with ``changes``."""
    model = service.methods[MESSAGE_METHOD[service.name]]
    assert model is not None
    return example(model.MESSAGE_TYPE, **changes)


def with_message(**changes: Any) -> Body:
    return lambda service, _: rpc(MESSAGE_METHOD[service.name], message(service, **changes))


def raw(text: bytes) -> Body:
    return lambda service, _: text


def nested(service: Service, services: Services) -> bytes:
    depth = services.shared.system().http.max_json_depth
    params: dict[str, Any] = {}
    for _ in range(depth):
        params = {"a": params}
    return rpc(MESSAGE_METHOD[service.name], params)


def batch(size: Callable[[Services], int]) -> Body:
    def build(service: Service, services: Services) -> bytes:
        method = MESSAGE_METHOD[service.name]
        return json.dumps(
            [
                {"jsonrpc": "2.0", "method": method, "params": {}, "id": n}
                for n in range(size(services))
            ]
        ).encode()

    return build


def without_envelope(service: Service, _: Services) -> bytes:
    bare = {k: v for k, v in message(service).items() if k not in ENVELOPE}
    return rpc(MESSAGE_METHOD[service.name], bare)


def oversized(service: Service, services: Services) -> bytes:
    limit = services.shared.system().http.max_body_bytes
    return rpc(MESSAGE_METHOD[service.name], message(service, padding="x" * limit))


def oversized_chunked(service: Service, services: Services) -> Iterator[bytes]:
    """The same, sent without a Content-Length (chunked), in 64 KiB pieces."""
    body = oversized(service, services)
    return (body[at : at + 65_536] for at in range(0, len(body), 65_536))


def move_call(space: Any, valid_options: Any = ("C", "D")) -> Body:
    """A player's GAME_MOVE_CALL whose action space is ``space`` (None: left out), with the
    referee's proof: what is checked is the move request, not who sent it."""

    def build(service: Service, services: Services) -> bytes:
        call = example("GAME_MOVE_CALL")
        call["move_request"]["valid_options"] = list(valid_options)
        if space is None:
            del call["move_request"]["context"]["action_space"]
        else:
            call["move_request"]["context"]["action_space"] = space
        shared = services.shared
        league_dir = shared.league_dir(shared.system().default_league_id)
        token = RegistryFiles(league_dir).read().tokens[call["player_id"]]
        call["auth_token"] = match_proof(
            token, call["league_id"], call["match_id"], sender_id(call["sender"])
        )
        return rpc("make_move", call)

    return build


def old_protocol_version(service: Service, _: Services) -> bytes:
    registration = example("LEAGUE_REGISTER_REQUEST")
    registration["player_meta"]["protocol_version"] = "1.0.0"
    return rpc("register_player", registration)


PARSE = Refused(-32700, request_id=None)
MISSING_FIELDS: dict[str, Expected] = {
    # A strict league names the missing envelope first; a lenient agent fills it in and
    # names the message's own missing fields.
    "league_manager": LeagueRefused("E003", "strict league: LEAGUE_QUERY has no protocol"),
    "referee": LeagueRefused("E003", "strict league: START_MATCH has no protocol"),
    "player": LeagueRefused("E003", "match_id: Field required"),
}
MAX_BATCH = 1000  # system.json's http.max_batch, checked below against the running config

CASES = [
    Case("malformed JSON", raw(b'{"jsonrpc": "2.0", "method": "x", "params": {'), PARSE),
    Case("invalid UTF-8", raw(b'{"jsonrpc": "2.0", "method": "r\xffaw", "id": 7}'), PARSE),
    Case(
        "lone UTF-16 surrogate",
        raw(
            b'{"jsonrpc": "2.0", "method": "x", "params": {"conversation_id": "\\ud800"}, "id": 7}'
        ),
        PARSE,
    ),
    Case(
        "NaN",
        raw(b'{"jsonrpc": "2.0", "method": "x", "params": {"round_id": NaN}, "id": 7}'),
        PARSE,
    ),
    Case("number beyond a double", raw(b'{"jsonrpc": "2.0", "method": "x", "id": 1e400}'), PARSE),
    Case(
        "nested deeper than http.max_json_depth",
        nested,
        Refused(-32600, request_id=None, mentions="levels deep"),
    ),
    Case(
        "nested 100,000 levels (past the parser's 1024)",
        raw(
            b'{"jsonrpc": "2.0", "method": "x", "params": {"a": '
            + b"[" * 100_000
            + b"]" * 100_000
            + b'}, "id": 7}'
        ),
        Refused(-32700, request_id=None, mentions="depth limit"),
    ),
    Case(
        "jsonrpc 1.0", lambda s, _: rpc(MESSAGE_METHOD[s.name], {}, jsonrpc="1.0"), Refused(-32600)
    ),
    Case(
        "jsonrpc as a number",
        lambda s, _: rpc(MESSAGE_METHOD[s.name], {}, jsonrpc=2.0),
        Refused(-32600),
    ),
    Case(
        "no jsonrpc member",
        lambda s, _: json.dumps(
            {"method": MESSAGE_METHOD[s.name], "params": {}, "id": REQUEST_ID}
        ).encode(),
        Refused(-32600),
    ),
    Case("not a request object", raw(b"42"), Refused(-32600, request_id=None)),
    Case("empty batch", raw(b"[]"), Refused(-32600, request_id=None, mentions="empty")),
    Case("batch of 1000", batch(lambda _: MAX_BATCH), EachAnswered(MAX_BATCH, "E003")),
    Case(
        "batch over http.max_batch",
        batch(lambda s: s.shared.system().http.max_batch + 1),
        Refused(-32600, request_id=None, mentions=f"at most {MAX_BATCH}"),
    ),
    Case(
        "unknown method",
        lambda s, _: rpc("no_such_method", {}),
        Refused(-32601, mentions="no_such_method"),
    ),
    Case(
        "params as an array",
        lambda s, _: rpc(MESSAGE_METHOD[s.name], [1, 2]),
        Refused(-32602, mentions="object"),
    ),
    Case("params as a string", lambda s, _: rpc(MESSAGE_METHOD[s.name], "params"), Refused(-32600)),
    Case(
        "field of the wrong type", with_message(round_id="first"), LeagueRefused("E002", "round_id")
    ),
    Case(
        "message_type of another method",
        with_message(message_type="GAME_OVER"),
        LeagueRefused("E016", "GAME_OVER"),
    ),
    Case(
        "params {} (required fields missing)",
        lambda s, _: rpc(MESSAGE_METHOD[s.name], {}),
        MISSING_FIELDS,
    ),
    Case("no params", lambda s, _: rpc(MESSAGE_METHOD[s.name]), MISSING_FIELDS),
    Case(
        "envelope missing (and auth_token)",
        without_envelope,
        {
            "league_manager": LeagueRefused("E003", "strict league: LEAGUE_QUERY has no protocol"),
            "referee": LeagueRefused("E003", "strict league: START_MATCH has no protocol"),
            "player": LeagueRefused("E011", "carries no auth_token"),
        },
    ),
    Case(
        "timestamp with a local offset",
        with_message(timestamp="2025-01-15T12:30:00+02:00"),
        LeagueRefused("E021", "not in UTC"),
    ),
    Case(
        "timestamp without an offset",
        with_message(timestamp="2025-01-15T10:30:00"),
        LeagueRefused("E021", "no time zone"),
    ),
    Case(
        "unparsable timestamp",
        with_message(timestamp="yesterday"),
        LeagueRefused("E021", "timestamp"),
    ),
    Case(
        "timestamp as a Unix epoch",
        with_message(timestamp=1736937000),
        LeagueRefused("E021", "ISO-8601"),
    ),
    Case(
        "wrong protocol name",
        with_message(protocol="league.v1"),
        LeagueRefused("E018", "league.v1"),
    ),
    Case(
        "old protocol_version",
        old_protocol_version,
        LeagueRefused("E018", "protocol_version 1.0.0"),
        services=("league_manager",),
    ),
    Case(
        "move call: action_space not a space",
        move_call({"kind": {}, "choices": ["C"]}),
        LeagueRefused("E002", "not a kind of action space"),
        services=("player",),
    ),
    Case(
        "move call: bounds that are not numbers",
        move_call({"kind": "number", "low": "a", "high": "b"}),
        LeagueRefused("E002", "must be numbers"),
        services=("player",),
    ),
    Case(
        "move call: no legal move",
        move_call(None, valid_options=()),
        LeagueRefused("E002", "no move is legal"),
        services=("player",),
    ),
    Case(
        "move call: allocation of 10^8 places",
        move_call({"kind": "allocation", "size": 10**8, "total": 5}),
        LeagueRefused("E002", "at most 10000"),
        services=("player",),
    ),
    Case(
        "body over http.max_body_bytes",
        oversized,
        Refused(-32600, status=413, request_id=None, mentions="larger than"),
    ),
    Case(
        "body over http.max_body_bytes, chunked",
        oversized_chunked,
        Refused(-32600, status=413, request_id=None, mentions="larger than"),
    ),
    Case(
        "notification with bad params",
        lambda s, _: rpc(MESSAGE_METHOD[s.name], {}, None),
        NoAnswer(),
    ),
]


def test_the_batch_case_matches_the_configured_limit(services: Services) -> None:
    assert services.shared.system().http.max_batch == MAX_BATCH, (
        "the batch of 1000 case is meant to be exactly at the configured limit"
    )


# --- the test --------------------------------------------------------------------------------


def assert_human(text: Any, what: str) -> None:
    assert isinstance(text, str) and text.strip(), f"{what} must be a sentence, got {text!r}"
    for mark in TRACEBACK_MARKS:
        assert mark not in text, f"{what} holds traceback text: {text!r}"


def check(expected: Expected, payload: Any) -> None:
    if isinstance(expected, Refused):
        assert "result" not in payload, payload
        error = payload["error"]
        assert error["code"] == expected.code, payload
        assert payload["id"] == expected.request_id, payload
        assert_human(error["message"], "error.message")
        assert_human(error["data"], "error.data")
        assert expected.mentions in error["data"], payload
    elif isinstance(expected, LeagueRefused):
        assert "error" not in payload, payload
        assert payload["id"] == REQUEST_ID
        result = payload["result"]
        assert result["message_type"] == "LEAGUE_ERROR", result
        assert result["error_code"] == expected.code, result
        assert_human(result["error_description"], "error_description")
        assert expected.mentions in result["error_description"], result
    elif isinstance(expected, Answered):
        result = payload["result"]
        assert result["message_type"] == expected.message_type, result
        assert result["conversation_id"].startswith("unnamed-"), (
            "the missing conversation_id is filled in with a fresh one"
        )
    elif isinstance(expected, EachAnswered):
        assert isinstance(payload, list) and len(payload) == expected.count
        assert sorted(item["id"] for item in payload) == list(range(expected.count))
        assert {item["result"]["error_code"] for item in payload} == {expected.code}


@pytest.mark.parametrize(
    ("service_name", "case"),
    [(name, case) for case in CASES for name in case.services],
    ids=[f"{name}-{case.name}" for case in CASES for name in case.services],
)
def test_bad_input_gets_a_clear_answer_and_the_service_stays_up(
    services: Services, service_name: str, case: Case
) -> None:
    service = services[service_name]
    expected = case.expected_for(service_name)
    output_mark = service.output_size()
    body = case.body(service, services)
    response = service.post(body)

    status = (
        expected.status
        if isinstance(expected, Refused)
        else (204 if isinstance(expected, NoAnswer) else 200)
    )
    assert response.status_code == status, response.text[:500]
    sent = body if isinstance(body, bytes) else b""
    assert answer_problems(response, sent) == []
    if isinstance(expected, NoAnswer):
        assert response.content == b""
    else:
        check(expected, response.json())
    assert service.healthy(), f"{service_name} is down after {case.name}"
    printed = service.output_since(output_mark)
    assert not any(mark in printed for mark in TRACEBACK_MARKS), printed[-2000:]
