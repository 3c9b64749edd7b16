#pragma once
// The sweep spec (YAML): what to run, on which launcher, over which axes. configs/annotated.yaml
// documents every key.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/mpi_family.hpp"
#include "knobs/knobs.hpp"

namespace colltune {

enum class LauncherKind { kMpirun, kSrun, kLocal };

// One axis: a setting and its values; nullopt means "leave unset" (the knob's own default).
struct Axis {
  std::string key;
  std::vector<std::optional<std::string>> values;
};

// A rule matches a point when every entry does: a value matches equal text, "*" any set value,
// nullopt an unset one.
using Rule = std::map<std::string, std::optional<std::string>>;

// One value of the `mpi` axis (spec key `mpis:`): the MPI a point runs under, as the colltune
// built against it and that MPI's launcher. A point without `mpi` runs under the spec's own.
struct MpiChoice {
  std::string launcher_program;          // mpirun or mpiexec of that MPI (a name or a path)
  std::optional<LaunchDialect> dialect;  // from `mpi_family:`, else its --version
  std::string colltune_path;             // the colltune built against it
  std::optional<std::vector<std::string>> launcher_args;  // in place of the spec's own
  std::map<std::string, std::string> env;                 // added to the spec's env for its points
};

struct SweepSpec {
  std::string name;
  LauncherKind launcher = LauncherKind::kMpirun;
  std::string launcher_program = "mpirun";  // kMpirun: "mpirun" or "mpiexec", as the spec says
  // kMpirun: how to speak to it; from `mpi_family:`, else its --version (sweep/dialect.hpp).
  std::optional<LaunchDialect> dialect;
  std::vector<std::string> launcher_args;
  std::vector<std::string> hosts;
  std::string hostfile;
  int repetitions = 1;                     // rounds: every point once per round
  double point_timeout_seconds = 600;      // wall-clock limit of one launch
  std::string colltune_path;               // empty: the running colltune binary
  std::map<std::string, std::string> env;  // set for every point
  std::map<std::string, MpiChoice> mpis;   // the `mpi` axis' values, by name
  // `colltune run` flags from the benchmark section, in spec order (backends excluded).
  std::vector<std::string> run_args;
  std::vector<Axis> axes;  // in spec order; "backend" included
  std::vector<Rule> include;
  std::vector<Rule> exclude;
  // Environment settings only: the baseline of each backend-and-placement group (default: no
  // knob set). Naming a placement or backend axis too makes the matching points the baselines.
  Rule baseline;
  // Axes switched inside one process (OMPI_MCA_ ones through MPI_T, or NCCL_ALGO / NCCL_PROTO at
  // each NCCL init): points that differ only in them share one launch
  // (`colltune run --interleave-set`), their samples taken in turns.
  std::vector<std::string> interleave;
  // Race across launches (sweep/round_race.hpp): `repetitions` is then the most rounds a point
  // gets; one its group clearly beats at every size stops being launched.
  bool race = false;
  // --emit-sbatch asks for whole nodes (--exclusive): a benchmark sharing a node measures its
  // neighbours. `exclusive: false` drops it.
  bool exclusive = true;
  std::vector<std::string> notes;  // e.g. unknown variables passed through unchecked
  std::string source_text;         // the YAML as given
};

// Parses and checks a spec. Throws ConfigError "<source>:<line>:<col>: <field>: ..." naming the
// field, the value and what is allowed; unknown keys suggest the nearest known one.
SweepSpec parse_spec(const std::string& text, const std::string& source);


}  // namespace colltune
