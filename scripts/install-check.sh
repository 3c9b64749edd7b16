#!/usr/bin/env bash
# The install as a cluster gets it, after the build (CI's last step): cmake --install into a
# temporary prefix, the build tree moved away (and put back on exit), then the demo's main job
# (the built-in default sweep), a small sweep and its report run from the prefix; then the .deb
# (cpack) installed by apt on this machine and run: --version, run at np 2, report; then removed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
. scripts/mpi-env.sh
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
work=$(mktemp -d /tmp/colltune-install-XXXXXX)
prefix="$work/prefix"
(cd build && cpack >/dev/null)
cp build/colltune_*.deb "$work/"
cmake --install build --prefix "$prefix" >/dev/null
# The prefix alone: nothing may come from the build tree.
mv build "$work/build-moved-away"
trap 'mv "$work/build-moved-away" "$root/build"' EXIT
cd "$work"
echo "== from $prefix: the built-in default sweep =="
"$prefix/bin/colltune" sweep --results "$work/default" | tail -3
cat > "$work/small.yaml" <<'SPEC'
name: install-check
launcher_args: [--oversubscribe]
repetitions: 2
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 4K, step_factor: 8, iters: 5, samples: 5}
axes:
  np: [2]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 2]
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
SPEC
echo "== from $prefix: a small sweep and its report =="
"$prefix/bin/colltune" sweep "$work/small.yaml" --results "$work/small" | tail -2
"$prefix/bin/colltune" report "$work"/small/* | head -3
test -f "$prefix/share/colltune/configs/annotated.yaml"
test -f "$prefix/share/doc/colltune/README.md"
test -f "$prefix/lib/libnccl-tuner-colltune.so"
echo "== the .deb, installed by apt =="
"${sudo_cmd[@]}" apt-get install -y -qq "$work"/colltune_*.deb >/dev/null
/usr/bin/colltune --version
"${MPIRUN[@]}" -np 2 /usr/bin/colltune run --coll allreduce -b 8 -e 1K --check --json "$work/deb.jsonl" | tail -2
/usr/bin/colltune report "$work/deb.jsonl" | head -3
"${sudo_cmd[@]}" apt-get remove -y -qq colltune >/dev/null
echo "install-check: ok"
