#include "topo/ceilings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace colltune {

std::vector<Ceiling> measure_host_ceilings(Topology& topo, std::size_t bytes, int repeats) {
  std::vector<Ceiling> out;
  for (const NumaInfo& node : topo.summary().numa) {
    Ceiling c{"host_memcpy", node.os_index, 0,
              fmt::format("memcpy of {} MiB between buffers bound to NUMA node {}, median of {}",
                          bytes >> 20, node.os_index, repeats)};
    // A thread of its own: binding it leaves the caller's (and its children's) affinity alone.
    std::thread worker([&] {
      void* src = topo.alloc_on_node(node.os_index, bytes);
      void* dst = topo.alloc_on_node(node.os_index, bytes);
      if (src != nullptr && dst != nullptr) {
        std::memset(src, 1, bytes);
        std::memset(dst, 0, bytes);
        std::vector<double> seconds;
        for (int i = 0; i < repeats; ++i) {
          const auto start = std::chrono::steady_clock::now();
          std::memcpy(dst, src, bytes);
          seconds.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(seconds.begin(), seconds.end());
        c.gbps = static_cast<double>(bytes) / seconds[seconds.size() / 2] / 1e9;
      }
      if (src != nullptr) topo.free_on_node(src, bytes);
      if (dst != nullptr) topo.free_on_node(dst, bytes);
    });
    worker.join();
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json to_json(const std::vector<Ceiling>& ceilings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : ceilings) {
    out.push_back({{"kind", c.kind}, {"numa", c.numa}, {"gbps", c.gbps}, {"method", c.method}});
  }
  return out;
}

}  // namespace colltune
