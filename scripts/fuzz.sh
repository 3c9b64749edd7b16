#!/usr/bin/env bash
# Fuzzes colltune's readers (tests/fuzz/readers_fuzz.cpp) with libFuzzer for a bounded time:
# builds build-fuzz with clang (ASan and UBSan, every library instrumented), then runs from the
# seeds in tests/fuzz/seeds. Usage: scripts/fuzz.sh [SECONDS] (default 60). Exit 0 when nothing
# was found; libFuzzer's own exit and crash file otherwise. Needs clang and libclang-rt-dev
# (scripts/setup.sh --with-test-tools installs them where the distribution has them).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# Exit 77: ctest's "skipped", with the reason, where this machine cannot build a fuzzer.
probe=$(mktemp -d)
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' >"$probe/p.cpp"
if ! command -v clang++ >/dev/null || ! clang++ -fsanitize=fuzzer,address "$probe/p.cpp" -o "$probe/p" 2>/dev/null; then
  rm -rf "$probe"
  echo "fuzz: skipped: no clang++ with libFuzzer here (apt-get install clang libclang-rt-dev)"
  exit 77
fi
rm -rf "$probe"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCOLLTUNE_FUZZ=ON -DCOLLTUNE_BUILD_TESTS=OFF -DCOLLTUNE_BUILD_BENCH=OFF \
  -DCOLLTUNE_WITH_CUDA=OFF -DCOLLTUNE_WITH_NCCL=OFF >/dev/null
cmake --build build-fuzz --target colltune_fuzz_readers
corpus=$(mktemp -d /tmp/colltune-fuzz-corpus-XXXXXX)
trap 'rm -rf "$corpus" /tmp/colltune-fuzz-??????.np4.log' EXIT
cp tests/fuzz/seeds/* "$corpus"/
# 4 KiB inputs reach every table shape; 2 GiB caps a runaway allocation as a finding.
build-fuzz/colltune_fuzz_readers "$corpus" -max_total_time="$seconds" -max_len=4096 \
  -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix=build-fuzz/ \
  -error_exitcode=1  # libFuzzer's default, 77, is ctest's "skipped": a finding must fail
