#include "health/health_alone.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/decision.hpp"
#include "core/stats.hpp"
#include "health/fleet_score.hpp"

namespace colltune {

void add_alone_figures(std::vector<AloneFigures>& alone, int node,
                       const std::vector<Record>& records, const std::vector<CopyCeiling>& ceilings,
                       std::uint64_t small_bytes) {
  auto f = std::find_if(alone.begin(), alone.end(),
                        [&](const AloneFigures& a) { return a.node == node; });
  if (f == alone.end()) f = alone.insert(f, AloneFigures{node, {}});
  for (const Record& r : records) {
    if (r.skipped || r.samples_seconds.empty()) continue;
    f->launches[r.collective + (r.bytes <= small_bytes ? " latency" : " bw")].push_back(
        r.samples_seconds);
  }
  // A node's memory is as fast as its slowest NUMA node: that is where a bad DIMM shows.
  std::map<std::string, double> slowest_gbps;
  for (const CopyCeiling& c : ceilings) {
    const std::string metric = c.kind == "device_memcpy" ? "gpu memcpy" : "memcpy";
    if (c.gbps <= 0) continue;
    auto [it, fresh] = slowest_gbps.emplace(metric, c.gbps);
    if (!fresh) it->second = std::min(it->second, c.gbps);
  }
  for (const auto& [metric, gbps] : slowest_gbps) f->launches[metric].push_back({1 / gbps});
}

void add_split_alone_figures(std::vector<AloneFigures>& alone, const std::vector<int>& rank_nodes,
                             const std::vector<std::string>& rank_hosts,
                             const std::vector<Record>& records,
                             const std::vector<CopyCeiling>& ceilings, std::uint64_t small_bytes) {
  std::vector<int> nodes;
  for (const int n : rank_nodes) {
    if (n >= 0 && std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
  }
  for (const int node : nodes) {
    std::vector<Record> own;
    for (const Record& r : records) {
      if (r.skipped || r.rank_samples_seconds.size() != rank_nodes.size()) continue;
      Record mine = r;
      mine.rank_samples_seconds.clear();
      mine.samples_seconds.assign(r.samples_seconds.size(), 0.0);
      for (std::size_t rank = 0; rank < rank_nodes.size(); ++rank) {
        if (rank_nodes[rank] != node) continue;
        const std::vector<double>& samples = r.rank_samples_seconds[rank];
        for (std::size_t i = 0; i < samples.size() && i < mine.samples_seconds.size(); ++i)
          mine.samples_seconds[i] = std::max(mine.samples_seconds[i], samples[i]);
      }
      own.push_back(std::move(mine));
    }
    std::vector<CopyCeiling> node_ceilings;
    for (const CopyCeiling& c : ceilings) {
      for (std::size_t rank = 0; rank < rank_nodes.size() && rank < rank_hosts.size(); ++rank) {
        if (rank_nodes[rank] == node && rank_hosts[rank] == c.host) {
          node_ceilings.push_back(c);
          break;
        }
      }
    }
    add_alone_figures(alone, node, own, node_ceilings, small_bytes);
  }
}

std::vector<AloneVerdict> judge_alone(const std::vector<AloneFigures>& alone,
                                      const HealthRule& rule, std::vector<std::string>& notes) {
  std::set<std::string> metrics;
  for (const AloneFigures& a : alone) {
    for (const auto& [m, launches] : a.launches) metrics.insert(m);
  }
  std::vector<FleetCell> cells;
  std::map<std::string, FleetScale> scales;
  for (const std::string& m : metrics) {
    std::vector<LaunchSamples> pooled;
    std::vector<double> logs;
    std::vector<FleetCell> mine;
    for (std::size_t i = 0; i < alone.size(); ++i) {
      const auto it = alone[i].launches.find(m);
      if (it == alone[i].launches.end()) continue;
      FleetCell c{i, m};
      c.mean_log = mean_log_median(it->second, c.launches);
      if (c.launches == 0) continue;
      pooled.push_back(it->second);
      logs.push_back(c.mean_log);
      mine.push_back(c);
    }
    if (mine.empty()) continue;
    scales[m] = score_against_fleet(mine, pooled, median_of(logs), logs);
    if (scales[m].df == 0) {
      notes.push_back(fmt::format(
          "alone {}: no node has two launches, so the launch-to-launch noise is unknown and "
          "nothing is called slow on it",
          m));
    }
    cells.insert(cells.end(), mine.begin(), mine.end());
  }
  adjust_for_many(cells);

  std::vector<AloneVerdict> out;
  for (std::size_t i = 0; i < alone.size(); ++i) {
    AloneVerdict v;
    v.node = alone[i].node;
    const FleetCell* worst = nullptr;
    bool slow = false;
    for (const FleetCell& c : cells) {
      if (c.unit != i) continue;
      const FleetCall call = call_of(c, scales[c.metric], rule);
      const bool s = call == FleetCall::kSlow;
      v.undecided = v.undecided || call == FleetCall::kUndecided;
      if (!worst || (s && !slow) || (s == slow && c.d > worst->d)) worst = &c;
      slow = slow || s;
    }
    if (worst) {
      const FleetScale& scale = scales[worst->metric];
      v.verdict = slow ? HealthVerdict::kSlow : HealthVerdict::kOk;
      v.worst = Evidence{worst->metric,
                         std::exp(-worst->d),
                         worst->adjusted,
                         std::exp(worst->mean_log),
                         std::exp(scale.fleet_log),
                         worst->launch_sd,
                         worst->launches,
                         scale.between_sd};
    }
    if (slow) v.undecided = false;
    out.push_back(v);
  }
  return out;
}

HealthJudgement judge_all_stages(const HealthInput& in, const HealthRule& rule) {
  HealthJudgement j = judge_health(in, rule);
  j.alone = judge_alone(in.alone, rule, j.notes);
  for (const AloneVerdict& a : j.alone) {
    j.any_undecided = j.any_undecided || a.undecided;
    NodeVerdict& v = j.nodes[static_cast<std::size_t>(a.node)];
    // Only a decided "ok" alone clears the node, and only where stage 1 could have seen a
    // slowdown as large as its pairs' (its launches and the fleet's spread kOutlierZ times
    // within it) and shows not even a trend: on shared cores (the namespace cluster) a node
    // held to a fifth of a CPU passes stage 1 within its noise, and is not its network's fault.
    const double alone_noise = std::max(a.worst.spread, a.worst.between_sd);
    v.network_path = v.verdict == HealthVerdict::kSlow && a.verdict == HealthVerdict::kOk &&
                     !a.undecided && a.worst.ratio >= 1 - rule.min_effect && v.worst.ratio > 0 &&
                     kOutlierZ * alone_noise < -std::log(v.worst.ratio);
    if (a.verdict != HealthVerdict::kSlow) continue;
    if (v.verdict != HealthVerdict::kOk && v.verdict != HealthVerdict::kNotJudged) continue;
    v.verdict = HealthVerdict::kSlow;
    v.slow_alone = true;
    v.worst = a.worst;
    v.reason.clear();
  }
  return j;
}

}  // namespace colltune
