#include "health/health_launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "health/health_logs.hpp"
#include "sweep/sweep_store.hpp"

namespace colltune {

Point health_point(const HealthOptions& o, const std::string& stage,
                   const std::vector<std::string>& hosts, const std::string& label,
                   int ranks_per_node) {
  Point point;
  point.settings = {{"backend", o.backend},
                    {"np", std::to_string(hosts.size() * static_cast<std::size_t>(ranks_per_node))},
                    {"ranks_per_node", std::to_string(ranks_per_node)}};
  if (!o.bind_to.empty()) point.settings["bind_to"] = o.bind_to;
  Settings shown = point.settings;
  shown["stage"] = stage;
  shown["hosts"] = fmt::format("{}", fmt::join(hosts, ","));
  point.id = point_id(shown);
  point.label = fmt::format("{} {}", stage, label);
  point.shown = shown;
  return point;
}

Launch health_launch(const HealthOptions& o, const Point& point,
                     const std::vector<std::string>& hosts,
                     const std::vector<std::string>& run_args, int ranks_per_node,
                     const std::string& records) {
  SweepSpec spec = o.spec;
  spec.hosts = hosts;
  spec.hostfile.clear();
  spec.run_args = run_args;
  Launch l = build_launch(spec, point, o.colltune_path, records);
  if (spec.launcher == LauncherKind::kSrun)
    keep_srun_host_order(l, hosts, ranks_per_node, records + ".hosts");
  return l;
}

LaunchResult read_back_launch(const LaunchOutcome& outcome, const std::string& records,
                              const std::string& log, double limit_seconds, LaunchEntry& e) {
  LaunchResult result;
  e.seconds = outcome.seconds;
  if (outcome.status == LaunchStatus::kDone && std::filesystem::exists(records)) {
    const RecordsDigest digest = digest_records(records);
    if (digest.damage.empty()) {
      e.status = "done";
      e.records_count = digest.count;
      e.records_hash = digest.hash;
      LaunchReadback back = read_launch_records(records);
      result.records = std::move(back.records);
      result.rank_hosts = std::move(back.rank_hosts);
      result.ceilings = std::move(back.ceilings);
      result.ran = Ran::kDone;
      return result;
    }
  }
  e.status = outcome.status == LaunchStatus::kTimeout ? "timeout" : "failed";
  if (outcome.status == LaunchStatus::kFailed) e.exit_code = outcome.exit_code;
  if (outcome.signal) e.signal = outcome.signal;
  e.tail = tail_lines(log, 12);
  result.ran = outcome.status == LaunchStatus::kInterrupted ? Ran::kNotRun : Ran::kFailed;
  const std::vector<std::string> tail = tail_lines(log, 200);
  result.silent = silent_hosts_in_log(tail);
  result.reason = launch_failure(outcome, limit_seconds, tail);
  return result;
}

}  // namespace colltune
