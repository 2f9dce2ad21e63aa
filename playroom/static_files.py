"""The play service's pages, scripts and styles, kept in ``playroom/static`` (no build step).

Routes name their files with a ``Literal``, so a request can never reach another file."""

from __future__ import annotations

from pathlib import Path

from fastapi.responses import FileResponse

__all__ = ["STATIC", "asset"]

STATIC = Path(__file__).resolve().parent / "static"


def asset(name: str) -> FileResponse:
    """A script or a style sheet of ``STATIC``, with its media type."""
    media = "text/javascript" if name.endswith(".js") else "text/css"
    return FileResponse(STATIC / name, media_type=media)
