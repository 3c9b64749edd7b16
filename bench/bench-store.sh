#!/usr/bin/env bash
# The sweep store under abuse; see bench/bench_store.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_store.py --colltune build/src/colltune "$@"
