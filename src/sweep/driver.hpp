#pragma once
// Runs a sweep's launches in rounds, supervising each, and keeps the store current.

#include <cstdio>
#include <string>
#include <vector>

#include "sweep/expand.hpp"
#include "sweep/spec.hpp"

namespace colltune {

struct SweepPlan {
  SweepSpec spec;
  std::vector<Point> points;
  std::string colltune_path;     // what every launch runs
  std::string colltune_version;  // recorded in the manifest
  std::string store_dir;         // results/<sweep-id>
  bool resume = false;           // store_dir exists: run only what is not done
  std::string ceilings_json;     // the driver host's measured ceilings, kept as ceilings.json
};

// Exit codes of `colltune sweep`.
inline constexpr int kSweepAllDone = 0;
inline constexpr int kSweepSomeFailed = 3;  // every launch ran; some failed or timed out
inline constexpr int kSweepInterrupted = 130;

// Progress goes to `progress` (a live line on a terminal, plain lines otherwise).
int run_sweep(const SweepPlan& plan, std::FILE* progress);

// "<name>-<UTC time>", unique under `results_root`.
std::string new_sweep_id(const std::string& name, const std::string& results_root);

}  // namespace colltune
