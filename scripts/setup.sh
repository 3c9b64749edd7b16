#!/usr/bin/env bash
# Installs what colltune builds with (Debian 12 / Ubuntu 22.04+ packages) and builds it into
# build/. Safe to run again: it installs only what is missing and rebuilds incrementally.
# --with-test-tools also installs what the tests use beyond the build (headless Chromium, Slurm
# with munge for the one-host Slurm of scripts/slurm-local.sh, Prometheus and its Pushgateway,
# pip to fetch the NCCL wheels scripts/nccl-builds.sh compiles against, and Debian's MPICH, which
# a second colltune is built against in build-mpich/ for tests/mpi/mpich_smoke.py; Open MPI stays
# the default MPI).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config git python3 procps
          openmpi-bin libopenmpi-dev libfmt-dev nlohmann-json3-dev libcli11-dev libhwloc-dev
          libyaml-cpp-dev libgtest-dev libbenchmark-dev libboost-dev patchelf libcurl4-openssl-dev)
[ "${1:-}" = "--with-test-tools" ] && packages+=(chromium slurmctld slurmd slurm-client munge python3-prometheus-client
                                              prometheus prometheus-pushgateway python3-pip
                                              mpich libmpich-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# libFuzzer for the fuzz test (clang's runtime): best effort, as its package name varies between
# distributions; without it that one test reports Skipped.
if [ "${1:-}" = "--with-test-tools" ] && ! dpkg-query -W -f='${Status}' libclang-rt-dev 2>/dev/null |
    grep -q "install ok installed"; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    clang libclang-rt-dev >/dev/null 2>&1 || echo "setup: no clang libFuzzer here: fuzz.readers will be skipped"
fi

build_type=${COLLTUNE_BUILD_TYPE:-RelWithDebInfo}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" >/dev/null
cmake --build build

# The same colltune against MPICH (colltune alone: the tests run the Open MPI build's).
if [ "${1:-}" = "--with-test-tools" ] && command -v mpicxx.mpich >/dev/null; then
  cmake -S . -B build-mpich -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
    -DMPI_C_COMPILER="$(command -v mpicc.mpich)" -DMPI_CXX_COMPILER="$(command -v mpicxx.mpich)" \
    -DCOLLTUNE_WITH_NCCL=OFF -DCOLLTUNE_BUILD_TESTS=OFF -DCOLLTUNE_BUILD_BENCH=OFF >/dev/null
  cmake --build build-mpich --target colltune
fi
