"""The play service: a person plays a game of ``games/`` against an agent, or a game written
in prose against an LLM with an LLM game master. Its own process (``playroom.app``,
``league play-service``) serves the ``/play`` page and ``/api/play``, the ``/chat`` page and
``/api/games`` (``playroom.prose``); the game loop whose human seat takes its moves from
wherever they come (``league play`` at a terminal, the page over HTTP), the prose games'
engine, and the one transcript model they all keep are here too."""
