"""Matches in progress (invited, not over yet) and how a GAME_OVER becomes a history record."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime

from pydantic import BaseModel

from sdk.messages import (
    GameInvitation,
    GameOver,
    GameResult,
    Outcome,
    Role,
    UtcTimestamp,
    outcome_of,
)
from sdk.timeutil import utc_now
from sdk.variants import RECIPIENT_STATUS
from strategies.view import PastMatch

__all__ = ["OpenMatches", "MatchInfo", "outcome_for", "record_of"]


class MatchInfo(BaseModel):
    """A match this player was invited to, kept until its GAME_OVER."""

    match_id: str
    league_id: str | None = None
    round_id: int | None = None
    game_type: str = "even_odd"
    opponent_id: str | None = None
    role: Role | None = None
    my_choice: str | None = None
    invited_at: UtcTimestamp
    referee_id: str | None = None
    """The verified referee that sent the invitation (None where callers are unverified):
    the only one whose GAME_OVER of this match counts."""
    assignment: int | None = None
    """The invitation's assignment number (None: it gave none)."""

    @classmethod
    def from_invitation(
        cls, invitation: GameInvitation, referee_id: str | None = None
    ) -> MatchInfo:
        return cls(
            match_id=invitation.match_id,
            league_id=invitation.league_id,
            round_id=invitation.round_id,
            game_type=invitation.game_type,
            opponent_id=invitation.opponent_id,
            role=invitation.role_in_match,
            invited_at=utc_now(),
            referee_id=referee_id,
            assignment=invitation.assignment,
        )


class OpenMatches:
    """The matches in progress, by match id; the oldest are forgotten past ``capacity``
    (a referee that never sends GAME_OVER must not grow the player's memory forever)."""

    def __init__(self, capacity: int = 256):
        self._capacity = capacity
        self._matches: OrderedDict[str, MatchInfo] = OrderedDict()

    def add(self, match: MatchInfo) -> None:
        self._matches[match.match_id] = match
        self._matches.move_to_end(match.match_id)
        while len(self._matches) > self._capacity:
            self._matches.popitem(last=False)

    def get(self, match_id: str) -> MatchInfo | None:
        return self._matches.get(match_id)

    def pop(self, match_id: str) -> MatchInfo | None:
        return self._matches.pop(match_id, None)

    def all(self) -> list[MatchInfo]:
        return list(self._matches.values())


def outcome_for(player_id: str, result: GameResult) -> Outcome:
    """The match from ``player_id``'s side: a technical loss of the opponent is our win; a
    GAME_OVER that told it from our side without naming a winner (``recipient_status``,
    ``sdk.variants``) says our WIN or LOSS itself. A GAME_OVER names no technical loser:
    in a technical loss, every player but the winner is one."""
    told = (result.model_extra or {}).get(RECIPIENT_STATUS)
    if result.winner_player_id is None and told in ("WIN", "LOSS"):
        return "WIN" if told == "WIN" else "LOSS"
    winner = None if result.status == "DRAW" else result.winner_player_id
    faulty = result.status == "TECHNICAL_LOSS" and winner != player_id
    return outcome_of(
        player_id,
        winner=winner,
        technical_losers=(player_id,) if faulty else (),
        drew=result.status == "DRAW",
    )


def record_of(
    message: GameOver, player_id: str, known: MatchInfo | None, at: datetime | None = None
) -> PastMatch:
    """The history record of a finished match; what the invitation told us fills what the
    GAME_OVER leaves out (published referees differ in what they put there)."""
    result = message.game_result
    choices = result.choices
    opponent_id = known.opponent_id if known else None
    if opponent_id is None:
        others = [pid for pid in choices if pid != player_id]
        if not others and result.winner_player_id not in (None, player_id):
            others = [result.winner_player_id]
        opponent_id = others[0] if others else None
    outcome = outcome_for(player_id, result)
    winner = result.winner_player_id
    if winner is None and result.status == "WIN":  # told from our side: the winner is known
        winner = player_id if outcome == "WIN" else opponent_id
    my_choice = choices.get(player_id) or (known.my_choice if known else None)
    return PastMatch(
        match_id=message.match_id,
        league_id=message.league_id or (known.league_id if known else None),
        round_id=message.round_id
        if message.round_id is not None
        else (known.round_id if known else None),
        opponent_id=opponent_id,
        role=known.role if known else None,
        my_choice=my_choice,
        opponent_choice=choices.get(opponent_id) if opponent_id else None,
        drawn_number=result.drawn_number,
        status=result.status,
        winner_player_id=winner,
        outcome=outcome,
        at=at or utc_now(),
    )
