#include "health/health_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/environment.hpp"
#include "core/timestamp.hpp"
#include "health/health_alone.hpp"
#include "health/health_args.hpp"
#include "health/health_logs.hpp"
#include "health/ib_findings.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/record.hpp"
#include "sweep/expand.hpp"
#include "sweep/fail_fast.hpp"
#include "sweep/launch.hpp"
#include "sweep/supervisor.hpp"
#include "sweep/sweep_store.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;
std::atomic<bool> g_interrupted{false};
extern "C" void on_health_interrupt(int) { g_interrupted.store(true); }

enum class Ran { kDone, kFailed, kNotRun };

struct LaunchResult {
  Ran ran = Ran::kNotRun;
  std::vector<Record> records;
  std::vector<std::string> rank_hosts;  // each rank's host, from the records' placement
  std::vector<CopyCeiling> ceilings;    // --copy-ceiling's figures, from the records' context
  std::vector<std::string> silent;      // hosts the ranks named as not answering
  std::string reason;                   // what happened, for a failed launch
};

class HealthRun {
 public:
  HealthRun(const HealthOptions& o, std::FILE* progress) : o_(o), progress_(progress) {
    r_.input.nodes = o.hosts;
    fs::create_directories(o.store_dir + "/points");
    manifest_.sweep_id = fs::path(o.store_dir).filename().string();
    manifest_.name = "health";
    manifest_.created_utc = utc_timestamp();
    manifest_.colltune_version = o.colltune_version;
    manifest_.notes.push_back(
        fmt::format("colltune health of {} nodes: {}", o.hosts.size(), fmt::join(o.hosts, ",")));
    save();
  }

  HealthResult run() {
    struct sigaction action {};
    action.sa_handler = on_health_interrupt;
    sigemptyset(&action.sa_mask);
    for (const int sig : {SIGINT, SIGTERM}) sigaction(sig, &action, nullptr);
    r_.ports_before = read_ports("before");
    alone_stage();
    pairs_stage();
    together_stage();
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

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  void save() {
    write_file_atomic(o_.store_dir + "/manifest.json",
                      dump_json_text(to_json(manifest_), 2) + "\n");
  }
  bool out_of_time() {
    if (g_interrupted.load()) r_.interrupted = true;
    if (elapsed() + o_.launch_timeout_seconds > o_.budget_seconds) r_.budget_spent = true;
    return r_.interrupted || r_.budget_spent || !r_.stopped.empty();
  }
  void event(const std::string& line) {
    r_.events.push_back(line);
    std::fprintf(progress_, "colltune health: %s\n", line.c_str());
  }

  // One supervised launch of colltune run on `hosts` (in this order, ranks_per_node each).
  LaunchResult launch(const std::string& stage, const std::vector<std::string>& hosts, int pass,
                      const std::vector<std::string>& run_args, const std::string& label,
                      int ranks_per_node) {
    LaunchResult result;
    if (out_of_time()) return result;
    SweepSpec spec = o_.spec;
    spec.hosts = hosts;
    spec.hostfile.clear();
    spec.run_args = run_args;
    Point point;
    point.settings = {
        {"backend", o_.backend},
        {"np", std::to_string(hosts.size() * static_cast<std::size_t>(ranks_per_node))},
        {"ranks_per_node", std::to_string(ranks_per_node)}};
    if (!o_.bind_to.empty()) point.settings["bind_to"] = o_.bind_to;
    Settings shown = point.settings;
    shown["stage"] = stage;
    shown["hosts"] = fmt::format("{}", fmt::join(hosts, ","));
    point.id = point_id(shown);
    point.label = fmt::format("{} {}", stage, label);
    point.shown = shown;
    if (std::none_of(manifest_.points.begin(), manifest_.points.end(),
                     [&](const PointEntry& p) { return p.id == point.id; })) {
      manifest_.points.push_back({point.id, point.label, shown, false});
    }
    fs::create_directories(o_.store_dir + "/points/" + point.id);
    const std::string records = o_.store_dir + "/" + launch_records_path(point.id, pass);
    const std::string log = o_.store_dir + "/" + launch_log_path(point.id, pass);
    Launch l = build_launch(spec, point, o_.colltune_path, records);
    if (spec.launcher == LauncherKind::kSrun)
      keep_srun_host_order(l, hosts, ranks_per_node, records + ".hosts");
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
    std::fprintf(progress_, "colltune health: [%d] %s, pass %d\n", ++r_.launches,
                 point.label.c_str(), pass);
    LaunchOutcome outcome = run_supervised(l, log, so);
    LaunchEntry& e = manifest_.launches.back();
    e.seconds = outcome.seconds;
    if (outcome.status == LaunchStatus::kDone && fs::exists(records)) {
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
      }
    }
    if (result.ran != Ran::kDone) {
      if (outcome.status == LaunchStatus::kInterrupted) r_.interrupted = true;
      e.status = outcome.status == LaunchStatus::kTimeout ? "timeout" : "failed";
      if (outcome.status == LaunchStatus::kFailed) e.exit_code = outcome.exit_code;
      if (outcome.signal) e.signal = outcome.signal;
      e.tail = tail_lines(log, 12);
      result.ran = r_.interrupted ? Ran::kNotRun : Ran::kFailed;
      const std::vector<std::string> tail = tail_lines(log, 200);
      result.silent = silent_hosts_in_log(tail);
      result.reason = launch_failure(outcome, o_.launch_timeout_seconds, tail);
    }
    if (fail_fast_.observe(result.ran == Ran::kDone, outcome.seconds, tail_lines(log, 200)).stop) {
      r_.stopped = fail_fast_.stop_message(
          "health: every launch left would fail alike, so the check stops here");
      event(r_.stopped);
    }
    save();
    return result;
  }

