#!/usr/bin/env bash
# Quick start: set up, then measure every collective on 2 and 4 local ranks with validation.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/mpi-env.sh
mkdir -p results/demo
for np in 2 4; do
  echo "== colltune run on $np local ranks =="
  "${MPIRUN[@]}" -np "$np" build/src/colltune run --coll all -b 8 -e 1M -f 8 --check \
    --json "results/demo/run-np$np.jsonl"
done
echo "demo: records in results/demo/run-np2.jsonl and results/demo/run-np4.jsonl"
