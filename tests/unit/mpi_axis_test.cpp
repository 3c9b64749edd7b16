// The `mpi` axis: each point is launched by its own MPI's launcher, in that launcher's dialect,
// with the colltune built against it; the checks written for one launcher see only what that
// MPI's points set. Expected argv from each launcher's documentation (as dialect_test.cpp).
#include "sweep/mpi_axis.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "sweep/dialect.hpp"
#include "sweep/launch.hpp"

namespace colltune {
namespace {

constexpr const char* kSpec = R"(
launcher: mpirun
mpi_family: openmpi
env: {OMPI_MCA_btl: "self,vader"}
mpis:
  mpich:
    launcher: /opt/mpich/bin/mpiexec
    mpi_family: mpich
    colltune: /opt/mpich/colltune
    env: {MPIR_CVAR_DEVICE_COLLECTIVES: none}
benchmark: {collectives: allreduce, max_bytes: 1M}
axes:
  np: 2
  bind_to: core
  mpi: [null, mpich]
)";

std::string message_of(const std::string& text) {
  try {
    parse_spec(text, "s.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(MpiAxis, EachPointIsLaunchedByItsOwnMpiInItsDialect) {
  const SweepSpec spec = parse_spec(kSpec, "s.yaml");
  const std::vector<Point> points = expand(spec);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_TRUE(points[0].baseline);  // the spec's own MPI is the baseline: the axis is compared
  EXPECT_EQ(points[1].label, "backend=mpi np=2 bind_to=core mpi=mpich");
  const Launch own = build_launch(spec, points[0], "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(std::vector<std::string>(own.argv.begin(), own.argv.begin() + 6),
            (std::vector<std::string>{"mpirun", "-np", "2", "--bind-to", "core", "-x"}));
  EXPECT_NE(std::find(own.argv.begin(), own.argv.end(), "/bin/colltune"), own.argv.end());
  EXPECT_EQ(own.env.count("MPIR_CVAR_DEVICE_COLLECTIVES"), 0u);

  const Launch mpich = build_launch(spec, points[1], "/bin/colltune", "/r/x.jsonl");
  const auto colltune = std::find(mpich.argv.begin(), mpich.argv.end(), "/opt/mpich/colltune");
  ASSERT_NE(colltune, mpich.argv.end());
  EXPECT_EQ(std::vector<std::string>(mpich.argv.begin(), colltune),
            (std::vector<std::string>{"/opt/mpich/bin/mpiexec", "-n", "2", "-bind-to", "core"}));
  EXPECT_EQ(mpich.env.at("MPIR_CVAR_DEVICE_COLLECTIVES"), "none");
  EXPECT_EQ(mpich.env.at("OMPI_MCA_btl"), "self,vader");  // the spec's env reaches every point
}

TEST(MpiAxis, EachMpiIsCheckedOnlyOnWhatItsOwnPointsSet) {
  std::string text = kSpec;
  text +=
      "  MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM: [null, recursive_doubling]\n"
      "exclude: [{mpi: null, MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM: recursive_doubling}]\n";
  text.replace(text.find("env: {OMPI_MCA_btl: \"self,vader\"}\n"), 33, "");
  const SweepSpec spec = parse_spec(text, "s.yaml");
  const auto views = specs_by_mpi(spec, expand(spec));
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].first, "");
  EXPECT_EQ(views[1].first, "mpich");
  // Open MPI's points leave the MPICH variable unset: its check does not see the axis.
  EXPECT_NO_THROW(check_knob_family(views[0].second, "s.yaml"));
  EXPECT_NO_THROW(check_knob_family(views[1].second, "s.yaml"));
  EXPECT_EQ(views[1].second.launcher_program, "/opt/mpich/bin/mpiexec");
  EXPECT_EQ(views[1].second.colltune_path, "/opt/mpich/colltune");
  for (const auto& [mpi, view] : views) {
    for (const Axis& axis : view.axes) EXPECT_NE(axis.key, "mpi");
  }

  // Without the exclude rule, Open MPI would be given the MPICH variable: refused.
  std::string unguarded = text.substr(0, text.find("exclude:"));
  const SweepSpec bad = parse_spec(unguarded, "s.yaml");
  const auto bad_views = specs_by_mpi(bad, expand(bad));
  EXPECT_THROW(check_knob_family(bad_views[0].second, "s.yaml"), ConfigError);
}

TEST(MpiAxis, BadInputNamesTheFieldAndWhatIsAllowed) {
  std::string unknown = kSpec;
  unknown.replace(unknown.find("[null, mpich]"), 13, "[null, mvapich]");
  EXPECT_NE(message_of(unknown).find("axes.mpi: 'mvapich' is not allowed; allowed: mpich (under "
                                     "mpis:), or null"),
            std::string::npos)
      << message_of(unknown);

  std::string no_axis = kSpec;
  no_axis.replace(no_axis.find("  mpi: [null, mpich]\n"), 21, "");
  EXPECT_NE(message_of(no_axis).find("mpis: no axis names them"), std::string::npos)
      << message_of(no_axis);

  std::string no_colltune = kSpec;
  no_colltune.replace(no_colltune.find("    colltune: /opt/mpich/colltune\n"), 34, "");
  EXPECT_NE(message_of(no_colltune).find("mpis.mpich.colltune: missing"), std::string::npos)
      << message_of(no_colltune);

  std::string no_launcher = kSpec;
  no_launcher.replace(no_launcher.find("    launcher: /opt/mpich/bin/mpiexec\n"), 37, "");
  EXPECT_NE(message_of(no_launcher).find("mpis.mpich.launcher: missing"), std::string::npos)
      << message_of(no_launcher);

  std::string typo = kSpec;
  typo.replace(typo.find("    mpi_family: mpich\n"), 22, "    mpi_famly: mpich\n");
  EXPECT_NE(message_of(typo).find("mpis.mpich.mpi_famly: unknown key (did you mean 'mpi_family'?)"),
            std::string::npos)
      << message_of(typo);

  std::string bad_env = kSpec;
  bad_env.replace(bad_env.find("MPIR_CVAR_DEVICE_COLLECTIVES: none"), 34,
                  "MPIR_CVAR_DEVICE_COLLECTIVES: sometimes");
  EXPECT_NE(message_of(bad_env).find("mpis.mpich.env.MPIR_CVAR_DEVICE_COLLECTIVES: 'sometimes' is "
                                     "not allowed"),
            std::string::npos)
      << message_of(bad_env);

  std::string no_mpis = kSpec;
  no_mpis.replace(no_mpis.find("mpis:"), no_mpis.find("benchmark:") - no_mpis.find("mpis:"), "");
  EXPECT_NE(message_of(no_mpis).find("allowed: the names under mpis: (the spec gives none)"),
            std::string::npos)
      << message_of(no_mpis);
}

}  // namespace
}  // namespace colltune
