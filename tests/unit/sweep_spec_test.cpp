#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.hpp"
#include "knobs/knobs.hpp"
#include "sweep/expand.hpp"
#include "sweep/spec.hpp"

namespace colltune {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_spec(yaml, "s.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepSpec, DefaultsAndBenchmarkFlags) {
  const SweepSpec s = parse_spec(
      "name: t\nbenchmark:\n  collectives: [allreduce, alltoall]\n  min_bytes: 8\n  samples: 5\n",
      "s.yaml");
  EXPECT_EQ(s.launcher, LauncherKind::kMpirun);
  EXPECT_EQ(s.repetitions, 1);
  EXPECT_EQ(s.run_args, (std::vector<std::string>{"--coll", "allreduce,alltoall", "-b", "8",
                                                  "--repetitions", "5"}));
  ASSERT_EQ(s.axes.size(), 1u);
  EXPECT_EQ(s.axes[0].key, "backend");
}

TEST(SweepSpec, GpuBenchmarkKeys) {
  const SweepSpec s = parse_spec(
      "benchmark:\n  backends: [nccl]\n  gpus: 4\n  graph: true\n  min_ctas: 2\n"
      "  net_name: IB\n",
      "s.yaml");
  EXPECT_EQ(s.run_args,
            (std::vector<std::string>{"-g", "4", "-G", "--min-ctas", "2", "--net-name", "IB"}));
  EXPECT_TRUE(parse_spec("benchmark:\n  graph: false\n", "s.yaml").run_args.empty());
  EXPECT_EQ(error_of("benchmark:\n  graph: maybe\n"),
            "s.yaml:2:10: benchmark.graph: 'maybe' is not allowed; allowed: true false");
}

TEST(SweepSpec, UnknownKeysSuggestTheNearest) {
  EXPECT_EQ(error_of("name: t\nrepetitons: 3\n"),
            "s.yaml:2:1: repetitons: unknown key (did you mean 'repetitions'?); allowed: name "
            "launcher launcher_args mpi_family hosts hostfile repetitions point_timeout_seconds "
            "colltune env mpis "
            "benchmark axes include exclude baseline interleave race exclusive");
  EXPECT_EQ(error_of("benchmark:\n  colectives: [allreduce]\n").substr(0, 70),
            "s.yaml:2:3: benchmark.colectives: unknown key (did you mean 'collectiv");
  EXPECT_EQ(error_of("axes:\n  bind_too: [core]\n").substr(0, 65),
            "s.yaml:2:3: axes.bind_too: unknown key (did you mean 'bind_to'?);");
}

TEST(SweepSpec, WrongTypesEmptyAxesAndNegativeLimits) {
  EXPECT_EQ(error_of("repetitions: [1, 2]\n"),
            "s.yaml:1:14: repetitions: expected a single value, not a list or mapping");
  EXPECT_EQ(error_of("repetitions: two\n"),
            "s.yaml:1:14: repetitions: 'two' is not allowed; allowed: an integer from 1 to 1000");
  EXPECT_EQ(error_of("axes:\n  np: []\n"),
            "s.yaml:2:7: axes.np: [] is empty; allowed: a non-empty list of values");
  EXPECT_EQ(error_of("point_timeout_seconds: -5\n"),
            "s.yaml:1:24: point_timeout_seconds: '-5' is not allowed; allowed: a number of "
            "seconds > 0");
  EXPECT_EQ(error_of("launcher: slurm\n"),
            "s.yaml:1:11: launcher: 'slurm' is not allowed; allowed: mpirun mpiexec srun local");
  EXPECT_EQ(error_of("axes: [1, 2]\n"),
            "s.yaml:1:7: axes: expected a mapping of axis to a list of values");
  EXPECT_EQ(error_of("name: [\n").substr(0, 26), "s.yaml:2:1: not valid YAML");
}

TEST(SweepSpec, KnobValuesAreChecked) {
  EXPECT_EQ(error_of("axes:\n  NCCL_P2P_LEVEL: [NVL, NVLINK]\n"),
            "s.yaml:2:25: axes.NCCL_P2P_LEVEL: 'NVLINK' is not allowed; allowed: LOC NVL PIX PXB "
            "PHB SYS, or the legacy 0 to 4");
  EXPECT_EQ(error_of("axes:\n  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 7]\n"),
            "s.yaml:2:48: axes.OMPI_MCA_coll_tuned_allreduce_algorithm: '7' is not allowed; "
            "allowed: an integer from 0 to 6");
  EXPECT_EQ(error_of("axes:\n  NCCL_NTHREADS: [96]\n"),
            "s.yaml:2:19: axes.NCCL_NTHREADS: '96' is not allowed; allowed: 64 128 256 512");
  EXPECT_EQ(error_of("axes:\n  bind_to: [cores]\n").substr(0, 60),
            "s.yaml:2:13: axes.bind_to: 'cores' is not allowed; allowed: ");
  EXPECT_EQ(error_of("env:\n  NCCL_MAX_CTAS: 65\n"),
            "s.yaml:2:18: env.NCCL_MAX_CTAS: '65' is not allowed; allowed: an integer from 1 to "
            "64");
}

TEST(Knobs, NcclAlgoAndProtoGrammar) {
  for (const char* ok :
       {"Ring", "ring,tree", "^NVLS", "allreduce:tree;broadcast:ring", "allreduce:^ring,tree",
        "PAT", "ring;allreduce:tree", "^nvls;allgather:ring,pat;ReduceScatter:ring"}) {
    EXPECT_FALSE(check_knob("NCCL_ALGO", ok).has_value()) << ok;
  }
  // NCCL's parseList: only the first entry may be bare ("ring;tree" and
  // "allreduce:tree;ring" are ncclInvalidUsage there).
  for (const char* bad : {"", "Rings", "allreduce:", "alltoall:ring", "ring;tree", "^",
                          "allreduce:tree;ring", "ring;allreduce:rings"}) {
    EXPECT_TRUE(check_knob("NCCL_ALGO", bad).has_value()) << bad;
  }
  EXPECT_FALSE(check_knob("NCCL_PROTO", "LL128,Simple").has_value());
  EXPECT_TRUE(check_knob("NCCL_PROTO", "LL256").has_value());
  EXPECT_FALSE(check_knob("NCCL_P2P_LEVEL", "3").has_value());
  EXPECT_TRUE(check_knob("NCCL_P2P_LEVEL", "5").has_value());
  EXPECT_FALSE(check_knob("OMPI_MCA_coll_tuned_alltoall_algorithm", "5").has_value());
  EXPECT_TRUE(check_knob("OMPI_MCA_coll_tuned_alltoall_algorithm", "6").has_value());
  EXPECT_FALSE(check_knob("SOMETHING_ELSE", "anything").has_value());
  EXPECT_FALSE(is_known_knob("SOMETHING_ELSE"));
}

TEST(Knobs, PlacementPolicies) {
  for (const char* ok : {"slot", "core", "ppr:4:node", "ppr:2:socket:PE=4", "numa:SPAN", "node"}) {
    EXPECT_FALSE(check_map_by(ok).has_value()) << ok;
  }
  EXPECT_TRUE(check_map_by("ppr:x:node").has_value());
  EXPECT_FALSE(check_bind_to("core:overload-allowed").has_value());
  EXPECT_TRUE(check_bind_to("cpu").has_value());
  EXPECT_FALSE(check_rank_by("core:span").has_value());
}

TEST(SweepSpec, UnknownVariablesPassWithANote) {
  const SweepSpec s = parse_spec("axes:\n  UCX_TLS: [rc, ud]\n", "s.yaml");
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_EQ(s.notes[0],
            "UCX_TLS is not a knob colltune knows; its values are passed through unchecked");
}

const char* kAlgorithms = R"(
axes:
  np: [2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2, 3]
)";

