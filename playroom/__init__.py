"""A person plays a game of ``games/`` against an agent: the game loop whose human seat
takes its moves from wherever they come (``league play`` at a terminal, the League
Manager's ``/play`` page over HTTP) and the one transcript model both keep."""
