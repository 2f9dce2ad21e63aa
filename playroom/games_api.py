"""``/api/play``: a person plays a game of ``games/`` through HTTP, and the ``/play`` page
(the play service's routes; their bodies and answers are ``playroom.api_models``).

What leaves the server is what the person's seat may see: their own observation, the
visible messages of the shared ``Transcript`` (never its ``internal`` ones: the opponent's
move before it is public, the referee's full state), and the transcript without them.
The opponent is a built-in strategy or ``llm`` played in process, or a player registered
in the League Manager's league (listed by its ``/status``, proved by its ``get_play_proof``:
``playroom.league_link``), played over the real protocol by the referee's match runner.
"""

from __future__ import annotations

import os
from html import escape
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import ValidationError

from games import GameSpec, UnknownGameError, load_game, registered_games
from games.strategies import observed_strategies_for, strategies_for
from playroom.api_models import (
    BuiltinOpponent,
    ConfigPatch,
    Deadlines,
    Defaults,
    GameConfig,
    GameOffer,
    GuideOut,
    HistoryOut,
    LlmOffer,
    LlmOpponent,
    MessageOut,
    MessagesAnswer,
    MoveBody,
    PayoffTableOut,
    PlayerOffer,
    SeenRow,
    SessionState,
    problems,
)
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
from playroom.league_link import LeagueLink, LeagueUnreachable
from playroom.narration import history_table, seen_rows
from playroom.play_sessions import MoveRefused, PlaySession, WebSeat
from playroom.session import HUMAN_ID, OPPONENT_ID, Opponent, result_lines
from playroom.session_store import PlayLimits, SessionsFull, SessionStore
from playroom.static_files import STATIC
from playroom.static_files import asset as static_asset
from sdk.config import SharedDir
from sdk.messages import PLAYABLE_STATES, Method
from strategies import build_strategy, ready_strategies
from strategies.errors import StrategyError
from strategies.human import space_hint

__all__ = ["games_router", "offered_strategies"]

_DASHBOARD_LINK = '<a href="/">Dashboard</a>'


# -- what is offered ---------------------------------------------------------------------


def offered_strategies(game_type: str) -> list[str]:
    """The built-in strategies that play ``game_type``: the registered ones that answer at
    once (``random`` everywhere, ``fixed`` and ``history`` where they are made for the game),
    and the games library's baselines of that game."""
    names = ready_strategies(game_type)
    for listing in (strategies_for, observed_strategies_for):
        try:
            names.extend(listing(game_type))
        except ValueError:
            continue
    return list(dict.fromkeys(names))


def _two_player_games() -> list[GameSpec]:
    return [spec for spec in registered_games() if spec.min_players <= 2 <= spec.max_players]


