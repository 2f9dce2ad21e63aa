"""The League Manager's web pages and their JSON APIs: the live dashboard
(doc/dashboard.md). People play games on the play service (``playroom``), which the
dashboard links to when it is told where (``--play-url``)."""

from league_manager.web.dashboard import install

__all__ = ["install"]
