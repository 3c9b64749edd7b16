#pragma once
// Physical ceilings to hold busbw against: host memory copy bandwidth per NUMA node (device
// copy bandwidth per GPU joins with the CUDA backend).

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topo/topology.hpp"

namespace colltune {

struct Ceiling {
  std::string kind;  // host_memcpy
  int numa = -1;
  double gbps = 0;  // bytes copied / median time, GB = 1e9 bytes
  std::string method;
};

// Copies `bytes` between two buffers bound to each NUMA node, `repeats` times, on a thread
// bound to that node (the caller's binding is left alone).
std::vector<Ceiling> measure_host_ceilings(Topology& topo, std::size_t bytes = 64ULL << 20,
                                           int repeats = 7);

nlohmann::json to_json(const std::vector<Ceiling>& ceilings);

}  // namespace colltune
