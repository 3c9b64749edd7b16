#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune sweep`: runs on the driver host (not under mpirun); returns the exit code. Throws
// ConfigError for bad input.
int sweep_command(const std::vector<std::string>& args);

std::string sweep_help();

}  // namespace colltune
