"""The options and helpers that the ``league`` subcommands share: where SHARED is, and
where the League Manager listens."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sdk.config import SharedDir

__all__ = [
    "AdvertiseOpt",
    "HostOpt",
    "LeagueIdOpt",
    "LmBaseOpt",
    "LmUrlOpt",
    "RefereeSecretOpt",
    "SharedOpt",
    "lm_base",
    "shared_of",
]

SharedOpt = Annotated[
    Path | None,
    typer.Option(
        "--shared-dir", help="the SHARED folder (default: $LEAGUE_SHARED_DIR, else ./SHARED)"
    ),
]
LeagueIdOpt = Annotated[str | None, typer.Option()]
HostOpt = Annotated[str, typer.Option("--host", help="address to listen on")]
LmUrlOpt = Annotated[
    str | None, typer.Option("--lm-url", help="League Manager /mcp URL (default: from system.json)")
]
AdvertiseOpt = Annotated[
    str | None,
    typer.Option(
        "--advertise",
        help="the /mcp URL other agents reach this one at, when it differs from "
        "where it listens (a proxy, NAT, a host name; default: http://HOST:PORT/mcp)",
    ),
]
RefereeSecretOpt = Annotated[
    str | None,
    typer.Option(
        help="the league's referee secret (default: $LEAGUE_REFEREE_SECRET, system.json, "
        "or the League Manager's file on this machine); see 'league referee-secret'"
    ),
]
LmBaseOpt = Annotated[
    str | None, typer.Option("--lm-url", help="League Manager base URL (default: from system.json)")
]


def shared_of(shared_dir: Path | None) -> SharedDir:
    """The SHARED folder named by ``--shared-dir`` (None: the default one)."""
    return SharedDir(shared_dir)


def lm_base(shared: SharedDir, lm_url: str | None) -> str:
    """The League Manager's base URL: ``--lm-url`` (with or without ``/mcp``), else
    system.json's."""
    if lm_url:
        return lm_url.removesuffix("/mcp").rstrip("/")
    return shared.system().league_manager.base_url
