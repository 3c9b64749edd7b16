#include "sweep/driver.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "core/environment.hpp"
#include "core/race.hpp"
#include "core/timestamp.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/store_lock.hpp"
#include "sweep/fail_fast.hpp"
#include "sweep/groups.hpp"
#include "sweep/launch.hpp"
#include "sweep/progress.hpp"
#include "sweep/round_race.hpp"
#include "sweep/spec_redact.hpp"
#include "sweep/supervisor.hpp"
#include "sweep/sweep_store.hpp"

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

}  // namespace

std::string new_sweep_id(const std::string& name, const std::string& results_root) {
  const std::string base = name + "-" + utc_timestamp(true);
  std::string id = base;
  for (int n = 2; fs::exists(fs::path(results_root) / id); ++n) id = fmt::format("{}-{}", base, n);
  return id;
}

namespace {

// One driver's pass over a store: the manifest it keeps current, and the steps of each launch
// (pick the next batch, start it, supervise it, record its outcome, split a shared launch that
// failed), each of which reads on its own.
class SweepRun {
 public:
  // Opens the store (or resumes it) under its lock; writes spec, ceilings and manifest.
  SweepRun(const SweepPlan& plan, std::FILE* progress_out);
  int run();  // every launch not done, in manifest order; the sweep's exit code

 private:
  using Batch = std::vector<std::size_t>;  // manifest entries measured in one launch
  using Members = std::vector<const Point*>;

  void save() { write_file_atomic(manifest_path_, dump_json_text(to_json(manifest_), 2) + "\n"); }
  void race_before(int round);
  std::pair<Batch, Members> next_batch(std::size_t index);
  LaunchStatus run_batch(const Batch& batch, const Members& members);
  void start(const Batch& batch, const Members& members, const Launch& launch);
  void record(const Batch& batch, const Members& members, const LaunchOutcome& outcome,
              const std::string& records, const std::string& log);
  bool measure_alone(const Batch& batch, const Members& members, LaunchStatus status);
  int interrupted();
  int stopped_early();
  int summary();

  const SweepPlan& plan_;
  std::FILE* progress_out_;
  const std::string store_;
  const std::string manifest_path_;
  // Before anything is written or any stale launch stopped: a second driver on this store would
  // kill the first's launch and measure beside it.
  std::unique_ptr<StoreLock> lock_;
  Manifest manifest_;
  std::vector<std::vector<std::size_t>> groups_;
  std::map<std::string, std::size_t> group_of_;                  // point id -> its group
  std::map<std::pair<std::string, int>, std::size_t> entry_of_;  // (point id, round) -> entry
  std::unique_ptr<Progress> progress_;
  std::size_t ran_ = 0;
  std::set<std::size_t> attempted_;  // entries run (alone or with their group) this time
  int raced_through_ = 0;            // the last round whose records the race has read
  FailFast fail_fast_;
  bool stop_early_ = false;  // the first launches failed alike: the rest would too
};

SweepRun::SweepRun(const SweepPlan& plan, std::FILE* progress_out)
    : plan_(plan),
      progress_out_(progress_out),
      store_(plan.store_dir),
      manifest_path_(plan.store_dir + "/manifest.json") {
  if (!plan.resume) fs::create_directories(store_);  // a resumed one exists: its spec was read
  lock_ = std::make_unique<StoreLock>(store_);
  if (plan.resume) {
    std::vector<std::string> damaged;
    manifest_ = resumed_manifest(plan, manifest_path_, damaged);
    if (!damaged.empty()) {
      fmt::print(progress_out, "sweep: resume: {} done launch{} run again, {} files damaged:\n",
                 damaged.size(), damaged.size() == 1 ? "" : "es",
                 damaged.size() == 1 ? "its" : "their");
      for (const std::string& line : damaged) fmt::print(progress_out, "sweep:   {}\n", line);
      save();
    }
  } else {
    write_file_atomic(store_ + "/spec.yaml", redacted_spec_text(plan.spec.source_text));
    if (!plan.ceilings_json.empty()) {
      write_file_atomic(store_ + "/ceilings.json", plan.ceilings_json);
    }
    manifest_ = fresh_manifest(plan);
  }
  for (const PointEntry& p : manifest_.points) fs::create_directories(store_ + "/points/" + p.id);
  save();
  groups_ = launch_groups(plan.spec, plan.points);
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    for (std::size_t i : groups_[g]) group_of_[plan.points[i].id] = g;
  }
  for (std::size_t e = 0; e < manifest_.launches.size(); ++e) {
    entry_of_[{manifest_.launches[e].point_id, manifest_.launches[e].round}] = e;
  }
  progress_ = std::make_unique<Progress>(progress_out, manifest_.launches.size());
}

