"""Every example in doc/writing_a_player.md works as printed."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from sdk.messages import (
    ChooseParityCall,
    ChooseParityResponse,
    GameInvitation,
    GameJoinAck,
    Message,
)
from sdk.timeutil import utc_now
from strategies import MoveView, build_strategy, known_strategies
from tests.conftest import REPO_ROOT

GUIDE = REPO_ROOT / "doc" / "writing_a_player.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL)


def test_the_python_examples_run_and_their_strategies_play() -> None:
    namespace: dict[str, object] = {"__name__": "writing_a_player"}
    code = blocks("python")
    assert len(code) == 3, "the guide shows a function, a class and a try-out"

    for block in code:
        exec(compile(block, str(GUIDE), "exec"), namespace)

    view = MoveView(match_id="R1M1", player_id="P01", opponent_id="P02", deadline=utc_now())
    assert namespace["contrarian"](view) in view.legal_moves  # type: ignore[operator]
    streaky = build_strategy("streaky", {"seed": 3})
    assert streaky.choose(view) in view.legal_moves


def test_the_function_example_runs_by_its_dotted_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_module.py").write_text(blocks("python")[0])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    monkeypatch.delitem(sys.modules, "my_module", raising=False)
    command = next(line for line in blocks("bash")[0].splitlines() if "my_module" in line)
    strategy_name = command.split("--strategy ")[1].split()[0]

    strategy = build_strategy(strategy_name)

    view = MoveView(match_id="R1M1", player_id="P01", opponent_id="P02", deadline=utc_now())
    assert strategy.choose(view) == "even"
    monkeypatch.delitem(sys.modules, "my_module")


def test_the_commands_name_real_strategies() -> None:
    names = re.findall(r"--strategy (\S+)", blocks("bash")[0])
    assert [n for n in names if ":" not in n and n not in known_strategies()] == []


def test_the_wire_examples_are_valid_messages() -> None:
    invitation, ack, call, answer = (json.loads(block) for block in blocks("json"))
    assert GameInvitation.model_validate(invitation).opponent_id == "P02"
    assert GameJoinAck.model_validate(ack).accept is True
    assert ChooseParityCall.model_validate(call).player_id == "P01"
    assert ChooseParityResponse.model_validate(answer).parity_choice == "even"


def test_the_join_ack_table_names_every_field_the_ack_requires() -> None:
    table = re.findall(r"^\| `(\w+)` \|", GUIDE.read_text(), flags=re.MULTILINE)
    required = {
        name
        for name, field in GameJoinAck.model_fields.items()
        if field.is_required() and name not in Message.model_fields  # not the envelope's
    }
    assert required <= set(table), required - set(table)


def test_the_readme_example_is_the_guide_s_and_runs_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    example = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert example == [blocks("python")[0]], "the README shows the guide's first example"
    command = re.search(r"league player .*--strategy (\S+)", readme)
    assert command is not None and command.group(1) == "my_module:contrarian"
    (tmp_path / "my_module.py").write_text(example[0])
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_module", raising=False)
    strategy = build_strategy(command.group(1))
    view = MoveView(match_id="R1M1", player_id="P01", opponent_id="P02", deadline=utc_now())
    assert strategy.choose(view) in view.legal_moves
    monkeypatch.delitem(sys.modules, "my_module")
