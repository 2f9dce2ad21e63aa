"""The league's standings and results as files for the course staff: JSON and CSV.

Standings: the JSON is ``GET /standings``'s document as it is; the CSV has one row per
player in rank order, columns ``STANDINGS_COLUMNS``. Results: every accepted result, in the
order the journal holds them; the JSON lists each with its seats (``player_ids``), outcomes
and points by player, winner, ``referee_id`` (the League Manager's sender for a forfeit),
``forfeit`` and ``recorded_at``; the CSV has one row per result, columns
``RESULTS_COLUMNS``, where ``player_ids``, ``outcomes`` and ``points`` are ``;``-separated
lists in seat order (so a match of any size fits the same columns).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from league_manager.results_book import ResultsBook

__all__ = [
    "RESULTS_COLUMNS",
    "STANDINGS_COLUMNS",
    "results_csv",
    "results_document",
    "standings_csv",
]

STANDINGS_COLUMNS = (
    "rank",
    "player_id",
    "display_name",
    "played",
    "wins",
    "draws",
    "losses",
    "technical_losses",
    "points",
)
RESULTS_COLUMNS = (
    "match_id",
    "round_id",
    "player_ids",
    "outcomes",
    "points",
    "winner",
    "referee_id",
    "forfeit",
    "recorded_at",
)


def results_document(league_id: str, book: ResultsBook) -> dict[str, Any]:
    """Every accepted result, in journal order, with the version of the standings they make
    (the number of results)."""
    results = []
    for result in book.values():
        results.append(
            {  # outcomes are recorded in seat order (standings.outcomes_of)
                "match_id": result.match_id,
                "round_id": result.round_id,
                "player_ids": list(result.outcomes),
                "outcomes": result.outcomes,
                "points": result.points,
                "winner": result.winner,
                "referee_id": result.referee_id,
                "forfeit": bool(result.details.get("forfeit")),
                "recorded_at": result.recorded_at,
            }
        )
    return {"league_id": league_id, "version": len(book), "results": results}


def standings_csv(document: dict[str, Any]) -> str:
    """A standings document (``StandingsBook.document``) as CSV with a header."""
    return _write(
        STANDINGS_COLUMNS,
        [{**row, "points": _number(row["points"])} for row in document["standings"]],
    )


def results_csv(document: dict[str, Any]) -> str:
    """A ``results_document`` as CSV with a header, one row per result."""
    rows = [
        {
            **row,
            "player_ids": _joined(row["player_ids"]),
            "outcomes": _joined(row["outcomes"][p] for p in row["player_ids"]),
            "points": _joined(_number(row["points"][p]) for p in row["player_ids"]),
            "winner": row["winner"] or "",
            "forfeit": "true" if row["forfeit"] else "false",
        }
        for row in document["results"]
    ]
    return _write(RESULTS_COLUMNS, rows)


def _write(columns: Sequence[str], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(
        out, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n"
    )
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _joined(values: Any) -> str:
    return ";".join(str(value) for value in values)


def _number(value: float) -> str:
    """3.0 as ``3``, 0.5 as ``0.5``: points read back as the numbers they are."""
    return str(int(value)) if float(value).is_integer() else str(value)
