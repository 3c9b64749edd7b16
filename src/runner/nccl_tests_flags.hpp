#pragma once
// nccl-tests' flags that colltune reads its own way (-G N, -z, -C, -p, -J, -I, -K) or refuses with
// the reason, so that an nccl-tests command line either runs as it would there or says why not.

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "runner/run_options.hpp"

namespace colltune {

// The flags' text as given; empty when absent.
struct NcclTestsFlags {
  std::string graph, blocking, cputime, parallel_init, output_file, per_iter_timing, per_iter_skip;
  std::map<std::string, std::string> unsupported;  // "-I" -> its value
};

// Registers the flags on `app`, writing into `flags` (which must outlive the parse).
void add_nccl_tests_flags(CLI::App& app, NcclTestsFlags& flags);

// Applies the parsed flags to `o`. Throws ConfigError naming the flag, its value and what is
// allowed. `timing_given`: --timing was on the command line (it must agree with -z).
void apply_nccl_tests_flags(const CLI::App& app, const NcclTestsFlags& flags, bool timing_given,
                            RunOptions& o);

}  // namespace colltune
