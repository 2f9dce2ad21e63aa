"""The ``league`` command: every agent, and the admin's and the user's actions."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import httpx
import typer
from pydantic import SecretStr, ValidationError

from league_cli.admin import export, pause, remove, resume, standings, start, status
from league_cli.conformance.cli import check_league, check_player
from league_cli.console import console
from league_cli.console import fail as _fail
from league_cli.db import EXIT_NO_DATABASE, ResultsStoreOpt, db_app
from league_cli.kept_leagues import forget, kept
from league_cli.launcher import LaunchError, stop_from_pid_files
from league_cli.options import (
    AdvertiseOpt,
    HostOpt,
    LeagueIdOpt,
    LmBaseOpt,
    LmUrlOpt,
    RefereeSecretOpt,
    SharedOpt,
    lm_base,
    shared_of,
)
from league_cli.store import store_app
from league_cli.up import LeaguePlan, run_league
from league_manager.pg import PgStoreError, resolve_store_url
from sdk.config import ConfigError
from sdk.errors import FileSystemError, RegistrationRefused
from sdk.store import LostFileError, StoreError

app = typer.Typer(
    help="Agent League: run agents and leagues (league.v2 over JSON-RPC).",
    no_args_is_help=True,
    add_completion=False,
)


def _problems(exc: Any) -> str:
    """A pydantic ValidationError as one line: each bad setting and why."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
        for err in exc.errors(include_url=False)
    )


_S = TypeVar("_S")


def _settings(make: Callable[[], _S]) -> _S:
    """Settings built from flags and SHARED/config, or exit 1 with one line saying which
    file or flag is wrong (never a traceback)."""
    try:
        return make()
    except ConfigError as exc:
        _fail(str(exc))
    except ValidationError as exc:
        _fail(_problems(exc))


EXIT_FILE_SYSTEM = 2
"""The exit code of an agent the file system keeps from starting (read-only, full, a
directory where a file should be), or that finds a file it keeps deleted beside the data
that needs it (``LostFileError``): the machine or the data folder must change, not the
settings (1)."""
EXIT_REFUSED = 4
"""The exit code of a referee or player the League Manager refused for a reason no retry
can fix (a name taken, a full league, a wrong secret, registration closed): the League
Manager's operator, or the agent's name or settings, must change. (3: the port is taken,
uvicorn's own code.)"""


def _serve_agent(run: Callable[[_S], None], settings: _S, *refusals: type[Exception]) -> None:
    """Serve an agent until it stops; what keeps it from starting is one line, never a
    traceback: exit 2 when the file system refuses its files or one of them is lost, 1 for
    a bad configuration or a data file it cannot use (``refusals``: the agent's own kinds
    of those), 4 (on stderr) when the League Manager refused its registration for good,
    2 (on stderr) when the League Manager's PostgreSQL store cannot be used."""
    refused: tuple[type[Exception], ...] = (ConfigError, StoreError, *refusals)
    try:
        run(settings)
    except PgStoreError as exc:
        _fail(str(exc), EXIT_NO_DATABASE, stderr=True)
    except (FileSystemError, LostFileError) as exc:
        _fail(str(exc), EXIT_FILE_SYSTEM)
    except RegistrationRefused as exc:
        _fail(str(exc), EXIT_REFUSED, stderr=True)
    except refused as exc:
        _fail(str(exc))


@app.command()
def manager(
    shared_dir: SharedOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int | None, typer.Option(help="default: from system.json")] = None,
    league_id: Annotated[str | None, typer.Option(help="default: system.json's")] = None,
    auto_start_players: Annotated[
        int | None, typer.Option(help="start the league once this many players registered")
    ] = None,
    play_url: Annotated[
        str | None,
        typer.Option(
            help="the play service's /play page, linked from the dashboard (default: no "
            "link; 'league play-service' starts one, 'league up' both)"
        ),
    ] = None,
    store: ResultsStoreOpt = None,
) -> None:
    """Run the League Manager; its league kept in PostgreSQL where a store URL is given
    (--store, $LEAGUE_STORE_URL, store_url in system.json; several League Managers may share
    one), else in the JSON files under SHARED/data."""
    from league_manager.app import run
    from league_manager.config import LeagueManagerSettings

    shared = shared_of(shared_dir)

    def make() -> LeagueManagerSettings:
        system = shared.system()
        try:
            target = resolve_store_url(store, system)
        except PgStoreError as exc:
            _fail(str(exc), EXIT_NO_DATABASE, stderr=True)
        return LeagueManagerSettings(
            shared_dir=shared.root,
            host=host,
            port=system.league_manager.port if port is None else port,
            league_id=league_id,
            auto_start_players=auto_start_players,
            play_url=play_url,
            store_url=None if target is None else SecretStr(target.url),
        )

    _serve_agent(run, _settings(make))


