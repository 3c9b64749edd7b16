#pragma once
// The arithmetic behind Pattern, shared by host code and the NCCL backend's device kernels: one
// definition of the inputs, so host and device validation cannot drift apart.

#include <cstdint>
#include <type_traits>

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
  // Sums in the narrowest formats: only this many ranks (rotating with the index) contribute a
  // nonzero value, so that no sum leaves the exactly representable range.
  int active_ranks = 1;
  int op = 0;
  bool is_signed = false;
  bool is_floating = false;
  // Float avg only. NCCL (enqueue.cc hostToDevRedOp) multiplies each input by 1/n rounded to
  // the type (through float for the narrow ones) and sums in the type: avg_scale is that 1/n,
  // avg_unit_roundoff 2^-(mantissa bits + 1) (0 when n is a power of two: every step is exact),
  // avg_underflow_error half the spacing of the type's subnormals (an absolute loss per step).
  double avg_scale = 1;
  double avg_unit_roundoff = 0;
  double avg_underflow_error = 0;
};

inline constexpr int kPatternOpSum = 0, kPatternOpProd = 1, kPatternOpMax = 2, kPatternOpMin = 3,
                     kPatternOpAvg = 4;
inline constexpr int kPatternReduced = -1;  // a "source rank" meaning: the reduced result

// Binary floating-point formats narrower than float (half, bfloat16, fp8), held as raw bits:
// colltune only writes small integers into them and reads results back; NCCL does the arithmetic.
template <int kExponentBits, int kMantissaBits, typename Bits>
struct PackedFloat {
  static constexpr int exponent_bits = kExponentBits;
  static constexpr int mantissa_bits = kMantissaBits;
  static constexpr int bias = (1 << (kExponentBits - 1)) - 1;
  Bits bits;
};
using Half = PackedFloat<5, 10, std::uint16_t>;
using BFloat16 = PackedFloat<8, 7, std::uint16_t>;
using Fp8E4M3 = PackedFloat<4, 3, std::uint8_t>;  // OCP E4M3: no infinities, max 448
using Fp8E5M2 = PackedFloat<5, 2, std::uint8_t>;

template <typename T>
struct IsPackedFloat : std::false_type {};
template <int E, int M, typename B>
struct IsPackedFloat<PackedFloat<E, M, B>> : std::true_type {};

// The bits of integer v, which must be exact in the format (|v| < 2^(mantissa bits + 1) or a
// multiple of a power of two that is); 0 is +0.
template <typename F>
COLLTUNE_HD F packed_from_integer(std::int64_t v) {
  using Bits = decltype(F::bits);
  if (v == 0) return F{0};
  const unsigned sign = v < 0 ? 1u : 0u;
  const std::uint64_t magnitude =
      v < 0 ? static_cast<std::uint64_t>(-v) : static_cast<std::uint64_t>(v);
  int top = 0;
  while ((magnitude >> top) > 1) ++top;
  const std::uint64_t fraction = top <= F::mantissa_bits ? magnitude << (F::mantissa_bits - top)
                                                         : magnitude >> (top - F::mantissa_bits);
  const std::uint64_t mantissa = fraction & ((std::uint64_t{1} << F::mantissa_bits) - 1);
  const std::uint64_t exponent = static_cast<std::uint64_t>(top + F::bias);
  return F{static_cast<Bits>((std::uint64_t{sign} << (F::exponent_bits + F::mantissa_bits)) |
                             (exponent << F::mantissa_bits) | mantissa)};
}

// The value of a packed float; NaN and infinity come back as 1e300, which no check accepts.
template <typename F>
COLLTUNE_HD double packed_to_double(F f) {
  const auto bits = static_cast<std::uint64_t>(f.bits);
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << F::mantissa_bits) - 1);
  const int exponent =
      static_cast<int>((bits >> F::mantissa_bits) & ((1u << F::exponent_bits) - 1));
  const bool negative = (bits >> (F::exponent_bits + F::mantissa_bits)) & 1u;
  const int max_exponent = (1 << F::exponent_bits) - 1;
  const std::uint64_t max_mantissa = (std::uint64_t{1} << F::mantissa_bits) - 1;
  // E4M3 keeps its top exponent for normal numbers; only S.1111.111 is NaN.
  const bool e4m3 = F::exponent_bits == 4 && F::mantissa_bits == 3;
  if (exponent == max_exponent && (!e4m3 || mantissa == max_mantissa)) return 1e300;
  double scale = 1;
  const int power = (exponent == 0 ? 1 : exponent) - F::bias - F::mantissa_bits;
  for (int k = 0; k < (power < 0 ? -power : power); ++k) scale *= 2;
  const double significand =
      static_cast<double>(exponent == 0 ? mantissa : mantissa | (max_mantissa + 1));
  const double value = power < 0 ? significand / scale : significand * scale;
  return negative ? -value : value;
}

