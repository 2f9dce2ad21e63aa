"""The calls ``check-player`` makes, one at a time, and what they tell about the player's
health on the way: reachable at all, alive after GAME_OVER, still answering, serving the
protocol's method names (transport.reachable, game_over.survives, jsonrpc.framing,
jsonrpc.method_names)."""

from __future__ import annotations

from typing import Any

from league_cli.conformance.answers import describe, judge_first_contact, judge_framing
from league_cli.conformance.probe import Exchange, Probe
from league_cli.conformance.report import Recorder
from sdk.config import SystemConfig

__all__ = ["PlayerCalls"]

_MAX_SILENT_CALLS = 3


class PlayerCalls:
    """Calls the player at ``url`` until it is ``gone``; each call bounded by its method's
    timeout."""

    def __init__(self, url: str, probe: Probe, recorder: Recorder, system: SystemConfig):
        self.url = url
        self.probe = probe
        self.recorder = recorder
        self.system = system
        self.reachable = True
        self.gone: str | None = None
        """Why the run stopped calling, once it did."""
        self.after_game_over: str | None = None
        """The match whose GAME_OVER was just sent: the next call tells if the player
        survived it."""
        self._calls = 0
        self._silent = 0
        self._method_names: dict[str, str] = {}

    async def call(self, method: str, params: Any, *, aliases: bool = True) -> Exchange | None:
        """Send one call unless the player is gone. A player that answers -32601 to the
        protocol's method name is asked once more by the message_type, as a lenient league's
        caller does (``sdk.client``), and called that way from then on."""
        if self.gone:
            return None
        name = self._method_names.get(method, method)
        timeout = self.system.timeout_for(method)
        exchange = await self._send(name, params, timeout=timeout)
        if not self.reachable:
            return None  # transport.reachable says it all
        alias = params.get("message_type") if isinstance(params, dict) else None
        if not aliases or not isinstance(alias, str) or not alias or alias == method:
            return exchange
        if name != method:
            return exchange  # already known to go by its message_type
        error = exchange.error
        if error is None or error.get("code") != -32601 or self.gone:
            if exchange.answered:
                self.recorder.passed("jsonrpc.method_names", "serves the protocol's method names")
            return exchange
        retried = await self._send(alias, params, timeout=timeout)
        unknown = retried.error is not None and retried.error.get("code") == -32601
        if not retried.answered or unknown:
            self.recorder.failed(
                "jsonrpc.method_names",
                f"serves neither {method} nor {alias}",
                evidence=exchange.evidence(),
                field="method",
                expected=f"{method} served",
                got=f"{method}: {describe(exchange)}; {alias}: {describe(retried)}",
            )
            return exchange
        self._method_names[method] = alias
        self.recorder.tolerated(
            "jsonrpc.method_names",
            f"answers -32601 to {method} and "
            f"serves it as {alias}, the message_type (a lenient league "
            "falls back to it; a strict one refuses, E016)",
            evidence=exchange.evidence(),
            field="method",
            expected=f"{method} served",
            got=f"{method}: {describe(exchange)}; served as {alias}",
        )
        return retried

    async def _send(self, method: str, params: Any, *, timeout: float) -> Exchange:
        """One request; what it tells about the player's health is noted on the way."""
        exchange = await self.probe.call(method, params, deadline=timeout)
        self._calls += 1
        if self._calls == 1:
            self._judge_first_contact(exchange)
        if self.after_game_over is not None:
            self._judge_survival(exchange, self.after_game_over)
            self.after_game_over = None
        judge_framing(self.recorder, exchange)
        if exchange.failure == "connect" and not self.gone:
            self.gone = f"the player stopped accepting connections (at {method})"
        elif exchange.failure == "timeout":
            self._silent += 1
            if self._silent >= _MAX_SILENT_CALLS:
                self.gone = (
                    f"the player did not answer {_MAX_SILENT_CALLS} calls in a row "
                    f"(the last: {method})"
                )
        else:
            self._silent = 0
        return exchange

    def _judge_first_contact(self, exchange: Exchange) -> None:
        if not judge_first_contact(self.recorder, exchange, who="the player", url=self.url):
            self.reachable = False
            self.gone = f"the player could not be reached at {self.url}"

    def _judge_survival(self, exchange: Exchange, match_id: str) -> None:
        if exchange.failure in ("connect", "dropped"):
            self.recorder.failed(
                "game_over.survives",
                f"after the GAME_OVER of {match_id} the "
                f"next call got no answer: {exchange.detail} (did the player "
                "exit?)",
                evidence=exchange.evidence(),
                field="connection",
                expected=f"an answer to {exchange.method}, the call after GAME_OVER",
                got=exchange.detail,
            )
        else:
            self.recorder.passed("game_over.survives", "still answers after GAME_OVER")