async def _resolve(league: LeagueLink, config: GameConfig) -> tuple[GameSpec, Opponent]:
    """The game and the opponent as the loop plays them.

    Raises:
        HTTPException: 422 with a sentence: an unknown game or opponent, or bad params;
            503 when a registered player is asked for and the League Manager does not
            answer.
    """
    try:
        spec = load_game(config.game)
    except UnknownGameError as exc:
        raise refuse(422, str(exc)) from None
    if not spec.min_players <= 2 <= spec.max_players:
        raise refuse(422, f"{spec.game_type} is not played by two players")
    choice = config.opponent
    if isinstance(choice, BuiltinOpponent):
        offered = offered_strategies(spec.game_type)
        if choice.strategy not in offered:
            raise refuse(
                422,
                f"no built-in strategy {choice.strategy!r} plays "
                f"{spec.game_type}; offered: {', '.join(offered)}",
            )
        opponent = Opponent("builtin", choice.strategy)
    elif isinstance(choice, LlmOpponent):
        if not llm_available():
            raise refuse(422, f"no LLM endpoint is configured on this server ({LLM_ENV} is unset)")
        try:
            build_strategy("llm")
        except StrategyError as exc:
            raise refuse(422, f"the llm opponent cannot be built: {exc}") from None
        opponent = Opponent("builtin", "llm")
    else:
        try:
            view = await league.view()
        except LeagueUnreachable as exc:
            raise refuse(503, str(exc)) from None
        agent = next((p for p in view.players if p.agent_id == choice.player_id), None)
        if agent is None:
            raise refuse(
                422, f"no player {choice.player_id!r} is registered in league {view.league_id}"
            )
        if agent.state not in PLAYABLE_STATES:
            raise refuse(422, f"player {agent.agent_id} is {agent.state}, not playable")
        if spec.game_type not in agent.game_types:
            raise refuse(
                422,
                f"player {agent.agent_id} plays {', '.join(agent.game_types)}, "
                f"not {spec.game_type}",
            )
        opponent = Opponent("remote", agent.contact_endpoint, agent.agent_id)
    try:
        spec.create([HUMAN_ID, opponent.player_id or OPPONENT_ID], **config.params)
    except (ValueError, TypeError, KeyError) as exc:
        raise refuse(422, f"params of {spec.game_type}: {exc}") from None
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
    observation = seat.observation if seat is not None else None
    history = history_table(observation, session.game.guide) if observation else None
    return SessionState(
        session_id=session.session_id,
        status=session.status,
        config=_config_of(session),
        display_name=session.game.display_name,
        turn=session.turn,
        stage=pending.stage if pending else None,
        observation=observation,
        seen=[SeenRow(label=name, text=text) for name, text in seen_rows(observation or {})],
        history=HistoryOut(columns=history[0], rows=history[1]) if history else None,
        action_space=pending.space.describe() if pending else None,
        hint=space_hint(pending.space) if pending else None,
        score=seat.returns if seat is not None else {},
        result=session.result,
        error=session.error,
        result_lines=result_lines(session.result) if session.result else [],
        messages=len(seat.transcript.visible()) if seat is not None else 0,
    )


# -- the router --------------------------------------------------------------------------


