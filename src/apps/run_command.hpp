#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune run`: every launched rank calls it; returns the process exit code. Throws
// ConfigError for bad input (the same on every rank) and anything else for a failed rank.
int run_command(int* argc, char*** argv, const std::vector<std::string>& args);

// The measurement step this rank is in ("alltoall uint8 none of 64 B out-of-place"), or "" when
// none: for error messages.
const std::string& current_step();

}  // namespace colltune
