#include "backends/nccl/nccl_types.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

TEST(NcclTypes, EveryDtypeAndOpMaps) {
  EXPECT_EQ(nccl_type(DType::kInt8), ncclInt8);
  EXPECT_EQ(nccl_type(DType::kUint8), ncclUint8);
  EXPECT_EQ(nccl_type(DType::kInt32), ncclInt32);
  EXPECT_EQ(nccl_type(DType::kUint32), ncclUint32);
  EXPECT_EQ(nccl_type(DType::kInt64), ncclInt64);
  EXPECT_EQ(nccl_type(DType::kUint64), ncclUint64);
  EXPECT_EQ(nccl_type(DType::kFloat), ncclFloat32);
  EXPECT_EQ(nccl_type(DType::kDouble), ncclFloat64);
  EXPECT_EQ(nccl_type(DType::kHalf), ncclFloat16);
  EXPECT_EQ(nccl_type(DType::kBFloat16), ncclBfloat16);
  EXPECT_EQ(nccl_type(DType::kFp8E4M3), ncclFloat8e4m3);  // NCCL 2.28 here
  EXPECT_EQ(nccl_type(DType::kFp8E5M2), ncclFloat8e5m2);
  for (DType d : all_dtypes()) EXPECT_TRUE(nccl_type(d).has_value()) << name(d);
  EXPECT_EQ(nccl_op(ReduceOp::kAvg), ncclAvg);
  EXPECT_EQ(nccl_op(ReduceOp::kSum), ncclSum);
  EXPECT_EQ(nccl_op(ReduceOp::kProd), ncclProd);
  EXPECT_EQ(nccl_op(ReduceOp::kMax), ncclMax);
  EXPECT_EQ(nccl_op(ReduceOp::kMin), ncclMin);
  EXPECT_FALSE(nccl_op(ReduceOp::kNone).has_value());
}

}  // namespace
}  // namespace colltune
