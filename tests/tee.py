"""An HTTP tee for tests of several League Managers: a referee's result report (the JSON-RPC
call ``report_match_result``, alone or in a batch of reports) is sent to every backend at
once, so that their writes of one result really race, and every backend's answer is kept;
the client is answered by the first backend's answer (the next one's where it gave none).
Every other request (registrations, queries, GETs) goes to the first backend alone, or to
the next where it cannot be reached: a registration sent to both would be refused by one of
them (the name is taken), which is not what is tested here. Answers are read whole, so a
stream (``GET /events``) is not for it.

It runs its own event loop in a thread, on loopback, until the ``with`` block ends (as
``tests/balancer.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web

from sdk.messages import Method

__all__ = ["NO_ANSWER", "Tee", "TeedReport", "tee"]

NO_ANSWER = "no answer"
"""A backend's status in a report that it did not answer (unreachable, no JSON-RPC body)."""
TIMEOUT_SEC = 30.0
"""How long a backend may take to answer one request."""
SHUTDOWN_SEC = 2.0
"""How long the requests under way may take to end when the tee stops."""
_HOP_BY_HOP = frozenset(
    {"connection", "content-length", "host", "keep-alive", "transfer-encoding", "upgrade"}
)
"""Headers of one connection, not of the message: never relayed."""


@dataclass(frozen=True)
class TeedReport:
    """One result report as the tee delivered it to every backend, and their answers."""

    match_id: str
    answers: tuple[dict[str, Any] | None, ...]
    """Each backend's JSON-RPC answer, in the backends' order (None: it gave none)."""

    def statuses(self) -> tuple[str, ...]:
        """Each backend's answer in a word: the ack's status (RECORDED, DUPLICATE), a
        refusal's error code (E014…), a JSON-RPC error's code, or ``NO_ANSWER``."""
        return tuple(_status(answer) for answer in self.answers)

    def why(self) -> str:
        """The report's match and each backend's answer in a few words, for a message."""
        said = [
            f"{status} {(answer or {}).get('result', {}).get('error_description', '')}".strip()
            for status, answer in zip(self.statuses(), self.answers, strict=True)
        ]
        return f"{self.match_id}: {' | '.join(said)}"


def _status(answer: dict[str, Any] | None) -> str:
    if answer is None:
        return NO_ANSWER
    result = answer.get("result")
    if isinstance(result, dict):
        return str(result.get("status") or result.get("error_code") or result)
    return f"JSON-RPC {answer.get('error', answer)}"


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: dict[str, str]
    body: bytes


class Tee:
    """The tee's state: where it serves and every report it delivered (appended from the
    tee's thread; read a copy: ``list(tee.reports)``)."""

    def __init__(self, backends: list[str]):
        self._backends = backends
        self.port = 0
        self.reports: list[TeedReport] = []
        self._session: aiohttp.ClientSession | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        reported = _reported_matches(request.method, body)
        if not reported:
            for backend in self._backends:
                answer = await self._send(backend, request, headers, body)
                if answer is not None:
                    return _reply(answer)
            return web.Response(status=502, text="no backend answered")
        answers = await asyncio.gather(
            *(self._send(backend, request, headers, body) for backend in self._backends)
        )
        said = [_answers_by_id(answer) for answer in answers]
        for match_id, request_id in reported:
            self.reports.append(TeedReport(match_id, tuple(s.get(request_id) for s in said)))
        given = next((answer for answer in answers if answer is not None), None)
        if given is None:
            return web.Response(status=502, text="no backend answered")
        return _reply(given)

    async def _send(
        self, backend: str, request: web.Request, headers: dict[str, str], body: bytes
    ) -> _Answer | None:
        """The backend's whole answer to the request, or None where it gave none."""
        assert self._session is not None
        try:
            async with self._session.request(
                request.method, f"{backend}{request.rel_url}", headers=headers, data=body
            ) as response:
                return _Answer(
                    response.status,
                    {k: v for k, v in response.headers.items() if k.lower() not in _HOP_BY_HOP},
                    await response.read(),
                )
        except (aiohttp.ClientError, asyncio.TimeoutError):
            return None

    async def serve(self, port: int, started: threading.Event, stop: asyncio.Event) -> None:
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=TIMEOUT_SEC),
            connector=aiohttp.TCPConnector(limit=0),
            auto_decompress=False,
        )
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_SEC)
        await runner.setup()
        try:
            site = web.TCPSite(runner, "127.0.0.1", port)
            await site.start()
            self.port = int(runner.addresses[0][1])
            started.set()
            await stop.wait()
        finally:
            await runner.cleanup()
            await self._session.close()


def _reported_matches(method: str, body: bytes) -> list[tuple[str, str]]:
    """The match and request id (as text) of each ``report_match_result`` call of a request
    that holds only such calls, alone or in a batch (none: any other request)."""
    if method != "POST":
        return []
    try:
        payload = json.loads(body)
    except ValueError:
        return []
    calls = payload if isinstance(payload, list) else [payload]
    reported = []
    for call in calls:
        if not isinstance(call, dict) or call.get("method") != Method.REPORT_MATCH_RESULT:
            return []
        params = call.get("params")
        match_id = params.get("match_id") if isinstance(params, dict) else None
        reported.append((str(match_id), str(call.get("id"))))
    return reported


def _answers_by_id(answer: _Answer | None) -> dict[str, dict[str, Any]]:
    """A backend's JSON-RPC answers by request id as text (none where it gave none)."""
    try:
        payload = json.loads(answer.body) if answer is not None else None
    except ValueError:
        return {}
    answers = payload if isinstance(payload, list) else [payload]
    return {str(a.get("id")): a for a in answers if isinstance(a, dict)}


def _reply(answer: _Answer) -> web.Response:
    return web.Response(status=answer.status, headers=answer.headers, body=answer.body)


@contextmanager
def tee(port: int, backends: list[str]) -> Iterator[Tee]:
    """Serve the tee on 127.0.0.1:``port`` (0: the kernel's choice, bound from the start)
    in front of the ``backends`` base URLs (``http://127.0.0.1:8001``), until the block
    ends."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()
    relay = Tee(backends)
    failed: list[BaseException] = []

    def run() -> None:
        try:
            loop.run_until_complete(relay.serve(port, started, stop))
        except BaseException as exc:  # told to the test below, not lost in the thread
            failed.append(exc)
            started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        assert started.wait(10), "the tee did not start"
        assert not failed, f"the tee did not start: {failed[0]!r}"
        yield relay
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        with contextlib.suppress(Exception):
            loop.close()
