#pragma once
// Which points share one launch: with a spec's `interleave:` axes, the points of the backend that
// switches them (MPI for OMPI_MCA_ ones, NCCL for NCCL_ALGO / NCCL_PROTO) that differ only in
// those knobs run together (`colltune run --interleave-set`, one communicator per point, samples
// in turns); every other point runs alone.

#include <map>
#include <string>
#include <vector>

#include "sweep/expand.hpp"
#include "sweep/launch.hpp"
#include "sweep/spec.hpp"

namespace colltune {

// Indexes into `points`, one group per launch, in the order of each group's first point; the
// members of a group in point order. Without interleave axes every group has one point.
std::vector<std::vector<std::size_t>> launch_groups(const SweepSpec& spec,
                                                    const std::vector<Point>& points);

// The launch of a group: build_launch of its first point without the interleaved knobs, plus one
// --interleave-set per member (its knob values, "default" where unset). One member: build_launch.
Launch build_group_launch(const SweepSpec& spec, const std::vector<const Point*>& members,
                          const std::string& colltune_path, const std::string& records_path);

// The member a record belongs to: the one whose interleaved knobs equal the record's
// in_process_knobs (environment name -> value, "default" for unset). -1 when none does.
int member_of_record(const SweepSpec& spec, const std::vector<const Point*>& members,
                     const std::map<std::string, std::string>& in_process_knobs);

}  // namespace colltune
