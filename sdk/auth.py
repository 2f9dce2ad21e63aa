"""Auth tokens: issued from ``secrets``, stored only as digests, compared in constant time,
never logged in full."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from sdk.errors import ErrorCode, ProtocolError

__all__ = ["TokenBook", "issue_token", "redact", "redact_tokens", "token_digest", "token_matches"]

_SECRET_KEYS = frozenset({"auth_token", "admin_token", "token", "authorization", "api_key"})


def issue_token(nbytes: int = 32) -> str:
    """A fresh URL-safe token with ``nbytes`` of randomness."""
    return secrets.token_urlsafe(nbytes)


def token_digest(token: str) -> str:
    """SHA-256 of a token: what we keep on disk, so a leaked data folder leaks no token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(presented: str, digest: str) -> bool:
    """Constant-time check of a presented token against a stored digest."""
    return hmac.compare_digest(token_digest(presented), digest)


def redact(token: str | None) -> str | None:
    """What a log may show of a token: its first four characters."""
    if not token:
        return token
    return token[:4] + "…"


def redact_tokens(value: Any) -> Any:
    """A copy of a JSON-like value with every secret-named field redacted."""
    if isinstance(value, dict):
        return {
            key: redact(item)
            if isinstance(key, str) and key.lower() in _SECRET_KEYS and isinstance(item, str)
            else redact_tokens(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact_tokens(item) for item in value]
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