TEST(Expand, ProductInSpecOrderWithABaselinePerGroup) {
  const auto points = expand(parse_spec(kAlgorithms, "s.yaml"));
  ASSERT_EQ(points.size(), 8u);  // per np: baseline (no knob) + 3 algorithms
  EXPECT_TRUE(points[0].baseline);
  EXPECT_EQ(points[0].label, "backend=mpi np=2 (no knob set)");
  EXPECT_EQ(points[1].label, "backend=mpi np=2 OMPI_MCA_coll_tuned_allreduce_algorithm=1");
  EXPECT_FALSE(points[1].baseline);
  EXPECT_TRUE(points[4].baseline);
  EXPECT_EQ(points[4].settings.at("np"), "4");
}

TEST(Expand, IdsComeFromSettingsAlone) {
  const auto a = expand(parse_spec(kAlgorithms, "a.yaml"));
  const auto b =
      expand(parse_spec(std::string(kAlgorithms) + "repetitions: 3\nname: other\n", "b.yaml"));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
  // Fixed forever: stores written today must resume and compare with tomorrow's colltune. The
  // oracle: FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3) of "backend=mpi\nnp=2\n",
  // computed with a five-line Python loop outside colltune.
  EXPECT_EQ(point_id({{"backend", "mpi"}, {"np", "2"}}), "46c8ad0fd99d03b5");
}

