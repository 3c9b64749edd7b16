#include "runner/run_options.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "run_options_error.hpp"

namespace colltune {
namespace {

TEST(RunOptions, DefaultsAreNcclTests) {
  const RunOptions o = parse_run_options({});
  EXPECT_EQ(o.min_bytes, 32u << 20);
  EXPECT_EQ(o.max_bytes, 32u << 20);
  EXPECT_EQ(o.policy.iters, 20);
  EXPECT_EQ(o.policy.check_rounds, 1);
  EXPECT_EQ(o.policy.timing, TimingMode::kBatch);
  EXPECT_EQ(o.colls, std::vector<CollKind>{CollKind::kAllreduce});
}

TEST(RunOptions, TheIssueExample) {
  const RunOptions o =
      parse_run_options({"--backend", "mpi", "--coll", "allreduce,alltoall,sendrecv", "-b", "8",
                         "-e", "64M", "-f", "2", "--check", "--json", "out.jsonl"});
  EXPECT_EQ(o.colls.size(), 3u);
  EXPECT_EQ(o.min_bytes, 8u);
  EXPECT_EQ(o.max_bytes, 64u << 20);
  EXPECT_EQ(o.step_factor, 2u);
  EXPECT_EQ(o.policy.check_rounds, 1);
  EXPECT_EQ(o.json_path, "out.jsonl");
}

TEST(RunOptions, AllExpands) {
  const RunOptions o = parse_run_options({"--coll", "all", "-d", "all", "-o", "all"});
  EXPECT_EQ(o.colls.size(), all_coll_kinds().size());
  EXPECT_EQ(o.dtypes.size(), 12u);
  EXPECT_EQ(o.ops.size(), 5u);
}

TEST(RunOptions, CheckTakesAnOptionalCount) {
  EXPECT_EQ(parse_run_options({"-c", "0"}).policy.check_rounds, 0);
  EXPECT_EQ(parse_run_options({"-c", "3"}).policy.check_rounds, 3);
  EXPECT_EQ(parse_run_options({"-c"}).policy.check_rounds, 1);
}

TEST(RunOptions, TimingCacheAndTimeout) {
  const RunOptions o =
      parse_run_options({"--timing", "per-op", "--cache", "cold", "--timeout", "2.5"});
  EXPECT_EQ(o.policy.timing, TimingMode::kPerOp);
  EXPECT_EQ(o.policy.cache, CacheMode::kCold);
  EXPECT_EQ(o.policy.sync_timeout.count(), 2500);
}

TEST(RunOptions, GpusPerProcessForGpuBackends) {
  const RunOptions o = parse_run_options({"--backend", "nccl", "-g", "8", "-G", "--device", "2"});
  EXPECT_EQ(o.backend_options.gpus, 8);
  EXPECT_TRUE(o.backend_options.graph);
  EXPECT_EQ(o.backend_options.device, 2);
  EXPECT_EQ(parse_run_options({}).backend_options.gpus, 1);
  const RunOptions m = parse_run_options({"--backend", "nccl", "-m", "4", "-n", "10", "-w", "2"});
  EXPECT_EQ(m.backend_options.aggregate, 4);
  EXPECT_EQ(m.policy.iters, 40);  // ops per sample: 10 iterations of 4 grouped ops
  EXPECT_EQ(m.policy.warmup_iters, 8);
}

TEST(RunOptions, ErrorsNameFlagValueAndWhatIsAllowed) {
  EXPECT_EQ(error_of({"-d", "int16"}),
            "-d/--datatype: 'int16' is not a datatype; allowed: int8 uint8 int32 uint32 int64 "
            "uint64 half float double bfloat16 f8e4m3 f8e5m2 all");
  EXPECT_EQ(error_of({"-o", "mean"}),
            "-o/--op: 'mean' is not a reduction op; allowed: sum prod max min avg all");
  EXPECT_EQ(error_of({"-m", "4"}),
            "-m/--agg_iters: 4 groups ops into one NCCL launch; allowed: 1, or --backend nccl "
            "with --timing batch");
  EXPECT_EQ(error_of({"--backend", "nccl", "-m", "4", "--timing", "per-op"}),
            "-m/--agg_iters: 4 groups ops into one NCCL launch; allowed: 1, or --backend nccl "
            "with --timing batch");
  EXPECT_EQ(error_of({"-g", "2"}),
            "-g/--gpus: 2 needs a GPU backend; allowed: 1 with --backend mpi, or --backend nccl");
  EXPECT_EQ(error_of({"--backend", "nccl", "-g", "0"}),
            "--gpus: Value 0 not in range 1 to 1024; see colltune run --help");
  EXPECT_EQ(error_of({"--coll", "allreduce,scan"}),
            "--coll: 'scan' is not a collective; allowed: allreduce alltoall allgather "
            "reduce_scatter broadcast reduce sendrecv pingpong bw bibw alltoallv gather scatter "
            "barrier all");
  EXPECT_EQ(error_of({"--coll", "alltoallv", "--exchange", "zipf:-1"}),
            "--exchange: 'zipf:-1' is not allowed; allowed: uniform, random[:RATIO] (max/min "
            "ratio >= 1, default 4), zipf[:S] (skew >= 0, default 1), hot[:K] (one rank gets K "
            ">= 1 times the others, default 4)");
  EXPECT_EQ(error_of({"--coll", "alltoallv", "--exchange", "pareto"}),
            "--exchange: 'pareto' is not an exchange pattern; allowed: uniform, random[:RATIO] "
            "(max/min ratio >= 1, default 4), zipf[:S] (skew >= 0, default 1), hot[:K] (one rank "
            "gets K >= 1 times the others, default 4)");
  EXPECT_EQ(error_of({"--coll", "alltoallv", "--exchange", "random:0.5"}).substr(0, 41),
            "--exchange: 'random:0.5' is not allowed; ");
  EXPECT_EQ(error_of({"--coll", "alltoallv", "--exchange", "uniform:2"}).substr(0, 41),
            "--exchange: 'uniform:2' is not allowed; a");
  EXPECT_EQ(error_of({"--coll", "alltoall", "--exchange", "hot:8"}),
            "--exchange: 'hot:8' shapes alltoallv's counts and this run measures no alltoallv; "
            "allowed: with --coll alltoallv");
  EXPECT_EQ(error_of({"--coll", "alltoallv", "--exchange-seed", "-3"}),
            "--exchange-seed: '-3' is not allowed; allowed: an integer from 0 to "
            "9223372036854775807");
  EXPECT_EQ(error_of({"-b", "12Q"}),
            "-b/--minbytes: '12Q' is not a size; allowed: a whole number of bytes, optionally with "
            "K, M or G (2^10, 2^20, 2^30; 1MB and 0.5K read as nccl-tests reads them)");
  EXPECT_EQ(error_of({"-b", "64M", "-e", "8M"}),
            "-b/--minbytes: 64M is larger than -e/--maxbytes 8M; the smallest size must not "
            "exceed the largest");
  EXPECT_EQ(error_of({"-n", "0"}),
            "-n/--iters: '0' is not allowed; allowed: an integer from 1 to 1000000");
  EXPECT_EQ(error_of({"-f", "1.5"}),
            "-f/--stepfactor: '1.5' is not allowed; allowed: an integer from 1 to 1048576");
  EXPECT_EQ(error_of({"--timing", "fast"}),
            "--timing: 'fast' is not a timing mode; allowed: batch per-op");
  EXPECT_EQ(error_of({"--cache", "hot"}), "--cache: 'hot' is not a cache mode; allowed: warm cold");
  EXPECT_EQ(error_of({"--timeout", "-1"}),
            "--timeout: '-1' is not allowed; allowed: seconds >= 0 (0 turns the limit off)");
  EXPECT_EQ(error_of({"--bogus"}),
            "--bogus: not a colltune run flag; allowed: the flags colltune run --help lists");
  // The first unexpected one is named (CLI11 listed them all, reversed), a typo gets its flag.
  EXPECT_EQ(error_of({"-n", "5", "--iter", "3", "--bogus"}),
            "--iter: not a colltune run flag (did you mean --iters?); allowed: the flags colltune "
            "run --help lists");
  EXPECT_EQ(error_of({"-t", "4"}),
            "-t/--nthreads: 4: colltune drives a process's GPUs from one thread (grouped NCCL "
            "calls); allowed: 1, and -g N for N GPUs per process");
  EXPECT_EQ(error_of({"-a", "mean"}), "no error");  // names are taken as well as the numbers
}

// Every flag of nccl-tests 2.19's usage text: accepted as there, mapped, or refused with why.
TEST(RunOptions, RootMustBeARank) {
  const RunOptions o = parse_run_options({"--coll", "broadcast", "-r", "4"});
  EXPECT_NO_THROW(check_against_world(o, 8));
  try {
    check_against_world(o, 4);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-r/--root: 4 is not a rank of this job; allowed: 0 to 3, or -1 for every rank");
  }
  // A root is irrelevant to collectives without one.
  EXPECT_NO_THROW(check_against_world(parse_run_options({"-r", "9"}), 2));
}

TEST(RunOptions, AlltoallvCountsMustFitMpiInts) {
  // hot:4 on 4 ranks: the hot rank gets 4/7 of every row of 2^30 int8 elements (613566756.57,
  // rounded up as the largest remainder), 4 x 613566757 = 2454267028 > 2^31 - 1.
  const RunOptions big = parse_run_options(
      {"--coll", "alltoallv", "--exchange", "hot:4", "-d", "int8", "-b", "1G", "-e", "1G"});
  try {
    check_against_world(big, 4);
    FAIL() << "an overflowing int count accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "-e/--maxbytes: 1073741824 of int8 with alltoallv hot:4 on 4 ranks puts "
                 "2454267028 elements in one rank's buffer; allowed: at most 2147483647 (MPI's "
                 "int counts and displacements)");
  }
  // Evenly spread, the same size is 2^30 elements per rank: within int.
  EXPECT_NO_THROW(check_against_world(
      parse_run_options({"--coll", "alltoallv", "-d", "int8", "-b", "1G", "-e", "1G"}), 4));
  // NCCL's counts are size_t.
  EXPECT_NO_THROW(check_against_world(
      parse_run_options({"--backend", "nccl", "--coll", "alltoallv", "--exchange", "hot:4", "-d",
                         "int8", "-b", "1G", "-e", "1G"}),
      4));
}

TEST(RunOptions, NcclInterleaveNeedsTwoRanks) {
  const RunOptions o =
      parse_run_options({"--backend", "nccl", "--interleave", "NCCL_ALGO=Ring,Tree"});
  EXPECT_NO_THROW(check_against_world(o, 2));
  try {
    check_against_world(o, 1);
    FAIL() << "one rank accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: 2 or more ranks"), std::string::npos);
  }
  // Open MPI parameters on one rank are a different matter: coll/tuned still runs (a no-op).
  EXPECT_NO_THROW(check_against_world(
      parse_run_options({"--interleave", "coll_tuned_allreduce_algorithm=1,2"}), 1));
}

