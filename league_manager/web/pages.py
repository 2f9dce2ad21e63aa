"""The dashboard's HTML: a small shell per page (title, navigation, empty sections) that
``static/dashboard.js`` fills from the JSON routes and keeps live. Every value written
here is escaped; the script writes text nodes only."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from league_manager.web.events import PUBLIC_EVENTS

__all__ = [
    "STATIC_PREFIX",
    "analysis_page",
    "dashboard_page",
    "match_page",
    "not_found_page",
    "player_page",
    "schedule_page",
]

STATIC_PREFIX = "/ui/static"

_LIVE_BADGE = '<span id="live" class="badge muted">connecting…</span>'
_NAV = (
    ("/", "Dashboard"),
    ("/ui/schedule", "Schedule"),
    ("/ui/analysis", "Analysis"),
)

_ADMIN_PANEL = """
<details class="admin" id="admin">
<summary>Admin</summary>
<form id="admin-token-form" autocomplete="off">
<label for="admin-token">Admin token</label>
<input id="admin-token" type="password" spellcheck="false" placeholder="paste the admin token">
<button type="submit">Keep for this tab</button>
<button type="button" id="admin-forget">Forget</button>
</form>
<p class="muted" id="admin-token-state"></p>
{actions}
<p id="admin-message" role="status" aria-live="polite"></p>
</details>"""

_LEAGUE_ACTIONS = """
<div class="buttons">
<button type="button" data-admin-post="/start_league">Start league</button>
<button type="button" data-admin-post="/admin/pause">Pause</button>
<button type="button" data-admin-post="/admin/resume">Resume</button>
</div>
<div class="buttons">
<span class="muted">Export:</span>
<button type="button" data-admin-export="/admin/export/standings.csv">standings.csv</button>
<button type="button" data-admin-export="/admin/export/standings.json">standings.json</button>
<button type="button" data-admin-export="/admin/export/results.csv">results.csv</button>
<button type="button" data-admin-export="/admin/export/results.json">results.json</button>
</div>"""


def _shell(
    title: str,
    page: str,
    main: str,
    *,
    status: int = 200,
    data: dict[str, str] | None = None,
    live: bool = True,
    play_url: str | None = None,
) -> str:
    """A whole page; ``data`` becomes data-* attributes of <body> (the script reads them);
    the navigation links to the play service at ``play_url`` when there is one (the
    League Manager serves no game)."""
    attributes = {"page": page, **(data or {})}
    if live:
        attributes["events"] = " ".join(sorted(PUBLIC_EVENTS))
    body = " ".join(f'data-{name}="{escape(value)}"' for name, value in attributes.items())
    links = (*_NAV, *(((play_url, "Play"),) if play_url else ()))
    nav = " ".join(f'<a href="{escape(href)}">{label}</a>' for href, label in links)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<link rel="icon" href="{STATIC_PREFIX}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{STATIC_PREFIX}/dashboard.css">
<script src="{STATIC_PREFIX}/dashboard.js" defer></script></head>
<body {body}>
<header><nav>{nav}</nav>{_LIVE_BADGE if live else ""}</header>
<main>
<p id="error" class="error" role="alert" hidden></p>
{main}
</main>
<noscript><p class="error">This dashboard needs JavaScript; the JSON is at
<a href="/status">/status</a>, <a href="/standings">/standings</a> and
<a href="/schedule">/schedule</a>.</p></noscript>
</body></html>
"""


def dashboard_page(league_name: str, play_url: str | None = None) -> str:
    main = f"""
<h1 id="league-name">{escape(league_name)}</h1>
<section id="progress" aria-label="progress"></section>
<section><h2>Running now</h2><div id="running"></div></section>
<section><h2>Standings</h2><div id="standings"></div></section>
<section><h2>Referees</h2><div id="referees"></div></section>
<section><h2>Players</h2><div id="players"></div></section>
<p class="muted">JSON: <a href="/status">/status</a> · <a href="/standings">/standings</a> ·
<a href="/schedule">/schedule</a> · <a href="/analysis">/analysis</a> ·
<a href="/events">/events</a></p>
{_ADMIN_PANEL.format(actions=_LEAGUE_ACTIONS)}"""
    return _shell(f"{league_name}: dashboard", "dashboard", main, play_url=play_url)


def schedule_page(league_name: str, play_url: str | None = None) -> str:
    main = f"""
<h1>{escape(league_name)}: schedule</h1>
<div id="schedule"></div>"""
    return _shell(f"{league_name}: schedule", "schedule", main, play_url=play_url)


def match_page(league_name: str, match_id: str, play_url: str | None = None) -> str:
    main = f"""
<h1>Match {escape(match_id)}</h1>
<section id="match-summary"></section>
<section><h2>Result</h2><div id="match-result"></div></section>
<section><h2>Moves</h2><div id="match-moves"></div></section>
<section><h2>Transcript</h2><div id="match-transcript"></div></section>"""
    return _shell(
        f"{league_name}: match {match_id}",
        "match",
        main,
        data={"match-id": match_id},
        play_url=play_url,
    )


def player_page(league_name: str, player_id: str, play_url: str | None = None) -> str:
    actions = """
<div class="buttons">
<button type="button" class="danger" data-admin-post="/admin/players/{id}/remove"
 data-confirm="Remove this player from the league?">Remove player</button>
</div>""".replace("{id}", escape(quote(player_id, safe="")))
    main = f"""
<h1 id="player-name">Player {escape(player_id)}</h1>
<section id="player-summary"></section>
<section><h2>Matches</h2><div id="player-matches"></div></section>
{_ADMIN_PANEL.format(actions=actions)}"""
    return _shell(
        f"{league_name}: player {player_id}",
        "player",
        main,
        data={"player-id": player_id},
        play_url=play_url,
    )


def analysis_page(league_name: str, play_url: str | None = None) -> str:
    main = f"""
<h1>{escape(league_name)}: analysis</h1>
<p><button type="button" id="analysis-refresh">Refresh</button>
<span class="muted">computed from the match files when asked</span></p>
<div id="analysis"></div>"""
    return _shell(f"{league_name}: analysis", "analysis", main, live=False, play_url=play_url)


def not_found_page(sentence: str) -> str:
    main = f'<h1>Not found</h1><p class="error">{escape(sentence)}</p>'
    return _shell("Not found", "not-found", main, live=False)
