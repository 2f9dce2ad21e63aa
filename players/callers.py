"""Who may call this player: the League Manager it registered with and the referees that
League Manager gives its matches to, each proving it with a proof made from this player's
token (``sdk.auth``). A player whose League Manager issues no proofs (a foreign one) has
nothing to check them against: it takes its callers by shape and says so.

Leniency is about shapes, never about authentication: a message the lenient reading
completed (an envelope-less GAME_OVER, its sender filled in as ``unknown``) must still
prove its sender to a player that verifies, and without an auth_token it is refused with
E011 like any other."""

from __future__ import annotations

from pydantic import BaseModel

from sdk.auth import PROOF_SCHEME, league_manager_proof, match_proof, secret_matches
from sdk.errors import ErrorCode, ProtocolError
from sdk.messages import Message, sender_id

__all__ = ["CallerCheck", "CallerStatus"]


class CallerStatus(BaseModel):
    """What ``/status`` says of the player's callers."""

    verified: bool
    detail: str


class CallerCheck:
    """Checks each message's proof against this player's token."""

    def __init__(self) -> None:
        self._token: str | None = None
        self.status = CallerStatus(
            verified=False,
            detail="not registered with a League "
            "Manager: callers are taken by the shape of their messages",
        )

    def registered(self, token: str | None, proofs: str | None) -> None:
        """What the registration answer said: the token, and whether proofs come."""
        if token and proofs == PROOF_SCHEME:
            self._token = token
            self.status = CallerStatus(
                verified=True,
                detail=f"every caller proves itself ({PROOF_SCHEME}); others are refused with E012",
            )
        else:
            self._token = None
            self.status = CallerStatus(
                verified=False,
                detail="the League Manager issues no "
                "proofs: callers are taken by the shape of their "
                "messages, unverified",
            )

    @property
    def verifying(self) -> bool:
        return self._token is not None

    def check(self, message: Message, league_id: str | None) -> str | None:
        """The id of the referee that sent ``message``, verified; None for the League
        Manager's message, or when this player verifies nobody.

        Raises:
            ProtocolError: E011 no proof, E012 a wrong one or a caller that is neither the
                League Manager nor a referee.
        """
        token = self._token
        if token is None:
            return None
        if not message.auth_token:
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_MISSING,
                f"{message.message_type} carries no auth_token: this player "
                "takes only messages that prove their sender, whatever their shape",
            )
        caller = sender_id(message.sender)
        kind = message.sender.split(":", 1)[0]
        if kind not in ("league_manager", "referee"):
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_INVALID,
                f"{message.message_type} from {message.sender!r}: this player "
                "takes calls from its League Manager and referees only",
            )
        league = message.league_id or league_id or ""
        if kind == "league_manager":
            expected = league_manager_proof(token, league, message.conversation_id)
        else:
            expected = match_proof(token, league, message.match_id or "", caller)
        if not secret_matches(message.auth_token, expected):
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_INVALID,
                f"the auth_token of this {message.message_type} is not "
                f"{message.sender}'s proof for this player"
                + ("" if kind == "league_manager" else f" and match {message.match_id}"),
            )
        return None if kind == "league_manager" else caller
