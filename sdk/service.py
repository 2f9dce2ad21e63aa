"""What every service process shares: running a FastAPI app under uvicorn."""

from __future__ import annotations

import gc

import uvicorn
from fastapi import FastAPI

__all__ = ["serve"]


KEEP_ALIVE_SEC = 15
"""How long an idle client connection stays open: longer than the 4-5 s after which
clients drop theirs, so a client never reuses one we are closing (that resets its request)."""


def serve(app: FastAPI, host: str, port: int) -> None:
    """Run ``app`` until SIGINT/SIGTERM; quiet access logs (the agent log has the traffic).

    The objects alive now (the imported libraries, the app) live as long as the process:
    ``gc.freeze`` moves them out of the collector's sight, so a full collection no longer
    rescans tens of thousands of them while the agent answers calls.
    """
    gc.collect()
    gc.freeze()
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=5, timeout_keep_alive=KEEP_ALIVE_SEC)
