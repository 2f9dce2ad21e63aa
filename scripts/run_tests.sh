#!/usr/bin/env bash
# Install (on first run, with the dev extra) and run the whole test suite on every core
# (pytest-xdist's -n auto; -n 0 runs it in one process); extra arguments go to pytest
# (-m "not e2e" for the fast lane).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv dev
exec .venv/bin/python -m pytest -n auto "$@"
