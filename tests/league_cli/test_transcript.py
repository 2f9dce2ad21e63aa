"""The transcript model round-trips through its JSON and CSV files."""

from __future__ import annotations

from pathlib import Path

from playroom.transcript import TokenUsage, Transcript, load_csv_messages


def test_saved_transcript_loads_again(tmp_path: Path) -> None:
    transcript = Transcript(
        mode="prose",
        game="ultimatum",
        configs={"seed": 3},
        tokens=TokenUsage(calls=2, prompt_tokens=100, completion_tokens=20),
    )
    transcript.add("manager", 'Offer, comma, and "quotes"\nover two lines')
    transcript.add("player", "I accept", visibility="internal", speaker="llm-b")
    transcript.add("human", "5", speaker="human")
    transcript.finish({"payoffs": {"human": 5.0, "llm-b": 5.0}})

    json_path, csv_path = transcript.save(tmp_path / "t" / "game.json")

    loaded = Transcript.load(json_path)
    assert loaded == transcript
    assert loaded.tokens.total_tokens == 120
    assert [m.role for m in loaded.visible()] == ["manager", "human"]
    assert load_csv_messages(csv_path) == transcript.messages
    assert csv_path.read_text().splitlines()[0] == "time,role,speaker,visible,text"