int SweepRun::run() {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < manifest_.launches.size(); ++i) {
    if (manifest_.launches[i].status != "done") todo.push_back(i);
  }
  ran_ = manifest_.launches.size() - todo.size();
  for (std::size_t index : todo) {
    if (attempted_.count(index) != 0) continue;  // measured with an earlier point of its group
    race_before(manifest_.launches[index].round);
    if (manifest_.launches[index].status == "decided") continue;
    const auto [batch, members] = next_batch(index);
    attempted_.insert(batch.begin(), batch.end());
    const LaunchStatus status = run_batch(batch, members);
    if (status == LaunchStatus::kInterrupted) return interrupted();
    if (stop_early_) return stopped_early();
    if (status != LaunchStatus::kDone && batch.size() > 1 &&
        !measure_alone(batch, members, status)) {
      return interrupted();
    }
    if (stop_early_) return stopped_early();
  }
  return summary();
}

// race: true: before the first launch of a round, the rounds so far decide which points stop.
void SweepRun::race_before(int round) {
  if (!plan_.spec.race || round - 1 <= raced_through_) return;
  progress_->clear();
  if (mark_race_stops(manifest_, plan_.points, store_, round - 1, RaceConfig{}.tie_tolerance,
                      progress_out_) > 0) {
    save();
  }
  raced_through_ = round - 1;
}

// The entries of `index`'s group still to run in its round, measured in one launch.
std::pair<SweepRun::Batch, SweepRun::Members> SweepRun::next_batch(std::size_t index) {
  const int round = manifest_.launches[index].round;
  Batch batch;
  Members members;
  for (std::size_t i : groups_[group_of_.at(manifest_.launches[index].point_id)]) {
    const auto e = entry_of_.at({plan_.points[i].id, round});
    const std::string& status = manifest_.launches[e].status;
    if (status != "done" && status != "decided" && attempted_.count(e) == 0) {
      batch.push_back(e);
      members.push_back(&plan_.points[i]);
    }
  }
  return {batch, members};
}

// Runs the entries `batch` (of the points `members`, one round) as one launch and records the
// outcome in each entry.
LaunchStatus SweepRun::run_batch(const Batch& batch, const Members& members) {
  const LaunchEntry& first = manifest_.launches[batch.front()];
  const std::string records = store_ + "/" + launch_records_path(first.point_id, first.round);
  const std::string log = store_ + "/" + launch_log_path(first.point_id, first.round);
  const Launch launch = build_group_launch(plan_.spec, members, plan_.colltune_path, records);
  start(batch, members, launch);
  SuperviseOptions options;
  options.limit_seconds = plan_.spec.point_timeout_seconds * static_cast<double>(batch.size());
  options.interrupted = &g_interrupted;
  options.on_started = [&](pid_t pid) {
    const long long started = process_start_ticks(pid);
    for (std::size_t e : batch) {
      manifest_.launches[e].pid = pid;
      manifest_.launches[e].pid_start_ticks = started;
    }
    save();
  };
  options.on_tick = [&](double elapsed) { progress_->tick(elapsed); };
  LaunchOutcome outcome = run_supervised(launch, log, options);
  if (outcome.status == LaunchStatus::kInterrupted) {
    for (std::size_t e : batch) {
      manifest_.launches[e].status = "pending";
      manifest_.launches[e].pid = 0;
      remove_stale(store_, manifest_.launches[e]);
    }
    save();
    return outcome.status;
  }
  // A launch that exits 0 without its records file did not really finish.
  if (outcome.status == LaunchStatus::kDone && !fs::exists(records)) {
    outcome.status = LaunchStatus::kFailed;
  }
  record(batch, members, outcome, records, log);
  return outcome.status;
}

void SweepRun::start(const Batch& batch, const Members& members, const Launch& launch) {
  // One launch, one start time for every point it measures (to the millisecond, they would
  // otherwise differ by the loop's own time).
  const std::string started = utc_timestamp();
  for (std::size_t e : batch) {
    LaunchEntry& entry = manifest_.launches[e];
    remove_stale(store_, entry);
    entry.status = "running";
    entry.argv = redact_words(launch.argv);
    entry.started_utc = started;
    entry.tail.clear();
    entry.warnings.clear();
    entry.exit_code.reset();
    entry.signal.reset();
    entry.together.clear();
    for (const Point* m : members) {
      if (m->id != entry.point_id) entry.together.push_back(m->id);
    }
  }
  progress_->started(ran_ + 1,
                     members.size() == 1 ? members.front()->label
                                         : fmt::format("{} points in one launch, from {}",
                                                       members.size(), members.front()->label),
                     manifest_.launches[batch.front()].round);
}