@app.command()
def referee(
    shared_dir: SharedOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int | None, typer.Option(help="default: defaults/referee.json")] = None,
    name: Annotated[
        str | None,
        typer.Option(
            help="display name (default: defaults/referee.json's and the port: Referee-8001)"
        ),
    ] = None,
    lm_url: LmUrlOpt = None,
    max_concurrent: Annotated[
        int | None, typer.Option(help="max concurrent matches (default: defaults/referee.json)")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed for reproducible draws")] = None,
    standalone: Annotated[
        bool, typer.Option(help="do not register with a League Manager (serve /run_match only)")
    ] = False,
    game_type: Annotated[
        list[str] | None,
        typer.Option(help="a game it runs, repeatable (default: defaults/referee.json)"),
    ] = None,
    referee_secret: RefereeSecretOpt = None,
    league_id: Annotated[
        str | None,
        typer.Option(help="the league whose referee secret file to read (default: system.json's)"),
    ] = None,
    advertise: AdvertiseOpt = None,
) -> None:
    """Run a Referee; it registers with the League Manager."""
    from referee.app import run
    from referee.config import RefereeSettings

    shared = shared_of(shared_dir)

    def make() -> RefereeSettings:
        defaults = shared.referee_defaults()
        listen = defaults.port if port is None else port
        return RefereeSettings(
            shared_dir=shared.root,
            host=host,
            port=listen,
            display_name=name or defaults.name_at(listen),
            league_manager_url=f"{lm_base(shared, lm_url)}/mcp",
            max_concurrent_matches=max_concurrent or defaults.max_concurrent_matches,
            game_types=game_type or defaults.game_types,
            seed=seed,
            join_league=not standalone,
            league_id=league_id,
            advertise=advertise,
            referee_secret=SecretStr(referee_secret) if referee_secret else None,
        )

    _serve_agent(run, _settings(make))


@app.command("play-service")
def play_service(
    shared_dir: SharedOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int | None, typer.Option(help="default: system.json's play_service")] = None,
    lm_url: LmUrlOpt = None,
    referee_secret: RefereeSecretOpt = None,
    league_id: Annotated[
        str | None,
        typer.Option(
            help="the league whose game and referee secret file to use (default: system.json's)"
        ),
    ] = None,
) -> None:
    """Run the play service: the /play page, where a person plays a built-in strategy, an
    LLM or a player registered with the League Manager."""
    from playroom.app import run
    from playroom.config import PlayServiceSettings

    shared = shared_of(shared_dir)

    def make() -> PlayServiceSettings:
        return PlayServiceSettings(
            shared_dir=shared.root,
            host=host,
            port=shared.system().play_service.port if port is None else port,
            league_manager_url=f"{lm_base(shared, lm_url)}/mcp",
            league_id=league_id,
            referee_secret=SecretStr(referee_secret) if referee_secret else None,
        )

    _serve_agent(run, _settings(make))


@app.command("referee-secret")
def referee_secret_command(shared_dir: SharedOpt = None, league_id: LeagueIdOpt = None) -> None:
    """Print the league's referee secret, for a referee started on another machine
    (--referee-secret or $LEAGUE_REFEREE_SECRET there). Keep it as you would a password."""
    shared = shared_of(shared_dir)
    secret = shared.referee_secret(league_id)
    if secret is None:
        system = shared.system()
        path = shared.referee_secret_path(league_id or system.default_league_id)
        _fail(
            f"no referee secret yet: start the League Manager first (it writes {path}), "
            f"or configure one with ${system.security.referee_secret_env}"
        )
    typer.echo(secret)


