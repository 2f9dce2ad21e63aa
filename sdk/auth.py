"""Auth tokens: issued from ``secrets``, stored only as digests, compared in constant time,
never logged, never sent to anyone but their owner.

Our agents prove themselves to each other with *proofs*, never with a token: a proof is an
HMAC of a context (who speaks, in which league, about which match or conversation) keyed by
the receiver's token. The League Manager, which knows every token, makes them; the receiver
checks one against its own token. A proof opens nothing but that one context, and the token
cannot be recovered from it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Any

from sdk.errors import ErrorCode, ProtocolError

__all__ = [
    "PROOF_SCHEME",
    "TokenBook",
    "issue_token",
    "league_manager_proof",
    "match_proof",
    "redact",
    "redact_tokens",
    "secret_matches",
    "token_digest",
    "token_matches",
]

PROOF_SCHEME = "hmac-sha256-v1"
"""What a League Manager says in its registration answers when it issues proofs (ours)."""

_SECRET_KEYS = frozenset(
    {
        "auth_token",
        "admin_token",
        "token",
        "authorization",
        "api_key",
        "referee_secret",
        "player_proofs",
    }
)


def issue_token(nbytes: int = 32) -> str:
    """A fresh URL-safe token with ``nbytes`` of randomness.

    Never one that starts with ``-``: operators pass the referee secret on command lines,
    and argparse (students' agents use it) reads ``--referee-secret -x…`` as a missing value.
    """
    while (token := secrets.token_urlsafe(nbytes)).startswith("-"):
        continue
    return token


def token_digest(token: str) -> str:
    """SHA-256 of a token: what we keep on disk, so a leaked data folder leaks no token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(presented: str, digest: str) -> bool:
    """Constant-time check of a presented token against a stored digest."""
    return hmac.compare_digest(token_digest(presented), digest)


def secret_matches(presented: str | None, secret: str) -> bool:
    """Constant-time check of a presented secret (the referee secret, the admin token, a
    proof) against the one we hold or expect."""
    return bool(presented) and hmac.compare_digest(
        str(presented).encode("utf-8"), secret.encode("utf-8")
    )


def _proof(token: str, *context: str) -> str:
    mac = hmac.new(
        token.encode("utf-8"), "\x1f".join(context).encode("utf-8"), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def match_proof(token: str, league_id: str, match_id: str, referee_id: str) -> str:
    """What the referee of ``match_id`` shows a player, made by the League Manager from that
    player's token: good for that referee's messages of that match only."""
    return _proof(token, "match", league_id, match_id, referee_id)


def league_manager_proof(token: str, league_id: str, conversation_id: str) -> str:
    """What the League Manager shows an agent on a call of one conversation, made from that
    agent's token."""
    return _proof(token, "league_manager", league_id, conversation_id)


def redact(token: str | None) -> str | None:
    """What a log may show of a token or proof: a short fingerprint of its digest, enough
    to tell two apart and useless for passing as either."""
    if not token:
        return token
    return "sha256:" + token_digest(token)[:8]


def is_secret_key(key: object) -> bool:
    """Whether a field of this name holds a secret (a token, a proof, a key), in any case."""
    return isinstance(key, str) and key.lower() in _SECRET_KEYS


def redact_tokens(value: Any) -> Any:
    """A copy of a JSON-like value with every secret-named field redacted (all of it, where
    it holds more than one string: ``player_proofs``)."""
    if isinstance(value, dict):
        return {
            key: _redact_all(item) if is_secret_key(key) else redact_tokens(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact_tokens(item) for item in value]
    return value


def _redact_all(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redact_all(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_all(item) for item in value]
    return value


class TokenBook:
    """The tokens a service has issued (or been given), by agent id, as digests."""

    def __init__(self, digests: dict[str, str] | None = None):
        self._digests: dict[str, str] = dict(digests or {})

    def issue(self, agent_id: str, nbytes: int = 32) -> str:
        token = issue_token(nbytes)
        self._digests[agent_id] = token_digest(token)
        return token

    def remember(self, agent_id: str, token: str) -> None:
        self._digests[agent_id] = token_digest(token)

    def digests(self) -> dict[str, str]:
        return dict(self._digests)

    def knows(self, agent_id: str) -> bool:
        return agent_id in self._digests

    def holds(self, agent_id: str, token: str | None) -> bool:
        """Whether ``token`` is ``agent_id``'s (constant time)."""
        digest = self._digests.get(agent_id)
        return bool(token) and digest is not None and token_matches(str(token), digest)

    def verify(self, agent_id: str, token: str | None, unknown: ErrorCode) -> None:
        """Refuse an unknown agent (``unknown``), a missing token (E011) or a wrong one (E012)."""
        digest = self._digests.get(agent_id)
        if digest is None:
            raise ProtocolError(unknown, f"{agent_id!r} is not registered in this league")
        if not token:
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_MISSING, f"the message from {agent_id!r} carries no auth_token"
            )
        if not token_matches(token, digest):
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_INVALID, f"the auth_token does not belong to {agent_id!r}"
            )
