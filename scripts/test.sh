#!/usr/bin/env bash
# Quick start: set up, build, and run every test (unit tests and real mpirun runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-test-tools
# Where the NCCL backend builds, also the single-process build without MPI that GPU hosts
# lacking MPI use (COLLTUNE_WITH_MPI=OFF); tests/nompi checks it.
if build/src/colltune --version | grep -q " nccl"; then
  cmake -S . -B build/nompi -G Ninja -DCOLLTUNE_WITH_MPI=OFF -DCOLLTUNE_BUILD_TESTS=OFF \
    -DCOLLTUNE_BUILD_BENCH=OFF >/dev/null
  cmake --build build/nompi --target colltune
fi
ctest --test-dir build --output-on-failure "$@"
