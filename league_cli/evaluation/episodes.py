"""Playing a suite's episodes: in process when every agent is built in, through the match
engine when one is remote.

A remote agent is called exactly as a referee calls it (GAME_INVITATION, GAME_MOVE_CALL per
stage with the observation and action space, GAME_OVER; retries announced with GAME_ERROR,
faults as technical losses): the engine's remote seat (``match_engine.remote``), beside the
built-in agents' in-process seats (``match_engine.seats.StrategySeat``). Episode ``i`` is seeded
``suite.seed + i`` in both paths, so a seeded suite repeats. A suite with ``bias`` seats
the opponent under the episode's label, in both paths (``league_cli.evaluation.bias``).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from games import load_game
from games.analysis import AnalysisError, History, history_from_match, record_episode
from games.strategies import ObservationBaseline
from league_cli.evaluation.agents import build_local
from league_cli.evaluation.bias import episode_label, with_real_ids
from league_cli.evaluation.suite import Suite
from league_cli.evaluation.transcript import Transcript, episode_summary
from match_engine.match import Match
from match_engine.match_file import MatchFile
from match_engine.plan import MatchPlan
from match_engine.remote import RemotePlayers
from match_engine.rules import load_rules
from match_engine.seats import Seat, StrategySeat
from sdk.client import RpcClient
from sdk.config import ScoringConfig, SharedDir
from sdk.messages import Communication, MatchSeat, seat_role
from strategies import Baseline

__all__ = ["EVALUATION_LEAGUE", "Episode", "play_episodes"]

EVALUATION_LEAGUE = "evaluation"
"""The league_id of an evaluation's matches, as remote players see it."""
_SENDER = "referee:evaluation"


@dataclass(frozen=True)
class Episode:
    """One episode: its history, or why it has none (a remote agent's technical loss)."""

    index: int
    seed: int
    history: History | None
    failure: str | None = None
    label: str | None = None
    """The label the agent under test saw its opponent under (the suite's ``bias``)."""


def _seat_ids(suite: Suite, label: str | None) -> dict[str, str]:
    """Each agent's player id in an episode: its own, but the opponent's is the label."""
    return {
        agent.id: label if label is not None and agent.id != suite.under_test else agent.id
        for agent in suite.agents
    }


def _real_ids(history: History, ids: dict[str, str]) -> History:
    """The history under the agents' own ids (a labelled episode's opponent played as its
    label)."""
    names = {seat: agent for agent, seat in ids.items() if seat != agent}
    return with_real_ids(history, names) if names else history


def _local_seed(seed: int, player: str) -> str:
    """A built-in agent's seed in an episode, as ``record_episode`` seeds it, so an agent
    plays the same beside a remote one as among built-in ones."""
    return f"{seed}/{player}"


def _local_strategies(suite: Suite, ids: dict[str, str]) -> dict[str, ObservationBaseline]:
    return {
        ids[agent.id]: build_local(suite.game.type, agent.strategy, agent.options)
        for agent in suite.agents
        if agent.strategy is not None
    }


