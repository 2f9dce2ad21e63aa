"""The League Manager's state in PostgreSQL: the store URL that chooses it, connections,
and the versioned schema (``migrations/``). A league on JSON files, the default, never
needs the driver: psycopg is imported only when a connection is made."""

from league_manager.pg.errors import PgStoreError
from league_manager.pg.migrations import Migration, Upgrade, known_migrations, upgrade_database
from league_manager.pg.store_url import STORE_URL_ENV, StoreUrl, redact_url, resolve_store_url

__all__ = [
    "STORE_URL_ENV",
    "Migration",
    "PgStoreError",
    "StoreUrl",
    "Upgrade",
    "known_migrations",
    "redact_url",
    "resolve_store_url",
    "upgrade_database",
]
