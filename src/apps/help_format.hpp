#pragma once
// One help style for every subcommand, that of `colltune run --help`: what it does, a usage line,
// each positional and option with its value and default, then the exit codes.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

namespace colltune {

// Installs the style on `app`; `exit_codes` is printed last ("Exit codes: 0 ok, ...").
// Value names come from each option's option_text() ("DIR"); a positional is shown in capitals.
void use_colltune_help(CLI::App& app, std::string exit_codes);

// Parses `args` with `app` (CLI11 takes them reversed); --help prints it and returns true; a
// parse error is a ConfigError pointing at `colltune <command> --help`.
bool parse_or_help(CLI::App& app, const std::vector<std::string>& args, const std::string& command);

}  // namespace colltune
