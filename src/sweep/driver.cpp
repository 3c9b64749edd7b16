#include "sweep/driver.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/errors.hpp"
#include "core/placement_check.hpp"
#include "core/race.hpp"
#include "core/timestamp.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/record.hpp"
#include "store/store_lock.hpp"
#include "sweep/groups.hpp"
#include "sweep/launch.hpp"
#include "sweep/round_race.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted.store(true); }

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

class Progress {
 public:
  Progress(std::FILE* out, std::size_t total)
      : out_(out), total_(total), tty_(isatty(fileno(out))) {}

  void started(std::size_t index, const std::string& label, int round) {
    index_ = index;
    label_ = label;
    round_ = round;
    if (!tty_) fmt::print(out_, "sweep: [{}/{}] {} (round {}) ...\n", index, total_, label, round);
    tick(0);
  }
  void tick(double point_elapsed) {
    if (!tty_) return;
    const double elapsed = sweep_elapsed_ + point_elapsed;
    const double per_launch = finished_ > 0 ? sweep_elapsed_ / static_cast<double>(finished_) : 0;
    const double eta = per_launch * static_cast<double>(total_ - index_ + 1) - point_elapsed;
    fmt::print(out_, "\r\033[K[{}/{}] {} (round {}) | elapsed {} | ETA {}", index_, total_, label_,
               round_, clock_text(elapsed),
               finished_ > 0 ? clock_text(std::max(eta, 0.0)) : "--:--");
    std::fflush(out_);
  }
  void finished(const LaunchOutcome& o, std::size_t launches) {
    sweep_elapsed_ += o.seconds;
    finished_ += launches;
    if (tty_) {
      if (o.status != LaunchStatus::kDone) {
        fmt::print(out_, "\r\033[K[{}/{}] {} (round {}): {}\n", index_, total_, label_, round_,
                   name(o.status));
      }
    } else {
      // Logs (CI, sbatch) get the clock too: elapsed, and the launches left at the mean so far.
      const double left = sweep_elapsed_ /
                          static_cast<double>(std::max<std::size_t>(finished_, 1)) *
                          static_cast<double>(total_ > index_ ? total_ - index_ : 0);
      fmt::print(out_, "sweep: [{}/{}] {} in {:.2f} s | elapsed {} | ETA {}\n", index_, total_,
                 name(o.status), o.seconds, clock_text(sweep_elapsed_), clock_text(left));
    }
    std::fflush(out_);
  }
  void clear() {
    if (tty_) fmt::print(out_, "\r\033[K");
  }

 private:
  std::FILE* out_;
  std::size_t total_;
  bool tty_;
  std::size_t index_ = 0;
  std::string label_;
  int round_ = 1;
  double sweep_elapsed_ = 0;
  std::size_t finished_ = 0;
};

Manifest fresh_manifest(const SweepPlan& plan) {
  Manifest m;
  m.sweep_id = fs::path(plan.store_dir).filename();
  m.name = plan.spec.name;
  m.created_utc = utc_timestamp();
  m.colltune_version = plan.colltune_version;
  m.notes = plan.spec.notes;
  for (const Point& p : plan.points) m.points.push_back({p.id, p.label, p.settings, p.baseline});
  // Rounds, not blocks (A B C, A B C): drift over time then hits every point alike.
  for (int round = 1; round <= plan.spec.repetitions; ++round) {
    for (const Point& p : plan.points) {
      LaunchEntry e;
      e.point_id = p.id;
      e.round = round;
      m.launches.push_back(std::move(e));
    }
  }
  return m;
}

