"""The league report: one self-contained HTML file (inline CSS, inline SVG charts drawn
here, no script, no network) from a ``LeagueAnalysis``, so it opens anywhere and can be
mailed or archived. Every text from the league (names, ids) is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

from league_manager.analytics import LeagueAnalysis
from league_manager.meta_equilibria import SupportCheck
from league_manager.meta_game import MetaCell, MetaGame

__all__ = ["cell_lines", "heat_map_svg", "line_chart_svg", "render_report", "write_report"]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.3rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}tr:nth-child(even){background:#f3f4f6}
thead{border-bottom:2px solid #999}.muted{color:#666}svg{display:block;margin:.5rem 0 1.5rem}
svg text{font-size:11px;font-family:system-ui,sans-serif}
.flag{font-weight:600}.not_supported{color:#b91c1c}.supported{color:#15803d}.unknown{color:#92400e}
"""
_COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table; every cell escaped here."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _heat(value: float, low: float, high: float) -> str:
    """White for the lowest payoff to dark blue for the highest."""
    t = 0.0 if high <= low else (value - low) / (high - low)
    return f"rgb({round(255 - 224 * t)},{round(255 - 136 * t)},{round(255 - 75 * t)})"


_LABEL_CHARS = 24
"""Names longer than this are cut on the heat map's axes (whole in each cell's tooltip)."""


def cell_lines(cell: MetaCell) -> tuple[str, str, str]:
    """A meta-game cell in three short lines: its mean, its interval, its count; an
    unobserved cell shows no number."""
    if cell.mean is None:
        return "unobserved", "", "0 matches"
    if cell.lower is None or cell.upper is None:
        return f"{cell.mean:.3g}", "no interval", "1 match"
    return f"{cell.mean:.3g}", f"[{cell.lower:.3g}, {cell.upper:.3g}]", f"{cell.matches} matches"


def heat_map_svg(meta: MetaGame, cell_width: int = 96, cell_height: int = 52) -> str:
    """The meta-game as a heat map: row earns against column, each cell its mean, interval
    and count; hatched grey, with no number, where the pair was never observed."""
    size = len(meta.players)
    full = [meta.names.get(player, player) for player in meta.players]
    shown = [name if len(name) <= _LABEL_CHARS else name[: _LABEL_CHARS - 1] + "…" for name in full]
    label = 12 + 7 * max((len(name) for name in shown), default=4)  # room for the longest
    values = [cell.mean for row in meta.cells for cell in row if cell.mean is not None]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    parts = [
        '<defs><pattern id="unobserved" width="6" height="6" patternUnits="userSpaceOnUse">'
        '<rect width="6" height="6" fill="#e5e7eb"/><line x1="0" y1="6" x2="6" y2="0" '
        'stroke="#c4c8ce"/></pattern></defs>'
    ]
    for i in range(size):
        name = escape(shown[i])
        parts.append(
            f'<text x="{label - 4}" y="{label + i * cell_height + cell_height / 2 + 4}" '
            f'text-anchor="end">{name}</text>'
        )
        x_name = label + i * cell_width + cell_width / 2
        parts.append(
            f'<text x="{x_name}" y="{label - 6}" text-anchor="start" '
            f'transform="rotate(-45 {x_name} {label - 6})">{name}</text>'
        )
        for j in range(size):
            cell = meta.cells[i][j]
            x, y = label + j * cell_width, label + i * cell_height
            fill = "url(#unobserved)" if cell.mean is None else _heat(cell.mean, low, high)
            lines = cell_lines(cell)
            tip = " ".join(line for line in lines if line)
            parts.append(
                f'<rect class="{"unobserved" if cell.mean is None else "observed"}" '
                f'x="{x}" y="{y}" width="{cell_width}" height="{cell_height}" fill="{fill}" '
                f'stroke="#fff"><title>{escape(full[i])} vs {escape(full[j])}: '
                f"{escape(tip)}</title></rect>"
            )
            style = ' font-style="italic" fill="#555"' if cell.mean is None else ""
            for n, line in enumerate(lines):
                parts.append(
                    f'<text x="{x + cell_width / 2}" y="{y + 15 + 14 * n}" '
                    f'text-anchor="middle"{style}>{escape(line)}</text>'
                )
    width = label + size * cell_width + 4 + label  # the last column's slanted name runs past
    height = label + size * cell_height + 4
    return (
        f'<svg class="heat-map" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="meta-game payoff heat map">{"".join(parts)}</svg>'
    )


