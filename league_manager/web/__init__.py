"""The League Manager's web dashboard (doc/dashboard.md)."""

from league_manager.web.dashboard import install

__all__ = ["install"]
