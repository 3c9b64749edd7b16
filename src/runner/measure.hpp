#pragma once
// The measurement loop (DESIGN.md section 3): warm-up, timed samples, max over ranks, validation.
// It never prints.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/mpi_world.hpp"
#include "core/measurement.hpp"
#include "core/phase_times.hpp"
#include "core/race.hpp"

namespace colltune {

struct RunPolicy {
  int warmup_iters = 5;
  int iters = 20;        // ops per sample
  int repetitions = 10;  // samples
  int check_rounds = 1;  // 0: no validation
  TimingMode timing = TimingMode::kBatch;
  TimeSpan span = TimeSpan::kCompletion;  // -C: host time until the launch calls return
  CacheMode cache = CacheMode::kWarm;
  RankReduction rank_reduction = RankReduction::kMax;  // a sample over ranks (-a)
  bool rank_samples = false;  // keep each process's samples too (Measurement::rank_samples_seconds)
  std::uint64_t cold_footprint_bytes = 128ULL << 20;  // buffer bytes to rotate through when cold
  // Ops per sample adapt to the size: as many as fill min_sample_seconds, found by a calibration
  // that is also the warm-up (warmup_iters is not used then); otherwise `iters`.
  bool adaptive_iters = false;
  double min_sample_seconds = 2.5e-4;
  // measure_interleaved: settings stop being sampled once decided (core/race.hpp); the budget
  // is `repetitions` turns (race_config.max_turns is set from it).
  bool race = false;
  RaceConfig race_config;
  std::chrono::milliseconds sync_timeout{300'000};
  PhaseSeconds* phases = nullptr;  // --phase-times: where this rank's time goes (not owned)
  // Called after every wait for launched work returns (warm-up, each op or batch, each check):
  // the caller's watchdog counts a hang from the last progress, so the backend's own timeout
  // (which starts at its wait) fires first and can abort the communicator cleanly.
  std::function<void()> on_progress;
  // Called after every timed sample with the samples taken and planned (per setting) and the ops
  // in each, so the caller can show life on long sizes. Never called while a clock runs.
  std::function<void(int taken, int planned, int ops_per_sample)> on_sample;
  std::uint64_t seed = 0xC011;
  bool corrupt_one = false;  // test-only: flip one output element (per checked rank) first
  int hang_rank = -1;        // test-only: this rank stops before warm-up, as a hung peer would
  bool hang_after_first_op = false;  // test-only: hang_rank stops after the warm-up instead
  int stop_rank = -1;        // test-only: this rank SIGSTOPs itself there, as a frozen one would
  int skip_rank = -1;        // test-only: this rank alone finds every collective unsupported
  int hang_setup_rank = -1;  // test-only: this rank stops before creating its communicator
  // Test-only: this rank adds delay_seconds per op inside its timed region, after its ops (so
  // no peer waits for it there), as a rank whose clock saw a slow op would.
  int delay_rank = -1;
  double delay_seconds = 0;
  // Test-only: measure_interleaved delays only this setting (index among the settings measured
  // at that row: with --race-after, those the earlier launch left open).
  int delay_setting = -1;
};

// The most ops one adaptive sample takes, however fast an op is.
inline constexpr int kMaxAdaptiveIters = 100000;

// Ops per sample that make one sample last policy.min_sample_seconds at `op_seconds` an op.
int adaptive_iters_for(double op_seconds, const RunPolicy& policy);

// Buffer sets of `set_stride_bytes` (set_layout) to rotate through so that a cycle spans
// policy.cold_footprint_bytes; 1 with --cache warm.
std::size_t rotation_sets(std::uint64_t set_stride_bytes, const RunPolicy& policy);

// One collective on one communicator, a sample at a time, so that several communicators can
// take turns. Every process makes the same calls in the same order. Holds the buffers.
class Measurer {
 public:
  // Allocates (or uses `shared`, which must outlive it), warms up and prepares (-G), unless
  // comm.unsupported(c) makes it a skip.
  // With policy.adaptive_iters it only warms up with one op: calibrate() and start() follow.
  Measurer(Communicator& comm, const MpiWorld& world, const Collective& c, const RunPolicy& policy,
           Buffers* shared = nullptr);
  bool skipped() const { return m_.skipped.has_value(); }
  // Timed batches of 1, 2, 4 ... ops until one lasts policy.min_sample_seconds: one op's
  // seconds, max over ranks (the same on every rank). All ranks call it.
  double calibrate();
  // Fixes the ops per sample and readies them (-G); after calibrate(). All ranks call it.
  void start(int iters);
  double take_sample();  // one timed batch: one op's time, this rank's view (also kept)
  // Max over ranks, statistics, validation rounds; call once. `race` goes into the record.
  Measurement finish(RaceEntry race = {RaceOutcome::kNotRaced, 0});

 private:
  Communicator& comm_;
  const MpiWorld& world_;
  RunPolicy policy_;
  Measurement m_;
  std::unique_ptr<Buffers> owned_;
  Buffers* buffers_ = nullptr;  // owned_, or the shared set
};

// Bytes the largest allocate() of `plan` asks one rank for (its buffer sets under `policy`), for
// Communicator::reserve.
std::uint64_t launch_footprint_bytes(const std::vector<Collective>& plan, int nranks,
                                     const RunPolicy& policy);

// Every process calls it with the same arguments; returns the same Measurement on every one.
// Sizes and formulas use comm.nranks() (processes x GPUs each), barriers and maxima `world`.
Measurement measure(Communicator& comm, const MpiWorld& world, const Collective& c,
                    const RunPolicy& policy);

// The same collective on each communicator, warmed up alike, samples taken in turns (in
// turn_order: A B D C, B C A D, ... for four); one Measurement per communicator, in their order.
// Every process calls it alike. Where the backend allows, they share one set of buffers, so memory
// does not grow with their number.
std::vector<Measurement> measure_interleaved(const std::vector<Communicator*>& comms,
                                             const MpiWorld& world, const Collective& c,
                                             const RunPolicy& policy);

}  // namespace colltune
