"""Fixtures every test may use: a private SHARED folder and free loopback ports
(``tests/ports.py``)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sdk.config import SharedDir
from strategies import registry
from tests.ports import free_port, free_port_block  # noqa: F401 (tests import them from here)

REPO_ROOT = Path(__file__).resolve().parent.parent
BROWSER_TESTS = REPO_ROOT / "tests" / "web"
"""Every test here drives a real browser and is e2e (``tests/test_layout.py`` checks it)."""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The fast lane (``-m "not e2e"``) does not even import the browser tests: Playwright
    alone takes seconds to import, in every worker, for tests it would deselect."""
    fast_lane = config.getoption("markexpr", "").replace(" ", "") == "note2e"
    return True if fast_lane and collection_path == BROWSER_TESTS else None


class Clock:
    """A monotonic clock that the test moves (``now``), for code that takes its clock:
    play sessions' idle time, the refusal log's windows."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_shared_dir(root: Path, **system_overrides: object) -> SharedDir:
    """A copy of the committed SHARED/config under ``root``, with fast retries for tests
    (the protocol's 2 s between retries would make a fault test take minutes)."""
    shutil.copytree(REPO_ROOT / "SHARED" / "config", root / "config")
    system_path = root / "config" / "system.json"
    system = json.loads(system_path.read_text())
    system["retry_policy"] = {
        "max_retries": 3,
        "backoff_sec": 0.05,
        "backoff_multiplier": 1.0,
        "max_backoff_sec": 0.2,
    }
    system.update(system_overrides)
    system_path.write_text(json.dumps(system, indent=2))
    return SharedDir(root)


@pytest.fixture
def shared_dir(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def port_factory() -> Callable[[], int]:
    return free_port


class TinyDisk:
    """A small tmpfs mounted for one test, that the test fills and frees: a real full disk
    (ENOSPC from the kernel), no write hook."""

    SIZE = "512k"

    def __init__(self, root: Path):
        self.root = root
        self._filler = root / "filler"

    def fill(self) -> None:
        """Take every free byte (in pages, then the last bytes one at a time)."""
        fd = os.open(self._filler, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            for chunk in (b"\0" * 4096, b"\0"):
                try:
                    while True:
                        os.write(fd, chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
        finally:
            os.close(fd)

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)


@contextmanager
def mounted_tmpfs(directory: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``directory`` for the block (a read-only or a small file system,
    as the kernel makes them: tests run as root, which ignores permissions but not a
    read-only mount); skips the test where mounting is not permitted (it needs root or
    CAP_SYS_ADMIN); unmounted at the end."""
    directory.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        pytest.skip("no mount command: a read-only or full file system cannot be made here")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        said = (mounted.stderr.strip().splitlines() or ["mount failed"])[0]
        pytest.skip(
            f"mounting a tmpfs is not permitted here ({said}): it needs root or CAP_SYS_ADMIN"
        )
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[TinyDisk]:
    """A ``TinyDisk`` at ``tmp_path/disk``; skipped where this process may not mount one."""
    with mounted_tmpfs(tmp_path / "disk", f"size={TinyDisk.SIZE}") as root:
        yield TinyDisk(root)


@pytest.fixture(autouse=True)
def registry_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Strategies a test registers disappear after it (the registry is one per process)."""
    monkeypatch.setattr(registry, "_STRATEGIES", dict(registry._STRATEGIES))


# A real PostgreSQL (the ``postgres`` and ``database_url`` fixtures) for the PostgreSQL
# store's tests; imported last, since tests/postgres.py takes free_port from here.
from tests.postgres import database_url, postgres, store_url  # noqa: E402, F401
