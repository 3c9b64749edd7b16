#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune import LOG... --out STORE`: text logs (nccl-tests, OSU) as one store, each log one
// launch of its tool's point. Returns the exit code; throws ConfigError for bad input.
int import_command(const std::vector<std::string>& args);

}  // namespace colltune
