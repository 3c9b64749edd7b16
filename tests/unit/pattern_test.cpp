#include "core/pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

namespace colltune {
namespace {

template <typename T>
T apply(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kAvg:  // the sum; the division comes at the end
    case ReduceOp::kSum:
      return static_cast<T>(a + b);
    case ReduceOp::kProd:
      return static_cast<T>(a * b);
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kMin:
      return std::min(a, b);
    case ReduceOp::kNone:
      break;
  }
  return a;
}

// Reduces in T in the given rank order, as a library might, and compares bitwise with what the
// pattern says the result must be.
template <typename T>
void expect_exact(DType dtype, ReduceOp op, int nranks) {
  const Pattern p(0xC011, dtype, op, nranks);
  std::vector<int> order(static_cast<std::size_t>(nranks));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle(42);
  // Float avg as NCCL computes it: each input times 1/n rounded to T, summed in T.
  const bool premultiplied = op == ReduceOp::kAvg && std::is_floating_point_v<T>;
  const T scale = static_cast<T>(1.0 / nranks);
  const auto term = [&](std::int64_t v) {
    return premultiplied ? static_cast<T>(static_cast<T>(v) * scale) : static_cast<T>(v);
  };
  for (std::uint64_t index = 0; index < 300; ++index) {
    if (index % 3 == 1) std::reverse(order.begin(), order.end());
    if (index % 3 == 2) std::shuffle(order.begin(), order.end(), shuffle);
    T acc = term(p.input(order[0], index));
    for (std::size_t k = 1; k < order.size(); ++k) {
      const std::int64_t v = p.input(order[k], index);
      ASSERT_EQ(static_cast<std::int64_t>(static_cast<T>(v)), v) << "input outside the type";
      acc = apply(op, acc, term(v));
    }
    if (op == ReduceOp::kAvg && !premultiplied) acc = static_cast<T>(acc / static_cast<T>(nranks));
    std::vector<T> buf{acc};
    ASSERT_EQ(count_wrong_reduced(p, index, buf.data(), 1), 0u)
        << name(dtype) << " " << name(op) << " n=" << nranks << " index=" << index;
  }
}

// Round to nearest even with `mantissa` stored bits (normal range), as the hardware does.
double round_to(double x, int mantissa) {
  if (x == 0) return x;
  int exponent = 0;
  const double fraction = std::frexp(x, &exponent);
  return std::ldexp(std::nearbyint(std::ldexp(fraction, mantissa + 1)), exponent - mantissa - 1);
}

template <typename F>
F packed_from_double(double x) {
  F f = packed_from_integer<F>(0);
  if (x == 0) return f;
  int exponent = 0;
  const double fraction = std::frexp(std::fabs(x), &exponent);  // [0.5, 1)
  const auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, F::mantissa_bits + 1)) &
                        ((std::uint64_t{1} << F::mantissa_bits) - 1);
  const auto biased = static_cast<std::uint64_t>(exponent - 1 + F::bias);
  f.bits = static_cast<decltype(f.bits)>(
      (std::uint64_t{x < 0} << (F::exponent_bits + F::mantissa_bits)) |
      (biased << F::mantissa_bits) | mantissa);
  return f;
}

// The narrow float formats, reduced as NCCL does: every step rounded to the format; avg as a
// sum of inputs premultiplied by the rounded 1/n.
template <typename F>
void expect_exact_packed(DType dtype, ReduceOp op, int nranks) {
  const Pattern p(0xC011, dtype, op, nranks);
  const int m = F::mantissa_bits;
  const double scale = round_to(static_cast<float>(1.0 / nranks), m);  // through float, as NCCL
  std::vector<int> order(static_cast<std::size_t>(nranks));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle(7);
  for (std::uint64_t index = 0; index < 300; ++index) {
    std::shuffle(order.begin(), order.end(), shuffle);
    double acc = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::int64_t v = p.input(order[k], index);
      ASSERT_EQ(packed_to_double(packed_from_integer<F>(v)), static_cast<double>(v))
          << "input outside the type: " << v;
      double x = static_cast<double>(v);
      if (op == ReduceOp::kAvg) x = round_to(x * scale, m);
      if (k == 0) {
        acc = x;
      } else if (op == ReduceOp::kSum || op == ReduceOp::kAvg) {
        acc = round_to(acc + x, m);
      } else if (op == ReduceOp::kProd) {
        acc = round_to(acc * x, m);
      } else {
        acc = op == ReduceOp::kMax ? std::max(acc, x) : std::min(acc, x);
      }
    }
    const F result = packed_from_double<F>(acc);
    ASSERT_EQ(count_wrong_reduced(p, index, &result, 1), 0u)
        << name(dtype) << " " << name(op) << " n=" << nranks << " index=" << index
        << " got=" << acc;
  }
}

