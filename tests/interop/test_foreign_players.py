"""Our League Manager, our referee and one of our players with foreign players
(``foreign_player.py``, standard library only): one per way of speaking that published
student agents show, and one speaking every variation at once.

The styles play in four leagues of three or four players, each league played once, when a
test first needs it, its processes stopped as soon as it ends. A league test checks that
the league completed and that the standings agree with the match files; a style test checks
that its players spoke the variation, registered, received every message of the league by
the method names they serve, and lost no match by a technical loss."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from sdk.config import SharedDir
from tests.interop.harness import (
    LEAGUE,
    UTC_WHOLE_SECONDS,
    Agents,
    ForeignAgent,
    start_our_league,
)
from tests.match_files import match_files, recompute_standings

pytestmark = pytest.mark.e2e

VARIATIONS = (
    "message_type_methods",
    "bare_answers",
    "meta_only_registration",
    "string_ids",
    "error_null",
    "odd_acks",
    "fractional_timestamps",
    "extra_fields",
)
STYLES = {
    "spec": "spec",
    **{variation: variation for variation in VARIATIONS},
    "all": ",".join(VARIATIONS),
}
"""Test label -> the foreign player's --style ("all": every variation at once)."""
LEAGUES = {
    "spec": ("spec", "spec"),
    "names_and_ids": ("message_type_methods", "string_ids", "error_null"),
    "answers_and_registration": ("bare_answers", "meta_only_registration", "odd_acks"),
    "stamps_and_extras": ("fractional_timestamps", "extra_fields", "all"),
}
"""League -> the styles of its foreign players (one of our players joins each)."""
LEAGUE_OF = {label: league for league, labels in LEAGUES.items() for label in labels}
SPEC_METHOD = {
    "GAME_INVITATION": "handle_game_invitation",
    "CHOOSE_PARITY_CALL": "choose_parity",
    "GAME_OVER": "notify_match_result",
    "ROUND_ANNOUNCEMENT": "notify_round",
    "LEAGUE_STANDINGS_UPDATE": "update_standings",
    "ROUND_COMPLETED": "notify_round_completed",
    "LEAGUE_COMPLETED": "notify_league_completed",
}
"""The protocol's player method for each message type it carries."""


@dataclass
class Entrant:
    """A foreign player and what it heard back when it registered."""

    label: str
    agent: ForeignAgent
    registration: str
    player_id: str | None

    @property
    def styles(self) -> set[str]:
        return set(STYLES[self.label].split(","))

    def method_for(self, message_type: str) -> str:
        return message_type if "message_type_methods" in self.styles else SPEC_METHOD[message_type]


@dataclass
class LeagueRun:
    """What one league left: our League Manager's status, standings and schedule, the match
    files, our player's status and the foreign players' records."""

    shared: SharedDir
    status: dict[str, Any]
    standings: list[dict[str, Any]]
    schedule: dict[str, Any]
    matches: list[dict[str, Any]]
    our_player: dict[str, Any]
    entrants: list[Entrant]


def told_league_completed(client: httpx.Client, base_url: str, timeout: float = 10) -> Any:
    """The player's /status once it says SHUTDOWN, or as it stands after ``timeout``: the
    League Manager shows COMPLETED before its LEAGUE_COMPLETED broadcast has gone out."""
    deadline = time.monotonic() + timeout
    while (status := client.get(f"{base_url}/status").json())["state"] != "SHUTDOWN":
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return status


def play(root: Path, labels: tuple[str, ...]) -> LeagueRun:
    agents = Agents(root)
    try:
        manager = agents.our_manager()
        referee = agents.our_referee(manager.mcp_url)
        ours = agents.our_player(manager.mcp_url, "Ours")
        foreign = [
            (label, agents.foreign_player(manager.mcp_url, f"{label}{n}", STYLES[label]))
            for n, label in enumerate(labels, 1)
        ]
        for process in (referee, ours):
            agents.ours.wait_healthy(process)
        entrants = []
        for label, agent in foreign:
            outcome = agents.wait_registered(agent)
            entrants.append(Entrant(label, agent, outcome, agent.health()["player_id"]))
        accepted = sum(entrant.registration == "ACCEPTED" for entrant in entrants)
        status = start_our_league(agents, manager, referees=1, players=1 + accepted)
        with httpx.Client(timeout=10) as client:
            standings = client.get(f"{manager.base_url}/standings").json()["standings"]
            schedule = client.get(f"{manager.base_url}/schedule").json()
            our_player = told_league_completed(client, ours.base_url)
        return LeagueRun(
            agents.shared,
            status,
            standings,
            schedule,
            match_files(agents.shared, LEAGUE),
            our_player,
            entrants,
        )
    finally:
        agents.stop_all()


class Leagues:
    """Each league is played once, by the first test that asks for it."""

    def __init__(self, root: Path):
        self._root = root
        self._played: dict[str, LeagueRun | Exception] = {}

    def __getitem__(self, name: str) -> LeagueRun:
        if name not in self._played:
            try:
                self._played[name] = play(self._root / name, LEAGUES[name])
            except Exception as exc:
                self._played[name] = exc
                raise
        run = self._played[name]
        if isinstance(run, Exception):
            pytest.fail(f"the league {name!r} failed in an earlier test: {run}")
        return run


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> Leagues:
    return Leagues(Path(tmp_path_factory.mktemp("foreign_players")))


# -- what each style puts on the wire, read from the foreign player's own record ---------


