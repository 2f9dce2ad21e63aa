#!/usr/bin/env bash
# The static checks: ruff's lint and format, the import contracts of the layering
# (lint-imports, [tool.importlinter]), then mypy over every package ([tool.mypy]). Installs
# .venv with the dev extra on first run, as run_tests.sh does; arguments go to mypy
# (--python-version 3.13, say).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
.venv/bin/mypy "$@"
