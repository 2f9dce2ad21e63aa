#!/usr/bin/env bash
# Install (on first run) and run a whole league on this machine: a League Manager,
# referees and players, each its own process; waits until each is healthy, starts the
# league, shows progress and prints the final standings.
#
#   scripts/start_league.sh                      # 2 referees, 4 players, processes kept
#   scripts/start_league.sh --players 6 --strategies random,history --stop
#
# Every flag of `league up` works here (see --help): --players, --referees, --lm-port,
# --referee-port, --player-port, --league-id, --strategies, --max-concurrent, --seed,
# --shared-dir, and --stop to stop everything at the end. Without --stop the processes
# keep serving (standings at http://127.0.0.1:8000/) until scripts/stop_league.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
ensure_venv
exec .venv/bin/league up "$@"
