#!/usr/bin/env bash
# Usage: scripts/gpu-bundle.sh [DIR]   (DIR defaults to gpu-bundle/)
# Packs colltune for a GPU host that has the NVIDIA driver and NCCL (the CUDA prefix or the
# nvidia-nccl-cu13 wheel) but none of the Debian libraries colltune builds with: the MPI build
# (build/src/colltune), the build without MPI (colltune-nompi, for hosts without Open MPI), and
# in lib/ every shared library they need except glibc's, the driver's and NCCL (about 200 MiB,
# left to the host). The CUDA runtime is linked in. Both binaries carry RPATH $ORIGIN/lib.
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
cmake --build build --target colltune >/dev/null  # up to date with the sources
if [ ! -f build/nompi/CMakeCache.txt ]; then
  cmake -S . -B build/nompi -G Ninja -DCOLLTUNE_WITH_MPI=OFF -DCOLLTUNE_BUILD_TESTS=OFF \
    -DCOLLTUNE_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build/nompi --target colltune >/dev/null
rm -rf "$out"
mkdir -p "$out/lib"
cp build/src/colltune "$out/colltune"
cp build/nompi/src/colltune "$out/colltune-nompi"
for bin in "$out/colltune" "$out/colltune-nompi"; do
  ldd "$bin" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;  # glibc: the host's
    libnccl.so*|libcuda.so*) ;;                                        # NCCL and the driver
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
strip --strip-debug "$out"/colltune "$out"/colltune-nompi "$out"/lib/*  # the carry is size-limited
# The newest GLIBC_x.y symbol version any file asks for is the oldest glibc that can load them.
glibc=$(for f in "$out"/colltune "$out"/colltune-nompi "$out"/lib/*; do
          objdump -T "$f" | grep -o 'GLIBC_[0-9][0-9.]*'
        done | sed 's/GLIBC_//' | sort -uV | tail -1)
printf 'glibc %s\nbuilt-on %s\n' "$glibc" "$(. /etc/os-release && echo "$PRETTY_NAME")" \
  > "$out/REQUIRES"
echo "gpu-bundle: $out ($(du -sh "$out" | cut -f1)), needs glibc >= $glibc; then, on the GPU host:"
echo "  scripts/gpu-check.sh   (finds NCCL in the CUDA prefix or python3's nvidia-nccl-cu13 wheel)"
