#pragma once
// What is wrong with a node's InfiniBand ports, read before and after a health check: a port
// down, one slower than most of the fleet's, errors counted during the check, and the launch that
// reads them. Pure functions.

#include <map>
#include <string>
#include <vector>

#include "sweep/launch.hpp"
#include "sweep/spec.hpp"
#include "topo/infiniband.hpp"

namespace colltune {

// The counters of ports/N/counters that only grow when something is wrong with the link.
const std::vector<std::string>& ib_error_counters();

// Node index -> its findings, one line each ("mlx5_0/1 is 1: DOWN"); nodes without any are
// absent. `before` and `after` hold the ports each node reported (a node missing from `after`
// is judged on `before` alone).
std::map<int, std::vector<std::string>> port_findings(
    const std::map<int, std::vector<IbPort>>& before,
    const std::map<int, std::vector<IbPort>>& after);

// One rank on each of `hosts` running `colltune topo --ib-line` (its ports as one JSON line),
// launched as `spec` launches its ranks; colltune_path is the binary the ranks run.
Launch ib_line_launch(const SweepSpec& spec, const std::vector<std::string>& hosts,
                      const std::string& colltune_path);

// The stages' line on InfiniBand: how many nodes' ports were read (node -> its ports).
std::string ports_stage_line(const std::map<int, std::vector<IbPort>>& ports_before);

}  // namespace colltune
