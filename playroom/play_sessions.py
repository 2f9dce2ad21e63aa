"""Games a person plays through the play service's ``/play`` page: one session per game, in
memory, bounded.

A session runs ``playroom.session.play_game`` (the loop ``league play`` runs) as an
asyncio task with a ``WebSeat``: when the person's move is due the seat parks a future,
and ``POST /api/play/{id}/moves`` resolves it. The opponent then moves server-side (a
built-in strategy in a worker thread, a remote player over the protocol) while the request
waits, up to ``settle_sec``, for the person's next turn or the end. At most
``max_sessions`` live at once, at most ``max_sessions_per_client`` of them from one client
address (so one client cannot lock ``/play`` for everyone); one left alone for ``idle_sec``
is dropped (its task cancelled): ``playroom.session_store``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from games import Action, ActionSpace, GameSpec
from games.guide import Guide
from playroom.narration import narrate
from playroom.session import HUMAN_ID, Opponent, new_transcript, play_game, score_line
from playroom.transcript import Transcript
from sdk.config import ConfigError, SharedDir
from sdk.timeouts import within
from strategies.human import parse_move, space_hint

__all__ = [
    "MAX_MOVE_CHARS",
    "MoveRefused",
    "PlaySession",
    "Seating",
    "SessionStatus",
    "WebSeat",
]

_log = logging.getLogger(__name__)

MAX_MOVE_CHARS = 1000
"""The longest move taken, as typed (an allocation over 100 battlefields fits): a refused
move is recorded in the transcript, which must not grow by whatever a request holds."""
SessionStatus = Literal["created", "running", "finished", "failed"]
Seating = Callable[[GameSpec, Opponent, int | None], Awaitable[tuple[Opponent, int]]]
"""Seats a remote opponent for one game: the opponent with its proof, and the game's seed
(``playroom.league_link.LeagueLink.seated``)."""


class MoveRefused(Exception):
    """A move that cannot be taken now: ``status`` is the HTTP status, the text a sentence."""

    def __init__(self, status: int, sentence: str):
        super().__init__(sentence)
        self.status = status


@dataclass
class _Pending:
    space: ActionSpace
    stage: int
    future: asyncio.Future[Action]


def _typed_text(move: Any) -> str:
    """A move from JSON as the person would have typed it (``parse_move`` reads text)."""
    if isinstance(move, str):
        return move
    if isinstance(move, list):
        return " ".join(json.dumps(part) for part in move)
    return json.dumps(move)


class WebSeat:
    """The person's seat behind HTTP (a ``playroom.session.PersonView``): remembers what
    they may see (their observation, the running score, the legal moves when their move is
    due) and takes their move from a request."""

    def __init__(self, transcript: Transcript, guide: Guide | None = None):
        self.transcript = transcript
        self.guide = guide
        """The game's rules and moves in words, to name the moves in the transcript."""
        self.observation: dict[str, Any] | None = None
        self.returns: dict[str, float] = {}
        self.pending: _Pending | None = None
        self.ready = asyncio.Event()
        """Set while the person's move is due or the game has ended."""

    def show(self, observation: Mapping[str, Any], title: str) -> None:
        self.observation = dict(observation)
        returns = observation.get("returns")
        if isinstance(returns, dict) and returns:
            self.returns = {str(p): float(v) for p, v in returns.items()}
        self.transcript.add(
            "referee", f"{title}: {narrate(observation, self.guide)}", speaker="referee"
        )

    def tell(self, line: str) -> None:
        self.transcript.add("referee", line, speaker="referee")

    def score(self, returns: Mapping[str, float]) -> None:
        self.returns = dict(returns)
        self.tell(score_line(returns))

    async def ask(self, observation: Mapping[str, Any], space: ActionSpace, stage: int) -> Action:
        """Park until ``submit`` gives the person's legal move."""
        self.show(observation, f"Stage {stage}: what you see")
        self.tell(f"Legal moves: {space_hint(space)}")
        future: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self.pending = _Pending(space, stage, future)
        self.ready.set()
        try:
            return await future
        finally:
            self.pending = None

    def submit(self, move: Any) -> Action:
        """Take the person's move for the pending stage.

        Raises:
            MoveRefused: 400 when no move of theirs is due, 422 when the move is longer
                than ``MAX_MOVE_CHARS`` or not in their action space (the sentence says
                what is legal; such a move is recorded).
        """
        pending = self.pending
        if pending is None or pending.future.done():
            raise MoveRefused(400, "it is not your turn: wait for the opponent's move")
        text = _typed_text(move)
        if len(text) > MAX_MOVE_CHARS:
            raise MoveRefused(
                422,
                f"a move is at most {MAX_MOVE_CHARS} characters as typed; this one has {len(text)}",
            )
        try:
            action = parse_move(text, pending.space)
        except ValueError as exc:
            self.transcript.add("human", text, speaker=HUMAN_ID)
            self.tell(str(exc))
            raise MoveRefused(422, str(exc)) from None
        self.transcript.add("human", _typed_text(action), speaker=HUMAN_ID)
        self.ready.clear()
        self.pending = None
        pending.future.set_result(action)
        return action


