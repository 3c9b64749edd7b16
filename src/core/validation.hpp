#pragma once
// Where each collective reads its inputs and what each rank must hold afterwards. The layouts
// are data (blocks), so host code and device kernels walk the same description.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/pattern.hpp"

namespace colltune {

struct BufferCounts {
  std::size_t send = 0;  // elements; 0 when in place (the recv buffer holds the input)
  std::size_t recv = 0;
};

// Why no backend can run `c` in this layout (a skip reason), or nullopt: alltoallv in place,
// barrier in place. Backends add their own reasons.
std::optional<std::string> layout_unsupported(const Collective& c);

// Element counts one rank allocates for `c` on `nranks` ranks.
BufferCounts buffer_counts(const Collective& c, int nranks);

// Where a buffer set lies in a backend's one allocation of `sets` x stride_bytes (--cache cold
// rotates through them): set i's send buffer at i x stride_bytes, its receive buffer
// recv_offset_bytes further. Both 256-byte aligned (cudaMalloc's alignment), so no two sets share
// a cache line: a small message's rotation then touches a distinct line per op.
struct SetLayout {
  std::uint64_t recv_offset_bytes = 0;
  std::uint64_t stride_bytes = 0;
};
SetLayout set_layout(const Collective& c, int nranks);

// The partner of `rank` for point-to-point kinds: ranks r and r + nranks/2 form a pair, so with
// block placement every pair crosses the widest gap. -1 when nranks is odd.
int p2p_peer(int rank, int nranks);

// `count` elements at element `offset` of a buffer hold input(source_rank, first_index + i), or
// reduced(first_index + i) when source_rank is kReduced.
struct Block {
  std::size_t offset = 0;
  std::size_t count = 0;
  int source_rank = 0;
  std::uint64_t first_index = 0;
  bool in_recv = false;  // inputs only: the block lives in the recv buffer (in place)
};
inline constexpr int kReduced = kPatternReduced;

// What `rank` writes before the op (its own inputs).
std::vector<Block> input_blocks(const Collective& c, int nranks, int rank);
// What `rank`'s output must hold after the op; empty where the output is undefined (non-root
// reduce, the sending side of bw).
std::vector<Block> expected_blocks(const Collective& c, int nranks, int rank);

// The element offset of `rank`'s first checked output element (what --test-corrupt flips), or
// nullopt where its output is not checked.
std::optional<std::size_t> first_checked_element(const Collective& c, int nranks, int rank);

// Host buffers: writes `rank`'s inputs for `c` (into `recv` when in place), poisons the output.
void fill_for(const Collective& c, int nranks, int rank, const Pattern& p, void* send, void* recv);

// Host buffers: elements of `rank`'s output that differ from the exact expected result.
std::uint64_t count_wrong_for(const Collective& c, int nranks, int rank, const Pattern& p,
                              const void* recv);

}  // namespace colltune
