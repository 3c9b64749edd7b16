#include "core/placement_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/cpulist.hpp"

namespace colltune {
namespace {

bool intersect(const std::vector<int>& a, const std::vector<int>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](int x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

}  // namespace

bool is_bound(const RankPlacement& r) {
  return r.host_pus > 0 && static_cast<int>(parse_cpulist(r.cpus).size()) < r.host_pus;
}

std::vector<std::string> placement_warnings(const std::vector<RankPlacement>& ranks,
                                            const PlacementRequest& request) {
  std::vector<std::string> out;
  const std::string policy = request.bind_to.substr(0, request.bind_to.find(':'));
  const bool overload_allowed = request.bind_to.find("overload-allowed") != std::string::npos;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankPlacement& r = ranks[i];
    const auto cores = parse_cpulist(r.cores);
    const auto numa = parse_cpulist(r.numa);
    if (policy == "core" && cores.size() != 1) {
      out.push_back(
          fmt::format("rank {} on {} may run on cores {}, not one core as bind_to core asked",
                      r.rank, r.host, r.cores));
    } else if (policy == "numa" && numa.size() != 1) {
      out.push_back(fmt::format("rank {} on {} spans NUMA nodes {}, not one as bind_to numa asked",
                                r.rank, r.host, r.numa));
    } else if (policy == "none" && is_bound(r)) {
      out.push_back(
          fmt::format("rank {} on {} is bound to cpus {} although bind_to none asked for "
                      "no binding",
                      r.rank, r.host, r.cpus));
    }
    // Sharing a core hurts only when the ranks were pinned there; unbound ranks float.
    if (is_bound(r) && !overload_allowed) {
      for (std::size_t j = i + 1; j < ranks.size(); ++j) {
        const RankPlacement& o = ranks[j];
        if (o.host == r.host && is_bound(o) && intersect(cores, parse_cpulist(o.cores))) {
          out.push_back(fmt::format("ranks {} and {} on {} share core(s) {} and {}", r.rank, o.rank,
                                    r.host, r.cores, o.cores));
        }
      }
    }
    const auto gpu_numa = parse_cpulist(r.gpu_numa);
    if (!gpu_numa.empty() && !numa.empty() && !intersect(numa, gpu_numa)) {
      out.push_back(fmt::format("rank {} on {} runs on NUMA {} but its GPU {} is on NUMA {}",
                                r.rank, r.host, r.numa, r.gpu, r.gpu_numa));
    }
    const auto nic_numa = parse_cpulist(r.nic_numa);
    if (!nic_numa.empty() && !numa.empty() && !intersect(numa, nic_numa)) {
      out.push_back(
          fmt::format("rank {} on {} runs on NUMA {} but the host's InfiniBand NICs are on "
                      "NUMA {}",
                      r.rank, r.host, r.numa, r.nic_numa));
    }
  }
  std::map<std::string, int> per_host;
  for (const auto& r : ranks) ++per_host[r.host];
  if (!per_host.empty()) {
    const auto [lo, hi] =
        std::minmax_element(per_host.begin(), per_host.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; });
    if (lo->second != hi->second) {
      out.push_back(fmt::format("unbalanced: {} ranks on {} but {} on {}", hi->second, hi->first,
                                lo->second, lo->first));
    }
    if (request.ranks_per_node > 0) {
      for (const auto& [host, n] : per_host) {
        if (n != request.ranks_per_node) {
          out.push_back(fmt::format("{} ranks on {}, not {} as ranks_per_node asked", n, host,
                                    request.ranks_per_node));
        }
      }
    }
  }
  return out;
}

}  // namespace colltune
