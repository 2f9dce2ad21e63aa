"""The prose-game engine step by step (``playroom/prose/engine.py``) against the local
scripted model server (``tests/strategies/llm_server.py``, in a thread): the default token
limits, every call in ``llm_calls``, a 500 and a slow answer retried, a model that stays
down undoing the step so that the next one works, a refusal not retried."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from playroom.prose.engine import ModelUnavailable, ProseGame, RetryPolicy, StepRefused
from playroom.prose.setup import DEFAULT_MAX_TOKENS, SideSetup, new_game, shipped_prompt
from tests.conftest import free_port
from tests.strategies.llm_server import LlmServer, serving


@pytest.fixture
def llm() -> Iterator[tuple[LlmServer, str]]:
    with serving(free_port()) as running:
        yield running


def _game(root: str, retry: RetryPolicy, max_turns: int = 10) -> ProseGame:
    """The default pair: the scripted game master and an opponent that accepts."""
    manager = SideSetup.resolve(
        "manager",
        shipped_prompt("default", "manager"),
        "default",
        {"base_url": f"{root}/gamemaster/manager/v1", "model": "gm-model"},
    )
    player = SideSetup.resolve(
        "player",
        shipped_prompt("default", "player"),
        "default",
        {"base_url": f"{root}/accept/player/v1", "model": "opponent-model"},
    )
    return new_game(manager, player, game="default", max_turns=max_turns, retry=retry)


def _fault(root: str, **fault: object) -> None:
    httpx.post(f"{root}/faults", json=fault).raise_for_status()


def test_a_game_step_by_step_records_every_call(llm: tuple[LlmServer, str]) -> None:
    server, root = llm
    game = _game(root, RetryPolicy(call_timeout_sec=5, retry_sec=5))
    with pytest.raises(StepRefused, match="not started"):
        game.move("4")
    game.start()
    with pytest.raises(StepRefused, match="started already"):
        game.start()
    with pytest.raises(ValueError, match="empty"):
        game.move("   ")
    game.move("4")
    game.move("5")
    game.close()
    assert game.status == "over" and game.result["status"] == "game_over"
    transcript = game.transcript
    assert transcript.result["human_turns"] == 2
    assert [(c.role, c.model, c.attempts, c.retried) for c in transcript.llm_calls] == [
        ("manager", "gm-model", 1, False),
        ("manager", "gm-model", 1, False),
        ("player", "opponent-model", 1, False),
        ("manager", "gm-model", 1, False),
        ("manager", "gm-model", 1, False),
        ("player", "opponent-model", 1, False),
        ("manager", "gm-model", 1, False),
    ]
    assert all(c.prompt_tokens > 0 and c.completion_tokens > 0 for c in transcript.llm_calls)
    assert all(c.latency_ms > 0 and c.error is None for c in transcript.llm_calls)
    assert transcript.tokens.calls == 7
    assert transcript.tokens.prompt_tokens == sum(c.prompt_tokens for c in transcript.llm_calls)
    configs = transcript.configs
    assert configs["manager"]["prompt"] == shipped_prompt("default", "manager")
    assert configs["player"]["prompt"] == shipped_prompt("default", "player")
    assert (configs["manager"]["max_tokens"], configs["player"]["max_tokens"]) == (500, 100)
    with server.lock:
        sent = {r["tag"]: r["body"]["max_tokens"] for r in server.requests}
    assert sent == DEFAULT_MAX_TOKENS == {"manager": 500, "player": 100}


def test_one_500_and_one_slow_answer_are_retried(llm: tuple[LlmServer, str]) -> None:
    _, root = llm
    game = _game(root, RetryPolicy(call_timeout_sec=0.5, retry_sec=5, first_backoff_sec=0.1))
    _fault(root, tag="manager", count=1)
    game.start()
    _fault(root, tag="player", count=1, delay_sec=1.5)
    game.move("4")
    game.close()
    calls = game.transcript.llm_calls
    assert (calls[0].attempts, calls[0].retried, calls[0].error) == (2, True, None)
    opponent = next(c for c in calls if c.role == "player")
    assert (opponent.attempts, opponent.retried, opponent.error) == (2, True, None)
    assert opponent.elapsed_ms >= 500 > opponent.latency_ms
    assert [m.text for m in game.transcript.visible() if m.role == "human"] == ["4"]


def test_a_model_that_stays_down_undoes_the_step_and_the_next_works(
    llm: tuple[LlmServer, str],
) -> None:
    server, root = llm
    game = _game(root, RetryPolicy(call_timeout_sec=5, retry_sec=0.6, first_backoff_sec=0.2))
    game.start()
    before = (list(game.manager.messages), list(game.opponent.messages))
    shown = [m.text for m in game.transcript.visible()]
    _fault(root, tag="player", count=50)
    with pytest.raises(ModelUnavailable, match="opponent's model gave no answer") as failed:
        game.move("4")
    assert failed.value.retryable and failed.value.attempts >= 2
    assert (game.manager.messages, game.opponent.messages) == before
    assert [m.text for m in game.transcript.visible()] == shown  # the message was not taken
    assert game.transcript.llm_calls[-1].error is not None
    assert "the person's message '4' was not taken" in game.transcript.messages[-1].text
    assert game.transcript.messages[-1].visibility == "internal"
    httpx.delete(f"{root}/faults").raise_for_status()
    game.move("4")
    game.close()
    assert [m.text for m in game.transcript.visible() if m.role == "human"] == ["4"]
    with server.lock:
        last = [r["body"]["messages"] for r in server.requests if r["tag"] == "player"][-1]
    assert [m["role"] for m in last] == ["system", "user"]


def test_a_refusal_is_not_retried(llm: tuple[LlmServer, str]) -> None:
    _, root = llm
    game = _game(root, RetryPolicy(call_timeout_sec=5, retry_sec=5))
    _fault(root, tag="manager", count=5, status=401)
    with pytest.raises(ModelUnavailable, match="HTTP 401") as failed:
        game.start()
    game.close()
    assert not failed.value.retryable and failed.value.attempts == 1
    assert game.status == "new" and game.transcript.visible() == []
