#pragma once
// Does the placement the ranks actually got match what was asked for, and is it sane?

#include <string>
#include <vector>

#include "core/measurement.hpp"

namespace colltune {

struct PlacementRequest {
  std::string bind_to;     // as given to the launcher (core, numa, none, ...); "" when unknown
  int ranks_per_node = 0;  // 0 when not asked
};

// True when the launcher pinned the rank to fewer than all of its host's PUs; a rank that may run
// anywhere floats, and the scheduler places it afresh in every launch.
bool is_bound(const RankPlacement& r);

// One line per problem: two bound ranks sharing a core, a binding other than the one asked
// for, unbalanced ranks per host, a rank on a NUMA node without its GPU or without the host's
// InfiniBand NIC.
std::vector<std::string> placement_warnings(const std::vector<RankPlacement>& ranks,
                                            const PlacementRequest& request);

}  // namespace colltune