class _Remote:
    """What the referee path needs for one run: rules, client, the transcript's log, a
    folder for match files (deleted after the run)."""

    def __init__(self, suite: Suite, shared: SharedDir, transcript: Transcript, parallel: int):
        self.suite = suite
        self.rules = load_rules(shared, suite.game.type)
        self.system = shared.system()
        self.transcript = transcript
        self.log = transcript.open()
        self.log.log.info(
            "evaluation_started",
            suite=suite.name,
            game=suite.game.type,
            episodes=suite.episodes,
            seed=suite.seed,
            parallel=parallel,
            remote={a.id: a.endpoint for a in suite.agents if a.endpoint},
            transcript=transcript.mode,
            max_bytes=transcript.max_bytes,
        )
        self.started = time.perf_counter()
        self.outcomes: Counter[str] = Counter()
        self.client = RpcClient(self.system, self.log)
        self.folder = tempfile.TemporaryDirectory(prefix="league-evaluation-")

    async def play(self, index: int, seed: int) -> Episode:
        suite = self.suite
        match_id = f"{suite.name}-{index:05d}"
        label = episode_label(suite.bias, index)
        ids = _seat_ids(suite, label)
        seats = tuple(
            MatchSeat(
                player_id=ids[agent.id],
                contact_endpoint=agent.endpoint or f"http://in-process.invalid/{agent.id}",
                role=seat_role(i),
            )
            for i, agent in enumerate(suite.agents)
        )
        plan = MatchPlan(
            league_id=EVALUATION_LEAGUE,
            round_id=0,
            match_id=match_id,
            game_type=suite.game.type,
            seats=seats,
            seed=seed,
            scoring=ScoringConfig(),
            game_params=dict(suite.game.params),
            communication=Communication(enabled=suite.game.communication),
        )
        record = MatchFile(
            Path(self.folder.name) / f"{match_id}.json",
            match_id=match_id,
            league_id=EVALUATION_LEAGUE,
            round_id=0,
            game_type=suite.game.type,
            referee_id="evaluation",
            conversation_id=plan.conversation_id,
            seats=list(seats),
            report_status="not_required",
        )
        remote = RemotePlayers(
            plan,
            self.rules,
            client=self.client,
            system=self.system,
            log=self.log,
            record=record,
            sender=_SENDER,
        )
        players: dict[str, Seat] = {
            ids[agent.id]: StrategySeat(
                Baseline(agent.strategy, seed=_local_seed(seed, ids[agent.id]), **agent.options),
                plan=plan,
                rules=self.rules,
                player_id=ids[agent.id],
                log=self.log,
            )
            if agent.strategy is not None
            else remote.seat(agent.id)
            for agent in suite.agents
        }
        match = Match(plan, self.rules, players, system=self.system, log=self.log, record=record)
        outcome = await match.run()
        snapshot = record.snapshot()
        self.log.log.info("episode", episode=index, seed=seed, **episode_summary(snapshot, outcome))
        self.outcomes[outcome.status] += 1
        try:
            history = history_from_match(snapshot)
        except AnalysisError:
            return Episode(index, seed, None, f"{match_id}: {outcome.reason}", label)
        return Episode(index, seed, _real_ids(history, ids), label=label)

    async def close(self) -> None:
        self.log.log.info(
            "evaluation_finished",
            suite=self.suite.name,
            episodes=sum(self.outcomes.values()),
            outcomes=dict(self.outcomes),
            seconds=round(time.perf_counter() - self.started, 3),
        )
        await self.client.aclose()
        self.transcript.close()
        self.folder.cleanup()


def _play_local(suite: Suite, index: int, seed: int) -> Episode:
    label = episode_label(suite.bias, index)
    ids = _seat_ids(suite, label)
    history = record_episode(
        load_game(suite.game.type), _local_strategies(suite, ids), seed=seed, **suite.game.params
    )
    return Episode(index, seed, _real_ids(history, ids), label=label)


async def play_episodes(
    suite: Suite,
    *,
    parallel: int,
    shared: SharedDir | None = None,
    transcript: Transcript | None = None,
    on_done: Callable[[Episode], None] | None = None,
) -> list[Episode]:
    """Every episode of ``suite``, at most ``parallel`` at a time, in episode order.

    In-process episodes run in worker threads (the bound keeps memory flat; the GIL keeps
    them from running faster than one core); remote ones are concurrent calls, recorded in
    ``transcript`` (``league_cli.evaluation.transcript``; None: no transcript is written).

    Raises:
        ConfigError, UnknownGameError: a remote suite whose SHARED config cannot be read
            or does not list the game.
        FileSystemError: the transcript's file cannot be created.
    """
    gate = asyncio.Semaphore(parallel)
    remote = (
        _Remote(suite, shared or SharedDir(), transcript or Transcript(None, suite.name), parallel)
        if suite.has_remote
        else None
    )

    async def one(index: int) -> Episode:
        seed = suite.seed + index
        async with gate:
            if remote is not None:
                episode = await remote.play(index, seed)
            else:
                episode = await asyncio.to_thread(_play_local, suite, index, seed)
        if on_done is not None:
            on_done(episode)
        return episode

    try:
        return list(await asyncio.gather(*(one(i) for i in range(suite.episodes))))
    finally:
        if remote is not None:
            await remote.close()
