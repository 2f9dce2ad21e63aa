"""Where ``league up`` left a league running, so that ``league down`` finds it by itself.

``league up --keep`` (the default) on any SHARED folder records that folder in one small
file of this user's state folder; ``league down`` without ``--shared-dir`` stops the
processes of the default SHARED folder and of every folder recorded, and forgets them.
The pid files themselves stay in each folder's ``run/`` (``league_cli.launcher``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["STATE_DIR_ENV", "forget", "kept", "record_file", "remember"]

STATE_DIR_ENV = "LEAGUE_STATE_DIR"
"""The folder of the record (default: ``$XDG_STATE_HOME/agent-league``, else
``~/.local/state/agent-league``)."""
_FILE = "kept_leagues.json"


def record_file() -> Path:
    """The file that lists the SHARED folders with a league left running."""
    given = os.environ.get(STATE_DIR_ENV)
    if given:
        return Path(given) / _FILE
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "agent-league" / _FILE


def kept() -> list[Path]:
    """The SHARED folders recorded, oldest first (an unreadable record is no record)."""
    try:
        listed = json.loads(record_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(listed, list):
        return []
    return [Path(item) for item in listed if isinstance(item, str)]


def _write(folders: list[Path]) -> None:
    path = record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps([str(folder) for folder in folders]), encoding="utf-8")
    temporary.replace(path)


def remember(shared_root: Path) -> None:
    """Record that a league runs on in ``shared_root``."""
    folder = shared_root.resolve()
    folders = [f for f in kept() if f != folder]
    _write([*folders, folder])


def forget(shared_root: Path) -> None:
    """Nothing runs in ``shared_root`` any more."""
    folder = shared_root.resolve()
    folders = kept()
    if folder in folders:
        _write([f for f in folders if f != folder])
