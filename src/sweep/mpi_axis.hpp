#pragma once
// The `mpi` axis: points of one sweep run under different MPI implementations, each the colltune
// built against it started by its own launcher (spec key `mpis:`), so "Open MPI or MPICH here,
// per collective and size" is one report with one answer.

#include <string>
#include <utility>
#include <vector>

#include "sweep/expand.hpp"
#include "sweep/spec.hpp"

namespace colltune {

// The MPI a point runs under: its `mpi` setting, or "" for the spec's own launcher.
std::string mpi_of(const Point& point);

// The spec as the points under MPI `mpi` see it: that MPI's launcher, dialect, colltune and
// launcher_args, its env over the spec's, no `mpis`. `mpi` "": the spec itself.
SweepSpec spec_for_mpi(const SweepSpec& spec, const std::string& mpi);

// One entry per MPI the points use ("" for the spec's own), in name order: spec_for_mpi with each
// axis cut to the values those points take and the `mpi` axis gone, so the checks written for
// one launcher (knob family, launcher_args dialect, algorithm values, preflight) judge exactly
// what that MPI will be given.
std::vector<std::pair<std::string, SweepSpec>> specs_by_mpi(const SweepSpec& spec,
                                                            const std::vector<Point>& points);

}  // namespace colltune
