// The harness's own cost on its hot paths, to keep it far below what it measures.

#include <benchmark/benchmark.h>

#include <array>
#include <random>
#include <vector>

#include "core/stats.hpp"
#include "core/validation.hpp"
#include "store/record.hpp"
#include "tuner_plugin/tuned_rules.hpp"

namespace colltune {
namespace {

constexpr std::size_t kBufferBytes = 64ULL << 20;

Collective allreduce_64mib(ReduceOp op) {
  Collective c;
  c.kind = CollKind::kAllreduce;
  c.dtype = DType::kFloat;
  c.op = op;
  c.count = kBufferBytes / sizeof(float);
  return c;
}

void BM_Fill64MiB(benchmark::State& state) {
  const Collective c = allreduce_64mib(ReduceOp::kSum);
  const Pattern p(1, c.dtype, c.op, 4);
  std::vector<float> send(c.count), recv(c.count);
  for (auto _ : state) {
    fill_for(c, 4, 0, p, send.data(), recv.data());
    benchmark::DoNotOptimize(send.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBufferBytes));
}
BENCHMARK(BM_Fill64MiB)->Unit(benchmark::kMillisecond);

// Checking a reduction recomputes every rank's input: the cost grows with the rank count.
void BM_CheckAllreduce64MiB(benchmark::State& state) {
  const int nranks = static_cast<int>(state.range(0));
  const Collective c = allreduce_64mib(ReduceOp::kSum);
  const Pattern p(1, c.dtype, c.op, nranks);
  std::vector<float> recv(c.count);
  for (std::size_t i = 0; i < recv.size(); ++i) recv[i] = static_cast<float>(p.reduced(i));
  for (auto _ : state) {
    benchmark::DoNotOptimize(count_wrong_for(c, nranks, 0, p, recv.data()));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBufferBytes));
}
BENCHMARK(BM_CheckAllreduce64MiB)->Arg(2)->Arg(8)->Unit(benchmark::kMillisecond);

void BM_CheckAllgather64MiB(benchmark::State& state) {
  Collective c = allreduce_64mib(ReduceOp::kNone);
  c.kind = CollKind::kAllgather;
  c.count /= 4;
  const Pattern p(1, c.dtype, c.op, 4);
  std::vector<float> recv(c.count * 4);
  for (int src = 0; src < 4; ++src) fill_inputs(p, src, 0, recv.data() + src * c.count, c.count);
  for (auto _ : state) benchmark::DoNotOptimize(count_wrong_for(c, 4, 0, p, recv.data()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBufferBytes));
}
BENCHMARK(BM_CheckAllgather64MiB)->Unit(benchmark::kMillisecond);

void BM_Summarize100kSamples(benchmark::State& state) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(-9, 0.3);
  std::vector<double> samples(100'000);
  for (double& s : samples) s = dist(rng);
  for (auto _ : state) benchmark::DoNotOptimize(summarize(samples));
}
BENCHMARK(BM_Summarize100kSamples)->Unit(benchmark::kMillisecond);

void BM_WriteJsonRecord(benchmark::State& state) {
  Measurement m;
  m.coll = allreduce_64mib(ReduceOp::kSum);
  m.nranks = 16;
  m.samples_seconds.assign(20, 1.25e-3);
  m.summary = summarize(m.samples_seconds);
  m.wrong = 0;
  RunContext ctx;
  ctx.nranks = 16;
  for (int r = 0; r < 16; ++r)
    ctx.placement.push_back({r, "node-with-a-long-name", "0-7", "0-3", "0", 8, "", "", "", ""});
  for (int i = 0; i < 20; ++i) ctx.environment["NCCL_KNOB_" + std::to_string(i)] = "value";
  for (auto _ : state) {
    const std::string line = make_record(m, ctx).dump();
    benchmark::DoNotOptimize(line.data());
  }
}
BENCHMARK(BM_WriteJsonRecord)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace colltune

// The tuner plugin's work on every collective launch in NCCL's process: find the row (here the
// last of 32 for this communicator) and edit the float[7][3] cost table. Measured per call.
static void BM_TunerApplyRow(benchmark::State& state) {
  std::vector<colltune::TunedRow> rows;
  for (int i = 0; i < 32; ++i) {
    colltune::TunedRow r;
    r.collective = 4;
    r.min_bytes = static_cast<std::uint64_t>(i) * 1024;
    r.max_bytes = r.min_bytes + 1023;
    r.nnodes = 1;
    r.nranks = 8;
    r.algorithm = 1;
    rows.push_back(r);
  }
  std::array<float, 21> table{};
  int channels = 0;
  for (auto _ : state) {
    table.fill(1.0f);
    benchmark::DoNotOptimize(colltune::apply_rows(rows.data(), rows.size(), 4, 31 * 1024 + 5,
                                                  table.data(), 7, 3, &channels));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_TunerApplyRow)->Unit(benchmark::kNanosecond);
