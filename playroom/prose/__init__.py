"""Games written only in prose: an LLM game master runs the game and talks to the person,
an LLM opponent with its own isolated context plays the other seat (doc/prose_games.md).
The engine (``engine``) is played at the terminal by ``league play --manager-prompt`` and
over HTTP by the play service (``api``: ``/api/games/sessions`` and the ``/chat`` page)."""
