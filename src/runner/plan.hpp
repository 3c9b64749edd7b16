#pragma once
// The ordered list of operations one `colltune run` measures.

#include <cstdint>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "runner/run_options.hpp"

namespace colltune {

// What one `colltune run` measures, in order, and what it leaves out.
struct RunPlan {
  std::vector<Collective> ops;
  // Sizes too small for a collective and dtype, one line each: "alltoall float on 4 ranks:
  // 8 B left out (16 B holds one element per block)".
  std::vector<std::string> left_out;
  // The smallest --maxbytes that gives every collective and dtype asked for a row.
  std::uint64_t smallest_useful_bytes = 0;
};

// For each collective, dtype, op (reductions only), size and root (every rank with -r -1):
// out-of-place, then in-place. Barrier is one row of 0 bytes.
// Sizes that hold less than one element per block are left out (and said so); sizes that round
// to the same count appear once. Every rank computes the same plan.
RunPlan plan_run(const RunOptions& options, int nranks);

}  // namespace colltune
