#include "core/pattern.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/dtype_dispatch.hpp"

namespace colltune {
namespace {

// Largest magnitude a sum may reach and still be exact: the type's range for integers, well
// inside the mantissa for floating point (every integer up to 2^(mantissa bits + 1) is exact).
std::int64_t sum_limit(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return 127;
    case DType::kUint8:
      return 254;  // 255 is the poison
    case DType::kDouble:
      return std::int64_t{1} << 40;
    case DType::kFloat:
    case DType::kInt32:
    case DType::kUint32:
    case DType::kInt64:
    case DType::kUint64:
      return std::int64_t{1} << 22;
    default:
      return std::int64_t{1} << (mantissa_bits(dtype) + 1);
  }
}

// Spread of values for data movement and max/min: the 8-bit range but for the poison (int8
// -127..127, uint8 0..254), every exact integer of the narrow float formats, 2^20 otherwise.
std::int64_t movement_span(DType dtype) {
  if (is_floating(dtype) && mantissa_bits(dtype) < 20) return sum_limit(dtype) * 2;
  return element_bytes(dtype) == 1 ? 255 : 1 << 20;
}

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// The exponent of the smallest normal number of a floating type.
int min_exponent(DType dtype) {
  switch (dtype) {
    case DType::kDouble:
      return -1022;
    case DType::kFloat:
    case DType::kBFloat16:
      return -126;
    case DType::kHalf:
    case DType::kFp8E5M2:
      return -14;
    default:
      return -6;  // E4M3
  }
}

// x rounded to nearest even in a floating type (subnormals included, no overflow: 1/n only).
double round_to_format(double x, int mantissa, DType dtype) {
  if (x == 0) return x;
  const int exponent = std::max(std::ilogb(x), min_exponent(dtype));
  const double quantum = std::ldexp(1.0, exponent - mantissa);
  return std::nearbyint(x / quantum) * quantum;
}

template <typename T, typename Source>
std::uint64_t count_wrong_typed(const PatternParams& p, Source source, std::uint64_t first_index,
                                const void* buf, std::size_t count) {
  const auto* data = static_cast<const T*>(buf);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    // Bitwise: -0.0 vs 0.0 or a NaN payload is a wrong result too.
    wrong += !element_matches(p, source, first_index + i, data[i]);
  }
  return wrong;
}

}  // namespace

std::uint8_t poison_byte(DType dtype) {
  return is_signed(dtype) && !is_floating(dtype) ? 0x80 : 0xFF;
}

static_assert(static_cast<int>(ReduceOp::kSum) == kPatternOpSum &&
              static_cast<int>(ReduceOp::kProd) == kPatternOpProd &&
              static_cast<int>(ReduceOp::kMax) == kPatternOpMax &&
              static_cast<int>(ReduceOp::kMin) == kPatternOpMin &&
              static_cast<int>(ReduceOp::kAvg) == kPatternOpAvg);

Pattern::Pattern(std::uint64_t seed, DType dtype, ReduceOp op, int nranks)
    : dtype_(dtype), op_(op) {
  params_.seed = seed;
  params_.nranks = std::max(nranks, 1);
  params_.active_ranks = params_.nranks;
  params_.op = static_cast<int>(op);
  params_.is_signed = is_signed(dtype);
  params_.is_floating = is_floating(dtype);
  const bool sign = params_.is_signed;
  if (op == ReduceOp::kSum || op == ReduceOp::kAvg) {
    // Each input at most limit / n in magnitude, so no sum over n ranks leaves the exact range;
    // where that is below 1 (fp8 on many ranks), only `limit` ranks contribute +-1 or 0.
    const std::int64_t limit = sum_limit(dtype);
    params_.active_ranks = static_cast<int>(std::min<std::int64_t>(params_.nranks, limit));
    const std::int64_t per_rank = std::max<std::int64_t>(limit / params_.nranks, 1);
    params_.low = sign ? -per_rank : 0;
    params_.span = static_cast<std::uint64_t>(sign ? 2 * per_rank + 1 : per_rank + 1);
    if (op == ReduceOp::kAvg && params_.is_floating) {
      const int mantissa = mantissa_bits(dtype);
      const double inverse = 1.0 / params_.nranks;
      // As NCCL rounds it: in double for double, through float for every other type.
      params_.avg_scale = dtype == DType::kDouble
                              ? inverse
                              : round_to_format(static_cast<float>(inverse), mantissa, dtype);
      if (!is_power_of_two(params_.nranks)) {
        params_.avg_unit_roundoff = std::ldexp(1.0, -(mantissa + 1));
        params_.avg_underflow_error = std::ldexp(1.0, min_exponent(dtype) - mantissa - 1);
      }
    }
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
    for (std::size_t i = 0; i < count; ++i) {
      data[i] = element_from_integer<T>(p.input(rank, first_index + i));
    }
  });
}

std::uint64_t count_wrong_inputs(const Pattern& p, int src_rank, std::uint64_t first_index,
                                 const void* buf, std::size_t count) {
  return with_dtype(p.dtype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(p.params(), src_rank, first_index, buf, count);
  });
}

std::uint64_t count_wrong_reduced(const Pattern& p, std::uint64_t first_index, const void* buf,
                                  std::size_t count) {
  return with_dtype(p.dtype(), [&](auto zero) {
    return count_wrong_typed<decltype(zero)>(p.params(), kPatternReduced, first_index, buf, count);
  });
}

}  // namespace colltune
