"""A referee paused (SIGSTOP) in the middle of a match past the League Manager's patience,
then let go on (SIGCONT): the match is counted once, and the journal, the standings, the
match files and the players' histories agree.

Every agent runs behind a tap (``wiretap.py``); a rule on one tap pauses the referee at
the chosen moment of its first match, exactly there:

- ``before_moves``: its players have just accepted the invitation;
- ``between_moves``: the second stage of the repeated game is being asked;
- ``before_report``: its report is on the way (the tap loses it, as the pause would);
- ``after_report``: the League Manager's answer to its report is on the way;
- ``after_game_over``: a player's answer to its GAME_OVER is on the way.

Paused before its report, the referee loses the match: the League Manager gives it to the
other referee, refuses the late report as superseded, and the paused referee tells its
players nothing. Paused after its report, it keeps the match it decided.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess, Launcher
from league_cli.up import wait_for
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir
from tests.reliability.wiretap import Exchange, Tap, Wiretaps, running_taps

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_prisoners_dilemma"
STAGES = 3
PLAYERS = ("Ann", "Ben", "Cy")
REFEREES = ("Ref1", "Ref2")
MATCH_TIMEOUT_SEC = 4
LOSES_THE_MATCH = ("before_moves", "between_moves", "before_report")
KEEPS_THE_MATCH = ("after_report", "after_game_over")


@dataclass
class Pause:
    """Pauses the referee that sends the first message the rule picks, once."""

    moment: str
    pids: dict[str, int] = field(default_factory=dict)
    """Each referee's sender id (``referee:REF01``) and its process id."""
    paused: threading.Event = field(default_factory=threading.Event)
    sender: str | None = None
    match_id: str | None = None

    def _pause(self, exchange: Exchange) -> None:
        params = exchange.rpc().get("params") or {}
        self.sender, self.match_id = params["sender"], params["match_id"]
        os.kill(self.pids[self.sender], signal.SIGSTOP)
        self.paused.set()

    def _wanted(self, exchange: Exchange, method: str) -> bool:
        return (
            not self.paused.is_set()
            and exchange.rpc().get("method") == method
            and str((exchange.rpc().get("params") or {}).get("sender")) in self.pids
        )

    def on_player_answer(self, exchange: Exchange) -> bool:
        params = exchange.rpc().get("params") or {}
        stage = (params.get("move_request") or {}).get("context", {}).get("stage")
        if (
            self.moment == "before_moves"
            and self._wanted(exchange, "handle_game_invitation")
            or self.moment == "between_moves"
            and self._wanted(exchange, "make_move")
            and stage == 2
            or self.moment == "after_game_over"
            and self._wanted(exchange, "notify_match_result")
        ):
            self._pause(exchange)
        return False

    def on_report(self, exchange: Exchange) -> bool:
        """Before the report the request is lost with the pause; after it, the answer is
        held by the paused referee's socket."""
        if self._wanted(exchange, "report_match_result") and (
            (exchange.answer is None) == (self.moment == "before_report")
        ):
            self._pause(exchange)
            return self.moment == "before_report"
        return False


@dataclass
class FencedLeague:
    shared: SharedDir
    pause: Pause
    exchanges: list[Exchange]
    results: list[dict[str, Any]]
    standings: dict[str, Any]
    histories: dict[str, dict[str, Any]]
    referee_ids: dict[str, str]
    """Each referee's display name and id."""


def _configure(shared: SharedDir) -> None:
    """A short repeated game, and a League Manager that gives up on a silent referee in
    seconds (the pause outlasts that either way)."""
    path = shared.config_dir / "leagues" / f"{LEAGUE}.json"
    config = json.loads(path.read_text())
    config["game_params"] = {**config["game_params"], "rounds": STAGES}
    path.write_text(json.dumps({**config, "match_timeout_sec": MATCH_TIMEOUT_SEC}))
    path = shared.config_dir / "system.json"
    system = json.loads(path.read_text())
    system["timeouts_sec"].update(start_match=2, notify_league_completed=2)
    system["retry_policy"].update(max_retries=1, backoff_sec=0.5)
    path.write_text(json.dumps(system))


