#pragma once
// The arithmetic behind Pattern, shared by host code and the NCCL backend's device kernels: one
// definition of the inputs, so host and device validation cannot drift apart.

#include <cstdint>

#ifdef __CUDACC__
#define COLLTUNE_HD __host__ __device__
#else
#define COLLTUNE_HD
#endif

namespace colltune {

// Everything an input value depends on besides (rank, index). `op` is a ReduceOp as an int.
struct PatternParams {
  std::uint64_t seed = 0;
  std::int64_t low = 0;  // inputs lie in [low, low + span) unless op is prod
  std::uint64_t span = 1;
  int nranks = 1;
  int op = 0;
  bool is_signed = false;
};

inline constexpr int kPatternOpSum = 0, kPatternOpProd = 1, kPatternOpMax = 2, kPatternOpMin = 3;

COLLTUNE_HD inline std::uint64_t pattern_mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

COLLTUNE_HD inline std::int64_t pattern_input(const PatternParams& p, int rank,
                                              std::uint64_t index) {
  const std::uint64_t h =
      pattern_mix(p.seed ^ pattern_mix(index * 0x100000001B3ULL + static_cast<unsigned>(rank)));
  if (p.op == kPatternOpProd) {
    // One rank per element contributes 1..3, one other may flip the sign, the rest give 1: the
    // product stays within +-3 whatever the rank count, and each rank still matters.
    const auto n = static_cast<std::uint64_t>(p.nranks);
    if (rank == static_cast<int>(index % n)) return static_cast<std::int64_t>(h % 3) + 1;
    if (p.is_signed && rank == static_cast<int>((index + 1) % n) && (h >> 32) % 2 == 1) return -1;
    return 1;
  }
  return p.low + static_cast<std::int64_t>(h % p.span);
}

COLLTUNE_HD inline std::int64_t pattern_reduced(const PatternParams& p, std::uint64_t index) {
  std::int64_t acc = pattern_input(p, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const std::int64_t v = pattern_input(p, r, index);
    if (p.op == kPatternOpSum) acc += v;
    if (p.op == kPatternOpProd) acc *= v;
    if (p.op == kPatternOpMax) acc = v > acc ? v : acc;
    if (p.op == kPatternOpMin) acc = v < acc ? v : acc;
  }
  return acc;
}

}  // namespace colltune
