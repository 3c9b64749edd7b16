#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune run`: every launched rank calls it; returns the process exit code. Throws
// ConfigError for bad input (the same on every rank) and anything else for a failed rank.
int run_command(int* argc, char*** argv, const std::vector<std::string>& args);

}  // namespace colltune
