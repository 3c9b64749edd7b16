#include "runner/plan.hpp"

#include <algorithm>

#include "core/sizes.hpp"

namespace colltune {

std::vector<Collective> plan_run(const RunOptions& options, int nranks) {
  const auto sizes =
      sweep_sizes(options.min_bytes, options.max_bytes, options.step_factor, options.step_bytes);
  std::vector<Collective> plan;
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
  return plan;
}

}  // namespace colltune