def line_chart_svg(
    xs: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    css_class: str,
    y_label: str,
    width: int = 640,
    height: int = 260,
) -> str:
    """A line chart of ``series`` (name → values at ``xs``) on a 0..max axis, with a
    legend; the names are escaped."""
    left, right, top, bottom = 48, 150, 12, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    y_max = max((max(v) for v in series.values() if len(v)), default=1.0) or 1.0
    x_min, x_max = (min(xs), max(xs)) if xs else (0.0, 1.0)
    x_span = (x_max - x_min) or 1.0

    def point(x: float, y: float) -> str:
        return f"{left + (x - x_min) / x_span * plot_w:.1f},{top + plot_h - y / y_max * plot_h:.1f}"

    parts = [
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        f'stroke="#999"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#999"/>',
        f'<text x="{left - 4}" y="{top + 8}" text-anchor="end">{y_max:.2g}</text>',
        f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>',
        f'<text x="{left}" y="{height - 8}">{x_min:g}</text>',
        f'<text x="{left + plot_w}" y="{height - 8}" text-anchor="end">{x_max:g}</text>',
        f'<text x="{left + plot_w / 2}" y="{height - 8}" text-anchor="middle">'
        f"{escape(y_label)}</text>",
    ]
    for n, (name, values) in enumerate(series.items()):
        colour = _COLOURS[n % len(_COLOURS)]
        points = " ".join(point(x, y) for x, y in zip(xs, values, strict=True))
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
            f'points="{points}"><title>{escape(name)}</title></polyline>'
        )
        legend_y = top + 14 * n + 8
        parts.append(
            f'<rect x="{left + plot_w + 12}" y="{legend_y - 8}" width="10" '
            f'height="10" fill="{colour}"/><text x="{left + plot_w + 26}" '
            f'y="{legend_y + 1}">{escape(name)}</text>'
        )
    return (
        f'<svg class="{escape(css_class)}" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
        f"{''.join(parts)}</svg>"
    )


def _standings(analysis: LeagueAnalysis) -> str:
    return _table(
        ["Player", "#", "Played", "W", "D", "L", "Points"],
        [
            [
                str(row["display_name"]),
                str(row["rank"]),
                str(row["played"]),
                str(row["wins"]),
                str(row["draws"]),
                str(row["losses"]),
                _number(float(row["points"]), 1),
            ]
            for row in analysis.standings
        ],
    )


def _metrics(analysis: LeagueAnalysis) -> str:
    names = analysis.meta_game.names
    solution = analysis.solution
    headers = [
        "Player",
        "Matches",
        "Payoff / match",
        "Payoff / stage",
        "Cooperation",
        "Reciprocity",
    ]
    if solution.population is not None:
        headers += ["Equilibrium share", "Final population share"]
    rows = []
    for p, m in analysis.metrics.items():
        row = [
            names.get(p, p),
            str(m.matches),
            _number(m.payoff_per_match),
            _number(m.payoff_per_stage),
            _number(m.cooperation),
            _number(m.reciprocity),
        ]
        if solution.population is not None:
            row += [
                _number(solution.equilibria[0].shares.get(p), 3),
                _number(solution.population.final.get(p), 3),
            ]
        rows.append(row)
    return _table(headers, rows)


def _ratings(analysis: LeagueAnalysis) -> str:
    names = analysis.meta_game.names
    bayesian = analysis.ratings.bayesian
    return _table(
        ["Player", "Elo", "Matches", "μ", "σ", "Ordinal μ − 3σ"],
        [
            [
                names.get(p, p),
                _number(row.rating, 1),
                str(row.matches),
                _number(bayesian[p].mu if p in bayesian else None),
                _number(bayesian[p].sigma if p in bayesian else None),
                _number(bayesian[p].ordinal if p in bayesian else None),
            ]
            for p, row in analysis.ratings.elo.items()
        ],
    )


