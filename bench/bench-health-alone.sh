#!/usr/bin/env bash
# colltune health's stage 1 at once against one node after another; see bench/bench_health_alone.py.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_health_alone.py --colltune build/src/colltune "$@"
