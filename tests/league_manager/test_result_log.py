"""The results log's behaviour, the same on both back ends (the JSON file ``journal.jsonl``
and PostgreSQL, a real one from tests/postgres.py): what is appended and made durable is
read back after a reopen, equal and in the same order, and a match counts once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from league_manager.pg.connection import OnDemand
from league_manager.pg.result_log import PgResultLog
from league_manager.result_log import KeptResults, ResultJournal, ResultLog
from league_manager.results_book import ResultsBook
from tests.league_manager.result_logs import LEAGUE, league_in, result

Opener = Callable[[], Awaitable[tuple[ResultLog, KeptResults]]]
"""Opens the log as a starting League Manager would: read first, then append."""


@pytest.fixture(params=["files", pytest.param("postgresql", marks=pytest.mark.e2e)])
async def open_log(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    links: list[OnDemand] = []
    logs: list[ResultLog] = []

    async def open_journal() -> tuple[ResultLog, KeptResults]:
        journal = ResultJournal(tmp_path / "journal.jsonl")
        kept = await journal.read()
        journal.open()
        logs.append(journal)
        return journal, kept

    async def open_database() -> tuple[ResultLog, KeptResults]:
        links.append(OnDemand(url))
        log = PgResultLog(links[-1], LEAGUE)
        logs.append(log)
        return log, await log.read()

    if request.param == "files":
        yield open_journal
    else:
        url = request.getfixturevalue("database_url")
        await league_in(url)
        yield open_database
    for log in logs:
        log.close()
    for link in links:
        await link.close()


async def test_what_was_made_durable_is_read_back_equal_and_in_order(open_log: Opener) -> None:
    log, kept = await open_log()
    assert kept.results == [] and kept.damaged == []
    appended = [result(n, second=n) for n in (5, 1, 4, 2)]
    for one in appended[:3]:
        log.append(one)
    committing = asyncio.ensure_future(log.durable())
    await asyncio.sleep(0)  # the commit has begun: the next append waits for the next one
    log.append(appended[3])
    await asyncio.gather(committing, log.durable())
    assert not any(log.duplicate(one.match_id) for one in appended)
    log.close()

    _, again = await open_log()

    assert again.results == appended
    assert again.damaged == []


async def test_a_match_counts_once(open_log: Opener) -> None:
    """A second result of a match (a repeat, or another League Manager's) never counts:
    the results book built from the log holds the first."""
    log, _ = await open_log()
    first, repeat, other = result(1), result(1, referee="REF02", second=9), result(2)
    for one in (first, repeat, other):
        log.append(one)
        await log.durable()
    log.close()

    _, kept = await open_log()
    book = ResultsBook(log, kept.results)

    assert dict(book) == {first.match_id: first, other.match_id: other}
    assert book.results_of("P02") == [first, other]
