"""The standings as a small HTML page (every value escaped; no external assets)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["standings_page"]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:48rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}th,td{padding:.4rem .6rem;text-align:right}
th:nth-child(2),td:nth-child(2){text-align:left}tr:nth-child(even){background:#f3f4f6}
thead{border-bottom:2px solid #999}.muted{color:#666}
"""


def standings_page(status: dict[str, Any], standings: dict[str, Any]) -> str:
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(str(row[key]))}</td>" for key in (
            "rank", "display_name", "played", "wins", "draws", "losses", "points")) + "</tr>"
        for row in standings["standings"]
    )
    round_text = (f"round {status['current_round']} of {status['total_rounds']}"
                  if status["current_round"] else f"{status['total_rounds']} rounds")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="3">
<title>{escape(status['display_name'])}: standings</title><style>{_STYLE}</style></head>
<body><h1>{escape(status['display_name'])}</h1>
<p class="muted">{escape(status['state'])} · {escape(round_text)} ·
{status['matches_completed']} of {status['total_matches']} matches played ·
standings version {standings['version']}</p>
<table><thead><tr><th>#</th><th>Player</th><th>Played</th><th>W</th><th>D</th><th>L</th>
<th>Points</th></tr></thead><tbody>{rows}</tbody></table>
<p class="muted">JSON: <a href="/standings">/standings</a> · <a href="/schedule">/schedule</a>
· <a href="/status">/status</a></p></body></html>
"""
