// The harness's own cost on its hot paths, to keep it far below what it measures.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/stats.hpp"
#include "core/validation.hpp"
#include "store/record.hpp"

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
