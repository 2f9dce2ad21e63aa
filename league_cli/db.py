"""``league db``: the League Manager's PostgreSQL database (``league db upgrade``)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from league_cli.console import console, fail
from league_cli.options import SharedOpt, shared_of
from league_manager.pg import PgStoreError, StoreUrl, resolve_store_url, upgrade_database
from sdk.config import ConfigError, SharedDir

__all__ = ["EXIT_NO_DATABASE", "ResultsStoreOpt", "StoreOpt", "db_app", "store_target"]

EXIT_NO_DATABASE = 2
"""The exit code when there is no database to use: no store URL anywhere, one that is not
PostgreSQL's, the driver missing, the server unreachable or refusing, a schema newer than
this code (1: a configuration file is wrong, as for every command)."""

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="the database: postgresql://USER:PASSWORD@HOST:PORT/DATABASE (default: "
        "$LEAGUE_STORE_URL, else store_url in system.json)",
    ),
]

ResultsStoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="keep the league in PostgreSQL (results, registry, schedule; several League "
        "Managers may share it): "
        "postgresql://USER:PASSWORD@HOST:PORT/DATABASE (default: $LEAGUE_STORE_URL, else "
        "store_url in system.json, else the JSON files under SHARED/data)",
    ),
]
"""``--store`` where no URL is an answer too: the League Manager's JSON files."""

db_app = typer.Typer(
    help="The League Manager's PostgreSQL database.", no_args_is_help=True, add_completion=False
)


def store_target(store: str | None, shared: SharedDir) -> StoreUrl:
    """The database to use (``--store``, else $LEAGUE_STORE_URL, else system.json), or exit:
    1 where system.json is wrong, 2 where no PostgreSQL URL is given."""
    try:
        system = shared.system()
    except ConfigError as exc:
        fail(str(exc))
    try:
        target = resolve_store_url(store, system)
    except PgStoreError as exc:
        fail(str(exc), EXIT_NO_DATABASE)
    if target is None:
        fail(
            "no store URL: give --store postgresql://USER:PASSWORD@HOST:PORT/DATABASE, "
            "or set $LEAGUE_STORE_URL or store_url in system.json",
            EXIT_NO_DATABASE,
        )
    return target


@db_app.command()
def upgrade(store: StoreOpt = None, shared_dir: SharedOpt = None) -> None:
    """Apply the schema migrations the database lacks, each once, in order."""
    target = store_target(store, shared_of(shared_dir))
    try:
        done = asyncio.run(upgrade_database(target.url))
    except PgStoreError as exc:
        fail(str(exc), EXIT_NO_DATABASE)
    if done.applied:
        labels = ", ".join(migration.label for migration in done.applied)
        said = f"applied {labels} to {target.redacted}: the schema is at version {done.version}"
    else:
        said = f"the schema of {target.redacted} is current (version {done.version})"
    console.print(said, markup=False, soft_wrap=True)
