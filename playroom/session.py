"""One game of ``games/`` between a person's seat and an opponent, played by the match engine.

``league play`` seats a person at the terminal (``league_cli/play.py``); the play service's
``/play`` page seats one behind HTTP requests (``playroom/play_sessions.py``). Both play the
same ``Match`` as a referee: the opponent is a strategy (``tit_for_tat``, ``random``,
``llm``…) in the engine's in-process seat, run as a player host runs it, or a running player
by URL in its remote seat, called over the real protocol. The person's side of the game
(``PersonView``: the terminal, the web page), seated by ``PersonSeat``, only shows what the
person may see and answers their moves; everything lands in the one ``Transcript`` model,
where the opponent's moves and the final state are ``internal`` (never shown to the person).
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from games import Action, ActionSpace, GameSpec, GameState
from match_engine.match import Match
from match_engine.match_file import MatchFile
from match_engine.outcome import Fault, MatchOutcome
from match_engine.plan import MatchPlan
from match_engine.remote import RemotePlayers
from match_engine.rules import load_rules
from match_engine.seats import MoveCall, Seat, StrategySeat
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
from strategies import Strategy, build_strategy
from strategies.errors import StrategyError

__all__ = [
    "HUMAN_ID",
    "OPPONENT_ID",
    "Opponent",
    "OverheardSeat",
    "PersonSeat",
    "PersonView",
    "PlayError",
    "score_line",
    "new_seed",
    "new_transcript",
    "play_game",
    "play_match",
    "result_lines",
    "takes_seed",
    "visible_result",
]

HUMAN_ID = "human"
OPPONENT_ID = "opponent"


class PlayError(Exception):
    """A game, an opponent or a parameter that cannot be played."""


class PersonView(Protocol):
    """The person's side of a game (a terminal, a web page): what they are shown, and where
    their moves come from. ``PersonSeat`` seats it in the engine's match."""

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


def visible_returns(state: GameState, observation: Mapping[str, Any]) -> dict[str, float]:
    """The person's own running score, and the others' where their observation shows them."""
    returns = observation.get("returns")
    if isinstance(returns, dict) and returns:
        return {str(p): float(v) for p, v in returns.items()}
    return {HUMAN_ID: float(state.returns()[HUMAN_ID])}


class PersonSeat:
    """The person's seat of a match (``match_engine.seats.Seat``): answered by the person's
    view here, not invited, asked or told over HTTP. Before each move after the first the
    person sees the running score (``state``: the match's game, read when asked)."""

    def __init__(self, person: PersonView, move_type: str, state: Callable[[], GameState | None]):
        self._person = person
        self._move_type = move_type
        self._state = state

    async def invite(self) -> Fault | None:
        return None

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        state = self._state()
        if call.stage > 1 and state is not None:
            self._person.score(visible_returns(state, call.observation))
        move = await self._person.ask(call.observation, call.space, call.stage)
        return MoveData(move_type=self._move_type, move=move)

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        return None


class OverheardSeat:
    """The opponent's seat, whatever it is, with its moves written to the transcript:
    internal (the person learns them only as the game shows them), and what it says,
    visible."""

    def __init__(self, seat: Seat, transcript: Transcript, speaker: str):
        self._seat = seat
        self._transcript = transcript
        self._speaker = speaker

    async def invite(self) -> Fault | None:
        return await self._seat.invite()

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        answer = await self._seat.ask(call)
        if isinstance(answer, MoveData):
            move = answer.move
            text = move if isinstance(move, str) else json.dumps(move)
            self._transcript.add("player", text, visibility="internal", speaker=self._speaker)
            if answer.message:
                self._transcript.add("player", answer.message, speaker=self._speaker)
        return answer

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        await self._seat.announce(outcome, faulty)


