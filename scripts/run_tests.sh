#!/usr/bin/env bash
# Install (on first run) and run the whole test suite; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv
exec .venv/bin/python -m pytest "$@"
