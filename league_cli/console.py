"""Terminal rendering with rich: standings tables and league status lines."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["console", "error_console", "standings_table", "status_line"]

console = Console()
error_console = Console(stderr=True)


def standings_table(standings: dict[str, Any], title: str = "Standings") -> Table:
    table = Table(title=f"{title} (version {standings.get('version', '?')})")
    for heading in ("#", "Player", "Id", "Played", "W", "D", "L", "Points"):
        table.add_column(heading, justify="left" if heading in ("Player", "Id") else "right")
    for row in standings["standings"]:
        table.add_row(str(row["rank"]), row.get("display_name", ""), row["player_id"],
                      str(row["played"]), str(row["wins"]), str(row["draws"]),
                      str(row["losses"]), f"{row['points']:g}")
    return table


def status_line(status: dict[str, Any]) -> str:
    current = status.get("current_round")
    where = f"round {current}/{status['total_rounds']}" if current else status["state"]
    if status.get("paused"):
        where += " (paused)"
    return (f"{status['league_id']}: {where}, {status['matches_completed']}/"
            f"{status['total_matches']} matches, {len(status['players'])} players, "
            f"{len(status['referees'])} referees")