def _check(check: SupportCheck) -> str:
    return (
        f'<p class="flag {escape(check.verdict)}">{escape(check.flag)}: {escape(check.reason)}.</p>'
    )


def _equilibria(analysis: LeagueAnalysis) -> str:
    names = analysis.meta_game.names
    solution = analysis.solution
    left_out = "; ".join(f"{names.get(p, p)}: {why}" for p, why in solution.left_out.items())
    if solution.reason is not None:
        return f'<p class="flag unknown">Not computed: {escape(solution.reason)}.</p>'
    scope = (
        f'<p class="muted">Equilibria of the game between the players whose cells are all '
        f"observed; left out: {escape(left_out)}.</p>"
        if left_out
        else ""
    )
    table = _table(
        ["Support", "Shares", "Payoff"],
        [
            [
                ", ".join(names.get(p, p) for p in e.support),
                ", ".join(f"{names.get(p, p)} {e.shares[p]:.3f}" for p in e.support),
                _number(e.payoff),
            ]
            for e in solution.equilibria
        ],
    )
    return scope + table + (_check(solution.check) if solution.check else "")


def _population(analysis: LeagueAnalysis) -> str:
    solution = analysis.solution
    if solution.population is None:
        return f'<p class="muted">Not computed: {escape(solution.reason or "")}.</p>'
    names = analysis.meta_game.names
    trajectory = {
        names.get(p, p): [row[i] for row in solution.population.shares]
        for i, p in enumerate(solution.players)
    }
    return (
        "<p>Shares of a population of the restricted game's agents playing the meta-game "
        "(the cells' means), from equal shares.</p>"
        + line_chart_svg(
            solution.population.times,
            trajectory,
            css_class="trajectory",
            y_label="time (payoff-spread units)",
        )
    )


def _cooperation(analysis: LeagueAnalysis) -> str:
    if not analysis.cooperation_by_stage:
        return f'<p class="muted">{escape(analysis.game_type)} has no notion of cooperation.</p>'
    stages = [float(i + 1) for i in range(len(analysis.cooperation_by_stage))]
    return (
        f"<p>Cooperation: {escape(analysis.cooperation_meaning or '')}, mean over all "
        f"matches at each stage.</p>"
        + line_chart_svg(
            stages,
            {"cooperation": analysis.cooperation_by_stage},
            css_class="cooperation",
            y_label="stage",
        )
    )


def render_report(analysis: LeagueAnalysis) -> str:
    """The report's HTML."""
    meta = analysis.meta_game
    title = f"{analysis.league_id}: league report"
    skipped = (
        f'<p class="muted">Left out: {escape(", ".join(sorted(analysis.skipped)))}</p>'
        if analysis.skipped
        else ""
    )
    method = f" ({escape(analysis.solution.method)})" if analysis.solution.method else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{_STYLE}</style></head>
<body><h1>{escape(title)}</h1>
<p class="muted">{escape(analysis.game_type)} · standings version {analysis.version} ·
{analysis.matches_analysed} matches analysed · computed in {analysis.seconds:.2f} s</p>
{skipped}
<h2>Standings</h2>{_standings(analysis)}
<h2>Meta-game</h2>
<p>What each row player earned against each column player
({escape(meta.measure.replace("_", "/"))}): the mean over its matches, the mean's
{meta.confidence:.0%} Student-t interval (none with one match) and the count. Hatched cells
were never observed and hold no value; the diagonal is what a player earns against itself,
which no match of a league measures.</p>{heat_map_svg(meta)}
<h2>Symmetric Nash equilibria{method}</h2>
{_equilibria(analysis)}
<h2>Agents</h2>{_metrics(analysis)}
{_cooperation(analysis)}
<h2>Population (replicator dynamics)</h2>
{_population(analysis)}
<h2>Ratings</h2>{_ratings(analysis)}
</body></html>
"""


def write_report(analysis: LeagueAnalysis, path: Path) -> Path:
    """Write the report to ``path`` (its folder created) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(analysis), encoding="utf-8")
    return path
