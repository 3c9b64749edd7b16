#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "sweep/launch.hpp"

namespace colltune {
namespace {

Point only_point(const SweepSpec& spec) {
  const auto points = expand(spec);
  EXPECT_EQ(points.size(), 1u);
  return points.at(0);
}

TEST(Launch, MpirunArgvPassesEnvironmentByName) {
  const SweepSpec spec = parse_spec(R"(
launcher_args: [--oversubscribe]
hosts: [n1, n2, n3]
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, max_bytes: 1M}
axes:
  np: 4
  nodes: 2
  ranks_per_node: 2
  bind_to: core
  OMPI_MCA_coll_tuned_allreduce_algorithm: 3
baseline: {OMPI_MCA_coll_tuned_allreduce_algorithm: 3}
)",
                                    "s.yaml");
  const Launch l = build_launch(spec, only_point(spec), "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(l.argv, (std::vector<std::string>{"mpirun",
                                              "-np",
                                              "4",
                                              "--host",
                                              "n1:2,n2:2",
                                              "--map-by",
                                              "ppr:2:node",
                                              "--bind-to",
                                              "core",
                                              "--oversubscribe",
                                              "-x",
                                              "OMPI_MCA_coll_tuned_allreduce_algorithm",
                                              "-x",
                                              "OMPI_MCA_coll_tuned_use_dynamic_rules",
                                              "/bin/colltune",
                                              "run",
                                              "--coll",
                                              "allreduce",
                                              "-e",
                                              "1M",
                                              "--backend",
                                              "mpi",
                                              "--json",
                                              "/r/x.jsonl"}));
  EXPECT_EQ(l.env.at("OMPI_MCA_coll_tuned_allreduce_algorithm"), "3");
  EXPECT_EQ(l.env.at("OMPI_MCA_coll_tuned_use_dynamic_rules"), "1");
}

TEST(Launch, SrunArgv) {
  const SweepSpec spec = parse_spec(R"(
launcher: srun
axes:
  np: 16
  nodes: 2
  ranks_per_node: 8
  bind_to: core
  map_by: node
  NCCL_ALGO: "allreduce:tree,ring"
baseline: {NCCL_ALGO: "allreduce:tree,ring"}
)",
                                    "s.yaml");
  const Launch l = build_launch(spec, only_point(spec), "colltune", "x.jsonl");
  EXPECT_EQ(l.argv, (std::vector<std::string>{
                        "srun", "--ntasks=16", "--nodes=2", "--ntasks-per-node=8",
                        "--cpu-bind=cores", "--distribution=cyclic", "--export=ALL,NCCL_ALGO",
                        "colltune", "run", "--backend", "mpi", "--json", "x.jsonl"}));
  // The value with its comma travels in srun's environment, not inside --export.
  EXPECT_EQ(l.env.at("NCCL_ALGO"), "allreduce:tree,ring");
}

TEST(Launch, RawLauncherArgsAxis) {
  const SweepSpec spec = parse_spec(R"(
axes:
  launcher_args: [[--mca, btl, "self,tcp"]]
)",
                                    "s.yaml");
  const Point p = only_point(spec);
  EXPECT_EQ(p.label, "backend=mpi launcher_args=[--mca btl self,tcp]");
  const Launch l = build_launch(spec, p, "c", "x");
  EXPECT_EQ(std::vector<std::string>(l.argv.begin() + 3, l.argv.begin() + 6),
            (std::vector<std::string>{"--mca", "btl", "self,tcp"}));
}

TEST(Launch, MeaninglessSettingsAreErrors) {
  const SweepSpec srun = parse_spec("launcher: srun\naxes:\n  rank_by: core\n", "s.yaml");
  EXPECT_THROW(build_launch(srun, only_point(srun), "c", "x"), ConfigError);
  const SweepSpec nodes = parse_spec("axes:\n  nodes: 2\n", "s.yaml");
  EXPECT_THROW(build_launch(nodes, only_point(nodes), "c", "x"), ConfigError);
  EXPECT_THROW(parse_spec("launcher: local\naxes:\n  np: [1, 2]\n", "s.yaml"), ConfigError);
}

