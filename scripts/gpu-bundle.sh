#!/usr/bin/env bash
# Usage: scripts/gpu-bundle.sh [DIR]   (DIR defaults to gpu-bundle/)
# Packs colltune for a GPU host that has the NVIDIA driver and NCCL (the CUDA prefix or the
# nvidia-nccl-cu13 wheel) but none of the Debian libraries colltune builds with: the MPI build
# (build/src/colltune), the build without MPI (colltune-nompi, for hosts without Open MPI), the
# NCCL tuner plugin beside them (libnccl-tuner-colltune.so, where verify looks for it), and
# in lib/ every shared library they need except glibc's, the driver's and NCCL (about 200 MiB,
# left to the host). The CUDA runtime is linked in. Both binaries carry RUNPATH $ORIGIN/lib and
# nothing else (the build's RPATH names this machine's CUDA prefix, which would load this
# machine's NCCL layout on the host before LD_LIBRARY_PATH); the libraries carry $ORIGIN.
# DIR/REQUIRES names the oldest glibc the bundle runs on (built where it is built, it needs that
# one's symbol versions); scripts/gpu-check.sh checks it before anything else.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-bundle}
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
if ! build/src/colltune --version | grep -q " nccl"; then
  echo "gpu-bundle: build/src/colltune has no NCCL backend (CUDA toolkit, nvcc or NCCL missing" \
       "at build time); nothing to bundle" >&2
  exit 2
fi
# Up to date with the sources; colltune-nompi is built beside colltune from the same libraries.
cmake --build build --target colltune colltune-nompi nccl-tuner-colltune >/dev/null
rm -rf "$out"
mkdir -p "$out/lib"
cp build/src/colltune "$out/colltune"
cp build/src/colltune-nompi "$out/colltune-nompi"
cp build/src/libnccl-tuner-colltune.so "$out/libnccl-tuner-colltune.so"
bins=("$out/colltune" "$out/colltune-nompi" "$out/libnccl-tuner-colltune.so")
for bin in "${bins[@]}"; do
  ldd "$bin" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;  # glibc: the host's
    libnccl.so*|libcuda.so*) ;;                                        # NCCL and the driver
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
strip --strip-debug "${bins[@]}" "$out"/lib/*  # the carry is size-limited
# RUNPATH, not RPATH: searched after LD_LIBRARY_PATH, so the host's NCCL (the wheel's, found by
# gpu-check.sh) is the one loaded.
for bin in "${bins[@]}"; do patchelf --set-rpath '$ORIGIN/lib' "$bin"; done
for lib in "$out"/lib/*; do patchelf --set-rpath '$ORIGIN' "$lib"; done
for f in "${bins[@]}" "$out"/lib/*; do
  paths=$(readelf -d "$f" | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]/\1=\2/p' | paste -sd' ')
  case "$paths" in
    ""|'RUNPATH=$ORIGIN/lib'|'RUNPATH=$ORIGIN') ;;
    *) echo "gpu-bundle: $f carries $paths; allowed: RUNPATH \$ORIGIN/lib (\$ORIGIN in lib/)" >&2
       exit 2 ;;
  esac
done
# The Open MPI this MPI build speaks to; gpu-check.sh runs the build without MPI under another.
mpi=$(mpirun --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
# The newest GLIBC_x.y symbol version any file asks for is the oldest glibc that can load them.
glibc=$(for f in "${bins[@]}" "$out"/lib/*; do
          objdump -T "$f" | grep -o 'GLIBC_[0-9][0-9.]*'
        done | sed 's/GLIBC_//' | sort -uV | tail -1)
printf 'glibc %s\nbuilt-on %s\nopenmpi %s\n' "$glibc" "$(. /etc/os-release && echo "$PRETTY_NAME")" \
  "${mpi:-unknown}" > "$out/REQUIRES"
echo "gpu-bundle: $out ($(du -sh "$out" | cut -f1)), needs glibc >= $glibc; then, on the GPU host:"
echo "  scripts/gpu-check.sh   (finds NCCL in the CUDA prefix or python3's nvidia-nccl-cu13 wheel)"
