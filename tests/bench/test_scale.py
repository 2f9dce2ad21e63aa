"""bench/scale.py: the in-process simulation plays whole leagues through the real League
Manager (a benchmark's smoke test: nothing here is timed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scale import _measure


@pytest.mark.parametrize("broadcasts", [True, False])
async def test_a_whole_league_is_played_through_the_real_league_manager(
    tmp_path: Path, broadcasts: bool
) -> None:
    found = await _measure(12, 0, broadcasts, tmp_path / "SHARED")
    assert (found["results"], found["total_matches"], found["rounds_completed"]) == (66, 66, 11)
    assert found["rejected"] == 0, "every injected report was RECORDED"
    assert found["results_per_s"] > 0 and found["peak_rss_mb"] > 0