@app.command()
def player(
    shared_dir: SharedOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int | None, typer.Option(help="default: defaults/player.json")] = None,
    name: Annotated[
        str | None,
        typer.Option(
            help="display name (default: defaults/player.json's and the port: Player-8101)"
        ),
    ] = None,
    lm_url: LmUrlOpt = None,
    strategy: Annotated[
        str | None, typer.Option(help="a built-in strategy name or module:attribute")
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option(help="strategy option key=value (JSON values), repeatable")
    ] = None,
    player_id: Annotated[
        str | None, typer.Option(help="an id this player already holds (its history is loaded)")
    ] = None,
    standalone: Annotated[
        bool,
        typer.Option(help="do not register with a League Manager (for a referee's /run_match)"),
    ] = False,
    game_type: Annotated[
        list[str] | None,
        typer.Option(help="a game it plays, repeatable (default: defaults/player.json)"),
    ] = None,
    advertise: AdvertiseOpt = None,
) -> None:
    """Run a player host with a strategy; it registers with the League Manager."""
    from players.app import run
    from players.config import PlayerSettings
    from players.errors import HistoryError

    shared = shared_of(shared_dir)
    options: dict[str, Any] = {}
    for item in option or []:
        key, sep, raw = item.partition("=")
        if not sep:
            _fail(f"--option {item!r} is not key=value")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw

    def make() -> PlayerSettings:
        defaults = shared.player_defaults()
        listen = defaults.port if port is None else port
        return PlayerSettings(
            shared_dir=shared.root,
            host=host,
            port=listen,
            display_name=name or defaults.name_at(listen),
            league_manager_url=f"{lm_base(shared, lm_url)}/mcp",
            strategy=strategy or defaults.strategy,
            strategy_options=options,
            game_types=game_type or defaults.game_types,
            player_id=player_id,
            join_league=not standalone,
            advertise=advertise,
        )

    _serve_agent(run, _settings(make), HistoryError)


@app.command()
def up(
    shared_dir: SharedOpt = None,
    players: Annotated[int | None, typer.Option(help="default: agents_config.json")] = None,
    referees: Annotated[int | None, typer.Option(help="default: agents_config.json")] = None,
    lm_port: Annotated[int | None, typer.Option(help="default: system.json")] = None,
    referee_port: Annotated[int, typer.Option(help="first referee port")] = 8001,
    player_port: Annotated[int, typer.Option(help="first player port")] = 8101,
    play_port: Annotated[
        int | None, typer.Option(help="the play service's port (default: system.json)")
    ] = None,
    strategies: Annotated[
        str | None, typer.Option(help="comma-separated strategies, cycled over the players")
    ] = None,
    max_concurrent: Annotated[int, typer.Option(help="matches per referee")] = 4,
    league_id: Annotated[str | None, typer.Option()] = None,
    seed: Annotated[int | None, typer.Option(help="seed for reproducible draws")] = None,
    stop: Annotated[bool, typer.Option("--stop/--keep", help="stop everything at the end")] = False,
    store: ResultsStoreOpt = None,
) -> None:
    """Start a League Manager, the play service, referees and players, run the league,
    print the standings."""
    shared = shared_of(shared_dir)
    try:
        agents = shared.agents()
        system = shared.system()
        league = shared.league(league_id or system.default_league_id)
    except ConfigError as exc:
        _fail(str(exc))
    player_count = players or len(agents.players)
    referee_count = referees or len(agents.referees)
    names = [p.display_name for p in agents.players]
    cycle = itertools.cycle(
        strategies.split(",") if strategies else [p.strategy for p in agents.players]
    )
    plan = LeaguePlan(
        shared_dir=shared.root,
        players=[
            (names[i] if i < len(names) else f"Player{i + 1}", player_port + i, next(cycle))
            for i in range(player_count)
        ],
        referees=[(f"Ref{i + 1}", referee_port + i, max_concurrent) for i in range(referee_count)],
        lm_port=lm_port or system.league_manager.port,
        league_id=league_id,
        seed=seed,
        game_type=league.game_type,
        play_port=play_port or system.play_service.port,
        store_url=store,
    )
    token_file = shared.admin_token_path(league_id or system.default_league_id)
    configured = system.security.configured_admin_token()

    def admin_token() -> str:
        # Without a configured token the League Manager writes one at start-up.
        return configured or token_file.read_text().strip()

    try:
        run_league(plan, admin_token, stop_at_end=stop)
    except LaunchError as exc:
        _fail(str(exc), exc.exit_code)