def _play(root: Path, moment: str) -> FencedLeague:
    shared = make_shared_dir(root / "SHARED")
    _configure(shared)
    launcher = Launcher(shared.root)
    pause = Pause(moment)
    with running_taps() as taps, httpx.Client(timeout=10) as client:
        try:
            lm = _start(launcher, taps, pause, client)
            referees = {
                r["display_name"]: r["agent_id"]
                for r in client.get(f"{lm.base_url}/status").json()["referees"]
            }
            processes = {p.name: p for p in launcher.processes}
            pause.pids.update(
                {
                    f"referee:{referees[name]}": processes[f"referee-{name}"].popen.pid
                    for name in REFEREES
                }
            )
            admin = {
                "Authorization": "Bearer " + shared.admin_token_path(LEAGUE).read_text().strip()
            }
            assert client.post(f"{lm.base_url}/start_league", headers=admin).status_code == 200
            assert pause.paused.wait(30), f"no referee reached the moment {moment}"
            _wait_while_paused(client, lm, pause, admin)
            os.kill(pause.pids[str(pause.sender)], signal.SIGCONT)
            wait_for(
                lambda: client.get(f"{lm.base_url}/status").json()["state"] == "COMPLETED",
                60,
                "the league to complete",
            )
            paused = processes[f"referee-{_name_of(referees, pause.sender)}"]
            wait_for(
                lambda: not _running(client, paused),
                30,
                "the paused referee to finish what it still runs",
            )
            results = client.get(f"{lm.base_url}/admin/export/results.json", headers=admin).json()[
                "results"
            ]
            standings = client.get(f"{lm.base_url}/standings").json()
            histories = {
                p.name: client.get(f"{p.base_url}/history").json()
                for p in launcher.processes
                if p.kind == "player"
            }
        finally:
            for pid in pause.pids.values():  # never leave a stopped process behind
                os.kill(pid, signal.SIGCONT)
            launcher.stop_all()
        return FencedLeague(
            shared, pause, taps.exchanges(), results, standings, histories, referees
        )


def _start(launcher: Launcher, taps: Wiretaps, pause: Pause, client: httpx.Client) -> Tap:
    manager_port = free_port()
    lm = taps.tap(
        "league_manager", manager_port, on_request=pause.on_report, on_answer=pause.on_report
    )
    launcher.wait_healthy(launcher.manager(manager_port, LEAGUE))
    agents: list[AgentProcess] = []
    for name in REFEREES:
        port = free_port()
        agents.append(
            launcher.referee(
                name,
                port,
                lm.url,
                max_concurrent=2,
                game_type="prisoners_dilemma",
                advertise=taps.tap(f"referee:{name}", port).url,
            )
        )
    for name in PLAYERS:
        port = free_port()
        agents.append(
            launcher.player(
                name,
                port,
                lm.url,
                game_type="prisoners_dilemma",
                advertise=taps.tap(f"player:{name}", port, on_answer=pause.on_player_answer).url,
            )
        )
    for agent in agents:
        launcher.wait_healthy(agent)

    def registered() -> bool:
        status = client.get(f"{lm.base_url}/status").json()
        return len(status["referees"]) == len(REFEREES) and len(status["players"]) == len(PLAYERS)

    wait_for(registered, 30, "every agent to register")
    return lm


def _wait_while_paused(client: httpx.Client, lm: Tap, pause: Pause, admin: dict[str, str]) -> None:
    """Keep the referee paused past the League Manager's patience: until the match is
    recorded (another referee played it, or the paused one had reported it) and the
    League Manager has given up on the paused referee, or the league has ended."""
    referee_id = str(pause.sender).split(":", 1)[1]

    def given_up() -> bool:
        status = client.get(f"{lm.base_url}/status").json()
        recorded = {
            r["match_id"]: r
            for r in client.get(f"{lm.base_url}/admin/export/results.json", headers=admin).json()[
                "results"
            ]
        }
        state = next(r["state"] for r in status["referees"] if r["agent_id"] == referee_id)
        return pause.match_id in recorded and (
            state == "SUSPENDED" or status["state"] == "COMPLETED"
        )

    wait_for(
        given_up,
        60,
        "the League Manager to record the match and give up on the paused referee",
        interval=0.2,
    )


