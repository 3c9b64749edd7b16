#pragma once
// What would make every launch of a sweep fail, found before the first one (and before a Slurm
// allocation is spent on it): the launcher, the hostfile, the colltune binary, the results
// directory. Driver-side only; the spec itself is checked by parse_spec and expand.

#include <string>

#include "sweep/spec.hpp"

namespace colltune {

// Throws ConfigError with one line naming the key or flag, the path or program, and what is
// allowed. `results_root`: where the new store will go (empty on --resume).
void preflight(const SweepSpec& spec, const std::string& source, const std::string& colltune_path,
               const std::string& results_root);

}  // namespace colltune
