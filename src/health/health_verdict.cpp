#include "health/health_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <set>

namespace colltune {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The better (smaller) of the two middle values: a node with one slow neighbour out of two keeps
// its own figure instead of the average with the slow one.
double lower_median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

double log_median(const std::vector<double>& samples) { return std::log(median_of(samples)); }

struct Cell {  // one pair on one metric
  std::size_t pair = 0;
  std::string metric;
  double mean_log = 0;  // mean over launches of log launch medians (seconds)
  int launches = 0;
  double d = 0, p = 1, adjusted = 1;  // d: log(pair time / fleet time)
};

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
  }
  return "?";
}

HealthJudgement judge_health(const HealthInput& in, const HealthRule& rule) {
  HealthJudgement out;
  std::set<std::string> metrics;
  for (const auto& p : in.pairs) {
    for (const auto& [m, launches] : p.launches) metrics.insert(m);
  }
  std::vector<Cell> cells;
  for (const std::string& m : metrics) {
    std::vector<LaunchSamples> pooled;
    std::vector<Cell> mine;
    std::vector<std::vector<double>> node_logs(in.nodes.size());
    for (std::size_t i = 0; i < in.pairs.size(); ++i) {
      const auto it = in.pairs[i].launches.find(m);
      if (it == in.pairs[i].launches.end()) continue;
      Cell c{i, m};
      for (const auto& launch : it->second) {
        if (launch.empty()) continue;
        c.mean_log += log_median(launch);
        ++c.launches;
      }
      if (c.launches == 0) continue;
      c.mean_log /= c.launches;
      pooled.push_back(it->second);
      node_logs[static_cast<std::size_t>(in.pairs[i].pair.first)].push_back(c.mean_log);
      node_logs[static_cast<std::size_t>(in.pairs[i].pair.second)].push_back(c.mean_log);
      mine.push_back(c);
    }
    if (mine.empty()) continue;
    std::size_t df = 0;
    const double spread = std::max(pooled_launch_sd(pooled, &df), kMinLaunchSd);
    std::vector<double> node_scores;
    for (const auto& logs : node_logs) {
      if (!logs.empty()) node_scores.push_back(lower_median_of(logs));
    }
    const double fleet = median_of(node_scores);
    out.fleet_seconds[m] = std::exp(fleet);
    out.spread[m] = spread;
    out.spread_df = std::max(out.spread_df, df);
    if (df == 0) {
      out.notes.push_back(fmt::format(
          "{}: no pair has two launches, so the launch-to-launch noise is unknown and nothing "
          "is called slow on it",
          m));
    }
    for (Cell& c : mine) {
      c.d = c.mean_log - fleet;
      if (df > 0) {
        const double t = c.d / (spread / std::sqrt(static_cast<double>(c.launches)));
        c.p = boost::math::cdf(
            boost::math::complement(boost::math::students_t(static_cast<double>(df)), t));
      }
      cells.push_back(c);
    }
  }
  std::vector<double> ps;
  for (const Cell& c : cells) ps.push_back(c.p);
  const std::vector<double> adjusted = benjamini_hochberg(ps);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i].adjusted = adjusted[i];

  const double slow_ratio = 1 - rule.min_effect;
  const auto evidence_of = [&](const Cell& c) {
    Evidence e;
    e.metric = c.metric;
    e.ratio = std::exp(-c.d);
    e.p = c.adjusted;
    e.median_seconds = std::exp(c.mean_log);
    e.fleet_seconds = out.fleet_seconds[c.metric];
    e.spread = out.spread[c.metric];
    e.launches = c.launches;
    return e;
  };
  const auto is_slow = [&](const Cell& c) {
    return std::exp(-c.d) <= slow_ratio && c.adjusted < rule.alpha;
  };
  // Pairs: the slow metric furthest from the fleet, else the metric furthest from it.
  for (std::size_t i = 0; i < in.pairs.size(); ++i) {
    PairVerdict v;
    v.pair = in.pairs[i].pair;
    const Cell* worst = nullptr;
    bool slow = false;
    for (const Cell& c : cells) {
      if (c.pair != i) continue;
      const bool s = is_slow(c);
      if (std::exp(-c.d) <= slow_ratio && !s) v.undecided = true;
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
      for (const Cell& c : cells) {
        const NodePair& pr = in.pairs[c.pair].pair;
        if (c.metric != m || (pr.first != node && pr.second != node)) continue;
        ++judged;
        logs.push_back(c.d);
        if (is_slow(c)) {
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
                           0};
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

}  // namespace colltune
