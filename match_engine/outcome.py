"""How a match ended, and its two renderings: GAME_OVER's game_result for the players and
MATCH_RESULT_REPORT's result (with the league's points) for the League Manager."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games import GameSpec, GameState
from sdk.config import ScoringConfig
from sdk.messages import GameResult, GameStatus, MatchResult, outcome_of

__all__ = ["Fault", "MatchOutcome", "played_outcome", "technical_outcome"]


@dataclass(frozen=True)
class Fault:
    """Why a player lost by technical loss: the call, an error code and a sentence."""

    player_id: str
    method: str
    code: str
    description: str


@dataclass(frozen=True)
class MatchOutcome:
    """The decided result of one match."""

    status: GameStatus
    players: tuple[str, ...]
    winner: str | None
    choices: dict[str, str | None]
    reason: str
    result_fields: dict[str, Any] = field(default_factory=dict)
    """The fields of GAME_OVER's result that the game states itself (``GameSpec.
    wire_result``: even/odd's drawn number and its parity)."""
    faults: tuple[Fault, ...] = field(default=())
    payoffs: dict[str, float] | None = None
    game_state: dict[str, Any] | None = None
    """The whole final state, for the match file, of a game reported by its payoffs."""

    @property
    def technical_losers(self) -> list[str]:
        return [fault.player_id for fault in self.faults]

    def game_result(self) -> GameResult:
        """GAME_OVER's result: the protocol's fields, with those the game states itself
        (even/odd's, exactly as the protocol has them) or, for a game reported by its
        payoffs, its ``payoffs``."""
        extra: dict[str, Any] = {"payoffs": self.payoffs} if self.payoffs else {}
        return GameResult(
            status=self.status,
            winner_player_id=self.winner,
            choices=dict(self.choices),
            reason=self.reason,
            **self.result_fields,
            **extra,
        )

    def points(self, scoring: ScoringConfig) -> dict[str, float]:
        """Each player's points under the league's scoring."""
        losers = set(self.technical_losers)
        return {
            player: scoring.points(
                outcome_of(
                    player, winner=self.winner, technical_losers=losers, drew=self.winner is None
                )
            )
            for player in self.players
        }

    def match_result(self, scoring: ScoringConfig) -> MatchResult:
        """MATCH_RESULT_REPORT's result: the winner, the points, and as details GAME_OVER's
        result with the technical losers."""
        details: dict[str, Any] = self.game_result().model_dump(
            exclude={"winner_player_id", "reason", "payoffs"}
        )
        details |= {"technical_losers": self.technical_losers, "reason": self.reason}
        if self.payoffs is not None:
            details["payoffs"] = dict(self.payoffs)
        return MatchResult(winner=self.winner, score=self.points(scoring), details=details)


def played_outcome(spec: GameSpec, state: GameState) -> MatchOutcome:
    """The outcome of a game of ``spec`` played to its end: the one player with the best
    payoff wins; a tie at the top is a draw. The result shows what the game states for
    GAME_OVER (``GameSpec.wire_result``), else its payoffs and final state."""
    payoffs = state.payoffs()
    best = max(payoffs.values())
    leaders = [player for player, value in payoffs.items() if value == best]
    winner = leaders[0] if len(leaders) == 1 else None
    status: GameStatus = "WIN" if winner else "DRAW"
    verdict = f"{winner} wins" if winner else "a draw"
    if spec.wire_result is not None:
        told = spec.wire_result(state)
        return MatchOutcome(
            status=status,
            players=state.players,
            winner=winner,
            choices=told.choices,
            reason=f"{told.account}: {verdict}",
            result_fields=told.fields,
        )
    shown = ", ".join(f"{player} {value:g}" for player, value in payoffs.items())
    return MatchOutcome(
        status=status,
        players=state.players,
        winner=winner,
        choices={},
        reason=f"payoffs {shown}: {verdict}",
        payoffs=dict(payoffs),
        game_state=state.to_json(),
    )


def technical_outcome(
    players: Sequence[str], choices: Mapping[str, str | None], faults: Sequence[Fault]
) -> MatchOutcome:
    """A match decided by faults: the faulty lose, a single sound player wins."""
    losers = {fault.player_id for fault in faults}
    sound = [player for player in players if player not in losers]
    winner = sound[0] if len(sound) == 1 else None
    reasons = "; ".join(f"{fault.player_id}: {fault.description}" for fault in faults)
    suffix = f", {winner} wins" if winner else ", no winner"
    return MatchOutcome(
        status="TECHNICAL_LOSS",
        players=tuple(players),
        winner=winner,
        choices={player: choices.get(player) for player in players},
        reason=f"technical loss ({reasons}){suffix}",
        faults=tuple(faults),
    )