def registration(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(record for record in records if record["direction"] == "sent")


def served(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The requests the player answered with a result."""
    return [
        record
        for record in records
        if record["direction"] == "received" and "result" in record["response"]
    ]


def answered(
    entrant: Entrant, records: list[dict[str, Any]], message_type: str, key: str
) -> list[Any]:
    """``key`` of each ``message_type`` the player answered, under its style's method name."""
    method = entrant.method_for(message_type)
    return sorted(record["params"][key] for record in served(records) if record["method"] == method)


def acks(records: list[dict[str, Any]]) -> list[Any]:
    return [
        record["response"]["result"]
        for record in served(records)
        if record["params"].get("message_type") not in ("GAME_INVITATION", "CHOOSE_PARITY_CALL")
    ]


def dict_answers(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r["response"]["result"]
        for r in served(records)
        if isinstance(r["response"]["result"], dict)
    ]


def stamps(records: list[dict[str, Any]]) -> list[str]:
    """Every timestamp the player sent: its registration's and its answers'."""
    messages = [registration(records)["params"], *dict_answers(records)]
    return [
        message[key]
        for message in messages
        for key in ("timestamp", "arrival_timestamp")
        if key in message
    ]


ON_THE_WIRE: dict[str, Callable[[list[dict[str, Any]]], bool]] = {
    "spec": lambda records: (
        registration(records)["method"] == "register_player"
        and bool(UTC_WHOLE_SECONDS.match(registration(records)["params"]["timestamp"]))
        and all("protocol" in answer for answer in dict_answers(records))
    ),
    "message_type_methods": lambda records: (
        registration(records)["method"] == "LEAGUE_REGISTER_REQUEST"
    ),
    "bare_answers": lambda records: (
        bool(dict_answers(records))
        and not any("protocol" in answer for answer in dict_answers(records))
    ),
    "meta_only_registration": lambda records: (
        "player_meta" in registration(records)["params"]
        and "protocol" not in registration(records)["params"]
    ),
    "string_ids": lambda records: isinstance(registration(records)["response"]["id"], str),
    "error_null": lambda records: (
        bool(served(records))
        and all(r["response"].get("error", "absent") is None for r in served(records))
    ),
    "odd_acks": lambda records: (
        {json.dumps(ack) for ack in acks(records)} >= {'{"status": "ok"}', "true", '"ack"'}
    ),
    "fractional_timestamps": lambda records: (
        bool(stamps(records))
        and all("." in stamp and stamp.endswith("+00:00") for stamp in stamps(records))
    ),
    "extra_fields": lambda records: "student_note" in registration(records)["params"],
}


# -- the tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", LEAGUES)
def test_a_league_with_foreign_players_completes(leagues: Leagues, name: str) -> None:
    run = leagues[name]
    assert run.status["state"] == "COMPLETED"
    assert run.status["matches_completed"] == run.status["total_matches"] == len(run.matches)
    recomputed = recompute_standings(run.shared, LEAGUE, run.matches)
    for row in run.standings:
        mine = recomputed[row["player_id"]]
        assert [row[key] for key in ("played", "wins", "draws", "losses", "points")] == [
            mine[key] for key in ("played", "wins", "draws", "losses", "points")
        ], f"{row['player_id']}: the standings disagree with the match files"
    assert all(match["report_status"] == "reported" for match in run.matches)
    losses = {
        match["match_id"]: match["result"]["report"]["details"]["reason"]
        for match in run.matches
        if match["result"]["report"]["details"]["technical_losers"]
    }
    assert not losses, f"technical losses in a league of tolerated variations: {losses}"
    assert run.our_player["state"] == "SHUTDOWN", "our player missed LEAGUE_COMPLETED"


@pytest.mark.parametrize("label", STYLES)
def test_a_foreign_player_takes_part(leagues: Leagues, label: str) -> None:
    run = leagues[LEAGUE_OF[label]]
    rounds = [round_["round_id"] for round_ in run.schedule["rounds"]]
    for entrant in (e for e in run.entrants if e.label == label):
        name, records = entrant.agent.name, entrant.agent.records()
        assert entrant.registration == "ACCEPTED", (
            f"{name} ({label}) was not registered: {entrant.registration}"
        )
        for style in entrant.styles:
            assert ON_THE_WIRE[style](records), (
                f"{name} did not speak {style}; its record: {entrant.agent.record}"
            )

        mine = {
            m["match_id"]
            for r in run.schedule["rounds"]
            for m in r["matches"]
            if entrant.player_id in (m["player_A_id"], m["player_B_id"])
        }
        assert len(mine) == len(run.schedule["players"]) - 1, f"{name}'s matches: {mine}"
        its_matches = [m for m in run.matches if m["match_id"] in mine]
        for match in its_matches:
            details = match["result"]["report"]["details"]
            assert entrant.player_id not in details["technical_losers"], (
                f"{name} ({label}): technical loss in {match['match_id']}: {details['reason']}"
            )
        # Moves are asked once both players have joined (an opponent may fail before).
        asked = {
            m["match_id"]
            for m in its_matches
            if "COLLECTING_CHOICES" in [entry["state"] for entry in m["lifecycle"]]
        }

        for message_type in ("ROUND_ANNOUNCEMENT", "LEAGUE_STANDINGS_UPDATE", "ROUND_COMPLETED"):
            assert answered(entrant, records, message_type, "round_id") == rounds, (
                f"{name} did not answer every round's {message_type}"
            )
        for message_type, expected in (
            ("GAME_INVITATION", mine),
            ("CHOOSE_PARITY_CALL", asked),
            ("GAME_OVER", mine),
        ):
            assert set(answered(entrant, records, message_type, "match_id")) == expected, (
                f"{name} did not answer {message_type} in each of {sorted(expected)}"
            )
        assert answered(entrant, records, "LEAGUE_COMPLETED", "league_id") == [LEAGUE], (
            f"{name} did not answer LEAGUE_COMPLETED once"
        )
