#!/usr/bin/env bash
# Racing against the fixed budget: wall time and the quality of the pick; see
# bench/bench_race.py --help. A benchmark: run it on an idle machine, never during a build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_race.py --colltune build/src/colltune "$@"
