"""The schema's migrations on a real PostgreSQL (tests/postgres.py): applied once each, in
order, whole or not at all, serialised across connections, and a newer schema refused."""

from __future__ import annotations

import asyncio

import pytest
from psycopg import AsyncConnection
from psycopg.rows import TupleRow

from league_manager.pg import PgStoreError, known_migrations, upgrade_database
from league_manager.pg.connection import connect
from league_manager.pg.migrations import MIGRATIONS_LOCK, Migration, upgrade
from tests.postgres import PostgresServer

pytestmark = pytest.mark.e2e


async def recorded(url: str) -> list[tuple[int, str]]:
    async with await connect(url) as connection:
        cursor = await connection.execute("select version, name from schema_migrations order by 1")
        return [(int(version), str(name)) for version, name in await cursor.fetchall()]


def every_migration() -> list[tuple[int, str]]:
    return [(m.version, m.name) for m in known_migrations()]


async def test_an_empty_database_gets_every_migration_recorded(database_url: str) -> None:
    done = await upgrade_database(database_url)
    assert [m.label for m in done.applied] == [m.label for m in known_migrations()]
    assert done.version == known_migrations()[-1].version
    assert await recorded(database_url) == every_migration()
    async with await connect(database_url) as connection:
        cursor = await connection.execute(
            "select count(*) from information_schema.tables "
            "where table_schema = 'public' and table_name = any(%s)",
            (["leagues", "agents", "results", "leader_lease"],),
        )
        assert await cursor.fetchone() == (4,)


async def test_a_second_upgrade_applies_nothing(database_url: str) -> None:
    await upgrade_database(database_url)
    again = await upgrade_database(database_url)
    assert again.applied == []
    assert again.version == known_migrations()[-1].version
    assert await recorded(database_url) == every_migration()


async def test_concurrent_upgrades_apply_each_migration_once(database_url: str) -> None:
    done = await asyncio.gather(*(upgrade_database(database_url) for _ in range(4)))
    applied = sorted(m.version for upgrade_done in done for m in upgrade_done.applied)
    assert applied == [version for version, _ in every_migration()]
    assert {upgrade_done.version for upgrade_done in done} == {known_migrations()[-1].version}
    assert await recorded(database_url) == every_migration()


async def test_an_upgrade_waits_for_the_lock_another_holds(database_url: str) -> None:
    """While another transaction holds the migrations' lock, an upgrade creates nothing;
    it goes on once that transaction ends."""
    async with await connect(database_url) as holder, await connect(database_url) as watcher:
        async with holder.transaction():
            await holder.execute("select pg_advisory_xact_lock(%s)", (MIGRATIONS_LOCK,))
            waiting = asyncio.create_task(upgrade_database(database_url))
            blocked = await wait_for_lock_waiter(watcher)
            assert blocked, "the upgrade never queued for the migrations' lock"
            cursor = await watcher.execute("select to_regclass('schema_migrations')")
            assert await cursor.fetchone() == (None,)
            assert not waiting.done()
        done = await asyncio.wait_for(waiting, timeout=30)
    assert [m.version for m in done.applied] == [version for version, _ in every_migration()]


async def wait_for_lock_waiter(watcher: AsyncConnection[TupleRow], timeout: float = 10) -> bool:
    """Whether a session comes to wait for an advisory lock within ``timeout`` seconds
    (asked of pg_locks every 20 ms)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        cursor = await watcher.execute(
            "select count(*) from pg_locks where locktype = 'advisory' and not granted"
        )
        row = await cursor.fetchone()
        if row is not None and row[0] > 0:
            return True
        await asyncio.sleep(0.02)
    return False


async def test_a_database_newer_than_the_code_is_refused(
    database_url: str, postgres: PostgresServer
) -> None:
    await upgrade_database(database_url)
    async with await connect(database_url) as connection:
        await connection.execute(
            "insert into schema_migrations (version, name) values (9999, 'from_the_future')"
        )
    with pytest.raises(PgStoreError) as refused:
        await upgrade_database(database_url)
    newest = known_migrations()[-1].version
    message = str(refused.value)
    assert f"is at schema version 9999, newer than this Agent League knows (up to {newest})" in (
        message
    )
    assert postgres.password not in message


async def test_a_failing_migration_leaves_nothing_of_itself(database_url: str) -> None:
    migrations = [
        Migration(1, "first", "create table first_table (id int primary key);"),
        Migration(2, "broken", "create table second_table (id int); select 1 / 0;"),
    ]
    async with await connect(database_url) as connection:
        with pytest.raises(PgStoreError, match=r"failed applying migration 0002 broken: division"):
            await upgrade(connection, migrations)
        cursor = await connection.execute(
            "select to_regclass('first_table') is not null, to_regclass('second_table')"
        )
        assert await cursor.fetchone() == (True, None)
    assert await recorded(database_url) == [(1, "first")]


async def test_a_wrong_password_is_said_without_it(postgres: PostgresServer) -> None:
    with pytest.raises(PgStoreError) as refused:
        await connect(postgres.url(password="not-the-password"))
    message = str(refused.value)
    assert message.startswith(
        f"PostgreSQL at 127.0.0.1:{postgres.port} refused the login of user postgres"
    ), message
    assert "not-the-password" not in message


async def test_a_missing_database_is_named(postgres: PostgresServer) -> None:
    with pytest.raises(PgStoreError) as refused:
        await connect(postgres.url("no_such_league"))
    message = str(refused.value)
    assert message.startswith(
        f"PostgreSQL at 127.0.0.1:{postgres.port} has no database no_such_league: create it"
    ), message
    assert postgres.password not in message
