"""The PostgreSQL store's schema, versioned: ``migrations/NNNN_<name>.sql`` beside this
module, applied in order of their numbers, each in a transaction of its own that also
records it in ``schema_migrations``, so a migration is applied whole or not at all.

Every transaction first takes one transaction-scoped advisory lock: two League Managers
starting at once (or ``league db upgrade`` beside one) apply each migration once, the second
finding it recorded. A database recorded at a version newer than any file here is refused,
never run on: its tables are not the ones this code knows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from league_manager.pg.connection import connect, server_of, statements
from league_manager.pg.errors import PgStoreError

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = [
    "MIGRATIONS",
    "MIGRATIONS_LOCK",
    "Migration",
    "Upgrade",
    "known_migrations",
    "upgrade",
    "upgrade_database",
]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
"""The package's migrations (package data: pyproject.toml lists them)."""

MIGRATIONS_LOCK = 0x4C45_4147_5545_4442
"""The key of the advisory lock migrations are applied under ("LEAGUEDB" in ASCII)."""

_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

_BOOKKEEPING = """
create table if not exists schema_migrations (
    version int primary key,
    name text not null,
    applied_at timestamptz not null default now()
)"""


@dataclass(frozen=True)
class Migration:
    """One SQL file: its version (the file's number), its name and its statements."""

    version: int
    name: str
    sql: str

    @property
    def label(self) -> str:
        return f"{self.version:04d} {self.name}"


@dataclass(frozen=True)
class Upgrade:
    """What an upgrade did: the migrations it applied (none: the schema was current) and
    the schema's version after it."""

    applied: list[Migration]
    version: int


def known_migrations(folder: Path = MIGRATIONS) -> list[Migration]:
    """The migrations in ``folder`` (the package's own), by version.

    Raises:
        ValueError: a .sql file is misnamed, or two have one number (a packaging mistake).
    """
    found: dict[int, Migration] = {}
    for entry in folder.glob("*.sql"):
        named = _FILE_NAME.match(entry.name)
        if named is None:
            raise ValueError(f"migration {entry.name} is not named NNNN_<name>.sql")
        version = int(named[1])
        if version in found:
            raise ValueError(f"migrations {found[version].label} and {entry.name} share a number")
        found[version] = Migration(version, named[2], entry.read_text(encoding="utf-8"))
    return [found[version] for version in sorted(found)]


async def upgrade_database(url: str) -> Upgrade:
    """Connect to ``url``, apply what the schema lacks, disconnect.

    Raises:
        PgStoreError: the database cannot be reached or used, or its schema is newer.
    """
    connection = await connect(url)
    async with connection:
        return await upgrade(connection)


async def upgrade(
    connection: AsyncConnection[TupleRow], migrations: list[Migration] | None = None
) -> Upgrade:
    """Apply, in order, each of ``migrations`` (default: ``known_migrations()``) that the
    database has not recorded, each in its own transaction under the advisory lock.

    Raises:
        PgStoreError: the database records a version newer than the newest migration, or a
            statement failed (that migration is not applied; those before it stay).
    """
    migrations = known_migrations() if migrations is None else migrations
    newest = migrations[-1].version if migrations else 0
    with statements(connection, "reading schema_migrations"):
        async with connection.transaction():
            await _lock(connection)
            await connection.execute(_BOOKKEEPING)
            recorded = await _recorded(connection)
        _refuse_newer(connection, recorded, newest)
        applied: list[Migration] = []
        for migration in migrations:
            if migration.version not in recorded and await _apply(connection, migration, newest):
                applied.append(migration)
        return Upgrade(applied, max(await _recorded(connection), default=0))


async def _apply(connection: AsyncConnection[TupleRow], migration: Migration, newest: int) -> bool:
    """Apply one migration unless another process did meanwhile; whether this one did."""
    with statements(connection, f"applying migration {migration.label}"):
        async with connection.transaction():
            await _lock(connection)
            recorded = await _recorded(connection)
            _refuse_newer(connection, recorded, newest)
            if migration.version in recorded:
                return False
            await connection.execute(migration.sql)
            await connection.execute(
                "insert into schema_migrations (version, name) values (%s, %s)",
                (migration.version, migration.name),
            )
    return True


async def _lock(connection: AsyncConnection[TupleRow]) -> None:
    """Wait for the migrations' lock; it is released when the transaction ends."""
    await connection.execute("select pg_advisory_xact_lock(%s)", (MIGRATIONS_LOCK,))


async def _recorded(connection: AsyncConnection[TupleRow]) -> set[int]:
    cursor = await connection.execute("select version from schema_migrations")
    return {int(version) for (version,) in await cursor.fetchall()}


def _refuse_newer(connection: AsyncConnection[TupleRow], recorded: set[int], newest: int) -> None:
    """Raises PgStoreError where the database is ahead of this code."""
    latest = max(recorded, default=0)
    if latest > newest:
        raise PgStoreError(
            f"the database {server_of(connection)} is at schema version {latest}, newer than "
            f"this Agent League knows (up to {newest}): upgrade Agent League, or give the "
            "store URL of another database"
        )
