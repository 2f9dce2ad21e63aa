"""RefereeSettings refuses bad values with a message naming them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from referee import RefereeSettings

GOOD: dict[str, Any] = {
    "shared_dir": Path("SHARED"),
    "port": 8001,
    "display_name": "Referee Alpha",
    "league_manager_url": "http://127.0.0.1:8000/mcp",
    "max_concurrent_matches": 4,
}


def test_good_settings_and_their_defaults() -> None:
    settings = RefereeSettings(**GOOD)
    assert (settings.host, settings.game_types, settings.seed) == ("127.0.0.1", ["even_odd"], None)
    assert settings.join_league is True
    assert settings.contact_endpoint == "http://127.0.0.1:8001/mcp"
    assert RefereeSettings(**GOOD, join_league=False).join_league is False
    assert RefereeSettings(**GOOD, seed=7).seed == 7
    advertised = RefereeSettings(**GOOD, advertise="http://ref-a.example.edu:9001/mcp")
    assert advertised.contact_endpoint == "http://ref-a.example.edu:9001/mcp"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"port": 0}, "port"),
        ({"port": 70000}, "port"),
        ({"max_concurrent_matches": 0}, "max_concurrent_matches"),
        ({"display_name": "  "}, "blank"),
        ({"display_name": ""}, "display_name"),
        ({"league_manager_url": "127.0.0.1:8000/mcp"}, "not an http(s) URL"),
        ({"league_manager_url": "http://127.0.0.1:8000/"}, "must end in /mcp"),
        ({"game_types": ["chess"]}, "unknown game type(s) chess"),
        ({"game_types": []}, "game_types"),
        ({"game_types": ["even_odd", "even_odd"]}, "twice"),
        ({"seed": "abc"}, "seed"),
        ({"advertise": "ref-a:9001/mcp"}, "not an http(s) URL"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_bad_values_are_refused(change: dict[str, Any], words: str) -> None:
    with pytest.raises(ValidationError, match=words.replace("(", r"\(").replace(")", r"\)")):
        RefereeSettings(**{**GOOD, **change})


def test_required_fields_are_required() -> None:
    with pytest.raises(ValidationError, match="league_manager_url"):
        RefereeSettings(
            shared_dir=Path("SHARED"),
            port=8001,
            display_name="R",  # type: ignore[call-arg]
            max_concurrent_matches=1,
        )
