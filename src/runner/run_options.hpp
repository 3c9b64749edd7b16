#pragma once
// `colltune run` arguments: parsed and validated identically on every rank, before any
// communication, so a bad flag stops every rank the same way.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "comm/communicator.hpp"
#include "core/collective.hpp"
#include "knobs/interleave.hpp"
#include "runner/measure.hpp"

namespace colltune {

struct RunOptions {
  std::string backend = default_backend();
  std::vector<CollKind> colls{CollKind::kAllreduce};
  std::vector<DType> dtypes{DType::kFloat};
  std::vector<ReduceOp> ops{ReduceOp::kSum};
  std::uint64_t min_bytes = 32ULL << 20;  // nccl-tests' defaults
  std::uint64_t max_bytes = 32ULL << 20;
  std::uint64_t step_factor = 1;
  std::uint64_t step_bytes = 1ULL << 20;
  int root = 0;  // -1: every rank in turn
  int window = 64;
  Exchange exchange;         // --exchange, --exchange-seed: alltoallv's counts
  bool out_of_place = true;  // --in-place both|only|never
  bool in_place = true;
  RunPolicy policy;
  BackendOptions backend_options;
  // --interleave: the settings (environment name -> value) to measure side by side, one
  // communicator each, as the product of the flags' values; empty without the flag.
  std::vector<InProcessSettings> interleaved;
  double timeout_seconds = 300;
  std::vector<std::string> notes;    // what the options turned off, for rank 0 to print
  std::string race_after_path;       // --race-after: an earlier launch's records; empty: none
  std::string json_path;             // empty: no JSONL
  std::string nccl_tests_json_path;  // -J: nccl-tests' JSON format; empty: none
  bool copy_ceiling = false;         // each host's memcpy bandwidth into the records' context
  bool phase_times = false;          // rank 0 prints where the launch's wall time went
  bool per_iter_timing = false;      // -I 1: each iteration a sample; -J adds per-iteration stats
  int per_iter_skip = 0;             // -K: leading iterations left out of those stats
  bool help = false;
};

// Parses the arguments after "run". Throws ConfigError with one line naming the flag, the value
// and what is allowed. Checks that need the rank count are in check_against_world().
RunOptions parse_run_options(const std::vector<std::string>& args);

// Whether the arguments after "run" name --interleave or --interleave-set, read before they are
// parsed (MPI starts first): such a run writes MPI_T variables, whose interface costs ~0.2 s
// opened after MPI_Init and ~0.01 s before it (Open MPI 4.1).
bool names_interleave(const std::vector<std::string>& args);

// The rest of the validation once the rank count is known; same result on every rank.
void check_against_world(const RunOptions& options, int nranks);

std::string run_help();

}  // namespace colltune
