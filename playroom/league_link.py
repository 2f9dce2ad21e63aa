"""What the play service asks its League Manager, over HTTP: the players registered in the
league (its public ``GET /status``) and, for a game against one of them, that player's proof
for the friendly game (``get_play_proof``, ours: asked with the league's referee secret, so
only the operator's services obtain one). The play service imports no League Manager code."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from games import GameSpec
from playroom.session import Opponent, PlayError, new_seed
from sdk.client import RpcClient
from sdk.errors import RemoteError, TransportError
from sdk.messages import (
    PLAY_LEAGUE_ID,
    PLAY_REFEREE_ID,
    PLAY_SENDER,
    PLAYABLE_STATES,
    Method,
    PlayProofRequest,
    PlayProofResponse,
    play_match_id,
)

__all__ = ["LeagueLink", "LeagueUnreachable", "LeagueView", "ListedPlayer"]


class LeagueUnreachable(Exception):
    """The League Manager gave no usable answer; the text says which and why."""


class ListedPlayer(BaseModel):
    """A player as the League Manager's ``/status`` lists it."""

    model_config = ConfigDict(extra="ignore")
    agent_id: str
    display_name: str
    game_types: list[str]
    contact_endpoint: str
    state: str


class LeagueView(BaseModel):
    """What the play service needs of the League Manager's ``/status``."""

    model_config = ConfigDict(extra="ignore")
    league_id: str
    players: list[ListedPlayer]

    def playable(self) -> list[ListedPlayer]:
        return [player for player in self.players if player.state in PLAYABLE_STATES]


class LeagueLink:
    """The play service's client of one League Manager (``base_url``, its ``/mcp`` under
    it); ``secret`` gives the referee secret at each ask (None: none known here)."""

    def __init__(
        self,
        base_url: str,
        rpc: RpcClient,
        secret: Callable[[], str | None],
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self.base_url = base_url
        self._rpc = rpc
        self._secret = secret
        self._http = httpx.AsyncClient(base_url=base_url, transport=transport, timeout=10.0)

    async def aclose(self) -> None:
        await self._http.aclose()
        await self._rpc.aclose()

    async def view(self) -> LeagueView:
        """The league's id and players, as its League Manager lists them now.

        Raises:
            LeagueUnreachable: no answer, or not a League Manager's ``/status``.
        """
        try:
            response = await self._http.get("/status")
            response.raise_for_status()
            return LeagueView.model_validate_json(response.content)
        except httpx.HTTPError as exc:
            raise LeagueUnreachable(
                f"the League Manager at {self.base_url} does not answer ({type(exc).__name__}); "
                "start it, or point the play service at it with --lm-url"
            ) from None
        except ValidationError:
            raise LeagueUnreachable(
                f"{self.base_url}/status is not a League Manager's status"
            ) from None

    async def seated(
        self, spec: GameSpec, opponent: Opponent, seed: int | None
    ) -> tuple[Opponent, int]:
        """The registered player ``opponent`` with its proof for this game, and the game's
        seed (drawn here when none is given, as the game loop would: the match id the
        proof is made for is ``play-<game>-<seed>``).

        Raises:
            PlayError: no referee secret here, or the League Manager refused or did not
                answer (the sentence says which, with the protocol's code).
        """
        seed = seed if seed is not None else new_seed()
        match_id = play_match_id(spec.game_type, seed)
        proof = await self._proof(opponent.player_id, match_id)
        expected = (PLAY_LEAGUE_ID, match_id, PLAY_REFEREE_ID)

        def prove(league: str, match: str, referee: str) -> str:
            if (league, match, referee) != expected:
                raise PlayError(
                    f"the proof of {opponent.player_id} is for match {match_id} of league "
                    f"{PLAY_LEAGUE_ID} and referee {PLAY_REFEREE_ID}, not {match} of "
                    f"{league} and {referee}"
                )
            return proof

        return dataclasses.replace(opponent, prove=prove), seed

    async def _proof(self, player_id: str, match_id: str) -> str:
        secret = self._secret()
        if not secret:
            raise PlayError(
                "this play service knows no referee secret, so it cannot play a registered "
                "player: start it with --referee-secret (see 'league referee-secret')"
            )
        request = PlayProofRequest(
            sender=PLAY_SENDER,
            conversation_id=f"play-proof-{match_id}",
            auth_token=secret,
            league_id=PLAY_LEAGUE_ID,
            match_id=match_id,
            player_id=player_id,
        )
        try:
            result = await self._rpc.call(f"{self.base_url}/mcp", Method.GET_PLAY_PROOF, request)
            answer = PlayProofResponse.model_validate(result)
        except (RemoteError, TransportError) as exc:
            raise PlayError(f"the League Manager gave no proof for {player_id}: {exc}") from None
        except ValidationError:
            raise PlayError(
                "the League Manager's answer to get_play_proof is no PLAY_PROOF_RESPONSE"
            ) from None
        proof = answer.player_proofs.get(player_id)
        if not proof:
            raise PlayError(f"the League Manager's answer holds no proof for {player_id}")
        return proof
