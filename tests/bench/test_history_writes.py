"""bench/history_writes.py: a small run is measured, every history holds its matches, and
the player host process is stopped and the folder removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.history_writes import run


@pytest.mark.e2e
def test_a_small_run_is_measured_and_its_host_stopped(temp_root: Path) -> None:
    row = run(players=4, rounds=2, keep=False)

    assert (row["results"], len(row["per_round"])) == (4, 2)
    assert 0 < row["first_result_s"]["mean"] <= row["last_result_s_mean"]
    # /proc counts CPU in clock ticks (10 ms): four results may fit in less than one.
    assert row["host_cpu_ms_per_result"] >= 0 and row["health_max_s"] > 0
    assert not Path(f"/proc/{row['pid']}").exists(), "the player host is still running"
    assert list(temp_root.iterdir()) == [], "the run's temporary folder is left behind"
