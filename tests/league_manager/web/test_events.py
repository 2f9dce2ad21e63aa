"""The live event stream: the hub's bounds in process, then ``GET /events`` of a real League
Manager process read with httpx, and its shutdown with a stream open."""

from __future__ import annotations

import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from league_manager.web.events import EventHub, TooManyStreams
from tests.conftest import free_port, make_shared_dir
from tests.league_manager.event_stream import read_event, register_player_call


async def frames(stream: AsyncIterator[str], count: int) -> list[str]:
    return [await anext(stream) for _ in range(count)]


async def test_a_stream_says_hello_then_carries_public_events_in_order() -> None:
    hub = EventHub()
    stream = hub.stream(hub.open())
    hello = await anext(stream)
    assert hello.startswith("retry: ") and "event: hello" in hello
    hub.publish("registration_rejected", {"endpoint": "http://stranger"})
    hub.publish("result_recorded", {"match_id": "R1M1"})
    hub.publish("round_completed", {"round_id": 1})
    first, second = await frames(stream, 2)
    assert first == 'id: 1\nevent: result_recorded\ndata: {"match_id":"R1M1"}\n\n'
    assert second.startswith("id: 2\nevent: round_completed\n"), "private events are not sent"
    await stream.aclose()
    assert hub.streams == 0, "a stream that ends gives its queue back"


async def test_a_slow_reader_gets_one_resync_not_a_backlog() -> None:
    hub = EventHub(queue_size=3)
    queue = hub.open()
    stream = hub.stream(queue, heartbeat_sec=0.05)
    await anext(stream)
    for n in range(10):
        hub.publish("result_recorded", {"n": n})
        assert queue.qsize() <= 3, "never more than queue_size events held for one client"
    assert await anext(stream) == "id: 10\nevent: resync\ndata: {}\n\n", (
        "what overflowed is replaced by one resync (refetch everything)"
    )
    hub.publish("league_completed", {"champion": "P01"})
    assert "event: league_completed" in await anext(stream), "then events flow again"
    assert await anext(stream) == ": heartbeat\n\n"
    await stream.aclose()


async def test_heartbeats_while_idle_and_close_ends_every_stream() -> None:
    hub = EventHub(max_streams=2)
    first = hub.stream(hub.open(), heartbeat_sec=0.05)
    second = hub.stream(hub.open())
    with pytest.raises(TooManyStreams, match="2 event streams are open already"):
        hub.open()
    await anext(first)
    await anext(second)
    assert await anext(first) == ": heartbeat\n\n"
    hub.close()
    assert [frame async for frame in first] == [] and [frame async for frame in second] == []
    assert hub.streams == 0
    late = hub.stream(hub.open())
    assert "event: hello" in await anext(late)
    assert [frame async for frame in late] == [], "after close a new stream ends at once"


@pytest.fixture
def launcher(tmp_path: Path) -> Iterator[Launcher]:
    launched = Launcher(make_shared_dir(tmp_path / "SHARED").root)
    try:
        yield launched
    finally:
        launched.stop_all()


@pytest.mark.e2e
def test_a_real_league_manager_streams_events_and_shuts_down_with_a_stream_open(
    launcher: Launcher,
) -> None:
    manager = launcher.manager(free_port())
    launcher.wait_healthy(manager)
    timeout = httpx.Timeout(10, read=10)
    with (
        httpx.Client(timeout=timeout) as client,
        client.stream("GET", f"{manager.base_url}/events") as stream,
    ):
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        read_event(lines, "hello", time.monotonic() + 10)
        answer = httpx.post(manager.mcp_url, json=register_player_call("Streamed"), timeout=10)
        assert answer.json()["result"]["status"] == "ACCEPTED"
        data = read_event(lines, "player_registered", time.monotonic() + 10)
        assert data["display_name"] == "Streamed" and data["agent_id"] == "P01"

        stopping = time.monotonic()
        manager.popen.send_signal(signal.SIGTERM)
        rest = list(lines)  # the server ends the stream: iteration stops, no error
        manager.popen.wait(10)
        took = time.monotonic() - stopping
    output = manager.output.read_text()
    assert manager.popen.returncode in (0, -signal.SIGTERM), output  # uvicorn re-raises it
    assert "timeout graceful shutdown exceeded" not in output, output
    assert all(not line.startswith("event: ") for line in rest)
    assert took < 4, f"shutdown took {took:.1f} s with a stream open (the graceful limit is 5)"
