#pragma once
// The tuned file's rows and how one changes NCCL's cost table: the plugin's logic, apart from
// its C entry points so it can be tested directly.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

struct TunedRow {
  int collective = 0;  // NCCL's ncclFunc_t id
  std::uint64_t min_bytes = 0, max_bytes = 0;
  std::size_t nnodes = 0, nranks = 0;  // the communicator it was measured on
  int algorithm = -1;                  // NCCL's NCCL_ALGO_* id; -1 for any
  int protocol = -1;                   // NCCL_PROTO_*; -1 for any
  int channels = -1;                   // -1: NCCL's
  int line = 0;                        // its place in the file ("row 3"), for messages
};

// Parses a tuned file (docs/tuned-file.md). Throws std::runtime_error with one line naming the
// row and field, and what is allowed, for anything else: another format or version, unknown
// names, min above max, rows of one collective and communicator whose byte ranges overlap.
std::vector<TunedRow> parse_tuned_file(std::string_view text);

// What apply_rows did, for the once-per-row log.
struct TunedDecision {
  int row = -1;          // index into the rows given; -1: no row covers this call
  bool applied = false;  // false with a row: the cells it names are all -1 (NCCL cannot run them)
};

// The first of `rows` covering (collective, bytes) rules out, in `table` (NCCL's contiguous
// float[num_algo][num_proto], -1 where it cannot run), every cell the row does not allow, and
// sets *n_channels where the row measured it. An algorithm-only row leaves NCCL's protocol
// choice within it; a protocol-only row its algorithm choice. A row whose allowed cells are
// all -1 changes nothing. No allocation, no I/O, no lock: it runs on every collective launch.
TunedDecision apply_rows(const TunedRow* rows, std::size_t n_rows, int collective,
                         std::size_t bytes, float* table, int num_algo, int num_proto,
                         int* n_channels) noexcept;

// "allreduce 1024-65536 B: tree/any, NCCL's channels", for log lines.
std::string describe_row(const TunedRow& row);

}  // namespace colltune
