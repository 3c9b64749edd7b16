#include "apps/run_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "apps/help_topics.hpp"
#include "apps/run_context.hpp"
#include "backends/registry.hpp"
#include "core/errors.hpp"
#include "core/phase_times.hpp"
#include "report/console_reporter.hpp"
#include "report/jsonl_reporter.hpp"
#include "report/nccl_tests_json.hpp"
#include "runner/measure.hpp"
#include "runner/plan.hpp"
#include "runner/race_after.hpp"
#include "runner/roll_call.hpp"
#include "runner/run_options.hpp"
#include "runner/watchdog.hpp"
#include "store/manifest.hpp"

namespace colltune {
namespace {

std::string g_current_step;
// Before main (static initialisation): where --phase-times counts the process's wall time from.
const std::chrono::steady_clock::time_point g_process_start = std::chrono::steady_clock::now();

constexpr int kExitWrong = 7;  // nccl-tests' exit code for wrong results
constexpr int kExitTimeout = 4;
constexpr int kExitNothingMeasured = 5;  // every row skipped: a run that measured nothing

std::string describe(const Collective& c, int nranks) {
  return fmt::format("{} {} {} of {} B {}", name(c.kind), name(c.dtype), name(c.op),
                     op_bytes(c, nranks), c.in_place ? "in-place" : "out-of-place");
}

// Rank 0 reads `path` (it need not exist on other hosts); every rank gets the text, or throws
// the same ConfigError (rank 0's line), so all leave alike.
std::string read_on_rank0(const MpiWorld& world, const std::string& path) {
  std::string text, error;
  if (world.rank() == 0) {
    try {
      text = read_file(path);
    } catch (const ConfigError& e) {
      error = fmt::format("--race-after: {}", e.what());
    }
  }
  // One launch's records are megabytes; MPI counts in int.
  if (world.rank() == 0 && text.size() > (std::size_t{1} << 30)) {
    error = fmt::format("--race-after: {}: {} bytes; allowed: one launch's records (under 1 GiB)",
                        path, text.size());
    text.clear();
  }
  std::uint64_t sizes[2] = {text.size(), error.size()};
  world.broadcast_bytes(sizes, sizeof sizes);
  text.resize(sizes[0]);
  error.resize(sizes[1]);
  world.broadcast_bytes(text.data(), text.size());
  world.broadcast_bytes(error.data(), error.size());
  if (!error.empty()) throw ConfigError(error);
  return text;
}

}  // namespace

const std::string& current_step() { return g_current_step; }

int run_command(int* argc, char*** argv, const std::vector<std::string>& args) {
  // Under a launcher MPI starts before the options are read, so bad input ends in MPI_Finalize on
  // every rank after rank 0 printed it: a rank exiting non-zero without MPI makes mpirun kill
  // the others, rank 0 too, sometimes before its error line is out.
  std::unique_ptr<MpiWorld> launched_world;
  const ToolInterface tool =
      names_interleave(args) ? ToolInterface::kBeforeInit : ToolInterface::kOnDemand;
  if (under_launcher()) launched_world = std::make_unique<MpiWorld>(argc, argv, true, tool);
  const RunOptions options = parse_run_options(args);
  if (options.help) {
    if (launcher_rank() == 0)
      std::fputs((run_help() + "\n" + read_more_line("run") + "\n").c_str(), stdout);
    return 0;
  }
  const auto backends = built_backends();
  if (std::find(backends.begin(), backends.end(), options.backend) == backends.end()) {
    throw ConfigError(fmt::format("--backend: '{}' is not built into this colltune; allowed: {}",
                                  options.backend, fmt::join(backends, " ")));
  }

  // The MPI backend needs MPI even alone (a singleton); a GPU backend started without a launcher
  // runs as one process without MPI, for GPU hosts that have none.
  std::unique_ptr<MpiWorld> solo_world;
  if (!launched_world) {
    solo_world = std::make_unique<MpiWorld>(argc, argv, options.backend == "mpi", tool);
  }
  MpiWorld& world = launched_world ? *launched_world : *solo_world;
  // Ranks of the measured communicator: -g GPUs per process on a GPU backend.
  int nranks = world.size() * options.backend_options.gpus;
  if (options.backend_options.split_by_host) {
    const HostGroups groups = host_groups(world);
    const auto [fewest, most] =
        std::minmax_element(groups.ranks_per_host.begin(), groups.ranks_per_host.end());
    if (*fewest != *most) {
      throw ConfigError(fmt::format(
          "--split: host needs the same rank count on every host; this job has {} to {} ranks "
          "on its {} hosts; allowed: an even placement (--map-by ppr:N:node, -ppn N)",
          *fewest, *most, groups.ranks_per_host.size()));
    }
    nranks = *most * options.backend_options.gpus;
  }
  check_against_world(options, nranks);
  const RunPlan run_plan = plan_run(options, nranks);
  const std::vector<Collective>& plan = run_plan.ops;
  if (plan.empty() && options.max_bytes >= run_plan.smallest_useful_bytes) {
    // -e holds a useful size, but the steps from -b never reach one (-b 0 -i 1M stays at 0).
    throw ConfigError(fmt::format(
        "-b/--minbytes: {} B: the sizes it steps to up to {} B hold less than one element per "
        "block of what was asked on {} ranks; allowed: {} or more",
        options.min_bytes, options.max_bytes, nranks, run_plan.smallest_useful_bytes));
  }
  if (plan.empty()) {
    throw ConfigError(fmt::format(
        "--maxbytes: {} B holds less than one element per block of what was asked on {} ranks; "
        "allowed: {} or more",
        options.max_bytes, nranks, run_plan.smallest_useful_bytes));
  }
  std::optional<RaceAfter> race_after;
  if (!options.race_after_path.empty()) {
    race_after = parse_race_after(read_on_rank0(world, options.race_after_path),
                                  options.race_after_path, options.interleaved, nranks);
  }
  const auto settings =
      options.interleaved.empty() ? std::vector<InProcessSettings>{{}} : options.interleaved;
  // Per plan row, the settings measured there: all, or those --race-after's file left open.
  std::vector<std::vector<bool>> row_settings;
  for (const Collective& c : plan) {
    row_settings.push_back(race_after ? race_after->settings_for(c, nranks, settings.size())
                                      : std::vector<bool>(settings.size(), true));
  }
  PhaseSeconds phases;
  PhaseLaps laps(options.phase_times ? &phases : nullptr, g_process_start);
  laps.mark(Phase::kStartup);

  std::vector<std::unique_ptr<Reporter>> reporters;
  std::string json_error;
  if (world.rank() == 0) {
    reporters.push_back(std::make_unique<ConsoleReporter>(stdout));
    if (!options.json_path.empty()) {
      auto jsonl = std::make_unique<JsonlReporter>(options.json_path);
      json_error = jsonl->open_error();
      if (json_error.empty()) reporters.push_back(std::move(jsonl));
    }
    if (!options.nccl_tests_json_path.empty() && json_error.empty()) {
      auto nccl_tests = std::make_unique<NcclTestsJsonReporter>(
          options.nccl_tests_json_path, options.per_iter_timing, options.per_iter_skip);
      json_error = nccl_tests->open_error();
      if (json_error.empty()) reporters.push_back(std::move(nccl_tests));
    }
  }
  // Only rank 0 writes, so every rank must hear whether it can before anything is measured.
  if (world.sum_over_ranks(json_error.empty() ? 0 : 1) > 0) throw ConfigError(json_error);

  const double timeout_seconds = options.timeout_seconds;
  // A roll call over UDP, answered from a thread of each rank, names a rank that went silent
  // (stopped, frozen) when a watchdog fires. Set up on every rank alike: these are collectives.
  RollCall roll_call(world.host());
  const std::vector<std::string> roll_call_addresses = world.all_gather(roll_call.address());
  std::vector<std::string> hosts;
  for (const std::string& a : roll_call_addresses) hosts.push_back(RollCall::host_of(a));
  std::uint64_t nonce = RollCall::make_nonce();
  world.broadcast_bytes(&nonce, sizeof nonce);
  Watchdog watchdog([&](const std::string& what) {
    // The ranks waiting on a silent one all fire at about once; one of them reports, and its
    // exit ends the job while the others wait (they print after all should it not).
    const RollCallResult heard = roll_call.ask(std::chrono::milliseconds(1000));
    if (heard.defer) std::this_thread::sleep_for(std::chrono::seconds(5));
    std::fprintf(stderr, "%s\n",
                 timeout_message(what, timeout_seconds, world.rank(), hosts, heard).c_str());
    std::fflush(stderr);
    // Not MPI_Abort: MPI runs single-threaded. A rank that exits non-zero makes the launcher
    // end the job, and mpirun returns this code.
    std::_Exit(kExitTimeout);
  });
  roll_call.start(world.rank(), nonce, roll_call_addresses, [&watchdog] {
    const Watchdog::State s = watchdog.state();
    return PeerAnswer{-1, s.progress, s.idle_ms, s.armed};
  });
  // The responder reads the watchdog, so it stops first on every way out, an exception too.
  struct StopRollCall {
    RollCall& roll_call;
    ~StopRollCall() { roll_call.stop(); }
  } stop_roll_call{roll_call};
  // The watchdog is the backstop for waits nothing else bounds (a peer stuck in MPI). It counts
  // from the last progress, with a grace above --timeout, so a backend that bounds its own waits
  // (NCCL: synchronize polls, then aborts the communicators) reports first, as nccl-tests does.
  const auto timeout = options.policy.sync_timeout;  // 0: off, for the watchdog too
  const auto watchdog_limit =
      timeout.count() == 0 ? timeout
                           : timeout + std::max(std::chrono::milliseconds(2000), timeout / 10);
  // Creating the communicators (NCCL's bootstrap waits for every rank) and gathering the context
  // are waits too: a rank that never arrives, or a bootstrap that cannot connect, would hold the
  // others for ever, as nccl-tests' most reported multi-node hang does.
  watchdog.arm(watchdog_limit, "creating the communicators (" + options.backend +
                                   " init) and gathering the run context");
  if (world.rank() == options.policy.hang_setup_rank) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // test-only: never arrives
  }
  laps.mark(Phase::kContext);
  // One communicator, or one per --interleave setting, each created right after its write.
  std::vector<std::unique_ptr<Communicator>> comms;
  std::vector<Communicator*> turns;  // per setting; null where --race-after leaves it no row
  std::vector<bool> needed(settings.size(), false);
  for (const auto& open : row_settings) {
    for (std::size_t k = 0; k < settings.size(); ++k) needed[k] = needed[k] || open[k];
  }
  needed[0] = needed[0] || std::find(needed.begin(), needed.end(), true) == needed.end();
  for (std::size_t k = 0; k < settings.size(); ++k) {
    if (!needed[k]) {
      turns.push_back(nullptr);
      continue;
    }
    BackendOptions backend_options = options.backend_options;
    backend_options.in_process_knobs = settings[k];
    comms.push_back(make_communicator(options.backend, world, backend_options));
    comms.back()->reserve(launch_footprint_bytes(plan, comms.back()->nranks(), options.policy));
    turns.push_back(comms.back().get());
  }
  laps.mark(Phase::kCommunicators);
  const RunContext context = gather_context(world, *comms.front(), options,
                                            std::vector<std::string>(*argv, *argv + *argc));
  watchdog.disarm();
  for (auto& r : reporters) r->begin(context);
  laps.mark(Phase::kContext);
  if (world.rank() == 0) {
    for (const std::string& note : options.notes)
      std::fprintf(stderr, "colltune: %s\n", note.c_str());
    for (const std::string& note : run_plan.left_out)
      std::fprintf(stderr, "colltune: %s\n", note.c_str());
    if (race_after) {
      std::size_t decided = 0, open = 0, unknown = 0;
      for (std::size_t i = 0; i < plan.size(); ++i) {
        const auto& row = row_settings[i];
        if (!race_after->holds(plan[i], nranks))
          ++unknown;
        else if (std::find(row.begin(), row.end(), true) == row.end())
          ++decided;
        else
          ++open;
      }
      std::fprintf(
          stderr,
          "colltune: --race-after %s: %zu rows decided there are not measured again; "
          "%zu raced again among the settings it left tied or undecided%s\n",
          options.race_after_path.c_str(), decided, open,
          unknown > 0 ? fmt::format("; {} not raced there: raced in full", unknown).c_str() : "");
    }
  }

