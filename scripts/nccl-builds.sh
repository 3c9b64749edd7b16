#!/usr/bin/env bash
# Usage: scripts/nccl-builds.sh [WORK_DIR]   (default build/nccl-builds)
# Builds the NCCL backend (colltune_nccl) and the tuner plugin against every NCCL people run
# that this machine can get: the CUDA toolkit's (/usr/local/cuda), NCCL 2.32.6 from PyPI's
# nvidia-nccl-cu13 wheel, and the oldest supported, 2.22.3, from nvidia-nccl-cu12 (its wheel
# has nccl.h). Each build compiles against that NCCL's headers; then every NCCL symbol the
# backend calls must be one that NCCL's libnccl.so.2 defines, as the final link would need (one
# compile of the library instead of a whole colltune per NCCL). Exit 1 naming the NCCL and what
# failed; 77 where nothing can be checked (no CUDA compiler, no wheel and no CUDA NCCL).
set -uo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-build/nccl-builds}")
mkdir -p "$work"
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "nccl-builds: skipped, no CUDA compiler (nvcc) here"; exit 77
fi
# name, pip requirement (empty: a prefix already here), prefix
targets=()
[ -f /usr/local/cuda/include/nccl.h ] && targets+=("cuda-toolkit||/usr/local/cuda")
targets+=("2.32.6|nvidia-nccl-cu13==2.32.6|$work/nccl-2.32.6/nvidia/nccl"
          "2.22.3|nvidia-nccl-cu12==2.22.3|$work/nccl-2.22.3/nvidia/nccl")
checked=0 fail=0
for target in "${targets[@]}"; do
  IFS='|' read -r name wheel prefix <<< "$target"
  if [ -n "$wheel" ] && [ ! -f "$prefix/include/nccl.h" ]; then
    rm -rf "$work/wheel-$name" && mkdir -p "$work/wheel-$name"
    if ! python3 -m pip download --no-deps -q -d "$work/wheel-$name" "$wheel" >/dev/null 2>&1; then
      echo "nccl-builds: NCCL $name: cannot download $wheel (no PyPI here?): not checked"
      continue
    fi
    python3 -m zipfile -e "$work"/wheel-"$name"/*.whl "$work/nccl-$name" || continue
    rm -rf "$work/wheel-$name"
  fi
  lib=$(ls "$prefix"/lib/libnccl.so.2 "$prefix"/lib64/libnccl.so.2 "$prefix"/lib/libnccl.so 2>/dev/null | head -1)
  version=$(sed -n 's/^#define NCCL_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$prefix/include/nccl.h" | paste -sd.)
  build="$work/build-$name"
  echo "== NCCL $name ($version, $prefix)"
  if ! { cmake -S . -B "$build" -G Ninja -DNCCL_HOME="$prefix" -DCOLLTUNE_WITH_NCCL=ON \
           -DCOLLTUNE_BUILD_TESTS=OFF -DCOLLTUNE_BUILD_BENCH=OFF > "$build.log" 2>&1 &&
         cmake --build "$build" --target colltune_nccl nccl-tuner-colltune >> "$build.log" 2>&1; }; then
    echo "nccl-builds: NCCL $name ($version): the NCCL backend or the plugin does not compile:"
    grep -m 5 -E "error|Error" "$build.log"
    fail=1; continue
  fi
  grep -q "NCCL_INCLUDE_DIR:PATH=$prefix/include" "$build/CMakeCache.txt" || {
    echo "nccl-builds: NCCL $name: CMake took another NCCL: $(grep NCCL_INCLUDE_DIR: "$build/CMakeCache.txt")"
    fail=1; continue; }
  wanted=$(nm -u "$build"/src/libcolltune_nccl.a 2>/dev/null | awk '$1 == "U" && $2 ~ /^nccl[A-Z]/ {print $2}' | sort -u)
  defined=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
  missing=$(comm -23 <(echo "$wanted") <(echo "$defined") | paste -sd' ')
  if [ -n "$missing" ]; then
    echo "nccl-builds: NCCL $name ($version): $lib lacks $missing, which the backend calls"
    fail=1; continue
  fi
  echo "   compiles; its libnccl defines all $(echo "$wanted" | wc -w) NCCL functions the backend calls"
  checked=$((checked + 1))
done
[ "$fail" -ne 0 ] && exit 1
[ "$checked" -eq 0 ] && { echo "nccl-builds: skipped, no NCCL could be had"; exit 77; }
echo "nccl-builds: $checked NCCL(s) checked"
