// The measurement loop with a fake backend and clock (one process, MPI never initialised): what a
// sample is in each timing mode, pingpong's half round trip, warm-up, buffer rotation and
// validation rounds. Expected numbers are hand calculations from the fake's fixed costs.
#include "runner/measure.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace colltune {
namespace {

// Every launch() call costs kCallSeconds once, plus kOpSeconds per op: a per-op sample sees the
// call cost on every op, a batch only once per batch.
constexpr double kCallSeconds = 4e-6;
constexpr double kOpSeconds = 1e-6;

struct FakeClock {
  double now = 0;
};

class FakeTimer : public Timer {
 public:
  explicit FakeTimer(FakeClock& clock) : clock_(clock) {}
  void start() override { start_ = clock_.now; }
  void stop() override { stop_ = clock_.now; }
  double seconds() override { return stop_ - start_; }

 private:
  FakeClock& clock_;
  double start_ = 0, stop_ = 0;
};

class FakeComm : public Communicator {
 public:
  FakeClock clock;
  std::vector<int> launches;  // n of each launch() call, in order
  std::size_t sets_allocated = 0;
  int fills = 0, checks = 0;
  std::uint64_t wrong_per_check = 0;
  std::vector<int>* order = nullptr;  // shared by communicators measured in turns
  int id = 0;
  double op_seconds = kOpSeconds;

