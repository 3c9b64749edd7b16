#pragma once
// `colltune run --interleave` settings: knobs measured side by side in one launch, each on a
// communicator created after setting them. Open MPI parameters are written through MPI_T;
// NCCL_ALGO and NCCL_PROTO, which NCCL re-reads at every communicator init, are set in the
// environment around that init. Plain parsing, no MPI or NCCL here.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// Environment name (OMPI_MCA_<param>, MPIR_CVAR_<COLL>_INTRA_ALGORITHM, NCCL_ALGO, NCCL_PROTO)
// -> canonical value or "default".
using InProcessSettings = std::map<std::string, std::string>;

inline constexpr std::size_t kMaxInterleaved = 64;

// An Open MPI parameter's name as ompi_info and MPI_T spell it ("OMPI_MCA_x" -> "x"); any other
// name as it is.
std::string_view parameter_name(std::string_view env_name);

// True for the NCCL variables that may be switched between communicators of one process.
bool is_nccl_in_process_knob(std::string_view env_name);
// True for MPICH's algorithm variables (MPIR_CVAR_<COLL>_INTRA_ALGORITHM, _INTER_): MPICH reads
// them at every call, so they switch between the calls of one process.
bool is_mpich_in_process_knob(std::string_view env_name);

// The value `env_name` takes inside one launch, canonical: for OMPI_MCA_ names a 32-bit integer
// ("08" -> "8"); for MPICH's algorithm variables a value name ("ring"), as given; for NCCL_ALGO /
// NCCL_PROTO a list NCCL parses ("Ring", "^Tree", "allreduce:tree"), as given; or "default" (the
// value the process was launched with).
// nullopt when the value or the name is not allowed.
std::optional<std::string> canonical_in_process_value(std::string_view env_name,
                                                      std::string_view text);

// "mpi" when the settings name Open MPI parameters, "nccl" for NCCL knobs; "" when empty.
std::string interleave_backend(const std::vector<InProcessSettings>& settings);

// The settings to measure, in order: the product of the `axes` flags ("NAME=V1,V2", the first
// varying slowest; values split at commas), or the `sets` flags one each ("NAME=V NAME2=V2",
// names missing from one set "default"). An Open MPI NAME may omit OMPI_MCA_. Empty when both
// are. Throws ConfigError with one line naming the flag, the value and what is allowed.
std::vector<InProcessSettings> parse_interleave(const std::vector<std::string>& axes,
                                                const std::vector<std::string>& sets);

}  // namespace colltune
