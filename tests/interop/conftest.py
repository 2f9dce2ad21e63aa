"""Fixtures of the interoperability tests: every process a test starts is stopped by pid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.harness import Agents


@pytest.fixture
def agents(tmp_path: Path) -> Iterator[Agents]:
    started = Agents(tmp_path)
    try:
        yield started
    finally:
        started.stop_all()
