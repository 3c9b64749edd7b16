#include "core/pattern.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace colltune {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

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

template <typename Fn>
decltype(auto) with_type(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kInt8:
      return fn(std::int8_t{});
    case DType::kUint8:
      return fn(std::uint8_t{});
    case DType::kInt32:
      return fn(std::int32_t{});
    case DType::kUint32:
      return fn(std::uint32_t{});
    case DType::kInt64:
      return fn(std::int64_t{});
    case DType::kUint64:
      return fn(std::uint64_t{});
    case DType::kFloat:
      return fn(float{});
    case DType::kDouble:
      return fn(double{});
  }
  return fn(std::uint8_t{});
}

}  // namespace

Pattern::Pattern(std::uint64_t seed, DType dtype, ReduceOp op, int nranks)
    : seed_(seed), dtype_(dtype), op_(op), nranks_(std::max(nranks, 1)) {
  const bool sign = is_signed(dtype);
  if (op == ReduceOp::kSum) {
    // Each input at most limit / n in magnitude, so no sum over n ranks leaves the exact range.
    const std::int64_t per_rank = std::max<std::int64_t>(sum_limit(dtype) / nranks_, 1);
    low_ = sign ? -per_rank : 0;
    span_ = static_cast<std::uint64_t>(sign ? 2 * per_rank + 1 : per_rank + 1);
  } else if (op != ReduceOp::kProd) {
    const std::int64_t span = movement_span(dtype);
    low_ = sign ? -span / 2 : 0;
    span_ = static_cast<std::uint64_t>(span);
  }
}

std::uint64_t Pattern::hash(int rank, std::uint64_t index) const {
  return splitmix64(seed_ ^ splitmix64(index * 0x100000001B3ULL + static_cast<unsigned>(rank)));
}

std::int64_t Pattern::input(int rank, std::uint64_t index) const {
  const std::uint64_t h = hash(rank, index);
  if (op_ == ReduceOp::kProd) {
    // One rank per element contributes 1..3, one other may flip the sign, the rest give 1: the
    // product stays within +-3 whatever the rank count, and each rank still matters.
    const auto n = static_cast<std::uint64_t>(nranks_);
    const auto owner = static_cast<int>(index % n);
    if (rank == owner) return static_cast<std::int64_t>(h % 3) + 1;
    const auto flipper = static_cast<int>((index + 1) % n);
    if (is_signed(dtype_) && rank == flipper && (h >> 32) % 2 == 1) return -1;
    return 1;
  }
  return low_ + static_cast<std::int64_t>(h % span_);
}

std::int64_t Pattern::reduced(std::uint64_t index) const {
  std::int64_t acc = input(0, index);
  for (int r = 1; r < nranks_; ++r) {
    const std::int64_t v = input(r, index);
    switch (op_) {
      case ReduceOp::kSum:
        acc += v;
        break;
      case ReduceOp::kProd:
        acc *= v;
        break;
      case ReduceOp::kMax:
        acc = std::max(acc, v);
        break;
      case ReduceOp::kMin:
        acc = std::min(acc, v);
        break;
      case ReduceOp::kNone:
        break;
    }
  }
  return acc;
}

void fill_inputs(const Pattern& p, int rank, std::uint64_t first_index, void* dst,
                 std::size_t count) {
  with_type(p.dtype(), [&](auto zero) {
    using T = decltype(zero);
    auto* data = static_cast<T*>(dst);
    for (std::size_t i = 0; i < count; ++i) data[i] = to_element<T>(p.input(rank, first_index + i));
  });
}

std::uint64_t count_wrong_inputs(const Pattern& p, int src_rank, std::uint64_t first_index,
                                 const void* buf, std::size_t count) {
  return with_type(p.dtype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(
        buf, count, [&](std::size_t i) { return p.input(src_rank, first_index + i); });
  });
}

std::uint64_t count_wrong_reduced(const Pattern& p, std::uint64_t first_index, const void* buf,
                                  std::size_t count) {
  return with_type(p.dtype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(
        buf, count, [&](std::size_t i) { return p.reduced(first_index + i); });
  });
}

}  // namespace colltune
