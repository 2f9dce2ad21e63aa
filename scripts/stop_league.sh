#!/usr/bin/env bash
# Stop exactly the processes that start_league.sh started (their pid files under
# SHARED/run, each checked against its recorded command line), and nothing else. Without
# --shared-dir it stops the league of the default SHARED folder and of every folder that
# start_league.sh --shared-dir kept running (it recorded them).
#   scripts/stop_league.sh [--shared-dir DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/league ]; then
  echo "nothing to stop: .venv is not installed, so start_league.sh never ran here" >&2
  exit 0
fi
exec .venv/bin/league down "$@"
