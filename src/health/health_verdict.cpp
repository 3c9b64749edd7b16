#include "health/health_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/stats.hpp"

namespace colltune {
namespace {

// The better (smaller) of the two middle values: a node with one slow neighbour out of two keeps
// its own figure instead of the average with the slow one.
double lower_median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

}  // namespace

std::string_view name(HealthVerdict v) {
  switch (v) {
    case HealthVerdict::kOk:
      return "ok";
    case HealthVerdict::kSlow:
      return "slow";
    case HealthVerdict::kFailed:
      return "failed";
    case HealthVerdict::kUnreachable:
      return "unreachable";
    case HealthVerdict::kNotJudged:
      return "not judged";
    case HealthVerdict::kNotConfirmed:
      return "not confirmed";
  }
  return "?";
}

HealthJudgement judge_health(const HealthInput& in, const HealthRule& rule) {
  HealthJudgement out;
  std::set<std::string> metrics;
  for (const auto& p : in.pairs) {
    for (const auto& [m, launches] : p.launches) metrics.insert(m);
  }
  std::vector<FleetCell> cells;
  std::map<std::string, FleetScale> scales;
  for (const std::string& m : metrics) {
    std::vector<LaunchSamples> pooled;
    std::vector<FleetCell> mine;
    std::vector<std::vector<double>> node_logs(in.nodes.size());
    for (std::size_t i = 0; i < in.pairs.size(); ++i) {
      const auto it = in.pairs[i].launches.find(m);
      if (it == in.pairs[i].launches.end()) continue;
      FleetCell c{i, m};
      c.mean_log = mean_log_median(it->second, c.launches);
      if (c.launches == 0) continue;
      pooled.push_back(it->second);
      node_logs[static_cast<std::size_t>(in.pairs[i].pair.first)].push_back(c.mean_log);
      node_logs[static_cast<std::size_t>(in.pairs[i].pair.second)].push_back(c.mean_log);
      mine.push_back(c);
    }
    if (mine.empty()) continue;
    std::vector<double> node_scores;
    for (const auto& logs : node_logs) {
      if (!logs.empty()) node_scores.push_back(lower_median_of(logs));
    }
    const FleetScale scale = score_against_fleet(mine, pooled, median_of(node_scores), node_scores);
    scales[m] = scale;
    out.fleet_seconds[m] = std::exp(scale.fleet_log);
    out.spread[m] = scale.launch_sd;
    out.between_sd[m] = scale.between_sd;
    out.spread_df = std::max(out.spread_df, scale.df);
    if (scale.df == 0) {
      out.notes.push_back(fmt::format(
          "{}: no pair has two launches, so the launch-to-launch noise is unknown and nothing "
          "is called slow on it",
          m));
    }
    cells.insert(cells.end(), mine.begin(), mine.end());
  }
  adjust_for_many(cells);

  const auto evidence_of = [&](const FleetCell& c) {
    Evidence e;
    e.metric = c.metric;
    e.ratio = std::exp(-c.d);
    e.p = c.adjusted;
    e.median_seconds = std::exp(c.mean_log);
    e.fleet_seconds = out.fleet_seconds[c.metric];
    e.spread = c.launch_sd;
    e.launches = c.launches;
    e.between_sd = out.between_sd[c.metric];
    return e;
  };
  const auto call = [&](const FleetCell& c) { return call_of(c, scales[c.metric], rule); };
  // Pairs: the slow metric furthest from the fleet, else the metric furthest from it.
  for (std::size_t i = 0; i < in.pairs.size(); ++i) {
    PairVerdict v;
    v.pair = in.pairs[i].pair;
    const FleetCell* worst = nullptr;
    bool slow = false;
    for (const FleetCell& c : cells) {
      if (c.unit != i) continue;
      const bool s = call(c) == FleetCall::kSlow;
      if (call(c) == FleetCall::kUndecided) v.undecided = true;
      if (!worst || (s && !slow) || (s == slow && c.d > worst->d)) worst = &c;
      slow = slow || s;
    }
    if (worst) v.worst = evidence_of(*worst);
    v.verdict = !worst ? HealthVerdict::kNotJudged
                : slow ? HealthVerdict::kSlow
                       : HealthVerdict::kOk;
    if (slow) v.undecided = false;
    out.any_undecided = out.any_undecided || v.undecided;
    out.pairs.push_back(v);
  }
  for (const auto& [pair, reason] : in.failed_pairs) {
    PairVerdict v;
    v.pair = pair;
    v.verdict = HealthVerdict::kFailed;
    v.reason = reason;
    out.pairs.push_back(v);
  }
  // Nodes: slow on a metric where more than half of its pairs measured on it are slow.
  for (std::size_t n = 0; n < in.nodes.size(); ++n) {
    NodeVerdict v;
    v.node = static_cast<int>(n);
    const int node = static_cast<int>(n);
    double best_share = -1;
    for (const std::string& m : metrics) {
      int slow = 0, judged = 0;
      double worst_p = 0;
      std::vector<double> logs;
      for (const FleetCell& c : cells) {
        const NodePair& pr = in.pairs[c.unit].pair;
        if (c.metric != m || (pr.first != node && pr.second != node)) continue;
        ++judged;
        logs.push_back(c.d);
        if (call(c) == FleetCall::kSlow) {
          ++slow;
          worst_p = std::max(worst_p, c.adjusted);
        }
      }
      if (judged == 0) continue;
      const double share = static_cast<double>(slow) / judged;
      const double node_d = lower_median_of(logs);
      if (share > best_share || (share == best_share && node_d > -std::log(v.worst.ratio))) {
        best_share = share;
        v.slow_pairs = slow;
        v.judged_pairs = judged;
        v.worst = Evidence{m,
                           std::exp(-node_d),
                           slow > 0 ? worst_p : 1,
                           out.fleet_seconds[m] * std::exp(node_d),
                           out.fleet_seconds[m],
                           out.spread[m],
                           0,
                           out.between_sd[m]};
      }
    }
    if (v.judged_pairs == 0) {
      v.verdict = HealthVerdict::kNotJudged;
      v.reason = "no pair with it was measured";
    } else if (2 * v.slow_pairs > v.judged_pairs) {
      v.verdict = HealthVerdict::kSlow;
    }
    if (const auto it = in.unreachable.find(node); it != in.unreachable.end()) {
      v.verdict = HealthVerdict::kUnreachable;
      v.reason = it->second;
    }
    if (const auto it = in.failed.find(node); it != in.failed.end()) {
      v.verdict = HealthVerdict::kFailed;
      v.reason = it->second;
    }
    out.nodes.push_back(v);
  }
  // A slow or failed pair between two nodes that are themselves fine is the link's doing.
  for (const PairVerdict& p : out.pairs) {
    if (p.verdict != HealthVerdict::kSlow && p.verdict != HealthVerdict::kFailed) continue;
    NodeVerdict& a = out.nodes[static_cast<std::size_t>(p.pair.first)];
    NodeVerdict& b = out.nodes[static_cast<std::size_t>(p.pair.second)];
    if (a.verdict == HealthVerdict::kOk && b.verdict == HealthVerdict::kOk) {
      a.link_only = b.link_only = true;
    }
  }
  return out;
}

bool link_fault(const HealthJudgement& j, const PairVerdict& p) {
  const auto fine = [&](int node) {
    const HealthVerdict v = j.nodes[static_cast<std::size_t>(node)].verdict;
    return v == HealthVerdict::kOk || v == HealthVerdict::kNotConfirmed;
  };
  return (p.verdict == HealthVerdict::kSlow || p.verdict == HealthVerdict::kFailed ||
          p.verdict == HealthVerdict::kUnreachable) &&
         fine(p.pair.first) && fine(p.pair.second);
}

double slowest_ok_pair_gbps(const HealthInput& in, const HealthJudgement& j, double bw_bytes) {
  double slowest = 0;
  for (const PairVerdict& v : j.pairs) {
    if (v.verdict != HealthVerdict::kOk) continue;
    for (const PairFigures& f : in.pairs) {
      const auto it = f.pair == v.pair ? f.launches.find("bw") : f.launches.end();
      if (it == f.launches.end() || it->second.empty()) continue;
      int launches = 0;
      const double gbps = bw_bytes / std::exp(mean_log_median(it->second, launches)) / 1e9;
      slowest = slowest == 0 ? gbps : std::min(slowest, gbps);
    }
  }
  return slowest;
}

std::vector<TogetherFigure> together_figures(const std::vector<std::vector<Record>>& launches,
                                             double predicted_gbps, bool judge_allreduce) {
  std::map<std::string, std::vector<double>> logs;  // collective -> log busbw per launch
  for (const auto& records : launches) {
    for (const Record& r : records) {
      if (r.skipped || r.samples_seconds.empty()) continue;
      logs[r.collective].push_back(
          std::log(r.algbw_bytes * r.bus_factor / median_of(r.samples_seconds) / 1e9));
    }
  }
  std::vector<TogetherFigure> out;
  for (const auto& [coll, values] : logs) {
    TogetherFigure t{coll};
    double sum = 0;
    for (double v : values) sum += v;
    t.busbw_gbps = std::exp(sum / static_cast<double>(values.size()));
    t.predicted_gbps = predicted_gbps;
    t.launches = static_cast<int>(values.size());
    const bool judged = predicted_gbps > 0 && (judge_allreduce || coll != "allreduce");
    t.verdict = !judged                                          ? HealthVerdict::kNotJudged
                : t.busbw_gbps < kTogetherFloor * predicted_gbps ? HealthVerdict::kSlow
                                                                 : HealthVerdict::kOk;
    out.push_back(t);
  }
  return out;
}

void blame_nodes_of_failed_pairs(HealthInput& in) {
  std::map<int, int> failed_pairs, measured;
  for (const auto& [pair, reason] : in.failed_pairs) {
    ++failed_pairs[pair.first];
    ++failed_pairs[pair.second];
  }
  for (const PairFigures& f : in.pairs) {
    ++measured[f.pair.first];
    ++measured[f.pair.second];
  }
  for (const auto& [node, count] : failed_pairs) {
    if (count < 2 || measured[node] > 0 || in.failed.count(node)) continue;
    const std::string& reason =
        std::find_if(in.failed_pairs.begin(), in.failed_pairs.end(), [&](auto& e) {
          return e.first.first == node || e.first.second == node;
        })->second;
    if (reason.starts_with("unreachable: ")) {
      in.unreachable.emplace(node, reason.substr(13));
    } else {
      in.failed.emplace(node, "every launch with it failed: " + reason);
    }
  }
}

double add_launch_figures(HealthInput& in, const std::vector<Record>& records,
                          const std::vector<int>& rank_nodes, std::uint64_t small_bytes) {
  const std::size_t n = rank_nodes.size();
  double bw_bytes = 0;
  for (const Record& rec : records) {
    std::string metric;
    if (rec.kind == CollKind::kPingpong && rec.bytes == small_bytes) metric = "latency";
    if (rec.kind == CollKind::kUniBw && rec.bytes > small_bytes) metric = "bw";
    if (rec.kind == CollKind::kBiBw && rec.bytes > small_bytes) metric = "bibw";
    if (metric.empty() || rec.skipped || rec.rank_samples_seconds.size() != n) continue;
    std::map<NodePair, std::vector<double>> by_pair;
    for (std::size_t r = 0; r < n / 2; ++r) {
      const int a = rank_nodes[r], b = rank_nodes[r + n / 2];
      if (a < 0 || b < 0 || a == b) continue;
      auto& samples = by_pair[{std::min(a, b), std::max(a, b)}];
      samples.resize(rec.samples_seconds.size(), 0);
      for (const std::size_t rank : {r, r + n / 2}) {
        for (std::size_t s = 0; s < samples.size(); ++s)
          samples[s] = std::max(samples[s], rec.rank_samples_seconds[rank][s]);
      }
    }
    for (auto& [pair, samples] : by_pair) {
      auto f = std::find_if(in.pairs.begin(), in.pairs.end(),
                            [&](const PairFigures& p) { return p.pair == pair; });
      if (f == in.pairs.end()) f = in.pairs.insert(f, PairFigures{pair, {}});
      f->launches[metric].push_back(samples);
    }
    if (metric == "bw") bw_bytes = rec.algbw_bytes;
  }
  return bw_bytes;
}

}  // namespace colltune
