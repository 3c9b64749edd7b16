#!/usr/bin/env bash
# Benchmark of the MPI backend against OSU's conventions; see bench/bench_mpi.py --help.
# Set OSU_DIR to a directory with osu_allreduce, osu_alltoall and osu_latency to run OSU
# Micro-Benchmarks alongside on the same machine and print the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
. scripts/mpi-env.sh
exec python3 bench/bench_mpi.py --colltune build/src/colltune "$@"
