#!/usr/bin/env bash
# Memory and output size of report, compare and history on a run of 10^6 records; see
# bench/bench_bigrun.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
exec python3 bench/bench_bigrun.py --colltune build/src/colltune "$@"
