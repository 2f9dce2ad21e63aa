"""The JSON Schemas in doc/schemas: generated from the models, and true to them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from sdk.agent_log import AgentLog
from sdk.examples import example
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.messages import MESSAGE_MODELS, LeagueRegisterRequest, LeagueRegisterResponse
from sdk.schemas import message_schemas, render_schema, write_schemas
from tests.conftest import REPO_ROOT

COMMITTED = REPO_ROOT / "doc" / "schemas"
REGENERATE = "regenerate them with `.venv/bin/league schemas` and commit"
SCHEMAS = message_schemas()


def validator(message_type: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMAS[message_type])


def test_the_committed_schemas_are_what_the_models_generate() -> None:
    committed = {
        path.name: path.read_text(encoding="utf-8") for path in COMMITTED.glob("*.schema.json")
    }
    expected = {
        f"{message_type}.schema.json": render_schema(schema)
        for message_type, schema in SCHEMAS.items()
    }
    missing = sorted(set(expected) - set(committed))
    stale = sorted(set(committed) - set(expected))
    assert not missing and not stale, f"doc/schemas: missing {missing}, stale {stale}; {REGENERATE}"
    drifted = sorted(name for name in expected if committed[name] != expected[name])
    assert not drifted, f"doc/schemas differ from the models in {drifted}; {REGENERATE}"


@pytest.mark.parametrize("message_type", sorted(MESSAGE_MODELS))
def test_every_schema_is_valid_and_accepts_the_sample(message_type: str) -> None:
    Draft202012Validator.check_schema(SCHEMAS[message_type])
    wire = example(message_type)
    validator(message_type).validate(wire)
    sent = MESSAGE_MODELS[message_type].model_validate(wire).to_wire()
    validator(message_type).validate(sent)


@pytest.mark.parametrize(
    ("message_type", "change"),
    [
        ("ACK", {"protocol": "league.v1"}),
        ("ACK", {"message_type": "GAME_OVER"}),
        ("ACK", {"timestamp": "2025-01-15T12:30:00+02:00"}),
        ("ACK", {"timestamp": "2025-01-15T10:30:00"}),
        ("ACK", {"timestamp": None}),
        ("ACK", {"sender": ""}),
        ("CHOOSE_PARITY_RESPONSE", {"parity_choice": "EVEN"}),
        ("CHOOSE_PARITY_CALL", {"deadline": "2025-01-15T10:30:30-05:00"}),
        ("GAME_INVITATION", {"round_id": "first"}),
        ("GAME_INVITATION", {"match_id": None}),
    ],
)
def test_the_schemas_refuse_what_the_models_refuse(
    message_type: str, change: dict[str, Any]
) -> None:
    wire = example(message_type)
    for key, value in change.items():
        if value is None:
            del wire[key]
        else:
            wire[key] = value
    assert not validator(message_type).is_valid(wire)


def test_write_schemas_writes_sorted_files_and_removes_stale_ones(tmp_path: Path) -> None:
    (tmp_path / "GONE_MESSAGE.schema.json").write_text("{}\n")
    (tmp_path / "README.md").write_text("kept\n")
    written = write_schemas(tmp_path)
    assert [path.name for path in written] == sorted(f"{t}.schema.json" for t in MESSAGE_MODELS)
    assert not (tmp_path / "GONE_MESSAGE.schema.json").exists()
    assert (tmp_path / "README.md").read_text() == "kept\n"
    text = (tmp_path / "ACK.schema.json").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert list(json.loads(text)) == sorted(json.loads(text))


def test_the_committed_message_reference_is_current() -> None:
    from sdk.reference import message_reference

    committed = (REPO_ROOT / "doc" / "messages.md").read_text(encoding="utf-8")
    assert committed == message_reference(), f"doc/messages.md is stale: {REGENERATE}"


def test_the_reference_shows_every_message_with_a_valid_example() -> None:
    text = (REPO_ROOT / "doc" / "messages.md").read_text(encoding="utf-8")
    for message_type in MESSAGE_MODELS:
        assert f"## {message_type}" in text, message_type
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.DOTALL)]
    assert len(examples) == len(MESSAGE_MODELS)
    for wire in examples:
        MESSAGE_MODELS[wire["message_type"]].from_wire(wire)


@pytest.mark.e2e
def test_the_league_schemas_command_writes_them(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "error",
            "-m",
            "league_cli",
            "schemas",
            str(tmp_path / "out"),
            "--reference",
            str(tmp_path / "messages.md"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {len(MESSAGE_MODELS)} schemas" in done.stdout
    assert len(list((tmp_path / "out").glob("*.schema.json"))) == len(MESSAGE_MODELS)
    assert (tmp_path / "messages.md").read_text().startswith("# Every league.v2 message")


# --- the examples of doc/protocol.md --------------------------------------------------------


def doc_examples() -> list[dict[str, Any]]:
    text = (REPO_ROOT / "doc" / "protocol.md").read_text(encoding="utf-8")
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.DOTALL)]


async def test_the_protocol_doc_examples_are_what_the_sdk_does(tmp_path: Path) -> None:
    request, answer, refusal = doc_examples()
    assert request["method"] == "register_player"
    validator("LEAGUE_REGISTER_REQUEST").validate(request["params"])
    validator("LEAGUE_REGISTER_RESPONSE").validate(answer["result"])
    validator("LEAGUE_ERROR").validate(refusal["result"])
    response = LeagueRegisterResponse.model_validate(answer["result"])
    assert response.to_wire() == answer["result"]

    async def register(message: LeagueRegisterRequest) -> LeagueRegisterResponse:
        return response

    log = AgentLog(tmp_path / "lm.log.jsonl", "league_manager")
    endpoint = JsonRpcEndpoint(
        {"register_player": RpcMethod(register, LeagueRegisterRequest)},
        sender=lambda: "league_manager",
        log=log,
    )
    assert await endpoint.dispatch(json.dumps(request)) == answer | {"jsonrpc": "2.0"}

    local = {
        **request,
        "id": 2,
        "params": {
            **request["params"],
            "conversation_id": "conv-reg-2",
            "timestamp": "2025-01-15T12:00:00+02:00",
        },
    }
    got = await endpoint.dispatch(json.dumps(local))
    log.close()
    got["result"]["timestamp"] = refusal["result"]["timestamp"]
    assert got == refusal
