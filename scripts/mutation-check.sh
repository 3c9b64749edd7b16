#!/usr/bin/env bash
# Do the tests catch a wrong number? One-line mutants, see scripts/mutation_check.py --help.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh --with-test-tools >/dev/null
if [ -n "$(git status --porcelain src)" ]; then
  echo "mutation-check: src/ has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
. scripts/mpi-env.sh
exec python3 scripts/mutation_check.py "$@"
