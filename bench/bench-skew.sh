#!/usr/bin/env bash
# The cost of skew in alltoallv: zipf s = 0, 0.5, 1, 1.5 at np 4; see bench/bench_skew.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_skew.py --colltune build/src/colltune "$@"
