"""``league store``: moving a league between its JSON files under SHARED/data and the
League Manager's PostgreSQL database (``league store export``, ``league store import``).
Move a stopped league: a League Manager writing its files meanwhile is not waited for."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from league_cli.console import console, fail
from league_cli.db import StoreOpt, store_target
from league_cli.options import LeagueIdOpt, SharedOpt, shared_of
from league_manager.pg import PgStoreError
from league_manager.pg.transfer import Moved, export_league, import_league
from sdk.config import ConfigError
from sdk.errors import FileSystemError
from sdk.store import StoreError

__all__ = ["EXIT_MOVE_REFUSED", "store_app"]

EXIT_MOVE_REFUSED = 2
"""The exit code of a move that cannot be made: the database missing, unreachable or
refusing, the league absent where it is taken from or already where it would go, its files
damaged beyond recovery or refused by the file system (1: a configuration file is wrong)."""

ReplaceOpt = Annotated[
    bool,
    typer.Option(
        "--replace", help="overwrite the league where it is already (never merged with it)"
    ),
]

store_app = typer.Typer(
    help="Move a league between its JSON files and PostgreSQL.",
    no_args_is_help=True,
    add_completion=False,
)


@store_app.command("export")
def export_(
    store: StoreOpt = None,
    shared_dir: SharedOpt = None,
    league_id: LeagueIdOpt = None,
    replace: ReplaceOpt = False,
) -> None:
    """Write one league's JSON files into the database, in one transaction."""
    _move(export_league, store, shared_dir, league_id, replace)


@store_app.command("import")
def import_(
    store: StoreOpt = None,
    shared_dir: SharedOpt = None,
    league_id: LeagueIdOpt = None,
    replace: ReplaceOpt = False,
) -> None:
    """Write one league the database holds into its JSON files."""
    _move(import_league, store, shared_dir, league_id, replace)


def _move(
    mover: Callable[..., Coroutine[Any, Any, Moved]],
    store: str | None,
    shared_dir: Path | None,
    league_id: str | None,
    replace: bool,
) -> None:
    """Move the league (default: system.json's) one way and say what was moved."""
    shared = shared_of(shared_dir)
    target = store_target(store, shared)
    league = league_id or shared.system().default_league_id
    moved = _run(mover(target.url, shared, league, replace=replace))
    folder = shared.league_dir(league)
    for note in moved.notes:
        console.print(f"recovered: {note}", markup=False, soft_wrap=True)
    said = (
        f"exported league {league} from {folder} to {target.redacted}"
        if mover is export_league
        else f"imported league {league} from {target.redacted} to {folder}"
    )
    console.print(
        f"{said}: {moved.agents} agents, {moved.rounds} rounds, {moved.results} results",
        markup=False,
        soft_wrap=True,
    )


def _run(move: Coroutine[Any, Any, Moved]) -> Moved:
    """Run a move; each way it is refused is one line: exit 2 where the database, the
    league's data or the folder is in the way, 1 where a configuration file is wrong."""
    try:
        return asyncio.run(move)
    except ConfigError as exc:
        fail(str(exc))
    except (PgStoreError, StoreError, FileSystemError) as exc:
        fail(str(exc), EXIT_MOVE_REFUSED)
