"""``/api/games``: a person plays a game of ``games/`` through HTTP, and the ``/play`` page.

Every body and answer is a pydantic model, so ``/docs`` and ``/openapi.json`` document the
API. What leaves the server is what the person's seat may see: their own observation, the
visible messages of the shared ``Transcript`` (never its ``internal`` ones: the opponent's
move before it is public, the referee's full state), and the transcript without them.
The opponent is a built-in strategy or ``llm`` played in process, or a player registered
in this league, played over the real protocol by the referee's match runner.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.routing import APIRoute
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from games import GameSpec, UnknownGameError, load_game, registered_games
from games.strategies import observed_strategies_for, strategies_for
from league_manager.web.play_sessions import (
    MoveRefused,
    PlayLimits,
    PlaySession,
    SessionsFull,
    SessionStatus,
    SessionStore,
    WebSeat,
)
from players.errors import StrategyError
from players.strategies import build_strategy
from players.strategies.human import space_hint
from playroom.session import HUMAN_ID, OPPONENT_ID, Opponent, result_lines
from playroom.transcript import MessageRole

if TYPE_CHECKING:
    from league_manager.service import LeagueManager

__all__ = ["games_router"]

_STATIC = Path(__file__).resolve().parent / "static"
_PLAYABLE_STATES = ("REGISTERED", "ACTIVE")
_MAX_PARAMS_CHARS = 4096
_LLM_ENV = "LEAGUE_LLM_BASE_URL"


# -- bodies ------------------------------------------------------------------------------

Name = Annotated[str, Field(max_length=100)]
"""A game, strategy or player name (a refusal repeats it, so it stays short)."""


class BuiltinOpponent(BaseModel):
    """A strategy of the player host, played in process."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["builtin"]
    strategy: Name = Field(examples=["tit_for_tat"])


class PlayerOpponent(BaseModel):
    """A player registered in this league, played over the protocol at its endpoint."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["player"]
    player_id: Name = Field(examples=["P01"])


class LlmOpponent(BaseModel):
    """The ``llm`` strategy, on the endpoint the server's ``LEAGUE_LLM_*`` name."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["llm"]


OpponentChoice = Annotated[
    BuiltinOpponent | PlayerOpponent | LlmOpponent, Field(discriminator="kind")
]
Seed = Annotated[int, Field(ge=0, le=2**63 - 1)]


