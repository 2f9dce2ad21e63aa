"""Registering with a League Manager: the part our referee and player share.

Every attempt of one registration repeats its conversation (the League Manager knows a
retry by it and gives the same id and token back, so a lost answer costs one retry). While
the League Manager does not answer, it is called again and again. An answer this agent
cannot use — a shape it does not read, a timestamp it refuses, an unusable id, an error a
retry may clear — is logged with its reason and tried again with the system's backoff
(``retry_policy``, never faster than once a second). A refusal that no retry can fix — the
status REJECTED, or an error that refuses who the agent is or what it sent — is raised as
``RegistrationRefused``, for the process to end on (``sdk.service.ExitSwitch``).

What the League Manager says is shown to people (``/health``, the process's last line), so
every reason is one line of printable text, bounded, and never holds the token or secret
the request carried.
"""

from __future__ import annotations

import asyncio
import math
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import RetryPolicy
from sdk.errors import ErrorCode, LeagueSDKError, RegistrationRefused, RemoteError, TransportError
from sdk.messages import (
    LeagueError,
    LeagueRegisterResponse,
    Message,
    RefereeRegisterResponse,
    protocol_error_from_validation,
)
from sdk.tolerance import answer_defaults, receive

__all__ = [
    "FINAL_CODES",
    "RegistrationDeferred",
    "RegistrationState",
    "RegistrationProgress",
    "backoff",
    "one_line",
    "read_answer",
    "register_until_settled",
]

FINAL_CODES = frozenset(
    {
        *(
            code.value
            for code in (
                ErrorCode.INVALID_FIELD_VALUE,
                ErrorCode.MISSING_REQUIRED_FIELD,
                ErrorCode.REGISTRATION_CLOSED,
                ErrorCode.AUTH_TOKEN_MISSING,
                ErrorCode.AUTH_TOKEN_INVALID,
                ErrorCode.NOT_AUTHORIZED,
                ErrorCode.MESSAGE_TYPE_MISMATCH,
                ErrorCode.PROTOCOL_VERSION_MISMATCH,
                ErrorCode.UNSUPPORTED_GAME_TYPE,
                ErrorCode.INVALID_TIMESTAMP,
            )
        ),
        "-32700",
        "-32600",
        "-32601",
        "-32602",
    }
)
"""Error codes of a League Manager's answer that no retry can change: it refuses who the
agent is (registration closed, no or a wrong secret, not allowed, a game it does not
play, another protocol version) or the request as the agent will send it again (a field,
the message type, the timestamp, the JSON-RPC request itself). Any other code (E001, E009,
E020, E022, a server error, one we do not know) and any HTTP error status is tried again."""

PATIENCE_SEC = 30.0
"""How long the League Manager is called without an answer before this is logged (and
shown) as unreachable; the calls go on."""
MIN_BACKOFF_SEC = 1.0
"""The shortest wait between two answered attempts, whatever ``retry_policy`` says."""
MAX_WAIT_SEC = 60.0
"""The longest wait a League Manager may ask for (``retry_after_sec``); the per-address
registration limit of ours counts a minute."""
REASON_MAX = 500
"""Characters of a reason kept (the League Manager chooses its length)."""

RegistrationProgress = Literal["DISABLED", "PENDING", "ACCEPTED", "REJECTED"]
"""DISABLED: standalone (no league to join); PENDING: trying (again); ACCEPTED: registered;
REJECTED: refused for good (the process is ending)."""

_R = TypeVar("_R")
_Answer = TypeVar("_Answer", RefereeRegisterResponse, LeagueRegisterResponse)


class RegistrationState(BaseModel):
    """Where an agent's registration stands, for its ``/status`` and ``/health``."""

    status: RegistrationProgress
    reason: str | None = None
    """PENDING: why the last attempt did not register (None: no answer yet); REJECTED:
    the League Manager's refusal."""

    def summary(self) -> str:
        """One line for ``/health``: ``registered``, ``standalone`` or ``not registered:
        <why>``."""
        if self.status == "ACCEPTED":
            return "registered"
        if self.status == "DISABLED":
            return "standalone"
        if self.status == "REJECTED":
            return f"not registered: {self.reason}"
        return f"not registered: {self.reason or 'waiting for the League Manager to answer'}"


class RegistrationDeferred(LeagueSDKError):
    """No registration from this attempt, and a later one may bring it: an answer the
    agent cannot use, an error a retry may clear, or a League Manager that asked to be
    asked again after ``wait_sec``."""

    def __init__(self, reason: str, wait_sec: float | None = None):
        super().__init__(reason)
        self.wait_sec = wait_sec


def one_line(text: str, hidden: Iterable[str | None] = ()) -> str:
    """``text`` as one bounded line of printable characters, each of ``hidden`` (a token
    or secret the request carried) replaced by ``…``."""
    for secret in hidden:
        if secret:
            text = text.replace(secret, "…")
    shown = "".join(" " if unicodedata.category(char).startswith("C") else char for char in text)
    shown = " ".join(shown.split())
    return shown if len(shown) <= REASON_MAX else shown[: REASON_MAX - 1] + "…"


