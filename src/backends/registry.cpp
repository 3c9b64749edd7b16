#include "backends/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/mpi/mpi_communicator.hpp"
#include "core/errors.hpp"

namespace colltune {

std::vector<std::string> built_backends() { return {"mpi"}; }

std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world) {
  if (backend == "mpi") return std::make_unique<MpiCommunicator>(world);
  throw ConfigError(fmt::format("--backend: '{}' is not built into this colltune; allowed: {}",
                                backend, fmt::join(built_backends(), " ")));
}

}  // namespace colltune
