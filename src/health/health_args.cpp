#include "health/health_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

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

std::optional<int> fewest_allocated_cpus(std::string_view text) {
  std::optional<int> fewest;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    // "N(xK)": K nodes of N CPUs each; the count of nodes does not change the fewest.
    if (const std::size_t paren = item.find('('); paren != std::string_view::npos) {
      const std::string_view repeat = item.substr(paren);
      if (repeat.size() < 4 || !repeat.starts_with("(x") || !repeat.ends_with(")")) return {};
      int nodes = 0;
      const std::string_view k = repeat.substr(2, repeat.size() - 3);
      if (std::from_chars(k.data(), k.data() + k.size(), nodes).ptr != k.data() + k.size())
        return {};
      item = item.substr(0, paren);
    }
    int cpus = 0;
    const auto [end, err] = std::from_chars(item.data(), item.data() + item.size(), cpus);
    if (item.empty() || err != std::errc{} || end != item.data() + item.size() || cpus < 1)
      return {};
    fewest = std::min(fewest.value_or(cpus), cpus);
  }
  return fewest;
}

}  // namespace colltune
