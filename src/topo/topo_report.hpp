#pragma once
// `colltune topo` output: what the machine has, and what it lacks, as text or JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topo/ceilings.hpp"
#include "topo/infiniband.hpp"
#include "topo/topology.hpp"

namespace colltune {

struct TopoReport {
  std::string host;
  TopologySummary topology;
  std::vector<IbPort> ib_ports;
  std::string gpu_links;          // what is known of GPU-to-GPU links, or why nothing is
  std::vector<Ceiling> ceilings;  // empty unless measured
};

nlohmann::json to_json(const TopoReport& r);
std::string to_text(const TopoReport& r);

}  // namespace colltune
