#pragma once
// colltune health's run as one object, internal to src/health: the launches it supervises, the
// store it keeps and what they found. health_run.cpp holds the launches and the store,
// health_stages.cpp each stage (every node alone, the pairs, the confirmation, all together).
// The driver's thread.

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "health/health_launch.hpp"
#include "health/health_logs.hpp"
#include "health/health_plan.hpp"
#include "health/health_run.hpp"
#include "health/health_verdict.hpp"
#include "store/manifest.hpp"
#include "sweep/fail_fast.hpp"
#include "topo/infiniband.hpp"

namespace colltune {

class HealthRun {
 public:
  HealthRun(const HealthOptions& o, std::FILE* progress);
  HealthResult run();

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  void save();
  bool out_of_time();
  void event(const std::string& line);
  // One supervised launch of colltune run on `hosts` (in this order, ranks_per_node each).
  LaunchResult launch(const std::string& stage, const std::vector<std::string>& hosts, int pass,
                      const std::vector<std::string>& run_args, const std::string& label,
                      int ranks_per_node);
  // Every node's ports in one launch of `colltune topo --ib-line`, read back from the log.
  std::map<int, std::vector<IbPort>> read_ports(const std::string& when);
  int node_of(const std::string& host) const { return node_index(o_.hosts, host); }
  void add_pair_figures(const LaunchResult& l, HealthInput& into);
  // Measures `pairs` in one launch, their figures into `into` (null: the check's input); a
  // failure is narrowed down: the nodes its ranks named silent are failed and the rest measured
  // again, else each pair alone.
  void measure_pairs(const PairRound& pairs, int pass, const std::string& stage = "pairs",
                     HealthInput* into = nullptr);
  bool excluded(const NodePair& p) const;
  // `nodes` alone, their figures into `into` (null: the check's input): with --alone-launch one
  // all in one launch, each node's ranks a communicator of their own (--split host), a failure
  // narrowed down as for pairs; else, or for one node, a launch each. A node failing alone is
  // failed.
  void measure_alone(const std::vector<int>& nodes, int pass, const std::string& stage,
                     HealthInput* into = nullptr);
  // Each node on its own: its collectives at both sizes and its memcpy, a launch per pass (or
  // per node and pass); more passes for nodes the first left undecided.
  void alone_stage();
  void pairs_stage();
  // What the first passes named, paired again in fresh launches before it is named.
  void confirm_stage();
  // Suspects slow alone, measured alone again into `confirm` as they were first: at once with
  // every node not failed (its figures beside theirs, where nodes share hardware, as the
  // namespace cluster's do), keeping only theirs; or a launch each.
  void confirm_alone(const std::vector<int>& suspects, int pass, HealthInput& confirm);
  HealthJudgement judge();
  void together_stage();

  const HealthOptions& o_;
  std::FILE* progress_;
  HealthResult r_;
  Manifest manifest_;
  FailFast fail_fast_;  // every launch of the check, in order
  double bw_bytes_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace colltune
