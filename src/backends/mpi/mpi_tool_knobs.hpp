#pragma once
// Open MPI parameters switched inside one process through the MPI tool interface (MPI_T):
// coll/tuned reads its forced algorithm when a communicator is created, so a value written here
// holds for the communicators created afterwards (REFERENCE.md, Open MPI coll/tuned).

#include <map>
#include <string>

namespace colltune {

// Writes each control variable (MCA name without OMPI_MCA_ -> integer text, or "default" for the
// value it had when this process first wrote it) and reads it back.
// Every rank calls it with the same knobs, after MPI_Init. Throws ConfigError (the same on every
// rank) when a name is not an integer control variable writable at run time, or when a
// coll_tuned_ knob is given without OMPI_MCA_coll_tuned_use_dynamic_rules=1 at launch (that one
// is read-only through MPI_T); MpiError when an MPI_T call fails.
void write_mpi_t_knobs(const std::map<std::string, std::string>& knobs);

}  // namespace colltune
