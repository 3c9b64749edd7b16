#!/usr/bin/env bash
# colltune health's error rates on a 4-node namespace cluster; see bench/bench_health.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_health.py --colltune build/src/colltune "$@"
