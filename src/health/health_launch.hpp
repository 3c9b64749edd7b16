#pragma once
// One launch of colltune health as a point of its store: the point (its settings, stage and
// hosts), the launcher's argv, and what the finished launch left (its records read back, or why
// it failed). The driver's thread; health_run.cpp supervises the launches in between.

#include <string>
#include <vector>

#include "health/health_run.hpp"
#include "store/manifest.hpp"
#include "store/record.hpp"
#include "sweep/expand.hpp"
#include "sweep/launch.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {

enum class Ran { kDone, kFailed, kNotRun };

struct LaunchResult {
  Ran ran = Ran::kNotRun;
  std::vector<Record> records;
  std::vector<std::string> rank_hosts;  // each rank's host, from the records' placement
  std::vector<CopyCeiling> ceilings;    // --copy-ceiling's figures, from the records' context
  std::vector<std::string> silent;      // hosts the ranks named as not answering
  std::string reason;                   // what happened, for a failed launch
};

// The point one launch of `stage` on `hosts` (in this order, ranks_per_node each) measures: its
// id covers the stage and the hosts, so every launch of them is a round of the same point.
Point health_point(const HealthOptions& o, const std::string& stage,
                   const std::vector<std::string>& hosts, const std::string& label,
                   int ranks_per_node);

// The launch of `point` running colltune run with `run_args`, its records to `records`; under
// srun the planned host order is kept (its hostfile beside the records).
Launch health_launch(const HealthOptions& o, const Point& point,
                     const std::vector<std::string>& hosts,
                     const std::vector<std::string>& run_args, int ranks_per_node,
                     const std::string& records);

// What a supervised launch left, with `entry` (its manifest line) brought up to date: done with
// its records read back when they are whole, else failed or timed out with the log's tail, the
// hosts its ranks named silent and the reason in one line. An interrupted launch is kNotRun.
LaunchResult read_back_launch(const LaunchOutcome& outcome, const std::string& records,
                              const std::string& log, double limit_seconds, LaunchEntry& entry);

}  // namespace colltune
