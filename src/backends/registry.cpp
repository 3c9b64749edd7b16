#include "backends/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/mpi/mpi_communicator.hpp"
#ifdef COLLTUNE_HAVE_NCCL
#include "backends/nccl/nccl_communicator.hpp"
#endif
#include "core/errors.hpp"

namespace colltune {

std::vector<std::string> built_backends() {
#ifdef COLLTUNE_HAVE_NCCL
  return {"mpi", "nccl"};
#else
  return {"mpi"};
#endif
}

std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world,
                                                const BackendOptions& options) {
  if (backend == "mpi") return std::make_unique<MpiCommunicator>(world);
#ifdef COLLTUNE_HAVE_NCCL
  if (backend == "nccl") return std::make_unique<NcclCommunicator>(world, options);
#else
  (void)options;
#endif
  throw ConfigError(fmt::format("--backend: '{}' is not built into this colltune; allowed: {}",
                                backend, fmt::join(built_backends(), " ")));
}

}  // namespace colltune
