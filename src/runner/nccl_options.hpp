#pragma once
// The NCCL backend's own options, checked as NCCL would take them: refused on the MPI backend,
// --min-ctas against --max-ctas (NCCL's init refuses min above max), the buffer allocator.

#include <CLI/CLI.hpp>
#include <string>

#include "runner/run_options.hpp"

namespace colltune {

// After `app` parsed: throws ConfigError naming the flag, value and what is allowed; sets
// o.backend_options.nccl_mem_alloc from `allocator` ("ncclmemalloc" or "cudamalloc").
void check_nccl_options(const CLI::App& app, const std::string& allocator, RunOptions& o);

}  // namespace colltune
