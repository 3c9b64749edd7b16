// The launcher dialect table: the same placement in Open MPI's, MPICH Hydra's and Intel MPI's
// words. Expected argv from each launcher's own documentation (mpiexec -help of MPICH 4.0.2's
// Hydra; Intel MPI 2021's I_MPI_PIN_DOMAIN); the refusals are what each cannot say.
#include "sweep/dialect.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "sweep/launch.hpp"

namespace colltune {
namespace {

constexpr const char* kSpec = R"(
launcher: mpiexec
mpi_family: FAMILY
hosts: [n1, n2, n3]
env: {MPIR_CVAR_ASYNC_PROGRESS: 0}
benchmark: {collectives: allreduce, max_bytes: 1M}
axes:
  np: 4
  nodes: 2
  ranks_per_node: 2
  bind_to: BIND
)";

SweepSpec spec_for(const std::string& family, const std::string& bind_to) {
  std::string text = kSpec;
  text.replace(text.find("FAMILY"), 6, family);
  text.replace(text.find("BIND"), 4, bind_to);
  return parse_spec(text, "s.yaml");
}

std::vector<std::string> launcher_part(const Launch& l) {
  const auto end = std::find(l.argv.begin(), l.argv.end(), "/bin/colltune");
  return {l.argv.begin(), end};
}

TEST(Dialect, HydraSaysHostsRanksPerNodeBindingAndExports) {
  const SweepSpec spec = spec_for("mpich", "core");
  const Launch l = build_launch(spec, expand(spec).at(0), "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(launcher_part(l), (std::vector<std::string>{"mpiexec", "-n", "4", "-hosts", "n1,n2",
                                                        "-ppn", "2", "-bind-to", "core"}));
  // No -genvlist: Hydra passes mpiexec's whole environment, where the knob already is.
  EXPECT_EQ(l.env.at("MPIR_CVAR_ASYNC_PROGRESS"), "0");
}

TEST(Dialect, IntelMpiBindsThroughItsPinDomain) {
  const SweepSpec spec = spec_for("intelmpi", "socket");
  const Launch l = build_launch(spec, expand(spec).at(0), "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(launcher_part(l),
            (std::vector<std::string>{"mpiexec", "-n", "4", "-hosts", "n1,n2", "-ppn", "2"}));
  EXPECT_EQ(l.env.at("I_MPI_PIN"), "1");
  EXPECT_EQ(l.env.at("I_MPI_PIN_DOMAIN"), "socket");
}

TEST(Dialect, APlacementTheDialectCannotSayIsRefusedBeforeAnyLaunch) {
  const SweepSpec intel = spec_for("intelmpi", "hwthread");
  try {
    build_launch(intel, expand(intel).at(0), "/bin/colltune", "/r/x.jsonl");
    ADD_FAILURE() << "bind_to hwthread accepted under Intel MPI";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bind_to 'hwthread' has no I_MPI_PIN_DOMAIN equivalent; "
                                         "allowed with Intel MPI: none core socket package numa"),
              std::string::npos)
        << e.what();
  }
  const SweepSpec hydra = spec_for("mpich", "board");  // Hydra's "machine" since 2018
  EXPECT_THROW(build_launch(hydra, expand(hydra).at(0), "/bin/colltune", "/r/x.jsonl"),
               ConfigError);
}

TEST(Dialect, EachDialectKnowsTheOthersFlags) {
  EXPECT_EQ(foreign_launcher_arg(LaunchDialect::kHydra, "-x"), "Open MPI's export of a variable");
  EXPECT_EQ(foreign_launcher_arg(LaunchDialect::kIntelMpi, "--oversubscribe"),
            "Open MPI's oversubscription");
  EXPECT_EQ(foreign_launcher_arg(LaunchDialect::kOpenMpi, "-genv"), "Hydra's export of a variable");
  EXPECT_FALSE(foreign_launcher_arg(LaunchDialect::kOpenMpi, "--oversubscribe"));
  EXPECT_FALSE(foreign_launcher_arg(LaunchDialect::kHydra, "-genvall"));
  // Hydra strips leading dashes, and Open MPI takes one-dash long options: both are theirs.
  EXPECT_FALSE(foreign_launcher_arg(LaunchDialect::kHydra, "--bind-to"));
  EXPECT_FALSE(foreign_launcher_arg(LaunchDialect::kOpenMpi, "-bind-to"));
}

TEST(Dialect, AnotherDialectsFlagInTheSpecIsRefusedBeforeAnyLaunch) {
  const SweepSpec spec = parse_spec(
      "launcher: mpiexec\nmpi_family: mpich\naxes:\n  launcher_args: [[--oversubscribe]]\n",
      "s.yaml");
  try {
    check_launcher_args(spec, "s.yaml");
    ADD_FAILURE() << "--oversubscribe accepted under Hydra";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml: launcher_args: '--oversubscribe' (Open MPI's "
                                         "oversubscription) is not Hydra's"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_launcher_args(
      parse_spec("launcher: mpiexec\nmpi_family: mpich\nlauncher_args: [-genvall]\n", "s.yaml"),
      "s.yaml"));
}

TEST(Dialect, AKnobOfAnotherFamilyIsRefusedNamingTheFamilyFound) {
  const SweepSpec mpich = parse_spec(
      "launcher: mpiexec\nmpi_family: mpich\naxes:\n  OMPI_MCA_coll_tuned_allreduce_algorithm: "
      "[1, 2]\n",
      "s.yaml");
  try {
    check_knob_family(mpich, "s.yaml");
    ADD_FAILURE() << "an Open MPI parameter accepted under MPICH";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "s.yaml: axes: OMPI_MCA_coll_tuned_allreduce_algorithm is an Open MPI parameter, "
                  "but mpiexec --version names MPICH's Hydra; allowed: that MPI's own knobs "
                  "(MPIR_CVAR_*)"),
              std::string::npos)
        << e.what();
  }
  const SweepSpec ompi =
      parse_spec("mpi_family: openmpi\nenv: {MPIR_CVAR_ASYNC_PROGRESS: 1}\n", "s.yaml");
  EXPECT_THROW(check_knob_family(ompi, "s.yaml"), ConfigError);
  const SweepSpec intel = parse_spec(
      "launcher: mpiexec\nmpi_family: intelmpi\nenv: {MPIR_CVAR_ASYNC_PROGRESS: 1, "
      "I_MPI_ADJUST_ALLREDUCE: 2}\n",
      "s.yaml");
  EXPECT_NO_THROW(check_knob_family(intel, "s.yaml"));
}

TEST(Dialect, AFamilyTheSpecNamesIsOneOfThree) {
  try {
    parse_spec("launcher: mpiexec\nmpi_family: lam\n", "s.yaml");
    ADD_FAILURE() << "mpi_family: lam accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "mpi_family: 'lam' is not allowed; allowed: openmpi mpich intelmpi"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace colltune
