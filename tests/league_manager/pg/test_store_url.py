"""Choosing the store (flag, environment, system.json), refusing what is not PostgreSQL,
keeping passwords out of messages, and the failures that need no server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from league_manager.pg import (
    STORE_URL_ENV,
    PgStoreError,
    known_migrations,
    redact_url,
    resolve_store_url,
)
from league_manager.pg.connection import connect
from league_manager.pg.errors import MISSING_DRIVER
from sdk.config import SharedDir, SystemConfig
from tests.conftest import free_port, make_shared_dir

FLAG = "postgresql://lm:flag-secret@db.example:5432/league"
ENV = "postgres://lm:env-secret@10.0.0.2/league"
CONFIGURED = "postgresql://lm:file-secret@10.0.0.3/league"


def system_with(store_url: str | None) -> SystemConfig:
    return SystemConfig.model_validate({"default_league_id": "league", "store_url": store_url})


def test_the_flag_comes_first_then_the_environment_then_system_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(STORE_URL_ENV, ENV)
    chosen = resolve_store_url(FLAG, system_with(CONFIGURED))
    assert chosen is not None and (chosen.url, chosen.source) == (FLAG, "--store")

    chosen = resolve_store_url(None, system_with(CONFIGURED))
    assert chosen is not None and (chosen.url, chosen.source) == (ENV, f"${STORE_URL_ENV}")

    monkeypatch.delenv(STORE_URL_ENV)
    chosen = resolve_store_url(None, system_with(CONFIGURED))
    assert chosen is not None
    assert (chosen.url, chosen.source) == (CONFIGURED, "store_url in system.json")


def test_no_url_anywhere_means_the_json_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STORE_URL_ENV, "")  # empty counts as unset
    assert resolve_store_url("", system_with(None)) is None


def test_system_json_as_committed_names_no_store(tmp_path: Path) -> None:
    system = make_shared_dir(tmp_path / "SHARED").system()
    assert system.store_url is None


def test_store_url_in_system_json_is_read_and_kept_secret(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED", store_url=CONFIGURED)
    system = SharedDir(shared.root).system()
    assert "file-secret" not in repr(system)
    chosen = resolve_store_url(None, system)
    assert chosen is not None and chosen.url == CONFIGURED


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("sqlite:///league.db", "is a sqlite:// URL, not a PostgreSQL one"),
        ("mysql://root:hunter2@db/league", "is a mysql:// URL, not a PostgreSQL one"),
        ("hunter2", "is no URL"),
    ],
)
def test_a_store_that_is_not_postgresql_is_refused(url: str, said: str) -> None:
    with pytest.raises(PgStoreError) as refused:
        resolve_store_url(url, system_with(None))
    message = str(refused.value)
    assert message.startswith(f"the store URL from --store {said}: give postgresql://"), message
    assert "hunter2" not in message


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://lm:s3cret@db:5432/league", "postgresql://lm:***@db:5432/league"),
        ("postgresql://lm@db/league", "postgresql://lm@db/league"),
        ("postgresql://db/league?password=s3cret&sslmode=require",
         "postgresql://db/league?password=***&sslmode=require"),
        ("postgresql://lm:p%40ss@db/league", "postgresql://lm:***@db/league"),
        ("postgresql://lm:s3cret@[::1/league", "postgresql://***"),
    ],
)  # fmt: skip
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown


async def test_an_unreachable_server_is_one_sentence_without_the_password() -> None:
    port = free_port()  # nobody listens there
    with pytest.raises(PgStoreError) as refused:
        await connect(f"postgresql://lm:s3cret@127.0.0.1:{port}/league")
    message = str(refused.value)
    assert message.startswith(f"cannot reach PostgreSQL at 127.0.0.1:{port}: "), message
    assert "s3cret" not in message and "\n" not in message


async def test_an_unreadable_url_is_refused_without_its_password() -> None:
    with pytest.raises(PgStoreError) as refused:
        await connect("postgresql://lm:s3cret@[::1/league")  # libpq's error quotes the URL
    message = str(refused.value)
    assert message.startswith("the store URL postgresql://*** cannot be read: "), message
    assert "s3cret" not in message


async def test_without_the_driver_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg raises ImportError
    with pytest.raises(PgStoreError) as refused:
        await connect(FLAG)
    assert str(refused.value) == MISSING_DRIVER
    assert "pip install 'agent-league[postgresql]'" in MISSING_DRIVER


def test_the_package_ships_its_migrations_in_order() -> None:
    migrations = known_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert migrations[0].label == "0001 league_state"


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        (["0001_first.sql", "1_second.sql"], "migration 1_second.sql is not named NNNN_<name>.sql"),
        (["0001_first.sql", "0001_again.sql"], "share a number"),
    ],
)
def test_a_misnamed_or_doubled_migration_is_a_packaging_mistake(
    tmp_path: Path, names: list[str], problem: str
) -> None:
    for name in names:
        (tmp_path / name).write_text("select 1;")
    with pytest.raises(ValueError, match=problem):
        known_migrations(tmp_path)
