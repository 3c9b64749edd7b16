#pragma once
// Where each collective reads its inputs and what each rank must hold afterwards, for buffers
// the host can address. Backends with device buffers mirror these layouts in their kernels.

#include <cstddef>
#include <cstdint>

#include "core/collective.hpp"
#include "core/pattern.hpp"

namespace colltune {

struct BufferCounts {
  std::size_t send = 0;  // elements; 0 when in place (the recv buffer holds the input)
  std::size_t recv = 0;
};

// Element counts one rank allocates for `c` on `nranks` ranks.
BufferCounts buffer_counts(const Collective& c, int nranks);

// The partner of `rank` for point-to-point kinds: ranks r and r + nranks/2 form a pair, so with
// block placement every pair crosses the widest gap. -1 when nranks is odd.
int p2p_peer(int rank, int nranks);

// Writes `rank`'s inputs for `c` (into `recv` when in place) and poisons the output.
void fill_for(const Collective& c, int nranks, int rank, const Pattern& p, void* send, void* recv);

// Elements of `rank`'s output that differ from the exact expected result; 0 on ranks whose
// output the collective leaves undefined (non-root reduce, the sending side of bw).
std::uint64_t count_wrong_for(const Collective& c, int nranks, int rank, const Pattern& p,
                              const void* recv);

}  // namespace colltune
