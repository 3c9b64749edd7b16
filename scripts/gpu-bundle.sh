#!/usr/bin/env bash
# Packs build/src/colltune with the shared libraries a bare GPU host lacks (fmt, yaml-cpp, hwloc,
# Open MPI's libraries, libstdc++) into gpu-bundle/, for hosts that have the NVIDIA driver, CUDA
# and NCCL but none of the Debian libraries colltune builds with. NCCL (about 200 MiB) and the
# CUDA runtime are left to the host. Then, there: scripts/gpu-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/src/colltune ] || scripts/setup.sh >/dev/null
rm -rf gpu-bundle
mkdir -p gpu-bundle/lib
cp build/src/colltune gpu-bundle/
strip --strip-debug gpu-bundle/colltune  # the carry to a device host is size-limited
# The single-process build without MPI (scripts/test.sh makes it), where there is one.
if [ -x build/nompi/src/colltune ]; then
  cp build/nompi/src/colltune gpu-bundle/colltune-nompi
  strip --strip-debug gpu-bundle/colltune-nompi
fi
ldd build/src/colltune | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*) ;;  # the host's
    libnccl.so*|libcudart.so*|libcuda.so*) ;;                                        # the host's
    *) cp -L "$lib" gpu-bundle/lib/ && strip --strip-debug "gpu-bundle/lib/$(basename "$lib")" ;;
  esac
done
du -sh gpu-bundle
