#include "health/health_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>

#include "core/environment.hpp"
#include "core/timestamp.hpp"
#include "health/health_alone.hpp"
#include "health/health_launch.hpp"
#include "health/health_logs.hpp"
#include "health/health_run_class.hpp"
#include "health/ib_findings.hpp"
#include "health/switch_layout.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/record.hpp"
#include "sweep/fail_fast.hpp"
#include "sweep/launch.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;
std::atomic<bool> g_interrupted{false};
extern "C" void on_health_interrupt(int) { g_interrupted.store(true); }

}  // namespace

HealthRun::HealthRun(const HealthOptions& o, std::FILE* progress) : o_(o), progress_(progress) {
  r_.input.nodes = o.hosts;
  r_.input.switch_of = o.switch_of;
  fs::create_directories(o.store_dir + "/points");
  manifest_.sweep_id = fs::path(o.store_dir).filename().string();
  manifest_.name = "health";
  manifest_.created_utc = utc_timestamp();
  manifest_.colltune_version = o.colltune_version;
  manifest_.notes.push_back(
      fmt::format("colltune health of {} nodes: {}", o.hosts.size(), fmt::join(o.hosts, ",")));
  save();
}

HealthResult HealthRun::run() {
  struct sigaction action {};
  action.sa_handler = on_health_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGINT, SIGTERM}) sigaction(sig, &action, nullptr);
  r_.ports_before = read_ports("before");
  alone_stage();
  pairs_stage();
  confirm_stage();
  // Before stage 3, which runs the nodes judged ok: those behind a named uplink are.
  attribute_to_uplinks(r_.input, r_.judgement);
  together_stage();
  if (r_.stopped.empty() && fail_fast_.shared_cause()) {
    // Slow failures kept fail-fast from stopping the check, but a cause every launch died of is
    // the check's setup or the fabric's, not each node's: naming them all would drain the fleet.
    r_.stopped = fail_fast_.shared_cause_message(
        "health: a cause every node's launches share is no node's fault, so none is named");
    event(r_.stopped);
  }
  if (!r_.stopped.empty()) {
    // The check's own setup failed, not the nodes it ran on: none of them is judged.
    r_.input.failed.clear();
    r_.input.unreachable.clear();
    r_.input.failed_pairs.clear();
    r_.judgement = judge();
  }
  if (!r_.ports_before.empty()) r_.ports_after = read_ports("after");
  r_.port_findings = port_findings(r_.ports_before, r_.ports_after);
  r_.stages.push_back(ports_stage_line(r_.ports_before));
  r_.seconds = elapsed();
  return r_;
}

void HealthRun::save() {
  write_file_atomic(o_.store_dir + "/manifest.json", dump_json_text(to_json(manifest_), 2) + "\n");
}

bool HealthRun::out_of_time() {
  if (g_interrupted.load()) r_.interrupted = true;
  if (elapsed() + o_.launch_timeout_seconds > o_.budget_seconds) r_.budget_spent = true;
  return r_.interrupted || r_.budget_spent || !r_.stopped.empty();
}

void HealthRun::event(const std::string& line) {
  r_.events.push_back(line);
  std::fprintf(progress_, "colltune health: %s\n", line.c_str());
}

LaunchResult HealthRun::launch(const std::string& stage, const std::vector<std::string>& hosts,
                               int pass, const std::vector<std::string>& run_args,
                               const std::string& label, int ranks_per_node) {
  if (out_of_time()) return {};
  const Point point = health_point(o_, stage, hosts, label, ranks_per_node);
  if (std::none_of(manifest_.points.begin(), manifest_.points.end(),
                   [&](const PointEntry& p) { return p.id == point.id; })) {
    manifest_.points.push_back({point.id, point.label, point.shown, false});
  }
  fs::create_directories(o_.store_dir + "/points/" + point.id);
  const std::string records = o_.store_dir + "/" + launch_records_path(point.id, pass);
  const std::string log = o_.store_dir + "/" + launch_log_path(point.id, pass);
  const Launch l = health_launch(o_, point, hosts, run_args, ranks_per_node, records);
  LaunchEntry entry;
  entry.point_id = point.id;
  entry.round = pass;
  entry.status = "running";
  entry.argv = redact_words(l.argv);
  entry.started_utc = utc_timestamp();
  manifest_.launches.push_back(entry);
  save();
  SuperviseOptions so;
  so.limit_seconds = o_.launch_timeout_seconds;
  so.interrupted = &g_interrupted;
  std::fprintf(progress_, "colltune health: [%d] %s, pass %d\n", ++r_.launches, point.label.c_str(),
               pass);
  const LaunchOutcome outcome = run_supervised(l, log, so);
  LaunchResult result =
      read_back_launch(outcome, records, log, o_.launch_timeout_seconds, manifest_.launches.back());
  if (outcome.status == LaunchStatus::kInterrupted) r_.interrupted = true;
  if (result.ran == Ran::kFailed && r_.interrupted) result.ran = Ran::kNotRun;
  if (fail_fast_.observe(result.ran == Ran::kDone, outcome.seconds, tail_lines(log, 200)).stop) {
    r_.stopped = fail_fast_.stop_message(
        "health: every launch left would fail alike, so the check stops here");
    event(r_.stopped);
  }
  save();
  return result;
}

std::map<int, std::vector<IbPort>> HealthRun::read_ports(const std::string& when) {
  std::map<int, std::vector<IbPort>> out;
  if (out_of_time()) return out;
  const Launch l = ib_line_launch(o_.spec, o_.hosts, o_.colltune_path);
  const std::string log = o_.store_dir + "/ib-" + when + ".log";
  SuperviseOptions so;
  so.limit_seconds = o_.launch_timeout_seconds;
  so.interrupted = &g_interrupted;
  std::fprintf(progress_, "colltune health: [%d] InfiniBand ports %s\n", ++r_.launches,
               when.c_str());
  const LaunchOutcome outcome = run_supervised(l, log, so);
  for (auto& [host, ports] : ib_lines(tail_lines(log, 4 * o_.hosts.size() + 50))) {
    if (const int node = node_of(host); node >= 0) out[node] = std::move(ports);
  }
  if (outcome.status != LaunchStatus::kDone || out.size() < o_.hosts.size()) {
    event(fmt::format("InfiniBand ports {}: {} of {} nodes answered ({})", when, out.size(),
                      o_.hosts.size(), name(outcome.status)));
  }
  return out;
}

HealthJudgement HealthRun::judge() {
  blame_nodes_of_failed_pairs(r_.input);
  return judge_all_stages(r_.input, o_.rule);
}

HealthResult run_health(const HealthOptions& options, std::FILE* progress) {
  become_subreaper();
  return HealthRun(options, progress).run();
}

}  // namespace colltune
