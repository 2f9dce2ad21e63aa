"""How a match ended, and its two renderings: GAME_OVER's game_result for the players and
MATCH_RESULT_REPORT's result (with the league's points) for the League Manager."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games import GameState
from sdk.config import ScoringConfig
from sdk.messages import GameResult, GameStatus, MatchResult, ParityChoice, outcome_of

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
    drawn_number: int | None = None
    number_parity: ParityChoice | None = None
    faults: tuple[Fault, ...] = field(default=())
    payoffs: dict[str, float] | None = None
    game_state: dict[str, Any] | None = None
    """The whole final state of a game other than even/odd, for the match file."""

    @property
    def technical_losers(self) -> list[str]:
        return [fault.player_id for fault in self.faults]

    def game_result(self) -> GameResult:
        """GAME_OVER's result: even/odd's fields exactly as the protocol has them; other
        games add their ``payoffs``."""
        extra = {"payoffs": self.payoffs} if self.payoffs and self.drawn_number is None else {}
        return GameResult(
            status=self.status,
            winner_player_id=self.winner,
            drawn_number=self.drawn_number,
            number_parity=self.number_parity,
            choices=dict(self.choices),
            reason=self.reason,
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
        details: dict[str, Any] = {
            "status": self.status,
            "drawn_number": self.drawn_number,
            "number_parity": self.number_parity,
            "choices": dict(self.choices),
            "technical_losers": self.technical_losers,
            "reason": self.reason,
        }
        if self.payoffs is not None:
            details["payoffs"] = dict(self.payoffs)
        return MatchResult(winner=self.winner, score=self.points(scoring), details=details)


def played_outcome(state: GameState) -> MatchOutcome:
    """The outcome of a game played to its end: the one player with the best payoff wins;
    a tie at the top is a draw."""
    payoffs = state.payoffs()
    best = max(payoffs.values())
    leaders = [player for player, value in payoffs.items() if value == best]
    winner = leaders[0] if len(leaders) == 1 else None
    final = state.to_json()
    verdict = f"{winner} wins" if winner else "a draw"
    if "drawn_number" in final:  # even/odd keeps the protocol's own result fields
        choices: dict[str, str | None] = dict(final.get("choices", {}))
        number, parity = final["drawn_number"], final.get("number_parity")
        picks = ", ".join(f"{player} chose {choice}" for player, choice in choices.items())
        return MatchOutcome(
            status="WIN" if winner else "DRAW",
            players=state.players,
            winner=winner,
            choices=choices,
            drawn_number=number,
            number_parity=parity,
            reason=f"drawn number {number} is {parity}; {picks}: {verdict}",
        )
    shown = ", ".join(f"{player} {value:g}" for player, value in payoffs.items())
    return MatchOutcome(
        status="WIN" if winner else "DRAW",
        players=state.players,
        winner=winner,
        choices={},
        reason=f"payoffs {shown}: {verdict}",
        payoffs=dict(payoffs),
        game_state=final,
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
