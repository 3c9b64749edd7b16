#!/usr/bin/env bash
# Usage: scripts/gpu-check.sh [BUNDLE_DIR]   (default gpu-bundle/, else build/)
# One short command for a GPU host with the driver and NCCL but perhaps no MPI: runs the gpu
# tests (tests/gpu/validate_gpu.py: every collective x dtype x op, with and without -G, a
# corrupted element caught, --interleave NCCL_ALGO switching where two GPUs exist), then prints
# allreduce, alltoall, sendrecv and alltoallv (zipf:1) at 8 B, 1 MiB and 1 GiB, with and
# without -G, next to the device copy bandwidth as the ceiling. Runs colltune from the bundle (scripts/gpu-bundle.sh:
# checks the host's glibc against the bundle's REQUIRES first) or build/, building build/ when
# neither exists. NCCL and the CUDA runtime (which the topology probe loads) are looked for in
# the CUDA prefix, $NCCL_HOME, and every python3 site directory's nvidia/nccl/lib, nvidia/cu13/lib
# and nvidia/cuda_runtime/lib (the wheels' layouts; nvidia.nccl is a namespace package). Without
# mpirun on PATH the bundle's build without MPI runs. Two-rank checks run on one GPU where the
# host's NCCL is 2.30 or later (NCCL_MULTI_RANK_GPU_ENABLE=1); on an older one validate_gpu.py
# says which it skipped and why. Everything printed also goes to one log, $GPU_CHECK_LOG
# (default gpu-check.log here; $OUT/gpu-check.log on the lent device machine). Exit 2 when
# colltune cannot start.
set -uo pipefail
log=${GPU_CHECK_LOG:-${OUT:+$OUT/}gpu-check.log}
exec > >(tee -a "$log") 2>&1
echo "== gpu-check $(date -u +%FT%TZ) on $(hostname): log $log"
bundle=$(realpath -m "${1:-$(dirname "$0")/../gpu-bundle}")
cd "$(dirname "$0")/.."
if [ ! -x "$bundle/colltune" ] && [ ! -x build/src/colltune ]; then
  # Build here; without MPI on the host, the single-process build (COLLTUNE_WITH_MPI=OFF).
  mpi=ON; command -v mpicxx > /dev/null || mpi=OFF
  echo "== building colltune (COLLTUNE_WITH_MPI=$mpi)"
  cmake -S . -B build -G Ninja -DCOLLTUNE_WITH_MPI=$mpi -DCOLLTUNE_WITH_NCCL=ON \
    -DCOLLTUNE_BUILD_TESTS=OFF -DCOLLTUNE_BUILD_BENCH=OFF > /dev/null && \
    cmake --build build --target colltune nccl-tuner-colltune || exit 2