@app.command()
def schemas(
    folder: Annotated[Path, typer.Argument(help="where to write them")] = Path("doc/schemas"),
    reference: Annotated[Path, typer.Option(help="the message reference page to write")] = Path(
        "doc/messages.md"
    ),
) -> None:
    """Write the JSON Schema of every message (<MESSAGE_TYPE>.schema.json) into FOLDER, and
    the reference page of every message, field and example."""
    from sdk.reference import message_reference
    from sdk.schemas import write_schemas

    files = write_schemas(folder)
    reference.parent.mkdir(parents=True, exist_ok=True)
    reference.write_text(message_reference(), encoding="utf-8")
    console.print(f"wrote {len(files)} schemas to {folder} and the reference to {reference}")


# The admin's and the spectator's commands (league_cli/admin.py).
app.command()(start)
app.command()(pause)
app.command()(resume)
app.command()(remove)
app.command()(export)
app.command()(standings)
app.command()(status)

# The PostgreSQL store's schema (league_manager/pg).
app.add_typer(db_app, name="db")
app.add_typer(store_app, name="store")

# The conformance kit (doc/conformance.md).
app.command("check-player")(check_player)
app.command("check-league")(check_league)

# In-process round robins of baseline strategies (games/tournament.py).
from league_cli.tournament import tournament  # noqa: E402

app.command("tournament")(tournament)

# Evaluation suites: an agent under test, metrics and thresholds (doc/evaluation.md).
from league_cli.evaluation.command import evaluate  # noqa: E402

app.command("evaluate")(evaluate)

# A person at the terminal against a strategy or a running player (doc/playing.md).
from league_cli.play import play  # noqa: E402

app.command("play")(play)


@app.command()
def report(
    output: Annotated[Path, typer.Option("--output", "-o", help="the HTML file to write")] = Path(
        "league_report.html"
    ),
    shared_dir: SharedOpt = None,
    lm_url: LmBaseOpt = None,
    league_id: Annotated[
        str | None,
        typer.Option(
            help="read this league's files under --shared-dir instead of asking a League Manager"
        ),
    ] = None,
) -> None:
    """Write the league's analytics as a self-contained HTML report (GET /analysis from
    the League Manager, or with --league-id from the files under --shared-dir)."""
    from games.analysis import AnalysisError
    from league_cli.report import write_report
    from league_manager.analytics import AnalysisUnavailable, LeagueAnalysis, analyse_folder

    shared = shared_of(shared_dir)
    try:
        if league_id:
            standings_file = shared.league_dir(league_id) / "standings.json"
            if not standings_file.exists():
                _fail(f"no standings at {standings_file}: has the league {league_id} run?")
            analysis = analyse_folder(
                shared.data_dir / "matches" / league_id,
                league_id,
                shared.league(league_id).game_type,
                json.loads(standings_file.read_text(encoding="utf-8")),
            )
        else:
            base = lm_base(shared, lm_url)
            response = httpx.get(f"{base}/analysis", timeout=90)
            if response.status_code != 200:
                _fail(
                    f"{base}/analysis answered {response.status_code}: "
                    f"{response.json().get('error', response.text)}"
                )
            analysis = LeagueAnalysis.model_validate(response.json())
    except httpx.HTTPError as exc:
        _fail(f"cannot reach the League Manager: {type(exc).__name__}")
    except (AnalysisUnavailable, AnalysisError, ConfigError, ValidationError) as exc:
        _fail(str(exc))
    path = write_report(analysis, output)
    console.print(
        f"wrote the report of {analysis.league_id} (standings version {analysis.version}) to {path}"
    )


@app.command()
def down(shared_dir: SharedOpt = None) -> None:
    """Stop exactly the processes ``league up`` started (from their pid files): in
    --shared-dir, or without it in the default SHARED folder and in every folder a kept
    ``league up`` used."""
    folders = [shared_of(shared_dir).root]
    if shared_dir is None:
        folders += [folder for folder in kept() if folder != folders[0].resolve()]
    said = False
    for folder in folders:
        stopped = stop_from_pid_files(folder / "run")
        forget(folder)
        if stopped:
            console.print(f"stopped {len(stopped)} process(es) in {folder}: {', '.join(stopped)}")
            said = True
    if not said:
        console.print(f"stopped 0 process(es): none runs in {', '.join(map(str, folders))}")