template <typename T>
void expect_exact_all(DType dtype) {
  for (int n : {2, 3, 4, 5, 7, 8, 16, 31, 32, 63, 64}) {
    for (ReduceOp op : all_reduce_ops()) {
      if constexpr (IsPackedFloat<T>::value) {
        expect_exact_packed<T>(dtype, op, n);
      } else {
        expect_exact<T>(dtype, op, n);
      }
    }
  }
}

TEST(Pattern, ReductionsExactForEveryTypeOpAndRankCount) {
  expect_exact_all<std::int8_t>(DType::kInt8);
  expect_exact_all<std::uint8_t>(DType::kUint8);
  expect_exact_all<std::int32_t>(DType::kInt32);
  expect_exact_all<std::uint32_t>(DType::kUint32);
  expect_exact_all<std::int64_t>(DType::kInt64);
  expect_exact_all<std::uint64_t>(DType::kUint64);
  expect_exact_all<float>(DType::kFloat);
  expect_exact_all<double>(DType::kDouble);
  expect_exact_all<Half>(DType::kHalf);
  expect_exact_all<BFloat16>(DType::kBFloat16);
  expect_exact_all<Fp8E4M3>(DType::kFp8E4M3);
  expect_exact_all<Fp8E5M2>(DType::kFp8E5M2);
}

TEST(Pattern, EveryDtypeIsCovered) { EXPECT_EQ(all_dtypes().size(), 12u); }

TEST(PackedFloat, KnownEncodings) {
  EXPECT_EQ(packed_from_integer<Half>(1).bits, 0x3C00);
  EXPECT_EQ(packed_from_integer<Half>(-2).bits, 0xC000);
  EXPECT_EQ(packed_from_integer<Half>(2048).bits, 0x6800);
  EXPECT_EQ(packed_from_integer<Half>(0).bits, 0x0000);
  EXPECT_EQ(packed_from_integer<BFloat16>(1).bits, 0x3F80);
  EXPECT_EQ(packed_from_integer<BFloat16>(-3).bits, 0xC040);
  EXPECT_EQ(packed_from_integer<Fp8E4M3>(1).bits, 0x38);
  EXPECT_EQ(packed_from_integer<Fp8E4M3>(16).bits, 0x58);
  EXPECT_EQ(packed_from_integer<Fp8E5M2>(1).bits, 0x3C);
  EXPECT_EQ(packed_from_integer<Fp8E5M2>(-8).bits, 0xC8);
}

