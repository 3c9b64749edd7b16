#!/usr/bin/env bash
# What --interleave buys over one launch per algorithm; see bench/bench_interleave.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_interleave.py --colltune build/src/colltune "$@"
