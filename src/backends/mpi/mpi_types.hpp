#pragma once
// colltune's element types and reduction ops as MPI's. Internal to src/backends/mpi (mpi.h).

#include <mpi.h>

#include "core/collective.hpp"

namespace colltune {

MPI_Datatype mpi_type(DType dtype);
bool mpi_can_reduce(DType dtype);  // MPI has no half, bfloat16 or fp8 reductions
MPI_Op mpi_op(ReduceOp op);        // MPI_OP_NULL for avg and none

}  // namespace colltune