TEST(PackedFloat, KnownDecodings) {
  EXPECT_EQ(packed_to_double(Fp8E4M3{0x7E}), 448.0);                // E4M3 uses its top exponent
  EXPECT_EQ(packed_to_double(Fp8E4M3{0x7F}), 1e300);                // NaN
  EXPECT_EQ(packed_to_double(Half{0x0001}), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(packed_to_double(BFloat16{0x7F80}), 1e300);             // infinity
  EXPECT_EQ(packed_to_double(Fp8E5M2{0xBE}), -1.5);
  for (std::int64_t v = -2048; v <= 2048; ++v) {
    ASSERT_EQ(packed_to_double(packed_from_integer<Half>(v)), static_cast<double>(v));
  }
}

TEST(Pattern, FloatAvgToleranceOnlyWhereRoundingCanHappen) {
  EXPECT_EQ(Pattern(1, DType::kHalf, ReduceOp::kAvg, 8).params().avg_unit_roundoff, 0.0);
  EXPECT_EQ(Pattern(1, DType::kHalf, ReduceOp::kAvg, 6).params().avg_unit_roundoff,
            std::ldexp(1.0, -11));
  EXPECT_EQ(Pattern(1, DType::kInt32, ReduceOp::kAvg, 6).params().avg_unit_roundoff, 0.0);
  // By hand: 1/3 in bf16 (through float) is 0x3EAB = 0.333984375; in E4M3 0.34375 (1.011b x 2^-2).
  EXPECT_EQ(Pattern(1, DType::kBFloat16, ReduceOp::kAvg, 3).params().avg_scale, 0.333984375);
  EXPECT_EQ(Pattern(1, DType::kFp8E4M3, ReduceOp::kAvg, 3).params().avg_scale, 0.34375);
}

// Rounding to nearest even in a format with `mantissa` stored bits whose smallest normal
// exponent is `min_exponent` (subnormals included): the test's own, written from IEEE 754.
double round_in(double x, int mantissa, int min_exponent) {
  if (x == 0) return x;
  int exponent = 0;
  std::frexp(x, &exponent);  // x = f 2^exponent, f in [0.5, 1)
  const double quantum = std::ldexp(1.0, std::max(exponent - 1, min_exponent) - mantissa);
  return std::nearbyint(x / quantum) * quantum;
}

template <typename F>
F encode(double x) {
  const double smallest_normal = std::ldexp(1.0, 1 - F::bias);
  if (std::fabs(x) >= smallest_normal) return packed_from_double<F>(x);
  F f{0};
  const auto quanta =
      static_cast<std::uint64_t>(std::fabs(x) / std::ldexp(smallest_normal, -F::mantissa_bits));
  f.bits = static_cast<decltype(f.bits)>(
      (std::uint64_t{x < 0} << (F::exponent_bits + F::mantissa_bits)) | quanta);
  return f;
}

// NCCL's avg in a format, in the orders its algorithms use: a ring (each rank adds its term to
// what its neighbour passed, starting anywhere) and a tree (pairs, then pairs of pairs). Every
// result must pass; the next value of the format beyond the bound must not.
template <typename F>
void expect_avg_orders(DType dtype) {
  const int m = F::mantissa_bits, min_exponent = 1 - F::bias;
  const auto round = [&](double x) { return round_in(x, m, min_exponent); };
  for (int n : {3, 5, 6, 7, 12, 24, 31, 63}) {
    const Pattern p(0xA5, dtype, ReduceOp::kAvg, n);
    const double scale = round(static_cast<float>(1.0 / n));
    for (std::uint64_t index = 0; index < 200; ++index) {
      std::vector<double> terms;
      for (int r = 0; r < n; ++r) terms.push_back(round(p.input(r, index) * scale));
      std::vector<double> results;
      for (int start : {0, static_cast<int>(index % n), n - 1}) {
        double acc = terms[static_cast<std::size_t>(start)];
        for (int k = 1; k < n; ++k)
          acc = round(acc + terms[static_cast<std::size_t>((start + k) % n)]);
        results.push_back(acc);
      }
      std::vector<double> level = terms;
      while (level.size() > 1) {
        std::vector<double> next;
        for (std::size_t k = 0; k + 1 < level.size(); k += 2)
          next.push_back(round(level[k] + level[k + 1]));
        if (level.size() % 2 == 1) next.push_back(level.back());
        level = next;
      }
      results.push_back(level.front());
      for (double result : results) {
        const F got = encode<F>(result);
        ASSERT_EQ(packed_to_double(got), result);
        ASSERT_EQ(count_wrong_reduced(p, index, &got, 1), 0u)
            << name(dtype) << " n=" << n << " index=" << index << " got=" << result;
      }
      const AvgExpectation e = pattern_avg_expectation(p.params(), index);
      double beyond = round(e.value + e.bound);
      if (beyond <= e.value + e.bound) {
        int exponent = 0;
        std::frexp(beyond == 0 ? 1e-30 : beyond, &exponent);
        beyond += std::ldexp(1.0, std::max(exponent - 1, min_exponent) - m);
      }
      const F wrong = encode<F>(round(beyond));
      ASSERT_EQ(count_wrong_reduced(p, index, &wrong, 1), 1u)
          << name(dtype) << " n=" << n << " index=" << index << " accepted " << round(beyond);
    }
  }
}

TEST(Pattern, FloatAvgBoundHoldsInRingAndTreeOrdersAndNoFurther) {
  expect_avg_orders<Half>(DType::kHalf);
  expect_avg_orders<BFloat16>(DType::kBFloat16);
  expect_avg_orders<Fp8E4M3>(DType::kFp8E4M3);
  expect_avg_orders<Fp8E5M2>(DType::kFp8E5M2);
}

// By hand, float on 3 ranks: inputs at most 2^22 / 3 = 1398101, three terms, so the bound is at
// most 2^-24 x 1398101 x (1 + 2(1+u)^3) = 0.25; the old tolerance was (n+1) 2^-23 x 1398101 =
// 0.67, and one unit of the last place of a 1398101 is 0.125. A float one step beyond is caught.
TEST(Pattern, FloatAvgBoundIsTight) {
  const Pattern p(1, DType::kFloat, ReduceOp::kAvg, 3);
  double widest = 0;
  for (std::uint64_t index = 0; index < 2000; ++index) {
    const AvgExpectation e = pattern_avg_expectation(p.params(), index);
    widest = std::max(widest, e.bound);
    const float beyond = std::nextafter(static_cast<float>(e.value + e.bound), 1e30f);
    const float wrong =
        static_cast<double>(beyond) > e.value + e.bound ? beyond : std::nextafter(beyond, 1e30f);
    ASSERT_EQ(count_wrong_reduced(p, index, &wrong, 1), 1u) << index;
  }
  EXPECT_LE(widest, 0.2501);
  EXPECT_GT(widest, 0.1);  // not 0: three terms of a million do round
}

// The poison left in an output no collective wrote is a value no pattern of the type holds, so
// it is always counted wrong; 0xFF was int8 -1 and uint8 255, both legal inputs.
template <typename T>
void expect_poison_never_legal(DType dtype) {
  T poison{};
  std::memset(&poison, poison_byte(dtype), sizeof(T));
  std::vector<ReduceOp> ops = all_reduce_ops();
  ops.push_back(ReduceOp::kNone);
  for (ReduceOp op : ops) {
    for (int n : {2, 3, 8, 64}) {
      const Pattern p(0xBEEF, dtype, op, n);
      for (std::uint64_t index = 0; index < 3000; ++index) {
        ASSERT_EQ(count_wrong_inputs(p, static_cast<int>(index % n), index, &poison, 1), 1u)
            << name(dtype) << " " << name(op) << " n=" << n << " index=" << index;
        if (op != ReduceOp::kNone) {
          ASSERT_EQ(count_wrong_reduced(p, index, &poison, 1), 1u)
              << name(dtype) << " " << name(op) << " n=" << n << " index=" << index;
        }
      }
    }
  }
}

TEST(Pattern, PoisonIsNeverALegalValue) {
  EXPECT_EQ(poison_byte(DType::kInt8), 0x80);   // -128: inputs are -127..127
  EXPECT_EQ(poison_byte(DType::kUint8), 0xFF);  // 255: inputs are 0..254
  expect_poison_never_legal<std::int8_t>(DType::kInt8);
  expect_poison_never_legal<std::uint8_t>(DType::kUint8);
  expect_poison_never_legal<std::int32_t>(DType::kInt32);
  expect_poison_never_legal<std::uint32_t>(DType::kUint32);
  expect_poison_never_legal<std::int64_t>(DType::kInt64);
  expect_poison_never_legal<std::uint64_t>(DType::kUint64);
  expect_poison_never_legal<float>(DType::kFloat);
  expect_poison_never_legal<double>(DType::kDouble);
  expect_poison_never_legal<Half>(DType::kHalf);
  expect_poison_never_legal<BFloat16>(DType::kBFloat16);
  expect_poison_never_legal<Fp8E4M3>(DType::kFp8E4M3);
  expect_poison_never_legal<Fp8E5M2>(DType::kFp8E5M2);
}

TEST(Pattern, IntegerAvgTruncatesTowardZero) {
  const Pattern p(3, DType::kInt32, ReduceOp::kAvg, 3);
  for (std::uint64_t i = 0; i < 100; ++i) {
    std::int64_t sum = 0;
    for (int r = 0; r < 3; ++r) sum += p.input(r, i);
    EXPECT_EQ(p.reduced(i), sum / 3);
  }
}

TEST(Pattern, DeterministicAndRankDependent) {
  const Pattern a(1, DType::kInt32, ReduceOp::kNone, 4);
  const Pattern b(1, DType::kInt32, ReduceOp::kNone, 4);
  int differing = 0;
  for (std::uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(a.input(2, i), b.input(2, i));
    differing += a.input(0, i) != a.input(1, i);
  }
  EXPECT_GT(differing, 90);
}

TEST(Pattern, SumsUseTheRangeTheyCan) {
  // Inputs are not all zero or one for wide types: a swapped element must be visible.
  const Pattern p(7, DType::kFloat, ReduceOp::kSum, 64);
  std::int64_t lo = 0, hi = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    lo = std::min(lo, p.input(3, i));
    hi = std::max(hi, p.input(3, i));
  }
  EXPECT_LT(lo, -1000);
  EXPECT_GT(hi, 1000);
}

TEST(Pattern, CheckCountsEachWrongElement) {
  const Pattern p(5, DType::kDouble, ReduceOp::kNone, 2);
  std::vector<double> buf(64);
  fill_inputs(p, 1, 10, buf.data(), buf.size());
  EXPECT_EQ(count_wrong_inputs(p, 1, 10, buf.data(), buf.size()), 0u);
  EXPECT_GT(count_wrong_inputs(p, 0, 10, buf.data(), buf.size()), 60u);  // another rank's data
  EXPECT_GT(count_wrong_inputs(p, 1, 11, buf.data(), buf.size()), 60u);  // shifted by one
  buf[7] += 0.5;
  buf[9] += 1.0;
  EXPECT_EQ(count_wrong_inputs(p, 1, 10, buf.data(), buf.size()), 2u);
}

TEST(Pattern, NegativeZeroIsWrongForFloats) {
  const Pattern p(5, DType::kFloat, ReduceOp::kNone, 2);
  std::uint64_t index = 0;
  while (p.input(0, index) != 0) ++index;
  float negative_zero = -0.0f;
  EXPECT_EQ(count_wrong_inputs(p, 0, index, &negative_zero, 1), 1u);
}

}  // namespace
}  // namespace colltune
