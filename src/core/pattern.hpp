#pragma once
// Deterministic inputs from (seed, rank, index), small enough that every reduction over up to
// 64 ranks is exact in any order and in every dtype, so results compare bit-exactly.

#include <cstddef>
#include <cstdint>

#include "core/collective.hpp"
#include "core/pattern_math.hpp"

namespace colltune {

class Pattern {
 public:
  // `op` is kNone for data movement; nranks >= 1.
  Pattern(std::uint64_t seed, DType dtype, ReduceOp op, int nranks);

  // The value rank `rank` contributes at global element `index`.
  std::int64_t input(int rank, std::uint64_t index) const {
    return pattern_input(params_, rank, index);
  }
  // `op` applied over inputs of all ranks at `index` (meaningless for kNone).
  std::int64_t reduced(std::uint64_t index) const { return pattern_reduced(params_, index); }

  DType dtype() const { return dtype_; }
  ReduceOp op() const { return op_; }
  int nranks() const { return params_.nranks; }
  const PatternParams& params() const { return params_; }  // for device kernels

 private:
  DType dtype_;
  ReduceOp op_;
  PatternParams params_;
};

// The byte every output element is filled with before a collective: a value no pattern of
// `dtype` holds (NaN for floats, the most negative value's neighbourhood 0x80.. for signed
// integers, 0xFF.. above every unsigned pattern), so an element never written is counted wrong.
std::uint8_t poison_byte(DType dtype);

// Writes input(rank, first_index + i) for i < count into `dst`, typed as p.dtype().
void fill_inputs(const Pattern& p, int rank, std::uint64_t first_index, void* dst,
                 std::size_t count);

// Counts elements of `buf` that differ bitwise from input(src_rank, first_index + i).
std::uint64_t count_wrong_inputs(const Pattern& p, int src_rank, std::uint64_t first_index,
                                 const void* buf, std::size_t count);

// Counts elements of `buf` that differ bitwise from reduced(first_index + i).
std::uint64_t count_wrong_reduced(const Pattern& p, std::uint64_t first_index, const void* buf,
                                  std::size_t count);

}  // namespace colltune
