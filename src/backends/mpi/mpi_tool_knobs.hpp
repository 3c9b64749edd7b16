#pragma once
// Open MPI parameters switched inside one process through the MPI tool interface (MPI_T):
// coll/tuned reads its forced algorithm when a communicator is created, so a value written here
// holds for the communicators created afterwards (REFERENCE.md, Open MPI coll/tuned).

#include <map>
#include <string>
#include <vector>

#include "core/mpi_algorithms.hpp"

namespace colltune {

// Writes each control variable (MCA name without OMPI_MCA_ -> integer text, or "default" for the
// value it had when this process first wrote it) and reads it back.
// Every rank calls it with the same knobs, after MPI_Init. Throws ConfigError (the same on every
// rank) when a name is not an integer control variable writable at run time, or when a
// coll_tuned_ knob is given without OMPI_MCA_coll_tuned_use_dynamic_rules=1 at launch (that one
// is read-only through MPI_T); MpiError when an MPI_T call fails.
void write_mpi_t_knobs(const std::map<std::string, std::string>& knobs);

// The collective algorithm knobs this MPI offers, as its MPI_T control variables say: Open
// MPI's coll_tuned_<coll>_algorithm (names from their MPI_T enums), MPICH's
// MPIR_CVAR_<COLL>_INTRA/INTER_ALGORITHM (names from their descriptions), Intel MPI's
// I_MPI_ADJUST_<COLL> (preset ranges of MPIR_CVAR_USE_<COLL>). Any process, before, after or
// without MPI_Init; throws MpiError when MPI_T cannot start.
std::vector<AlgorithmKnob> mpi_algorithm_knobs();

// The shared library this process's MPI functions come from (libmpi.so, libmpich.so): its
// path, or "" where it cannot be told (a static link).
std::string mpi_library_file();

// Settings an MPICH process reads at every collective call (algorithm control variables, by
// environment name -> value name or "default"), put in force through MPI_T when asked. Built
// on every rank alike; throws ConfigError, naming what this MPI offers, for a name it lacks.
class PerCallKnobs {
 public:
  explicit PerCallKnobs(const std::map<std::string, std::string>& knobs);
  // Writes the values unless they are the ones this process last wrote. Every rank, between
  // calls of the collectives they select.
  void put_in_force();

 private:
  std::vector<std::pair<int, int>> writes_;  // MPI_T index, value
};

}  // namespace colltune
