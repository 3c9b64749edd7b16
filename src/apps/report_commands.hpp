#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune report | compare | tune`: read stores, run nothing. Return the exit code; throw
// ConfigError for bad input.
int report_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int tune_command(const std::vector<std::string>& args);
// `colltune noise`: the launch-to-launch spread of identical launches, for compare.
int noise_command(const std::vector<std::string>& args);

}  // namespace colltune
