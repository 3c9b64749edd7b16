// MpiWorld for a binary without MPI (colltune-nompi, or COLLTUNE_WITH_MPI=OFF): the world is always
// this one process, which may drive several GPUs (-g).

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "comm/mpi_world.hpp"
#include "core/errors.hpp"

namespace colltune {
namespace {

// Ranks a launcher started, from the variables Open MPI, PMIx, PMI and Slurm set; 1 without one.
int launched_ranks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
    if (const char* value = std::getenv(var)) return std::atoi(value);
  }
  return 1;
}

}  // namespace

MpiWorld::MpiWorld(int*, char***, bool use_mpi, ToolInterface) : solo_(true) {
  if (use_mpi && launched_ranks() > 1) {
    throw ConfigError(
        fmt::format("launcher: {} ranks were started, but this colltune was built without MPI "
                    "(colltune-nompi, or COLLTUNE_WITH_MPI=OFF) and cannot join them; allowed: one "
                    "process driving its local "
                    "GPUs, colltune run --backend nccl -g N",
                    launched_ranks()));
  }
  char name[256] = "unknown";
  gethostname(name, sizeof(name) - 1);
  host_ = name;
}

MpiWorld::~MpiWorld() = default;

void MpiWorld::finalize() {}
bool MpiWorld::active() { return false; }
void MpiWorld::barrier() const {}
std::vector<std::string> MpiWorld::all_gather(const std::string& mine) const { return {mine}; }
void MpiWorld::broadcast_bytes(void*, std::size_t) const {}
std::uint64_t MpiWorld::sum_over_ranks(std::uint64_t mine) const { return mine; }
void MpiWorld::max_over_ranks(std::vector<double>&) const {}
std::vector<std::vector<double>> MpiWorld::gather_to_root(const std::vector<double>& values) const {
  return {values};
}

void MpiWorld::reduce_over_ranks(std::vector<double>&, RankReduction) const {}
std::string MpiWorld::library_version() { return "none (built without MPI)"; }
[[noreturn]] void MpiWorld::abort(int code) { std::_Exit(code); }

}  // namespace colltune
