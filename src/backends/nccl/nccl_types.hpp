#pragma once
// colltune's dtypes and ops in NCCL's terms.

#include <nccl.h>

#include <optional>

#include "core/collective.hpp"

namespace colltune {

std::optional<ncclDataType_t> nccl_type(DType dtype);
std::optional<ncclRedOp_t> nccl_op(ReduceOp op);

}  // namespace colltune
