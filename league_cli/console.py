"""Terminal rendering with rich: standings tables, league status lines, one-line errors."""

from __future__ import annotations

from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

__all__ = ["console", "error_console", "fail", "standings_table", "status_line"]

console = Console()
error_console = Console(stderr=True)


def fail(message: str, code: int = 1, *, stderr: bool = False) -> NoReturn:
    """Print ``error: message`` on one line (on stderr with ``stderr``) and exit with
    ``code``. The message is text, never markup: ``pip install '.[analysis]'``, a path in
    brackets or another agent's words print as written."""
    (error_console if stderr else console).print(
        f"[red]error:[/red] {escape(message)}", soft_wrap=True
    )
    raise typer.Exit(code)


def standings_table(standings: dict[str, Any], title: str = "Standings") -> Table:
    table = Table(title=f"{title} (version {standings.get('version', '?')})")
    for heading in ("#", "Player", "Id", "Played", "W", "D", "L", "Points"):
        table.add_column(heading, justify="left" if heading in ("Player", "Id") else "right")
    for row in standings["standings"]:
        table.add_row(
            str(row["rank"]),
            row.get("display_name", ""),
            row["player_id"],
            str(row["played"]),
            str(row["wins"]),
            str(row["draws"]),
            str(row["losses"]),
            f"{row['points']:g}",
        )
    return table


def status_line(status: dict[str, Any]) -> str:
    current = status.get("current_round")
    where = f"round {current}/{status['total_rounds']}" if current else status["state"]
    if status.get("paused"):
        where += " (paused)"
    return (
        f"{status['league_id']}: {where}, {status['matches_completed']}/"
        f"{status['total_matches']} matches, {len(status['players'])} players, "
        f"{len(status['referees'])} referees"
    )
