#pragma once
// Calls fn(T{}) with the C++ type of a DType: the one place a runtime dtype becomes a type.

#include <cstdint>

#include "core/collective.hpp"
#include "core/pattern_math.hpp"

namespace colltune {

template <typename Fn>
decltype(auto) with_dtype(DType dtype, Fn&& fn) {
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
    case DType::kHalf:
      return fn(Half{});
    case DType::kFloat:
      return fn(float{});
    case DType::kDouble:
      return fn(double{});
    case DType::kBFloat16:
      return fn(BFloat16{});
    case DType::kFp8E4M3:
      return fn(Fp8E4M3{});
    case DType::kFp8E5M2:
      return fn(Fp8E5M2{});
  }
  return fn(std::uint8_t{});
}

}  // namespace colltune
