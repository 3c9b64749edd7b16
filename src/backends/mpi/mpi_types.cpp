#include "backends/mpi/mpi_types.hpp"

namespace colltune {

MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return MPI_INT8_T;
    case DType::kUint8:
      return MPI_UINT8_T;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kUint32:
      return MPI_UINT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    case DType::kUint64:
      return MPI_UINT64_T;
    case DType::kFloat:
      return MPI_FLOAT;
    case DType::kDouble:
      return MPI_DOUBLE;
    // MPI has no half, bfloat16 or fp8: they move as same-width integers and cannot be reduced.
    case DType::kHalf:
    case DType::kBFloat16:
      return MPI_UINT16_T;
    case DType::kFp8E4M3:
    case DType::kFp8E5M2:
      return MPI_UINT8_T;
  }
  return MPI_BYTE;
}

bool mpi_can_reduce(DType dtype) {
  return !is_floating(dtype) || dtype == DType::kFloat || dtype == DType::kDouble;
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return MPI_SUM;
    case ReduceOp::kProd:
      return MPI_PROD;
    case ReduceOp::kMax:
      return MPI_MAX;
    case ReduceOp::kMin:
      return MPI_MIN;
    case ReduceOp::kAvg:  // no MPI_Op; unsupported() says so
    case ReduceOp::kNone:
      break;
  }
  return MPI_OP_NULL;
}

}  // namespace colltune
