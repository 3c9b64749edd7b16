#include "backends/nccl/nccl_types.hpp"

// The nccl.h read here must be the found NCCL's (cmake/FindNCCL.cmake): a CUDA prefix's own
// nccl.h earlier on the include path once built every NCCL_HOME build against 2.28's header.
static_assert(NCCL_VERSION_CODE == COLLTUNE_FOUND_NCCL_VERSION_CODE,
              "nccl.h is not the found NCCL's: another include directory holding an nccl.h comes "
              "before NCCL_INCLUDE_DIR");

namespace colltune {

std::optional<ncclDataType_t> nccl_type(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return ncclInt8;
    case DType::kUint8:
      return ncclUint8;
    case DType::kInt32:
      return ncclInt32;
    case DType::kUint32:
      return ncclUint32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUint64:
      return ncclUint64;
    case DType::kHalf:
      return ncclFloat16;
    case DType::kFloat:
      return ncclFloat32;
    case DType::kDouble:
      return ncclFloat64;
    case DType::kBFloat16:
      return ncclBfloat16;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DType::kFp8E4M3:
      return ncclFloat8e4m3;
    case DType::kFp8E5M2:
      return ncclFloat8e5m2;
#else
    case DType::kFp8E4M3:
    case DType::kFp8E5M2:
      break;  // fp8 arrived in NCCL 2.24
#endif
  }
  return std::nullopt;
}

std::optional<ncclRedOp_t> nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kProd:
      return ncclProd;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
    case ReduceOp::kAvg:
      return ncclAvg;
    case ReduceOp::kNone:
      break;
  }
  return std::nullopt;
}

}  // namespace colltune
