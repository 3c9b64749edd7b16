#!/usr/bin/env bash
# Quick start: set up, show every collective on 2 and 4 local ranks, then run the built-in
# default sweep (Open MPI's allreduce and alltoall algorithms x 2 placements x 2 rank counts).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/mpi-env.sh
for np in 2 4; do
  echo "== colltune run: every collective on $np local ranks =="
  "${MPIRUN[@]}" -np "$np" build/src/colltune run --coll all -b 8 -e 1M -f 8 --check
done
echo "== colltune sweep: the built-in default =="
exec build/src/colltune sweep
