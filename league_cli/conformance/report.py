"""The report of a conformance run: one result per named check, and the recorder that
merges every observation of a check into that result."""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, Field, computed_field
from typing_extensions import NotRequired, Unpack

from league_cli.conformance.protocol_lines import rests_on
from sdk.auth import redact_tokens

__all__ = [
    "NOT_RUN",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNREACHABLE",
    "CheckResult",
    "ConformanceReport",
    "Finding",
    "Recorder",
    "Status",
]

NOT_RUN = "not run: "
"""How the reason of a check that a stop (an unreachable or vanished agent) left unrun
begins."""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNREACHABLE = 2


class Status(str, Enum):
    """How a check ended. FAIL breaks the protocol; WARN is a tolerated variation (a FAIL
    under ``--strict``) or advice; SKIP was not run or had nothing to judge."""

    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"


_SEVERITY = {Status.SKIP: 0, Status.PASS: 1, Status.WARN: 2, Status.FAIL: 3}


class CheckResult(BaseModel):
    """One named check: its verdict over every time it was applied."""

    name: str
    status: Status
    reason: str
    latency_ms: float | None = Field(default=None, description="the slowest measured answer")
    evidence: dict[str, Any] | None = Field(
        default=None, description="the offending request and answer (tokens redacted)"
    )
    observations: int = Field(default=0, description="how many times the check was applied")
    field: str | None = Field(default=None, description="the field a WARN or FAIL is about")
    expected: str | None = Field(default=None, description="what the protocol expects there")
    got: str | None = Field(default=None, description="what came")
    rests_on: str | None = Field(
        default=None, description="the protocol line a WARN or FAIL rests on"
    )


class ConformanceReport(BaseModel):
    """Everything a run found, in the catalogue's order."""

    kind: Literal["player", "league"]
    target: str
    strict: bool
    started_at: str
    duration_ms: float
    reachable: bool
    results: list[CheckResult]
    notes: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]  # mypy allows no decorator over @property
    @property
    def summary(self) -> dict[str, int]:
        counts = {status.value: 0 for status in Status}
        for result in self.results:
            counts[result.status.value] += 1
        return counts

    @computed_field  # type: ignore[prop-decorator]  # mypy allows no decorator over @property
    @property
    def exit_code(self) -> int:
        """0 without a FAIL, 1 with one, 2 when the target could not be reached at all."""
        if not self.reachable:
            return EXIT_UNREACHABLE
        if any(result.status == Status.FAIL for result in self.results):
            return EXIT_FAILED
        return EXIT_OK

    def result(self, name: str) -> CheckResult:
        """The result of check ``name``.

        Raises:
            KeyError: no check has that name.
        """
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)


class _Observation(BaseModel):
    status: Status
    reason: str
    latency_ms: float | None = None
    evidence: dict[str, Any] | None = None
    field: str | None = None
    expected: str | None = None
    got: str | None = None


class Finding(TypedDict):
    """What a WARN or FAIL is about: the ``field``, what was ``expected`` there and what was
    ``got`` (any JSON value), with the answer's latency and evidence when there is one."""

    field: str
    expected: str
    got: Any
    latency_ms: NotRequired[float | None]
    evidence: NotRequired[dict[str, Any] | None]


class Recorder:
    """Collects observations by check name; ``results`` merges them (the worst wins).

    ``tolerated`` is the lenient/strict switch: a variation the protocol text does not allow
    but agents commonly make is a WARN, and a FAIL under ``strict``.
    """

    def __init__(self, catalogue: Mapping[str, str], *, strict: bool):
        self._catalogue = catalogue
        self.strict = strict
        self._seen: dict[str, list[_Observation]] = {}
        self.not_run_reason: str | None = None

    def record(
        self,
        name: str,
        status: Status,
        reason: str,
        *,
        latency_ms: float | None = None,
        evidence: dict[str, Any] | None = None,
        field: str | None = None,
        expected: str | None = None,
        got: Any = None,
    ) -> None:
        """One observation. A WARN or FAIL says which ``field`` was wrong, what was
        ``expected`` there and what was ``got`` (shown as JSON; None is JSON's null).

        Raises:
            ValueError: ``name`` is not in the catalogue, or a WARN or FAIL names no field
                or expectation.
        """
        if name not in self._catalogue:
            raise ValueError(f"check {name!r} is not in the catalogue")
        bad = status in (Status.WARN, Status.FAIL)
        if bad and not (field and expected):
            raise ValueError(f"a {status.value} of {name} names no field or expectation")
        self._seen.setdefault(name, []).append(
            _Observation(
                status=status,
                reason=reason,
                latency_ms=latency_ms,
                evidence=redact_tokens(evidence) if evidence and bad else None,
                field=field if bad else None,
                expected=expected if bad else None,
                got=_shown(redact_tokens({"got": got})["got"]) if bad else None,
            )
        )

    def passed(self, name: str, reason: str, *, latency_ms: float | None = None) -> None:
        self.record(name, Status.PASS, reason, latency_ms=latency_ms)

    def failed(self, name: str, reason: str, **finding: Unpack[Finding]) -> None:
        """FAIL: the protocol is broken."""
        self.record(name, Status.FAIL, reason, **finding)

    def warned(self, name: str, reason: str, **finding: Unpack[Finding]) -> None:
        """WARN in both modes: advice, or what the protocol does not require."""
        self.record(name, Status.WARN, reason, **finding)

    def tolerated(self, name: str, reason: str, **finding: Unpack[Finding]) -> None:
        """WARN, or FAIL under --strict: a variation a lenient league takes."""
        self.record(name, Status.FAIL if self.strict else Status.WARN, reason, **finding)

    def skipped(self, name: str, reason: str) -> None:
        self.record(name, Status.SKIP, reason)

    def worst(self, name: str) -> Status | None:
        seen = self._seen.get(name)
        return max((o.status for o in seen), key=_SEVERITY.__getitem__) if seen else None

    def results(self) -> list[CheckResult]:
        return [self._merge(name) for name in self._catalogue]

    def _merge(self, name: str) -> CheckResult:
        seen = self._seen.get(name, [])
        if not seen:
            reason = (
                f"{NOT_RUN}{self.not_run_reason}"
                if self.not_run_reason
                else "nothing to judge in this run"
            )
            return CheckResult(name=name, status=Status.SKIP, reason=reason)
        status = max((o.status for o in seen), key=_SEVERITY.__getitem__)
        worst = [o for o in seen if o.status == status]
        reason = worst[0].reason
        if len(seen) > 1 and status in (Status.WARN, Status.FAIL):
            reason += f" ({len(worst)} of {len(seen)} observations)"
        latencies = [o.latency_ms for o in seen if o.latency_ms is not None]
        evidence = next((o.evidence for o in worst if o.evidence), None)
        bad = status in (Status.WARN, Status.FAIL)
        return CheckResult(
            name=name,
            status=status,
            reason=reason,
            latency_ms=max(latencies) if latencies else None,
            evidence=evidence,
            observations=len(seen),
            field=worst[0].field,
            expected=worst[0].expected,
            got=worst[0].got,
            rests_on=rests_on(name) if bad else None,
        )


_GOT_CHARS = 200


def _shown(value: Any) -> str:
    """What came, as the report shows it: JSON, cut."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _GOT_CHARS else text[:_GOT_CHARS] + "…"
