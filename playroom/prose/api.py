"""``/api/games``: prose games over HTTP, and the ``/chat`` page that plays them (the play
service's routes; bodies and answers in ``playroom.prose.models``).

A session is created with its config (an example pair or one's own prompts, each side's
model), started (the game master's opening, which may involve the opponent), then moved
one message of the person at a time, each through the game master, the opponent and the
game master again. Every answer carries only what the person may see. A model that gives
no answer within the retry budget is a 503 with ``Retry-After`` and a sentence: the message
was not taken, the game goes on, and the same message may be sent again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import FileResponse
from pydantic import ValidationError

from playroom.api_models import problems
from playroom.http_problems import (
    LLM_ENV,
    SentenceRoute,
    found,
    full,
    llm_available,
    refuse,
    sentence,
    store_router,
)
from playroom.prose.engine import ModelUnavailable, ProseGame, RetryPolicy, StepRefused
from playroom.prose.models import (
    ProseConfig,
    ProseConfigPatch,
    ProseDefaults,
    ProseMove,
    ProseState,
    RetryBudget,
)
from playroom.prose.sessions import ProseSession, build_game, for_person, shown, sides_of
from playroom.prose.setup import example_names
from playroom.session_store import PlayLimits, SessionsFull, SessionStore
from playroom.static_files import STATIC
from playroom.static_files import asset as static_asset
from sdk.config import SharedDir

__all__ = ["prose_router"]

RETRY_AFTER_SEC = 5
"""What a 503 for a model that gave no answer tells the person to wait."""


def _game_of(config: ProseConfig, retry: RetryPolicy) -> ProseGame:
    """The game of ``config``, not started.

    Raises:
        HTTPException: 422 with a sentence: no model endpoint on this server, an unknown
            example, or an LLM setting of the server refused.
    """
    if not llm_available():
        raise refuse(422, f"no LLM endpoint is configured on this server ({LLM_ENV} is unset)")
    try:
        return build_game(config, retry)
    except KeyError:
        raise refuse(
            422,
            f"example: no example {config.example!r}; shipped: {', '.join(example_names())}",
        ) from None
    except ValidationError as exc:
        raise refuse(422, f"the server's LLM settings: {sentence(exc.errors())}") from None


def _unavailable(exc: ModelUnavailable, what: str) -> HTTPException:
    """A model that gave no answer (503, retry) or refused the call (502, it will again)."""
    if exc.retryable:
        return refuse(503, f"{exc}; {what}", RETRY_AFTER_SEC)
    return refuse(
        502,
        f"{exc}; the model refuses the call, so this game cannot go on: the server's "
        "LLM settings or the game's model need changing",
    )


def prose_router(shared: SharedDir, limits: PlayLimits) -> APIRouter:
    """``/api/games/*`` and the ``/chat`` page, over one bounded in-memory session store;
    each game's whole transcript is kept in ``SHARED/data/prose/`` when it ends."""
    store: SessionStore[ProseSession] = SessionStore(
        limits, delete_hint="DELETE /api/games/sessions/{id}"
    )
    retry = RetryPolicy(call_timeout_sec=limits.llm_timeout_sec, retry_sec=limits.llm_retry_sec)
    archive = shared.data_dir / "prose"

    router = store_router(store)
    api = APIRouter(prefix="/api/games", tags=["prose games"], route_class=SentenceRoute)

    def session_of(session_id: str) -> ProseSession:
        return found(store, session_id, "prose game")

    async def step(session: ProseSession, run: Callable[[ProseGame], None], what: str) -> None:
        try:
            await session.step(run)
        except StepRefused as exc:
            raise refuse(409, str(exc)) from None
        except ModelUnavailable as exc:
            raise _unavailable(exc, what) from None

    @api.get("/config/defaults", response_model=ProseDefaults)
    async def defaults() -> ProseDefaults:
        """What a config left out becomes (the generic prompts, the token limits), the
        example pairs, the retry budget and the limits."""
        try:
            manager, player = sides_of(ProseConfig())
        except ValidationError as exc:
            raise refuse(500, f"the server's LLM settings: {sentence(exc.errors())}") from None
        return ProseDefaults(
            manager=shown(manager, prompt=True),
            player=shown(player, prompt=True),
            max_turns=ProseConfig().max_turns,
            examples=example_names(),
            llm_available=llm_available(),
            retry=RetryBudget(
                llm_timeout_sec=limits.llm_timeout_sec, llm_retry_sec=limits.llm_retry_sec
            ),
            idle_sec=limits.idle_sec,
            max_sessions=limits.max_sessions,
            max_sessions_per_client=limits.max_sessions_per_client,
        )

    @api.post(
        "/sessions", status_code=201, response_model=ProseState, responses=problems(422, 429, 503)
    )
    async def create(config: ProseConfig, request: Request) -> ProseState:
        """Create a prose game (not started: its config may still change). 429: the
        caller's address holds too many games; 503: the server does (``Retry-After``)."""
        game = _game_of(config, retry)
        client = request.client.host if request.client else "unknown"
        try:
            session = store.add(
                client,
                lambda session_id, now: ProseSession(
                    session_id,
                    client,
                    now,
                    config,
                    game,
                    archive / f"{game.transcript.game}-{session_id[:8]}.json",
                ),
            )
        except SessionsFull as exc:
            game.close()
            raise full(exc) from None
        return session.state()

    @api.get("/sessions/{session_id}", response_model=ProseState, responses=problems(404))
    async def get(session_id: str) -> ProseState:
        """The game as the person sees it: its status and visible messages."""
        return session_of(session_id).state()

    @api.delete("/sessions/{session_id}", status_code=204, responses=problems(404))
    async def delete(session_id: str) -> Response:
        """Forget the game."""
        session_of(session_id)
        store.remove(session_id)
        return Response(status_code=204)

    @api.patch(
        "/sessions/{session_id}/config",
        response_model=ProseState,
        responses=problems(404, 409, 422),
    )
    async def patch(session_id: str, change: ProseConfigPatch) -> ProseState:
        """Change the config of a game that has not started."""
        session = session_of(session_id)
        if session.status != "created" or session.busy:
            raise refuse(409, "the game has started; its config can no longer change")
        given = change.model_dump(exclude_unset=True)
        merged = session.config.model_dump()
        for side in ("manager", "player"):
            if side in given:
                merged[side] = {**merged[side], **(given.pop(side) or {})}
        try:
            config = ProseConfig.model_validate({**merged, **given})
        except ValidationError as exc:  # a null max_turns
            raise refuse(422, sentence(exc.errors())) from None
        session.replace_game(config, _game_of(config, retry))
        return session.state()

    @api.post(
        "/sessions/{session_id}/start",
        response_model=ProseState,
        responses=problems(404, 409, 502, 503),
    )
    async def start(session_id: str) -> ProseState:
        """The game master's opening (it may ask the opponent first). 503 with
        ``Retry-After``: a model gave no answer; nothing changed, start again."""
        session = session_of(session_id)
        await step(session, ProseGame.start, "the game did not begin: start it again")
        return session.state()

    @api.post(
        "/sessions/{session_id}/move",
        response_model=ProseState,
        responses=problems(404, 409, 422, 502, 503),
    )
    async def move(session_id: str, body: ProseMove) -> ProseState:
        """The person's message, through the game master, the opponent and the game master
        again. 409: not started, over, or the last message is still being answered; 503
        with ``Retry-After``: a model gave no answer; the message was not taken, send it
        again."""
        session = session_of(session_id)
        await step(
            session,
            lambda game: game.move(body.text),
            "your message was not taken: send it again",
        )
        return session.state()

    @api.get(
        "/sessions/{session_id}/transcript",
        responses={
            200: {
                "content": {"application/json": {}, "text/csv": {}},
                "description": "the transcript without internal messages, as JSON or CSV",
            },
            **problems(404, 422),
        },
    )
    async def transcript(session_id: str, format: Literal["json", "csv"] = "json") -> Response:
        """The transcript as the person may have it (visible messages, every model call,
        the prompts but an example's): JSON, or CSV (one row per message, with a
        ``visible`` column)."""
        session = session_of(session_id)
        public = for_person(session.game.transcript)
        name = f"prose-{public.game}-{session_id[:8]}.{format}"
        body, media = (
            (public.to_csv(), "text/csv; charset=utf-8")
            if format == "csv"
            else (public.model_dump_json(indent=2), "application/json")
        )
        return Response(
            body,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    router.include_router(api)

    @router.get("/chat", include_in_schema=False)
    async def chat_page() -> FileResponse:
        return FileResponse(STATIC / "chat.html", media_type="text/html")

    @router.get("/chat/{asset}", include_in_schema=False)
    async def chat_asset(asset: Literal["chat.js", "chat.css"]) -> FileResponse:
        return static_asset(asset)

    return router
