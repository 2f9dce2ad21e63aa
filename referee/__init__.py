"""The Referee: runs matches between players under deadlines and reports the results."""

from __future__ import annotations

from referee.app import create_app, run
from referee.config import RefereeSettings
from referee.service import RefereeService, RefereeStatus

__all__ = ["RefereeService", "RefereeSettings", "RefereeStatus", "create_app", "run"]