Manifest resumed_manifest(const SweepPlan& plan, const std::string& manifest_path) {
  Manifest m = manifest_from_json(nlohmann::json::parse(read_file(manifest_path), nullptr, false),
                                  manifest_path);
  std::vector<std::string> ids;
  for (const Point& p : plan.points) ids.push_back(p.id);
  std::vector<std::string> stored;
  for (const PointEntry& p : m.points) stored.push_back(p.id);
  if (ids != stored) {
    throw ConfigError(
        fmt::format("--resume: {} holds other points than its spec.yaml expands to; "
                    "allowed: a store written by this colltune version",
                    plan.store_dir));
  }
  for (LaunchEntry& e : m.launches) {
    if (e.status == "running" && e.pid > 0 && !e.argv.empty()) {
      // A driver killed mid-launch leaves its launcher running; stop it before running again,
      // but only if that pid is still the process it started (same start time), not a reuse.
      const auto pid = static_cast<pid_t>(e.pid);
      const std::string cmd = process_command_line(pid);
      if (e.pid_start_ticks != 0 && process_start_ticks(pid) == e.pid_start_ticks &&
          cmd.find(fs::path(e.argv[0]).filename().string()) != std::string::npos) {
        kill_process_tree(static_cast<pid_t>(e.pid));
      }
    }
    if (e.status != "done" && e.status != "decided") {
      e.status = "pending";
      e.pid = 0;
    }
  }
  return m;
}

void remove_stale(const std::string& store, const LaunchEntry& e) {
  const std::string records = store + "/" + launch_records_path(e.point_id, e.round);
  std::error_code ec;
  fs::remove(records, ec);
  fs::remove(records + ".partial", ec);
}

// What the ranks reported about their placement and health, held against what the point asked.
std::vector<std::string> launch_warnings(const Point& point, const std::string& records) {
  std::ifstream in(records);
  std::string line;
  if (!std::getline(in, line)) return {};
  const auto record = nlohmann::json::parse(line, nullptr, false);
  if (record.is_discarded() || !record.contains("context")) return {};
  const auto& context = record["context"];
  std::vector<std::string> out = context.value("warnings", std::vector<std::string>{});
  PlacementRequest request;
  if (point.settings.count("bind_to")) request.bind_to = point.settings.at("bind_to");
  if (point.settings.count("ranks_per_node"))
    request.ranks_per_node = std::stoi(point.settings.at("ranks_per_node"));
  if (request.bind_to.empty() && request.ranks_per_node == 0) return out;
  for (auto& w : placement_warnings(placement_from_json(context["placement"]), request)) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  }
  return out;
}

// A group's launch wrote every member's records to the first member's file, each tagged with
// its in_process_knobs: give each member its own file (complete or absent) and a copy of the
// log. Returns, per member, whether it got records.
std::vector<bool> split_group_records(const SweepSpec& spec,
                                      const std::vector<const Point*>& members,
                                      const std::string& records, const std::string& log,
                                      const std::string& store, int round) {
  std::vector<std::string> texts(members.size());
  std::ifstream in(records);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto record = nlohmann::json::parse(line, nullptr, false);
    int member = 0;
    try {
      if (record.is_discarded()) throw ConfigError("not JSON");
      member = member_of_record(
          spec, members,
          record_from_json(record, fmt::format("{}:{}", records, number)).in_process_knobs);
    } catch (const ConfigError&) {
      // An unsound record stays in the first member's file, where the report's reader names it
      // (file, line, field) instead of the split hiding it.
    }
    if (member >= 0) texts[static_cast<std::size_t>(member)] += line + "\n";
  }
  in.close();
  const std::string log_text = fs::exists(log) ? read_file(log) : "";
  std::vector<bool> got(members.size());
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::string path = store + "/" + launch_records_path(members[m]->id, round);
    got[m] = !texts[m].empty();
    if (got[m]) write_file_atomic(path, texts[m]);
    if (m > 0) write_file_atomic(store + "/" + launch_log_path(members[m]->id, round), log_text);
  }
  if (!got[0]) fs::remove(records);  // the first member's file held everyone's records
  return got;
}

}  // namespace

std::string new_sweep_id(const std::string& name, const std::string& results_root) {
  const std::string base = name + "-" + utc_timestamp(true);
  std::string id = base;
  for (int n = 2; fs::exists(fs::path(results_root) / id); ++n) id = fmt::format("{}-{}", base, n);
  return id;
}