fi
if [ -x "$bundle/colltune" ]; then
  needs=$(awk '$1 == "glibc" {print $2}' "$bundle/REQUIRES" 2>/dev/null)
  has=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  if [ -n "$needs" ] && [ "$(printf '%s\n%s\n' "$needs" "${has:-0}" | sort -V | head -1)" != "$needs" ]; then
    echo "gpu-check: the bundle $bundle needs glibc >= $needs ($(sed -n 's/^built-on //p' \
      "$bundle/REQUIRES")); this host has ${has:-an unknown one}: build here instead" \
      "(rm -rf $bundle; scripts/gpu-check.sh builds with cmake) or bundle on an older system" >&2
    exit 2
  fi
  bin=$bundle/colltune
  # The MPI build needs the Open MPI it was built against; HPC-X, MPICH or another Open MPI
  # series would fail inside MPI_Init. The build without MPI needs none.
  wanted=$(awk '$1 == "openmpi" {print $2}' "$bundle/REQUIRES" 2>/dev/null)
  found=$(mpirun --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
  if [ -x "$bundle/colltune-nompi" ]; then
    if [ ! -x "$(command -v mpirun)" ]; then
      bin=$bundle/colltune-nompi
      echo "== no mpirun here: running the build without MPI ($bin)"
    elif [ -n "$wanted" ] && [ "$found" != "$wanted" ]; then
      bin=$bundle/colltune-nompi
      echo "== mpirun here is $(mpirun --version 2>&1 | head -1), not Open MPI $wanted, which" \
        "the MPI build needs: running the build without MPI ($bin)"
    fi
  fi
else
  bin=build/src/colltune
fi
add_library_dir() { [ -d "$1" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$1"; }
prefixes=(${NCCL_HOME:+"$NCCL_HOME/lib"} /usr/local/cuda/lib64 /usr/local/cuda/lib)
for dir in "${prefixes[@]}"; do add_library_dir "$dir"; done
# site, not an import of nvidia.nccl: that is a namespace package without a __file__.
sites=$(python3 -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
while read -r site; do
  for wheel in nccl cu13 cuda_runtime; do [ -n "$site" ] && add_library_dir "$site/nvidia/$wheel/lib"; done
done <<< "$sites"
missing=$(ldd "$bin" 2>&1 | awk '/not found/ {print $1}' | paste -sd' ')
if [ -n "$missing" ]; then
  echo "gpu-check: $bin cannot load $missing; looked in ${prefixes[*]} and" \
    "nvidia/{nccl,cu13,cuda_runtime}/lib under python3's site directories ($(echo $sites)):" \
    "install NCCL (pip install nvidia-nccl-cu13) or set NCCL_HOME" >&2
  exit 2
fi
fail=0
run() { "$bin" run --backend nccl "$@"; }

echo "== topology and ceilings"
"$bin" topo --ceilings | grep -E "GPU|ceiling|NUMA" || fail=1
if ! probe=$(run -b 8 -e 8 -n 1 -w 0 --repetitions 1 -c 0 2>&1); then
  echo "$probe" | grep -E "^colltune" || echo "$probe" | tail -3
  exit 2
fi
echo "== gpu tests: every collective x dtype x op, plain and -G, corruption caught, --interleave"
echo "   NCCL_ALGO, -g 2 if possible"
python3 tests/gpu/validate_gpu.py --colltune "$bin" || fail=1
if [ "$bin" != "$bundle/colltune-nompi" ] && [ -x "$bundle/colltune-nompi" ]; then
  echo "== the build without MPI (COLLTUNE_WITH_MPI=OFF): every collective, checked, -g 1"
  "$bundle/colltune-nompi" --version
  "$bundle/colltune-nompi" run -g 1 --coll all -b 8 -e 1M -f 32 -n 2 --repetitions 2 -c 1 \
    > /tmp/gpu-check-nompi.log 2>&1 || { echo "no-MPI build failed:"; tail -5 /tmp/gpu-check-nompi.log; fail=1; }
  grep -E "Out of bounds" /tmp/gpu-check-nompi.log
fi
# The ceiling: GPU 0's device-to-device copy bandwidth, as `colltune topo --ceilings` measures it.
topo_json=$("$bin" topo --ceilings --json)
ceiling=$(python3 -c '
import json, sys
c = [x["gbps"] for x in json.load(sys.stdin)["ceilings"] if x["kind"] == "device_memcpy"]
print(c[0] if c else 0)' <<< "$topo_json")
# Without a ceiling, say what is missing (a wheel-only NCCL has no CUDA runtime to copy with).
ceiling_text="$ceiling GB/s"
if [ "$ceiling" = 0 ]; then
  ceiling_text="none: $(python3 -c '
import json, sys
print(json.load(sys.stdin).get("device_ceilings_absent") or "not measured")' <<< "$topo_json")"
fi
echo "== single GPU: time (us) and busbw (GB/s), median of 20 samples; copy ceiling $ceiling_text"
# One rank's busbw is 0 by definition (factor (n-1)/n); its algbw is a device copy, so the share
# of the ceiling is taken of algbw there.
printf '%-10s %6s %4s %12s %10s %10s %10s\n' collective size -G time_us algbw_gbps busbw_gbps of_ceiling
for coll in allreduce alltoall sendrecv alltoallv; do
  for size in 8 1M 1G; do
    for graph in "" "-G"; do
      out=$(mktemp)
      exchange=(); [ "$coll" = alltoallv ] && exchange=(--exchange zipf:1)
      if run --coll "$coll" "${exchange[@]}" -b "$size" -e "$size" -n 20 --repetitions 20 \
           --in-place never -c 0 --json "$out" $graph > /dev/null 2>&1; then
        python3 - "$out" "$coll" "$size" "${graph:--}" "$ceiling" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
ceiling = float(sys.argv[5])
bw = r["algbw_gbps"] if r["nranks"] == 1 else r["busbw_gbps"]
share = f"{100 * bw / ceiling:.1f}%" if ceiling > 0 else "no ceiling"
print(f"{sys.argv[2]:<10} {sys.argv[3]:>6} {sys.argv[4]:>4} {r['stats_seconds']['median'] * 1e6:>12.2f} "
      f"{r['algbw_gbps']:>10.2f} {r['busbw_gbps']:>10.2f} {share:>10}")
PY
      else
        echo "$coll $size ${graph:--}: failed"; fail=1
      fi
      rm -f "$out"
    done
  done
done
# nccl-tests on the same GPU, where built: 8 B latency with -G and 1 GiB algbw, both ways.
if [ -x "${NCCL_TESTS_DIR:-/nonexistent}/all_reduce_perf" ]; then
  echo "== against nccl-tests (all_reduce_perf, out of place, -G)"
  # colltune's buffers from ncclMemAlloc, as nccl-tests', and from cudaMalloc at 1 GiB: under
  # -G NCCL registers the first kind (zero-copy, NVLS), so the difference is the allocator's.
  for size in 8 1G 1G-cudamalloc; do
    allocator=(); [ "$size" = 1G-cudamalloc ] && { allocator=(--allocator cudamalloc); size=1G; }
    iters=1000; [ "$size" = 1G ] && iters=20
    theirs=$("$NCCL_TESTS_DIR/all_reduce_perf" -b "$size" -e "$size" -g 1 -G 1 -n $iters -w 100 \
               2>&1 | awk '$1 ~ /^[0-9]+$/ && NF >= 12 {print $6, $7}' | tail -1)
    out=$(mktemp)
    run --coll allreduce -b "$size" -e "$size" -G -n $iters -w 100 --repetitions 20 \
      --in-place never -c 0 --json "$out" "${allocator[@]}" > /dev/null 2>&1 || fail=1
    python3 - "$out" "$size${allocator:+ (cudaMalloc)}" "$theirs" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
their_us, their_algbw = (float(x) for x in sys.argv[3].split())
ours_us, ours_algbw = r["stats_seconds"]["median"] * 1e6, r["algbw_gbps"]
print(f"allreduce {sys.argv[2]:>3}: colltune {ours_us:.2f} us {ours_algbw:.2f} GB/s, nccl-tests "
      f"{their_us:.2f} us {their_algbw:.2f} GB/s; time ratio {ours_us / their_us:.3f}, "
      f"algbw ratio {ours_algbw / their_algbw:.3f}")
PY
    rm -f "$out"
  done
else
  echo "== nccl-tests: not compared (set NCCL_TESTS_DIR to a directory with all_reduce_perf)"
fi
exit $fail
