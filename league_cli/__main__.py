"""``python -m league_cli`` is the ``league`` command (the launcher starts agents this way)."""

from league_cli.main import app

app(prog_name="league")