TEST(RunOptions, InterleavingIsSeenBeforeTheFlagsAreParsed) {
  // MPI_T opens before MPI_Init only for runs that will write MPI_T variables.
  EXPECT_TRUE(names_interleave({"-b", "8", "--interleave", "coll_tuned_allreduce_algorithm=1,2"}));
  EXPECT_TRUE(names_interleave({"--interleave=coll_tuned_allreduce_algorithm=1,2"}));
  EXPECT_TRUE(names_interleave({"--interleave-set", "NCCL_ALGO=Ring"}));
  EXPECT_FALSE(names_interleave({"-b", "8", "-e", "1M", "--json", "interleave.jsonl"}));
}

TEST(RunOptions, InterleaveIsTheProductInFlagOrder) {
  const RunOptions o =
      parse_run_options({"--interleave", "OMPI_MCA_coll_tuned_allreduce_algorithm=4,default",
                         "--interleave", "coll_tuned_allreduce_algorithm_segmentsize=0,08192"});
  const std::vector<InProcessSettings> expected{
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"},
       {"OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize", "0"}},
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"},
       {"OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize", "8192"}},
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "default"},
       {"OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize", "0"}},
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "default"},
       {"OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize", "8192"}}};
  EXPECT_EQ(o.interleaved, expected);
  EXPECT_TRUE(parse_run_options({}).interleaved.empty());
}

