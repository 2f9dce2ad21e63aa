"""One game of ``games/`` between a person's seat and an opponent, whatever the seat is.

``league play`` seats a person at the terminal (``league_cli/play.py``); the League
Manager's ``/play`` page seats one behind HTTP requests (``league_manager/web/``). Both run
the same loop here: the opponent is a strategy of the player host (``tit_for_tat``,
``random``, ``llm``…) played in process, or a running player by URL, called over the real
protocol by the match engine's remote seat, as a referee calls it. The seat only shows
what the person may see and answers the person's moves; everything lands in the one
``Transcript`` model, where the opponent's move and the final state are ``internal`` (never
shown to the person).
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, Protocol

from games import Action, ActionSpace, GameSpec, GameState
from match_engine.match import Match
from match_engine.match_file import MatchRecord
from match_engine.outcome import Fault, MatchOutcome
from match_engine.plan import MatchPlan
from match_engine.remote import RemotePlayers, RemoteSeat
from match_engine.rules import load_rules
from match_engine.seats import MoveCall
from playroom.transcript import TokenUsage, Transcript
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import ScoringConfig, SharedDir
from sdk.messages import (
    PLAY_LEAGUE_ID,
    PLAY_REFEREE_ID,
    PLAY_SENDER,
    MatchSeat,
    MoveData,
    play_match_id,
    seat_role,
    sender_id,
)
from sdk.timeutil import utc_now
from strategies import MoveView, Say, Strategy, build_strategy
from strategies.errors import StrategyError
from strategies.view import PARITIES

__all__ = [
    "HUMAN_ID",
    "OPPONENT_ID",
    "Opponent",
    "PersonSeat",
    "PlayError",
    "Seat",
    "score_line",
    "new_seed",
    "new_transcript",
    "play_game",
    "result_lines",
    "takes_seed",
]

HUMAN_ID = "human"
OPPONENT_ID = "opponent"
_BUILTIN_MOVE_SEC = 30.0
"""The deadline a built-in opponent is shown (an LLM strategy bounds its call by it)."""


class PlayError(Exception):
    """A game, an opponent or a parameter that cannot be played."""


class Seat(Protocol):
    """The person's seat: what they are shown, and where their moves come from."""

    transcript: Transcript

    def show(self, observation: Mapping[str, Any], title: str) -> None:
        """Show the person their observation (and record it, visible)."""
        ...

    def tell(self, line: str) -> None:
        """Tell the person one line from the referee (and record it, visible)."""
        ...

    def score(self, returns: Mapping[str, float]) -> None:
        """The running score the person may see (their own, the others' where shown)."""
        ...

    async def ask(self, observation: Mapping[str, Any], space: ActionSpace, stage: int) -> Action:
        """The person's legal move for this stage (shown the observation first)."""
        ...


@dataclass(frozen=True)
class Opponent:
    """Who the person plays: a strategy in process, or a running player by URL."""

    kind: Literal["builtin", "remote"]
    name: str
    """The strategy's name (``tit_for_tat``, ``llm``…) or the player's ``/mcp`` URL."""
    player_id: str = OPPONENT_ID
    prove: Callable[[str, str, str], str] | None = field(default=None, repr=False, compare=False)
    """For a registered player that checks its callers: the proof of (league, match,
    referee) the room shows it, made by whoever holds its token (None: no proof)."""

    @classmethod
    def parse(cls, text: str, player_id: str = OPPONENT_ID) -> Opponent:
        """``league play --opponent``: a URL, or a strategy name (``builtin:`` optional)."""
        if text.startswith(("http://", "https://")):
            return cls("remote", text, player_id)
        return cls("builtin", text.removeprefix("builtin:"))

    def configs(self) -> dict[str, Any]:
        """How the transcript's configs name this opponent."""
        if self.kind == "remote":
            return {"kind": "remote", "url": self.name, "player_id": self.player_id}
        return {"kind": "builtin", "strategy": self.name}


def new_transcript(
    spec: GameSpec, opponent: Opponent, *, params: Mapping[str, Any], seed: int | None
) -> Transcript:
    """An empty transcript of a game about to be played, with every config that shapes it."""
    return Transcript(
        mode="play",
        game=spec.game_type,
        configs={
            "game": spec.game_type,
            "versioned_id": spec.versioned_id,
            "params": {**spec.parameters, **params},
            "seed": seed,
            "opponent": opponent.configs(),
        },
    )


def new_seed() -> int:
    """A game's seed when none is given (unpredictable: a player cannot foresee the draw)."""
    return random.SystemRandom().randrange(2**31)


