#include "core/pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

namespace colltune {
namespace {

template <typename T>
T apply(ReduceOp op, T a, T b) {
  switch (op) {
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
    std::vector<T> buf{acc};
    ASSERT_EQ(count_wrong_reduced(p, index, buf.data(), 1), 0u)
        << name(dtype) << " " << name(op) << " n=" << nranks << " index=" << index;
  }
}

template <typename T>
void expect_exact_all(DType dtype) {
  for (int n : {2, 3, 4, 5, 7, 8, 16, 31, 32, 63, 64}) {
    for (ReduceOp op : all_reduce_ops()) expect_exact<T>(dtype, op, n);
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
