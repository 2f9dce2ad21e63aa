"""The report: observations merged per check (the worst wins), lenient and strict, exit
statuses, tokens redacted from evidence."""

from __future__ import annotations

import pytest

from league_cli.conformance import LEAGUE_CHECKS, PLAYER_CHECKS
from league_cli.conformance.protocol_lines import rests_on
from league_cli.conformance.report import ConformanceReport, Recorder, Status
from sdk.auth import redact

CATALOGUE = {"a.one": "first", "b.two": "second", "c.three": "third"}
ABOUT = {"field": "parity_choice", "expected": '"even" or "odd"', "got": "EVEN"}
"""What a WARN or FAIL is about."""


def report_of(recorder: Recorder, reachable: bool = True) -> ConformanceReport:
    return ConformanceReport(
        kind="player",
        target="http://x/mcp",
        strict=recorder.strict,
        started_at="2025-01-15T10:00:00Z",
        duration_ms=1.0,
        reachable=reachable,
        results=recorder.results(),
    )


def test_the_worst_observation_wins_and_says_how_often() -> None:
    recorder = Recorder(CATALOGUE, strict=False)
    recorder.passed("a.one", "fine", latency_ms=3.0)
    recorder.failed("a.one", "broken", latency_ms=9.0, evidence={"answer": 1}, **ABOUT)
    recorder.passed("a.one", "fine", latency_ms=4.0)
    result = report_of(recorder).result("a.one")
    assert result.status == Status.FAIL
    assert result.reason == "broken (1 of 3 observations)"
    assert result.latency_ms == 9.0 and result.observations == 3
    assert result.evidence == {"answer": 1}


@pytest.mark.parametrize(("strict", "expected"), [(False, Status.WARN), (True, Status.FAIL)])
def test_a_tolerated_variation_fails_only_under_strict(strict: bool, expected: Status) -> None:
    recorder = Recorder(CATALOGUE, strict=strict)
    recorder.tolerated("b.two", "no envelope", **ABOUT)
    report = report_of(recorder)
    assert report.result("b.two").status == expected
    assert report.exit_code == (1 if strict else 0)


def test_unobserved_checks_are_skipped_with_the_reason_a_stop_gives() -> None:
    recorder = Recorder(CATALOGUE, strict=False)
    recorder.failed("a.one", "cannot connect", **ABOUT)
    recorder.not_run_reason = "the player could not be reached"
    report = report_of(recorder, reachable=False)
    assert report.result("c.three").status == Status.SKIP
    assert report.result("c.three").reason == "not run: the player could not be reached"
    assert report.exit_code == 2
    assert report.summary == {"PASS": 0, "WARN": 0, "FAIL": 1, "SKIP": 2}


def test_evidence_never_holds_a_token_in_full() -> None:
    recorder = Recorder(CATALOGUE, strict=False)
    recorder.failed(
        "a.one",
        "x",
        evidence={"request": {"params": {"auth_token": "abcdefgh"}}},
        field="auth_token",
        expected="a proof",
        got={"auth_token": "abcdefgh"},
    )
    result = report_of(recorder).result("a.one")
    assert result.evidence == {"request": {"params": {"auth_token": redact("abcdefgh")}}}
    assert result.got == f'{{"auth_token": "{redact("abcdefgh")}"}}'


def test_passing_checks_keep_no_evidence_and_unknown_names_are_refused() -> None:
    recorder = Recorder(CATALOGUE, strict=False)
    recorder.record("a.one", Status.PASS, "fine", evidence={"answer": 1}, **ABOUT)
    passed = report_of(recorder).result("a.one")
    assert passed.evidence is passed.field is passed.got is passed.rests_on is None
    with pytest.raises(ValueError, match="not in the catalogue"):
        recorder.passed("z.unknown", "?")


def test_a_warn_or_fail_says_what_it_is_about() -> None:
    recorder = Recorder(CATALOGUE, strict=False)
    recorder.failed("a.one", "no choice", field="parity_choice", expected="present", got=None)
    result = report_of(recorder).result("a.one")
    assert (result.field, result.expected, result.got) == ("parity_choice", "present", "null")
    for status in (Status.WARN, Status.FAIL):
        with pytest.raises(ValueError, match="names no field"):
            recorder.record("b.two", status, "something is wrong")


@pytest.mark.parametrize("name", sorted(set(PLAYER_CHECKS) | set(LEAGUE_CHECKS)))
def test_every_check_rests_on_a_protocol_line(name: str) -> None:
    assert rests_on(name), f"{name} names no protocol line for its WARN or FAIL"
