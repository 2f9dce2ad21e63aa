"""bench/load.py: a league played under a stream of queries is checked against its own
records (the schedule, the journal, the match files and the standings) and found whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load import league_run


@pytest.mark.e2e
def test_a_league_under_queries_is_checked_whole_and_its_folder_removed(temp_root: Path) -> None:
    row = league_run(
        players=6, referees=1, capacity=3, rate=20, seconds=None, timeout=60, keep=False
    )

    assert row["problems"] == [], row["problems"]
    assert row["matches"] == 15
    assert row["sent"] > 0 and all(s["errors"] == {} for s in row["streams"].values())
    assert list(temp_root.iterdir()) == [], "the run's temporary folder is left behind"