def takes_seed(name: str) -> bool:
    """Whether the strategy takes a ``seed`` option (so a seeded game repeats exactly)."""
    try:
        build_strategy(name, {"seed": 0})
    except StrategyError:
        return False
    return True


def build_opponent(name: str, seed: int | None) -> Strategy:
    """The built-in opponent, seeded when it takes a seed.

    Raises:
        PlayError: ``human`` (the person's own seat is the only human one).
        StrategyError: an unknown strategy, or one that refuses its options.
    """
    if name == "human":
        raise PlayError("the opponent cannot be 'human': the person holds the only human seat")
    return build_strategy(name, {"seed": seed} if seed is not None and takes_seed(name) else None)


def _move_text(move: Action) -> str:
    return move if isinstance(move, str) else json.dumps(move)


def _opponent_view(
    spec: GameSpec, state: GameState | None, player: str, space: ActionSpace, stage: int
) -> MoveView:
    """What the player host would give its strategy for this move call."""
    even_odd = spec.game_type == "even_odd"
    return MoveView(
        game_type=spec.game_type,
        match_id=play_match_id(spec.game_type),
        round_id=0,
        player_id=player,
        opponent_id=HUMAN_ID,
        role=seat_role(1),
        legal_moves=PARITIES if even_odd else tuple(space.choices),
        action_space=None if even_odd else space.describe(),
        observation={}
        if even_odd or state is None
        else {"stage": stage, **state.observation(player)},
        deadline=utc_now() + timedelta(seconds=_BUILTIN_MOVE_SEC),
    )


async def _opponent_move(strategy: Strategy, view: MoveView, transcript: Transcript) -> Action:
    """The built-in opponent's move, chosen in a worker thread (an ``llm`` strategy waits on
    its model); an illegal one is the strategy's bug (PlayError)."""
    answer = await asyncio.to_thread(strategy.choose, view)
    move = answer.move if isinstance(answer, Say) else answer
    if not view.is_legal(move):
        raise PlayError(f"the opponent {strategy.name!r} played {move!r}, not a legal move")
    transcript.add("player", _move_text(move), visibility="internal", speaker=OPPONENT_ID)
    if isinstance(answer, Say) and answer.message:
        transcript.add("player", answer.message, speaker=OPPONENT_ID)
    return move


def visible_returns(state: GameState, observation: Mapping[str, Any]) -> dict[str, float]:
    """The person's own running score, and the others' where their observation shows them."""
    returns = observation.get("returns")
    if isinstance(returns, dict) and returns:
        return {str(p): float(v) for p, v in returns.items()}
    return {HUMAN_ID: float(state.returns()[HUMAN_ID])}


async def play_local(
    spec: GameSpec, strategy: Strategy, seat: Seat, *, seed: int | None, params: Mapping[str, Any]
) -> dict[str, Any]:
    """The game in process: the person and a built-in strategy, stage by stage (in a
    simultaneous stage the strategy chooses after the person, without seeing their move)."""
    state = spec.create([HUMAN_ID, OPPONENT_ID], **params)
    state.reset(seed)
    stage = 0
    while not state.is_terminal():
        stage += 1
        moves: dict[str, Action] = {}
        for player in state.acting_players():
            space = state.action_space(player)
            if player == HUMAN_ID:
                moves[player] = await seat.ask(state.observation(player), space, stage)
            else:
                view = _opponent_view(spec, state, player, space, stage)
                moves[player] = await _opponent_move(strategy, view, seat.transcript)
        state.step(moves)
        seat.score(visible_returns(state, state.observation(HUMAN_ID)))
    seat.show(state.observation(HUMAN_ID), "Game over: what you see")
    seat.transcript.add(
        "referee",
        json.dumps(state.to_json(), default=str),
        visibility="internal",
        speaker="referee",
    )
    return {"payoffs": state.payoffs()}


class PersonSeat:
    """The person's seat of a match (``match_engine.seats.Seat``): answered by the person's
    seat here, not invited, asked or told over HTTP."""

    def __init__(self, seat: Seat, move_type: str):
        self._seat = seat
        self._move_type = move_type

    async def invite(self) -> Fault | None:
        return None

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        move = await self._seat.ask(call.observation, call.space, call.stage)
        return MoveData(move_type=self._move_type, move=move)

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        return None


