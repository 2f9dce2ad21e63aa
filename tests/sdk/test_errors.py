"""The file system's refusals as one sentence: the path, what is wrong, what to do."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sdk.errors import FileSystemError, LeagueSDKError, file_access

PATH = Path("/srv/SHARED/data/leagues/L1/agents.json")


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (
            errno.EROFS,
            "the file system is read-only; make it writable, or start with a "
            "--shared-dir on one that is",
        ),
        (
            errno.EACCES,
            "permission denied; let this user read and write there, or start with a "
            "--shared-dir on one that is",
        ),
        (errno.ENOSPC, "no space left on the device; free some space on it"),
        (errno.EDQUOT, "the disk quota is used up; free some space on it"),
        (errno.EISDIR, "it is a directory where a file should be; move the directory away"),
        (errno.EIO, "Input/output error; check that folder and its file system"),
    ],
)
def test_each_refusal_names_the_path_and_what_to_do(code: int, said: str) -> None:
    refusal = FileSystemError.of(OSError(code, os.strerror(code)), PATH, "write")
    assert str(refusal) == f"cannot write {PATH}: {said}"
    assert refusal.path == PATH and refusal.errno == code


def test_a_refusal_is_an_sdk_error_and_still_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileSystemError) as caught, file_access(tmp_path, "read"):
        tmp_path.read_text()
    assert isinstance(caught.value, LeagueSDKError) and isinstance(caught.value, OSError)
    assert str(caught.value).startswith(f"cannot read {tmp_path}: it is a directory")
