#pragma once
// colltune health's stages as supervised launches (each node alone, node pairs in rounds,
// then all nodes together), kept in a store as a sweep's are, and judged against the fleet. The
// driver's thread.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "health/health_verdict.hpp"
#include "sweep/spec.hpp"
#include "topo/infiniband.hpp"

namespace colltune {

// Above this many nodes, stage 1 launched a node at a time (--alone-launch per-node, NCCL's
// default) runs only when asked for: a launch per node and pass.
inline constexpr std::size_t kAloneAutoMaxNodes = 64;

struct HealthOptions {
  std::vector<std::string> hosts;  // the nodes, as the launcher names them; 2 or more, distinct
  SweepSpec spec;                  // its launch keys: launcher, launcher_args, env
  std::string backend = "mpi";
  int ranks_per_node = 1;
  int node_ranks = 2;        // stage 1's ranks on each node (its GPUs, on NCCL)
  std::string alone = "on";  // stage 1: "on", or why it does not run
  // Stage 1's launches: "one" (every node at once, a communicator per node: colltune run
  // --split host) or "per-node" (one after another).
  std::string alone_launch = "one";
  std::string bind_to;                  // empty: the launcher's default
  std::uint64_t small_bytes = 8;        // pingpong latency
  std::uint64_t large_bytes = 1 << 20;  // bw and bibw, and the all-nodes collectives
  int window = 8;                       // bw/bibw messages in flight
  int passes = 2;                       // every pair launched this often (launches are the unit)
  int max_passes = 4;                   // more, for pairs the first passes left undecided
  double budget_seconds = 900;          // the whole check, wall clock
  double launch_timeout_seconds = 60;   // one launch; a hang is ended and named at this
  int matchings = 3;                    // beyond kAllPairsMaxNodes nodes
  std::string confirm = "on";           // "off": name on the first passes alone
  std::uint64_t seed = 1;
  std::vector<std::string> switch_of;  // each host's leaf switch (--topology); empty: not known
  HealthRule rule;
  std::string store_dir;  // made fresh
  std::string colltune_path, colltune_version;
};

struct HealthResult {
  HealthInput input;
  HealthJudgement judgement;
  std::vector<TogetherFigure> together;
  // InfiniBand: each node's ports before and after (node index -> ports), and what is wrong.
  std::map<int, std::vector<IbPort>> ports_before, ports_after;
  std::map<int, std::vector<std::string>> port_findings;
  std::vector<std::string> stages;  // one line each: what ran, how many launches, seconds
  std::vector<std::string> events;  // failures as they happened, with the culprit
  bool budget_spent = false;
  bool interrupted = false;
  std::string stopped;        // why the check stopped early: its first launches all failed alike
  std::string unconfirmable;  // why a suspect could not be paired again (no node judged ok)
  int launches = 0;
  double seconds = 0;
};

// Runs every stage within the budget; a launch that fails or hangs names its culprit where the
// ranks did (colltune run's roll call), and the check goes on without that node.
HealthResult run_health(const HealthOptions& options, std::FILE* progress);

}  // namespace colltune