async def play_remote(
    spec: GameSpec,
    opponent: Opponent,
    seat: Seat,
    *,
    shared: SharedDir,
    seed: int | None,
    params: Mapping[str, Any],
) -> dict[str, Any]:
    """The game through the match engine against the player at its URL (a remote seat)."""
    rules = load_rules(shared, spec.game_type)
    system = shared.system()
    seed = seed if seed is not None else new_seed()
    match_id = play_match_id(spec.game_type, seed)
    seats = (
        MatchSeat(
            player_id=HUMAN_ID,
            contact_endpoint="http://in-process.invalid/human",
            role=seat_role(0),
        ),
        MatchSeat(player_id=opponent.player_id, contact_endpoint=opponent.name, role=seat_role(1)),
    )
    proofs = (
        {opponent.player_id: opponent.prove(PLAY_LEAGUE_ID, match_id, sender_id(PLAY_SENDER))}
        if opponent.prove
        else {}
    )
    plan = MatchPlan(
        league_id=PLAY_LEAGUE_ID,
        round_id=0,
        match_id=match_id,
        game_type=spec.game_type,
        seats=seats,
        seed=seed,
        scoring=ScoringConfig(),
        game_params=dict(params),
        proofs=proofs,
    )
    with tempfile.TemporaryDirectory(prefix="league-play-") as folder:
        log = AgentLog(Path(folder) / "play.log.jsonl", "play")
        client = RpcClient(system, log)
        record = MatchRecord(
            Path(folder) / f"{match_id}.json",
            match_id=match_id,
            league_id=PLAY_LEAGUE_ID,
            round_id=0,
            game_type=spec.game_type,
            referee_id=PLAY_REFEREE_ID,
            conversation_id=plan.conversation_id,
            seats=list(seats),
            report_status="not_required",
        )
        remote = RemotePlayers(
            plan, rules, client=client, system=system, log=log, record=record, sender=PLAY_SENDER
        )
        players: dict[str, PersonSeat | RemoteSeat] = {
            HUMAN_ID: PersonSeat(seat, rules.spec.move_types[0]),
            opponent.player_id: remote.seat(opponent.player_id),
        }
        match = Match(plan, rules, players, system=system, log=log, record=record)
        try:
            outcome = await match.run()
        finally:
            await client.aclose()
            log.close()
    result = outcome.game_result().model_dump(mode="json", exclude_none=True)
    if match.state is not None and outcome.status != "TECHNICAL_LOSS":
        final = match.state.observation(HUMAN_ID)
        seat.score(visible_returns(match.state, final))
        seat.show(final, "Game over: what you see")
    seat.transcript.add("referee", f"GAME_OVER: {json.dumps(result)}", speaker="referee")
    seat.tell(f"Game over: {outcome.reason}")
    return result


def result_lines(result: Mapping[str, Any]) -> list[str]:
    """The end of a game as the person reads it: the final score and the winner."""
    payoffs = result.get("payoffs")
    lines = []
    if isinstance(payoffs, dict):
        lines.append(
            "Final score: "
            + ", ".join(f"{'you' if p == HUMAN_ID else p} {float(v):g}" for p, v in payoffs.items())
        )
    if "winner_player_id" in result or result.get("status"):
        winner = result.get("winner_player_id")
        lines.append("Winner: " + ("you" if winner == HUMAN_ID else winner or "nobody (draw)"))
    return lines


async def play_game(
    spec: GameSpec,
    opponent: Opponent,
    seat: Seat,
    *,
    params: Mapping[str, Any],
    seed: int | None,
    shared: SharedDir | None = None,
) -> dict[str, Any]:
    """Play one game to its end; the seat's transcript is finished with the result.

    Raises:
        PlayError, StrategyError, ConfigError, ValueError: the opponent or parameters
            cannot be played (``shared`` is required for a remote opponent).
    """
    if opponent.kind == "remote":
        result = await play_remote(
            spec, opponent, seat, shared=shared or SharedDir(None), seed=seed, params=params
        )
    else:
        strategy = build_opponent(opponent.name, seed)
        result = await play_local(spec, strategy, seat, seed=seed, params=params)
        spent = (strategy.report() or {}).get("totals")
        if spent:  # an llm opponent counts its calls and tokens
            seat.transcript.tokens = TokenUsage(
                calls=spent["calls"],
                prompt_tokens=spent["prompt_tokens"],
                completion_tokens=spent["completion_tokens"],
            )
    for line in result_lines(result):
        seat.tell(line)
    seat.transcript.finish(result)
    return result


def score_line(returns: Mapping[str, float]) -> str:
    """``Score: you 3, opponent 3``: a running score as one line."""
    return "Score: " + ", ".join(
        f"{'you' if p == HUMAN_ID else p} {v:g}" for p, v in returns.items()
    )
