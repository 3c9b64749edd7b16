#pragma once
// Backend name -> Communicator; the only place that knows which backends were built.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/mpi_world.hpp"
#include "core/mpi_algorithms.hpp"

namespace colltune {

// Names accepted by --backend in this binary (colltune and colltune-nompi differ).
std::vector<std::string> built_backends();

// --backend's default: mpi where this binary has it, else nccl (colltune-nompi).
std::string default_backend();

// A communicator over all ranks of `world`; every rank calls it. Throws ConfigError for a name
// this build lacks.
std::unique_ptr<Communicator> make_communicator(const std::string& backend, MpiWorld& world,
                                                const BackendOptions& options);

// The collective algorithm knobs this binary's MPI offers, from its MPI_T (no MPI_Init needed).
// Throws ConfigError in a binary built without MPI (colltune-nompi), MpiError when MPI_T fails.
std::vector<AlgorithmKnob> offered_mpi_algorithms();

// The shared library this binary's MPI is (libmpich.so...): "" in a binary without MPI, or one
// linked statically.
std::string mpi_library_file_here();

// Open MPI: which coll component serves each blocking collective on MPI_COMM_WORLD (collective
// -> "tuned", "han", ...), asked of the library (backends/mpi/ompi_coll_components.hpp). Empty
// under another MPI, without MPI, or where the library's table is not found. Any rank, after
// MPI_Init.
std::map<std::string, std::string> mpi_coll_components_here();

}  // namespace colltune
