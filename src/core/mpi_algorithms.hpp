#pragma once
// The collective algorithms an MPI offers, read from its MPI_T control variables' own texts: the
// one place that knows how MPICH and Intel MPI describe them. Plain text, no MPI here (the
// backend reads the texts; the sweep driver, tests and `topo --list-algorithms` use the result).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// One algorithm knob of the MPI at hand, as `colltune topo --list-algorithms` prints it.
struct AlgorithmKnob {
  std::string env_name;            // MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM, I_MPI_ADJUST_ALLREDUCE
  std::string collective;          // "allreduce", as the MPI names it, lower case
  std::vector<std::string> names;  // the values by name, in the order of their MPI_T integers
  int lowest_id = 0, highest_id = -1;  // Intel MPI: the preset ids allowed; else empty range
  bool switches_per_call = false;      // an MPI_T write changes the next call (MPICH)
};

// MPICH's names for the values of an algorithm control variable, in the order of its enum (the
// integer MPI_T reads and writes is the index), from the variable's description: one value a
// line ("ring   - Force ring algorithm", MPICH 4.1 and later), or the same lines joined without
// a separator (MPICH 4.0), where each name is found from the column the names are padded to.
// Empty when the text has neither form.
std::vector<std::string> mpich_algorithm_names(std::string_view description);

// Intel MPI's preset ids for MPIR_CVAR_USE_<COLL>, from its description ("range: 0-32 @Alias:#
// I_MPI_ADJUST_ALLREDUCE"): the alias and the id range. nullopt when the text says neither.
struct IntelPresets {
  std::string alias;  // I_MPI_ADJUST_ALLREDUCE
  int lowest_id = 0, highest_id = 0;
};
std::optional<IntelPresets> intel_presets(std::string_view description);

// MPICH's algorithm knob name for a control variable name: MPIR_CVAR_<COLL>_INTRA_ALGORITHM or
// _INTER_ALGORITHM of a blocking collective -> "<coll>" lower case; nullopt for other names.
std::optional<std::string> mpich_algorithm_collective(std::string_view cvar_name);

// The value `text` names among `knob`'s (a name of its list, "default", or for Intel MPI an
// I_MPI_ADJUST_ value); nullopt when allowed, else "allowed: ..." listing them.
std::optional<std::string> check_algorithm_value(const AlgorithmKnob& knob, std::string_view text);

}  // namespace colltune
