#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune history STORE... | DIR`: runs over time, their change points and what changed with
// them; --gate for a nightly job. Returns the exit code; throws ConfigError for bad input.
int history_command(const std::vector<std::string>& args);

}  // namespace colltune