def _small_params(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None and len(json.dumps(value, default=str)) > _MAX_PARAMS_CHARS:
        raise ValueError(f"params are longer than {_MAX_PARAMS_CHARS} characters as JSON")
    return value


class GameConfig(BaseModel):
    """What to play: the game, the opponent, the game's parameters and a seed."""

    model_config = ConfigDict(extra="forbid")
    game: Name = Field(examples=["prisoners_dilemma"])
    opponent: OpponentChoice
    params: dict[str, Any] = Field(default_factory=dict, examples=[{"rounds": 3}])
    """Overrides of the game's defaults (``GET /api/games/defaults`` lists them)."""
    seed: Seed | None = None
    """Repeats the game's draws (and a seeded strategy's) exactly; none: a fresh draw."""

    _params = field_validator("params")(_small_params)


class ConfigPatch(BaseModel):
    """Configs to change before the game starts; a field left out is kept (``null`` is
    taken by ``seed`` alone: a fresh draw)."""

    model_config = ConfigDict(extra="forbid")
    game: Name | None = None
    opponent: OpponentChoice | None = None
    params: dict[str, Any] | None = None
    seed: Seed | None = None

    _params = field_validator("params")(_small_params)


class MoveBody(BaseModel):
    """The person's move: a choice (``"C"``), a number (a bid) or an allocation list."""

    model_config = ConfigDict(extra="forbid")
    move: StrictStr | StrictInt | StrictFloat | list[StrictInt] = Field(examples=["C"])

    @field_validator("move", mode="before")
    @classmethod
    def _a_move(cls, value: Any) -> Any:
        """One sentence for what is no move at all, rather than one per kind it is not."""
        whole = isinstance(value, int) and not isinstance(value, bool)
        listed = isinstance(value, list) and all(
            isinstance(part, int) and not isinstance(part, bool) for part in value
        )
        if not (whole or listed or isinstance(value, str | float)):
            raise PydanticCustomError(
                "move_type", 'a move is text ("C"), a number or a list of whole numbers'
            )
        return value


# -- answers -----------------------------------------------------------------------------


class Problem(BaseModel):
    """Why a request was refused, as one sentence."""

    detail: str


class GameOffer(BaseModel):
    game_type: str
    versioned_id: str
    display_name: str
    simultaneous: bool
    params: dict[str, Any]
    """The game's parameters with their defaults."""
    strategies: list[str]
    """The built-in strategies that play it."""


class PlayerOffer(BaseModel):
    player_id: str
    display_name: str
    game_types: list[str]
    contact_endpoint: str
    state: str


class LlmOffer(BaseModel):
    available: bool
    """Whether ``LEAGUE_LLM_BASE_URL`` names an endpoint on this server."""
    model: str | None = None


class Deadlines(BaseModel):
    move_timeout_sec: float
    """A remote player's time for one move (``make_move``, ``choose_parity``)."""
    settle_sec: float
    """How long a start or a move waits for the opponent before answering."""
    idle_sec: float
    """A session unused for this long is deleted."""


class Defaults(BaseModel):
    games: list[GameOffer]
    players: list[PlayerOffer]
    """Players registered in this league (not suspended or shut down)."""
    llm: LlmOffer
    default_game: str
    default_opponent: BuiltinOpponent
    deadlines: Deadlines
    max_sessions: int
    max_sessions_per_client: int


class SessionState(BaseModel):
    """A game as the person's seat sees it."""

    session_id: str
    status: SessionStatus
    config: GameConfig
    display_name: str
    turn: Literal["you", "opponent"] | None
    """Whose move is awaited while the game runs."""
    stage: int | None = None
    """The stage of the person's pending move."""
    observation: dict[str, Any] | None = None
    """The person's latest observation (nothing of the opponent's private view)."""
    action_space: dict[str, Any] | None = None
    """The person's legal moves while their move is due."""
    hint: str | None = None
    score: dict[str, float] = Field(default_factory=dict)
    """The running score the person may see (the other's where the game shows it)."""
    result: dict[str, Any] | None = None
    result_lines: list[str] = Field(default_factory=list)
    error: str | None = None
    messages: int = 0
    """How many visible messages there are (``GET .../messages?since=N`` reads on)."""


class MessageOut(BaseModel):
    index: int
    role: MessageRole
    speaker: str | None
    text: str
    time: datetime


class MessagesAnswer(BaseModel):
    session_id: str
    messages: list[MessageOut]
    next: int
    """The ``since`` to ask with next time."""


def _problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": Problem} for code in codes}


# -- what is offered ---------------------------------------------------------------------


def offered_strategies(game_type: str) -> list[str]:
    """The built-in strategies that play ``game_type``: ``random`` everywhere, even/odd's
    own, and the games library's baselines of that game."""
    names = ["random", *(("fixed", "history") if game_type == "even_odd" else ())]
    for listing in (strategies_for, observed_strategies_for):
        try:
            names.extend(listing(game_type))
        except ValueError:
            continue
    return list(dict.fromkeys(names))


def _two_player_games() -> list[GameSpec]:
    return [spec for spec in registered_games() if spec.min_players <= 2 <= spec.max_players]


def _llm_available() -> bool:
    return bool(os.environ.get(_LLM_ENV))


def _refuse(status: int, sentence: str) -> HTTPException:
    return HTTPException(status_code=status, detail=sentence)


def _sentence(errors: Sequence[Any]) -> str:
    """A refused body's first problem and where it is, as one sentence (never its input,
    which may be huge, or not even JSON: ``1e400`` is read as infinity)."""
    first = errors[0]
    if first["type"] == "json_invalid":
        return f"the body is not valid JSON: {first['ctx']['error']}"
    loc = [str(part) for part in first["loc"]]
    where = ".".join(loc[1:] if loc[:1] == ["body"] else loc) or "the body"
    more = len(errors) - 1
    return f"{where}: {first['msg']}" + (f" (and {more} more problems)" if more else "")


class _SentenceRoute(APIRoute):
    """A route that refuses a request its models refuse with a sentence, as every other
    refusal here (``Problem``): FastAPI's own answer is a list echoing the input, and a 500
    when that input cannot be written back as JSON (NaN, infinity)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                raise _refuse(422, _sentence(exc.errors())) from None

        return answer


def _resolve(manager: LeagueManager, config: GameConfig) -> tuple[GameSpec, Opponent]:
    """The game and the opponent as the loop plays them.

    Raises:
        HTTPException: 422 with a sentence: an unknown game or opponent, or bad params.
    """
    try:
        spec = load_game(config.game)
    except UnknownGameError as exc:
        raise _refuse(422, str(exc)) from None
    if not spec.min_players <= 2 <= spec.max_players:
        raise _refuse(422, f"{spec.game_type} is not played by two players")
    choice = config.opponent
    if isinstance(choice, BuiltinOpponent):
        offered = offered_strategies(spec.game_type)
        if choice.strategy not in offered:
            raise _refuse(
                422,
                f"no built-in strategy {choice.strategy!r} plays "
                f"{spec.game_type}; offered: {', '.join(offered)}",
            )
        opponent = Opponent("builtin", choice.strategy)
    elif isinstance(choice, LlmOpponent):
        if not _llm_available():
            raise _refuse(
                422, f"no LLM endpoint is configured on this server ({_LLM_ENV} is unset)"
            )
        try:
            build_strategy("llm")
        except StrategyError as exc:
            raise _refuse(422, f"the llm opponent cannot be built: {exc}") from None
        opponent = Opponent("builtin", "llm")
    else:
        agent = manager.agents.get(choice.player_id)
        if agent is None or agent.kind != "player":
            raise _refuse(
                422, f"no player {choice.player_id!r} is registered in league {manager.league_id}"
            )
        if agent.state not in _PLAYABLE_STATES:
            raise _refuse(422, f"player {agent.agent_id} is {agent.state}, not playable")
        if spec.game_type not in agent.game_types:
            raise _refuse(
                422,
                f"player {agent.agent_id} plays {', '.join(agent.game_types)}, "
                f"not {spec.game_type}",
            )
        player_id = agent.agent_id
        opponent = Opponent(
            "remote",
            agent.contact_endpoint,
            player_id,
            prove=lambda league, match, referee: manager.agents.match_proof_for(
                player_id, match, referee, league
            ),
        )
    try:
        spec.create([HUMAN_ID, opponent.player_id or OPPONENT_ID], **config.params)
    except (ValueError, TypeError, KeyError) as exc:
        raise _refuse(422, f"params of {spec.game_type}: {exc}") from None
    return spec, opponent


def _config_of(session: PlaySession) -> GameConfig:
    return GameConfig.model_validate(
        {
            "game": session.game.game_type,
            "opponent": session.opponent_choice,
            "params": session.params,
            "seed": session.seed,
        }
    )


def _state(session: PlaySession) -> SessionState:
    seat = session.seat
    pending = seat.pending if seat is not None else None
    return SessionState(
        session_id=session.session_id,
        status=session.status,
        config=_config_of(session),
        display_name=session.game.display_name,
        turn=session.turn,
        stage=pending.stage if pending else None,
        observation=seat.observation if seat is not None else None,
        action_space=pending.space.describe() if pending else None,
        hint=space_hint(pending.space) if pending else None,
        score=seat.returns if seat is not None else {},
        result=session.result,
        error=session.error,
        result_lines=result_lines(session.result) if session.result else [],
        messages=len(seat.transcript.visible()) if seat is not None else 0,
    )


# -- the router --------------------------------------------------------------------------


def games_router(manager: LeagueManager, limits: PlayLimits | None = None) -> APIRouter:
    """``/api/games/*`` and the ``/play`` page, over one bounded in-memory session store
    (its games are cancelled when the app shuts down).

    Raises:
        ConfigError: a ``LEAGUE_PLAY_*`` limit is refused (when ``limits`` is not given).
    """
    store = SessionStore(limits or PlayLimits.from_env())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await store.close()

    router = APIRouter(lifespan=lifespan)
    api = APIRouter(prefix="/api/games", tags=["games"], route_class=_SentenceRoute)

    def session_of(session_id: str) -> PlaySession:
        try:
            return store.get(session_id)
        except KeyError:
            raise _refuse(
                404,
                f"no game {session_id!r} (never created, deleted, or "
                f"idle for more than {store.limits.idle_sec:g} s)",
            ) from None

    def seat_of(session: PlaySession) -> WebSeat:
        if session.seat is None:
            raise _refuse(409, "the game has not started: POST /api/games/{id}/start first")
        return session.seat

    @api.get("/defaults", response_model=Defaults)
    async def defaults() -> Defaults:
        """The games offered, their default params, the opponents and the deadlines."""
        games = [
            GameOffer(
                game_type=spec.game_type,
                versioned_id=spec.versioned_id,
                display_name=spec.display_name,
                simultaneous=spec.simultaneous,
                params=dict(spec.parameters),
                strategies=offered_strategies(spec.game_type),
            )
            for spec in _two_player_games()
        ]
        players = [
            PlayerOffer(
                player_id=agent.agent_id,
                display_name=agent.display_name,
                game_types=agent.game_types,
                contact_endpoint=agent.contact_endpoint,
                state=agent.state,
            )
            for agent in manager.agents.of_kind("player")
            if agent.state in _PLAYABLE_STATES
        ]
        system = manager.system
        return Defaults(
            games=games,
            players=players,
            llm=LlmOffer(
                available=_llm_available(), model=os.environ.get("LEAGUE_LLM_MODEL") or None
            ),
            default_game=manager.config.game_type,
            default_opponent=BuiltinOpponent(kind="builtin", strategy="random"),
            deadlines=Deadlines(
                move_timeout_sec=system.timeout_for("make_move"),
                settle_sec=store.limits.settle_sec,
                idle_sec=store.limits.idle_sec,
            ),
            max_sessions=store.limits.max_sessions,
            max_sessions_per_client=store.limits.max_sessions_per_client,
        )

    @api.post("", status_code=201, response_model=SessionState, responses=_problems(422, 429, 503))
    async def create(config: GameConfig, request: Request) -> SessionState:
        """Create a game (not started: its configs may still change). 429: the caller's
        address holds too many games; 503: the server does; both with ``Retry-After``."""
        spec, opponent = _resolve(manager, config)
        try:
            session = store.add(
                client=request.client.host if request.client else "unknown",
                game=spec,
                opponent=opponent,
                opponent_choice=config.opponent.model_dump(),
                params=config.params,
                seed=config.seed,
            )
        except SessionsFull as exc:
            raise HTTPException(
                exc.status, str(exc), headers={"Retry-After": str(exc.retry_after)}
            ) from None
        return _state(session)

    @api.get("/{session_id}", response_model=SessionState, responses=_problems(404))
    async def get(session_id: str) -> SessionState:
        """The game as the person sees it: whose turn, their observation, legal moves,
        score, and the result once it is over."""
        return _state(session_of(session_id))

    @api.delete("/{session_id}", status_code=204, responses=_problems(404))
    async def delete(session_id: str) -> Response:
        """Forget the game (a running one is cancelled)."""
        session_of(session_id)
        store.remove(session_id)
        return Response(status_code=204)

    @api.patch("/{session_id}", response_model=SessionState, responses=_problems(404, 409, 422))
    async def patch(session_id: str, change: ConfigPatch) -> SessionState:
        """Change the configs of a game that has not started."""
        session = session_of(session_id)
        if session.status != "created":
            raise _refuse(409, "the game has started; its configs can no longer change")
        try:
            merged = GameConfig.model_validate(
                {**_config_of(session).model_dump(), **change.model_dump(exclude_unset=True)}
            )
        except ValidationError as exc:  # a null game, opponent or params
            raise _refuse(422, _sentence(exc.errors())) from None
        spec, opponent = _resolve(manager, merged)
        session.game, session.opponent = spec, opponent
        session.opponent_choice = merged.opponent.model_dump()
        session.params, session.seed = dict(merged.params), merged.seed
        return _state(session)

    @api.post("/{session_id}/start", response_model=SessionState, responses=_problems(404, 409))
    async def start(session_id: str) -> SessionState:
        """Start the game; answers once the person's first move is due (or the game over)."""
        session = session_of(session_id)
        if session.status != "created":
            raise _refuse(409, f"the game has started already (it is {session.status})")
        session.start(manager.shared)
        await session.settle(store.limits.settle_sec)
        return _state(session)

    @api.post(
        "/{session_id}/moves", response_model=SessionState, responses=_problems(400, 404, 409, 422)
    )
    async def move(session_id: str, body: MoveBody) -> SessionState:
        """The person's move; the opponent answers server-side, and the state is answered
        once the person's next move is due, the game is over, or ``settle_sec`` passed."""
        session = session_of(session_id)
        seat = seat_of(session)
        if session.status != "running":
            raise _refuse(409, f"the game is over ({session.status}); no more moves")
        try:
            seat.submit(body.move)
        except MoveRefused as exc:
            raise _refuse(exc.status, str(exc)) from None
        await session.settle(store.limits.settle_sec)
        return _state(session)

    @api.get("/{session_id}/messages", response_model=MessagesAnswer, responses=_problems(404, 409))
    async def messages(session_id: str, since: Annotated[int, Query(ge=0)] = 0) -> MessagesAnswer:
        """The messages the person's seat may see, from index ``since`` on (never the
        internal ones: the opponent's move before it is public, the referee's state)."""
        visible = seat_of(session_of(session_id)).transcript.visible()
        return MessagesAnswer(
            session_id=session_id,
            next=len(visible),
            messages=[
                MessageOut(index=i, role=m.role, speaker=m.speaker, text=m.text, time=m.time)
                for i, m in enumerate(visible)
                if i >= since
            ],
        )

    def download_name(session: PlaySession, suffix: str) -> str:
        return f"play-{session.game.game_type}-{session.session_id[:8]}.{suffix}"

    @api.get(
        "/{session_id}/transcript.json",
        responses={
            200: {
                "content": {"application/json": {}},
                "description": "the Transcript (playroom/transcript.py) without internal messages",
            },
            **_problems(404, 409),
        },
    )
    async def transcript_json(session_id: str) -> Response:
        """The transcript as JSON, internal messages removed."""
        session = session_of(session_id)
        return Response(
            seat_of(session).transcript.public().model_dump_json(indent=2),
            media_type="application/json",
            headers={
                "Content-Disposition": f'attachment; filename="{download_name(session, "json")}"'
            },
        )

    @api.get(
        "/{session_id}/transcript.csv",
        responses={
            200: {"content": {"text/csv": {}}, "description": "one row per visible message"},
            **_problems(404, 409),
        },
    )
    async def transcript_csv(session_id: str) -> Response:
        """The transcript's messages as CSV, internal messages removed."""
        session = session_of(session_id)
        return Response(
            seat_of(session).transcript.public().to_csv(),
            media_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="{download_name(session, "csv")}"'
            },
        )

    router.include_router(api)

    @router.get("/play", response_class=HTMLResponse, include_in_schema=False)
    async def play_page() -> HTMLResponse:
        return HTMLResponse((_STATIC / "play.html").read_text(encoding="utf-8"))

    @router.get("/play/{asset}", include_in_schema=False)
    async def play_asset(asset: Literal["play.js", "play.css"]) -> FileResponse:
        media = "text/javascript" if asset.endswith(".js") else "text/css"
        return FileResponse(_STATIC / asset, media_type=media)

    return router
