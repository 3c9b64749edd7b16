#pragma once
// Whether the MPI at hand takes GPU buffers (--buffers device); mpi.h stays in the .cpp.

#include <optional>
#include <string>

namespace colltune {

// Why this MPI cannot take device pointers, or nullopt. Open MPI's extension and MPICH's (4.0
// on) answer at run time (Open MPI's MPIX_CUDA_AWARE_SUPPORT macro only says what the headers
// were built with). Any rank, after MPI_Init.
std::optional<std::string> not_cuda_aware();

}  // namespace colltune
