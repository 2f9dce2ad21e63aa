"""The JSON-RPC client takes an answer only for the request whose id it carries: against a
real HTTP peer on loopback (a thread of this process) that answers with the id it is told."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

import pytest

from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.examples import example
from sdk.messages import LeagueQuery
from tests.conftest import free_port, make_shared_dir

ACK = {"message_type": "ACK", "status": "ok"}
NO_ID = object()
"""An answer without an "id" member."""

ANSWER_IDS: dict[str, Callable[[int], Any]] = {
    "same": lambda sent: sent,
    "same-as-string": str,
    "another": lambda sent: sent + 1000,
    "null": lambda sent: None,
    "true": lambda sent: True,
    "float": float,
    "object": lambda sent: {"id": sent},
    "missing": lambda sent: NO_ID,
}
"""How the peer answers: the id it puts on its answer, made from the request's
(``POST /<how>/mcp``)."""


class Peer(ThreadingHTTPServer):
    """The peer, counting the calls it answered each way."""

    def __init__(self, port: int):
        super().__init__(("127.0.0.1", port), _Answer)
        self.calls: Counter[str] = Counter()


class _Answer(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        how = self.path.split("/")[1]
        cast(Peer, self.server).calls[how] += 1
        answer: dict[str, Any] = {"jsonrpc": "2.0", "result": ACK}
        if how == "error-with-null-id":
            answer = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Invalid Request"},
            }
        elif (answer_id := ANSWER_IDS[how](request["id"])) is not NO_ID:
            answer["id"] = answer_id
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def peer() -> Iterator[Peer]:
    server = Peer(free_port())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[RpcClient]:
    log = AgentLog(tmp_path / "agent.log.jsonl", "REF01")
    client = RpcClient(make_shared_dir(tmp_path / "SHARED").system(), log)
    yield client
    await client.aclose()
    log.close()


def endpoint(peer: Peer, how: str) -> str:
    return f"http://127.0.0.1:{peer.server_address[1]}/{how}/mcp"


def query() -> LeagueQuery:
    return LeagueQuery.model_validate(example("LEAGUE_QUERY"))


@pytest.mark.parametrize("how", ["same", "same-as-string", "missing"])
async def test_an_answer_with_the_request_s_id_or_none_is_taken(
    peer: Peer, client: RpcClient, how: str
) -> None:
    assert await client.call(endpoint(peer, how), "league_query", query()) == ACK


@pytest.mark.parametrize(
    ("how", "shown"),
    [
        ("another", "1001"),
        ("null", "null"),
        ("true", "true"),
        ("float", "1.0"),
        ("object", '{"id": 1}'),
    ],
)
async def test_an_answer_with_another_id_is_no_answer(
    peer: Peer, client: RpcClient, how: str, shown: str
) -> None:
    url = endpoint(peer, how)
    with pytest.raises(TransportError) as caught:
        await client.call(url, "league_query", query(), retries=0)
    assert caught.value.code is ErrorCode.CONNECTION_ERROR
    assert caught.value.description == (
        f"{url} answered league_query with id {shown}, not 1, the id of the request: an "
        "answer to another request, not taken"
    )


async def test_an_answer_with_another_id_is_retried_like_a_lost_one(
    peer: Peer, client: RpcClient
) -> None:
    before = peer.calls["another"]
    with pytest.raises(TransportError):
        await client.call(endpoint(peer, "another"), "league_query", query())
    assert peer.calls["another"] - before == client.retry_policy.max_retries + 1


async def test_an_error_with_a_null_id_is_the_peer_s_answer(peer: Peer, client: RpcClient) -> None:
    """JSON-RPC 2.0: a peer that could not read the request's id answers an error with a
    null one; that is an answer (never retried), not a mismatch."""
    with pytest.raises(RemoteError) as caught:
        await client.call(endpoint(peer, "error-with-null-id"), "league_query", query())
    assert caught.value.code == "-32600"
    assert peer.calls["error-with-null-id"] == 1
