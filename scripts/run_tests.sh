#!/usr/bin/env bash
# Install (on first run, with the dev extra) and run the whole test suite on every core
# (pytest-xdist's -n auto; -n 0 runs it in one process); extra arguments go to pytest
# (-m "not e2e" for the fast lane).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv dev
# Bytecode caches kept (some machines set PYTHONDONTWRITEBYTECODE): without them every worker
# rewrites the assertions of every test module, and every agent a test starts compiles the
# product's modules again: 16 s of CPU per worker to collect the fast lane, instead of 9.
unset PYTHONDONTWRITEBYTECODE
exec .venv/bin/python -m pytest -n auto "$@"
