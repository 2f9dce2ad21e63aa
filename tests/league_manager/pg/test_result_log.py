"""The results log in a real PostgreSQL (tests/postgres.py) as several League Managers
use it: one result per match whoever delivers it, told to exactly one of them, and a
database lost mid-league refusing work until it is back, with no new log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from league_manager.pg import upgrade_database
from league_manager.pg.connection import OnDemand, connect
from league_manager.pg.errors import PgStoreError, PgWriteError
from league_manager.pg.result_log import PgResultLog
from league_manager.pg.result_rows import insert_results
from league_manager.results_book import ResultsBook
from sdk.store import StoreError
from tests.league_manager.result_logs import LEAGUE, league_in, result
from tests.postgres import PostgresServer

pytestmark = pytest.mark.e2e


@pytest.fixture
async def league_url(database_url: str) -> str:
    await league_in(database_url)
    return database_url


@pytest.fixture
async def links(league_url: str) -> AsyncIterator[tuple[OnDemand, OnDemand]]:
    """Two League Managers' connections to one league's database."""
    pair = OnDemand(league_url), OnDemand(league_url)
    yield pair
    for link in pair:
        await link.close()


async def test_two_league_managers_taking_one_match_keep_one_row(
    league_url: str, links: tuple[OnDemand, OnDemand]
) -> None:
    logs = [PgResultLog(link, LEAGUE) for link in links]
    theirs = [result(1, referee="REF01", second=1), result(1, referee="REF02", second=2)]
    for log, one in zip(logs, theirs, strict=True):
        log.append(one)

    await asyncio.gather(*(log.durable() for log in logs))

    told_new = [log.duplicate(theirs[0].match_id) is None for log in logs]
    assert sorted(told_new) == [False, True]
    kept = (await logs[0].read()).results
    assert kept == [theirs[told_new.index(True)]]
    assert logs[told_new.index(False)].duplicate(theirs[0].match_id) == kept[0]
    async with await connect(league_url) as connection:
        cursor = await connection.execute("select count(*) from result_outcomes")
        assert await cursor.fetchone() == (2,)  # the kept result's two players, once each


async def test_a_commit_tried_again_after_its_reply_was_lost_is_not_its_own_duplicate(
    league_url: str, links: tuple[OnDemand, OnDemand]
) -> None:
    """The server committed the log's rows but the reply never came (the connection cut):
    the log tries the commit again, finds the rows marked as its own, and keeps its result
    as recorded, not as another League Manager's."""
    log = PgResultLog(links[0], LEAGUE)
    mine = result(1)
    async with await connect(league_url) as connection, connection.transaction():
        await insert_results(connection, LEAGUE, [mine], writer=log.writer)  # the lost commit

    log.append(mine)
    await log.durable()

    assert log.duplicate(mine.match_id) is None
    assert (await log.read()).results == [mine]


async def test_two_results_books_on_one_database_count_a_match_once(
    database_url: str, links: tuple[OnDemand, OnDemand]
) -> None:
    """Two League Managers' books take one match's report each (from a database with no
    row yet: the log writes the league's and the round's): one row is kept, and the book
    whose result was not kept takes the kept one in its place."""
    await upgrade_database(database_url)
    books = [ResultsBook(PgResultLog(link, LEAGUE), []) for link in links]
    theirs = [result(1, referee="REF01", second=1), result(1, referee="REF02", second=2)]
    for book, one in zip(books, theirs, strict=True):
        book.record(one)

    await asyncio.gather(*(book.durable() for book in books))
    replaced = [book.take_kept(theirs[0].match_id) for book in books]

    kept = (await PgResultLog(links[0], LEAGUE).read()).results
    assert len(kept) == 1
    assert sorted(r is None for r in replaced) == [False, True]
    assert next(r for r in replaced if r is not None)[1] == kept[0]
    assert [dict(book) for book in books] == [{kept[0].match_id: kept[0]}] * 2
    assert all(book.take_kept(kept[0].match_id) is None for book in books), "replaced once"


async def test_the_book_whose_equal_result_was_not_kept_still_takes_the_kept_one(
    database_url: str, links: tuple[OnDemand, OnDemand]
) -> None:
    """One referee's report taken by two League Managers in one second makes equal results
    (timestamps have whole seconds): the book whose row was refused takes the kept one all
    the same, so its desk answers the report DUPLICATE, not RECORDED a second time."""
    await upgrade_database(database_url)
    books = [ResultsBook(PgResultLog(link, LEAGUE), []) for link in links]
    theirs = [result(1, second=1), result(1, second=1)]
    assert theirs[0] == theirs[1]
    for book, one in zip(books, theirs, strict=True):
        book.record(one)

    await asyncio.gather(*(book.durable() for book in books))
    replaced = [book.take_kept(theirs[0].match_id) for book in books]

    assert sorted(r is None for r in replaced) == [False, True]
    held = [book[theirs[0].match_id] is one for book, one in zip(books, theirs, strict=True)]
    assert held.count(True) == 1, "one book holds its own result, the other the kept one"
    assert all(book.take_kept(theirs[0].match_id) is None for book in books), "replaced once"


