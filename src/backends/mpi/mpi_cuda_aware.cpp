#include "backends/mpi/mpi_cuda_aware.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_Query_cuda_support
#endif

namespace colltune {

std::optional<std::string> not_cuda_aware() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  if (MPIX_Query_cuda_support() == 1) return std::nullopt;
  return "this MPI is not CUDA-aware (MPIX_Query_cuda_support() returns 0)";
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  int supported = 0;
  if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS && supported != 0)
    return std::nullopt;
  return "this MPI is not CUDA-aware (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA) says 0)";
#else
  return "this MPI does not say it is CUDA-aware (it has no MPIX_Query_cuda_support)";
#endif
}

}  // namespace colltune
