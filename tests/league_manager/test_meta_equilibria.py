"""The equilibrium check: flagged where the cells' intervals let the support change, not
where the data is decisive, and unknown where a cell rests on one match."""

from __future__ import annotations

from league_manager.meta_game import MetaGame
from league_manager.meta_solution import solve_meta_game

DEFECT, COOPERATE = "AD", "AC"


def prisoners(samples: dict[tuple[str, str], list[float]]) -> MetaGame:
    return MetaGame.from_samples([DEFECT, COOPERATE], {}, "payoffs", samples)


def test_decisive_data_supports_its_equilibrium() -> None:
    """Defecting earns clearly more against either, match after match: the intervals are
    narrow and always-defect stays the equilibrium wherever the cells lie in them."""
    meta = prisoners(
        {
            (DEFECT, DEFECT): [1.0, 1.1, 0.9, 1.0],
            (DEFECT, COOPERATE): [5.0, 5.2, 4.8, 5.0],
            (COOPERATE, DEFECT): [0.0, 0.1, 0.0, 0.1],
            (COOPERATE, COOPERATE): [3.0, 3.1, 2.9, 3.0],
        }
    )
    solution = solve_meta_game(meta, timeout=10)
    assert solution.support == [DEFECT]
    assert solution.check is not None and solution.check.verdict == "supported"
    assert solution.check.games_solved == 2 * 2 + 8 and solution.check.other_supports == []


def test_overlapping_intervals_flag_the_equilibrium_as_not_supported() -> None:
    """Against a defector, cooperating earned 0.6 on average and defecting 0.5, but the
    matches scatter widely: inside the intervals defecting may earn more, and the
    equilibrium's support changes."""
    meta = prisoners(
        {
            (DEFECT, DEFECT): [0.0, 1.0, 0.5],
            (DEFECT, COOPERATE): [3.0, 3.5, 2.5],
            (COOPERATE, DEFECT): [0.2, 1.0, 0.6],
            (COOPERATE, COOPERATE): [4.0, 4.5, 3.5],
        }
    )
    solution = solve_meta_game(meta, timeout=10)
    assert solution.support == [COOPERATE], "on the means, cooperating is the equilibrium"
    check = solution.check
    assert check is not None and check.verdict == "not_supported"
    assert [DEFECT] in check.other_supports, check.other_supports
    assert "supports change" in check.reason and "{AD}" in check.reason


def test_a_cell_of_one_match_leaves_the_check_unknown() -> None:
    meta = prisoners(
        {
            (DEFECT, DEFECT): [1.0, 1.1, 0.9],
            (DEFECT, COOPERATE): [5.0],
            (COOPERATE, DEFECT): [0.0],
            (COOPERATE, COOPERATE): [3.0, 3.1, 2.9],
        }
    )
    check = solve_meta_game(meta, timeout=10).check
    assert check is not None and check.verdict == "unknown"
    assert check.reason.startswith("2 of the 4 cells rest on one match each")


def test_matches_that_all_agree_need_no_games_to_support_it() -> None:
    meta = prisoners(
        {
            (DEFECT, DEFECT): [1.0, 1.0],
            (DEFECT, COOPERATE): [5.0, 5.0],
            (COOPERATE, DEFECT): [0.0, 0.0],
            (COOPERATE, COOPERATE): [3.0, 3.0],
        }
    )
    check = solve_meta_game(meta, timeout=10).check
    assert check is not None and check.verdict == "supported" and check.games_solved == 0