  std::string backend() const override { return "fake"; }
  std::map<std::string, std::string> library_versions() const override { return {}; }
  int nranks() const override { return 2; }
  std::optional<std::string> unsupported(const Collective&) const override { return {}; }
  std::unique_ptr<Buffers> allocate(const Collective&, std::size_t sets) override {
    sets_allocated = sets;
    return std::make_unique<Buffers>();
  }
  std::vector<std::pair<int, int>> prepares;  // (ops, batches) of each prepare() call
  void prepare(const Collective&, Buffers&, int n, int batches) override {
    prepares.emplace_back(n, batches);
  }
  void launch(const Collective&, Buffers&, int n) override {
    launches.push_back(n);
    if (order != nullptr) order->push_back(id);
    clock.now += kCallSeconds + op_seconds * n;
  }
  void synchronize(std::chrono::milliseconds) override {}
  std::unique_ptr<Timer> timer() override { return std::make_unique<FakeTimer>(clock); }
  void fill(const Collective&, Buffers&, const Pattern&) override { ++fills; }
  std::uint64_t check(const Collective&, Buffers&, const Pattern&, bool corrupt) override {
    ++checks;
    return wrong_per_check + (corrupt ? 1 : 0);
  }
};

class MeasureTest : public ::testing::Test {
 protected:
  int argc = 0;
  char** argv = nullptr;
  MpiWorld world{&argc, &argv, false};  // one process: max over ranks is the identity
  FakeComm comm;
  Collective allreduce() {
    Collective c;
    c.count = 256;
    return c;
  }
  RunPolicy policy() {
    RunPolicy p;
    p.warmup_iters = 3;
    p.iters = 10;
    p.repetitions = 4;
    p.check_rounds = 0;
    return p;
  }
};

TEST_F(MeasureTest, BatchSampleIsTheBatchTimeOverItsOps) {
  const Measurement m = measure(comm, world, allreduce(), policy());
  ASSERT_EQ(m.samples_seconds.size(), 4u);
  for (double s : m.samples_seconds) EXPECT_NEAR(s, (4e-6 + 10 * 1e-6) / 10, 1e-15);
  // Warm-up first, then one launch of 10 ops per sample.
  EXPECT_EQ(comm.launches, (std::vector<int>{3, 10, 10, 10, 10}));
  EXPECT_EQ(m.ops_per_sample, 10);
}

TEST_F(MeasureTest, PerOpSampleTimesEachOpAlone) {
  RunPolicy p = policy();
  p.timing = TimingMode::kPerOp;
  const Measurement m = measure(comm, world, allreduce(), p);
  for (double s : m.samples_seconds) EXPECT_NEAR(s, 4e-6 + 1e-6, 1e-15);
  EXPECT_EQ(comm.launches.size(), 1u + 4 * 10);
}

TEST_F(MeasureTest, PingpongIsHalfARoundTrip) {
  Collective c = allreduce();
  c.kind = CollKind::kPingpong;
  c.op = ReduceOp::kNone;
  const Measurement m = measure(comm, world, c, policy());
  for (double s : m.samples_seconds) EXPECT_NEAR(s, (4e-6 + 10e-6) / 10 / 2, 1e-15);
  // Its bandwidth is bytes over that half: 1 KiB / 0.7 us.
  EXPECT_NEAR(m.at_median.algbw_gbps, 1024 / 0.7e-6 / 1e9, 1e-9);
}

TEST_F(MeasureTest, ColdCacheRotatesThroughTheFootprint) {
  RunPolicy p = policy();
  p.cache = CacheMode::kCold;
  Collective c = allreduce();
  c.count = 1 << 18;  // 1 MiB of floats sent and 1 MiB received: 2 MiB a set
  measure(comm, world, c, p);
  EXPECT_EQ(comm.sets_allocated, (128u << 20) / (2u << 20));
  c.in_place = true;  // one 1 MiB buffer a set
  measure(comm, world, c, p);
  EXPECT_EQ(comm.sets_allocated, 128u);
  // 8 B sent and received: a set is two 256 B-aligned slots, so 128 MiB / 512 B sets touch a
  // distinct cache line each op (a cap of a few thousand sets would fit in any L2).
  c.count = 2;
  c.in_place = false;
  measure(comm, world, c, p);
  EXPECT_EQ(comm.sets_allocated, (128u << 20) / 512u);
  p.cache = CacheMode::kWarm;
  measure(comm, world, c, p);
  EXPECT_EQ(comm.sets_allocated, 1u);
}

// What NCCL reserves once per launch (as nccl-tests allocates for its largest size): the most
// bytes one size's sets need, which with --cache cold is not the largest message's.
TEST_F(MeasureTest, LaunchFootprintIsTheLargestSizesSets) {
  Collective small = allreduce();  // 1 KiB sent and received: 2 KiB a set
  Collective big = allreduce();
  big.count = 3u << 20;  // 12 MiB sent and received: 24 MiB a set
  Collective gather = allreduce();
  gather.kind = CollKind::kAllgather;
  gather.op = ReduceOp::kNone;
  gather.count = 1u << 20;  // 4 MiB sent, 8 MiB received on 2 ranks: 12 MiB a set
  const std::vector<Collective> plan{small, big, gather};
  RunPolicy p = policy();
  EXPECT_EQ(launch_footprint_bytes(plan, 2, p), 24u << 20);
  // Cold, 128 MiB: 65536 sets of 2 KiB, ceil(128/24) = 6 sets of 24 MiB, 11 of 12 MiB.
  p.cache = CacheMode::kCold;
  EXPECT_EQ(launch_footprint_bytes(plan, 2, p), 144u << 20);
  EXPECT_EQ(launch_footprint_bytes({}, 2, p), 0u);
}

TEST_F(MeasureTest, ValidationRunsEachRoundOutsideTimingAndSumsWrong) {
  RunPolicy p = policy();
  p.check_rounds = 3;
  comm.wrong_per_check = 2;
  const Measurement m = measure(comm, world, allreduce(), p);
  EXPECT_EQ(comm.fills, 3);
  EXPECT_EQ(comm.checks, 3);
  ASSERT_TRUE(m.wrong.has_value());
  EXPECT_EQ(*m.wrong, 6u);
  // Timed samples are untouched by the checked launches that follow them.
  for (double s : m.samples_seconds) EXPECT_NEAR(s, 1.4e-6, 1e-15);
  p.corrupt_one = true;
  comm.wrong_per_check = 0;
  EXPECT_EQ(*measure(comm, world, allreduce(), p).wrong, 3u);
}

TEST_F(MeasureTest, ProgressIsReportedAfterEveryWait) {
  // The watchdog counts a hang from the last progress: warm-up, 4 samples and 3 checks are 8
  // waits in batch mode; per-op, each of the 4 x 10 ops is one.
  RunPolicy p = policy();
  p.check_rounds = 3;
  int progress = 0;
  p.on_progress = [&] { ++progress; };
  measure(comm, world, allreduce(), p);
  EXPECT_EQ(progress, 1 + 4 + 3);
  progress = 0;
  p.timing = TimingMode::kPerOp;
  p.check_rounds = 0;
  measure(comm, world, allreduce(), p);
  EXPECT_EQ(progress, 1 + 4 * 10);
}

TEST_F(MeasureTest, InterleavedCommunicatorsTakeSamplesInTurns) {
  FakeComm other;
  std::vector<int> order;
  comm.order = other.order = &order;
  other.id = 1;
  std::vector<Communicator*> comms{&comm, &other};
  const auto ms = measure_interleaved(comms, world, allreduce(), policy());
  ASSERT_EQ(ms.size(), 2u);
  // Both warmed up, then A B, B A, A B, B A: drift hits both alike, and neither always goes first.
  EXPECT_EQ(order, (std::vector<int>{0, 1, 0, 1, 1, 0, 0, 1, 1, 0}));
  EXPECT_EQ(other.launches, (std::vector<int>{3, 10, 10, 10, 10}));
  EXPECT_EQ(ms[1].samples_seconds.size(), 4u);
}

TEST_F(MeasureTest, AdaptiveOpsGrowUntilASampleLastsTheTarget) {
  RunPolicy p = policy();
  p.adaptive_iters = true;
  p.min_sample_seconds = 100e-6;
  const Measurement m = measure(comm, world, allreduce(), p);
  // By hand: one untimed op; then batches of 1 (5 us: x10), 10 (14 us: 120/14 = 8.57, x8.57 ->
  // 85), 85 (89 us: x1.35, at least doubled -> 170), 170 (174 us >= 100 us: stop at 174/170 us an
  // op); ceil(100 / (174/170)) = 98 ops a sample. -w is not used.
  EXPECT_EQ(comm.launches, (std::vector<int>{1, 1, 10, 85, 170, 98, 98, 98, 98}));
  EXPECT_EQ(m.ops_per_sample, 98);
  for (double s : m.samples_seconds) EXPECT_NEAR(s, (4e-6 + 98e-6) / 98, 1e-15);
  // Each calibration batch is prepared as the timed ones are (-G: captured), then the samples.
  EXPECT_EQ(comm.prepares,
            (std::vector<std::pair<int, int>>{{1, 1}, {10, 1}, {85, 1}, {170, 1}, {98, 4}}));
}

// The fake's times are exact: every per-turn ratio is the same, Student's t interval has no
// width, and the t rule decides at its first look (turn 3), before the sign test's turn 8.
TEST_F(MeasureTest, RacingStopsSamplingALoserAtTheFirstLook) {
  FakeComm slow;
  slow.op_seconds = 2 * kOpSeconds;  // twice the time per op: far beyond a 5% tie
  std::vector<Communicator*> comms{&comm, &slow};
  RunPolicy p = policy();
  p.race = true;
  p.repetitions = 20;
  const auto ms = measure_interleaved(comms, world, allreduce(), p);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[1].race, RaceOutcome::kEliminated);
  EXPECT_EQ(ms[1].race_turn, kRaceEarliestTurn);
  EXPECT_EQ(ms[0].race, RaceOutcome::kWon);
  EXPECT_EQ(ms[1].samples_seconds.size(), 3u);
  // Warm-up and 3 samples each, none after the decision.
  EXPECT_EQ(slow.launches.size(), 1u + 3u);
  EXPECT_EQ(comm.launches.size(), 1u + 3u);
}

TEST_F(MeasureTest, RacingTiesEqualSettingsAndOffMeasuresTheFullBudget) {
  FakeComm same;
  std::vector<Communicator*> comms{&comm, &same};
  RunPolicy p = policy();
  p.race = true;
  p.repetitions = 20;
  auto ms = measure_interleaved(comms, world, allreduce(), p);
  EXPECT_EQ(ms[0].race, RaceOutcome::kTied);
  EXPECT_EQ(ms[1].race, RaceOutcome::kTied);
  EXPECT_EQ(ms[1].samples_seconds.size(), 3u);
  p.race = false;
  ms = measure_interleaved(comms, world, allreduce(), p);
  EXPECT_EQ(ms[0].race, RaceOutcome::kNotRaced);
  EXPECT_EQ(ms[0].samples_seconds.size(), 20u);
}

}  // namespace
}  // namespace colltune