TEST(Expand, IncludeAndExcludeCutTheProduct) {
  const auto points = expand(parse_spec(R"(
axes:
  np: [2, 4]
  A_KNOB: [null, x, y]
  B_KNOB: [null, u]
include:
  - {A_KNOB: null}
  - {B_KNOB: null}
exclude:
  - {np: 4, A_KNOB: y}
baseline: {}
)",
                                        "s.yaml"));
  std::vector<std::string> labels;
  for (const auto& p : points) labels.push_back(p.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"backend=mpi np=2 (no knob set)", "backend=mpi np=2 B_KNOB=u",
                                      "backend=mpi np=2 A_KNOB=x", "backend=mpi np=2 A_KNOB=y",
                                      "backend=mpi np=4 (no knob set)", "backend=mpi np=4 B_KNOB=u",
                                      "backend=mpi np=4 A_KNOB=x"}));
  EXPECT_TRUE(points[0].baseline);
  EXPECT_EQ(std::count_if(points.begin(), points.end(), [](const Point& p) { return p.baseline; }),
            2);
}

TEST(Expand, ExplicitBaseline) {
  const auto points = expand(parse_spec(R"(
axes:
  OMPI_MCA_coll_tuned_allreduce_algorithm: [2, 4]
baseline: {OMPI_MCA_coll_tuned_allreduce_algorithm: 4}
)",
                                        "s.yaml"));
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0].baseline);
  EXPECT_TRUE(points[1].baseline);
}

TEST(Expand, RulesMustNameAxes) {
  EXPECT_EQ(error_of("axes:\n  np: [2]\nexclude:\n  - {nq: 2}\n").substr(0, 75),
            "s.yaml:4:6: exclude.nq: not an axis of this spec (did you mean 'np'?); allo");
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

TEST(Expand, PlacementBaselineMarksMatchingPoints) {
  const auto points = expand(parse_spec(R"(
axes:
  map_by: [core, null]
  bind_to: [core, none]
include:
  - {map_by: core, bind_to: core}
  - {map_by: null, bind_to: none}
baseline: {bind_to: none}
)",
                                        "s.yaml"));
  ASSERT_EQ(points.size(), 2u);  // nothing added
  EXPECT_FALSE(points[0].baseline);
  EXPECT_TRUE(points[1].baseline);
  EXPECT_EQ(points[1].label, "backend=mpi bind_to=none");
}

