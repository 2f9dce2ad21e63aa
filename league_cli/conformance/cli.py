"""The ``league check-player`` and ``league check-league`` commands (registered in
``league_cli.main``). The checks are imported when a command runs, so ``league --help``
stays fast."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from pydantic import TypeAdapter, ValidationError

from league_cli.conformance.report import EXIT_UNREACHABLE, ConformanceReport
from sdk.config import ConfigError, SharedDir, SystemConfig
from sdk.types import McpUrl

__all__ = ["check_league", "check_player"]

UrlArg = Annotated[
    str, typer.Argument(help="the agent's JSON-RPC endpoint, e.g. http://127.0.0.1:8110/mcp")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="print the report as JSON on stdout")]
StrictOpt = Annotated[
    bool, typer.Option("--strict", help="grading: every deviation from the protocol text is a FAIL")
]
SharedOpt = Annotated[
    Path | None,
    typer.Option(
        "--shared-dir",
        help="the SHARED folder whose system.json sets the timeouts (default: "
        "$LEAGUE_SHARED_DIR, else ./SHARED, else the protocol's)",
    ),
]

SenderOpt = Annotated[
    str | None,
    typer.Option(
        "--league-manager-sender",
        help="how the League Manager signs: league_manager or "
        "league_manager:<id> (default: league_manager_sender in system.json, else "
        "league_manager)",
    ),
]

_MCP_URL = TypeAdapter(McpUrl)


def _usage_error(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_UNREACHABLE)


def _prepare(
    url: str, shared_dir: Path | None, sender: str | None
) -> tuple[SystemConfig, str | None]:
    from league_cli.conformance.timeouts import load_system

    try:
        _MCP_URL.validate_python(url)
    except ValidationError as exc:
        _usage_error(exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, "))
    try:
        system, note = load_system(shared_dir)
    except ConfigError as exc:
        _usage_error(str(exc))
    if sender is None:
        return system, note
    try:
        return SystemConfig.model_validate(
            {**system.model_dump(), "league_manager_sender": sender}
        ), note
    except ValidationError:
        _usage_error(
            f"--league-manager-sender {sender!r}: the League Manager signs "
            "league_manager or league_manager:<id>"
        )


def _finish(report: ConformanceReport, note: str | None, as_json: bool) -> None:
    if note:
        report.notes.insert(0, note)
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        from league_cli.conformance.render import print_report
        from league_cli.console import console

        print_report(report, console)
    raise typer.Exit(report.exit_code)


def check_player(
    url: UrlArg,
    as_json: JsonOpt = False,
    strict: StrictOpt = False,
    player_id: Annotated[
        str, typer.Option("--player-id", help="the id to address the player as")
    ] = "P01",
    matches: Annotated[
        int, typer.Option("--matches", min=1, max=50, help="complete matches to play")
    ] = 3,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help="the player's own auth_token: the kit's referee and League Manager "
            "messages carry proofs made from it, as ours do (default: from a made-up one)",
        ),
    ] = None,
    shared_dir: SharedOpt = None,
    league_manager_sender: SenderOpt = None,
) -> None:
    """Check a running player against the league.v2 protocol.

    Plays the referee's and the League Manager's side against the player at URL and reports
    check by check. Exit status: 0 no FAIL, 1 a FAIL, 2 unreachable (doc/conformance.md).
    """
    from league_cli.conformance.player_checks import check_player as run_checks

    system, note = _prepare(url, shared_dir, league_manager_sender)
    report = asyncio.run(
        run_checks(
            url, system=system, strict=strict, player_id=player_id, matches=matches, token=token
        )
    )
    _finish(report, note, as_json)


def check_league(
    url: UrlArg,
    as_json: JsonOpt = False,
    strict: StrictOpt = False,
    players: Annotated[
        int, typer.Option("--players", min=1, max=20, help="test players to register")
    ] = 2,
    watch: Annotated[
        float,
        typer.Option(
            "--watch",
            min=0,
            max=3600,
            help="seconds to watch what the League Manager sends the "
            "test agents (0: registration and queries only)",
        ),
    ] = 0,
    admin_token: Annotated[
        str | None,
        typer.Option(
            "--admin-token",
            help="start the league (POST /start_league, ours) with this admin "
            "token once the test agents are registered",
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="address the test agents listen on and give as their endpoints"
        ),
    ] = "127.0.0.1",
    shared_dir: SharedOpt = None,
    referee_secret: Annotated[
        str | None,
        typer.Option(
            "--referee-secret",
            help="the league's referee secret, for the test referee (default: "
            "$LEAGUE_REFEREE_SECRET, system.json, or the file of our League Manager on this "
            "machine)",
        ),
    ] = None,
    league_manager_sender: SenderOpt = None,
) -> None:
    """Check a running League Manager against the league.v2 protocol.

    Registers a test referee and test players, queries, and watches what the League Manager
    sends them. Exit status: 0 no FAIL, 1 a FAIL, 2 unreachable (doc/conformance.md).
    """
    from league_cli.conformance.league_checks import check_league as run_checks

    system, note = _prepare(url, shared_dir, league_manager_sender)
    referee_secret = referee_secret or SharedDir(shared_dir).referee_secret()
    try:
        report = asyncio.run(
            run_checks(
                url,
                system=system,
                strict=strict,
                players=players,
                watch=watch,
                admin_token=admin_token,
                host=host,
                referee_secret=referee_secret,
            )
        )
    except OSError as exc:
        _usage_error(f"the test agents cannot listen on {host}: {exc}")
    _finish(report, note, as_json)
