"""The play service's sessions, whatever is played in them (games of ``games/`` on
``/play``, prose games on ``/chat``): in memory and bounded. At most ``max_sessions`` live at
once, at most ``max_sessions_per_client`` of them from one client address (so one client
cannot lock the pages for everyone); one left alone for ``idle_sec`` is dropped (its game
stopped), swept on each create and lookup, no background task."""

from __future__ import annotations

import asyncio
import math
import os
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sdk.config import ConfigError

__all__ = ["ENV_PREFIX", "Held", "PlayLimits", "SessionStore", "SessionsFull"]

ENV_PREFIX = "LEAGUE_PLAY_"


class PlayLimits(BaseModel):
    """How many games may be played at once, by everyone and by one client, and how long an
    idle one is kept."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_sessions: int = Field(default=100, ge=1, le=10_000)
    max_sessions_per_client: int = Field(default=5, ge=1, le=10_000)
    """Games one client address may hold at once: far fewer than ``max_sessions``, so that
    one client cannot fill the server for everyone else."""
    idle_sec: float = Field(default=300.0, gt=0)
    """A session nobody asked about for this long is dropped (its game cancelled): a slot
    taken and left is free again within minutes."""
    settle_sec: float = Field(default=10.0, ge=0, le=120)
    """How long a move's answer waits for the opponent's reply before answering anyway
    (the page then polls ``GET /api/play/{id}``)."""
    llm_timeout_sec: float = Field(default=60.0, gt=0, le=600)
    """Prose games: how long one try of a model call may take."""
    llm_retry_sec: float = Field(default=90.0, gt=0, le=600)
    """Prose games: how long one model call may go on being retried before the person is
    told to send their message again (``playroom.prose.engine.RetryPolicy``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PlayLimits:
        """``LEAGUE_PLAY_<FIELD>``: ``LEAGUE_PLAY_MAX_SESSIONS``,
        ``LEAGUE_PLAY_MAX_SESSIONS_PER_CLIENT``, ``LEAGUE_PLAY_IDLE_SEC``,
        ``LEAGUE_PLAY_SETTLE_SEC``, ``LEAGUE_PLAY_LLM_TIMEOUT_SEC``,
        ``LEAGUE_PLAY_LLM_RETRY_SEC``.

        Raises:
            ConfigError: a value is refused.
        """
        env = os.environ if environ is None else environ
        given = {
            name: env[ENV_PREFIX + name.upper()]
            for name in cls.model_fields
            if env.get(ENV_PREFIX + name.upper())
        }
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise ConfigError(
                f"{ENV_PREFIX}{str(first['loc'][0]).upper()}: {first['msg']}"
            ) from None


class SessionsFull(Exception):
    """No room for another game now: ``status`` is the HTTP status (429 for the client's own
    bound, 503 for the server's), ``retry_after`` the seconds until a slot may free, the
    text a sentence saying both."""

    def __init__(self, status: int, sentence: str, retry_after: int):
        super().__init__(sentence)
        self.status = status
        self.retry_after = retry_after


class Held(Protocol):
    """What the store needs of a session: whose it is, when it was last used, whether its
    game is over, and how to stop it (a task to wait for, if any)."""

    session_id: str
    client: str
    touched: float

    @property
    def over(self) -> bool: ...

    def stop(self) -> asyncio.Task[None] | None: ...


S = TypeVar("S", bound=Held)


class SessionStore(Generic[S]):
    """The live sessions, at most ``limits.max_sessions`` and ``limits.max_sessions_per_client``
    of one client; idle ones are dropped on access, by the ``clock`` (monotonic seconds).
    ``delete_hint`` is how a person deletes one (a refusal says it)."""

    def __init__(
        self,
        limits: PlayLimits,
        *,
        delete_hint: str,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.limits = limits
        self._delete_hint = delete_hint
        self._clock = clock
        self._sessions: dict[str, S] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._sessions)

    def purge(self) -> None:
        """Drop every session idle for longer than ``idle_sec``."""
        now = self._clock()
        for session_id, session in list(self._sessions.items()):
            if now - session.touched > self.limits.idle_sec:
                self.remove(session_id)

    def add(self, client: str, make: Callable[[str, float], S]) -> S:
        """A new session of ``client``: ``make(session_id, now)``.

        Raises:
            SessionsFull: 429 when ``client`` holds ``max_sessions_per_client`` live games,
                503 when ``max_sessions`` are live.
        """
        self.purge()
        self._make_room(client)
        session = make(secrets.token_urlsafe(16), self._clock())
        self._sessions[session.session_id] = session
        return session

    def _make_room(self, client: str) -> None:
        """Make room for one more session of ``client``: at its bound, its least recently
        used game that is over is dropped (the page leaves finished games behind);
        otherwise refuse, saying when to retry: when the least recently used session in
        the way will have been idle for ``idle_sec``.

        Raises:
            SessionsFull: see ``add``.
        """
        limits = self.limits
        own = sorted(
            (s for s in self._sessions.values() if s.client == client),
            key=lambda session: session.touched,
        )
        if len(own) >= limits.max_sessions_per_client:
            over = [s for s in own if s.over]
            if not over:
                wait = self._retry_after(own[0].touched)
                raise SessionsFull(
                    429,
                    f"your address ({client}) has {len(own)} unfinished "
                    f"games, the most one client may have at once; finish "
                    f"or delete one ({self._delete_hint}), or retry "
                    f"in {wait} s, when an idle one expires",
                    wait,
                )
            self.remove(over[0].session_id)
        if len(self._sessions) >= limits.max_sessions:
            wait = self._retry_after(min(s.touched for s in self._sessions.values()))
            raise SessionsFull(
                503,
                f"{limits.max_sessions} games are being played, the most "
                f"this server takes; retry in {wait} s, when an idle one "
                f"expires",
                wait,
            )

    def _retry_after(self, touched: float) -> int:
        """Whole seconds until a session last used at ``touched`` is past ``idle_sec``."""
        return math.floor(touched + self.limits.idle_sec - self._clock()) + 1

    def get(self, session_id: str) -> S:
        """The session, marked as used now.

        Raises:
            KeyError: no such session (never created, deleted, or expired).
        """
        self.purge()
        session = self._sessions[session_id]
        session.touched = self._clock()
        return session

    def remove(self, session_id: str) -> None:
        """Forget the session and cancel its game.

        Raises:
            KeyError: no such session.
        """
        task = self._sessions.pop(session_id).stop()
        if task is not None:
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    async def close(self) -> None:
        """Cancel every game and wait for them to unwind (at shutdown)."""
        for session_id in list(self._sessions):
            self.remove(session_id)
        if self._stopping:
            await asyncio.gather(*self._stopping, return_exceptions=True)
