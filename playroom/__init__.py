"""The play service: a person plays a game of ``games/`` against an agent. Its own process
(``playroom.app``, ``league play-service``) serves the ``/play`` page and ``/api/games``;
the game loop whose human seat takes its moves from wherever they come (``league play`` at
a terminal, the page over HTTP) and the one transcript model both keep are here too."""
