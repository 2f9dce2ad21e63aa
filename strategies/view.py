"""What a strategy sees when it picks a move: ``MoveView``, with its record and its past.

A strategy sees only what its player may see: the call it is answering, its own record and
its own past matches. It never sees the referee's draw before the match is over.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from games import Action, ActionSpace
from sdk.messages import GameStatus, Outcome, ParityChoice, Role, UtcTimestamp

__all__ = ["PARITIES", "MoveView", "PastMatch", "Record"]

PARITIES: tuple[str, ...] = get_args(ParityChoice)
"""The legal moves of even/odd, in the protocol's spelling."""


class PastMatch(BaseModel):
    """One finished match, as the player saw it: what a strategy reads of its past, and
    what the player host's history file keeps."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    match_id: str
    league_id: str | None = None
    round_id: int | None = None
    opponent_id: str | None = None
    role: Role | None = None
    my_choice: str | None = None
    opponent_choice: str | None = None
    drawn_number: int | None = None
    status: GameStatus
    winner_player_id: str | None = None
    outcome: Outcome
    at: UtcTimestamp

    @field_validator("at")
    @classmethod
    def _whole_seconds(cls, value: datetime) -> datetime:
        """As the file keeps it, so a reloaded history equals the one in memory."""
        return value.replace(microsecond=0)


class Record(BaseModel):
    """This player's results in the league so far, as the referee's call states them."""

    model_config = ConfigDict(frozen=True)

    wins: int = 0
    losses: int = 0
    draws: int = 0


class MoveView(BaseModel):
    """Everything a strategy may know when it picks a move.

    ``legal_moves`` is what it must choose from (``("even", "odd")`` for even/odd);
    ``history`` is this player's finished matches, oldest first, against every opponent.
    """

    model_config = ConfigDict(frozen=True)

    game_type: str = "even_odd"
    match_id: str
    league_id: str | None = None
    round_id: int | None = None
    player_id: str
    opponent_id: str
    role: Role | None = None
    legal_moves: tuple[Action, ...] = PARITIES
    my_record: Record = Field(default_factory=Record)
    history: tuple[PastMatch, ...] = ()
    deadline: datetime
    action_space: dict[str, Any] | None = None
    """For games other than even/odd: the referee's description of what may be played
    (``{"kind": "number", "low": 0, "high": 100, "integer": true}`` for a bid…);
    ``None`` means one of ``legal_moves``."""
    observation: dict[str, Any] = Field(default_factory=dict)
    """For games other than even/odd: what the referee shows this player of the game."""
    messages: tuple[dict[str, Any], ...] = ()
    """When the league lets players talk: what the others said since this player's last
    move ({player_id, stage, text, truncated})."""

    def space(self) -> ActionSpace:
        """What may be played, as the games library's ActionSpace."""
        if self.action_space is not None:
            return ActionSpace.from_description(self.action_space)
        return ActionSpace.of_choices(self.legal_moves)

    def is_legal(self, move: Action) -> bool:
        return self.space().contains(move)

    @property
    def against_opponent(self) -> tuple[PastMatch, ...]:
        """The past matches against this match's opponent, oldest first."""
        return tuple(m for m in self.history if m.opponent_id == self.opponent_id)