def games_router(
    league: LeagueLink,
    shared: SharedDir,
    *,
    default_game: str,
    limits: PlayLimits | None = None,
) -> APIRouter:
    """``/api/play/*`` and the ``/play`` page, over one bounded in-memory session store
    (its games are cancelled when the app shuts down); ``league`` lists the players a
    person may play and proves the games against them; ``default_game`` is offered first.

    Raises:
        ConfigError: a ``LEAGUE_PLAY_*`` limit is refused (when ``limits`` is not given).
    """
    store: SessionStore[PlaySession] = SessionStore(
        limits or PlayLimits.from_env(), delete_hint="DELETE /api/play/{id}"
    )
    system = shared.system()

    router = store_router(store)
    api = APIRouter(prefix="/api/play", tags=["play"], route_class=SentenceRoute)

    def session_of(session_id: str) -> PlaySession:
        return found(store, session_id, "game")

    def seat_of(session: PlaySession) -> WebSeat:
        if session.seat is None:
            raise refuse(409, "the game has not started: POST /api/play/{id}/start first")
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
                guide=GuideOut.of(spec),
                payoff_table=PayoffTableOut.of(spec),
            )
            for spec in _two_player_games()
        ]
        try:
            listed = (await league.view()).playable()
        except LeagueUnreachable:
            listed = []
        players = [
            PlayerOffer(player_id=agent.agent_id, **agent.model_dump(exclude={"agent_id"}))
            for agent in listed
        ]
        return Defaults(
            games=games,
            players=players,
            llm=LlmOffer(
                available=llm_available(), model=os.environ.get("LEAGUE_LLM_MODEL") or None
            ),
            default_game=default_game,
            default_opponent=BuiltinOpponent(kind="builtin", strategy="random"),
            deadlines=Deadlines(
                move_timeout_sec=system.timeout_for(Method.MAKE_MOVE),
                settle_sec=store.limits.settle_sec,
                idle_sec=store.limits.idle_sec,
            ),
            max_sessions=store.limits.max_sessions,
            max_sessions_per_client=store.limits.max_sessions_per_client,
        )

    @api.post("", status_code=201, response_model=SessionState, responses=problems(422, 429, 503))
    async def create(config: GameConfig, request: Request) -> SessionState:
        """Create a game (not started: its configs may still change). 429: the caller's
        address holds too many games; 503: the server does; both with ``Retry-After``."""
        spec, opponent = await _resolve(league, config)
        try:
            client = request.client.host if request.client else "unknown"
            session = store.add(
                client,
                lambda session_id, now: PlaySession(
                    session_id,
                    client,
                    spec,
                    opponent,
                    config.opponent.model_dump(),
                    dict(config.params),
                    config.seed,
                    touched=now,
                ),
            )
        except SessionsFull as exc:
            raise full(exc) from None
        return _state(session)

    @api.get("/{session_id}", response_model=SessionState, responses=problems(404))
    async def get(session_id: str) -> SessionState:
        """The game as the person sees it: whose turn, their observation, legal moves,
        score, and the result once it is over."""
        return _state(session_of(session_id))

    @api.delete("/{session_id}", status_code=204, responses=problems(404))
    async def delete(session_id: str) -> Response:
        """Forget the game (a running one is cancelled)."""
        session_of(session_id)
        store.remove(session_id)
        return Response(status_code=204)

    @api.patch("/{session_id}", response_model=SessionState, responses=problems(404, 409, 422))
    async def patch(session_id: str, change: ConfigPatch) -> SessionState:
        """Change the configs of a game that has not started."""
        session = session_of(session_id)
        if session.status != "created":
            raise refuse(409, "the game has started; its configs can no longer change")
        try:
            merged = GameConfig.model_validate(
                {**_config_of(session).model_dump(), **change.model_dump(exclude_unset=True)}
            )
        except ValidationError as exc:  # a null game, opponent or params
            raise refuse(422, sentence(exc.errors())) from None
        spec, opponent = await _resolve(league, merged)
        session.game, session.opponent = spec, opponent
        session.opponent_choice = merged.opponent.model_dump()
        session.params, session.seed = dict(merged.params), merged.seed
        return _state(session)

    @api.post("/{session_id}/start", response_model=SessionState, responses=problems(404, 409))
    async def start(session_id: str) -> SessionState:
        """Start the game; answers once the person's first move is due (or the game over)."""
        session = session_of(session_id)
        if session.status != "created":
            raise refuse(409, f"the game has started already (it is {session.status})")
        session.start(shared, league.seated)
        await session.settle(store.limits.settle_sec)
        return _state(session)

    @api.post(
        "/{session_id}/moves", response_model=SessionState, responses=problems(400, 404, 409, 422)
    )
    async def move(session_id: str, body: MoveBody) -> SessionState:
        """The person's move; the opponent answers server-side, and the state is answered
        once the person's next move is due, the game is over, or ``settle_sec`` passed."""
        session = session_of(session_id)
        seat = seat_of(session)
        if session.status != "running":
            raise refuse(409, f"the game is over ({session.status}); no more moves")
        try:
            seat.submit(body.move)
        except MoveRefused as exc:
            raise refuse(exc.status, str(exc)) from None
        await session.settle(store.limits.settle_sec)
        return _state(session)

    @api.get("/{session_id}/messages", response_model=MessagesAnswer, responses=problems(404, 409))
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
            **problems(404, 409),
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
            **problems(404, 409),
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
        page = (STATIC / "play.html").read_text(encoding="utf-8")
        dashboard = f'<a href="{escape(league.base_url, quote=True)}/">Dashboard</a>'
        return HTMLResponse(page.replace(_DASHBOARD_LINK, dashboard))

    @router.get("/play/{asset}", include_in_schema=False)
    async def play_asset(asset: Literal["play.js", "play.css"]) -> FileResponse:
        return static_asset(asset)

    return router
