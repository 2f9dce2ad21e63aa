"""PlayerSettings refuse bad values with a sentence that says what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from players import PlayerSettings
from sdk.config import SharedDir


def settings(shared: SharedDir, **overrides: Any) -> PlayerSettings:
    values: dict[str, Any] = {
        "shared_dir": shared.root,
        "port": 8101,
        "display_name": "Alice",
        "league_manager_url": "http://127.0.0.1:8000/mcp",
    }
    values.update(overrides)
    return PlayerSettings(**values)


def test_the_defaults(shared_dir: SharedDir) -> None:
    s = settings(shared_dir)
    assert (s.host, s.strategy, s.strategy_options, s.game_types, s.join_league) == (
        "127.0.0.1",
        "random",
        {},
        ["even_odd"],
        True,
    )
    assert s.contact_endpoint == "http://127.0.0.1:8101/mcp"
    assert s.shared_dir == shared_dir.root


def test_an_advertised_endpoint_is_the_one_registered(shared_dir: SharedDir) -> None:
    s = settings(shared_dir, host="0.0.0.0", advertise="http://lab-12.example.edu:9101/mcp")
    assert s.contact_endpoint == "http://lab-12.example.edu:9101/mcp"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"strategy": "nope"},
            "unknown strategy 'nope'; known strategies: fixed, history, human, llm, random",
        ),
        ({"strategy": "fixed", "strategy_options": {"choice": "odd "}}, "choice must be one of"),
        ({"strategy": "random", "strategy_options": {"sed": 1}}, "does not take the options"),
        ({"strategy": "no_such_module:f"}, "cannot import 'no_such_module'"),
        ({"league_manager_url": "http://127.0.0.1:8000/"}, "must end in /mcp"),
        ({"league_manager_url": "ftp://lm/mcp"}, "is not an http"),
        ({"game_types": ["chess"]}, "cannot play chess; it plays auction_first_price"),
        ({"game_types": []}, "at least 1 item"),
        ({"port": 0}, "greater than or equal to 1"),
        ({"display_name": ""}, "at least 1 character"),
        ({"player_id": "../P01"}, "should match pattern"),
        ({"advertise": "http://lab-12:9101/"}, "must end in /mcp"),
        ({"colour": "red"}, "Extra inputs are not permitted"),
    ],
)
def test_bad_values_are_refused(
    shared_dir: SharedDir, overrides: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        settings(shared_dir, **overrides)


def test_a_missing_shared_folder_is_refused(tmp_path: Path, shared_dir: SharedDir) -> None:
    with pytest.raises(ValidationError, match="is not a folder"):
        settings(shared_dir, shared_dir=tmp_path / "nowhere")