async def play_match(
    spec: GameSpec,
    opponent: Opponent,
    person: PersonView,
    *,
    shared: SharedDir,
    seed: int | None,
    params: Mapping[str, Any],
    strategy: Strategy | None = None,
) -> dict[str, Any]:
    """The game through the match engine: the person's view against ``strategy`` played in
    process (a built-in opponent) or, without one, the player at the opponent's URL (a
    remote seat, called over the protocol as a referee calls it)."""
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
        MatchSeat(
            player_id=opponent.player_id,
            contact_endpoint=opponent.name
            if opponent.kind == "remote"
            else f"http://in-process.invalid/{opponent.player_id}",
            role=seat_role(1),
        ),
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
        record = MatchFile(
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
        theirs: Seat = (
            StrategySeat(strategy, plan=plan, rules=rules, player_id=opponent.player_id, log=log)
            if strategy is not None
            else RemotePlayers(
                plan,
                rules,
                client=client,
                system=system,
                log=log,
                record=record,
                sender=PLAY_SENDER,
            ).seat(opponent.player_id)
        )
        players: dict[str, Seat] = {
            HUMAN_ID: PersonSeat(person, rules.spec.move_types[0], lambda: match.state),
            opponent.player_id: OverheardSeat(theirs, person.transcript, opponent.player_id),
        }
        match = Match(plan, rules, players, system=system, log=log, record=record)
        try:
            outcome = await match.run()
        finally:
            await client.aclose()
            log.close()
    result = outcome.game_result().model_dump(mode="json", exclude_none=True)
    shown: dict[str, float] = {}
    if match.state is not None and outcome.status != "TECHNICAL_LOSS":
        final = match.state.observation(HUMAN_ID)
        shown = visible_returns(match.state, final)
        person.score(shown)
        person.show(final, "Game over: what you see")
    person.transcript.add(
        "referee", f"GAME_OVER: {json.dumps(result)}", visibility="internal", speaker="referee"
    )
    seen = visible_result(result, shown)
    person.tell(f"Game over: {seen['reason']}" if "reason" in seen else "Game over.")
    return seen


def visible_result(result: Mapping[str, Any], shown: Mapping[str, float]) -> dict[str, Any]:
    """The end of a game as the person may see it: the payoffs of the players whose payoff
    their final observation shows (``shown``; their own always), and the reason only when
    it names no other payoff (an opponent's payoff in bargaining without a deal is its
    private reservation value). The whole result stays in the internal GAME_OVER message."""
    payoffs = result.get("payoffs")
    if not isinstance(payoffs, Mapping):
        return dict(result)
    kept = {p: v for p, v in payoffs.items() if p in shown or p == HUMAN_ID}
    if kept == dict(payoffs):
        return dict(result)
    return {**{k: v for k, v in result.items() if k != "reason"}, "payoffs": kept}


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
    person: PersonView,
    *,
    params: Mapping[str, Any],
    seed: int | None,
    shared: SharedDir | None = None,
) -> dict[str, Any]:
    """Play one game to its end; the person's transcript is finished with the result, as the
    person may see it (``visible_result``), which is returned.

    Raises:
        PlayError, StrategyError, ConfigError, ValueError: the opponent or parameters
            cannot be played (``shared`` is required for a remote opponent).
    """
    strategy = build_opponent(opponent.name, seed) if opponent.kind == "builtin" else None
    result = await play_match(
        spec,
        opponent,
        person,
        shared=shared or SharedDir(None),
        seed=seed,
        params=params,
        strategy=strategy,
    )
    if strategy is not None:
        spent = (strategy.report() or {}).get("totals")
        if spent:  # an llm opponent counts its calls and tokens
            person.transcript.tokens = TokenUsage(
                calls=spent["calls"],
                prompt_tokens=spent["prompt_tokens"],
                completion_tokens=spent["completion_tokens"],
            )
    for line in result_lines(result):
        person.tell(line)
    person.transcript.finish(result)
    return result


def score_line(returns: Mapping[str, float]) -> str:
    """``Score: you 3, opponent 3``: a running score as one line."""
    return "Score: " + ", ".join(
        f"{'you' if p == HUMAN_ID else p} {v:g}" for p, v in returns.items()
    )
