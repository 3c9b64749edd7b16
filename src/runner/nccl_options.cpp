#include "runner/nccl_options.hpp"

#include <fmt/format.h>

#include <string_view>

#include "core/errors.hpp"

namespace colltune {

void check_nccl_options(const CLI::App& app, const std::string& allocator, RunOptions& o) {
  if (o.backend == "mpi") {
    // NCCL-only options would be silently ignored on the MPI backend: refuse the first one.
    for (const char* flag : {"--graph", "--device", "--nccl-blocking", "--cga-cluster-size",
                             "--min-ctas", "--max-ctas", "--net-name", "--allocator"}) {
      if (std::string_view(flag) == "--graph" ? o.backend_options.graph : app.count(flag) > 0) {
        throw ConfigError(fmt::format(
            "{}{}: an NCCL setting the MPI backend has no use for; allowed: --backend nccl, or "
            "leave it out",
            std::string_view(flag) == "--graph" ? "-G/" : "", flag));
      }
    }
  }
  if (o.backend_options.max_ctas >= 0 &&
      o.backend_options.min_ctas > o.backend_options.max_ctas)  // NCCL's init would refuse it
    throw ConfigError(
        fmt::format("--min-ctas: {} is above --max-ctas {}; allowed: at most "
                    "--max-ctas (NCCL's init refuses min above max)",
                    o.backend_options.min_ctas, o.backend_options.max_ctas));
  if (allocator != "ncclmemalloc" && allocator != "cudamalloc")
    throw ConfigError(
        fmt::format("--allocator: '{}' is not allowed; allowed: ncclmemalloc (as "
                    "nccl-tests), cudamalloc",
                    allocator));
  o.backend_options.nccl_mem_alloc = allocator == "ncclmemalloc";
}

}  // namespace colltune
