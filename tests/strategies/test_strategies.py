"""Strategies: generic checks for every registered one, tables of expected plays against
scripted histories, and how names and paths resolve."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

from sdk.timeutil import utc_now
from strategies import (
    Classifier,
    FunctionStrategy,
    HistoryStrategy,
    MoveView,
    PastMatch,
    RandomStrategy,
    Strategy,
    StrategyError,
    build_strategy,
    known_strategies,
    ready_strategies,
    register_strategy,
    strategy_summaries,
)


def past(
    opponent_choice: str | None,
    opponent: str = "P02",
    my_choice: str = "even",
    outcome: str = "DRAW",
    number: int = 0,
) -> PastMatch:
    return PastMatch(
        match_id=f"R{number}M1",
        opponent_id=opponent,
        my_choice=my_choice,
        opponent_choice=opponent_choice,
        status="DRAW",
        outcome=outcome,
        at=utc_now(),
    )


def view(
    *history: PastMatch, opponent: str = "P02", legal: tuple[str, ...] = ("even", "odd")
) -> MoveView:
    return MoveView(
        match_id="R9M1",
        player_id="P01",
        opponent_id=opponent,
        legal_moves=legal,
        history=history,
        deadline=utc_now(),
    )


SCRIPTED_VIEWS = [
    view(),
    view(past("odd")),
    view(past("even"), past("even"), past("odd")),
    view(past("odd", opponent="P09")),
    view(past(None), past("even", outcome="WIN")),
] * 4


def plays(strategy: Strategy) -> list[str]:
    return [strategy.choose(v) for v in SCRIPTED_VIEWS]


def options_for(name: str) -> dict[str, int]:
    strategy = build_strategy(name)
    return {"seed": 7} if strategy.classifier.stochastic else {}


# "human" reads a terminal: tests/strategies/test_human.py drives it with a fake one.
# "llm" calls a chat server: tests/players/test_llm.py runs it against a local one.
@pytest.mark.parametrize("name", [n for n in known_strategies() if n not in ("human", "llm")])
class TestEveryStrategy:
    def test_it_plays_only_legal_moves(self, name: str) -> None:
        strategy = build_strategy(name, options_for(name))
        for scripted in SCRIPTED_VIEWS:
            move = strategy.choose(scripted)
            assert move in scripted.legal_moves, f"{name} played {move!r}"

    def test_it_is_named_documented_and_classified(self, name: str) -> None:
        strategy = build_strategy(name)
        assert strategy.name == name
        assert inspect.getdoc(type(strategy)), f"{name} has no docstring"
        assert isinstance(strategy.classifier, Classifier)

    def test_the_same_options_give_the_same_plays(self, name: str) -> None:
        first = plays(build_strategy(name, options_for(name)))
        second = plays(build_strategy(name, options_for(name)))
        assert first == second, f"{name} with {options_for(name)} is not reproducible"

    def test_reset_starts_the_same_plays_over(self, name: str) -> None:
        strategy = build_strategy(name, options_for(name))
        first = plays(strategy)
        strategy.on_match_over(past("odd"))
        strategy.reset()
        assert plays(strategy) == first, f"{name} does not start over after reset()"


@pytest.mark.parametrize(
    ("opponent_choices", "expected"),
    [
        (["even"], "odd"),
        (["odd"], "even"),
        (["even", "even", "odd"], "odd"),
        (["odd", "odd", "even"], "even"),
        (["even", "odd"], "even"),
        (["odd", "even"], "odd"),
        ([None, "even"], "odd"),
        ([None, "odd", None], "even"),
    ],
)
def test_history_plays_against_the_opponents_favourite(
    opponent_choices: list[str | None], expected: str
) -> None:
    history = [past(choice, number=i) for i, choice in enumerate(opponent_choices)]
    noise = [past("odd", opponent="P09", number=99)] * 5
    strategy = HistoryStrategy(seed=1)

    assert [strategy.choose(view(*noise, *history)) for _ in range(5)] == [expected] * 5


def test_history_plays_random_against_a_newcomer() -> None:
    newcomer = [view(past("even", opponent="P09")) for _ in range(30)]
    history, random_play = HistoryStrategy(seed=3), RandomStrategy(seed=3)

    assert [history.choose(v) for v in newcomer] == [random_play.choose(v) for v in newcomer]


@pytest.mark.parametrize(("options", "expected"), [({}, "even"), ({"choice": "odd"}, "odd")])
def test_fixed_always_plays_its_choice(options: dict[str, str], expected: str) -> None:
    strategy = build_strategy("fixed", options)
    assert set(plays(strategy)) == {expected}


def test_fixed_refuses_a_choice_that_is_not_a_parity() -> None:
    with pytest.raises(StrategyError, match="choice must be one of even, odd"):
        build_strategy("fixed", {"choice": "maybe"})


def test_random_is_uniform_enough_and_respects_the_legal_moves() -> None:
    strategy = RandomStrategy(seed=11)
    moves = [strategy.choose(view()) for _ in range(400)]
    assert 160 <= moves.count("even") <= 240, moves.count("even")
    assert {strategy.choose(view(legal=("odd",))) for _ in range(20)} == {"odd"}


def test_a_registered_function_stays_a_function_and_builds_a_strategy() -> None:
    @register_strategy("always_even")
    def always_even(view: MoveView) -> str:
        """Even, whatever happens."""
        return "even"

    strategy = build_strategy("always_even")
    assert always_even(view()) == "even"
    assert isinstance(strategy, FunctionStrategy)
    assert (strategy.name, strategy.choose(view()), strategy.__doc__) == (
        "always_even",
        "even",
        "Even, whatever happens.",
    )
    assert "always_even" in known_strategies()
    assert strategy_summaries()["always_even"] == "Even, whatever happens."


def test_a_registered_class_is_named_by_its_registration() -> None:
    @register_strategy("contrary")
    class Contrary(Strategy):
        """Odd."""

        def choose(self, view: MoveView) -> str:
            return "odd"

    assert Contrary.name == "contrary"
    assert build_strategy("contrary").choose(view()) == "odd"


def test_registration_refuses_clashes_and_non_strategies() -> None:
    with pytest.raises(StrategyError, match="registered already .*RandomStrategy"):
        register_strategy("random")(lambda view: "even")
    with pytest.raises(StrategyError, match="must be letters"):
        register_strategy("my:name")
    with pytest.raises(StrategyError, match="not a Strategy subclass"):
        register_strategy("thing")(dict)


def test_registering_the_same_definition_again_is_harmless() -> None:
    source = "def again(view):\n    return 'odd'\n"
    for _ in range(2):
        namespace: dict[str, object] = {"__name__": "student_module"}
        exec(source, namespace)
        register_strategy("again")(namespace["again"])
    assert build_strategy("again").choose(view()) == "odd"


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(
        StrategyError,
        match=r"unknown strategy 'nope'; known strategies: "
        r"fixed, history, human, llm, random",
    ):
        build_strategy("nope")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("tests.players.scripted:always_odd", FunctionStrategy),
        ("tests.players.scripted:RecordingStrategy", Strategy),
    ],
)
def test_a_dotted_path_names_a_function_or_a_class(path: str, kind: type) -> None:
    strategy = build_strategy(path)
    assert isinstance(strategy, kind)
    assert strategy.choose(view()) == "odd"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("tests.players.no_such_module:thing", "cannot import 'tests.players.no_such_module'"),
        ("tests.players.scripted:missing", "has no attribute 'missing'"),
        ("tests.players.conftest:Player", "is a class but not a strategies.Strategy"),
        ("tests.players.conftest:LEAGUE", "neither a Strategy subclass nor a function"),
        ("tests.players.scripted:", "is not 'package.module:attribute'"),
    ],
)
def test_a_bad_dotted_path_is_explained(path: str, message: str) -> None:
    with pytest.raises(StrategyError, match=message):
        build_strategy(path)


def test_options_that_a_strategy_does_not_take_are_refused() -> None:
    with pytest.raises(StrategyError, match="takes: no options"):
        build_strategy("tests.players.scripted:always_odd", {"seed": 1})
    with pytest.raises(
        StrategyError, match="does not take the options \\['colour'\\]; it takes: seed"
    ):
        build_strategy("random", {"colour": "red"})


def test_a_module_in_the_working_directory_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "student_move_7.py").write_text(
        "def pick(view):\n    return view.legal_moves[-1]\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    monkeypatch.delitem(sys.modules, "student_move_7", raising=False)

    strategy = build_strategy("student_move_7:pick")

    assert strategy.choose(view()) == "odd"
    monkeypatch.delitem(sys.modules, "student_move_7")


def test_ready_strategies_are_the_inline_classes_made_for_the_game() -> None:
    @register_strategy("tic_tac_toe_only")
    class TicTacToeOnly(Strategy):
        classifier = Classifier(inline=True)
        game_types = ("tic_tac_toe",)

        def choose(self, view: MoveView) -> str:
            return str(view.legal_moves[0])

    @register_strategy("slow_thinker")
    class SlowThinker(Strategy):
        def choose(self, view: MoveView) -> str:
            return str(view.legal_moves[0])

    register_strategy("as_a_function")(lambda view: "even")

    assert ready_strategies("even_odd") == ["random", "fixed", "history"]
    assert ready_strategies("tic_tac_toe") == ["random", "tic_tac_toe_only"]
    assert ready_strategies("prisoners_dilemma") == ["random"]
