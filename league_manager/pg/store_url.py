"""Which store holds the League Manager's state: a PostgreSQL URL from ``--store``, else
``$LEAGUE_STORE_URL``, else ``store_url`` in ``SHARED/config/system.json``; none of them
means the JSON files under ``SHARED/data`` (the default). A URL's password never reaches a
message or a log: ``redact_url`` is how every message shows one."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from league_manager.pg.errors import PgStoreError
from sdk.config import SystemConfig

__all__ = ["STORE_URL_ENV", "StoreUrl", "redact_url", "resolve_store_url"]

STORE_URL_ENV = "LEAGUE_STORE_URL"
SCHEMES = ("postgresql", "postgres")
"""The schemes libpq takes for a connection URL."""
_HIDDEN = "***"


@dataclass(frozen=True)
class StoreUrl:
    """A PostgreSQL URL and where it was given (for messages: ``--store``, the
    environment variable, system.json)."""

    url: str
    source: str

    @property
    def redacted(self) -> str:
        return redact_url(self.url)


def resolve_store_url(flag: str | None, system: SystemConfig) -> StoreUrl | None:
    """The store URL: ``flag`` (``--store``), else ``$LEAGUE_STORE_URL``, else system.json's
    ``store_url``; None (the JSON files) where none is given. An empty value counts as none.

    Raises:
        PgStoreError: the URL that wins is not a postgresql:// or postgres:// URL.
    """
    configured = system.store_url.get_secret_value() if system.store_url else None
    for value, source in (
        (flag, "--store"),
        (os.environ.get(STORE_URL_ENV), f"${STORE_URL_ENV}"),
        (configured, "store_url in system.json"),
    ):
        if value:
            scheme, sep, _ = value.partition("://")
            if scheme.lower() not in SCHEMES:
                given = f"a {scheme}:// URL, not a PostgreSQL one" if sep else "no URL"
                raise PgStoreError(
                    f"the store URL from {source} is {given}: give "
                    "postgresql://USER:PASSWORD@HOST:PORT/DATABASE, or none for the JSON files "
                    "under SHARED/data"
                )
            return StoreUrl(value, source)
    return None


def redact_url(url: str) -> str:
    """``url`` with its password (in the user part, or a ``password`` query parameter)
    shown as ``***``; a URL too malformed to take apart shows only its scheme."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return f"{url.partition(':')[0]}://{_HIDDEN}" if "://" in url else _HIDDEN
    userinfo, at, host = parts.netloc.rpartition("@")
    if at and ":" in userinfo:
        userinfo = f"{userinfo.partition(':')[0]}:{_HIDDEN}"
    netloc = f"{userinfo}{at}{host}"
    query = parts.query
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(key == "password" for key, _ in pairs):
        query = urlencode(
            [(key, _HIDDEN if key == "password" else value) for key, value in pairs], safe="*"
        )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
