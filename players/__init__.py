"""The player host: serves the player side of league.v2 for any pluggable strategy."""
