#pragma once
// colltune health's verdicts: each node and measured pair held against the fleet itself, with
// launches as the unit (docs/health.md states the rule and its false-alarm rate). Pure functions.

#include <map>
#include <string>
#include <vector>

#include "core/decision.hpp"
#include "health/health_plan.hpp"

namespace colltune {

enum class HealthVerdict { kOk, kSlow, kFailed, kUnreachable, kNotJudged };
std::string_view name(HealthVerdict v);

// One measured pair: per metric ("latency", "bw", "bibw"), its launches' samples in seconds of
// one op (larger is worse for every metric).
struct PairFigures {
  NodePair pair;
  std::map<std::string, LaunchSamples> launches;
};

struct HealthInput {
  std::vector<std::string> nodes;
  std::vector<PairFigures> pairs;
  std::map<int, std::string> failed;             // node -> what it did (a hang, an error)
  std::map<int, std::string> unreachable;        // node -> why no launch could start on it
  std::map<NodePair, std::string> failed_pairs;  // launches of just that pair that failed
};

struct HealthRule {
  double min_effect = 0.15;  // slow only where 15% or more below the fleet's reference
  double alpha = 0.001;      // on Benjamini-Hochberg-adjusted p over all pairs x metrics
};

// The worst metric of a pair or node, with its evidence.
struct Evidence {
  std::string metric;
  double ratio = 1;  // the fleet reference's time over this one's: 0.5 = half as fast
  double p = 1;      // adjusted one-sided p of "slower than the fleet"
  double median_seconds = 0, fleet_seconds = 0, spread = 0;  // spread: sd of log launch figures
  int launches = 0;
};

struct PairVerdict {
  NodePair pair;
  HealthVerdict verdict = HealthVerdict::kOk;
  bool undecided = false;  // below the effect floor but not significant: more launches help
  Evidence worst;
  std::string reason;  // failed pairs: what happened
};

struct NodeVerdict {
  int node = 0;
  HealthVerdict verdict = HealthVerdict::kOk;
  int slow_pairs = 0, judged_pairs = 0;  // of its measured pairs, those slow on `worst.metric`
  Evidence worst;
  std::string reason;
  bool link_only = false;  // ok itself, but one of its links is slow or failed
};

struct HealthJudgement {
  std::vector<NodeVerdict> nodes;               // in input order
  std::vector<PairVerdict> pairs;               // in input order
  std::map<std::string, double> fleet_seconds;  // metric -> the fleet's reference time
  std::map<std::string, double> spread;         // metric -> pooled sd of log launch figures
  std::size_t spread_df = 0;
  bool any_undecided = false;
  std::vector<std::string> notes;  // what the data could not tell
};

// The rule: per metric, a pair's figure is the geometric mean of its launch medians; a node's
// the median of its pairs'; the fleet's the median of its nodes'. A pair is slow where it is at
// least min_effect slower than the fleet and a t-test over its launches (the pooled launch
// spread of all pairs) says so at alpha after Benjamini-Hochberg. A node slow in more than half
// of its measured pairs is a slow node; a slow pair whose nodes are both not slow is a slow link.
HealthJudgement judge_health(const HealthInput& in, const HealthRule& rule = {});

}  // namespace colltune
