"""The one exception tree of ``games.analysis``: every refusal is a ``ValueError`` subclass,
so a caller that already handles the games' bad arguments handles these too."""

from __future__ import annotations

__all__ = ["AnalysisError", "SolverError", "SolverTimeoutError"]


class AnalysisError(ValueError):
    """An analysis that cannot be done on these inputs (a wrong shape, a game it does not
    apply to, a history without what the metric reads)."""


class SolverError(AnalysisError):
    """A solver failed: its process died, or it returned something that is not an
    equilibrium (never dropped silently)."""


class SolverTimeoutError(SolverError):
    """A solver call went past its time bound; the message names the bound."""

    def __init__(self, what: str, bound: float):
        super().__init__(
            f"{what} did not finish within its time bound of {bound:g} s; it was "
            f"stopped (raise the timeout, or solve a smaller game)"
        )
        self.bound = bound