  // Every node's ports in one launch of `colltune topo --ib-line`, read back from the log.
  std::map<int, std::vector<IbPort>> read_ports(const std::string& when) {
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

  int node_of(const std::string& host) const { return node_index(o_.hosts, host); }

  void add_pair_figures(const LaunchResult& l) {
    std::vector<int> nodes;
    for (const std::string& host : l.rank_hosts) nodes.push_back(node_of(host));
    bw_bytes_ = std::max(bw_bytes_, add_launch_figures(r_.input, l.records, nodes, o_.small_bytes));
  }

  // Measures `pairs` in one launch; a failure is narrowed down: the nodes its ranks named
  // silent are failed and the rest measured again, else each pair alone.
  void measure_pairs(const PairRound& pairs, int pass) {
    std::vector<std::string> first, second;
    std::vector<std::string> labels;
    for (const auto& [a, b] : pairs) {
      first.push_back(o_.hosts[static_cast<std::size_t>(a)]);
      second.push_back(o_.hosts[static_cast<std::size_t>(b)]);
      labels.push_back(fmt::format("{}-{}", first.back(), second.back()));
    }
    std::vector<std::string> hosts = first;
    hosts.insert(hosts.end(), second.begin(), second.end());
    const LaunchResult l = launch("pairs", hosts, pass, stage_run_args(o_, HealthStage::kPairs),
                                  fmt::format("{}", fmt::join(labels, " ")), o_.ranks_per_node);
    if (l.ran == Ran::kDone) return add_pair_figures(l);
    if (l.ran == Ran::kNotRun) return;
    std::set<int> culprits;
    for (const std::string& h : l.silent) {
      const int n = node_of(h);
      if (n >= 0 && std::find(hosts.begin(), hosts.end(), o_.hosts[static_cast<std::size_t>(n)]) !=
                        hosts.end())
        culprits.insert(n);
    }
    if (!culprits.empty()) {
      for (const int n : culprits) {
        r_.input.failed.emplace(n, l.reason);
        event(fmt::format("{} failed: {}", o_.hosts[static_cast<std::size_t>(n)], l.reason));
      }
      PairRound rest;
      for (const NodePair& p : pairs) {
        if (!culprits.count(p.first) && !culprits.count(p.second)) rest.push_back(p);
      }
      if (!rest.empty()) measure_pairs(rest, pass);
      return;
    }
    if (pairs.size() > 1) {
      event(fmt::format("a launch of {} pairs failed naming no rank ({}): each pair alone",
                        pairs.size(), l.reason));
      for (const NodePair& p : pairs) measure_pairs({p}, pass);
      return;
    }
    const bool unreachable = never_started(l.reason);
    r_.input.failed_pairs[pairs.front()] = (unreachable ? "unreachable: " : "") + l.reason;
    event(fmt::format("pair {} failed: {}", labels.front(), l.reason));
  }

  bool excluded(const NodePair& p) const {
    return r_.input.failed.count(p.first) || r_.input.failed.count(p.second) ||
           r_.input.unreachable.count(p.first) || r_.input.unreachable.count(p.second);
  }

  // Each node on its own: its collectives at both sizes and its memcpy, a launch per node and
  // pass; more passes for nodes the first left undecided. A node failing alone is failed.
  void alone_stage() {
    if (o_.alone != "on") {
      r_.stages.push_back("stage 1 (each node alone): not run (" + o_.alone + ")");
      return;
    }
    const double begun = elapsed();
    const int launches_before = r_.launches;
    const std::vector<std::string> args = stage_run_args(o_, HealthStage::kAlone);
    for (int pass = 1; pass <= o_.max_passes && !out_of_time(); ++pass) {
      std::set<int> undecided;
      for (const AloneVerdict& v : r_.judgement.alone) {
        if (v.undecided) undecided.insert(v.node);
      }
      if (pass > o_.passes && undecided.empty()) break;
      for (int n = 0; n < static_cast<int>(o_.hosts.size()) && !out_of_time(); ++n) {
        if (r_.input.failed.count(n) || r_.input.unreachable.count(n) ||
            (pass > o_.passes && !undecided.count(n)))
          continue;
        const std::string& host = o_.hosts[static_cast<std::size_t>(n)];
        const LaunchResult l = launch("alone", {host}, pass, args, host, o_.node_ranks);
        if (l.ran == Ran::kDone) {
          add_alone_figures(r_.input.alone, n, l.records, l.ceilings, o_.small_bytes);
        } else if (l.ran == Ran::kFailed) {
          auto& verdicts = never_started(l.reason) ? r_.input.unreachable : r_.input.failed;
          verdicts.emplace(n, "alone: " + l.reason);
          event(fmt::format("{} failed alone: {}", host, l.reason));
        }
      }
      if (pass >= o_.passes) r_.judgement = judge();
    }
    r_.stages.push_back(fmt::format(
        "stage 1 (each node alone): {} ranks a node, allreduce and alltoall at {} and {} B, "
        "memcpy; {} launches, {:.1f} s",
        o_.node_ranks, o_.small_bytes, stage_large_bytes(o_), r_.launches - launches_before,
        elapsed() - begun));
  }

  void pairs_stage() {
    const double begun = elapsed();
    const int launches_before = r_.launches;
    const int n = static_cast<int>(o_.hosts.size());
    const std::vector<PairRound> rounds = pair_rounds(n, o_.matchings, o_.seed);
    for (int pass = 1; pass <= o_.max_passes; ++pass) {
      const bool extra = pass > o_.passes;
      std::set<NodePair> undecided;
      for (const PairVerdict& v : r_.judgement.pairs) {
        if (v.undecided) undecided.insert(v.pair);
      }
      if (extra && undecided.empty()) break;
      for (const PairRound& round : rounds) {
        PairRound todo;
        for (const NodePair& p : round) {
          if (!excluded(p) && !r_.input.failed_pairs.count(p) && (!extra || undecided.count(p)))
            todo.push_back(p);
        }
        if (!todo.empty()) measure_pairs(todo, pass);
        if (out_of_time()) break;
      }
      if (pass >= o_.passes) r_.judgement = judge();
      if (out_of_time()) break;
    }
    if (r_.judgement.nodes.empty()) r_.judgement = judge();
    r_.stages.push_back(fmt::format(
        "stage 2 (node pairs): {} rounds of disjoint pairs ({}), {} launches, {:.1f} s",
        rounds.size(),
        n <= kAllPairsMaxNodes ? "every pair"
                               : fmt::format("{} random perfect matchings", o_.matchings),
        r_.launches - launches_before, elapsed() - begun));
  }

  HealthJudgement judge() {
    blame_nodes_of_failed_pairs(r_.input);
    return judge_all_stages(r_.input, o_.rule);
  }

  void together_stage() {
    std::vector<std::string> hosts;
    for (const NodeVerdict& v : r_.judgement.nodes) {
      if (v.verdict == HealthVerdict::kOk)
        hosts.push_back(o_.hosts[static_cast<std::size_t>(v.node)]);
    }
    const double predicted = slowest_ok_pair_gbps(r_.input, r_.judgement, bw_bytes_);
    if (hosts.size() < 2 || out_of_time()) {
      r_.stages.push_back(
          fmt::format("stage 3 (all nodes together): not run ({})",
                      hosts.size() < 2 ? "fewer than 2 nodes left" : "the budget is spent"));
      return;
    }
    const double begun = elapsed();
    const int launches_before = r_.launches;
    std::vector<std::vector<Record>> launches;
    for (int pass = 1; pass <= o_.passes; ++pass) {
      const LaunchResult l =
          launch("together", hosts, pass, stage_run_args(o_, HealthStage::kTogether),
                 fmt::format("{} nodes", hosts.size()), o_.ranks_per_node);
      if (l.ran == Ran::kFailed) event(fmt::format("all nodes together failed: {}", l.reason));
      launches.push_back(l.records);
    }
    const bool power_of_two = (hosts.size() & (hosts.size() - 1)) == 0;
    r_.together = together_figures(launches, predicted, o_.backend == "nccl" || power_of_two);
    r_.stages.push_back(fmt::format("stage 3 (all nodes together): {} nodes, {} launches, {:.1f} s",
                                    hosts.size(), r_.launches - launches_before,
                                    elapsed() - begun));
  }

  const HealthOptions& o_;
  std::FILE* progress_;
  HealthResult r_;
  Manifest manifest_;
  FailFast fail_fast_;  // every launch of the check, in order
  double bw_bytes_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace

HealthResult run_health(const HealthOptions& options, std::FILE* progress) {
  become_subreaper();
  return HealthRun(options, progress).run();
}

}  // namespace colltune
