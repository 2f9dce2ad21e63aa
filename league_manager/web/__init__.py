"""The League Manager's web pages and their JSON APIs (``/play`` and ``/api/games``)."""