// MPICH's algorithm variables take value names (the MPI says which, at the launch); Intel MPI's
// I_MPI_ADJUST_ is read at MPI_Init only, and knobs of two libraries never share a launch.
TEST(RunOptions, MpichAlgorithmsInterleaveByNameIntelsAreRefused) {
  const RunOptions o = parse_run_options(
      {"--interleave", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling,smp,default"});
  ASSERT_EQ(o.interleaved.size(), 3u);
  EXPECT_EQ(o.interleaved[1].at("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"), "smp");
  EXPECT_EQ(interleave_backend(o.interleaved), "mpi");
  EXPECT_NE(error_of({"--interleave", "I_MPI_ADJUST_ALLREDUCE=1,8"})
                .find("read by Intel MPI at MPI_Init only"),
            std::string::npos);
  EXPECT_NE(error_of({"--interleave", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=Ring"})
                .find("'Ring' is not allowed"),
            std::string::npos);
  EXPECT_NE(error_of({"--interleave-set",
                      "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=smp coll_tuned_bcast_algorithm=1"})
                .find("knobs of different libraries together"),
            std::string::npos);
  EXPECT_NE(error_of({"--interleave", "MPIR_CVAR_ASYNC_PROGRESS=1"})
                .find("not an MPICH algorithm variable"),
            std::string::npos);
}

TEST(RunOptions, InterleaveSetsAreTakenOneEachWithDefaultsFilledIn) {
  const RunOptions o = parse_run_options(
      {"--interleave-set", "OMPI_MCA_coll_tuned_allreduce_algorithm=default", "--interleave-set",
       "coll_tuned_allreduce_algorithm=3", "--interleave-set",
       "coll_tuned_alltoall_algorithm=2  coll_tuned_allreduce_algorithm=default"});
  const std::vector<InProcessSettings> expected{
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "default"},
       {"OMPI_MCA_coll_tuned_alltoall_algorithm", "default"}},
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "3"},
       {"OMPI_MCA_coll_tuned_alltoall_algorithm", "default"}},
      {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "default"},
       {"OMPI_MCA_coll_tuned_alltoall_algorithm", "2"}}};
  EXPECT_EQ(o.interleaved, expected);
}

