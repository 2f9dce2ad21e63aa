"""Each answer reaches the socket in one write: a real uvicorn server configured as every
agent's (``sdk.service.server_config``) on a loopback port of this test's event loop, and a
raw HTTP/1.1 client that reads the kernel's count of the data segments it received."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from sdk.service import listening_socket, server_config

pytestmark = pytest.mark.skipif(
    not hasattr(socket, "TCP_INFO"), reason="the segment count is read from Linux's TCP_INFO"
)

_SOON = 10.0
_DATA_SEGS_IN = 152
"""Offset of ``tcpi_data_segs_in`` in Linux's ``struct tcp_info`` (since Linux 4.6)."""


def data_segments_in(sock: socket.socket) -> int:
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return int(struct.unpack_from("I", info, _DATA_SEGS_IN)[0])


def app() -> tuple[FastAPI, asyncio.Event]:
    gate = asyncio.Event()
    served = FastAPI()

    @served.post("/mcp")
    async def mcp() -> dict[str, object]:
        return {"jsonrpc": "2.0", "result": {"status": "ok"}, "id": 1}

    @served.get("/stream")
    async def stream() -> StreamingResponse:
        async def lines() -> AsyncIterator[bytes]:
            await gate.wait()
            yield b"data: opened\n\n"

        return StreamingResponse(lines(), media_type="text/event-stream")

    return served, gate


@asynccontextmanager
async def serving(served: FastAPI) -> AsyncIterator[int]:
    sock = listening_socket()
    server = uvicorn.Server(server_config(served, lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        await task
        sock.close()


async def read_answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return head, await reader.readexactly(length)


def post(path: str, body: bytes, *, close: bool = False) -> bytes:
    connection = b"connection: close\r\n" if close else b""
    return (
        f"POST {path} HTTP/1.1\r\nhost: test\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n".encode()
        + connection
        + b"\r\n"
        + body
    )


async def test_each_answer_arrives_in_one_segment_on_a_kept_alive_connection() -> None:
    served, _ = app()
    async with serving(served) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        sock = writer.get_extra_info("socket")
        answers = []
        for _ in range(3):
            writer.write(post("/mcp", b'{"jsonrpc":"2.0","method":"x","id":1}'))
            answers.append(await asyncio.wait_for(read_answer(reader), _SOON))
        segments = data_segments_in(sock)
        writer.close()
        await writer.wait_closed()
    assert all(head.startswith(b"HTTP/1.1 200 OK") for head, _ in answers)
    assert all(b'"status":"ok"' in body for _, body in answers)
    assert segments == 3, f"3 answers came in {segments} segments: headers and body apart"


async def test_an_answer_that_closes_the_connection_is_sent_whole_first() -> None:
    served, _ = app()
    async with serving(served) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(post("/mcp", b"{}", close=True))
        head, body = await asyncio.wait_for(read_answer(reader), _SOON)
        rest = await asyncio.wait_for(reader.read(), _SOON)
        writer.close()
        await writer.wait_closed()
    assert b"connection: close" in head.lower()
    assert b'"status":"ok"' in body and rest == b""


async def test_a_stream_gets_its_headers_before_its_first_event() -> None:
    served, gate = app()
    async with serving(served) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /stream HTTP/1.1\r\nhost: test\r\n\r\n")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _SOON)
        gate.set()
        event = await asyncio.wait_for(reader.readuntil(b"\n\n"), _SOON)
        writer.close()
        await writer.wait_closed()
    assert head.startswith(b"HTTP/1.1 200 OK") and b"text/event-stream" in head
    assert event.endswith(b"data: opened\n\n")
