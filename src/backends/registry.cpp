#include "backends/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#ifdef COLLTUNE_HAVE_MPI
#include "backends/mpi/mpi_communicator.hpp"
#include "backends/mpi/mpi_tool_knobs.hpp"
#include "backends/mpi/ompi_coll_components.hpp"
#endif
#ifdef COLLTUNE_HAVE_NCCL
#include "backends/nccl/device_memory.hpp"
#include "backends/nccl/nccl_communicator.hpp"
#endif
#include "core/errors.hpp"

namespace colltune {

std::vector<std::string> built_backends() {
  std::vector<std::string> names;
#ifdef COLLTUNE_HAVE_MPI
  names.emplace_back("mpi");
#endif
#ifdef COLLTUNE_HAVE_NCCL
  names.emplace_back("nccl");
#endif
  return names;
}

std::string default_backend() { return built_backends().front(); }

std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world,
                                                const BackendOptions& options) {
#ifdef COLLTUNE_HAVE_MPI
  if (backend == "mpi") {
    DeviceMemoryOpener open_device;
#ifdef COLLTUNE_HAVE_NCCL
    open_device = [&world, &options] { return open_device_memory(world, options); };
#endif
    return std::make_unique<MpiCommunicator>(world, options, open_device);
  }
#endif
#ifdef COLLTUNE_HAVE_NCCL
  if (backend == "nccl") return std::make_unique<NcclCommunicator>(world, options);
#endif
  (void)world;
  (void)options;
  throw ConfigError(fmt::format("--backend: '{}' is not built into this colltune; allowed: {}",
                                backend, fmt::join(built_backends(), " ")));
}

std::vector<AlgorithmKnob> offered_mpi_algorithms() {
#ifdef COLLTUNE_HAVE_MPI
  return mpi_algorithm_knobs();
#else
  throw ConfigError(
      "--list-algorithms: this colltune was built without MPI; allowed: the colltune built "
      "against the MPI to ask");
#endif
}

std::string mpi_library_file_here() {
#ifdef COLLTUNE_HAVE_MPI
  return mpi_library_file();
#else
  return "";
#endif
}

std::map<std::string, std::string> mpi_coll_components_here() {
#ifdef COLLTUNE_HAVE_MPI
  return ompi_coll_components(MPI_COMM_WORLD);
#else
  return {};
#endif
}

}  // namespace colltune