TEST(RunOptions, InterleaveRejectsWhatMpiTCannotTake) {
  EXPECT_EQ(
      error_of({"--interleave", "coll_tuned_allreduce_algorithm"}),
      "--interleave: 'coll_tuned_allreduce_algorithm' is not NAME=V1,V2,...; allowed: an "
      "Open MPI parameter and its integer values, such as coll_tuned_allreduce_algorithm=1,2,4, "
      "an MPICH algorithm variable and its names, such as "
      "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring,smp, or NCCL_ALGO / NCCL_PROTO and their values, "
      "such as NCCL_ALGO=Ring,Tree");
  EXPECT_EQ(error_of({"--interleave", "Coll_Tuned=1"}).substr(0, 30),
            "--interleave: 'Coll_Tuned=1' i");
  EXPECT_EQ(error_of({"--interleave", "coll_tuned_allreduce_algorithm=1,ring"}),
            "--interleave coll_tuned_allreduce_algorithm: 'ring' is not allowed; allowed: a 32-bit "
            "integer, or default (the launch value)");
  EXPECT_EQ(error_of({"--interleave", "a=1", "--interleave", "OMPI_MCA_a=2"}),
            "--interleave: a is given twice; allowed: once per name");
  EXPECT_EQ(error_of({"--interleave", "a=1,2,3,4,5,6,7,8,9", "--interleave", "b=1,2,3,4,5,6,7,8"}),
            "--interleave: 72 settings; allowed: at most 64 in one launch (use a sweep)");
  EXPECT_EQ(error_of({"--interleave-set", "a=1", "--interleave-set", "a=01"}),
            "--interleave-set: 'a=01' is given twice; allowed: once each");
  EXPECT_EQ(error_of({"--interleave-set", "a=1 a=2"}),
            "--interleave-set: 'a=1 a=2' is not NAME=V NAME2=V2 ...; allowed: Open MPI "
            "parameters with an integer, or NCCL_ALGO / NCCL_PROTO with a list; each once, or "
            "default");
  EXPECT_EQ(error_of({"--interleave-set", " "}),
            "--interleave-set: ' ' names no parameter; allowed: NAME=V NAME2=V2 ...");
  EXPECT_EQ(error_of({"--interleave", "a=1", "--interleave-set", "a=2"}),
            "--interleave-set: given with --interleave; allowed: one of the two (the product of "
            "axes, or explicit settings)");
  EXPECT_EQ(error_of({"--backend", "nccl", "--interleave", "a=1"}),
            "--interleave: switches Open MPI parameters through MPI_T; allowed: with --backend "
            "mpi, not nccl");
}

