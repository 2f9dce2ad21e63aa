#!/usr/bin/env bash
# Install (on first run, with the dev extra) and run the whole test suite; extra arguments
# go to pytest (-m "not e2e" for the fast lane).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv dev
exec .venv/bin/python -m pytest "$@"
