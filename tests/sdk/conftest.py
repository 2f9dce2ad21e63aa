"""Fixtures of the sdk tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sdk.agent_log import AgentLog


@pytest.fixture
def agent_log(tmp_path: Path) -> Iterator[AgentLog]:
    """A referee's log, closed after the test."""
    log = AgentLog(tmp_path / "agent.log.jsonl", "REF01")
    yield log
    log.close()
