"""Playing a suite's episodes, each a match of the match engine.

A built-in agent plays in the engine's in-process seat (``match_engine.seats.StrategySeat``:
a ``strategies.Baseline``, shown what a player host would show it, run by the host's
``StrategyRunner``, so a move it fails to give is replaced by a random legal one, as a host
replaces it). A remote agent is called exactly as a referee calls it (GAME_INVITATION,
GAME_MOVE_CALL per stage with the observation and action space, GAME_OVER; retries
announced with GAME_ERROR, faults as technical losses): the engine's remote seat
(``match_engine.remote``). Each episode's history is kept as the engine plays it
(``games.analysis.EpisodeRecorder``: every stage with what it paid). Episode ``i`` is seeded
``suite.seed + i``, so a seeded suite repeats. A suite with ``bias`` seats the opponent
under the episode's label (``league_cli.evaluation.bias``).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from games import load_game
from games.analysis import EpisodeRecorder, History
from league_cli.evaluation.bias import episode_label, with_real_ids
from league_cli.evaluation.suite import AgentSpec, Suite
from league_cli.evaluation.transcript import Transcript, episode_summary
from match_engine.match import Match
from match_engine.match_file import MatchFile
from match_engine.plan import MatchPlan
from match_engine.remote import RemotePlayers
from match_engine.rules import GameRules, load_rules
from match_engine.seats import Seat, StrategySeat
from sdk.client import RpcClient
from sdk.config import ScoringConfig, SharedDir, SystemConfig
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
    """A built-in agent's seed in an episode, as ``games.episode.play_stages`` seeds a
    player's generator, so an agent plays the same here as in the games library's episodes."""
    return f"{seed}/{player}"


class _Run:
    """What one run's episodes share: the rules, the log, and when an agent is remote the
    client and the transcript. The match records stay in memory: each episode's history is
    kept as it is played, and a remote one's transcript summary read from its record.

    A run of built-in agents only reads no SHARED folder: the rules come from the code
    (no agent reads games_registry.json) and the timeouts are the defaults."""

    def __init__(
        self, suite: Suite, shared: SharedDir | None, transcript: Transcript | None, parallel: int
    ):
        self.suite = suite
        self.outcomes: Counter[str] = Counter()
        self.started = time.perf_counter()
        self.transcript = transcript or Transcript(None, suite.name)
        self.client: RpcClient | None = None
        if suite.has_remote:
            shared = shared or SharedDir()
            self.rules = load_rules(shared, suite.game.type)
            self.system = shared.system()
        else:
            self.rules = GameRules(load_game(suite.game.type))
            self.system = SystemConfig(default_league_id=EVALUATION_LEAGUE)
        self.log = self.transcript.open()
        if suite.has_remote:
            self.log.log.info(
                "evaluation_started",
                suite=suite.name,
                game=suite.game.type,
                episodes=suite.episodes,
                seed=suite.seed,
                parallel=parallel,
                remote={a.id: a.endpoint for a in suite.agents if a.endpoint},
                transcript=self.transcript.mode,
                max_bytes=self.transcript.max_bytes,
            )
            self.client = RpcClient(self.system, self.log)

    def _plan(self, match_id: str, seed: int, ids: dict[str, str]) -> MatchPlan:
        suite = self.suite
        return MatchPlan(
            league_id=EVALUATION_LEAGUE,
            round_id=0,
            match_id=match_id,
            game_type=suite.game.type,
            seats=tuple(
                MatchSeat(
                    player_id=ids[agent.id],
                    contact_endpoint=agent.endpoint or f"http://in-process.invalid/{agent.id}",
                    role=seat_role(i),
                )
                for i, agent in enumerate(suite.agents)
            ),
            seed=seed,
            scoring=ScoringConfig(),
            game_params=dict(suite.game.params),
            communication=Communication(enabled=suite.game.communication),
        )

    def _seat(
        self,
        agent: AgentSpec,
        player_id: str,
        plan: MatchPlan,
        seed: int,
        remote: RemotePlayers | None,
    ) -> Seat:
        """A built-in agent's in-process seat, or a remote agent's seat over HTTP."""
        if agent.strategy is None:
            if remote is None:
                raise ValueError(f"agent {agent.id} is remote, but the run has no client")
            return remote.seat(player_id)
        own_seed = _local_seed(seed, player_id)
        return StrategySeat(
            Baseline(agent.strategy, seed=own_seed, **agent.options),
            plan=plan,
            rules=self.rules,
            player_id=player_id,
            log=self.log,
            fallback_seed=f"{own_seed}/fallback",
        )

    async def play(self, index: int, seed: int) -> Episode:
        suite = self.suite
        match_id = f"{suite.name}-{index:05d}"
        label = episode_label(suite.bias, index)
        ids = _seat_ids(suite, label)
        plan = self._plan(match_id, seed, ids)
        record = MatchFile(
            Path(f"{match_id}.json"),
            match_id=match_id,
            league_id=EVALUATION_LEAGUE,
            round_id=0,
            game_type=suite.game.type,
            referee_id="evaluation",
            conversation_id=plan.conversation_id,
            seats=list(plan.seats),
            report_status="not_required",
            in_memory=True,
        )
        remote = (
            None
            if self.client is None
            else RemotePlayers(
                plan,
                self.rules,
                client=self.client,
                system=self.system,
                log=self.log,
                record=record,
                sender=_SENDER,
            )
        )
        seats = {
            ids[agent.id]: self._seat(agent, ids[agent.id], plan, seed, remote)
            for agent in suite.agents
        }
        recorder = EpisodeRecorder()
        match = Match(
            plan, self.rules, seats, system=self.system, log=self.log, record=record, watch=recorder
        )
        outcome = await match.run()
        self.outcomes[outcome.status] += 1
        if remote is not None:
            summary = episode_summary(record.snapshot(), outcome)
            self.log.log.info("episode", episode=index, seed=seed, **summary)
        if outcome.technical_losers:
            return Episode(index, seed, None, f"{match_id}: {outcome.reason}", label)
        return Episode(index, seed, _real_ids(recorder.history(self.rules.spec), ids), label=label)

    async def close(self) -> None:
        if self.client is not None:
            self.log.log.info(
                "evaluation_finished",
                suite=self.suite.name,
                episodes=sum(self.outcomes.values()),
                outcomes=dict(self.outcomes),
                seconds=round(time.perf_counter() - self.started, 3),
            )
            await self.client.aclose()
        self.transcript.close()


async def play_episodes(
    suite: Suite,
    *,
    parallel: int,
    shared: SharedDir | None = None,
    transcript: Transcript | None = None,
    on_done: Callable[[Episode], None] | None = None,
) -> list[Episode]:
    """Every episode of ``suite``, at most ``parallel`` at a time, in episode order.

    Every episode is a match of the engine on this event loop: built-in agents' moves are
    computed on it (one core), remote ones are concurrent calls, recorded in ``transcript``
    (``league_cli.evaluation.transcript``; None: no transcript is written).

    Raises:
        ConfigError, UnknownGameError: a remote suite whose SHARED config cannot be read
            or does not list the game.
        FileSystemError: the transcript's file cannot be created.
    """
    gate = asyncio.Semaphore(parallel)
    run = _Run(suite, shared, transcript, parallel)

    async def one(index: int) -> Episode:
        async with gate:
            episode = await run.play(index, suite.seed + index)
        if on_done is not None:
            on_done(episode)
        return episode

    try:
        return list(await asyncio.gather(*(one(i) for i in range(suite.episodes))))
    finally:
        await run.close()
