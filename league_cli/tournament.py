"""``league tournament``: an in-process round robin of baseline strategies, ranked and shown.

    league tournament --game prisoners_dilemma --strategies tit_for_tat,always_defect,pavlov \\
        --turns 200 --repetitions 10 --noise 0.05 --seed 1 --csv out.csv --json out.json
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from games.matrix_games import MATRIX_GAMES
from games.strategies import build, strategies_for
from games.tournament import round_robin
from games.tournament_results import TournamentResult
from league_cli.console import console
from league_cli.console import fail as _fail

__all__ = ["ranking_table", "matrix_table", "tournament", "write_csv"]


def ranking_table(result: TournamentResult) -> Table:
    """The ranking: place, strategy, mean score per turn against the others."""
    table = Table(
        title=f"{result.game_type}: {result.turns} turns × {result.repetitions} "
        f"repetitions, noise {result.noise:g}, seed {result.seed}"
    )
    for heading in ("#", "Strategy", "Score per turn"):
        table.add_column(heading, justify="left" if heading == "Strategy" else "right")
    for standing in result.ranking:
        table.add_row(str(standing.rank), standing.name, f"{standing.score_per_turn:.4f}")
    return table


def matrix_table(result: TournamentResult) -> Table:
    """The payoff matrix: the row strategy's mean score per turn against the column's."""
    table = Table(title="Mean score per turn (row against column)")
    table.add_column("")
    for name in result.names:
        table.add_column(name, justify="right")
    for name, row in zip(result.names, result.payoff_matrix, strict=True):
        table.add_row(name, *(f"{value:.3f}" for value in row))
    return table


def write_csv(result: TournamentResult, path: Path) -> None:
    """One row per strategy, in ranking order: rank, strategy, score per turn, then its row
    of the payoff matrix (one column per opponent)."""
    index = {name: i for i, name in enumerate(result.names)}
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["rank", "strategy", "score_per_turn", *result.names])
        for standing in result.ranking:
            row = result.payoff_matrix[index[standing.name]]
            writer.writerow(
                [
                    standing.rank,
                    standing.name,
                    standing.score_per_turn,
                    *(float(value) for value in row),
                ]
            )


def tournament(
    game: Annotated[str, typer.Option(help=f"one of: {', '.join(sorted(MATRIX_GAMES))}")],
    strategies: Annotated[
        str | None,
        typer.Option(help="comma-separated strategy names (default: every baseline of the game)"),
    ] = None,
    turns: Annotated[int, typer.Option(help="stages per match")] = 200,
    repetitions: Annotated[int, typer.Option(help="matches per pair")] = 10,
    noise: Annotated[
        float, typer.Option(help="probability that each action is flipped, 0 to 1")
    ] = 0.0,
    seed: Annotated[int | None, typer.Option(help="seed for a reproducible run")] = None,
    csv_path: Annotated[
        Path | None, typer.Option("--csv", help="write the ranking and payoff matrix as CSV")
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="write every result as JSON")
    ] = None,
) -> None:
    """Play a round robin of baseline strategies at a repeated matrix game (self-play
    included) and show the ranking and the payoff matrix."""
    if game not in MATRIX_GAMES:
        _fail(f"unknown game {game!r}; the games are: {', '.join(sorted(MATRIX_GAMES))}")
    known = strategies_for(game)
    names = [n.strip() for n in strategies.split(",") if n.strip()] if strategies else known
    unknown = [name for name in names if name not in known]
    if unknown:
        _fail(
            f"unknown strategy {', '.join(unknown)} for {game}; its strategies are: "
            f"{', '.join(known)}"
        )
    try:
        result = round_robin(
            game,
            [build(game, name) for name in names],
            turns=turns,
            repetitions=repetitions,
            noise=noise,
            seed=seed,
        )
    except ValueError as exc:
        _fail(str(exc))
    console.print(ranking_table(result))
    console.print(matrix_table(result))
    if csv_path:
        write_csv(result, csv_path)
        console.print(f"wrote {csv_path}")
    if json_path:
        json_path.write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_path}")
