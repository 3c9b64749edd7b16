#pragma once
// Which MPI a text names: MPI_Get_library_version's, or a launcher's --version. Plain text
// parsing, no MPI needed (sweep driver, report, history).

#include <optional>
#include <string>
#include <string_view>

namespace colltune {

// How a launcher is spoken to: Open MPI's mpirun (-x, --map-by, --bind-to), MPICH's Hydra
// (-genvlist, -ppn, -bind-to, -map-by; MVAPICH's mpiexec too) or Intel MPI's Hydra (-genvlist,
// -ppn, binding through I_MPI_PIN_*).
enum class LaunchDialect { kOpenMpi, kHydra, kIntelMpi };

struct MpiIdentity {
  std::string family;   // "Open MPI", "MPICH", "Intel MPI", "MVAPICH", "Cray MPICH"
  std::string version;  // "4.1.4", "2021.13"; empty where the text gives none
  LaunchDialect dialect = LaunchDialect::kOpenMpi;
  std::string text() const { return version.empty() ? family : family + " " + version; }
};

// From MPI_Get_library_version's text (any rank); nullopt for a text of no family known here.
std::optional<MpiIdentity> identify_mpi_library(std::string_view library_version);

// From `mpirun --version` or `mpiexec --version` output; nullopt for no family known here.
std::optional<MpiIdentity> identify_mpi_launcher(std::string_view version_output);

// The dialect of a family as MpiIdentity::family names it ("Open MPI", "MPICH", "Intel MPI",
// "MVAPICH", "Cray MPICH"); nullopt for another name.
std::optional<LaunchDialect> dialect_of_family(std::string_view family);

// "openmpi", "mpich", "intelmpi": how a spec names a dialect (mpi_family:); nullopt otherwise.
std::optional<LaunchDialect> dialect_named(std::string_view name);
const char* dialect_name(LaunchDialect d);

}  // namespace colltune