void SweepRun::record(const Batch& batch, const Members& members, const LaunchOutcome& outcome,
                      const std::string& records, const std::string& log) {
  const int round = manifest_.launches[batch.front()].round;
  std::vector<bool> has_records(batch.size(), true);
  if (outcome.status == LaunchStatus::kDone && batch.size() > 1) {
    has_records = split_group_records(plan_.spec, members, records, log, store_, round);
  }
  for (std::size_t k = 0; k < batch.size(); ++k) {
    LaunchEntry& entry = manifest_.launches[batch[k]];
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
      const std::string path = store_ + "/" + launch_records_path(entry.point_id, round);
      entry.warnings = launch_warnings(*members[k], path);
      const RecordsDigest digest = digest_records(path);
      entry.records_count = digest.count;
      entry.records_hash = digest.hash;
    }
  }
  save();
  ran_ += batch.size();
  progress_->finished(outcome, batch.size());
  const LaunchEntry& first = manifest_.launches[batch.front()];
  const FailFast::Step step =
      fail_fast_.observe(first.status == "done", outcome.seconds, first.tail);
  if (step.new_reason) {
    progress_->clear();
    fmt::print(progress_out_, "sweep: {}: {}\n", first.status, *step.new_reason);
  }
  stop_early_ = stop_early_ || step.stop;
}

// One setting may have brought a shared launch down: measure each point alone, so the others
// still get their results and the culprit fails on its own. False when interrupted.
bool SweepRun::measure_alone(const Batch& batch, const Members& members, LaunchStatus status) {
  const LaunchEntry& shared = manifest_.launches[batch.front()];
  std::string why = fmt::format("the launch shared with {} other point(s) ended {}",
                                batch.size() - 1, name(status));
  if (shared.exit_code) why += fmt::format(", exit {}", *shared.exit_code);
  if (shared.signal) why += fmt::format(", signal {}", *shared.signal);
  why += "; measured alone";
  ran_ -= batch.size();
  for (std::size_t k = 0; k < batch.size(); ++k) {
    if (run_batch({batch[k]}, {members[k]}) == LaunchStatus::kInterrupted) return false;
    manifest_.launches[batch[k]].warnings.push_back(why);
    if (stop_early_) break;
  }
  save();
  return true;
}

int SweepRun::interrupted() {
  progress_->clear();
  fmt::print(progress_out_,
             "sweep: interrupted; {} of {} launches done. Resume with: colltune "
             "sweep --resume {}\n",
             std::count_if(manifest_.launches.begin(), manifest_.launches.end(),
                           [](const LaunchEntry& e) { return e.status == "done"; }),
             manifest_.launches.size(), store_);
  return kSweepInterrupted;
}

int SweepRun::stopped_early() {
  progress_->clear();
  fmt::print(
      progress_out_,
      "sweep: {}\nsweep: {} of {} launches not run; resume with: colltune sweep --resume {}\n",
      fail_fast_.stop_message("sweep: the launches left would fail alike, so the sweep stops here; "
                              "fix it, then resume"),
      std::count_if(manifest_.launches.begin(), manifest_.launches.end(),
                    [](const LaunchEntry& e) { return e.status == "pending"; }),
      manifest_.launches.size(), store_);
  return kSweepSomeFailed;
}

int SweepRun::summary() {
  progress_->clear();
  std::map<std::string, int> counts;
  for (const LaunchEntry& e : manifest_.launches) ++counts[e.status];
  fmt::print("sweep: {} launches: {} done, {} failed, {} timeout{}\n", manifest_.launches.size(),
             counts["done"], counts["failed"], counts["timeout"],
             counts["decided"] > 0 ? fmt::format(", {} not needed (race)", counts["decided"]) : "");
  for (const std::string& note : manifest_.notes) fmt::print("sweep: note: {}\n", note);
  fmt::print("sweep: results in {}; read them with: colltune report {}\n", store_, store_);
  return counts["done"] + counts["decided"] == static_cast<int>(manifest_.launches.size())
             ? kSweepAllDone
             : kSweepSomeFailed;
}

}  // namespace

int run_sweep(const SweepPlan& plan, std::FILE* progress_out) {
  install_interrupt_handlers();
  become_subreaper();
  SweepRun sweep(plan, progress_out);
  return sweep.run();
}

}  // namespace colltune
