// check_against_world: the run options' checks that need the rank count (run_options.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "core/errors.hpp"
#include "core/exchange.hpp"
#include "core/sizes.hpp"
#include "core/validation.hpp"
#include "knobs/interleave.hpp"
#include "runner/run_options.hpp"

namespace colltune {

void check_against_world(const RunOptions& options, int nranks) {
  const bool rooted = std::any_of(options.colls.begin(), options.colls.end(), has_root);
  if (rooted && options.root >= nranks) {
    throw ConfigError(fmt::format(
        "-r/--root: {} is not a rank of this job; allowed: 0 to {}, or -1 for every rank",
        options.root, nranks - 1));
  }
  // MPI-3's int counts and displacements: alltoallv's busiest receiver is the first to overflow
  // them, at the largest size. (Open MPI 4.1 has no MPI-4 large-count MPI_Alltoallv_c.)
  const bool alltoallv = std::find(options.colls.begin(), options.colls.end(),
                                   CollKind::kAlltoallv) != options.colls.end();
  if (alltoallv && options.backend == "mpi") {
    for (DType dtype : options.dtypes) {
      Collective c;
      c.kind = CollKind::kAlltoallv;
      c.dtype = dtype;
      c.exchange = options.exchange;
      c.count = count_for_bytes(c.kind, dtype, nranks, options.max_bytes);
      const BufferCounts counts = buffer_counts(c, nranks);
      if (std::max(counts.send, counts.recv) > static_cast<std::size_t>(INT_MAX)) {
        throw ConfigError(fmt::format(
            "-e/--maxbytes: {} of {} with alltoallv {} on {} ranks puts {} elements in one "
            "rank's buffer; allowed: at most {} (MPI's int counts and displacements)",
            options.max_bytes, name(dtype), exchange_name(options.exchange), nranks,
            std::max(counts.send, counts.recv), INT_MAX));
      }
    }
  }
  // NCCL's one-rank path (enqueue.cc, ncclLaunchOneRank) never consults NCCL_ALGO or NCCL_PROTO:
  // every setting would measure the same copy.
  if (nranks == 1 && interleave_backend(options.interleaved) == "nccl") {
    throw ConfigError(
        "--interleave: NCCL_ALGO / NCCL_PROTO on 1 rank measure one thing N times (NCCL's "
        "one-rank path never reads them); allowed: 2 or more ranks (-g N, or mpirun -np N)");
  }
}

}  // namespace colltune
