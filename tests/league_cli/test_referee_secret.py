"""``league referee-secret``: what the operator hands a referee started on another machine.
It prints the secret the League Manager wrote into its data folder (the one that League
Manager accepts), the configured one when there is one, and refuses in one sentence when
there is none yet."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner, Result

from league_cli.launcher import Launcher
from league_cli.main import app
from sdk.config import SharedDir
from sdk.examples import example
from tests.conftest import free_port
from tests.interop.harness import rpc

ENV = "LEAGUE_REFEREE_SECRET"


@pytest.fixture(autouse=True)
def no_configured_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)


def referee_secret(shared_dir: SharedDir) -> Result:
    return CliRunner().invoke(app, ["referee-secret", "--shared-dir", str(shared_dir.root)])


def test_without_a_secret_it_says_why_in_one_sentence(shared_dir: SharedDir) -> None:
    result = referee_secret(shared_dir)
    path = shared_dir.referee_secret_path(shared_dir.system().default_league_id)
    assert result.exit_code == 1
    assert result.output == (
        f"error: no referee secret yet: start the League Manager first (it writes {path}), "
        f"or configure one with ${ENV}\n"
    )


def test_a_configured_secret_is_printed(
    shared_dir: SharedDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "configured-secret-0123456789")
    result = referee_secret(shared_dir)
    assert (result.exit_code, result.output) == (0, "configured-secret-0123456789\n")


@pytest.mark.e2e
def test_it_prints_the_secret_the_league_manager_wrote_and_accepts(shared_dir: SharedDir) -> None:
    launcher = Launcher(shared_dir.root)
    try:
        manager = launcher.manager(free_port())
        launcher.wait_healthy(manager)
        result = referee_secret(shared_dir)
        assert result.exit_code == 0, result.output
        secret = result.output.strip()
        league_id = shared_dir.system().default_league_id
        assert result.output == shared_dir.referee_secret_path(league_id).read_text()
        assert len(secret) >= 32
        request = example("REFEREE_REGISTER_REQUEST", auth_token=secret)
        request["referee_meta"]["contact_endpoint"] = f"http://127.0.0.1:{free_port()}/mcp"
        answer = rpc(manager.mcp_url, "register_referee", request)["result"]
        assert answer["status"] == "ACCEPTED", answer
    finally:
        launcher.stop_all()