async def test_a_lost_database_refuses_the_commit_and_the_log_goes_on_once_it_is_back(
    postgres: PostgresServer, links: tuple[OnDemand, OnDemand]
) -> None:
    log = PgResultLog(links[0], LEAGUE)
    first, second = result(1, second=1), result(2, second=2)
    await log.read()  # connected before the server goes away
    postgres.stop()
    try:
        log.append(first)
        with pytest.raises(PgWriteError) as refused:
            await log.durable()
    finally:
        postgres.resume()

    assert isinstance(refused.value, StoreError)  # the results desk refuses the report
    message = str(refused.value)
    assert message.startswith(f"league {LEAGUE}'s results are not kept: cannot reach PostgreSQL")
    assert "\n" not in message and postgres.password not in message
    log.append(second)
    await log.durable()  # on a new connection, the refused result with it
    assert (await log.read()).results == [first, second]


async def test_a_connection_the_server_dropped_unseen_is_made_again_at_once(
    postgres: PostgresServer, links: tuple[OnDemand, OnDemand]
) -> None:
    """A server restarted between two commits: the next commit's stale connection fails
    and it is made again on the spot, so nothing is refused."""
    log = PgResultLog(links[0], LEAGUE)
    log.append(result(1))
    await log.durable()
    postgres.stop()
    postgres.resume()

    log.append(result(2))
    await log.durable()

    assert [r.match_id for r in (await log.read()).results] == ["R2M1", "R3M2"]


async def test_a_commit_in_flight_when_the_league_manager_stops_ends_before_its_connection(
    league_url: str, links: tuple[OnDemand, OnDemand]
) -> None:
    """The shutdown's order (``SharedStore.close``): the log settles, then its link closes.
    A commit held by another session's lock is still running when the stop begins: it is
    kept, not cut off with a closed socket under it (which can abort the process), and the
    closed link then refuses a new connection instead of opening one nothing would close."""
    log = PgResultLog(links[0], LEAGUE)
    async with await connect(league_url) as blocker:
        async with blocker.transaction():
            await blocker.execute("lock table results in access exclusive mode")
            log.append(result(1))
            committing = asyncio.ensure_future(log.durable())
            await wait_for_a_lock_wait(league_url)

            async def stop() -> None:
                await log.settle()
                await links[0].close()

            stopping = asyncio.ensure_future(stop())
            await asyncio.sleep(0)  # the stop has begun: it waits for the commit
        await asyncio.wait_for(stopping, 30)
    await committing  # kept: no "connection socket closed"
    assert [r.match_id for r in (await PgResultLog(links[1], LEAGUE).read()).results] == ["R2M1"]
    with pytest.raises(PgStoreError, match="is closed: the League Manager is stopping"):
        await links[0].connection()


async def wait_for_a_lock_wait(url: str) -> None:
    """Until a session of the server waits for a lock (bounded: 10 s); asked on a
    connection of its own (a transaction sees one snapshot of ``pg_stat_activity``)."""
    async with await connect(url) as connection:
        for _ in range(1000):
            cursor = await connection.execute(
                "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
            )
            if await cursor.fetchone() != (0,):
                return
            await asyncio.sleep(0.01)
    raise AssertionError("no session waits for the lock")


async def test_the_results_other_league_managers_keep_are_heard_once_each_in_commit_order(
    league_url: str, links: tuple[OnDemand, OnDemand]
) -> None:
    """A League Manager asks for the others' results since it last looked: each once, its
    own never, and one whose transaction began earlier but committed later is not missed
    (a row numbered before another may commit after it)."""
    follow = OnDemand(league_url)
    try:
        kept = await PgResultLog(links[0], LEAGUE).read()
        mine = PgResultLog(links[0], LEAGUE, follow=follow, since=kept.mark)
        theirs = PgResultLog(links[1], LEAGUE)
        assert await mine.others() == []

        mine.append(result(1))
        theirs.append(result(2))
        await asyncio.gather(mine.durable(), theirs.durable())
        assert await mine.others() == [result(2)], "theirs, not its own"
        assert await mine.others() == [], "each once"

        async with await connect(league_url) as slow:
            async with slow.transaction():  # a third writer's commit that takes its time
                await insert_results(slow, LEAGUE, [result(4)], writer="LM-slow")
                theirs.append(result(5))
                await theirs.durable()
                assert await mine.others() == [], "not past a transaction still open"
        assert await mine.others() == [result(4), result(5)]
    finally:
        await follow.close()
