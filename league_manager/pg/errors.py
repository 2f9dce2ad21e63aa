"""The one exception of the PostgreSQL store, so that a caller (``league db upgrade``, a
starting League Manager) turns every way the database can fail it into one line."""

from __future__ import annotations

from sdk.store import StoreError

__all__ = ["MISSING_DRIVER", "PgStoreError", "PgWriteError", "TransferError"]

MISSING_DRIVER = (
    "a postgresql:// store needs the PostgreSQL driver: pip install 'agent-league[postgresql]'"
)


class PgStoreError(Exception):
    """The PostgreSQL store cannot be used: a store URL that is not PostgreSQL's, the driver
    missing, the server unreachable, the login or the database refused, or a schema newer
    than this code knows. The message is one sentence and never holds a password."""


class TransferError(PgStoreError):
    """A move of a league between the JSON files and PostgreSQL that is refused: the league
    is missing where it is taken from, or already where it would go (``--replace`` says to
    overwrite it). One sentence."""


class PgWriteError(PgStoreError, StoreError):
    """Work the database could not keep (the connection lost, the server down, a statement
    refused): a ``StoreError`` too, so the League Manager refuses the work it was for, never
    acknowledges it, as it does when a full disk refuses a file. One sentence."""
