#!/usr/bin/env bash
# Quick start: set up, build, and run every test (unit tests and real mpirun runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-test-tools
ctest --test-dir build --output-on-failure "$@"
