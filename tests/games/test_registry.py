"""The code registry and SHARED/config/games/games_registry.json describe the same games."""

from __future__ import annotations

import importlib
import json

import pytest

from games import UnknownGameError, game_types, load_game, registered_games
from sdk.config import SharedDir
from tests.conftest import REPO_ROOT


def test_code_registry_and_games_registry_json_agree() -> None:
    listed = SharedDir(REPO_ROOT / "SHARED").games().games
    assert sorted(listed) == game_types(), "the same game types on both sides"
    for spec in registered_games():
        entry = listed[spec.game_type]
        assert entry.display_name == spec.display_name, spec.game_type
        assert entry.valid_choices == list(spec.valid_choices), spec.game_type
        assert (entry.min_players, entry.max_players) == (spec.min_players, spec.max_players)
        assert entry.rules_module == spec.rules_module, spec.game_type
        assert entry.move_types == list(spec.move_types), spec.game_type
        assert entry.parameters == json.loads(json.dumps(dict(spec.parameters))), (
            f"{spec.game_type}: the same parameters and defaults on both sides"
        )
        module = importlib.import_module(entry.rules_module)
        declared = getattr(module, "SPECS", None) or (module.SPEC,)  # one module, many games
        assert any(s is spec for s in declared), f"{entry.rules_module} declares {spec.game_type}"


def test_load_game_returns_the_even_odd_spec() -> None:
    spec = load_game("even_odd")
    assert spec.versioned_id == "even_odd_v1"
    assert spec.simultaneous and spec.zero_sum
    assert spec.payoff_bounds == (-1.0, 1.0)


@pytest.mark.parametrize("game_type", ["chess", "", "EVEN_ODD"])
def test_unknown_game_is_a_clear_value_error(game_type: str) -> None:
    with pytest.raises(UnknownGameError, match="unknown game type .*registered games: .*even_odd"):
        load_game(game_type)
    assert issubclass(UnknownGameError, ValueError)
