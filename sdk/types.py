"""Type aliases shared by every agent's models and settings."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

__all__ = ["AgentUrl", "McpUrl"]


def _http_url(value: str) -> str:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise ValueError(f"{value!r} is not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value!r} is not an http(s) URL with a host")
    return value


def _mcp_url(value: str) -> str:
    if not urlsplit(_http_url(value)).path.endswith("/mcp"):
        raise ValueError(
            f"{value!r} is not an agent's JSON-RPC endpoint: it must end in /mcp, "
            "e.g. http://127.0.0.1:8000/mcp"
        )
    return value


AgentUrl = Annotated[
    str,
    AfterValidator(_http_url),
    Field(description="an http(s) URL with a host, e.g. http://127.0.0.1:8101/mcp"),
]
"""An http(s) URL with a host: where another agent can be reached."""

McpUrl = Annotated[
    str, AfterValidator(_mcp_url), Field(description="an agent's JSON-RPC endpoint, ending in /mcp")
]
"""An agent's JSON-RPC endpoint: an http(s) URL whose path ends in ``/mcp``."""
