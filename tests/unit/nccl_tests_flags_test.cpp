// nccl-tests' own flags on `colltune run`: those that run as they would there, those read
// colltune's way (-G N, -z, -C, -p, -J, -I, -K), and those refused with the reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "run_options_error.hpp"
#include "runner/run_options.hpp"

namespace colltune {
namespace {

TEST(RunOptions, NcclTestsCommandLinesRunUnchanged) {
  const RunOptions o = parse_run_options(
      {"--backend", "nccl", "-t", "1",    "-g", "1",  "-b", "1MB",     "-e", "0.5G", "-f", "2",
       "-n",        "30",   "-m", "1",    "-w", "2",  "-N", "1",       "-p", "0",    "-c", "1",
       "-o",        "max",  "-d", "half", "-r", "-1", "-z", "0",       "-y", "0",    "-T", "60",
       "-G",        "0",    "-C", "0",    "-S", "0",  "-a", "2",       "-R", "0",    "-M", "0",
       "-u",        "0",    "-I", "0",    "-K", "0",  "-J", "out.json"});
  EXPECT_EQ(o.min_bytes, 1u << 20);
  EXPECT_EQ(o.max_bytes, 512u << 20);
  EXPECT_EQ(o.policy.iters, 30);
  EXPECT_EQ(o.policy.warmup_iters, 2);
  EXPECT_EQ(o.dtypes, std::vector<DType>{DType::kHalf});
  EXPECT_EQ(o.ops, std::vector<ReduceOp>{ReduceOp::kMax});
  EXPECT_EQ(o.root, -1);
  EXPECT_EQ(o.policy.timing, TimingMode::kBatch);
  EXPECT_EQ(o.policy.span, TimeSpan::kCompletion);
  EXPECT_EQ(o.policy.rank_reduction, RankReduction::kMin);
  EXPECT_EQ(o.timeout_seconds, 60);
  EXPECT_FALSE(o.backend_options.graph);
  EXPECT_EQ(o.nccl_tests_json_path, "out.json");
  EXPECT_TRUE(o.notes.empty());
}

TEST(RunOptions, NcclTestsFlagsMapToColltunes) {
  const auto nccl = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"--backend", "nccl"});
    return parse_run_options(args);
  };
  EXPECT_EQ(nccl({"-z", "3"}).policy.timing, TimingMode::kPerOp);
  EXPECT_EQ(nccl({"-C", "1"}).policy.span, TimeSpan::kLaunch);
  EXPECT_TRUE(nccl({"-G"}).backend_options.graph);  // colltune's own form: no value
  EXPECT_TRUE(nccl({"-G", "1"}).backend_options.graph);
  EXPECT_TRUE(nccl({"--cudagraph", "1"}).backend_options.graph);
  const RunOptions ten = nccl({"-G", "10"});
  EXPECT_TRUE(ten.backend_options.graph);
  ASSERT_EQ(ten.notes.size(), 1u);
  EXPECT_NE(ten.notes[0].find("-G 10: each sample replays its captured batch once"),
            std::string::npos);
  EXPECT_EQ(nccl({"--ngpus", "4"}).backend_options.gpus, 4);
  ASSERT_EQ(nccl({"-p", "1"}).notes.size(), 1u);
  EXPECT_EQ(parse_run_options({"-G", "0"}).backend_options.graph, false);  // off: fine on MPI
  EXPECT_EQ(parse_run_options({"-C", "1"}).policy.span, TimeSpan::kLaunch);
}

// -I 1: nccl-tests' -n iterations, each timed alone, become -n samples of one op; -m ops with
// -m; every process's samples are kept for -J's per-process lists.
TEST(RunOptions, PerIterationTimingMakesEachIterationASample) {
  const RunOptions o = parse_run_options({"-I", "1", "-n", "50", "-K", "3", "-J", "o.json"});
  EXPECT_TRUE(o.per_iter_timing);
  EXPECT_EQ(o.per_iter_skip, 3);
  EXPECT_EQ(o.policy.repetitions, 50);
  EXPECT_EQ(o.policy.iters, 1);
  EXPECT_TRUE(o.policy.rank_samples);
  const RunOptions grouped =
      parse_run_options({"--backend", "nccl", "-I", "1", "-n", "8", "-m", "4"});
  EXPECT_EQ(grouped.policy.repetitions, 8);
  EXPECT_EQ(grouped.policy.iters, 4);
  const RunOptions off = parse_run_options({"-I", "0", "-K", "0"});
  EXPECT_FALSE(off.per_iter_timing);
  EXPECT_FALSE(off.policy.rank_samples);
  EXPECT_EQ(off.policy.iters, 20);
}

