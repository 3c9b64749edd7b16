#include "runner/measure.hpp"

#include <algorithm>
#include <thread>

#include "core/bandwidth.hpp"
#include "core/validation.hpp"

namespace colltune {
namespace {

// A pingpong op is a round trip; its latency is half of it (OSU).
double op_seconds(const Collective& c, double seconds_per_launch) {
  return c.kind == CollKind::kPingpong ? seconds_per_launch / 2 : seconds_per_launch;
}

double timed_batch(Communicator& comm, const MpiWorld& world, const Collective& c, Buffers& buffers,
                   const RunPolicy& policy) {
  auto timer = comm.timer();
  if (policy.timing == TimingMode::kBatch) {
    world.barrier();
    timer->start();
    comm.launch(c, buffers, policy.iters);
    timer->stop();
    comm.synchronize(policy.sync_timeout);
    return timer->seconds() / policy.iters;
  }
  double total = 0;
  for (int i = 0; i < policy.iters; ++i) {
    world.barrier();
    timer->start();
    comm.launch(c, buffers, 1);
    timer->stop();
    comm.synchronize(policy.sync_timeout);
    total += timer->seconds();
  }
  return total / policy.iters;
}

}  // namespace

std::size_t rotation_sets(std::uint64_t set_bytes, const RunPolicy& policy) {
  if (policy.cache == CacheMode::kWarm || set_bytes == 0) return 1;
  const std::uint64_t sets = (policy.cold_footprint_bytes + set_bytes - 1) / set_bytes;
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(sets, 1, 4096));
}

Measurement measure(Communicator& comm, const MpiWorld& world, const Collective& c,
                    const RunPolicy& policy) {
  const int nranks = comm.nranks();
  Measurement m;
  m.coll = c;
  m.nranks = nranks;
  m.bytes = op_bytes(c, nranks);
  m.ops_per_sample = policy.iters;
  if (auto reason = comm.unsupported(c)) {
    m.skipped = std::move(reason);
    return m;
  }
  const BufferCounts counts = buffer_counts(c, nranks);
  const std::uint64_t set_bytes = (counts.send + counts.recv) * element_bytes(c.dtype);
  m.buffer_sets = rotation_sets(set_bytes, policy);
  auto buffers = comm.allocate(c, m.buffer_sets);

  if (world.rank() == policy.hang_rank) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  comm.launch(c, *buffers, policy.warmup_iters);
  comm.synchronize(policy.sync_timeout);
  const bool batch = policy.timing == TimingMode::kBatch;
  comm.prepare(c, *buffers, batch ? policy.iters : 1,
               batch ? policy.repetitions : policy.repetitions * policy.iters);

  m.samples_seconds.reserve(static_cast<std::size_t>(policy.repetitions));
  for (int r = 0; r < policy.repetitions; ++r) {
    m.samples_seconds.push_back(op_seconds(c, timed_batch(comm, world, c, *buffers, policy)));
  }
  // One reduction after timing, so no sample waits on another's bookkeeping.
  world.max_over_ranks(m.samples_seconds);
  m.summary = summarize(m.samples_seconds);
  m.at_median = bandwidth(c, nranks, m.summary.median);

  if (policy.check_rounds > 0) {
    const Pattern pattern(policy.seed, c.dtype, is_reduction(c.kind) ? c.op : ReduceOp::kNone,
                          nranks);
    std::uint64_t wrong = 0;
    for (int round = 0; round < policy.check_rounds; ++round) {
      comm.fill(c, *buffers, pattern);
      comm.prepare(c, *buffers, 1, 1);  // the checked op runs as the timed ones do (-G)
      world.barrier();
      comm.launch(c, *buffers, 1);
      comm.synchronize(policy.sync_timeout);
      wrong += comm.check(c, *buffers, pattern, policy.corrupt_one);
    }
    m.wrong = world.sum_over_ranks(wrong);
  }
  return m;
}

}  // namespace colltune
