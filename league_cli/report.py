"""The league report: one self-contained HTML file (inline CSS, inline SVG charts drawn
here, no script, no network) from a ``LeagueAnalysis``, so it opens anywhere and can be
mailed or archived. Every text from the league (names, ids) is escaped."""

from __future__ import annotations

from html import escape
from pathlib import Path

from league_cli.html_parts import (
    HeatCell,
    heat_map_svg,
    html_page,
    interval_lines,
    line_chart_svg,
    number,
    table,
)
from league_manager.analytics import LeagueAnalysis
from league_manager.meta_equilibria import SupportCheck
from league_manager.meta_game import MetaCell, MetaGame

__all__ = ["cell_lines", "meta_heat_map_svg", "render_report", "write_report"]


def cell_lines(cell: MetaCell) -> tuple[str, str, str]:
    """A meta-game cell in three short lines: its mean, its interval, its count of matches;
    an unobserved cell shows no number."""
    return interval_lines(cell.mean, cell.lower, cell.upper, cell.matches, ("match", "matches"))


def meta_heat_map_svg(meta: MetaGame) -> str:
    """The meta-game as a heat map (``html_parts.heat_map_svg``)."""
    cells = [[HeatCell(cell.mean, cell_lines(cell)) for cell in row] for row in meta.cells]
    names = [meta.names.get(player, player) for player in meta.players]
    return heat_map_svg(names, cells, label="meta-game payoff heat map")


def _standings(analysis: LeagueAnalysis) -> str:
    return table(
        ["Player", "#", "Played", "W", "D", "L", "Points"],
        [
            [
                str(row["display_name"]),
                str(row["rank"]),
                str(row["played"]),
                str(row["wins"]),
                str(row["draws"]),
                str(row["losses"]),
                number(float(row["points"]), 1),
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
            number(m.payoff_per_match),
            number(m.payoff_per_stage),
            number(m.cooperation),
            number(m.reciprocity),
        ]
        if solution.population is not None:
            row += [
                number(solution.equilibria[0].shares.get(p), 3),
                number(solution.population.final.get(p), 3),
            ]
        rows.append(row)
    return table(headers, rows)


def _ratings(analysis: LeagueAnalysis) -> str:
    names = analysis.meta_game.names
    bayesian = analysis.ratings.bayesian
    return table(
        ["Player", "Elo", "Matches", "μ", "σ", "Ordinal μ − 3σ"],
        [
            [
                names.get(p, p),
                number(row.rating, 1),
                str(row.matches),
                number(bayesian[p].mu if p in bayesian else None),
                number(bayesian[p].sigma if p in bayesian else None),
                number(bayesian[p].ordinal if p in bayesian else None),
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
    shares = table(
        ["Support", "Shares", "Payoff"],
        [
            [
                ", ".join(names.get(p, p) for p in e.support),
                ", ".join(f"{names.get(p, p)} {e.shares[p]:.3f}" for p in e.support),
                number(e.payoff),
            ]
            for e in solution.equilibria
        ],
    )
    return scope + shares + (_check(solution.check) if solution.check else "")


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
            x_label="time (payoff-spread units)",
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
            x_label="stage",
        )
    )


def render_report(analysis: LeagueAnalysis) -> str:
    """The report's HTML."""
    meta = analysis.meta_game
    skipped = (
        f'<p class="muted">Left out: {escape(", ".join(sorted(analysis.skipped)))}</p>'
        if analysis.skipped
        else ""
    )
    method = f" ({escape(analysis.solution.method)})" if analysis.solution.method else ""
    body = f"""<p class="muted">{escape(analysis.game_type)} ·
standings version {analysis.version} · {analysis.matches_analysed} matches analysed ·
computed in {analysis.seconds:.2f} s</p>
{skipped}
<h2>Standings</h2>{_standings(analysis)}
<h2>Meta-game</h2>
<p>What each row player earned against each column player
({escape(meta.measure.replace("_", "/"))}): the mean over its matches, the mean's
{meta.confidence:.0%} Student-t interval (none with one match) and the count. Hatched cells
were never observed and hold no value; the diagonal is what a player earns against itself,
which no match of a league measures.</p>{meta_heat_map_svg(meta)}
<h2>Symmetric Nash equilibria{method}</h2>
{_equilibria(analysis)}
<h2>Agents</h2>{_metrics(analysis)}
{_cooperation(analysis)}
<h2>Population (replicator dynamics)</h2>
{_population(analysis)}
<h2>Ratings</h2>{_ratings(analysis)}"""
    return html_page(f"{analysis.league_id}: league report", body)


def write_report(analysis: LeagueAnalysis, path: Path) -> Path:
    """Write the report to ``path`` (its folder created) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(analysis), encoding="utf-8")
    return path
