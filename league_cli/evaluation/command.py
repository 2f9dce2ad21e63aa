"""``league evaluate``: run an evaluation suite, show the verdicts, exit 1 when one fails.

    league evaluate suites/prisoners_dilemma.yaml --json out.json --parallel 8 --episodes 5

Exit codes: 0 every threshold passed (warnings allowed), 1 a threshold failed or no episode
finished, 2 the suite (or a flag) is unusable — one line, no traceback.
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
from league_cli.evaluation.report import evaluate as run_evaluation
from league_cli.evaluation.report import metrics_table, verdict_table, write_json
from league_cli.evaluation.suite import SuiteError, load_suite
from sdk.config import ConfigError, SharedDir

__all__ = ["evaluate"]

BAD_SUITE = 2


def _refuse(message: str) -> NoReturn:
    """One line (never wrapped, markup in the message shown as typed), exit 2."""
    console.print(f"[red]error:[/red] {escape(message)}", soft_wrap=True)
    raise typer.Exit(BAD_SUITE)


def evaluate(
    suite_path: Annotated[Path, typer.Argument(metavar="SUITE.yaml", help="the suite file")],
    json_path: Annotated[Path | None, typer.Option("--json", help="write the results as "
                                                   "JSON")] = None,
    parallel: Annotated[int | None, typer.Option(
        help="episodes at a time (default: the suite's 'parallel')", min=1, max=256)] = None,
    episodes: Annotated[int | None, typer.Option(
        help="play this many episodes instead of the suite's", min=1)] = None,
    seed: Annotated[int | None, typer.Option(help="instead of the suite's seed")] = None,
    shared_dir: Annotated[Path | None, typer.Option(
        "--shared-dir", help="SHARED folder for remote agents' timeouts and retries "
                             "(default: $LEAGUE_SHARED_DIR, else ./SHARED)")] = None,
) -> None:
    """Evaluate the suite's agent under test: play its episodes, compute its metrics with
    confidence intervals, check its thresholds (exit 1 when one fails)."""
    try:
        suite = load_suite(suite_path)
    except SuiteError as exc:
        _refuse(str(exc))
    overrides = {key: value for key, value in (("episodes", episodes), ("seed", seed))
                 if value is not None}
    if overrides:
        suite = suite.model_copy(update=overrides)
    try:
        shared = SharedDir(shared_dir) if suite.has_remote else None
        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                      transient=True) as progress:
            task = progress.add_task(f"{suite.name}", total=suite.episodes)
            evaluation = run_evaluation(suite, str(suite_path),
                                        parallel=parallel or suite.parallel, shared=shared,
                                        on_done=lambda _episode: progress.advance(task))
    except (ConfigError, UnknownGameError, ValidationError) as exc:
        _refuse(f"{suite_path}: {exc}")
    console.print(metrics_table(evaluation))
    console.print(verdict_table(evaluation))
    for episode in evaluation.episodes:
        if episode.failure:
            console.print(f"[yellow]episode {episode.index}:[/yellow] "
                          f"{escape(episode.failure)}", soft_wrap=True)
    if json_path:
        write_json(evaluation, json_path)
        console.print(f"wrote {json_path}")
    if evaluation.verdict == "fail":
        raise typer.Exit(1)
