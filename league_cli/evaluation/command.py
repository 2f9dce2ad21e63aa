"""``league evaluate``: run an evaluation suite, show the verdicts, and say the overall one
in the exit code, so CI can tell a warning from a failure.

    league evaluate suites/prisoners_dilemma.yaml --json out.json --parallel 8 --episodes 5
    league evaluate suites/prisoners_dilemma.yaml --html report.html  # one file, offline
    league evaluate mine.yaml --output runs/ --full-transcript   # every message, bounded

Exit codes: 0 every threshold passed, 1 a threshold failed or no episode finished, 2 the
suite (or a flag) is unusable — one line, no traceback —, 3 none failed but one warned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from pydantic import ValidationError
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from games import UnknownGameError
from league_cli.console import console
from league_cli.evaluation.html_report import write_html
from league_cli.evaluation.report import evaluate as run_evaluation
from league_cli.evaluation.report import metrics_table, verdict_table, write_json
from league_cli.evaluation.suite import SuiteError
from league_cli.evaluation.suite_file import load_suite
from league_cli.evaluation.transcript import (
    TRANSCRIPT_MAX_BYTES,
    Transcript,
    transcript_folder,
)
from sdk.config import ConfigError, SharedDir
from sdk.errors import FileSystemError

__all__ = ["evaluate"]

FAILED = 1
BAD_SUITE = 2
WARNED = 3
"""A warning is not a pass: a CI job that only checks for failure reads 3 as one too, and one
that tolerates warnings says so (``|| [ $? -eq 3 ]``)."""


def _refuse(message: str) -> NoReturn:
    """One line (never wrapped, markup in the message shown as typed), exit 2."""
    console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(BAD_SUITE)


def _show_transcript(transcript: Transcript) -> None:
    if transcript.path is None:
        console.print("no transcript written: --output DIR (or --shared-dir) keeps one")
        return
    line = (
        f"transcript ({transcript.mode}, {transcript.size / 1024:,.0f} KiB): "
        f"{escape(str(transcript.path))}"
    )
    if transcript.withheld:
        line += (
            f" [yellow]— stopped at {transcript.max_bytes // 2**20} MiB, "
            f"{transcript.withheld} records not written[/yellow]"
        )
    console.print(line, soft_wrap=True)


def evaluate(
    suite_path: Annotated[Path, typer.Argument(metavar="SUITE.yaml", help="the suite file")],
    json_path: Annotated[
        Path | None, typer.Option("--json", help="write the results as JSON")
    ] = None,
    html_path: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="write the report as one self-contained HTML file (no network needed to open it)",
        ),
    ] = None,
    parallel: Annotated[
        int | None,
        typer.Option(help="episodes at a time (default: the suite's 'parallel')", min=1, max=256),
    ] = None,
    episodes: Annotated[
        int | None, typer.Option(help="play this many episodes instead of the suite's", min=1)
    ] = None,
    seed: Annotated[int | None, typer.Option(help="instead of the suite's seed")] = None,
    shared_dir: Annotated[
        Path | None,
        typer.Option(
            "--shared-dir",
            help="SHARED folder for remote agents' timeouts and retries "
            "(default: $LEAGUE_SHARED_DIR, else ./SHARED)",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="folder for a remote run's transcript (default: the --shared-dir "
            "or $LEAGUE_SHARED_DIR given, under logs/evaluations; neither: "
            "none is written)",
        ),
    ] = None,
    full_transcript: Annotated[
        bool,
        typer.Option(
            "--full-transcript",
            help="every message sent and received, not the summary (one "
            "record per episode, warnings and errors in full)",
        ),
    ] = False,
    transcript_max_mb: Annotated[
        int,
        typer.Option(
            "--transcript-max-mb",
            min=1,
            help="the transcript stops at this size, with a record saying so",
        ),
    ] = TRANSCRIPT_MAX_BYTES // 2**20,
) -> None:
    """Evaluate the suite's agent under test: play its episodes, compute its metrics with
    confidence intervals, check its thresholds.

    Exit codes:
    0 every threshold passed,
    1 a threshold failed (or no episode finished),
    2 the suite file or a flag is unusable,
    3 no threshold failed but one warned.
    """
    try:
        suite = load_suite(suite_path)
    except SuiteError as exc:
        _refuse(str(exc))
    overrides = {
        key: value for key, value in (("episodes", episodes), ("seed", seed)) if value is not None
    }
    if overrides:
        suite = suite.model_copy(update=overrides)
    transcript = None
    if suite.has_remote:
        transcript = Transcript(
            transcript_folder(output, shared_dir),
            suite.name,
            full=full_transcript,
            max_bytes=transcript_max_mb * 2**20,
        )
    try:
        shared = SharedDir(shared_dir) if suite.has_remote else None
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as progress:
            task = progress.add_task(f"{suite.name}", total=suite.episodes)
            evaluation = run_evaluation(
                suite,
                str(suite_path),
                parallel=parallel or suite.parallel,
                shared=shared,
                transcript=transcript,
                on_done=lambda _episode: progress.advance(task),
            )
    except (ConfigError, UnknownGameError, ValidationError) as exc:
        _refuse(f"{suite_path}: {exc}")
    except FileSystemError as exc:
        _refuse(str(exc))
    console.print(metrics_table(evaluation))
    for metric in evaluation.metrics:
        if metric.note:
            console.print(f"[yellow]{metric.key}:[/yellow] {escape(metric.note)}", soft_wrap=True)
    console.print(verdict_table(evaluation))
    for episode in evaluation.episodes:
        if episode.failure:
            console.print(
                f"[yellow]episode {episode.index}:[/yellow] {escape(episode.failure)}",
                soft_wrap=True,
            )
    if transcript is not None:
        _show_transcript(transcript)
    if json_path:
        write_json(evaluation, json_path)
        console.print(f"wrote {escape(str(json_path))}", soft_wrap=True)
    if html_path:
        write_html(evaluation, html_path)
        console.print(f"wrote {escape(str(html_path))}", soft_wrap=True)
    if evaluation.verdict == "fail":
        raise typer.Exit(FAILED)
    if evaluation.verdict == "warn":
        raise typer.Exit(WARNED)
