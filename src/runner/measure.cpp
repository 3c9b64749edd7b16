#include "runner/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <memory>
#include <thread>

#include "core/bandwidth.hpp"
#include "core/validation.hpp"

namespace colltune {
namespace {

// A pingpong op is a round trip; its latency is half of it (OSU).
double op_seconds(const Collective& c, double seconds_per_launch) {
  return c.kind == CollKind::kPingpong ? seconds_per_launch / 2 : seconds_per_launch;
}

void wait_for(Communicator& comm, const RunPolicy& policy) {
  comm.synchronize(policy.sync_timeout);
  if (policy.on_progress) policy.on_progress();
}

void test_delay(const MpiWorld& world, const RunPolicy& policy, int ops) {
  if (world.rank() != policy.delay_rank) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(policy.delay_seconds * ops));
}

// -C: the host's steady clock from the first launch call until the last returns.
class LaunchTimer : public Timer {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  void stop() override { stop_ = std::chrono::steady_clock::now(); }
  double seconds() override { return std::chrono::duration<double>(stop_ - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_, stop_;
};

double timed_batch(Communicator& comm, const MpiWorld& world, const Collective& c, Buffers& buffers,
                   const RunPolicy& policy) {
  std::unique_ptr<Timer> timer =
      policy.span == TimeSpan::kLaunch ? std::make_unique<LaunchTimer>() : comm.timer();
  comm.activate();
  if (policy.timing == TimingMode::kBatch) {
    world.barrier();
    timer->start();
    comm.launch(c, buffers, policy.iters);
    test_delay(world, policy, policy.iters);
    timer->stop();
    wait_for(comm, policy);
    return timer->seconds() / policy.iters;
  }
  double total = 0;
  for (int i = 0; i < policy.iters; ++i) {
    world.barrier();
    timer->start();
    comm.launch(c, buffers, 1);
    test_delay(world, policy, 1);
    timer->stop();
    wait_for(comm, policy);
    total += timer->seconds();
  }
  return total / policy.iters;
}

}  // namespace

std::size_t rotation_sets(std::uint64_t set_stride_bytes, const RunPolicy& policy) {
  if (policy.cache == CacheMode::kWarm || set_stride_bytes == 0) return 1;
  // No cap below the footprint: sets are offsets in one allocation, and a cache holds lines, so
  // small messages need as many sets as the footprint has strides to miss it.
  const std::uint64_t sets =
      (policy.cold_footprint_bytes + set_stride_bytes - 1) / set_stride_bytes;
  return static_cast<std::size_t>(std::max<std::uint64_t>(sets, 1));
}

namespace {

std::size_t sets_for(const Collective& c, int nranks, const RunPolicy& policy) {
  return rotation_sets(set_layout(c, nranks).stride_bytes, policy);
}

// One decision for every rank: a rank that skipped while its peers ran would leave them
// waiting inside the collective until the watchdog fired, blaming a timeout. The first rank
// with a reason gives it, named when it is another rank's.
std::optional<std::string> agreed(const MpiWorld& world, const std::optional<std::string>& mine) {
  if (world.sum_over_ranks(mine ? 1 : 0) == 0) return std::nullopt;
  const auto all = world.all_gather(mine ? world.host() + "\n" + *mine : std::string());
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    if (static_cast<int>(r) == world.rank()) return mine;
    const auto newline = all[r].find('\n');
    return fmt::format("rank {} on {}: {}", r, all[r].substr(0, newline),
                       all[r].substr(newline + 1));
  }
  return mine;
}

// What this rank knows first (cheap, local), then, when every rank would run it, the library's
// own answer (collective: NCCL's probe may connect to peers).
std::optional<std::string> agreed_skip(Communicator& comm, const MpiWorld& world,
                                       const Collective& c, const RunPolicy& policy) {
  std::optional<std::string> local = comm.unsupported(c);
  if (!local && world.rank() == policy.skip_rank) local = "--test-skip-rank: this rank skips it";
  if (auto reason = agreed(world, local)) return reason;
  return agreed(world, comm.probe(c));
}

}  // namespace

std::uint64_t launch_footprint_bytes(const std::vector<Collective>& plan, int nranks,
                                     const RunPolicy& policy) {
  std::uint64_t largest = 0;
  for (const Collective& c : plan) {
    largest = std::max<std::uint64_t>(
        largest, sets_for(c, nranks, policy) * set_layout(c, nranks).stride_bytes);
  }
  return largest;
}

Measurer::Measurer(Communicator& comm, const MpiWorld& world, const Collective& c,
                   const RunPolicy& policy, Buffers* shared)
    : comm_(comm), world_(world), policy_(policy) {
  const PhaseScope phase(policy.phases, Phase::kWarmup);
  const int nranks = comm.nranks();
  m_.coll = c;
  m_.nranks = nranks;
  m_.bytes = op_bytes(c, nranks);
  m_.ops_per_sample = policy.iters;
  if (auto reason = agreed_skip(comm, world, c, policy)) {
    m_.skipped = std::move(reason);
    return;
  }
  m_.buffer_sets = sets_for(c, nranks, policy);
  if (shared == nullptr) owned_ = comm.allocate(c, m_.buffer_sets);
  buffers_ = shared != nullptr ? shared : owned_.get();

  const auto hang = [] {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  };
  if (world.rank() == policy.hang_rank && !policy.hang_after_first_op) hang();
  // Unlike a hang, every thread stops, the roll call's responder too: only the peers can tell.
  if (world.rank() == policy.stop_rank) std::raise(SIGSTOP);
  // Adaptive: one op first, so that no calibration batch times a connection being set up.
  comm.launch(c, *buffers_, policy.adaptive_iters ? 1 : policy.warmup_iters);
  wait_for(comm, policy);
  // Connected and one op done: the peers' next op waits on the device, not in a handshake.
  if (world.rank() == policy.hang_rank && policy.hang_after_first_op) hang();
  if (!policy.adaptive_iters) start(policy.iters);
}

double Measurer::calibrate() {
  if (m_.skipped) return 0;
  const PhaseScope phase(policy_.phases, Phase::kCalibration);
  RunPolicy trial = policy_;
  for (int ops = 1;;) {
    trial.iters = ops;
    // In the mode that is timed: under -G the batch is a graph, shorter than the eager calls, so
    // an eager calibration would leave graph samples below --min-sample-seconds.
    const bool batch = policy_.timing == TimingMode::kBatch;
    comm_.prepare(m_.coll, *buffers_, batch ? ops : 1, batch ? 1 : ops);
    std::vector<double> seconds{timed_batch(comm_, world_, m_.coll, *buffers_, trial)};
    world_.max_over_ranks(seconds);  // every rank grows the batch alike
    const double batch_seconds = seconds[0] * ops;
    if (batch_seconds >= policy_.min_sample_seconds || ops >= kMaxAdaptiveIters) return seconds[0];
    // Towards the target, at most tenfold a step (as Google Benchmark grows its iterations).
    const double wanted = policy_.min_sample_seconds * 1.2 / std::max(batch_seconds, 1e-9);
    ops =
        static_cast<int>(std::min<double>(kMaxAdaptiveIters, ops * std::clamp(wanted, 2.0, 10.0)));
  }
}

void Measurer::start(int iters) {
  if (m_.skipped) return;
  const PhaseScope phase(policy_.phases, Phase::kCalibration);
  policy_.iters = iters;
  m_.ops_per_sample = iters;
  const bool batch = policy_.timing == TimingMode::kBatch;
  comm_.prepare(m_.coll, *buffers_, batch ? iters : 1,
                batch ? policy_.repetitions : policy_.repetitions * iters);
  m_.samples_seconds.reserve(static_cast<std::size_t>(policy_.repetitions));
}

double Measurer::take_sample() {
  if (m_.skipped) return 0;
  const PhaseScope phase(policy_.phases, Phase::kSampling);
  m_.samples_seconds.push_back(
      op_seconds(m_.coll, timed_batch(comm_, world_, m_.coll, *buffers_, policy_)));
  if (policy_.on_sample) {
    policy_.on_sample(static_cast<int>(m_.samples_seconds.size()), policy_.repetitions,
                      m_.ops_per_sample);
  }
  return m_.samples_seconds.back();
}

Measurement Measurer::finish(RaceEntry race) {
  if (m_.skipped) return m_;
  m_.race = race.outcome;
  m_.race_turn = race.turn;
  m_.rank_reduction = policy_.rank_reduction;
  const Collective& c = m_.coll;
  {
    const PhaseScope phase(policy_.phases, Phase::kSummaries);
    // One gather and one reduction after timing, so no sample waits on another's bookkeeping.
    if (policy_.rank_samples) m_.rank_samples_seconds = world_.gather_to_root(m_.samples_seconds);
    world_.reduce_over_ranks(m_.samples_seconds, policy_.rank_reduction);
    m_.summary = summarize(m_.samples_seconds);
    m_.at_median = bandwidth(c, m_.nranks, m_.summary.median);
  }
  if (policy_.check_rounds > 0) {
    const PhaseScope phase(policy_.phases, Phase::kValidation);
    const Pattern pattern(policy_.seed, c.dtype, is_reduction(c.kind) ? c.op : ReduceOp::kNone,
                          m_.nranks);
    std::uint64_t wrong = 0;
    for (int round = 0; round < policy_.check_rounds; ++round) {
      comm_.fill(c, *buffers_, pattern);
      comm_.prepare(c, *buffers_, 1, 1);  // the checked op runs as the timed ones do (-G)
      world_.barrier();
      comm_.launch(c, *buffers_, 1);
      wait_for(comm_, policy_);
      wrong += comm_.check(c, *buffers_, pattern, policy_.corrupt_one);
    }
    m_.wrong = world_.sum_over_ranks(wrong);
  }
  return m_;
}

int adaptive_iters_for(double op_seconds, const RunPolicy& policy) {
  if (!(op_seconds > 0)) return kMaxAdaptiveIters;
  const double ops = std::ceil(policy.min_sample_seconds / op_seconds);
  return static_cast<int>(std::clamp(ops, 1.0, static_cast<double>(kMaxAdaptiveIters)));
}

Measurement measure(Communicator& comm, const MpiWorld& world, const Collective& c,
                    const RunPolicy& policy) {
  Measurer measurer(comm, world, c, policy);
  if (policy.adaptive_iters) measurer.start(adaptive_iters_for(measurer.calibrate(), policy));
  for (int r = 0; r < policy.repetitions; ++r) measurer.take_sample();
  return measurer.finish();
}

namespace {

// Turns until every setting is decided or the budget is spent; only undecided settings sample.
// Decisions come from each turn's samples reduced over ranks as the records' are (-a; the max
// by default), so every rank takes them alike and no rank skips a collective another runs.
std::vector<RaceEntry> race(std::vector<std::unique_ptr<Measurer>>& measurers,
                            const MpiWorld& world, const RunPolicy& policy) {
  RaceConfig config = policy.race_config;
  config.max_turns = policy.repetitions;
  std::vector<RaceEntry> entries(measurers.size());
  std::vector<std::vector<double>> taken(measurers.size());
  for (std::size_t s = 0; s < measurers.size(); ++s) {
    if (measurers[s]->skipped()) entries[s].outcome = RaceOutcome::kNotRaced;
  }
  for (int turn = 1; turn <= config.max_turns; ++turn) {
    std::vector<std::size_t> racing;
    std::vector<double> seconds;
    for (const std::size_t s : turn_order(measurers.size(), turn)) {
      if (entries[s].outcome != RaceOutcome::kRacing) continue;
      racing.push_back(s);
      seconds.push_back(measurers[s]->take_sample());
    }
    const PhaseScope phase(policy.phases, Phase::kDecisions);
    world.reduce_over_ranks(seconds, policy.rank_reduction);  // as the records will have them
    for (std::size_t i = 0; i < racing.size(); ++i) taken[racing[i]].push_back(seconds[i]);
    if (race_step(taken, entries, turn, config)) break;
  }
  return entries;
}

}  // namespace

std::vector<Measurement> measure_interleaved(const std::vector<Communicator*>& comms,
                                             const MpiWorld& world, const Collective& c,
                                             const RunPolicy& policy) {
  std::unique_ptr<Buffers> shared;
  const bool share = std::all_of(comms.begin(), comms.end(), [](const Communicator* comm) {
    return comm->buffers_shareable();
  });
  if (share && !comms.front()->unsupported(c)) {
    shared = comms.front()->allocate(c, sets_for(c, comms.front()->nranks(), policy));
  }
  std::vector<std::unique_ptr<Measurer>> measurers;
  for (std::size_t k = 0; k < comms.size(); ++k) {
    RunPolicy own = policy;
    if (policy.delay_setting >= 0 && static_cast<std::size_t>(policy.delay_setting) != k) {
      own.delay_rank = -1;
    }
    measurers.push_back(std::make_unique<Measurer>(*comms[k], world, c, own, shared.get()));
  }
  if (policy.adaptive_iters) {
    // One op count for all, from the fastest: every sample lasts at least the target.
    double fastest = 0;
    for (auto& m : measurers) {
      const double seconds = m->calibrate();
      if (!m->skipped() && (fastest == 0 || seconds < fastest)) fastest = seconds;
    }
    for (auto& m : measurers) m->start(adaptive_iters_for(fastest, policy));
  }
  const auto measured = std::count_if(measurers.begin(), measurers.end(),
                                      [](const auto& m) { return !m->skipped(); });
  std::vector<RaceEntry> entries(measurers.size(), RaceEntry{RaceOutcome::kNotRaced, 0});
  if (policy.race && measured >= 2) {
    entries = race(measurers, world, policy);
  } else {
    // Samples in turns (A B D C, B C A D, ... for four): drift over the run then hits every
    // communicator alike, and no one of them always comes first or after the same other.
    for (int turn = 1; turn <= policy.repetitions; ++turn) {
      for (const std::size_t s : turn_order(measurers.size(), turn)) measurers[s]->take_sample();
    }
  }
  std::vector<Measurement> out;
  for (std::size_t s = 0; s < measurers.size(); ++s)
    out.push_back(measurers[s]->finish(entries[s]));
  return out;
}

}  // namespace colltune