// An exact small integer as element type T (a C++ arithmetic type or a PackedFloat).
template <typename T>
COLLTUNE_HD T element_from_integer(std::int64_t v) {
  if constexpr (IsPackedFloat<T>::value) {
    return packed_from_integer<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
COLLTUNE_HD double element_to_double(T x) {
  if constexpr (IsPackedFloat<T>::value) {
    return packed_to_double(x);
  } else {
    return static_cast<double>(x);
  }
}

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
  if (p.active_ranks < p.nranks) {
    const auto n = static_cast<std::uint64_t>(p.nranks);
    const std::uint64_t slot = (static_cast<std::uint64_t>(rank) + n - index % n) % n;
    if (slot >= static_cast<std::uint64_t>(p.active_ranks)) return 0;
  }
  return p.low + static_cast<std::int64_t>(h % p.span);
}

// `op` over all ranks' inputs at `index`; integer avg truncates toward zero, as NCCL's
// sum-then-divide does (float avg: see pattern_average).
COLLTUNE_HD inline std::int64_t pattern_reduced(const PatternParams& p, std::uint64_t index) {
  std::int64_t acc = pattern_input(p, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const std::int64_t v = pattern_input(p, r, index);
    if (p.op == kPatternOpSum || p.op == kPatternOpAvg) acc += v;
    if (p.op == kPatternOpProd) acc *= v;
    if (p.op == kPatternOpMax) acc = v > acc ? v : acc;
    if (p.op == kPatternOpMin) acc = v < acc ? v : acc;
  }
  return p.op == kPatternOpAvg ? acc / p.nranks : acc;
}

// Float avg at one element: NCCL's result without rounding (the sum of the premultiplied
// inputs) and the most its rounding can move it.
struct AvgExpectation {
  double value = 0;
  double bound = 0;
};

// Worst case of NCCL's arithmetic, in any reduction order: each product within u of its value;
// the k-th of the terms - 1 additions (zeros add exactly) within u of a partial sum at most
// M (1+u)^(k+1), M = sum of |x_i| x scale; each step may also lose avg_underflow_error. The
// expectation is itself summed in double, so its own error (2^-53 per step) is added too.
COLLTUNE_HD inline AvgExpectation pattern_avg_expectation(const PatternParams& p,
                                                          std::uint64_t index) {
  AvgExpectation e;
  double magnitude = 0;
  int terms = 0;
  for (int r = 0; r < p.nranks; ++r) {
    const double v = static_cast<double>(pattern_input(p, r, index));
    e.value += v * p.avg_scale;
    magnitude += (v < 0 ? -v : v) * p.avg_scale;
    terms += v != 0;
  }
  const double u = p.avg_unit_roundoff;
  if (u == 0 || terms == 0) return e;
  double growth = 0, power = 1 + u;
  for (int k = 1; k < terms; ++k) {
    power *= 1 + u;
    growth += power;
  }
  constexpr double kDoubleRoundoff = 1.0 / 9007199254740992.0;  // 2^-53
  e.bound = u * magnitude * (1 + growth) + (2 * terms - 1) * p.avg_underflow_error +
            2 * terms * kDoubleRoundoff * magnitude;
  return e;
}

// Whether `got` is what element `index` of `source` (a rank, or kPatternReduced) must hold:
// bitwise, except float avg within the bound of NCCL's arithmetic (pattern_avg_expectation).
template <typename T>
COLLTUNE_HD bool element_matches(const PatternParams& p, int source, std::uint64_t index, T got) {
  if (source == kPatternReduced && p.op == kPatternOpAvg && p.is_floating) {
    const AvgExpectation e = pattern_avg_expectation(p, index);
    const double diff = element_to_double(got) - e.value;
    return (diff < 0 ? -diff : diff) <= e.bound;  // a NaN fails
  }
  const T expected = element_from_integer<T>(
      source == kPatternReduced ? pattern_reduced(p, index) : pattern_input(p, source, index));
  const auto* a = reinterpret_cast<const unsigned char*>(&expected);
  const auto* b = reinterpret_cast<const unsigned char*>(&got);
  for (unsigned k = 0; k < sizeof(T); ++k) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

}  // namespace colltune
