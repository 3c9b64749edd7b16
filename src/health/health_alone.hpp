#pragma once
// colltune health's stage 1, each node alone: its figures from its own launches, its verdict
// against every other node alone, and how that joins the pair verdicts. Pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "health/health_verdict.hpp"
#include "store/record.hpp"

namespace colltune {

// Adds one stage-1 launch of `node` to `alone`: each collective at `small_bytes` ("<coll>
// latency") and above it ("<coll> bw"), and the slowest memcpy of its NUMA nodes ("memcpy")
// and GPUs ("gpu memcpy") from `ceilings`, as seconds per GB, one sample a launch.
void add_alone_figures(std::vector<AloneFigures>& alone, int node,
                       const std::vector<Record>& records, const std::vector<CopyCeiling>& ceilings,
                       std::uint64_t small_bytes);

// Adds one stage-1 launch of several nodes at once (colltune run --split host): a node's sample
// is the slowest of its own ranks' (rank_samples_seconds, in the order of `rank_nodes`), its
// memcpy figures those of its host (`rank_hosts`, the same order) among `ceilings`. A record
// whose per-rank samples do not cover every rank adds nothing: no node's own figure is in it.
void add_split_alone_figures(std::vector<AloneFigures>& alone, const std::vector<int>& rank_nodes,
                             const std::vector<std::string>& rank_hosts,
                             const std::vector<Record>& records,
                             const std::vector<CopyCeiling>& ceilings, std::uint64_t small_bytes);

// Per metric: a node's figure is the mean log of its launch medians, the fleet's the median of
// the nodes', the noise the pooled launch sd within nodes. A node is slow alone where it is at
// least rule.min_effect slower than the fleet, beyond kOutlierZ robust sds of the nodes'
// figures (and of the launch noise), and a one-sided t-test over its launches says so at rule.alpha
// after Benjamini-Hochberg over all nodes x metrics (call_of). Adds to `notes` what the data cannot
// tell.
std::vector<AloneVerdict> judge_alone(const std::vector<AloneFigures>& alone,
                                      const HealthRule& rule, std::vector<std::string>& notes);

// Every stage's verdicts: the pairs' (judge_health), then stage 1's, where a node slow alone
// that its pairs found ok (or did not judge) is slow, with stage 1's evidence.
HealthJudgement judge_all_stages(const HealthInput& in, const HealthRule& rule);

}  // namespace colltune
