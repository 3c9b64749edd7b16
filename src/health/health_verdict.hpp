#pragma once
// colltune health's verdicts: each node and measured pair held against the fleet itself, with
// launches as the unit (docs/health.md states the rule and its false-alarm rate). Pure functions.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/decision.hpp"
#include "health/fleet_score.hpp"
#include "health/health_plan.hpp"
#include "store/record.hpp"

namespace colltune {

// kNotConfirmed: the first passes found it slow, the confirmation pass did not (not named).
enum class HealthVerdict { kOk, kSlow, kFailed, kUnreachable, kNotJudged, kNotConfirmed };
std::string_view name(HealthVerdict v);

// One measured pair: per metric ("latency", "bw", "bibw"), its launches' samples in seconds of
// one op (larger is worse for every metric).
struct PairFigures {
  NodePair pair;
  std::map<std::string, LaunchSamples> launches;
};

// Stage 1, one node alone: per metric ("allreduce bw", "alltoall latency", "memcpy", "gpu
// memcpy"), its launches' samples in seconds (larger is worse; a memcpy as seconds per GB).
struct AloneFigures {
  int node = 0;
  std::map<std::string, LaunchSamples> launches;
};

struct HealthInput {
  std::vector<std::string> nodes;
  std::vector<AloneFigures> alone;
  std::vector<PairFigures> pairs;
  std::map<int, std::string> failed;             // node -> what it did (a hang, an error)
  std::map<int, std::string> unreachable;        // node -> why no launch could start on it
  std::map<NodePair, std::string> failed_pairs;  // launches of just that pair that failed
  std::vector<std::string> switch_of;  // node -> its leaf switch (--topology); empty: not known
};

// The worst metric of a pair or node, with its evidence.
struct Evidence {
  std::string metric;
  double ratio = 1;  // the fleet reference's time over this one's: 0.5 = half as fast
  double p = 1;      // adjusted one-sided p of "slower than the fleet"
  double median_seconds = 0, fleet_seconds = 0, spread = 0;  // spread: sd of log launch figures
  int launches = 0;
  double between_sd = 0;  // the fleet's robust sd of log figures between units (FleetScale)
};

struct PairVerdict {
  NodePair pair;
  HealthVerdict verdict = HealthVerdict::kOk;
  bool undecided = false;  // below the effect floor but not significant: more launches help
  Evidence worst;
  std::string reason;                            // failed pairs: what happened
  std::optional<HealthVerdict> confirm_verdict;  // a suspect link measured again: its verdict
};

// A node on its own (stage 1), against every other node on its own.
struct AloneVerdict {
  int node = 0;
  HealthVerdict verdict = HealthVerdict::kNotJudged;
  bool undecided = false;  // as PairVerdict's
  Evidence worst;
};

struct NodeVerdict {
  int node = 0;
  HealthVerdict verdict = HealthVerdict::kOk;
  bool slow_alone = false;               // its verdict and evidence come from stage 1
  int slow_pairs = 0, judged_pairs = 0;  // of its measured pairs, those slow on `worst.metric`
  Evidence worst;
  std::string reason;
  bool link_only = false;  // ok itself, but one of its links is slow or failed
  // Slow in its pairs while stage 1 judged it ok alone: what is slow is its network path (NIC,
  // cable, switch port), not the node, so that is what gets fixed (judge_all_stages).
  bool network_path = false;
  // Its network path is slow as that of kUplinkMinNodes or more nodes under its leaf switch:
  // that switch's uplinks, named instead (switch_layout.hpp); the node itself is ok.
  std::string behind_uplink;
  // A suspect of the first passes measured again (health_confirm.hpp): of its fresh pairs (slow
  // alone: its fresh stage-1 units), those slow and those judged; -1 where it was no suspect.
  int confirm_slow = -1, confirm_judged = 0;
  // Failed in the first passes and then ran in a fresh pair: "not confirmed", its reason both.
  bool failed_first = false;
};

struct HealthJudgement {
  std::vector<NodeVerdict> nodes;               // in input order
  std::vector<AloneVerdict> alone;              // stage 1, in input.alone's order
  std::vector<PairVerdict> pairs;               // in input order
  std::map<std::string, double> fleet_seconds;  // metric -> the fleet's reference time
  std::map<std::string, double> spread;         // metric -> pooled sd of log launch figures
  std::map<std::string, double> between_sd;     // metric -> robust sd between nodes' figures
  std::size_t spread_df = 0;
  bool any_undecided = false;
  std::vector<std::string> notes;  // what the data could not tell
};

// A pair slow or failed while both its nodes are fine (ok, or cleared by the confirmation): the
// link's doing, not a node's.
bool link_fault(const HealthJudgement& j, const PairVerdict& p);

// Stage 3: all healthy nodes at once, against what the slowest healthy pair's bw predicts.
struct TogetherFigure {
  std::string collective;
  double busbw_gbps = 0;      // geometric mean over launches of the busbw at each launch's median
  double predicted_gbps = 0;  // the slowest ok pair's bw
  int launches = 0;
  HealthVerdict verdict = HealthVerdict::kNotJudged;
};

// Below this share of the slowest healthy pair's bw, all nodes together are called slow: a
// collective over a fabric reaches less than one link's rate (its algorithm, the shared
// switch), so the bound is loose and catches only what pairs cannot show.
inline constexpr double kTogetherFloor = 0.5;

// Stage 3's reference: the bw of the slowest pair judged ok (`bw_bytes` moved per op), in GB/s;
// 0 when none was.
double slowest_ok_pair_gbps(const HealthInput& in, const HealthJudgement& j, double bw_bytes);

// Each collective's busbw over the launches (each its records), against `predicted_gbps`.
// `judge_allreduce` false: allreduce is shown, not judged (kNotJudged), where the library picks
// an algorithm a pair's bw does not predict (Open MPI, on a node count not a power of two, runs
// no ring: 0.39x the pair's bw on 3 healthy namespace nodes against 0.80x on 4).
std::vector<TogetherFigure> together_figures(const std::vector<std::vector<Record>>& launches,
                                             double predicted_gbps, bool judge_allreduce = true);

// Adds one pair launch's figures to `in.pairs`, from where its ranks really ran (`rank_nodes`:
// each rank's node index, -1 for none; a launcher may order nodes its own way): colltune run
// pairs rank r with r + n/2, and each sample of a pair is the slowest of its ranks'. Latency is
// pingpong at `small_bytes`, bw and bibw the larger size. Returns the bytes a bw op moves (0 if
// none).
double add_launch_figures(HealthInput& in, const std::vector<Record>& records,
                          const std::vector<int>& rank_nodes, std::uint64_t small_bytes);

// A node two or more of whose pair launches failed, none measured, and that no roll call named:
// failed itself ("every launch with it failed"), or unreachable where its launcher said so (a
// reason starting "unreachable: "). Adds to `in.failed` / `in.unreachable`.
void blame_nodes_of_failed_pairs(HealthInput& in);

// The rule: per metric, a pair's figure is the geometric mean of its launch medians; a node's
// the median of its pairs'; the fleet's the median of its nodes'. A pair is slow where it is at
// least min_effect slower than the fleet, beyond kOutlierZ robust sds of the nodes' figures (and of
// the launch noise), and a t-test over its launches (the pooled launch spread of all pairs) says so
// at alpha after Benjamini-Hochberg (call_of). A node slow in more than half of its measured pairs
// is a slow node; a slow pair whose nodes are both not slow is a slow link.
HealthJudgement judge_health(const HealthInput& in, const HealthRule& rule = {});

}  // namespace colltune
