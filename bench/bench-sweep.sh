#!/usr/bin/env bash
# The sweep driver's own cost per point (spawn, supervision, store), beyond the launch itself.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_sweep.py --colltune build/src/colltune "$@"
