#pragma once
// The launcher dialect table: how Open MPI's mpirun, MPICH's Hydra and Intel MPI's mpiexec are
// told np, hosts, ranks per node, mapping, binding and the variables to export; which flags
// belong to which; and which dialect a launcher speaks, asked of the launcher itself.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/mpi_family.hpp"
#include "sweep/spec.hpp"

namespace colltune {

// The placement a point asks for, in the spec's words (Open MPI's): each unset where not given.
struct Placement {
  std::string np;
  std::vector<std::string> hosts;  // already cut to `nodes`
  std::string hostfile;
  std::optional<std::string> ranks_per_node, map_by, bind_to, rank_by;
};

// The launcher's argv up to its own options (program, np, placement, exported variables), and
// variables the dialect sets for placement (Intel MPI's I_MPI_PIN_*), added to `env`. Returns
// the reason when the dialect cannot express the placement.
std::optional<std::string> dialect_argv(LaunchDialect dialect, const std::string& program,
                                        const Placement& placement,
                                        std::map<std::string, std::string>& env,
                                        std::vector<std::string>& argv);

// The exported-variable flags, after every other launcher argument: `-x VAR` each (Open MPI);
// none for Hydra (MPICH, Intel MPI), which passes mpiexec's whole environment by default.
void append_exports(LaunchDialect dialect, const std::map<std::string, std::string>& env,
                    std::vector<std::string>& argv);

// A launcher_args word that belongs to another dialect ("-x" under MPICH, "-genv" under Open
// MPI): its meaning there, or nullopt where it is not known as foreign.
std::optional<std::string> foreign_launcher_arg(LaunchDialect dialect, const std::string& arg);

// Throws ConfigError for a launcher_args word (the spec's or an axis value's) that belongs to
// another dialect than the launcher's: before any launch, dry runs included.
void check_launcher_args(const SweepSpec& spec, const std::string& source);

// Throws ConfigError for a knob (env or axis) of another MPI family than the launcher's:
// OMPI_MCA_* under MPICH or Intel MPI, MPIR_CVAR_* or I_MPI_* under Open MPI, I_MPI_* under MPICH.
void check_knob_family(const SweepSpec& spec, const std::string& source);

// Sets spec.dialect from `launcher_program --version` unless the spec named it (mpi_family).
// Throws ConfigError, naming what the launcher said and how to name the family, when it matches
// no family; leaves it unset when the launcher cannot be started (preflight says why).
void resolve_dialect(SweepSpec& spec, const std::string& source);

}  // namespace colltune
