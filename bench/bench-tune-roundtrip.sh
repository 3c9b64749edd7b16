#!/usr/bin/env bash
# Do Open MPI rules emitted by `colltune tune` reproduce the winners' timings? Sweeps the
# coll/tuned allreduce algorithms, emits the rules file, reruns with it, and prints per size the
# rules run's median against the winner's and the default's (one run, ratios only).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_tune_roundtrip.py --colltune build/src/colltune "$@"
