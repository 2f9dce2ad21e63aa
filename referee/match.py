"""The match runner: one match from invitation to result report.

Lifecycle: WAITING_FOR_PLAYERS (GAME_INVITATION → GAME_JOIN_ACK, all players at once) →
for even/odd COLLECTING_CHOICES (CHOOSE_PARITY_CALL, both at once, neither sees the other's
choice) → DRAWING_NUMBER (the rules draw with the match's seed); for any other game
COLLECTING_MOVES (GAME_MOVE_CALL per acting player per stage) → FINISHED
(MATCH_RESULT_REPORT to the League Manager, then GAME_OVER to every player). A fault skips
ahead to FINISHED; a shutdown before the end leaves ABORTED.

The League Manager hears the result first because it alone says whether this run counts:
when it refuses the report because it gave the match to another referee since (this one
was paused or cut off past its patience), the run is superseded and its players are told
nothing, so no player records a result the league did not count. A League Manager that
cannot be reached cannot say so: then the players are told. Timeouts and connection errors are
retried by the SDK client, each retry announced to the player with GAME_ERROR; any other
bad answer (invalid message, wrong ids, an error answer, an illegal move) is a technical
loss at once.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from games import GameState
from referee.channel import MatchChannel
from referee.match_file import MatchRecord, MatchState
from referee.outcome import Fault, MatchOutcome, played_outcome, technical_outcome
from referee.plan import LeagueReport, MatchPlan
from referee.player_calls import PlayerCalls
from referee.rules import GameRules
from referee.talk import Talk
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import SystemConfig
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.messages import (
    MOVE_METHOD,
    PARITY_METHOD,
    ChooseParityCall,
    ChooseParityResponse,
    GameInvitation,
    GameJoinAck,
    GameMoveCall,
    GameMoveResponse,
    GameOver,
    MatchResult,
    MatchResultReport,
    MatchSeat,
    MoveData,
    MoveRequest,
    ParityContext,
)
from sdk.timeutil import utc_now

__all__ = ["LEAGUE_MANAGER_PEER", "MatchRunner"]

LEAGUE_MANAGER_PEER = "league_manager"
INVITATION_METHOD = "handle_game_invitation"
GAME_OVER_METHOD = "notify_match_result"
REPORT_METHOD = "report_match_result"


class MatchRunner:
    """Runs one match; the record it is given holds everything that happened.

    ``invite``, ``ask_parity`` (even/odd) or ``ask_move`` (every other game) and
    ``announce`` are each seat's exchanges; a subclass may play a seat another way by
    overriding them (``league evaluate`` plays built-in agents in process so, beside remote
    ones, and ``league play`` a person at the terminal)."""

    def __init__(
        self,
        plan: MatchPlan,
        rules: GameRules,
        *,
        client: RpcClient,
        system: SystemConfig,
        log: AgentLog,
        record: MatchRecord,
        sender: str,
        report_to: LeagueReport | None,
    ):
        self._plan = plan
        self._rules = rules
        self._system = system
        self._log = log
        self._record = record
        self._report_to = report_to
        self._channel = MatchChannel(plan, client=client, record=record, log=log, sender=sender)
        self._calls = PlayerCalls(
            plan,
            self._channel,
            record=record,
            log=log,
            system=system,
            max_retries=client.retry_policy.max_retries,
        )

    async def run(self) -> MatchOutcome:
        """Play the match to its end; a cancellation or a failure is written down first."""
        try:
            return await self._play()
        except asyncio.CancelledError:
            self._abort("the referee stopped before the match ended")
            raise
        except Exception:
            self._log.log.exception("match_failed", match_id=self._plan.match_id)
            self._abort("the referee failed during the match; see its log")
            raise

    async def _play(self) -> MatchOutcome:
        plan = self._plan
        self._enter("WAITING_FOR_PLAYERS")
        invited = await asyncio.gather(*(self.invite(seat) for seat in plan.seats))
        faults = [fault for fault in invited if fault is not None]
        if faults:
            outcome = technical_outcome(plan.player_ids, dict.fromkeys(plan.player_ids), faults)
        elif self._rules.move_method == PARITY_METHOD:
            outcome = await self._play_parity()
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
        await self._report(result)
        if self._record.report_status == "superseded":
            return outcome
        faulty = set(outcome.technical_losers)
        await asyncio.gather(
            *(self.announce(seat, outcome, seat.player_id in faulty) for seat in plan.seats)
        )
        self._record.save()  # the report's status with the GAME_OVERs, one write
        return outcome

    async def _play_parity(self) -> MatchOutcome:
        """Even/odd as the protocol has it: CHOOSE_PARITY_CALL to both, then the draw."""
        plan = self._plan
        seat_a, seat_b = plan.seats
        self._enter("COLLECTING_CHOICES")
        answers = await asyncio.gather(
            self.ask_parity(seat_a, seat_b), self.ask_parity(seat_b, seat_a)
        )
        choices: dict[str, str | None] = dict.fromkeys(plan.player_ids)
        faults = []
        for seat, answer in zip(plan.seats, answers, strict=True):
            if isinstance(answer, Fault):
                faults.append(answer)
            else:
                choices[seat.player_id] = answer
        if faults:
            return technical_outcome(plan.player_ids, choices, faults)
        self._enter("DRAWING_NUMBER")
        state = self._rules.spec.create(plan.player_ids, **plan.game_params)
        state.reset(plan.seed)
        state.step({player: str(choice) for player, choice in choices.items()})
        return played_outcome(state)

    async def _play_stages(self) -> MatchOutcome:
        """Any other game: at each stage one GAME_MOVE_CALL per acting player (a
        simultaneous stage asks them all at once), every move checked against that
        player's action space, until the game is over."""
        plan = self._plan
        state = self._rules.spec.create(plan.player_ids, **plan.game_params)
        state.reset(plan.seed)
        self._enter("COLLECTING_MOVES")
        seats = {seat.player_id: seat for seat in plan.seats}
        talk = Talk(plan.communication)
        stage = 0
        while not state.is_terminal():
            stage += 1
            acting = state.acting_players()
            answers = await asyncio.gather(
                *(
                    self.ask_move(seats[player], state, stage, talk.unseen_by(player))
                    for player in acting
                )
            )
            faults = [answer for answer in answers if isinstance(answer, Fault)]
            if faults:
                return technical_outcome(plan.player_ids, dict.fromkeys(plan.player_ids), faults)
            moves = [answer for answer in answers if not isinstance(answer, Fault)]
            joint = {player: move.move for player, move in zip(acting, moves, strict=True)}
            state.step(joint)
            said = talk.hear(stage, dict(zip(acting, moves, strict=True)))
            for note in said["messages"]:
                self._log.log.info("player_message", match_id=plan.match_id, **note)
            self._record.stage(stage, joint, **said)
        return played_outcome(state)

    # -- the two calls a player answers ---------------------------------------------

    async def invite(self, seat: MatchSeat) -> Fault | None:
        """GAME_INVITATION; a refusal or a failure is this seat's fault."""
        opponents = [other.player_id for other in self._plan.seats if other is not seat]

        def build() -> GameInvitation:
            return GameInvitation(
                **self._channel.envelope(seat.player_id),
                game_type=self._plan.game_type,
                role_in_match=seat.role,
                opponent_id=opponents[0],
                assignment=self._plan.assignment,
                opponent_ids=opponents if len(opponents) > 1 else None,
            )

        answer = await self._calls.call(seat, INVITATION_METHOD, build, GameJoinAck)
        if isinstance(answer, Fault):
            return answer
        if not answer.accept:
            self._log.log.warning(
                "invitation_refused", match_id=self._plan.match_id, player_id=seat.player_id
            )
            return Fault(seat.player_id, INVITATION_METHOD, "REFUSED", "refused the invitation")
        return None

    async def ask_parity(self, seat: MatchSeat, opponent: MatchSeat) -> str | Fault:
        plan, method = self._plan, self._rules.move_method
        timeout = self._system.timeout_for(method)

        def build() -> ChooseParityCall:
            context = ParityContext(
                opponent_id=opponent.player_id,
                round_id=plan.round_id,
                your_standings=seat.standings,
            )
            return ChooseParityCall(
                **self._channel.envelope(seat.player_id),
                player_id=seat.player_id,
                game_type=plan.game_type,
                context=context,
                deadline=utc_now() + timedelta(seconds=timeout),
            )

        answer = await self._calls.call(seat, method, build, ChooseParityResponse)
        return answer if isinstance(answer, Fault) else answer.parity_choice

    async def ask_move(
        self, seat: MatchSeat, state: GameState, stage: int, messages: list[dict[str, Any]]
    ) -> MoveData | Fault:
        """One player's move of one stage: its observation, action space and the others'
        new messages out, a move in that space back (E007 and a technical loss otherwise)."""
        plan, player = self._plan, seat.player_id
        space = state.action_space(player)
        timeout = self._system.timeout_for(MOVE_METHOD)

        def build() -> GameMoveCall:
            options = list(space.choices) if space.kind == "choice" else [space.describe()]
            request = MoveRequest(
                move_type=self._rules.spec.move_types[0],
                valid_options=options,
                context={
                    "stage": stage,
                    "round_id": plan.round_id,
                    "action_space": space.describe(),
                    "observation": state.observation(player),
                    **({"messages": messages} if plan.communication.enabled else {}),
                },
            )
            return GameMoveCall(
                **self._channel.envelope(player),
                player_id=player,
                game_type=plan.game_type,
                move_request=request,
                deadline=utc_now() + timedelta(seconds=timeout),
            )

        answer = await self._calls.call(seat, MOVE_METHOD, build, GameMoveResponse)
        if isinstance(answer, Fault):
            return answer
        move = answer.move_data.move
        if not space.contains(move):
            return await self._calls.fault(
                seat,
                MOVE_METHOD,
                ErrorCode.INVALID_MOVE.value,
                f"{move!r} is not a legal move at stage {stage}: {space.describe()}",
                0,
            )
        return answer.move_data

    # -- GAME_OVER, report --------------------------------------------------------

    async def announce(self, seat: MatchSeat, outcome: MatchOutcome, faulty: bool) -> None:
        """GAME_OVER, best effort: missing it changes no result. One attempt for a player
        already at fault, the retry policy for the others."""

        def build() -> GameOver:
            return GameOver(
                **self._channel.envelope(seat.player_id),
                game_type=self._plan.game_type,
                game_result=outcome.game_result(),
            )

        await self._channel.notify(
            seat.player_id,
            seat.contact_endpoint,
            GAME_OVER_METHOD,
            build,
            retries=0 if faulty else None,
        )

    async def _report(self, result: MatchResult) -> None:
        """MATCH_RESULT_REPORT with retries; a result the League Manager never took stays in
        the match file as unreported (or rejected), and the log says so."""
        plan, target = self._plan, self._report_to
        if target is None:
            self._record.set_report_status("not_required", save=False)
            return

        def build() -> MatchResultReport:
            return MatchResultReport(
                **self._channel.envelope(),
                auth_token=target.auth_token,
                game_type=plan.game_type,
                result=result,
                assignment=plan.assignment,
            )

        try:
            await self._channel.exchange(LEAGUE_MANAGER_PEER, target.endpoint, REPORT_METHOD, build)
        except TransportError as exc:
            self._record.set_report_status("unreported", exc.description, save=False)
            self._log.log.error(
                "result_unreported",
                match_id=plan.match_id,
                error_code=exc.code.value,
                reason=exc.description,
                match_file=str(self._record.path),
            )
        except RemoteError as exc:
            detail = f"{exc.code}: {exc.description}"
            if exc.code == ErrorCode.NOT_AUTHORIZED.value:  # the match is another's now
                self._record.supersede(detail)
                self._log.log.warning(
                    "match_superseded",
                    match_id=plan.match_id,
                    assignment=plan.assignment,
                    reason=exc.description,
                )
                return
            self._record.set_report_status("rejected", detail, save=False)
            self._log.log.error(
                "result_rejected",
                match_id=plan.match_id,
                error_code=exc.code,
                reason=exc.description,
                match_file=str(self._record.path),
            )
        else:
            self._record.set_report_status("reported", save=False)

    # -- lifecycle ------------------------------------------------------------------

    def _enter(self, state: MatchState) -> None:
        self._record.enter(state)
        self._log.log.info("match_state", match_id=self._plan.match_id, state=state)

    def _abort(self, detail: str) -> None:
        """A finished match keeps its result (unreported); an unfinished one is ABORTED;
        a run replaced by a newer assignment is superseded."""
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
            return
        self._log.log.warning("match_aborted", match_id=self._plan.match_id, reason=detail)
        if self._record.state != "FINISHED":
            self._record.set_report_status("aborted", detail)
            self._enter("ABORTED")
        elif self._record.report_status == "pending":
            self._record.set_report_status("unreported", detail)
        else:  # stopped while telling the players: the report's status is not saved yet
            self._record.save()