TEST(SweepSpec, InterleaveNamesOmpiAxesWithIntegerValuesOrNcclAlgoAndProto) {
  const std::string base =
      "env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}\n"
      "axes: {OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2], NCCL_ALGO: [Ring, '^Tree'], "
      "OMPI_MCA_btl: [self, tcp], NCCL_P2P_LEVEL: [NVL]}\n";
  EXPECT_EQ(error_of(base + "interleave: [NCCL_P2P_LEVEL]"),
            "s.yaml:3:13: interleave: 'NCCL_P2P_LEVEL' is not allowed; allowed: OMPI_MCA_ axes "
            "of this spec (MPI_T switches them inside one launch), its MPICH algorithm axes "
            "(MPIR_CVAR_<COLL>_INTRA_ALGORITHM, read at every call), or its NCCL_ALGO / "
            "NCCL_PROTO axes (set at each NCCL communicator init); each once");
  EXPECT_EQ(error_of(base + "interleave: OMPI_MCA_coll_tuned_alltoall_algorithm").substr(0, 82),
            "s.yaml:3:13: interleave: 'OMPI_MCA_coll_tuned_alltoall_algorithm' is not allowed; ");
  EXPECT_EQ(error_of(base + "interleave: [OMPI_MCA_btl]"),
            "s.yaml:3:13: interleave: OMPI_MCA_btl has the value 'self'; allowed: integers and "
            "null");
  EXPECT_EQ(error_of(base + "interleave: [NCCL_ALGO, OMPI_MCA_coll_tuned_allreduce_algorithm]"),
            "s.yaml:3:13: interleave: NCCL_ALGO and OMPI_MCA_coll_tuned_allreduce_algorithm are "
            "switched by different libraries; allowed: axes of one kind (OMPI_MCA_, MPIR_CVAR_ or "
            "NCCL)");
  EXPECT_EQ(error_of("axes: {MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM: [ring, Smp]}\n"
                     "interleave: MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"),
            "s.yaml:1:52: axes.MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM: 'Smp' is not allowed; "
            "allowed: an algorithm name of this MPICH, such as ring (colltune topo "
            "--list-algorithms lists them)");
  EXPECT_EQ(error_of("axes: {OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2]}\n"
                     "interleave: OMPI_MCA_coll_tuned_allreduce_algorithm"),
            "s.yaml:2:13: interleave: OMPI_MCA_coll_tuned_allreduce_algorithm needs env: "
            "OMPI_MCA_coll_tuned_use_dynamic_rules: 1 (MPI_T cannot set it)");
  EXPECT_EQ(
      parse_spec(base + "interleave: OMPI_MCA_coll_tuned_allreduce_algorithm", "s.yaml").interleave,
      std::vector<std::string>{"OMPI_MCA_coll_tuned_allreduce_algorithm"});
  EXPECT_EQ(parse_spec(base + "interleave: NCCL_ALGO", "s.yaml").interleave,
            std::vector<std::string>{"NCCL_ALGO"});
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

constexpr const char* kSkew = R"(benchmark: {collectives: alltoallv}
axes:
  np: [2, 4]
  exchange: [zipf:1, "hot:4"]
)";

// exchange is compared like a knob: per np one uniform baseline (exchange unset) and the two
// patterns, not a group of its own per pattern.
TEST(Expand, ExchangeAxisIsComparedAgainstTheUniformBaseline) {
  const auto points = expand(parse_spec(kSkew, "s.yaml"));
  ASSERT_EQ(points.size(), 6u);
  EXPECT_TRUE(points[0].baseline);
  EXPECT_EQ(points[0].label, "backend=mpi np=2 (no knob set)");
  EXPECT_EQ(points[0].settings.count("exchange"), 0u);
  EXPECT_EQ(points[1].label, "backend=mpi np=2 exchange=zipf:1");
  EXPECT_FALSE(points[1].baseline);
  EXPECT_FALSE(points[2].baseline);
  EXPECT_TRUE(points[3].baseline);
}

