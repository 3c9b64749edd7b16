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
  for (std::uint64_t index = 0; index < 300; ++index) {
    if (index % 3 == 1) std::reverse(order.begin(), order.end());
    if (index % 3 == 2) std::shuffle(order.begin(), order.end(), shuffle);
    T acc = static_cast<T>(p.input(order[0], index));
    for (std::size_t k = 1; k < order.size(); ++k) {
      const std::int64_t v = p.input(order[k], index);
      ASSERT_EQ(static_cast<std::int64_t>(static_cast<T>(v)), v) << "input outside the type";
      acc = apply(op, acc, static_cast<T>(v));
    }
    if (op == ReduceOp::kAvg) acc = static_cast<T>(acc / static_cast<T>(nranks));
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
  const double scale = round_to(1.0 / nranks, m);
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
  EXPECT_EQ(Pattern(1, DType::kHalf, ReduceOp::kAvg, 8).params().avg_tolerance, 0.0);
  EXPECT_GT(Pattern(1, DType::kHalf, ReduceOp::kAvg, 6).params().avg_tolerance, 0.0);
  EXPECT_EQ(Pattern(1, DType::kInt32, ReduceOp::kAvg, 6).params().avg_tolerance, 0.0);
  // A result off by one unit of the sum is caught even with the tolerance.
  const Pattern p(1, DType::kFloat, ReduceOp::kAvg, 3);
  const float wrong =
      static_cast<float>(p.params().avg_tolerance * 4 + pattern_average(p.params(), 0));
  EXPECT_EQ(count_wrong_reduced(p, 0, &wrong, 1), 1u);
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
