"""The match record's stages: its own copy of every move, however it was handed in."""

from __future__ import annotations

from pathlib import Path

from match_engine.match_file import MatchFile


def test_a_stage_keeps_its_own_copy_of_a_move_that_can_change(tmp_path: Path) -> None:
    record = MatchFile(
        tmp_path / "m.json",
        match_id="m",
        league_id="l",
        round_id=0,
        game_type="colonel_blotto",
        referee_id="r",
        conversation_id="c",
        seats=[],
        report_status="not_required",
        in_memory=True,
    )
    allocation = [5, 3, 2]
    record.stage(1, {"P01": allocation, "P02": "C"})
    allocation[0] = 0
    assert record.snapshot()["stages"][0]["moves"] == {"P01": [5, 3, 2], "P02": "C"}, (
        "a list move changed after the stage must not change the record"
    )
