#!/usr/bin/env bash
# colltune history's false alarms, misses and speed on this machine; see bench/bench_history.py
# --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_history.py --colltune build/src/colltune "$@"
