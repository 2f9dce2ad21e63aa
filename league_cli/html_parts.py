"""What the HTML reports are built from — the league's (``league_cli.report``) and an
evaluation's (``league_cli.evaluation.html_report``): one self-contained page (inline CSS,
inline SVG charts drawn here, no script, no network), tables, a heat map of a payoff matrix
and a line chart. Every text passed in is escaped here, so names (user input) can never
become markup."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

__all__ = [
    "HeatCell",
    "Marked",
    "heat_map_svg",
    "html_page",
    "interval_lines",
    "line_chart_svg",
    "number",
    "table",
]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.3rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left}tr:nth-child(even){background:#f3f4f6}
thead{border-bottom:2px solid #999}.muted{color:#666}svg{display:block;margin:.5rem 0 1.5rem}
svg text{font-size:11px;font-family:system-ui,sans-serif}
.flag{font-weight:600}.not_supported{color:#b91c1c}.supported{color:#15803d}.unknown{color:#92400e}
.verdict{font-weight:700;text-align:center}.pass{color:#fff;background:#15803d}
.warn{color:#111;background:#facc15}.fail{color:#fff;background:#b91c1c}
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
_LABEL_CHARS = 24
"""Names longer than this are cut on the heat map's axes (whole in each cell's tooltip)."""


def number(value: float | None, digits: int = 2) -> str:
    """A number with ``digits`` decimals, or a dash for none."""
    return "–" if value is None else f"{value:.{digits}f}"


@dataclass(frozen=True)
class Marked:
    """A table cell whose text carries a CSS class (a verdict's colour)."""

    text: str
    css_class: str


def _cell(cell: str | Marked) -> str:
    if isinstance(cell, Marked):
        return f'<td class="{escape(cell.css_class)}">{escape(cell.text)}</td>'
    return f"<td>{escape(cell)}</td>"


def table(headers: Sequence[str], rows: Sequence[Sequence[str | Marked]]) -> str:
    """An HTML table; every cell escaped here."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_page(title: str, body: str) -> str:
    """The whole document: ``title`` (escaped here) as its title and heading, then
    ``body``, HTML its caller escaped."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{_STYLE}</style></head>
<body><h1>{escape(title)}</h1>
{body}
</body></html>
"""


def _heat(value: float, low: float, high: float) -> str:
    """White for the lowest payoff to dark blue for the highest."""
    t = 0.0 if high <= low else (value - low) / (high - low)
    return f"rgb({round(255 - 224 * t)},{round(255 - 136 * t)},{round(255 - 75 * t)})"


@dataclass(frozen=True)
class HeatCell:
    """A heat map's cell: its value (None: never observed, drawn hatched with no number)
    and the short lines written in it."""

    mean: float | None
    lines: tuple[str, ...]


def interval_lines(
    mean: float | None,
    lower: float | None,
    upper: float | None,
    count: int,
    units: tuple[str, str],
) -> tuple[str, str, str]:
    """A mean in three short lines: the mean, its interval, the count (``units``: what one
    and what several are called); an unobserved cell shows no number."""
    counted = f"{count} {units[0] if count == 1 else units[1]}"
    if mean is None:
        return "unobserved", "", counted
    if lower is None or upper is None:
        return f"{mean:.3g}", "no interval", counted
    return f"{mean:.3g}", f"[{lower:.3g}, {upper:.3g}]", counted


def heat_map_svg(
    names: Sequence[str],
    cells: Sequence[Sequence[HeatCell]],
    *,
    label: str,
    cell_width: int = 96,
    cell_height: int = 52,
) -> str:
    """A square payoff matrix as a heat map: row earns against column, each cell its lines;
    hatched grey, with no number, where the pair was never observed. ``label`` names the
    chart for screen readers."""
    size = len(names)
    shown = [
        name if len(name) <= _LABEL_CHARS else name[: _LABEL_CHARS - 1] + "…" for name in names
    ]
    margin = 12 + 7 * max((len(name) for name in shown), default=4)  # room for the longest
    values = [cell.mean for row in cells for cell in row if cell.mean is not None]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    parts = [
        '<defs><pattern id="unobserved" width="6" height="6" patternUnits="userSpaceOnUse">'
        '<rect width="6" height="6" fill="#e5e7eb"/><line x1="0" y1="6" x2="6" y2="0" '
        'stroke="#c4c8ce"/></pattern></defs>'
    ]
    for i in range(size):
        name = escape(shown[i])
        parts.append(
            f'<text x="{margin - 4}" y="{margin + i * cell_height + cell_height / 2 + 4}" '
            f'text-anchor="end">{name}</text>'
        )
        x_name = margin + i * cell_width + cell_width / 2
        parts.append(
            f'<text x="{x_name}" y="{margin - 6}" text-anchor="start" '
            f'transform="rotate(-45 {x_name} {margin - 6})">{name}</text>'
        )
        for j in range(size):
            cell = cells[i][j]
            x, y = margin + j * cell_width, margin + i * cell_height
            fill = "url(#unobserved)" if cell.mean is None else _heat(cell.mean, low, high)
            tip = " ".join(line for line in cell.lines if line)
            parts.append(
                f'<rect class="{"unobserved" if cell.mean is None else "observed"}" '
                f'x="{x}" y="{y}" width="{cell_width}" height="{cell_height}" fill="{fill}" '
                f'stroke="#fff"><title>{escape(names[i])} vs {escape(names[j])}: '
                f"{escape(tip)}</title></rect>"
            )
            style = ' font-style="italic" fill="#555"' if cell.mean is None else ""
            for n, line in enumerate(cell.lines):
                parts.append(
                    f'<text x="{x + cell_width / 2}" y="{y + 15 + 14 * n}" '
                    f'text-anchor="middle"{style}>{escape(line)}</text>'
                )
    width = margin + size * cell_width + 4 + margin  # the last column's slanted name runs past
    height = margin + size * cell_height + 4
    return (
        f'<svg class="heat-map" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}">{"".join(parts)}</svg>'
    )


def line_chart_svg(
    xs: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    css_class: str,
    x_label: str,
    y_max: float | None = None,
    width: int = 640,
    height: int = 260,
) -> str:
    """A line chart of ``series`` (name → values at ``xs``) on a 0..``y_max`` axis (default:
    the largest value), with a legend; the names are escaped."""
    left, right, top, bottom = 48, 150, 12, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    if y_max is None:
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
        f"{escape(x_label)}</text>",
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
