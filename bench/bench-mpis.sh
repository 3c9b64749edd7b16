#!/usr/bin/env bash
# Racing, regret and verify gain under every MPI colltune is built against; see
# bench/bench_mpis.py --help. Needs scripts/setup.sh --with-test-tools for the other MPIs.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
exec python3 bench/bench_mpis.py --build build "$@"