TEST(Launch, SbatchScript) {
  const SweepSpec spec = parse_spec(R"(
name: p2p
launcher: srun
point_timeout_seconds: 90
repetitions: 2
axes:
  np: [8, 16]
  nodes: 2
  NCCL_P2P_LEVEL: [NVL, SYS]
)",
                                    "s.yaml");
  const std::string script =
      sbatch_script(spec, expand(spec), "/opt/colltune", "/home/u/p2p.yaml", "/home/u/results");
  EXPECT_NE(script.find("#SBATCH --job-name=colltune-p2p\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --nodes=2\n#SBATCH --ntasks=16\n"), std::string::npos);
  // 6 points (2 baselines), each its own launch, x 2 rounds x 90 s + 60 s = 19 minutes.
  EXPECT_NE(script.find("#SBATCH --time=0:19:00\n"), std::string::npos);
  EXPECT_NE(script.find("#SBATCH --exclusive\n"), std::string::npos);
  // Points sharing a launch count once; exclusive: false drops --exclusive.
  const SweepSpec shared = parse_spec(R"(
name: shared
exclusive: false
point_timeout_seconds: 60
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
interleave: [OMPI_MCA_coll_tuned_allreduce_algorithm]
axes:
  np: 2
  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2, 3, 4, 5, 6]
)",
                                      "s.yaml");
  const std::string one = sbatch_script(shared, expand(shared), "/c", "", "/r");
  EXPECT_NE(one.find("#SBATCH --time=0:02:00\n"), std::string::npos) << one;  // 60 s + 60 s
  EXPECT_EQ(one.find("--exclusive"), std::string::npos);
  EXPECT_NE(script.find("exec /opt/colltune sweep /home/u/p2p.yaml --results /home/u/results\n"),
            std::string::npos);
}

// np comes from nodes x ranks_per_node when not given; a contradiction is refused.
TEST(Launch, RanksFromNodesTimesRanksPerNode) {
  const SweepSpec spec =
      parse_spec("launcher: srun\naxes:\n  nodes: [1, 2]\n  ranks_per_node: [4]\n", "s.yaml");
  const auto points = expand(spec);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(ranks_of(spec, points[0].settings), "4");
  EXPECT_EQ(ranks_of(spec, points[1].settings), "8");
  const Launch launch = build_launch(spec, points[1], "/c", "/r.jsonl");
  EXPECT_EQ(launch.argv[1], "--ntasks=8");
  try {
    expand(parse_spec("axes:\n  np: 16\n  nodes: 2\n  ranks_per_node: 4\n", "s.yaml"));
    ADD_FAILURE() << "np 16 with 2 x 4 accepted";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "axes: np 16 with nodes 2 x ranks_per_node 4 = 8; allowed: np equal to nodes x "
                 "ranks_per_node, or np left out (it is derived)");
  }
}

TEST(Launch, ShellQuoteForDisplay) {
  // A newline must not split a pasted launch: ANSI-C quoting keeps it one line.
  EXPECT_EQ(shell_quote("a\nb'c\\"), "$'a\\nb\\'c\\\\'");
  EXPECT_EQ(shell_quote("plain-1.0"), "plain-1.0");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

// A run-flag axis becomes its flag after the run's own arguments; unset, it is left out (the
// run's default, uniform) and never passed through the environment.
TEST(Launch, ExchangeAxisBecomesRunFlags) {
  const SweepSpec spec = parse_spec(R"(
benchmark: {collectives: alltoallv}
axes:
  exchange: [hot:4]
  exchange_seed: 9
)",
                                    "s.yaml");
  const auto points = expand(spec);
  ASSERT_EQ(points.size(), 2u);  // the baseline (nothing set) and hot:4 with seed 9
  const Launch base = build_launch(spec, points[0], "c", "x");
  const Launch hot = build_launch(spec, points[1], "c", "x");
  const auto tail = [](const Launch& l) {
    return std::vector<std::string>(l.argv.end() - 4, l.argv.end());
  };
  EXPECT_EQ(tail(hot), (std::vector<std::string>{"--exchange", "hot:4", "--exchange-seed", "9"}));
  EXPECT_EQ(std::count(base.argv.begin(), base.argv.end(), "--exchange"), 0);
  EXPECT_EQ(hot.env.count("exchange"), 0u);
}

}  // namespace
}  // namespace colltune