TEST(RunOptions, NcclTestsFlagsRefusedSayWhy) {
  EXPECT_EQ(error_of({"-z", "1"}),
            "-z/--blocking: '1' is not allowed; allowed: 0 (ops back to back, = --timing batch) "
            "or 3 (each op waited for, barrier outside the time, = --timing per-op); colltune "
            "does not time nccl-tests' 1 (a barrier inside the timed loop) or 2 (a wait without "
            "barrier)");
  EXPECT_EQ(error_of({"-z", "3", "--timing", "batch"}),
            "-z/--blocking: 3 means --timing per-op, but --timing batch was given; allowed: one "
            "of them");
  EXPECT_EQ(error_of({"-C", "2"}), "-C/--report_cputime: '2' is not allowed; allowed: 0 or 1");
  EXPECT_EQ(error_of({"-p", "yes"}), "-p/--parallel_init: 'yes' is not allowed; allowed: 0 or 1");
  EXPECT_EQ(error_of({"--backend", "nccl", "-G", "x"}),
            "-G/--graph: 'x' is not allowed; allowed: no value or 1 (on), 0 (off), or nccl-tests' "
            "launch count N >= 1");
  EXPECT_EQ(error_of({"-G", "1"}),
            "-G/--graph: an NCCL setting the MPI backend has no use for; allowed: --backend nccl, "
            "or leave it out");
  EXPECT_EQ(error_of({"-I", "2"}), "-I/--per_iter_timing: '2' is not allowed; allowed: 0 or 1");
  EXPECT_EQ(error_of({"-K", "2"}),
            "-K/--per_iter_skip: '2': it leaves iterations out of -I's summary; allowed: with -I "
            "1, or 0");
  EXPECT_EQ(error_of({"-I", "1", "-n", "10", "-K", "10"}),
            "-K/--per_iter_skip: '10' is not allowed; allowed: 0 to 9 (below -n/--iters 10)");
  EXPECT_EQ(error_of({"-I", "1", "-K", "-1"}),
            "-K/--per_iter_skip: '-1' is not allowed; allowed: 0 to 19 (below -n/--iters 20)");
  EXPECT_EQ(error_of({"--backend", "nccl", "-I", "1", "-G"}),
            "-I/--per_iter_timing: 1 times each iteration, and -G replays them as one graph; "
            "allowed: -I 1 without -G, as in nccl-tests");
  EXPECT_EQ(error_of({"-I", "1", "--repetitions", "5"}),
            "--repetitions: with -I 1 every one of -n/--iters iterations is a sample; allowed: -n "
            "N and no --repetitions");
  EXPECT_EQ(error_of({"-N", "0"}),
            "-N/--run_cycles: '0': colltune measures each size once per run; more samples: "
            "--repetitions N; allowed: 1 (nccl-tests' default), or leave it out");
  EXPECT_EQ(error_of({"-x", "0"}),
            "-x/--cta_policy: '0': colltune does not set ncclConfig_t.CTAPolicy yet (--min-ctas "
            "and --max-ctas it does); allowed: leave it out");
  EXPECT_EQ(error_of({"-J", "out.txt"}),
            "-J/--output_file: 'out.txt': nccl-tests writes its JSON only to a name ending in "
            ".json; allowed: FILE.json (colltune's own records: --json FILE)");
  EXPECT_EQ(error_of({"-J", "o.json", "--coll", "allreduce,alltoall"}),
            "-J/--output_file: nccl-tests' JSON holds one collective and one configuration per "
            "file, and this run measures 2 collectives; allowed: one --coll and no --interleave "
            "with -J (or --json FILE for colltune's records, which hold any mix)");
}

}  // namespace
}  // namespace colltune
