"""The referee loads rules through the code registry, cross-checked with the JSON registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games import UnknownGameError, load_game
from match_engine.rules import load_rules
from sdk.config import ConfigError, SharedDir
from tests.conftest import make_shared_dir


def edit_registry(shared: SharedDir, **entry_changes: object) -> None:
    path = shared.config_dir / "games" / "games_registry.json"
    registry = json.loads(path.read_text())
    registry["games"]["even_odd"].update(entry_changes)
    path.write_text(json.dumps(registry))


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


def test_the_committed_registry_loads_even_odd(shared: SharedDir) -> None:
    rules = load_rules(shared, "even_odd")
    assert rules.spec is load_game("even_odd")
    assert rules.move_method == "choose_parity"


def test_a_rules_module_mismatch_is_refused(shared: SharedDir) -> None:
    edit_registry(shared, rules_module="games.other")
    with pytest.raises(ConfigError, match="games.other.*games.even_odd"):
        load_rules(shared, "even_odd")


def test_a_move_method_this_referee_does_not_speak_is_refused(shared: SharedDir) -> None:
    edit_registry(shared, move_method="make_move")
    with pytest.raises(ConfigError, match="calls 'choose_parity' for it"):
        load_rules(shared, "even_odd")


def test_every_other_game_moves_by_make_move(shared: SharedDir) -> None:
    rules = load_rules(shared, "prisoners_dilemma")
    assert rules.move_method == "make_move"
    assert rules.spec.game_type == "prisoners_dilemma"


def test_a_game_missing_from_either_registry_is_unknown(shared: SharedDir) -> None:
    with pytest.raises(UnknownGameError, match="unknown game type 'chess'"):
        load_rules(shared, "chess")
    path = shared.config_dir / "games" / "games_registry.json"
    registry = json.loads(path.read_text())
    registry["games"] = {}
    path.write_text(json.dumps(registry))
    with pytest.raises(UnknownGameError, match="not in games_registry.json"):
        load_rules(shared, "even_odd")