  std::uint64_t wrong = 0;
  std::size_t measured = 0;
  std::string first_skip;
  RunPolicy policy = options.policy;
  policy.on_progress = [&] { watchdog.progress(); };
  if (options.phase_times) policy.phases = &phases;
  // A size that runs for long shows life on rank 0: a line once it passed kProgressAfter, then
  // at most one per kProgressEvery, so a 4 GiB allreduce does not look hung.
  constexpr double kProgressAfterSeconds = 5, kProgressEverySeconds = 10;
  auto step_start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> last_line;  // of this step
  if (world.rank() == 0) {
    policy.on_sample = [&](int taken, int planned, int ops_per_sample) {
      const auto now = std::chrono::steady_clock::now();
      const double elapsed = std::chrono::duration<double>(now - step_start).count();
      if (elapsed < kProgressAfterSeconds ||
          (last_line &&
           std::chrono::duration<double>(now - *last_line).count() < kProgressEverySeconds) ||
          taken == planned) {
        return;
      }
      last_line = now;
      std::fprintf(stderr, "colltune: %s: sample %d/%d, %lld/%lld ops, %.0f s elapsed\n",
                   g_current_step.c_str(), taken, planned,
                   static_cast<long long>(taken) * ops_per_sample,
                   static_cast<long long>(planned) * ops_per_sample, elapsed);
      std::fflush(stderr);
    };
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Collective& c = plan[i];
    std::vector<std::size_t> chosen;
    std::vector<Communicator*> row_turns;
    for (std::size_t k = 0; k < turns.size(); ++k) {
      if (!row_settings[i][k]) continue;
      chosen.push_back(k);
      row_turns.push_back(turns[k]);
    }
    if (row_turns.empty()) continue;  // decided in the earlier launch
    // The test-only hang hits the last op, so tests can see that finished records survive.
    policy.hang_rank = i + 1 == plan.size() ? options.policy.hang_rank : -1;
    policy.stop_rank = i + 1 == plan.size() ? options.policy.stop_rank : -1;
    g_current_step = describe(c, nranks);
    step_start = std::chrono::steady_clock::now();
    last_line.reset();
    watchdog.arm(watchdog_limit, g_current_step);
    std::vector<Measurement> results =
        row_turns.size() == 1 ? std::vector<Measurement>{measure(*row_turns[0], world, c, policy)}
                              : measure_interleaved(row_turns, world, c, policy);
    watchdog.disarm();
    g_current_step.clear();
    laps.restart();  // the measurement's own phases are counted inside it
    if (!options.interleaved.empty()) {
      for (std::size_t k = 0; k < chosen.size(); ++k)
        results[k].in_process_knobs = options.interleaved[chosen[k]];
    }
    for (const Measurement& m : results) {
      for (auto& r : reporters) r->add(m);
      wrong += m.wrong.value_or(0);
      if (!m.skipped) ++measured;
      if (m.skipped && first_skip.empty())
        first_skip = describe(m.coll, nranks) + ": " + *m.skipped;
    }
    laps.mark(Phase::kRecords);
  }
  for (auto& r : reporters) r->end();
  laps.mark(Phase::kRecords);
  // After every record is out: a destroy that hangs (a peer gone) loses nothing but time.
  watchdog.arm(watchdog_limit, "destroying the communicators");
  turns.clear();
  comms.clear();
  watchdog.disarm();
  laps.mark(Phase::kTeardown);
  if (options.phase_times && world.rank() == 0) {
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - g_process_start).count();
    std::fprintf(stderr, "colltune: %s\n", describe_phases(phases, wall_seconds).c_str());
  }
  // With --race-after every row may have been decided already: nothing to do is not an error.
  if (measured == 0 && !plan.empty() && !first_skip.empty()) {
    // Skips are one decision over ranks (runner/measure.cpp), so every rank returns alike.
    if (world.rank() == 0) {
      std::fprintf(stderr,
                   "colltune: nothing measured: every row was skipped (%s); allowed: a "
                   "collective, dtype, op and rank count this backend can run\n",
                   first_skip.c_str());
    }
    return kExitNothingMeasured;
  }
  return wrong > 0 ? kExitWrong : 0;
}

}  // namespace colltune
