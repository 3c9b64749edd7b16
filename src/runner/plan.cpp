#include "runner/plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/sizes.hpp"

namespace colltune {

RunPlan plan_run(const RunOptions& options, int nranks) {
  const auto sizes =
      sweep_sizes(options.min_bytes, options.max_bytes, options.step_factor, options.step_bytes);
  RunPlan result;
  std::vector<Collective>& plan = result.ops;
  for (CollKind kind : options.colls) {
    if (!moves_data(kind)) {  // barrier: one row, whatever the sizes and types asked for
      Collective c;
      c.kind = kind;
      c.dtype = options.dtypes.front();
      c.op = ReduceOp::kNone;
      plan.push_back(c);
      continue;
    }
    for (DType dtype : options.dtypes) {
      // nccl-tests would run such sizes as 0-byte ops; a row of nothing measures nothing.
      const std::uint64_t one_each = element_bytes(dtype) * blocks_per_op(kind, nranks);
      result.smallest_useful_bytes = std::max(result.smallest_useful_bytes, one_each);
      const auto too_small = std::count_if(sizes.begin(), sizes.end(),
                                           [&](std::uint64_t bytes) { return bytes < one_each; });
      if (too_small > 0) {
        result.left_out.push_back(
            fmt::format("{} {} on {} ranks: {} left out ({} B holds one element per block)",
                        name(kind), name(dtype), nranks,
                        too_small == 1 ? fmt::format("{} B", sizes.front())
                                       : fmt::format("{} sizes below {} B", too_small, one_each),
                        one_each));
      }
      const std::vector<ReduceOp> ops =
          is_reduction(kind) ? options.ops : std::vector<ReduceOp>{ReduceOp::kNone};
      for (ReduceOp op : ops) {
        std::size_t previous = 0;
        for (std::uint64_t bytes : sizes) {
          const std::size_t count = count_for_bytes(kind, dtype, nranks, bytes);
          if (count == 0 || count == previous) continue;
          previous = count;
          // -r -1: every rank takes its turn as root (nccl-tests' convention).
          const int first_root = has_root(kind) ? std::max(options.root, 0) : -1;
          const int last_root = has_root(kind) && options.root < 0 ? nranks - 1 : first_root;
          for (int root = first_root; root <= last_root; ++root) {
            for (bool in_place : {false, true}) {
              if (in_place ? !options.in_place : !options.out_of_place) continue;
              Collective c;
              c.kind = kind;
              c.dtype = dtype;
              c.op = op;
              c.count = count;
              c.in_place = in_place;
              c.root = root;
              c.window = options.window;
              c.exchange = options.exchange;
              plan.push_back(c);
            }
          }
        }
      }
    }
  }
  return result;
}

}  // namespace colltune
