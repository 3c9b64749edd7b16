#pragma once
// Gathers the run's context from every rank (collective: all ranks call it).

#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/mpi_world.hpp"
#include "core/measurement.hpp"
#include "runner/run_options.hpp"

namespace colltune {

RunContext gather_context(const MpiWorld& world, const Communicator& comm,
                          const RunOptions& options, const std::vector<std::string>& argv);

// Where a failing rank is: "rank 3 on node17". Safe to call before MPI is up (rank from the
// launcher's environment).
std::string launcher_rank_text();
// The rank the launcher gave this process (Open MPI, PMI, PMIx, Slurm), 0 when unknown.
int launcher_rank();
// True when mpirun, srun or another PMI launcher started this process.
bool under_launcher();

}  // namespace colltune