TEST(Interleave, CanonicalValues) {
  const std::string knob = "OMPI_MCA_coll_tuned_allreduce_algorithm";
  EXPECT_EQ(canonical_in_process_value(knob, "007"), "7");
  EXPECT_EQ(canonical_in_process_value(knob, "-3"), "-3");
  EXPECT_EQ(canonical_in_process_value(knob, "default"), "default");
  EXPECT_EQ(canonical_in_process_value(knob, "2147483648"), std::nullopt);
  EXPECT_EQ(canonical_in_process_value(knob, "1.5"), std::nullopt);
  EXPECT_EQ(canonical_in_process_value(knob, ""), std::nullopt);
  EXPECT_EQ(canonical_in_process_value("NCCL_ALGO", "^Tree"), "^Tree");
  EXPECT_EQ(canonical_in_process_value("NCCL_ALGO", "allreduce:tree;broadcast:ring"),
            "allreduce:tree;broadcast:ring");
  EXPECT_EQ(canonical_in_process_value("NCCL_PROTO", "LL128"), "LL128");
  EXPECT_EQ(canonical_in_process_value("NCCL_PROTO", "Tree"), std::nullopt);
  EXPECT_EQ(canonical_in_process_value("NCCL_ALGO", ""), std::nullopt);
  EXPECT_EQ(canonical_in_process_value("NCCL_P2P_LEVEL", "NVL"), std::nullopt);
}

TEST(Interleave, NcclAlgoAndProtoAreSwitchedOnTheNcclBackend) {
  const RunOptions o =
      parse_run_options({"--backend", "nccl", "--interleave", "NCCL_ALGO=Ring,Tree,default",
                         "--interleave", "NCCL_PROTO=Simple"});
  const std::vector<InProcessSettings> expected{
      {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}},
      {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}},
      {{"NCCL_ALGO", "default"}, {"NCCL_PROTO", "Simple"}}};
  EXPECT_EQ(o.interleaved, expected);
  EXPECT_EQ(interleave_backend(o.interleaved), "nccl");
  // A list value (commas inside) goes through --interleave-set, which splits at spaces.
  EXPECT_EQ(
      parse_run_options({"--backend", "nccl", "--interleave-set", "NCCL_ALGO=^Ring,Tree",
                         "--interleave-set", "NCCL_PROTO=LL"})
          .interleaved,
      (std::vector<InProcessSettings>{{{"NCCL_ALGO", "^Ring,Tree"}, {"NCCL_PROTO", "default"}},
                                      {{"NCCL_ALGO", "default"}, {"NCCL_PROTO", "LL"}}}));
  EXPECT_EQ(error_of({"--interleave", "NCCL_ALGO=Ring"}),
            "--interleave: switches NCCL_ALGO / NCCL_PROTO at each NCCL communicator init; "
            "allowed: with --backend nccl, not mpi");
  EXPECT_EQ(
      error_of({"--backend", "nccl", "--interleave", "NCCL_ALGO=Ring,Rong"}),
      "--interleave NCCL_ALGO: 'Rong' is not allowed; allowed: a comma list of Ring Tree "
      "CollnetDirect CollnetChain NVLS NVLSTree PAT, optionally starting with ^ to exclude, "
      "or per collective as allreduce:ring;broadcast:^tree (allreduce broadcast reduce "
      "allgather reducescatter), after a first list for all (ring;allreduce:tree), or default "
      "(the launch value)");
  EXPECT_EQ(error_of({"--backend", "nccl", "--interleave", "NCCL_P2P_LEVEL=NVL,SYS"}),
            "--interleave: NCCL_P2P_LEVEL is read once per process by NCCL; allowed: NCCL_ALGO "
            "NCCL_PROTO (re-read at every communicator init); sweep NCCL_P2P_LEVEL as an axis, "
            "one launch per value");
  EXPECT_EQ(error_of({"--interleave-set", "NCCL_ALGO=Ring coll_tuned_allreduce_algorithm=1"}),
            "--interleave-set: knobs of different libraries together; allowed: one kind per "
            "launch (Open MPI parameters or MPICH algorithm variables with --backend mpi, "
            "NCCL_ALGO / NCCL_PROTO with --backend nccl)");
}

}  // namespace
}  // namespace colltune
