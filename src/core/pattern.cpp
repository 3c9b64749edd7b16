#include "core/pattern.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/dtype_dispatch.hpp"

namespace colltune {
namespace {

// Largest magnitude a sum may reach and still be exact: the type's range for integers, well
// inside the mantissa for floating point.
std::int64_t sum_limit(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return 127;
    case DType::kUint8:
      return 255;
    case DType::kDouble:
      return std::int64_t{1} << 40;
    default:
      return std::int64_t{1} << 22;
  }
}

// Spread of values for data movement and max/min: the whole 8-bit range, 2^20 otherwise.
std::int64_t movement_span(DType dtype) { return element_bytes(dtype) == 1 ? 256 : 1 << 20; }

template <typename T>
T to_element(std::int64_t v) {
  return static_cast<T>(v);
}

template <typename T, typename ValueFn>
std::uint64_t count_wrong_typed(const void* buf, std::size_t count, ValueFn value) {
  const auto* data = static_cast<const T*>(buf);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const T expected = to_element<T>(value(i));
    // Bitwise: -0.0 vs 0.0 or a NaN payload is a wrong result too.
    wrong += std::memcmp(&expected, &data[i], sizeof(T)) != 0;
  }
  return wrong;
}

}  // namespace

static_assert(static_cast<int>(ReduceOp::kSum) == kPatternOpSum &&
              static_cast<int>(ReduceOp::kProd) == kPatternOpProd &&
              static_cast<int>(ReduceOp::kMax) == kPatternOpMax &&
              static_cast<int>(ReduceOp::kMin) == kPatternOpMin);

Pattern::Pattern(std::uint64_t seed, DType dtype, ReduceOp op, int nranks)
    : dtype_(dtype), op_(op) {
  params_.seed = seed;
  params_.nranks = std::max(nranks, 1);
  params_.op = static_cast<int>(op);
  params_.is_signed = is_signed(dtype);
  const bool sign = params_.is_signed;
  if (op == ReduceOp::kSum) {
    // Each input at most limit / n in magnitude, so no sum over n ranks leaves the exact range.
    const std::int64_t per_rank = std::max<std::int64_t>(sum_limit(dtype) / params_.nranks, 1);
    params_.low = sign ? -per_rank : 0;
    params_.span = static_cast<std::uint64_t>(sign ? 2 * per_rank + 1 : per_rank + 1);
  } else if (op != ReduceOp::kProd) {
    const std::int64_t span = movement_span(dtype);
    params_.low = sign ? -span / 2 : 0;
    params_.span = static_cast<std::uint64_t>(span);
  }
}

void fill_inputs(const Pattern& p, int rank, std::uint64_t first_index, void* dst,
                 std::size_t count) {
  with_dtype(p.dtype(), [&](auto zero) {
    using T = decltype(zero);
    auto* data = static_cast<T*>(dst);
    for (std::size_t i = 0; i < count; ++i) data[i] = to_element<T>(p.input(rank, first_index + i));
  });
}

std::uint64_t count_wrong_inputs(const Pattern& p, int src_rank, std::uint64_t first_index,
                                 const void* buf, std::size_t count) {
  return with_dtype(p.dtype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(
        buf, count, [&](std::size_t i) { return p.input(src_rank, first_index + i); });
  });
}

std::uint64_t count_wrong_reduced(const Pattern& p, std::uint64_t first_index, const void* buf,
                                  std::size_t count) {
  return with_dtype(p.dtype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(
        buf, count, [&](std::size_t i) { return p.reduced(first_index + i); });
  });
}

}  // namespace colltune
