#pragma once
// The ordered list of operations one `colltune run` measures.

#include <vector>

#include "core/collective.hpp"
#include "runner/run_options.hpp"

namespace colltune {

// For each collective, dtype, op (reductions only), size and root (every rank with -r -1):
// out-of-place, then in-place. Barrier is one row of 0 bytes.
// Sizes that hold less than one element per block are left out; sizes that round to the same
// count appear once. Every rank computes the same plan.
std::vector<Collective> plan_run(const RunOptions& options, int nranks);

}  // namespace colltune
