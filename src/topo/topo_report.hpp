#pragma once
// `colltune topo` output: what the machine has, and what it lacks, as text or JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topo/ceilings.hpp"
#include "topo/gpu_probe.hpp"
#include "topo/infiniband.hpp"
#include "topo/topology.hpp"

namespace colltune {

struct TopoReport {
  std::string host;
  TopologySummary topology;
  std::vector<IbPort> ib_ports;
  GpuLinks gpu_links;
  std::vector<Ceiling> ceilings;       // empty unless measured
  std::string device_ceilings_absent;  // why no device ceiling was measured
};

nlohmann::json to_json(const TopoReport& r);
std::string to_text(const TopoReport& r);

}  // namespace colltune