def _running(client: httpx.Client, referee: AgentProcess) -> list[str]:
    running: list[str] = client.get(f"{referee.base_url}/status").json()["running_matches"]
    return running


def _name_of(referees: dict[str, str], sender: str | None) -> str:
    return next(name for name, agent_id in referees.items() if f"referee:{agent_id}" == sender)


@pytest.fixture(scope="module", params=LOSES_THE_MATCH + KEEPS_THE_MATCH)
def league(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FencedLeague]:
    yield _play(tmp_path_factory.mktemp(request.param), request.param)


def test_each_match_is_counted_once(league: FencedLeague) -> None:
    ids = [result["match_id"] for result in league.results]
    assert len(ids) == len(set(ids)) == len(PLAYERS) * (len(PLAYERS) - 1) // 2
    paused = league.pause
    decided = next(r for r in league.results if r["match_id"] == paused.match_id)
    kept = paused.moment in KEEPS_THE_MATCH
    assert (f"referee:{decided['referee_id']}" == paused.sender) is kept
    assert not [r for r in league.results if r["forfeit"]]


def test_the_match_files_agree_with_the_journal(league: FencedLeague) -> None:
    folder = league.shared.data_dir / "matches" / LEAGUE
    for result in league.results:
        match = json.loads((folder / f"{result['match_id']}.json").read_text())
        assert match["referee_id"] == result["referee_id"], result["match_id"]
        assert match["report_status"] == "reported"
        assert match["result"]["report"]["winner"] == result["winner"]
        assert isinstance(match["assignment"], int)
    superseded = _superseded(league)
    assert all(
        f"referee:{record['referee_id']}" == league.pause.sender
        and record["report_status"] == "superseded"
        for record in superseded
    )
    assert (league.pause.match_id in {r["match_id"] for r in superseded}) is (
        league.pause.moment in LOSES_THE_MATCH
    )


def _superseded(league: FencedLeague) -> list[dict[str, Any]]:
    """The records of runs the League Manager did not count: the paused referee's run of
    its match, when it lost it, and of any match it was handed just before its pause and
    started on waking (the League Manager had given those to the other referee since)."""
    folder = league.shared.data_dir / "matches" / LEAGUE / "superseded"
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]


def test_the_standings_agree_with_the_journal(league: FencedLeague) -> None:
    points: dict[str, float] = {}
    for result in league.results:
        for player_id, earned in result["points"].items():
            points[player_id] = points.get(player_id, 0) + earned
    assert {row["player_id"]: row["points"] for row in league.standings["standings"]} == points


def test_the_players_histories_agree_with_the_journal(league: FencedLeague) -> None:
    for history in league.histories.values():
        player_id = history["player_id"]
        journal = {
            r["match_id"]: r["outcomes"][player_id]
            for r in league.results
            if player_id in r["outcomes"]
        }
        recorded = {m["match_id"]: m["outcome"] for m in history["matches"]}
        assert recorded == journal, player_id


def _told(league: FencedLeague, match_id: str, sender: str) -> list[Exchange]:
    """The GAME_OVERs ``sender`` sent of ``match_id``."""
    return [
        e
        for e in league.exchanges
        if e.rpc().get("method") == "notify_match_result"
        and e.rpc()["params"].get("match_id") == match_id
        and e.rpc()["params"].get("sender") == sender
    ]


def test_a_superseded_referee_tells_its_players_nothing(league: FencedLeague) -> None:
    paused = league.pause
    for record in _superseded(league):
        match_id = record["match_id"]
        assert _told(league, match_id, str(paused.sender)) == [], match_id
        refused = [
            e
            for e in league.exchanges
            if e.agent == "league_manager"
            and e.rpc().get("method") == "report_match_result"
            and e.rpc()["params"].get("sender") == paused.sender
            and e.rpc()["params"].get("match_id") == match_id
            and not e.dropped
        ]
        assert refused and all(e.result().get("error_code") == "E014" for e in refused)
        assert "superseded" in refused[-1].result()["error_description"]
    if paused.moment in KEEPS_THE_MATCH:
        told = _told(league, str(paused.match_id), str(paused.sender))
        assert len(told) == 2 and all(e.status == 200 for e in told)
