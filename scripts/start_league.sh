#!/usr/bin/env bash
# Install (on first run) and run a whole league on this machine: a League Manager, the
# play service (the /play page), referees and players, each its own process; waits until each is healthy, starts the
# league, shows progress and prints the final standings.
#
#   scripts/start_league.sh                      # 2 referees, 4 players, processes kept
#   scripts/start_league.sh --players 6 --strategies random,history --stop
#
# Every flag of `league up` works here (see --help): --players, --referees, --lm-port,
# --referee-port, --player-port, --play-port, --league-id, --strategies, --max-concurrent, --seed,
# --shared-dir, --store postgresql://… (the results in PostgreSQL), and --stop to stop
# everything at the end. Without --stop the processes
# keep serving (standings at http://127.0.0.1:8000/, games at http://127.0.0.1:8090/play)
# until scripts/stop_league.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
for arg in "$@"; do
  if [ "$arg" = --help ] || [ "$arg" = -h ]; then  # help before (and without) installing
    cat <<'HELP'
Usage: scripts/start_league.sh [OPTIONS]

Install Agent League into .venv (first run only: the league's packages, no compiler
needed), start a League Manager, the play service, referees and players, run the league,
print the standings.

Options (those of `league up`):
  --shared-dir <path>     the SHARED folder (default: $LEAGUE_SHARED_DIR, else ./SHARED)
  --players <int>         default: agents_config.json
  --referees <int>        default: agents_config.json
  --lm-port <int>         default: system.json
  --referee-port <int>    first referee port [default: 8001]
  --player-port <int>     first player port [default: 8101]
  --play-port <int>       the play service's port (/play) [default: system.json, 8090]
  --strategies <str>      comma-separated strategies, cycled over the players
  --max-concurrent <int>  matches per referee [default: 4]
  --league-id <str>
  --seed <int>            seed for reproducible draws
  --store <url>           the League Manager's results in PostgreSQL:
                          postgresql://USER:PASSWORD@HOST:PORT/DATABASE
                          [default: $LEAGUE_STORE_URL, else system.json store_url,
                          else the JSON files under SHARED/data]
  --stop / --keep         stop everything at the end [default: keep]
  --help                  show this message and exit

Python 3.10-3.13 (set PYTHON=/path/to/python to choose one). Stop a kept league with
scripts/stop_league.sh.
HELP
    exit 0
  fi
done
. scripts/_venv.sh
ensure_venv
exec .venv/bin/league up "$@"
