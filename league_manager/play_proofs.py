"""``get_play_proof`` (ours): the proof the operator's play service shows a registered
player in a friendly game, for that game only.

Students reach every endpoint, so the play service proves itself with the league's referee
secret (it is the operator's, as the referees are), and the proof is bound to what no league
match can be: league ``play``, referee ``play`` and a match id starting ``play-``. No
schedule holds such a match and no registered referee is ``play``, so a proof obtained here
lets nobody report or count a league match, nor speak in one to the player."""

from __future__ import annotations

from collections.abc import Callable

from league_manager.agents import AgentRegistry
from sdk.errors import ErrorCode, ProtocolError
from sdk.ids import SAFE_ID_RULE, is_safe_id
from sdk.messages import (
    PLAY_LEAGUE_ID,
    PLAY_MATCH_PREFIX,
    PLAY_REFEREE_ID,
    PLAYABLE_STATES,
    PlayProofRequest,
    PlayProofResponse,
)

__all__ = ["play_proof"]


def _friendly(request: PlayProofRequest) -> None:
    """Raises ProtocolError E002 unless the request names a friendly game's context."""
    wrong = [
        f"{field} must be {expected!r}, not {given!r}"
        for field, given, expected in (
            ("league_id", request.league_id, PLAY_LEAGUE_ID),
            ("referee_id", request.referee_id, PLAY_REFEREE_ID),
        )
        if given != expected
    ]
    match_id = request.match_id or ""
    if not match_id.startswith(PLAY_MATCH_PREFIX) or not is_safe_id(match_id):
        wrong.append(
            f"match_id must start {PLAY_MATCH_PREFIX!r} and {SAFE_ID_RULE} (as every match id: "
            f"it names the match's file), not {match_id[:100]!r}"
        )
    if wrong:
        raise ProtocolError(
            ErrorCode.INVALID_FIELD_VALUE,
            "a play proof is for a friendly game only, never a league match: " + "; ".join(wrong),
        )


def play_proof(
    request: PlayProofRequest,
    *,
    agents: AgentRegistry,
    league_id: str,
    sender: str,
    check_secret: Callable[[str | None, str], None],
) -> PlayProofResponse:
    """The proof of ``request.player_id`` for the friendly game ``request.match_id``.

    Raises:
        ProtocolError: E011/E012 no or a wrong referee secret (``check_secret``), E002 a
            context that is not a friendly game's, E005 no such player in this league,
            E015 a player that is not playable now.
    """
    check_secret(request.auth_token, "asking for a play proof")
    _friendly(request)
    agent = agents.get(request.player_id)
    if agent is None or agent.kind != "player":
        raise ProtocolError(
            ErrorCode.PLAYER_NOT_REGISTERED,
            f"no player {request.player_id!r} is registered in league {league_id}",
        )
    if agent.state not in PLAYABLE_STATES:
        raise ProtocolError(
            ErrorCode.INVALID_STATE, f"player {agent.agent_id} is {agent.state}, not playable"
        )
    match_id = request.match_id or ""
    proof = agents.match_proof_for(agent.agent_id, match_id, PLAY_REFEREE_ID, PLAY_LEAGUE_ID)
    return PlayProofResponse(
        sender=sender,
        conversation_id=request.conversation_id,
        league_id=PLAY_LEAGUE_ID,
        match_id=match_id,
        player_id=agent.agent_id,
        player_proofs={agent.agent_id: proof},
    )