int run_sweep(const SweepPlan& plan, std::FILE* progress_out) {
  install_interrupt_handlers();
  become_subreaper();
  const std::string store = plan.store_dir;
  const std::string manifest_path = store + "/manifest.json";
  Manifest manifest;
  if (!plan.resume) fs::create_directories(store);  // a resumed one exists: its spec was read
  // Before anything is written or any stale launch stopped: a second driver on this store would
  // kill the first's launch and measure beside it.
  const StoreLock lock(store);
  if (plan.resume) {
    manifest = resumed_manifest(plan, manifest_path);
  } else {
    write_file_atomic(store + "/spec.yaml", plan.spec.source_text);
    if (!plan.ceilings_json.empty())
      write_file_atomic(store + "/ceilings.json", plan.ceilings_json);
    manifest = fresh_manifest(plan);
  }
  for (const PointEntry& p : manifest.points) fs::create_directories(store + "/points/" + p.id);
  const auto save = [&] {
    write_file_atomic(manifest_path, dump_json_text(to_json(manifest), 2) + "\n");
  };
  save();

  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < manifest.launches.size(); ++i) {
    if (manifest.launches[i].status != "done") todo.push_back(i);
  }
  const auto groups = launch_groups(plan.spec, plan.points);
  std::map<std::string, std::size_t> group_of;  // point id -> its group
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t i : groups[g]) group_of[plan.points[i].id] = g;
  }
  std::map<std::pair<std::string, int>, std::size_t> entry_of;  // (point id, round) -> launch
  for (std::size_t e = 0; e < manifest.launches.size(); ++e) {
    entry_of[{manifest.launches[e].point_id, manifest.launches[e].round}] = e;
  }
  Progress progress(progress_out, manifest.launches.size());
  std::size_t ran = manifest.launches.size() - todo.size();
  // Runs the launch entries `batch` (of the points `members`, one round) as one launch and
  // records the outcome in each entry.
  const auto run_batch = [&](const std::vector<std::size_t>& batch,
                             const std::vector<const Point*>& members) {
    const LaunchEntry& first = manifest.launches[batch.front()];
    const int round = first.round;
    const std::string records = store + "/" + launch_records_path(first.point_id, round);
    const std::string log = store + "/" + launch_log_path(first.point_id, round);
    const Launch launch = build_group_launch(plan.spec, members, plan.colltune_path, records);
    for (std::size_t e : batch) {
      LaunchEntry& entry = manifest.launches[e];
      remove_stale(store, entry);
      entry.status = "running";
      entry.argv = launch.argv;
      entry.started_utc = utc_timestamp();
      entry.tail.clear();
      entry.warnings.clear();
      entry.exit_code.reset();
      entry.signal.reset();
      entry.together.clear();
      for (const Point* m : members) {
        if (m->id != entry.point_id) entry.together.push_back(m->id);
      }
    }
    progress.started(ran + 1,
                     members.size() == 1 ? members.front()->label
                                         : fmt::format("{} points in one launch, from {}",
                                                       members.size(), members.front()->label),
                     round);
    SuperviseOptions options;
    options.limit_seconds = plan.spec.point_timeout_seconds * static_cast<double>(batch.size());
    options.interrupted = &g_interrupted;
    options.on_started = [&](pid_t pid) {
      const long long started = process_start_ticks(pid);
      for (std::size_t e : batch) {
        manifest.launches[e].pid = pid;
        manifest.launches[e].pid_start_ticks = started;
      }
      save();
    };
    options.on_tick = [&](double elapsed) { progress.tick(elapsed); };
    LaunchOutcome outcome = run_supervised(launch, log, options);
    if (outcome.status == LaunchStatus::kInterrupted) {
      for (std::size_t e : batch) {
        manifest.launches[e].status = "pending";
        manifest.launches[e].pid = 0;
        remove_stale(store, manifest.launches[e]);
      }
      save();
      return outcome.status;
    }
    // A launch that exits 0 without its records file did not really finish.
    if (outcome.status == LaunchStatus::kDone && !fs::exists(records)) {
      outcome.status = LaunchStatus::kFailed;
    }
    std::vector<bool> has_records(batch.size(), true);
    if (outcome.status == LaunchStatus::kDone && batch.size() > 1) {
      has_records = split_group_records(plan.spec, members, records, log, store, round);
    }
    for (std::size_t k = 0; k < batch.size(); ++k) {
      LaunchEntry& entry = manifest.launches[batch[k]];
      const bool done = outcome.status == LaunchStatus::kDone && has_records[k];
      entry.pid = 0;
      entry.status =
          done ? "done"
               : std::string(name(outcome.status == LaunchStatus::kDone ? LaunchStatus::kFailed
                                                                        : outcome.status));
      if (outcome.exit_code >= 0) entry.exit_code = outcome.exit_code;
      if (outcome.signal != 0) entry.signal = outcome.signal;
      entry.seconds = outcome.seconds;
      if (!done) entry.tail = tail_lines(log, 20);
      if (done) {
        entry.warnings =
            launch_warnings(*members[k], store + "/" + launch_records_path(entry.point_id, round));
      }
    }
    save();
    ran += batch.size();
    progress.finished(outcome, batch.size());
    return outcome.status;
  };
  const auto interrupted = [&] {
    progress.clear();
    fmt::print(progress_out,
               "sweep: interrupted; {} of {} launches done. Resume with: colltune "
               "sweep --resume {}\n",
               std::count_if(manifest.launches.begin(), manifest.launches.end(),
                             [](const LaunchEntry& e) { return e.status == "done"; }),
               manifest.launches.size(), store);
    return kSweepInterrupted;
  };

  std::set<std::size_t> attempted;  // launch entries run (alone or with their group) this time
  int raced_through = 0;            // the last round whose records the race has read
  for (std::size_t index : todo) {
    if (attempted.count(index) != 0) continue;  // measured with an earlier point of its group
    const int round = manifest.launches[index].round;
    if (plan.spec.race && round - 1 > raced_through) {
      progress.clear();
      if (mark_race_stops(manifest, plan.points, store, round - 1, RaceConfig{}.tie_tolerance,
                          progress_out) > 0) {
        save();
      }
      raced_through = round - 1;
    }
    if (manifest.launches[index].status == "decided") continue;
    // The points of its group still to run in this round, measured in one launch.
    std::vector<std::size_t> batch;
    std::vector<const Point*> members;
    for (std::size_t i : groups[group_of.at(manifest.launches[index].point_id)]) {
      const auto e = entry_of.at({plan.points[i].id, round});
      const std::string& status = manifest.launches[e].status;
      if (status != "done" && status != "decided" && attempted.count(e) == 0) {
        batch.push_back(e);
        members.push_back(&plan.points[i]);
      }
    }
    attempted.insert(batch.begin(), batch.end());
    const LaunchStatus status = run_batch(batch, members);
    if (status == LaunchStatus::kInterrupted) return interrupted();
    if (status == LaunchStatus::kDone || batch.size() == 1) continue;
    // One setting may have brought the shared launch down: measure each point alone, so the
    // others still get their results and the culprit fails on its own.
    const LaunchEntry& shared = manifest.launches[batch.front()];
    std::string why = fmt::format("the launch shared with {} other point(s) ended {}",
                                  batch.size() - 1, name(status));
    if (shared.exit_code) why += fmt::format(", exit {}", *shared.exit_code);
    if (shared.signal) why += fmt::format(", signal {}", *shared.signal);
    why += "; measured alone";
    ran -= batch.size();
    for (std::size_t k = 0; k < batch.size(); ++k) {
      if (run_batch({batch[k]}, {members[k]}) == LaunchStatus::kInterrupted) return interrupted();
      manifest.launches[batch[k]].warnings.push_back(why);
    }
    save();
  }
  progress.clear();
  std::map<std::string, int> counts;
  for (const LaunchEntry& e : manifest.launches) ++counts[e.status];
  fmt::print("sweep: {} launches: {} done, {} failed, {} timeout{}\n", manifest.launches.size(),
             counts["done"], counts["failed"], counts["timeout"],
             counts["decided"] > 0 ? fmt::format(", {} not needed (race)", counts["decided"]) : "");
  for (const std::string& note : manifest.notes) fmt::print("sweep: note: {}\n", note);
  fmt::print("sweep: results in {}; read them with: colltune report {}\n", store, store);
  return counts["done"] + counts["decided"] == static_cast<int>(manifest.launches.size())
             ? kSweepAllDone
             : kSweepSomeFailed;
}

}  // namespace colltune
