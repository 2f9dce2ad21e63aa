"""A League Manager given a PostgreSQL store (a real one, tests/postgres.py) on a data
folder whose journal holds the league's results while the database holds none refuses to
start, rather than play the league again from no results."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from league_manager.config import LeagueManagerSettings
from league_manager.service import LeagueManager
from sdk.config import SharedDir
from sdk.store import StoreError
from tests.league_manager.result_logs import LEAGUE, result
from tests.postgres import PostgresServer

pytestmark = pytest.mark.e2e


async def test_a_league_on_files_is_not_started_on_an_empty_database(
    shared_dir: SharedDir, database_url: str, postgres: PostgresServer
) -> None:
    on_files = LeagueManager(LeagueManagerSettings(shared_dir=shared_dir.root))
    await on_files.shutdown()
    journal = shared_dir.league_dir(LEAGUE) / "journal.jsonl"
    journal.write_text(json.dumps(result(1).to_line()) + "\n")
    settings = LeagueManagerSettings(shared_dir=shared_dir.root, store_url=SecretStr(database_url))

    with pytest.raises(StoreError) as refused:
        LeagueManager(settings)

    message = str(refused.value)
    assert message.startswith(f"cannot start: {journal} holds this league's results")
    assert "league store export" in message and postgres.password not in message
