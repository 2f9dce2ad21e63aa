"""What cooperating means in each game, in one table.

A game's entry turns one move into a cooperation level from 0 (selfish) to 1 (fully
cooperative), or ``None`` when that move is not a cooperation choice (a public goods
punishment stage). A game without an entry has no agreed notion of cooperation (Blotto,
auctions, even/odd, rock-paper-scissors: pure conflict; battle of the sexes and congestion:
coordination; ultimatum and bargaining: measured by ``fairness`` instead), and metrics that
need one refuse it by name.

==================  ==========================================================
game                cooperation level of a move
==================  ==========================================================
prisoners_dilemma   1 for ``"C"``, 0 for ``"D"``
stag_hunt           1 for ``"stag"`` (the joint, risky hunt), 0 for ``"hare"``
chicken             1 for ``"swerve"``, 0 for ``"straight"``
public_goods        contribution ÷ endowment at a contribution stage; a
                    punishment stage is not a cooperation choice
==================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from games import chicken, prisoners_dilemma, public_goods, stag_hunt
from games.analysis.errors import AnalysisError
from games.analysis.history import History
from games.spec import Action

__all__ = ["COOPERATION", "CooperationNotion", "cooperation_levels", "notion_for"]

Level = Callable[[Action, Mapping[str, Any]], "float | None"]


@dataclass(frozen=True)
class CooperationNotion:
    """One game's notion: a sentence for reports and the level of a move (given the
    game's parameters as the history recorded them)."""

    game_type: str
    meaning: str
    level: Level


def _binary(cooperative: str) -> Level:
    def level(move: Action, parameters: Mapping[str, Any]) -> float | None:
        return 1.0 if move == cooperative else 0.0

    return level


def _contribution_share(move: Action, parameters: Mapping[str, Any]) -> float | None:
    if isinstance(move, bool) or not isinstance(move, (int, float)):
        return None  # a punishment allocation, not a contribution
    endowment = parameters.get("endowment", public_goods.DEFAULT_PARAMETERS["endowment"])
    return float(move) / float(endowment)


COOPERATION: Mapping[str, CooperationNotion] = {
    notion.game_type: notion
    for notion in (
        CooperationNotion(
            prisoners_dilemma.GAME_ID,
            'the share of "C" plays',
            _binary(prisoners_dilemma.Move.C.value),
        ),
        CooperationNotion(
            stag_hunt.GAME_ID,
            'the share of "stag" plays (the joint hunt)',
            _binary(stag_hunt.Move.STAG.value),
        ),
        CooperationNotion(
            chicken.GAME_ID, 'the share of "swerve" plays', _binary(chicken.Move.SWERVE.value)
        ),
        CooperationNotion(
            public_goods.GAME_ID,
            "the share of the endowment contributed, over contribution stages",
            _contribution_share,
        ),
    )
}


def notion_for(game_type: str) -> CooperationNotion:
    """The cooperation notion of ``game_type``.

    Raises:
        AnalysisError: the game has none (the message lists the games that do).
    """
    try:
        return COOPERATION[game_type]
    except KeyError:
        raise AnalysisError(
            f"{game_type} has no notion of cooperation here; these games "
            f"do: {', '.join(sorted(COOPERATION))}"
        ) from None


def cooperation_levels(history: History) -> list[dict[str, float]]:
    """Each cooperation stage's levels, by player who moved, in stage order (stages that
    are not cooperation choices left out).

    Raises:
        AnalysisError: the game has no notion of cooperation.
    """
    notion = notion_for(history.game_type)
    parameters = history.parameters
    levels = []
    for stage in history.stages:
        scored = {player: notion.level(move, parameters) for player, move in stage.moves.items()}
        kept = {player: level for player, level in scored.items() if level is not None}
        if kept:
            levels.append(kept)
    return levels