def backoff(policy: RetryPolicy, attempt: int, asked: float | None = None) -> float:
    """Seconds to wait before answered attempt ``attempt + 1``: the policy's backoff, at
    least ``MIN_BACKOFF_SEC``, and at least what the League Manager ``asked`` for, up to
    ``MAX_WAIT_SEC``."""
    wait = max(MIN_BACKOFF_SEC, policy.delay(attempt))
    if asked is not None and math.isfinite(asked):
        wait = max(wait, min(asked, MAX_WAIT_SEC))
    return wait


def read_answer(
    model: type[_Answer], answer: dict[str, Any], conversation_id: str, who: str
) -> _Answer:
    """The League Manager's answer as ``model`` (a lenient reading: a missing envelope is
    filled in), refused for good when its status is REJECTED.

    Raises:
        RegistrationDeferred: the answer is not a ``model`` (each problem named), or a
            REJECTED one that says when to ask again (``retry_after_sec``, ours).
        RegistrationRefused: REJECTED, with the League Manager's reason.
    """
    try:
        response, _ = receive(
            model,
            answer,
            "lenient",
            answer_defaults(model, sender="league_manager", conversation_id=conversation_id),
        )
    except ValidationError as exc:
        error = protocol_error_from_validation(exc, model.MESSAGE_TYPE)
        raise RegistrationDeferred(
            f"the League Manager's answer cannot be read: {error.code.value} {error.description}"
        ) from None
    if response.status == "REJECTED":
        reason = response.reason or "no reason given"
        wait = _retry_after(response.retry_after_sec)
        if wait is not None:
            raise RegistrationDeferred(
                f"the League Manager asks {who} to register again later: {reason}", wait
            )
        raise RegistrationRefused(f"the League Manager refused {who}: {reason}")
    return response


def _retry_after(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _refused_for_good(exc: RemoteError) -> bool:
    """An error the League Manager answered (a LEAGUE_ERROR or a JSON-RPC error object,
    not an answer our client could not read) with a code no retry changes."""
    answered = exc.payload.get("message_type") == LeagueError.MESSAGE_TYPE or "error" in exc.payload
    return answered and exc.code in FINAL_CODES


async def register_until_settled(
    client: RpcClient,
    endpoint: str,
    method: str,
    request: Callable[[], Message],
    accept: Callable[[dict[str, Any]], _R],
    *,
    interval: float,
    policy: RetryPolicy,
    log: AgentLog,
    on_problem: Callable[[str], None],
    who: str,
) -> _R:
    """Register until a usable answer comes or a final refusal: ``request`` builds each
    attempt (one conversation, a fresh timestamp), ``accept`` turns an answer into what
    the agent keeps or raises ``RegistrationDeferred`` / ``RegistrationRefused``;
    ``on_problem`` is told, in one line, why each attempt did not register.

    Raises:
        RegistrationRefused: the League Manager refused ``who`` for good (one line).
    """
    sent: list[Message] = []

    def build() -> Message:
        sent[:] = [request()]
        return sent[0]

    def shown(text: str) -> str:
        return one_line(text, [message.auth_token for message in sent])

    attempt = 0
    while True:
        asked: float | None = None
        try:
            answer = await client.call_until_answered(
                endpoint, method, build, interval=interval, give_up_after=PATIENCE_SEC
            )
            return accept(answer)
        except TransportError as exc:
            reason = shown(
                f"the League Manager at {endpoint} does not answer: "
                f"{exc.code.value} {exc.description}"
            )
            log.log.warning(
                "league_manager_unreachable",
                endpoint=endpoint,
                error_code=exc.code.value,
                reason=reason,
            )
            on_problem(reason)
            continue  # call_until_answered waited between its calls
        except RemoteError as exc:
            if _refused_for_good(exc):
                refusal = shown(f"the League Manager refused {who}: {exc.code} {exc.description}")
                log.log.error("registration_refused", reason=refusal)
                raise RegistrationRefused(refusal) from None
            reason = shown(f"the League Manager answered an error: {exc.code} {exc.description}")
        except RegistrationRefused as exc:
            refusal = shown(str(exc))
            log.log.error("registration_refused", reason=refusal)
            raise RegistrationRefused(refusal) from None
        except RegistrationDeferred as exc:
            reason, asked = shown(str(exc)), exc.wait_sec
        except Exception as exc:  # a fault of ours: shown and tried again, never a silent stop
            log.log.exception("registration_crashed")
            reason = shown(f"this agent failed reading the answer: {type(exc).__name__}: {exc}")
        attempt += 1
        wait = backoff(policy, attempt, asked)
        log.log.warning(
            "registration_retry", attempt=attempt, reason=reason, retry_in_sec=round(wait, 3)
        )
        on_problem(reason)
        await asyncio.sleep(wait)
