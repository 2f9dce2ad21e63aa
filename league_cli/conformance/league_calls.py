"""The calls ``check-league`` makes to the League Manager and the judging every answer shares:
reachable at all (transport.reachable), well framed, a result in time, its envelope."""

from __future__ import annotations

from typing import Any

from league_cli.conformance.answers import (
    AnswerKind,
    describe,
    judge_envelope,
    judge_first_contact,
    judge_framing,
    kind_of,
)
from league_cli.conformance.probe import Exchange, Probe
from league_cli.conformance.report import Recorder
from sdk.config import SystemConfig

__all__ = ["LeagueCalls"]


class LeagueCalls:
    """Calls the League Manager at ``url`` until it is ``gone``; each call bounded by its
    method's timeout."""

    def __init__(self, url: str, probe: Probe, recorder: Recorder, system: SystemConfig):
        self.url = url
        self.probe = probe
        self.recorder = recorder
        self.system = system
        self.reachable = True
        self.gone: str | None = None
        """Why the run stopped calling, once it did."""
        self._calls = 0

    async def call(self, method: str, params: Any) -> Exchange | None:
        """One call, unless the League Manager is gone; None when there is nothing to judge."""
        if self.gone:
            return None
        exchange = await self.probe.call(method, params, deadline=self.system.timeout_for(method))
        self._calls += 1
        if self._calls == 1:
            if not judge_first_contact(
                self.recorder, exchange, who="the League Manager", url=self.url
            ):
                self.reachable = False
                self.gone = f"the League Manager could not be reached at {self.url}"
        elif exchange.failure == "connect":
            self.gone = f"the League Manager stopped accepting connections (at {method})"
        if not self.reachable:
            return None  # transport.reachable says it all
        judge_framing(self.recorder, exchange)
        return exchange

    def judge_answer(self, check: str, exchange: Exchange) -> bool:
        """A result object, not an error, within the method's timeout."""
        limit = self.system.timeout_for(exchange.method)
        latency = exchange.latency_ms
        if kind_of(exchange) != AnswerKind.RESULT or not isinstance(exchange.result, dict):
            self.recorder.failed(
                check,
                f"{exchange.method}: {describe(exchange)}",
                latency_ms=latency,
                evidence=exchange.evidence(),
                field="result",
                expected="a JSON-RPC result holding the method's answer message",
                got=describe(exchange),
            )
            return False
        if latency is not None and latency > limit * 1000:
            self.recorder.failed(
                check,
                f"{exchange.method}: answered in {latency:.0f} ms, after its {limit:g} s timeout",
                latency_ms=latency,
                evidence=exchange.evidence(),
                field="latency",
                expected=f"an answer within {limit:g} s",
                got=f"an answer after {latency:.0f} ms",
            )
        else:
            self.recorder.passed(check, f"answered with {describe(exchange)}", latency_ms=latency)
        return True

    def judge_envelope(
        self,
        message: dict[str, Any],
        exchange: Exchange,
        expected_type: str,
        conversation_id: str,
        missing: list[str],
    ) -> None:
        judge_envelope(
            self.recorder,
            message,
            where=exchange.method,
            evidence=exchange.evidence(),
            expected_type=expected_type,
            expected_sender=self.system.league_manager_sender,
            conversation_id=conversation_id,
            missing=missing,
        )