TEST(SweepSpec, ExchangeValuesAreCheckedAndGivenOnce) {
  EXPECT_EQ(error_of("axes:\n  exchange: [zipf:1, zipf:-2]\n"),
            "s.yaml:2:22: axes.exchange: 'zipf:-2' is not allowed; allowed: uniform, "
            "random[:RATIO] (max/min ratio >= 1, default 4), zipf[:S] (skew >= 0, default 1), "
            "hot[:K] (one rank gets K >= 1 times the others, default 4)");
  EXPECT_EQ(error_of("axes:\n  exchange_seed: [1, x]\n"),
            "s.yaml:2:22: axes.exchange_seed: 'x' is not allowed; allowed: an integer from 0 to "
            "9223372036854775807");
  EXPECT_EQ(error_of("benchmark: {exchange: zipf:1}\naxes:\n  exchange: [hot:2]\n"),
            "s.yaml:3:3: axes.exchange: also given as benchmark.exchange; give it once");
  const SweepSpec s = parse_spec("benchmark: {exchange: zipf:0.5, buffers: device}\n", "s.yaml");
  EXPECT_EQ(s.run_args,
            (std::vector<std::string>{"--buffers", "device", "--exchange", "zipf:0.5"}));
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

// Five axes of 50 values once took 3.6 GB and 9.6 s to end in bad_alloc: the count (312.5
// million, 50^5 by hand) is refused before one point is built, naming the limit's flag.
TEST(Expand, ACountAboveTheLimitIsRefusedBeforeBuilding) {
  std::string yaml = "axes:\n";
  for (const char* knob : {"NCCL_A", "NCCL_B", "NCCL_C", "NCCL_D", "NCCL_E"}) {
    yaml += fmt::format("  {}: [", knob);
    for (int v = 1; v <= 50; ++v) yaml += fmt::format("{}{}", v == 1 ? "" : ", ", v);
    yaml += "]\n";
  }
  EXPECT_EQ(product_size(parse_spec(yaml, "s.yaml")), 312500000u);
  // Refused at the default limit of 10,000 with 10^5 points (small enough that a missing check
  // fails this test instead of exhausting the machine's memory).
  std::string smaller = "axes:\n";
  for (const char* knob : {"NCCL_A", "NCCL_B", "NCCL_C", "NCCL_D", "NCCL_E"})
    smaller += fmt::format("  {}: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n", knob);
  const SweepSpec spec = parse_spec(smaller, "s.yaml");
  try {
    expand(spec);
    FAIL() << "100000 points were accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("100000 points (1 x 10 x 10 x 10 x 10 x 10)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-points"), std::string::npos) << e.what();
  }
  // 3 x 4 x 5 = 60 by hand; with room for them, each is built once, plus the baseline.
  const SweepSpec three = parse_spec(
      "axes:\n  NCCL_A: [1, 2, 3]\n  NCCL_B: [1, 2, 3, 4]\n  NCCL_C: [1, 2, 3, 4, 5]\n", "s.yaml");
  EXPECT_THROW(expand(three, 59), ConfigError);
  EXPECT_EQ(expand(three, 60).size(), 61u);
}

// A value given twice on an axis is one point (run once), and a baseline the product already
// holds is marked, not added again: 2 np values x 2 distinct algorithms = 4 points, by hand.
TEST(Expand, RepeatedValuesAreOnePointAndAHeldBaselineIsNotAdded) {
  const auto points = expand(parse_spec(R"(
axes:
  np: [2, 2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [3, 4, 3]
baseline: {OMPI_MCA_coll_tuned_allreduce_algorithm: 4}
)",
                                        "s.yaml"));
  std::vector<std::string> ids;
  for (const Point& p : points) ids.push_back(p.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(std::count_if(points.begin(), points.end(), [](const Point& p) { return p.baseline; }),
            2);
  EXPECT_TRUE(points[1].baseline);
  EXPECT_EQ(points[1].settings.at("OMPI_MCA_coll_tuned_allreduce_algorithm"), "4");
}

}  // namespace
}  // namespace colltune