@dataclass
class PlaySession:
    """One game: its configs until it starts, then its seat, task and end."""

    session_id: str
    client: str
    """The address of the client that created it (what ``max_sessions_per_client`` counts)."""
    game: GameSpec
    opponent: Opponent
    """The opponent as the game loop plays it (a strategy name, or a player's URL)."""
    opponent_choice: dict[str, Any]
    """The opponent as the person picked it (what the API answers)."""
    params: dict[str, Any]
    seed: int | None
    touched: float
    status: SessionStatus = "created"
    transcript: Transcript | None = None
    seat: WebSeat | None = None
    result: dict[str, Any] | None = None
    """The end as the person may see it (``playroom.session.visible_result``)."""
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def start(self, shared: SharedDir, seating: Seating) -> None:
        """Begin the game in a task of the running loop (a remote opponent is seated by
        ``seating`` first)."""
        self.transcript = new_transcript(
            self.game, self.opponent, params=self.params, seed=self.seed
        )
        self.transcript.configs["opponent"] = {
            **self.transcript.configs["opponent"],
            **self.opponent_choice,
        }
        self.seat = seat = WebSeat(self.transcript, self.game.guide)
        self.status = "running"
        self.task = asyncio.create_task(
            self._run(seat, shared, seating), name=f"play-{self.session_id}"
        )

    async def _run(self, seat: WebSeat, shared: SharedDir, seating: Seating) -> None:
        try:
            opponent, seed = self.opponent, self.seed
            if opponent.kind == "remote":
                opponent, seed = await seating(self.game, opponent, seed)
            self.result = await play_game(
                self.game, opponent, seat, params=self.params, seed=seed, shared=shared
            )
            self.status = "finished"
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # any failure ends this game, never the server
            known = isinstance(exc, ValueError | ConfigError) or type(exc).__module__.startswith(
                ("strategies", "playroom", "match_engine", "games")
            )
            if not known:
                _log.exception("play session %s failed", self.session_id)
            self.error = (
                str(exc) if known else "the game failed on the server; see the play service's log"
            )
            seat.tell(f"The game stopped: {self.error}")
            seat.transcript.finish({"error": self.error})
            self.status = "failed"
        finally:
            seat.ready.set()

    async def settle(self, timeout: float) -> None:
        """Wait until the person's move is due or the game has ended, ``timeout`` at most."""
        if self.seat is None:
            return
        with contextlib.suppress(asyncio.TimeoutError):  # not the builtin before 3.11
            await within(self.seat.ready.wait(), timeout)

    @property
    def turn(self) -> Literal["you", "opponent"] | None:
        if self.status != "running" or self.seat is None:
            return None
        return "you" if self.seat.pending is not None else "opponent"

    @property
    def over(self) -> bool:
        return self.status in ("finished", "failed")

    def stop(self) -> asyncio.Task[None] | None:
        """Cancel the game's task; returns it while it unwinds."""
        if self.task is None or self.task.done():
            return None
        self.task.cancel()
        return self.task
