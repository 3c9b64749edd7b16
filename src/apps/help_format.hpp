#pragma once
// One help style for every subcommand, that of `colltune run --help`: what it does, a usage line,
// each positional and option with its value and default, then the exit codes.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace colltune {

// Installs the style on `app`; `exit_codes` is printed last ("Exit codes: 0 ok, ...").
// Value names come from each option's option_text() ("DIR"); a positional is shown in capitals.
void use_colltune_help(CLI::App& app, std::string exit_codes);

}  // namespace colltune
