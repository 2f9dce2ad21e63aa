"""Ours: the play service asks the League Manager for the proof a registered player wants
from a friendly game's referee (``get_play_proof``).

A friendly game is never a league match: its proof is made for league ``play``, referee
``play`` and a match id that starts ``play-``, which no schedule holds and no report may
name, so it opens nothing but that one friendly game."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from sdk.messages.envelope import Message

__all__ = [
    "PLAYABLE_STATES",
    "PLAY_LEAGUE_ID",
    "PLAY_MATCH_PREFIX",
    "PLAY_REFEREE_ID",
    "PLAY_SENDER",
    "PlayProofRequest",
    "PlayProofResponse",
    "play_match_id",
]

PLAYABLE_STATES = ("REGISTERED", "ACTIVE")
"""The states of a registered player a person may play (not suspended, shut down or
removed): what the League Manager gives a proof for, and the play service offers."""
PLAY_LEAGUE_ID = "play"
"""The league of every friendly game (the play room's match plan names it)."""
PLAY_REFEREE_ID = "play"
"""The referee of every friendly game (the play room signs ``referee:play``)."""
PLAY_SENDER = f"referee:{PLAY_REFEREE_ID}"
"""Who signs a friendly game's messages to the players."""
PLAY_MATCH_PREFIX = "play-"
"""How a friendly game's match id starts (a league's are ``R<round>M<k>``)."""


def play_match_id(game_type: str, seed: int | None = None) -> str:
    """A friendly game's match id, ``play-<game>-<seed>``: the play service asks for a proof
    of the very id the game then runs under (``play-<game>`` when it has no seed)."""
    game = f"{PLAY_MATCH_PREFIX}{game_type}"
    return game if seed is None else f"{game}-{seed}"


class PlayProofRequest(Message):
    """Ours: the operator's play service asks for ``player_id``'s proof in a friendly game.
    ``auth_token`` is the league's referee secret; ``league_id`` is ``play`` and
    ``match_id`` starts ``play-``."""

    MESSAGE_TYPE = "PLAY_PROOF_REQUEST"
    player_id: Annotated[str, Field(min_length=1, max_length=100)]
    referee_id: str = PLAY_REFEREE_ID


class PlayProofResponse(Message):
    """Ours: the proof the play service shows ``player_id`` in auth_token for that one
    friendly game (``sdk.auth.match_proof`` of league ``play``, the match and referee
    ``play``)."""

    MESSAGE_TYPE = "PLAY_PROOF_RESPONSE"
    player_id: str
    player_proofs: dict[str, str]
