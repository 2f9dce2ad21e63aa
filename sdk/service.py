"""What every service process shares: running a FastAPI app under uvicorn."""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

__all__ = ["serve"]


def serve(app: FastAPI, host: str, port: int) -> None:
    """Run ``app`` until SIGINT/SIGTERM; quiet access logs (the agent log has the traffic)."""
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=5)
