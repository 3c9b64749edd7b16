#pragma once
// A sweep's MPI algorithm knobs checked against the MPI the sweep will run, before any launch:
// the values that MPI offers (asked of colltune itself, `topo --list-algorithms`), MPICH's
// condition for its algorithm variables to decide, and a colltune built against another MPI
// than the launcher's.

#include <string>

#include "sweep/spec.hpp"

namespace colltune {

// Throws ConfigError (exit 2) naming the field, the value and what the MPI offers. `colltune`
// is the binary the points run. Adds a note to spec.notes, and checks only the form, where that
// binary cannot say (built without MPI, or not startable here).
void check_mpi_algorithm_knobs(SweepSpec& spec, const std::string& source,
                               const std::string& colltune);

}  // namespace colltune
