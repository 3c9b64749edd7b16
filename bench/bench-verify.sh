#!/usr/bin/env bash
# What a tuned rules file promised against what verify measures in fresh launches; see
# bench/bench_verify.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_verify.py --colltune build/src/colltune "$@"
