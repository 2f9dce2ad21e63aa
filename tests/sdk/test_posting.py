"""The JSON-RPC client on the network (aiohttp, ``sdk.posting``) against a raw HTTP server
on a loopback port, written byte by byte so that it can misbehave as a peer can: answers
too large (declared or streamed), cut short, trickled or never sent, refused connections
and URLs that cannot be called. What the answer means is tested in test_client.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from sdk.agent_log import AgentLog
from sdk.client import ERROR_BODY_BYTES, RpcClient
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.examples import example
from sdk.posting import AiohttpPoster, keep_alive_timeout
from tests.conftest import free_port, make_shared_dir

Respond = Callable[[asyncio.StreamWriter, dict[str, Any]], Awaitable[None]]
"""Writes the answer to one request (its JSON body given) on the connection."""


def head(status: int, **headers: str | int) -> bytes:
    lines = [f"HTTP/1.1 {status} X"] + [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def result_of(request: dict[str, Any], result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "result": result, "id": request["id"]}).encode()


async def answer(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
    """As our agents answer: with the keep-alive their server keeps (``sdk.service``)."""
    body = result_of(request, {"message_type": "ACK", "seen": request["params"]})
    writer.write(
        head(
            200, content_type="application/json", content_length=len(body), keep_alive="timeout=15"
        )
        + body
    )


async def silent_answer(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
    """As a server that tells no keep-alive answers."""
    body = result_of(request, {"message_type": "ACK"})
    writer.write(head(200, content_length=len(body)) + body)


class Peer:
    """A loopback HTTP/1.1 server that reads each request whole and lets ``respond``
    answer it; counts connections and requests."""

    def __init__(self, respond: Respond):
        self.respond = respond
        self.connections = 0
        self.requests: list[dict[str, Any]] = []
        self.writers: set[asyncio.StreamWriter] = set()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.add(writer)
        try:
            while True:
                try:
                    lines = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
                except asyncio.IncompleteReadError:
                    return
                headers = dict(line.lower().split(": ", 1) for line in lines[1:] if line)
                body = await reader.readexactly(int(headers["content-length"]))
                request = json.loads(body)
                self.requests.append(request)
                await self.respond(writer, request)
                await writer.drain()
        finally:
            writer.close()


@pytest.fixture
async def client(tmp_path: Path, agent_log: AgentLog) -> AsyncIterator[RpcClient]:
    limits = {"max_body_bytes": 1_048_576, "max_connections": 16, "max_response_bytes": 2048}
    rpc = RpcClient(make_shared_dir(tmp_path / "SHARED", http=limits).system(), agent_log)
    yield rpc
    await rpc.aclose()


@pytest.fixture
async def peer() -> AsyncIterator[Callable[[Respond], Awaitable[Peer]]]:
    servers: list[tuple[Peer, asyncio.Server]] = []

    async def start(respond: Respond) -> Peer:
        agent = Peer(respond)
        servers.append((agent, await asyncio.start_server(agent.serve, "127.0.0.1", agent.port)))
        return agent

    yield start
    for agent, server in servers:
        server.close()
        for writer in agent.writers:  # a client's kept-alive connection: wait_closed (3.12+)
            writer.close()  # waits for it, and the client closes it only after this fixture
        await server.wait_closed()


async def call(client: RpcClient, url: str, timeout: float = 5) -> dict[str, Any]:
    return await client.call(
        url, "league_query", example("LEAGUE_QUERY"), timeout=timeout, retries=0
    )


async def test_answers_come_back_over_one_kept_alive_connection(
    client: RpcClient, peer: Any
) -> None:
    agent = await peer(answer)
    first = await call(client, agent.url)
    second = await call(client, agent.url)
    assert first["seen"] == second["seen"] == example("LEAGUE_QUERY")
    assert [r["method"] for r in agent.requests] == ["league_query", "league_query"]
    assert agent.requests[0]["id"] != agent.requests[1]["id"]
    assert agent.connections == 1, "the second call reuses the first call's connection"


async def test_an_error_status_is_told_with_the_start_of_its_body_only(
    client: RpcClient, peer: Any
) -> None:
    async def refuse(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
        body = b"overloaded " * 2000
        writer.write(head(503, content_length=len(body)) + body)

    with pytest.raises(RemoteError) as caught:
        await call(client, (await peer(refuse)).url)
    assert caught.value.code == "HTTP_503"
    assert "with HTTP 503: 'overloaded overloaded" in caught.value.description
    assert len(caught.value.payload["body"]) <= ERROR_BODY_BYTES


@pytest.mark.parametrize("declared", [True, False], ids=["declared", "streamed"])
async def test_an_answer_over_the_size_limit_is_refused_and_the_next_call_works(
    client: RpcClient, peer: Any, declared: bool
) -> None:
    oversized = True

    async def flood(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
        nonlocal oversized
        if not oversized:
            return await answer(writer, request)
        oversized = False
        if declared:
            writer.write(head(200, content_length=10**9) + b"{" * 1024)
        else:
            chunk = b"x" * 1024
            writer.write(head(200, transfer_encoding="chunked"))
            for _ in range(8):
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))

    agent = await peer(flood)
    with pytest.raises(RemoteError) as caught:
        await call(client, agent.url)
    expected = "of 1000000000 bytes" if declared else "of more than 2048 bytes"
    assert expected in caught.value.description and "max_response_bytes" in caught.value.description
    assert (await call(client, agent.url))["message_type"] == "ACK"


async def test_an_answer_cut_short_is_a_connection_error(client: RpcClient, peer: Any) -> None:
    async def cut(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
        writer.write(head(200, content_length=100) + b'{"jsonrpc": "2.0"')
        await writer.drain()
        writer.close()

    with pytest.raises(TransportError) as caught:
        await call(client, (await peer(cut)).url)
    assert caught.value.code == ErrorCode.CONNECTION_ERROR
    assert caught.value.description.endswith("the answer was cut short (ClientPayloadError)"), (
        caught.value.description
    )


@pytest.mark.parametrize("trickle", [False, True], ids=["silent", "trickling"])
async def test_a_peer_that_does_not_finish_its_answer_times_out_on_time(
    client: RpcClient, peer: Any, trickle: bool
) -> None:
    async def slow(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
        if trickle:
            writer.write(head(200, content_length=1000))
        for _ in range(100):
            if trickle:
                writer.write(b" ")
                await writer.drain()
            await asyncio.sleep(0.05)

    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TransportError) as caught:
        await call(client, (await peer(slow)).url, timeout=0.5)
    assert caught.value.code == ErrorCode.TIMEOUT_ERROR
    assert "within 0.5 s" in caught.value.description
    assert loop.time() - started < 2


async def test_a_refused_connection_is_a_connection_error(client: RpcClient) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(TransportError) as caught:
        await call(client, url)
    assert caught.value.code == ErrorCode.CONNECTION_ERROR
    assert caught.value.description == (
        f"could not reach {url} for league_query: connection refused (ClientConnectorError)"
    )


@pytest.mark.parametrize(
    "url", ["not a url", "ftp://127.0.0.1/mcp", "http:///mcp", "http://[::1/mcp", ""]
)
async def test_a_url_that_cannot_be_called_is_told_as_such(client: RpcClient, url: str) -> None:
    with pytest.raises(TransportError) as caught:
        await call(client, url)
    assert caught.value.code == ErrorCode.CONNECTION_ERROR
    assert caught.value.description == f"{url!r} is not a URL we can call for league_query"


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("timeout=15", 15.0), ("max=100, timeout=5", 5.0), ("Timeout = 2.5", 2.5)]
    + [(None, None), ("", None), ("max=100", None), ("timeout=soon", None)],
)
def test_the_keep_alive_a_peer_tells_is_read(header: str | None, seconds: float | None) -> None:
    assert keep_alive_timeout(header) == seconds


async def test_a_peer_that_tells_a_long_keep_alive_keeps_its_idle_connection_longer(
    peer: Any,
) -> None:
    told = ["timeout=15"]

    async def telling(writer: asyncio.StreamWriter, request: dict[str, Any]) -> None:
        body = result_of(request, {"message_type": "ACK"})
        writer.write(head(200, content_length=len(body), keep_alive=told[0]) + body)

    teller, silent = await peer(telling), await peer(silent_answer)
    poster = AiohttpPoster(4, brief_sec=0.2, lasting_sec=5.0)

    async def post(agent: Peer) -> None:
        request = {"jsonrpc": "2.0", "method": "m", "params": {}, "id": len(agent.requests)}
        async with poster.post(agent.url, json.dumps(request).encode()) as answered:
            assert answered.status == 200
            assert [chunk async for chunk in answered.chunks]

    try:
        for agent in (teller, silent, teller, silent):
            await post(agent)
        assert teller.connections == 1
        assert silent.connections == 2, "its first answer told nothing: a brief connection next"
        await asyncio.sleep(0.5)  # idle past brief_sec, within lasting_sec
        await post(teller)
        await post(silent)
        assert teller.connections == 1, "kept for the keep-alive it told"
        assert silent.connections == 3, "a peer that tells nothing: dropped after brief_sec"

        told[0] = "timeout=6"  # shorter than lasting_sec and its margin: brief from now on
        await post(teller)
        await post(teller)
        assert teller.connections == 2
        await asyncio.sleep(0.5)
        await post(teller)
        assert teller.connections == 3
    finally:
        await poster.aclose()
