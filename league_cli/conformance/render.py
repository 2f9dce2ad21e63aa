"""A conformance report in the terminal: one table row per check, then the offending JSON
of every WARN and FAIL, then the verdict."""

from __future__ import annotations

import json

from rich.console import Console, Group
from rich.json import JSON
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from league_cli.conformance.report import NOT_RUN, CheckResult, ConformanceReport, Status

__all__ = ["print_report", "report_table"]

_STYLE = {Status.PASS: "green", Status.WARN: "yellow", Status.FAIL: "bold red", Status.SKIP: "dim"}
_EVIDENCE_CHARS = 3000


def _not_run(result: CheckResult) -> bool:
    return result.status == Status.SKIP and result.reason.startswith(NOT_RUN)


def report_table(report: ConformanceReport) -> Table:
    """Every check that ran or was skipped for a reason of its own; the checks a stop left
    unrun are counted below the table, not listed."""
    mode = "strict" if report.strict else "lenient"
    table = Table(title=f"check-{report.kind} {report.target} ({mode})")
    table.add_column("Check", no_wrap=True)
    table.add_column("Status", justify="center")
    table.add_column("Latency", justify="right")
    table.add_column("Reason")
    for result in report.results:
        if _not_run(result):
            continue
        latency = f"{result.latency_ms:.0f} ms" if result.latency_ms is not None else ""
        table.add_row(
            result.name,
            Text(result.status.value, style=_STYLE[result.status]),
            latency,
            result.reason,
        )
    return table


def _evidence(result: CheckResult) -> Panel:
    text = json.dumps(result.evidence, ensure_ascii=False, default=str)
    body: Text
    if result.evidence is None:
        body = Text("")
    elif len(text) > _EVIDENCE_CHARS:
        body = Text(text[:_EVIDENCE_CHARS] + " …(cut; --json has it all)")
    else:
        body = JSON(text).text
        body.no_wrap, body.overflow = False, "fold"
    return Panel(
        Group(Text(result.reason), *_particulars(result), body),
        title=f"{result.name} {result.status.value}",
        title_align="left",
        border_style=_STYLE[result.status],
    )


def _particulars(result: CheckResult) -> list[Text]:
    """The field, what was expected, what came, and the protocol line (every WARN and
    FAIL has them; a PASS, none)."""
    lines = [
        Text(f"{label}: {value}", style="bold" if label != "rests on" else "dim")
        for label, value in (
            ("field", result.field),
            ("expected", result.expected),
            ("got", result.got),
            ("rests on", result.rests_on),
        )
        if value is not None
    ]
    return lines


def print_report(report: ConformanceReport, console: Console) -> None:
    console.print(report_table(report))
    for result in report.results:
        if result.status in (Status.WARN, Status.FAIL) and (result.evidence or result.rests_on):
            console.print(_evidence(result))
    not_run = [result for result in report.results if _not_run(result)]
    if not_run:
        console.print(f"[dim]{len(not_run)} more checks {not_run[0].reason}[/dim]")
    for note in report.notes:
        if not_run and note in not_run[0].reason:
            continue
        console.print(f"[dim]note: {note}[/dim]")
    counts = report.summary
    verdict = {
        0: "[green]no FAIL[/green]",
        1: "[bold red]FAIL[/bold red]",
        2: "[bold red]unreachable[/bold red]",
    }[report.exit_code]
    console.print(
        f"{counts['PASS']} PASS, {counts['WARN']} WARN, {counts['FAIL']} FAIL, "
        f"{counts['SKIP']} SKIP in {report.duration_ms / 1000:.1f} s: {verdict} "
        f"(exit {report.exit_code})"
    )
