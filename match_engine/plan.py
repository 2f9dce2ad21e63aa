"""What the match engine is given: the match to play, its seats, seed and terms."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sdk.config import ScoringConfig
from sdk.messages import Communication, MatchSeat
from sdk.tolerance import ProtocolMode

__all__ = ["MatchPlan", "match_seed"]


def match_seed(base_seed: int | None, match_id: str) -> int | None:
    """The seed of one match's draw: ``None`` stays cryptographic; a base seed gives every
    match its own seed, the same on every run."""
    if base_seed is None:
        return None
    digest = hashlib.sha256(f"{base_seed}:{match_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class MatchPlan:
    """What to play: the match's ids, its seats (PLAYER_A, PLAYER_B, ...), its seed and
    scoring."""

    league_id: str
    round_id: int
    match_id: str
    game_type: str
    seats: tuple[MatchSeat, ...]
    seed: int | None
    scoring: ScoringConfig
    protocol_mode: ProtocolMode = "lenient"
    game_params: Mapping[str, Any] = field(default_factory=dict)
    communication: Communication = field(default_factory=Communication)
    proofs: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Each player's proof for this match (``StartMatch.player_proofs``), sent to it in
    auth_token; empty for a match no League Manager gave (nothing to prove)."""
    assignment: int | None = None
    """The League Manager's number of this hand-over (``StartMatch.assignment``), carried
    back in the report; None when it gave none."""

    @property
    def conversation_id(self) -> str:
        """One conversation per match, on every message of it."""
        return f"{self.league_id}:{self.match_id}"

    @property
    def player_ids(self) -> tuple[str, ...]:
        return tuple(seat.player_id for seat in self.seats)
