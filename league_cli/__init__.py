"""The ``league`` command: runs every agent and drives a league from the terminal."""
