#include "runner/measure.hpp"

#include <algorithm>
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

double timed_batch(Communicator& comm, const MpiWorld& world, const Collective& c, Buffers& buffers,
                   const RunPolicy& policy) {
  auto timer = comm.timer();
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

}  // namespace

Measurer::Measurer(Communicator& comm, const MpiWorld& world, const Collective& c,
                   const RunPolicy& policy, Buffers* shared)
    : comm_(comm), world_(world), policy_(policy) {
  const int nranks = comm.nranks();
  m_.coll = c;
  m_.nranks = nranks;
  m_.bytes = op_bytes(c, nranks);
  m_.ops_per_sample = policy.iters;
  if (auto reason = comm.unsupported(c)) {
    m_.skipped = std::move(reason);
    return;
  }
  m_.buffer_sets = sets_for(c, nranks, policy);
  if (shared == nullptr) owned_ = comm.allocate(c, m_.buffer_sets);
  buffers_ = shared != nullptr ? shared : owned_.get();

  if (world.rank() == policy.hang_rank) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  comm.launch(c, *buffers_, policy.warmup_iters);
  wait_for(comm, policy);
  const bool batch = policy.timing == TimingMode::kBatch;
  comm.prepare(c, *buffers_, batch ? policy.iters : 1,
               batch ? policy.repetitions : policy.repetitions * policy.iters);
  m_.samples_seconds.reserve(static_cast<std::size_t>(policy.repetitions));
}

void Measurer::take_sample() {
  if (m_.skipped) return;
  m_.samples_seconds.push_back(
      op_seconds(m_.coll, timed_batch(comm_, world_, m_.coll, *buffers_, policy_)));
}

Measurement Measurer::finish() {
  if (m_.skipped) return m_;
  const Collective& c = m_.coll;
  // One reduction after timing, so no sample waits on another's bookkeeping.
  world_.max_over_ranks(m_.samples_seconds);
  m_.summary = summarize(m_.samples_seconds);
  m_.at_median = bandwidth(c, m_.nranks, m_.summary.median);

  if (policy_.check_rounds > 0) {
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

Measurement measure(Communicator& comm, const MpiWorld& world, const Collective& c,
                    const RunPolicy& policy) {
  Measurer measurer(comm, world, c, policy);
  for (int r = 0; r < policy.repetitions; ++r) measurer.take_sample();
  return measurer.finish();
}

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
  for (Communicator* comm : comms) {
    measurers.push_back(std::make_unique<Measurer>(*comm, world, c, policy, shared.get()));
  }
  // Samples in turns (A B C, A B C): drift over the run then hits every communicator alike.
  for (int r = 0; r < policy.repetitions; ++r) {
    for (auto& measurer : measurers) measurer->take_sample();
  }
  std::vector<Measurement> out;
  for (auto& measurer : measurers) out.push_back(measurer->finish());
  return out;
}

}  // namespace colltune
