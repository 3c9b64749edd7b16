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
  // 6 points (2 baselines) x 2 rounds x 90 s = 18 minutes.
  EXPECT_NE(script.find("#SBATCH --time=0:18:00\n"), std::string::npos);
  EXPECT_NE(script.find("exec /opt/colltune sweep /home/u/p2p.yaml --results /home/u/results\n"),
            std::string::npos);
}

TEST(Launch, ShellQuoteForDisplay) {
  EXPECT_EQ(shell_quote("plain-1.0"), "plain-1.0");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace colltune
