"""The League Manager's web pages and their JSON APIs: the live dashboard
(doc/dashboard.md) and the page to play a game (``/play``, ``/api/games``: doc/playing.md)."""

from league_manager.web.dashboard import install

__all__ = ["install"]
