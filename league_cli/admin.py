"""The admin's and the spectator's commands: start, pause, resume, remove, export (signed
with the league's admin token), standings and status (public). Each is one HTTP call to the
League Manager; a refusal exits 1 with the League Manager's own sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import httpx
import typer

from league_cli.console import console, standings_table, status_line
from league_cli.console import fail as _fail
from league_cli.options import LeagueIdOpt, LmBaseOpt, SharedOpt, lm_base, shared_of
from sdk.config import SharedDir

__all__ = ["export", "pause", "remove", "resume", "standings", "start", "status"]


def _admin_token(shared: SharedDir, given: str | None, league_id: str | None) -> str:
    if given:
        return given
    system = shared.system()
    configured = system.security.configured_admin_token()
    if configured:
        return configured
    path = shared.admin_token_path(league_id or system.default_league_id)
    if not path.exists():
        _fail(
            f"no admin token: pass --admin-token, set ${system.security.admin_token_env}, "
            f"or start the League Manager first (it writes {path})"
        )
    return path.read_text().strip()


AdminTokenOpt = Annotated[
    str | None, typer.Option(help="default: env, config or the League Manager's admin_token file")
]


def _admin_request(
    method: str,
    path: str,
    shared_dir: Path | None,
    lm_url: str | None,
    admin_token: str | None,
    league_id: str | None,
) -> httpx.Response:
    """An admin route of the League Manager, signed with the admin token; exit 1 with the
    League Manager's own sentence when it refuses, or when it cannot be reached."""
    shared = shared_of(shared_dir)
    token = _admin_token(shared, admin_token, league_id)
    base = lm_base(shared, lm_url)
    try:
        response = httpx.request(
            method, f"{base}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
    except httpx.HTTPError as exc:
        _fail(f"cannot reach the League Manager at {base}: {type(exc).__name__}")
    if response.status_code != 200:
        try:
            _fail(response.json().get("error", response.text))
        except ValueError:
            _fail(f"{method} {path} answered {response.status_code}: {response.text[:200]}")
    return response


def start(
    shared_dir: SharedOpt = None,
    lm_url: LmBaseOpt = None,
    admin_token: AdminTokenOpt = None,
    league_id: LeagueIdOpt = None,
) -> None:
    """Start the league (admin): fixes the schedule and plays the rounds."""
    response = _admin_request("POST", "/start_league", shared_dir, lm_url, admin_token, league_id)
    console.print(status_line(response.json()))


def pause(
    shared_dir: SharedOpt = None,
    lm_url: LmBaseOpt = None,
    admin_token: AdminTokenOpt = None,
    league_id: LeagueIdOpt = None,
) -> None:
    """Pause the league (admin): no new match or round; running matches finish."""
    response = _admin_request("POST", "/admin/pause", shared_dir, lm_url, admin_token, league_id)
    console.print(status_line(response.json()))


def resume(
    shared_dir: SharedOpt = None,
    lm_url: LmBaseOpt = None,
    admin_token: AdminTokenOpt = None,
    league_id: LeagueIdOpt = None,
) -> None:
    """Resume a paused league (admin)."""
    response = _admin_request("POST", "/admin/resume", shared_dir, lm_url, admin_token, league_id)
    console.print(status_line(response.json()))


def remove(
    player_id: Annotated[str, typer.Argument(help="the player to remove, e.g. P03")],
    shared_dir: SharedOpt = None,
    lm_url: LmBaseOpt = None,
    admin_token: AdminTokenOpt = None,
    league_id: LeagueIdOpt = None,
) -> None:
    """Remove a player for good (admin): its unplayed matches become technical losses."""
    response = _admin_request(
        "POST", f"/admin/players/{player_id}/remove", shared_dir, lm_url, admin_token, league_id
    )
    unplayed = response.json()["unplayed_matches"]
    console.print(
        f"{player_id} removed; {len(unplayed)} unplayed match(es) become technical "
        "losses unless a referee is playing them now"
    )


def export(
    what: Annotated[str, typer.Argument(help="standings or results")],
    output: Annotated[Path, typer.Option("--output", "-o", help="the file to write")],
    fmt: Annotated[str, typer.Option("--format", help="csv or json")] = "csv",
    shared_dir: SharedOpt = None,
    lm_url: LmBaseOpt = None,
    admin_token: AdminTokenOpt = None,
    league_id: LeagueIdOpt = None,
) -> None:
    """Export the standings or every accepted result as CSV or JSON (admin)."""
    if what not in ("standings", "results") or fmt not in ("csv", "json"):
        _fail(f"export standings or results, as csv or json (not {what} as {fmt})")
    response = _admin_request(
        "GET", f"/admin/export/{what}.{fmt}", shared_dir, lm_url, admin_token, league_id
    )
    output.write_bytes(response.content)
    console.print(f"wrote {output}")


def standings(shared_dir: SharedOpt = None, lm_url: LmBaseOpt = None) -> None:
    """Show the current standings."""
    base = lm_base(shared_of(shared_dir), lm_url)
    try:
        console.print(standings_table(httpx.get(f"{base}/standings", timeout=10).json()))
    except httpx.HTTPError as exc:
        _fail(f"cannot reach the League Manager at {base}: {type(exc).__name__}")


def status(shared_dir: SharedOpt = None, lm_url: LmBaseOpt = None) -> None:
    """Show the league's state and its agents."""
    base = lm_base(shared_of(shared_dir), lm_url)
    try:
        data = httpx.get(f"{base}/status", timeout=10).json()
    except httpx.HTTPError as exc:
        _fail(f"cannot reach the League Manager at {base}: {type(exc).__name__}")
    console.print(status_line(data))
    for agent in data["referees"] + data["players"]:
        console.print(f"  {agent['agent_id']:>6}  {agent['state']:<10} {agent['display_name']}")
