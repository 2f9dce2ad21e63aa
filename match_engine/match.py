"""The match engine: one game of ``games/`` between seats, from invitation to GAME_OVER.

Lifecycle: WAITING_FOR_PLAYERS (every seat invited at once) → the rules' collecting state
(COLLECTING_MOVES; COLLECTING_CHOICES for even/odd, then DRAWING_NUMBER before the rules
apply the choices) with each stage's acting seats asked at once, none seeing another's move
→ FINISHED: the result is settled (``settle``: a referee reports it to its League Manager),
then every seat is told. A fault skips ahead to FINISHED; a cancellation before the end
leaves ABORTED.

Settling comes first because the League Manager alone says whether a referee's run counts:
when it refuses the report because it gave the match to another referee since, the record is
superseded and the seats are told nothing, so no player records a result the league did not
count. Each seat turns its own failures into a ``Fault``: a technical loss, decided here by
the one outcome rule (``match_engine.outcome``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

from games import Action, GameState
from match_engine.match_file import MatchFile, MatchState
from match_engine.outcome import Fault, MatchOutcome, played_outcome, technical_outcome
from match_engine.plan import MatchPlan
from match_engine.rules import GameRules
from match_engine.seats import MoveCall, Seat, StrategySeat
from match_engine.talk import Talk
from sdk.agent_log import AgentLog
from sdk.config import SystemConfig
from sdk.messages import MatchResult, MoveData

__all__ = ["Match", "Settle", "Watch"]

Settle = Callable[[MatchResult], Awaitable[None]]
"""What happens to a decided result before the seats hear it (a referee's report); it
supersedes the record when the result does not count."""
Watch = Callable[[Mapping[str, Action] | None, GameState], None]
"""Shown the game as it is played: the state after the reset (moves None), then after each
stage with its joint move (``games.analysis.EpisodeRecorder`` keeps an evaluation's
episode so, with what each stage paid)."""


class Match:
    """Plays one match between its seats; the record it is given holds everything that
    happened, and ``state`` the game as played (None until the seats have joined)."""

    def __init__(
        self,
        plan: MatchPlan,
        rules: GameRules,
        seats: Mapping[str, Seat],
        *,
        system: SystemConfig,
        log: AgentLog,
        record: MatchFile,
        settle: Settle | None = None,
        watch: Watch | None = None,
    ):
        self._plan = plan
        self._rules = rules
        self._seats = {player: seats[player] for player in plan.player_ids}
        self._inline = {
            player: seat
            for player, seat in self._seats.items()
            if isinstance(seat, StrategySeat) and seat.answers_now
        }
        """The seats that answer on the spot (``_ask``), found once: a seat stays what it is."""
        self._timeout = system.timeout_for(rules.move_method)
        self._log = log
        self._record = record
        self._settle = settle
        self._watch = watch
        self.state: GameState | None = None

    async def run(self) -> MatchOutcome:
        """Play the match to its end; a cancellation or a failure is written down first."""
        try:
            return await self._play()
        except asyncio.CancelledError:
            await self._abort("the referee stopped before the match ended")
            raise
        except Exception:
            self._log.log.exception("match_failed", match_id=self._plan.match_id)
            await self._abort("the referee failed during the match; see its log")
            raise

    async def _play(self) -> MatchOutcome:
        plan = self._plan
        self._enter("WAITING_FOR_PLAYERS")
        invited = await asyncio.gather(*(seat.invite() for seat in self._seats.values()))
        faults = [fault for fault in invited if fault is not None]
        if faults:
            outcome = technical_outcome(plan.player_ids, dict.fromkeys(plan.player_ids), faults)
        else:
            outcome = await self._play_stages()
        result = outcome.match_result(plan.scoring)
        self._record.set_result(
            {
                "game_result": outcome.game_result().model_dump(mode="json"),
                "report": result.model_dump(mode="json"),
                "game_state": outcome.game_state,
            }
        )
        self._enter("FINISHED")
        self._log.log.info(
            "match_finished",
            match_id=plan.match_id,
            status=outcome.status,
            winner=outcome.winner,
            reason=outcome.reason,
        )
        await self._record.decided()  # durable before anyone is told
        if self._settle is not None:
            await self._settle(result)
        if self._record.report_status == "superseded":
            await self._record.save()
            return outcome
        faulty = set(outcome.technical_losers)
        await asyncio.gather(
            *(seat.announce(outcome, player in faulty) for player, seat in self._seats.items())
        )
        await self._record.save()  # the match file, once: the report's status, the GAME_OVERs
        return outcome

    async def _play_stages(self) -> MatchOutcome:
        """At each stage one call per acting seat (a simultaneous stage asks them all at
        once), until the game is over."""
        plan, shape = self._plan, self._rules.shape
        state = self.state = self._rules.spec.create(plan.player_ids, **plan.game_params)
        state.reset(plan.seed)
        if self._watch is not None:
            self._watch(None, state)
        self._enter(shape.collecting)
        talk = Talk(plan.communication)
        stage = 0
        while not state.is_terminal():
            stage += 1
            acting = state.acting_players()

            def call(player: str, stage: int = stage) -> MoveCall:
                return MoveCall(
                    stage=stage,
                    observation=state.observation(player),
                    space=state.action_space(player),
                    timeout=self._timeout,
                    messages=talk.unseen_by(player),
                )

            answers = await self._ask(acting, call)
            moves = {
                player: answer
                for player, answer in zip(acting, answers, strict=True)
                if isinstance(answer, MoveData)
            }
            faults = [answer for answer in answers if isinstance(answer, Fault)]
            if faults:
                shown = (
                    {p: str(m.move) for p, m in moves.items()} if shape.choices_in_result else {}
                )
                return technical_outcome(plan.player_ids, shown, faults)
            if shape.deciding is not None:
                self._enter(shape.deciding)
            joint = {player: move.move for player, move in moves.items()}
            state.step(joint)
            if self._watch is not None:
                self._watch(joint, state)
            said = talk.hear(stage, moves)
            for note in said["messages"]:
                self._log.log.info("player_message", match_id=plan.match_id, **note)
            if not shape.choices_in_result:
                self._record.stage(stage, joint, **said)
        return played_outcome(self._rules.spec, state)

    async def _ask(
        self, acting: Sequence[str], call: Callable[[str], MoveCall]
    ) -> list[MoveData | Fault]:
        """Each acting player's answer to its ``call``, in the order of ``acting``; the seats
        are asked at once. A strategy run inline in process answers on the spot, its call
        made just before and dropped just after: it never waits, so a task for it would cost
        more than its move (a built-in agent of ``league evaluate``), and one observation at
        a time stays in the cache (a repeated game's holds its whole history)."""
        inline = self._inline
        answers: dict[str, MoveData | Fault] = {
            player: inline[player].answer_now(call(player)) for player in acting if player in inline
        }
        later = {player: call(player) for player in acting if player not in answers}
        if later:
            asked = await asyncio.gather(*(self._seats[p].ask(c) for p, c in later.items()))
            answers.update(zip(later, asked, strict=True))
        return [answers[player] for player in acting]

    # -- lifecycle ------------------------------------------------------------------

    def _enter(self, state: MatchState) -> None:
        self._record.enter(state)
        self._log.log.info("match_state", match_id=self._plan.match_id, state=state)

    async def _abort(self, detail: str) -> None:
        """A finished match keeps its result (unreported); an unfinished one is ABORTED;
        a run replaced by a newer assignment is superseded. The record is saved even if
        the match is cancelled again meanwhile, as a write on the event loop would have
        been: the cancellation is raised once the file holds it."""
        record = self._record
        if record.replacement is not None:
            self._log.log.warning(
                "match_superseded",
                match_id=self._plan.match_id,
                assignment=self._plan.assignment,
                reason=f"replaced by assignment {record.replacement}",
            )
            if record.state != "FINISHED":
                record.enter("ABORTED")
            record.supersede(f"replaced on this referee by assignment {record.replacement}")
        else:
            self._log.log.warning("match_aborted", match_id=self._plan.match_id, reason=detail)
            if record.state != "FINISHED":
                record.set_report_status("aborted", detail)
                self._enter("ABORTED")
            elif record.report_status == "pending":
                record.set_report_status("unreported", detail)
        saving = asyncio.ensure_future(record.save())
        cancelled = False
        while not saving.done():
            try:
                await asyncio.shield(saving)
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError
        saving.result()
