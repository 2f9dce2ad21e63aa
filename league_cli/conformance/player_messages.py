"""What ``check-player`` sends: the referee's and the League Manager's messages, built with
the SDK's models exactly as our referee and League Manager build them, and the bad input."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sdk.auth import issue_token, league_manager_proof, match_proof
from sdk.messages import (
    Champion,
    ChooseParityCall,
    FinalStanding,
    GameError,
    GameInvitation,
    GameOver,
    GameResult,
    LeagueCompleted,
    LeagueStandingsUpdate,
    ParityChoice,
    ParityContext,
    Role,
    RoundAnnouncement,
    RoundCompleted,
    RoundMatch,
    RoundSummary,
    StandingsRow,
    WinLossRecord,
)
from sdk.timeutil import utc_now

__all__ = ["GAME_TYPE", "LeagueSide", "MatchPlan", "RefereeSide", "Table", "decide"]

GAME_TYPE = "even_odd"
REFEREE_ID = "REF01"
REFEREE_SENDER = f"referee:{REFEREE_ID}"


@dataclass
class MatchPlan:
    """One match of the run, and what happened in it."""

    match_id: str
    round_id: int
    conversation_id: str
    role: Role
    opponent_id: str
    choice: str | None = None
    steps: dict[str, bool] = field(default_factory=dict)


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def points(self) -> int:
        return 3 * self.wins + self.draws


class Table:
    """The standings of the pretend league: the player and its opponents."""

    def __init__(self, player_ids: list[str]):
        self.rows = {player_id: Tally() for player_id in player_ids}

    def add(self, result: GameResult, players: tuple[str, str]) -> None:
        for player_id in players:
            tally = self.rows[player_id]
            if result.status == "DRAW":
                tally.draws += 1
            elif result.winner_player_id == player_id:
                tally.wins += 1
            else:
                tally.losses += 1

    def record(self, player_id: str) -> WinLossRecord:
        tally = self.rows[player_id]
        return WinLossRecord(wins=tally.wins, losses=tally.losses, draws=tally.draws)

    def ranked(self) -> list[tuple[int, str, Tally]]:
        order = sorted(
            self.rows.items(), key=lambda item: (-item[1].points, -item[1].wins, item[0])
        )
        return [(rank, player_id, tally) for rank, (player_id, tally) in enumerate(order, 1)]

    def standings(self) -> list[StandingsRow]:
        return [
            StandingsRow(
                rank=rank,
                player_id=player_id,
                display_name=player_id,
                played=t.wins + t.draws + t.losses,
                wins=t.wins,
                draws=t.draws,
                losses=t.losses,
                points=t.points,
            )
            for rank, player_id, t in self.ranked()
        ]


def decide(player_id: str, choice: str | None, opponent_id: str, rng: random.Random) -> GameResult:
    """The even/odd rules on one match: a missing or illegal choice is a technical loss."""
    opponent_choice = rng.choice(["even", "odd"])
    drawn = rng.randint(1, 10)
    parity: ParityChoice = "even" if drawn % 2 == 0 else "odd"
    choices: dict[str, str | None] = {player_id: choice, opponent_id: opponent_choice}
    if choice not in ("even", "odd"):
        return GameResult(
            status="TECHNICAL_LOSS",
            winner_player_id=opponent_id,
            drawn_number=None,
            number_parity=None,
            choices=choices,
            reason=f"{player_id} gave no legal choice in time",
        )
    right = {pid for pid, chosen in choices.items() if chosen == parity}
    if len(right) == 1:
        winner = right.pop()
        return GameResult(
            status="WIN",
            winner_player_id=winner,
            drawn_number=drawn,
            number_parity=parity,
            choices=choices,
            reason=f"{winner} chose {parity}; the number was {drawn}",
        )
    return GameResult(
        status="DRAW",
        drawn_number=drawn,
        number_parity=parity,
        choices=choices,
        reason=f"both chose alike; the number was {drawn}",
    )


def _signing_key(token: str | None) -> str:
    """What the kit's proofs are made from: the player's token, or a made-up one (a player
    that checks only that a token is there takes either)."""
    return token or issue_token()


class RefereeSide:
    """The messages of a referee, with the match's envelope and, as our referees send, the
    proof of the match in auth_token (made from the player's token when the student gives
    it, so a player that verifies proofs can; from a made-up one otherwise)."""

    def __init__(self, league_id: str, player_id: str, token: str | None = None):
        self.league_id = league_id
        self.player_id = player_id
        self._key = _signing_key(token)

    def envelope(self, plan: MatchPlan) -> dict[str, Any]:
        return {
            "sender": REFEREE_SENDER,
            "conversation_id": plan.conversation_id,
            "league_id": self.league_id,
            "round_id": plan.round_id,
            "match_id": plan.match_id,
            "auth_token": match_proof(self._key, self.league_id, plan.match_id, REFEREE_ID),
        }

    def invitation(self, plan: MatchPlan) -> dict[str, Any]:
        """GAME_INVITATION, plus ``player_id`` so a player that never registered knows whom
        the call is for (an extra field: kept, never refused)."""
        wire = GameInvitation(
            **self.envelope(plan),
            game_type=GAME_TYPE,
            role_in_match=plan.role,
            opponent_id=plan.opponent_id,
        ).to_wire()
        wire["player_id"] = self.player_id
        return wire

    def move_call(self, plan: MatchPlan, timeout: float, record: WinLossRecord) -> dict[str, Any]:
        context = ParityContext(
            opponent_id=plan.opponent_id, round_id=plan.round_id, your_standings=record
        )
        return ChooseParityCall(
            **self.envelope(plan),
            player_id=self.player_id,
            game_type=GAME_TYPE,
            context=context,
            deadline=utc_now() + timedelta(seconds=timeout),
        ).to_wire()

    def game_over(self, plan: MatchPlan, result: GameResult) -> dict[str, Any]:
        return GameOver(**self.envelope(plan), game_type=GAME_TYPE, game_result=result).to_wire()

    def game_error(
        self,
        plan: MatchPlan,
        *,
        code: str,
        description: str,
        retryable: bool,
        retry_count: int,
        max_retries: int,
    ) -> dict[str, Any]:
        return GameError(
            **self.envelope(plan),
            error_code=code,
            error_description=description,
            affected_player=self.player_id,
            action_required="answer the next call in time"
            if retryable
            else "none: the match is decided",
            retryable=retryable,
            retry_count=retry_count,
            max_retries=max_retries,
            consequence="a technical loss if the last retry fails"
            if retryable
            else "technical loss in this match",
        ).to_wire()


class LeagueSide:
    """The League Manager's notifications, signed as our League Manager signs them: with
    ``sender`` (system.json's ``league_manager_sender``) and the League Manager's proof of
    the conversation in auth_token (made from the player's token when the student gives it,
    from a made-up one otherwise)."""

    def __init__(
        self, league_id: str, player_id: str, token: str | None, sender: str = "league_manager"
    ):
        self.league_id = league_id
        self.player_id = player_id
        self.sender = sender
        self._key = _signing_key(token)

    def envelope(self, topic: str, *, token: str | None | bool = True) -> dict[str, Any]:
        conversation_id = f"{self.league_id}:{topic}"
        envelope: dict[str, Any] = {
            "sender": self.sender,
            "conversation_id": conversation_id,
            "league_id": self.league_id,
        }
        if token is True:
            envelope["auth_token"] = league_manager_proof(
                self._key, self.league_id, conversation_id
            )
        elif isinstance(token, str):
            envelope["auth_token"] = token
        return envelope

    def round_announcement(self, round_id: int, plan: MatchPlan) -> dict[str, Any]:
        player_a, player_b = (
            (self.player_id, plan.opponent_id)
            if plan.role == "PLAYER_A"
            else (plan.opponent_id, self.player_id)
        )
        return RoundAnnouncement(
            **self.envelope(f"round-{round_id}"),
            round_id=round_id,
            matches=[
                RoundMatch(
                    match_id=plan.match_id,
                    game_type=GAME_TYPE,
                    player_A_id=player_a,
                    player_B_id=player_b,
                    referee_endpoint=None,
                )
            ],
        ).to_wire()

    def standings_update(
        self, round_id: int, table: Table, *, token: str | None | bool = True
    ) -> dict[str, Any]:
        return LeagueStandingsUpdate(
            **self.envelope(f"round-{round_id}", token=token),
            round_id=round_id,
            standings=table.standings(),
        ).to_wire()

    def round_completed(
        self, round_id: int, next_round_id: int | None, result: GameResult
    ) -> dict[str, Any]:
        summary = RoundSummary(
            total_matches=1,
            wins=int(result.status == "WIN"),
            draws=int(result.status == "DRAW"),
            technical_losses=int(result.status == "TECHNICAL_LOSS"),
        )
        return RoundCompleted(
            **self.envelope(f"round-{round_id}"),
            round_id=round_id,
            matches_completed=1,
            next_round_id=next_round_id,
            summary=summary,
        ).to_wire()

    def league_completed(self, rounds: int, table: Table) -> dict[str, Any]:
        ranked = table.ranked()
        _, champion_id, champion = ranked[0]
        return LeagueCompleted(
            **self.envelope("completed"),
            total_rounds=rounds,
            total_matches=rounds,
            champion=Champion(
                player_id=champion_id, display_name=champion_id, points=champion.points
            ),
            final_standings=[
                FinalStanding(rank=rank, player_id=pid, points=t.points) for rank, pid, t in ranked
            ],
        ).to_wire()
