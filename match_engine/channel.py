"""The calls of one match: every message goes through the SDK client (timeouts, retries)
and into the match's transcript, attempt by attempt, with the match's envelope."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_engine.match_file import MatchFile
from match_engine.plan import MatchPlan
from sdk.agent_log import AgentLog
from sdk.client import OnRetry, RpcClient
from sdk.errors import RemoteError, TransportError
from sdk.messages import Message

__all__ = ["MatchChannel"]


def _error(code: str, description: str) -> dict[str, str]:
    return {"code": code, "description": description}


class MatchChannel:
    """Sends the messages of one match and writes each attempt and answer down."""

    def __init__(
        self, plan: MatchPlan, *, client: RpcClient, record: MatchFile, log: AgentLog, sender: str
    ):
        self._plan = plan
        self._client = client
        self._record = record
        self._log = log
        self._sender = sender

    def envelope(self, peer: str | None = None) -> dict[str, Any]:
        """The envelope fields every message of this match carries; to a player, its proof
        for this match as auth_token (never a token: it opens nothing but this match)."""
        plan = self._plan
        envelope = {
            "sender": self._sender,
            "conversation_id": plan.conversation_id,
            "league_id": plan.league_id,
            "round_id": plan.round_id,
            "match_id": plan.match_id,
        }
        proof = plan.proofs.get(peer) if peer else None
        return {**envelope, "auth_token": proof} if proof else envelope

    async def exchange(
        self,
        peer: str,
        endpoint: str,
        method: str,
        build: Callable[[], Message],
        *,
        retries: int | None = None,
        on_retry: OnRetry | None = None,
        together: bool = False,
    ) -> dict[str, Any]:
        """One call; ``build`` runs before every attempt, so a retry has fresh times.
        ``together``: sent with the calls to the same endpoint made meanwhile
        (``RpcClient.call``).

        Raises:
            TransportError: no answer after the retries.
            RemoteError: the peer answered with an error.
        """
        record = self._record

        def outgoing() -> dict[str, Any]:
            wire = build().to_wire()
            record.note("sent", method, peer, wire)
            return wire

        async def retrying(retry: int, failure: TransportError) -> None:
            record.note(
                "failed", method, peer, error=_error(failure.code.value, failure.description)
            )
            if on_retry is not None:
                await on_retry(retry, failure)

        try:
            answer = await self._client.call(
                endpoint,
                method,
                outgoing,
                retries=retries,
                on_retry=retrying,
                method_aliases=self._plan.protocol_mode == "lenient",
                kept_whole=not record.in_memory,  # the match file's transcript has them
                together=together,
            )
        except TransportError as exc:
            record.note("failed", method, peer, error=_error(exc.code.value, exc.description))
            raise
        except RemoteError as exc:
            record.note(
                "received",
                method,
                peer,
                exc.payload or None,
                error=_error(exc.code, exc.description),
            )
            raise
        record.note("received", method, peer, answer)
        return answer

    async def notify(
        self,
        peer: str,
        endpoint: str,
        method: str,
        build: Callable[[], Message],
        *,
        retries: int | None = None,
    ) -> bool:
        """A best-effort notification: a failure is written down and logged, never raised."""
        try:
            await self.exchange(peer, endpoint, method, build, retries=retries)
        except (TransportError, RemoteError) as exc:
            self._log.log.warning(
                "notification_not_delivered",
                match_id=self._plan.match_id,
                peer=peer,
                method=method,
                reason=exc.description,
            )
            return False
        return True
