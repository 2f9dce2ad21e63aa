"""What the play service's two APIs (``/api/play``, ``/api/games``) share: how they refuse
a request (one sentence in ``{"detail": ...}``, also when their models refuse the body:
``SentenceRoute``, never a list echoing the input nor a 500), their session stores' place
in the app (``store_router``, ``found``), and whether an LLM endpoint is configured."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from fastapi import APIRouter, FastAPI, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from playroom.session_store import Held, SessionsFull, SessionStore

__all__ = [
    "LLM_ENV",
    "SentenceRoute",
    "found",
    "full",
    "llm_available",
    "refuse",
    "sentence",
    "store_router",
]

S = TypeVar("S", bound=Held)

LLM_ENV = "LEAGUE_LLM_BASE_URL"


def llm_available() -> bool:
    """Whether the play service may call a model (``LEAGUE_LLM_BASE_URL`` is set)."""
    return bool(os.environ.get(LLM_ENV))


def refuse(status: int, sentence: str, retry_after: int | None = None) -> HTTPException:
    headers = None if retry_after is None else {"Retry-After": str(retry_after)}
    return HTTPException(status_code=status, detail=sentence, headers=headers)


def full(exc: SessionsFull) -> HTTPException:
    """No room for another session: 429 or 503, with ``Retry-After``."""
    return refuse(exc.status, str(exc), exc.retry_after)


def found(store: SessionStore[S], session_id: str, what: str) -> S:
    """The session, marked as used.

    Raises:
        HTTPException: 404 with a sentence saying why it may be gone.
    """
    try:
        return store.get(session_id)
    except KeyError:
        raise refuse(
            404,
            f"no {what} {session_id!r} (never created, deleted, or idle for more than "
            f"{store.limits.idle_sec:g} s)",
        ) from None


def store_router(store: SessionStore[Any]) -> APIRouter:
    """A router whose lifespan stops the store's games when the app shuts down."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await store.close()

    return APIRouter(lifespan=lifespan)


def sentence(errors: Sequence[Any]) -> str:
    """A refused body's first problem and where it is, as one sentence (never its input,
    which may be huge, or not even JSON: ``1e400`` is read as infinity)."""
    first = errors[0]
    if first["type"] == "json_invalid":
        return f"the body is not valid JSON: {first['ctx']['error']}"
    loc = [str(part) for part in first["loc"]]
    where = ".".join(loc[1:] if loc[:1] == ["body"] else loc) or "the body"
    more = len(errors) - 1
    return f"{where}: {first['msg']}" + (f" (and {more} more problems)" if more else "")


class SentenceRoute(APIRoute):
    """A route that refuses a request its models refuse with a sentence, as every other
    refusal here (``Problem``): FastAPI's own answer is a list echoing the input, and a 500
    when that input cannot be written back as JSON (NaN, infinity)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                raise refuse(422, sentence(exc.errors())) from None

        return answer
