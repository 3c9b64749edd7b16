#!/usr/bin/env bash
# The CI gate's false alarms and misses on this machine; see bench/bench_gate.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_gate.py --colltune build/src/colltune "$@"
