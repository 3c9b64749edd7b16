#pragma once
// For the run-option tests: the one line parse_run_options refuses `args` with.

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "runner/run_options.hpp"

namespace colltune {

// The ConfigError's text, or "no error" when the options parse.
inline std::string error_of(const std::vector<std::string>& args) {
  try {
    parse_run_options(args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace colltune
