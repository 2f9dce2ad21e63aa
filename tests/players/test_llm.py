"""The ``llm`` strategy in-process against the local chat server (``llm_server.py``, in a
thread on loopback): parsing, clarification, fallback, deadline, conversations, token
accounting, options, every game's prompt, and the host's ``/stats``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from games import ActionSpace, load_game, registered_games
from sdk.timeutil import utc_now
from strategies import MoveView, Say, build_strategy
from strategies.errors import StrategyError
from strategies.llm import LlmStrategy, careful_move, default_move, parse_move
from tests.conftest import free_port
from tests.players.conftest import LEAGUE, SettingsFactory, move_call, serving
from tests.strategies import llm_server

PD_SPACE = ActionSpace.of_choices(["C", "D"])
BID = ActionSpace.number(0, 100, integer=True)
TROOPS = ActionSpace.allocation(3, 10)


@pytest.fixture(scope="module")
def server() -> Iterator[llm_server.LlmServer]:
    running, thread = llm_server.start_in_thread(free_port())
    yield running
    running.shutdown()
    running.server_close()
    thread.join(5)


@pytest.fixture(autouse=True)
def no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own LEAGUE_LLM_* or OPENAI_API_KEY never reach these tests."""
    for name in (
        "BASE_URL",
        "MODEL",
        "API_KEY",
        "TEMPERATURE",
        "MAX_TOKENS",
        "DEFAULT_MOVE",
        "SAFETY_MARGIN_SEC",
        "PROMPT_DIR",
    ):
        monkeypatch.delenv(f"LEAGUE_LLM_{name}", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def base_url(server: llm_server.LlmServer, behaviour: str, tag: str = "T") -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/{behaviour}/{tag}/v1"


def llm(
    server: llm_server.LlmServer, behaviour: str, tag: str = "T", **options: Any
) -> LlmStrategy:
    strategy = build_strategy(
        "llm", {"base_url": base_url(server, behaviour, tag), "model": "scripted-1", **options}
    )
    assert isinstance(strategy, LlmStrategy)
    return strategy


def view(
    space: ActionSpace = PD_SPACE,
    match_id: str = "M1",
    deadline_in: float = 20.0,
    observation: dict[str, Any] | None = None,
    game_type: str = "prisoners_dilemma",
    player_id: str = "P01",
) -> MoveView:
    return MoveView(
        game_type=game_type,
        match_id=match_id,
        league_id=LEAGUE,
        player_id=player_id,
        opponent_id="P02",
        role="PLAYER_A",
        legal_moves=tuple(space.choices),
        action_space=space.describe(),
        observation=observation or {"round": 1, "history": []},
        deadline=utc_now() + timedelta(seconds=deadline_in),
    )


def requests_of(server: llm_server.LlmServer, tag: str) -> list[dict[str, Any]]:
    with server.lock:
        return [r for r in server.requests if r["tag"] == tag]


@pytest.mark.parametrize(
    ("text", "space", "move"),
    [
        ('{"move": "C"}', PD_SPACE, "C"),
        ('```json\n{"move": "D"}\n```', PD_SPACE, "D"),
        ("d", PD_SPACE, "D"),
        ('"C"', PD_SPACE, "C"),
        ("I cooperate: C", PD_SPACE, "C"),
        ("C or D, hard to say", PD_SPACE, None),
        ("banana", PD_SPACE, None),
        ('{"bid": 42}', BID, 42),
        ("I bid 42.0", BID, 42),
        ("42.5", BID, None),
        ("101", BID, None),
        ("[3, 3, 4]", TROOPS, [3, 3, 4]),
        ('Sure: {"move": [5, 5, 0]}', TROOPS, [5, 5, 0]),
        ("[5, 5, 5]", TROOPS, None),
    ],
)
def test_parse_move_reads_json_and_bare_answers(text: str, space: ActionSpace, move: Any) -> None:
    assert parse_move(text, space) == move, f"{text!r} in {space.describe()}"


def _bargaining(**seen: Any) -> dict[str, Any]:
    return {"pie": 100, "discount": 0.95, "round": 1, "private": {"reservation_value": 25}, **seen}


ACCEPT_REJECT = ActionSpace.of_choices(["accept", "reject"])
OFFER = ActionSpace.number(0, 100, integer=True)


@pytest.mark.parametrize(
    ("game_type", "observation", "space", "move"),
    [
        ("bargaining", _bargaining(offer=20), ACCEPT_REJECT, "reject"),
        ("bargaining", _bargaining(offer=25), ACCEPT_REJECT, "accept"),
        ("bargaining", _bargaining(offer=27, round=3), ACCEPT_REJECT, "reject"),  # 24.4 < 25
        (
            "bargaining",
            _bargaining(offer=0, private={"reservation_value": 0}),
            ACCEPT_REJECT,
            "reject",
        ),
        ("bargaining", _bargaining(), OFFER, 50),
        ("bargaining", _bargaining(private={"reservation_value": 70}), OFFER, 30),
        ("ultimatum", {"pie": 10, "offer": 0}, ACCEPT_REJECT, "reject"),
        ("ultimatum", {"pie": 10, "offer": 1}, ACCEPT_REJECT, "accept"),
        ("ultimatum", {"pie": 10}, ActionSpace.number(0, 10, integer=True), 5),
        ("auction_second_price", {"private": {"value": 40}}, BID, 40),
        ("auction_first_price", {"private": {"value": 41}}, BID, 20),
        ("tic_tac_toe", {}, ActionSpace.of_choices(["0", "4", "8"]), "4"),
        ("tic_tac_toe", {}, ActionSpace.of_choices(["1", "2", "7"]), "2"),
        ("public_goods", {"stage": "punishment", "seat": 1}, TROOPS, [0, 10, 0]),
        ("public_goods", {"stage": "contribution"}, ActionSpace.number(0, 20, integer=True), 0),
        ("colonel_blotto", {}, TROOPS, [4, 3, 3]),
        ("even_odd", {}, ActionSpace.of_choices(["even", "odd"]), "even"),
        ("bargaining", {"offer": "not a number"}, ACCEPT_REJECT, "accept"),  # no more to go on
    ],
)
def test_the_default_move_is_what_a_careful_player_would_play(
    game_type: str, observation: dict[str, Any], space: ActionSpace, move: Any
) -> None:
    assert careful_move(game_type, observation, space) == move
    assert default_move(space, game_type=game_type, observation=observation) == move


@pytest.mark.parametrize(
    ("game_type", "move"),
    [("prisoners_dilemma", "D"), ("stag_hunt", "hare"), ("chicken", "swerve")],
)
def test_the_default_in_a_matrix_game_is_the_move_whose_worst_case_is_best(
    game_type: str, move: str
) -> None:
    state = load_game(game_type).create(["P01", "P02"])
    observation = state.observation("P01")
    assert careful_move(game_type, observation, state.action_space("P01")) == move


def test_a_failing_model_never_accepts_a_lowball_offer(server: llm_server.LlmServer) -> None:
    """The greedy opponent offers 5 of 100; the model answers HTTP 500: the default is
    to reject (the player's reservation value is 25), not to accept."""
    strategy = llm(server, "error500", "lowball")
    seen = _bargaining(offer=5, stage="response")
    answer = strategy.choose(view(space=ACCEPT_REJECT, observation=seen, game_type="bargaining"))
    assert answer == Say("reject", fallback="http_error")


def test_default_move_is_the_declared_one_when_legal_else_deterministic() -> None:
    assert default_move(PD_SPACE, "D") == "D"
    assert default_move(PD_SPACE, "X") == "C", "an illegal declared move is not played"
    assert default_move(BID) == 0
    assert default_move(ActionSpace.number(0.5, 2, integer=True)) == 1
    assert default_move(TROOPS) == [4, 3, 3]
    with pytest.raises(ValueError, match="no move is legal"):
        default_move(ActionSpace.of_choices([]))


def test_a_valid_answer_is_played_and_every_token_counted(server: llm_server.LlmServer) -> None:
    strategy = llm(server, "valid", "valid")
    assert strategy.choose(view()) == "D", "the scripted model plays the last choice"
    report = strategy.llm_report()
    (sent,) = requests_of(server, "valid")
    (call,) = report.recent_calls
    assert sent["body"]["model"] == "scripted-1"
    assert [m["role"] for m in sent["body"]["messages"]] == ["system", "user"]
    assert call.text == '{"move": "D"}' and call.attempt == "move" and call.error is None
    assert call.prompt_tokens > 0 and call.completion_tokens > 0 and call.latency_ms > 0
    assert report.totals.calls == 1 and report.totals.moves == 1
    assert report.totals.prompt_tokens == call.prompt_tokens
    assert report.by_match["M1"] == report.totals == report.by_league[LEAGUE]
    assert report.totals.default_moves == 0


def test_an_invalid_answer_gets_one_clarification(server: llm_server.LlmServer) -> None:
    strategy = llm(server, "invalid_then_valid", "clarified")
    assert strategy.choose(view()) == "D"
    first, second = requests_of(server, "clarified")
    asked = second["body"]["messages"]
    assert len(first["body"]["messages"]) == 2
    assert asked[2] == {"role": "assistant", "content": "Let me think about the options first."}
    assert "is not a legal move" in asked[3]["content"] and asked[3]["role"] == "user"
    totals = strategy.llm_report().totals
    assert (totals.calls, totals.clarifications, totals.default_moves) == (2, 1, 0)


@pytest.mark.parametrize(
    ("behaviour", "reason", "calls"), [("invalid", "invalid", 2), ("error500", "http_error", 1)]
)
def test_a_failed_answer_plays_the_declared_default(
    server: llm_server.LlmServer, behaviour: str, reason: str, calls: int
) -> None:
    strategy = llm(server, behaviour, f"fallback-{behaviour}", default_move="C")
    assert strategy.choose(view()) == Say("C", fallback=reason), "said to be a default"
    totals = strategy.llm_report().totals
    assert totals.default_moves_by_reason == {reason: 1}
    assert totals.calls == calls == len(requests_of(server, f"fallback-{behaviour}"))
    assert totals.failed_calls == (1 if behaviour == "error500" else 0)


def test_a_slow_model_times_out_before_the_deadline(server: llm_server.LlmServer) -> None:
    strategy = llm(server, "slow-3", "slow", default_move="C", safety_margin_sec=1.0)
    started = time.monotonic()
    assert strategy.choose(view(deadline_in=2.0)) == Say("C", fallback="timeout")
    elapsed = time.monotonic() - started
    assert elapsed < 1.8, f"the call took {elapsed:.2f} s; the deadline less the margin is 1 s"
    report = strategy.llm_report()
    assert report.totals.default_moves_by_reason == {"timeout": 1}
    assert report.recent_calls[0].error is not None
    assert report.recent_calls[0].error.startswith("timeout")


def test_a_conversation_lasts_one_match(server: llm_server.LlmServer) -> None:
    strategy = llm(server, "valid", "conversation")
    strategy.choose(view(observation={"round": 1, "history": []}))
    strategy.choose(view(observation={"round": 2, "history": [{"actions": {"P01": "D"}}]}))
    strategy.choose(view(match_id="M2"))
    first, second, other = (r["body"]["messages"] for r in requests_of(server, "conversation"))
    assert second[:3] == [*first, {"role": "assistant", "content": '{"move": "D"}'}]
    assert '"round": 2' in second[3]["content"]
    assert [m["role"] for m in other] == ["system", "user"], "a new match starts afresh"
    assert set(strategy.llm_report().by_match) == {"M1", "M2"}


def test_options_come_from_the_environment(
    server: llm_server.LlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAGUE_LLM_BASE_URL", base_url(server, "valid", "env"))
    monkeypatch.setenv("LEAGUE_LLM_MODEL", "env-model")
    monkeypatch.setenv("LEAGUE_LLM_API_KEY", "sk-test-123")
    monkeypatch.setenv("LEAGUE_LLM_DEFAULT_MOVE", "[1, 2, 7]")
    strategy = build_strategy("llm")
    assert isinstance(strategy, LlmStrategy)
    assert strategy.options.default_move == [1, 2, 7]
    strategy.choose(view())
    (sent,) = requests_of(server, "env")
    assert sent["body"]["model"] == "env-model"
    assert sent["authorization"] == "Bearer sk-test-123"
    assert "sk-test-123" not in repr(strategy.options), "the key is a secret"


def test_bad_options_stop_the_start() -> None:
    with pytest.raises(StrategyError, match="base_url must be an http"):
        build_strategy("llm", {"base_url": "ftp://x"})
    with pytest.raises(StrategyError, match="does not take the options"):
        build_strategy("llm", {"modle": "typo"})


def test_a_prompt_file_with_an_unknown_placeholder_stops_the_start(tmp_path: Path) -> None:
    (tmp_path / "turn.txt").write_text("Observation: $observaton\n")
    with pytest.raises(StrategyError, match=r"turn.txt: unknown placeholders \['observaton'\]"):
        build_strategy("llm", {"prompt_dir": str(tmp_path)})


def test_a_prompt_dir_overrides_a_shipped_file(
    server: llm_server.LlmServer, tmp_path: Path
) -> None:
    (tmp_path / "prisoners_dilemma.txt").write_text(
        "Play $game_name as $player_id.\n$answer_format\n"
    )
    llm(server, "valid", "override", prompt_dir=str(tmp_path)).choose(view())
    system = requests_of(server, "override")[0]["body"]["messages"][0]["content"]
    assert system.startswith("Play Prisoner") and "as P01." in system


@pytest.mark.parametrize("game_type", [spec.game_type for spec in registered_games()])
def test_every_game_is_prompted_and_answered_legally(
    server: llm_server.LlmServer, game_type: str
) -> None:
    spec = load_game(game_type)
    players = [f"P0{i + 1}" for i in range(spec.min_players)]
    state = spec.create(players)
    state.reset(seed=3)
    mover = state.acting_players()[0]
    space = state.action_space(mover)
    strategy = llm(server, "valid", f"game-{game_type}")
    move = strategy.choose(
        view(
            space=space, observation=state.observation(mover), game_type=game_type, player_id=mover
        )
    )
    assert space.contains(move), f"{move!r} is not in {space.describe()}"
    assert strategy.llm_report().totals.default_moves == 0
    system, turn = requests_of(server, f"game-{game_type}")[0]["body"]["messages"]
    assert "rules" in system["content"].lower()
    if game_type != "even_odd":  # its prompt file states its own rules
        assert spec.guide is not None and spec.guide.rules in system["content"]
        assert "``" not in system["content"], "no Python docstring reaches the model"
    assert "Legal moves:" in turn["content"]


async def test_stats_show_the_llm_report(
    server: llm_server.LlmServer, make_settings: SettingsFactory
) -> None:
    settings = make_settings(
        strategy="llm",
        game_types=["prisoners_dilemma"],
        strategy_options={"base_url": base_url(server, "valid", "host")},
    )
    async with serving(settings) as player:
        answer = await player.rpc("make_move", move_call(PD_SPACE.describe(), ["C", "D"]))
        assert answer["move_data"]["move"] == "D"
        stats = await player.get("/stats")
    report = stats["strategy_report"]
    assert report["model"] == "gpt-4o-mini"
    assert report["totals"]["calls"] == 1
    assert set(report["by_league"]) == {LEAGUE} and set(report["by_match"]) == {"R1M1"}
    assert report["recent_calls"][0]["text"] == '{"move": "D"}'


async def test_stats_count_a_default_move_once_and_a_late_one_once(
    server: llm_server.LlmServer, make_settings: SettingsFactory
) -> None:
    """``/stats``' ``fallbacks``: moves sent that the strategy did not decide, each once.
    An invalid answer: the llm's default, ``strategy:invalid``. A model slower than the
    host's budget: the host's random move (``timeout``), even though the strategy, still
    thinking, later counts a default move of its own for it."""
    invalid = make_settings(
        strategy="llm",
        game_types=["prisoners_dilemma"],
        strategy_options={"base_url": base_url(server, "invalid", "once")},
    )
    call = move_call(PD_SPACE.describe(), ["C", "D"])
    dilemma = load_game("prisoners_dilemma").create(["P01", "P02"])
    call["move_request"]["context"]["observation"] = dilemma.observation("P01")
    async with serving(invalid) as player:
        answer = await player.rpc("make_move", call)
        assert answer["move_data"]["move"] == "D", "the careful default of the dilemma"
        stats = await player.get("/stats")
    assert (stats["fallbacks"], stats["fallbacks_by_reason"]) == (1, {"strategy:invalid": 1})
    assert stats["strategy_report"]["totals"]["default_moves"] == 1
    assert "fallbacks" not in stats["strategy_report"]["totals"], "one name, one meaning"

    late = make_settings(
        strategy="llm",
        game_types=["prisoners_dilemma"],
        decision_margin_sec=3.0,
        strategy_options={
            "base_url": base_url(server, "slow-6", "late"),
            "safety_margin_sec": 0.5,
        },
    )
    call = move_call(PD_SPACE.describe(), ["C", "D"])
    call["deadline"] = (utc_now() + timedelta(seconds=4)).isoformat()
    async with serving(late) as player:
        await player.rpc("make_move", call)  # the host's budget: 4 - 3 = 1 s
        deadline = time.monotonic() + 10
        while (await player.get("/stats"))["strategy_report"]["totals"]["default_moves"] < 1:
            assert time.monotonic() < deadline, "the strategy never gave up on its model"
            await asyncio.sleep(0.1)
        stats = await player.get("/stats")
    assert (stats["fallbacks"], stats["fallbacks_by_reason"]) == (1, {"timeout": 1})
    assert stats["strategy_report"]["totals"]["default_moves_by_reason"] == {"timeout": 1}


async def test_other_strategies_report_nothing(make_settings: SettingsFactory) -> None:
    async with serving(
        make_settings(strategy="fixed", strategy_options={"choice": "odd"})
    ) as player:
        stats = await player.get("/stats")
    assert stats["strategy_report"] is None


@pytest.mark.e2e
def test_the_server_runs_as_a_process() -> None:
    """The e2e tests run it so; here only that it answers and records."""
    import subprocess
    import sys

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, llm_server.__file__, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                httpx.get(f"{url}/requests", timeout=0.5)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        reply = httpx.post(
            f"{url}/valid/p/v1/chat/completions",
            json={
                "model": "m",
                "messages": [{"role": "user", "content": 'Legal moves: one of "a".'}],
            },
        )
        assert reply.json()["choices"][0]["message"]["content"] == '{"move": "a"}'
        assert len(httpx.get(f"{url}/requests").json()) == 1
    finally:
        process.terminate()
        process.wait(5)
