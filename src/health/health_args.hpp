#pragma once
// What colltune health asks of `colltune run` in each stage's launches.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "health/health_run.hpp"

namespace colltune {

enum class HealthStage { kAlone, kPairs, kTogether };

// The larger size of stages 1 and 2: large_bytes rounded down to small_bytes times a whole
// factor, so that one -f step reaches it from -b and both sizes run in one launch.
std::uint64_t stage_large_bytes(const HealthOptions& options);

// colltune run's arguments for a launch of `stage`. Few samples a launch: launches, not samples,
// are the unit of every verdict. Each process's samples are kept (pairs are cut from them), and
// the run's own watchdog fires well before the supervisor's limit, so its roll call names a
// silent rank.
std::vector<std::string> stage_run_args(const HealthOptions& options, HealthStage stage);

// The fewest CPUs any node of a Slurm allocation grants, from SLURM_JOB_CPUS_PER_NODE's
// "72(x2),36" form; nullopt where the text is not of that form. Pure.
std::optional<int> fewest_allocated_cpus(std::string_view cpus_per_node);

}  // namespace colltune
