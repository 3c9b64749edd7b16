#include "health/health_args.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace colltune {

std::uint64_t stage_large_bytes(const HealthOptions& o) {
  return o.small_bytes * std::max<std::uint64_t>(2, o.large_bytes / o.small_bytes);
}

std::vector<std::string> stage_run_args(const HealthOptions& o, HealthStage stage) {
  const std::string small = std::to_string(o.small_bytes);
  const std::string large = std::to_string(stage_large_bytes(o));
  const std::string factor = std::to_string(stage_large_bytes(o) / o.small_bytes);
  std::vector<std::string> args;
  switch (stage) {
    case HealthStage::kAlone:
      args = {"--coll", "allreduce,alltoall", "-b",    small,           "-e", large, "-f",
              factor,   "--in-place",         "never", "--copy-ceiling"};
      break;
    case HealthStage::kPairs:
      args = {"--coll",   "pingpong,bw,bibw",      "-b", small, "-e", large, "-f", factor,
              "--window", std::to_string(o.window)};
      break;
    case HealthStage::kTogether:
      args = {"--coll", "allreduce,alltoall",          "-b",         std::to_string(o.large_bytes),
              "-e",     std::to_string(o.large_bytes), "--in-place", "never"};
      break;
  }
  for (const char* arg : {"-n", "2", "-w", "1", "--repetitions", "5", "--rank-samples"})
    args.emplace_back(arg);
  args.emplace_back("--timeout");
  args.push_back(fmt::format("{:g}", std::max(3.0, o.launch_timeout_seconds / 3)));
  return args;
}

}  // namespace colltune
