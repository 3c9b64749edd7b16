#include "core/validation.hpp"

#include <algorithm>
#include <cstring>

#include "core/exchange.hpp"

namespace colltune {
namespace {

const void* offset(const void* base, std::size_t elements, DType dtype) {
  return static_cast<const char*>(base) + elements * element_bytes(dtype);
}
void* offset(void* base, std::size_t elements, DType dtype) {
  return static_cast<char*>(base) + elements * element_bytes(dtype);
}

}  // namespace

std::optional<std::string> layout_unsupported(const Collective& c) {
  if (!c.in_place) return std::nullopt;
  // MPI_IN_PLACE makes MPI_Alltoallv read the receive counts for both directions, so only a
  // symmetric matrix could run in place; ncclSend/ncclRecv have no in-place alltoallv either.
  if (c.kind == CollKind::kAlltoallv) return "alltoallv has no in-place form for uneven counts";
  if (c.kind == CollKind::kBarrier) return "barrier has no buffers, so no in-place form";
  return std::nullopt;
}

BufferCounts buffer_counts(const Collective& c, int nranks) {
  const std::size_t n = static_cast<std::size_t>(nranks);
  BufferCounts counts{c.count, c.count};
  const CollKind k = c.kind;
  if (k == CollKind::kReduceScatter || k == CollKind::kAlltoall || k == CollKind::kScatter ||
      k == CollKind::kAlltoallv) {
    counts.send *= n;
  }
  if (k == CollKind::kAllgather || k == CollKind::kAlltoall || k == CollKind::kGather)
    counts.recv *= n;
  // The same allocation on every rank: room for what the busiest receiver gets.
  if (k == CollKind::kAlltoallv) counts.recv = exchange_totals(c, nranks).max_recv;
  if (c.in_place) counts = {0, std::max(counts.send, counts.recv)};
  return counts;
}

SetLayout set_layout(const Collective& c, int nranks) {
  constexpr std::uint64_t kAlignBytes = 256;
  const auto aligned = [](std::uint64_t bytes) {
    return (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes;
  };
  const BufferCounts counts = buffer_counts(c, nranks);
  const std::uint64_t elem = element_bytes(c.dtype);
  const std::uint64_t send = aligned(counts.send * elem);
  return {send, send + aligned(std::max<std::uint64_t>(counts.recv, 1) * elem)};
}

int p2p_peer(int rank, int nranks) {
  if (nranks % 2 != 0) return -1;
  const int half = nranks / 2;
  return rank < half ? rank + half : rank - half;
}

std::vector<Block> input_blocks(const Collective& c, int nranks, int rank) {
  const BufferCounts counts = buffer_counts(c, nranks);
  if (!moves_data(c.kind)) return {};
  if (c.kind == CollKind::kAlltoallv) return {{0, rank_exchange(c, nranks, rank).send_total, rank}};
  if (!c.in_place) return {{0, counts.send, rank, 0, false}};
  // In place the input sits where the output keeps it: the rank's own block of the result.
  const bool own_block =
      c.kind == CollKind::kAllgather || (c.kind == CollKind::kGather && rank == c.root);
  if (own_block) return {{rank * c.count, c.count, rank, 0, true}};
  if ((c.kind == CollKind::kBroadcast || c.kind == CollKind::kScatter) && rank != c.root) return {};
  if (c.kind == CollKind::kGather) return {{0, c.count, rank, 0, true}};
  return {{0, counts.recv, rank, 0, true}};
}

std::vector<Block> expected_blocks(const Collective& c, int nranks, int rank) {
  const std::size_t count = c.count;
  switch (c.kind) {
    case CollKind::kAllreduce:
      return {{0, count, kReduced, 0}};
    case CollKind::kReduce:
      if (rank != c.root) return {};
      return {{0, count, kReduced, 0}};
    case CollKind::kReduceScatter:
      return {{0, count, kReduced, rank * count}};
    case CollKind::kBroadcast:
      return {{0, count, c.root, 0}};
    case CollKind::kSendrecv:
      return {{0, count, (rank + nranks - 1) % nranks, 0}};
    case CollKind::kAllgather:
    case CollKind::kAlltoall: {
      std::vector<Block> blocks;
      for (int src = 0; src < nranks; ++src) {
        // allgather: block src is src's whole input; alltoall: src's block addressed to us.
        const std::uint64_t first = c.kind == CollKind::kAlltoall ? rank * count : 0;
        blocks.push_back({src * count, count, src, first});
      }
      return blocks;
    }
    case CollKind::kAlltoallv: {
      const RankExchange x = rank_exchange(c, nranks, rank);
      std::vector<Block> blocks;
      for (std::size_t src = 0; src < x.recv_counts.size(); ++src) {
        blocks.push_back(
            {x.recv_offsets[src], x.recv_counts[src], static_cast<int>(src), x.recv_first[src]});
      }
      return blocks;
    }
    case CollKind::kGather: {
      if (rank != c.root) return {};
      std::vector<Block> blocks;
      for (int src = 0; src < nranks; ++src) blocks.push_back({src * count, count, src, 0});
      return blocks;
    }
    case CollKind::kScatter:
      // In place the root's block stays in its input, at its own offset.
      return {{c.in_place && rank == c.root ? rank * count : 0, count, c.root, rank * count}};
    case CollKind::kBarrier:
      return {};
    case CollKind::kPingpong:
    case CollKind::kBiBw:
      return {{0, count, p2p_peer(rank, nranks), 0}};
    case CollKind::kUniBw:
      if (rank < nranks / 2) return {};
      return {{0, count, p2p_peer(rank, nranks), 0}};
  }
  return {};
}

std::optional<std::size_t> first_checked_element(const Collective& c, int nranks, int rank) {
  for (const Block& b : expected_blocks(c, nranks, rank)) {
    if (b.count > 0) return b.offset;
  }
  return std::nullopt;
}

void fill_for(const Collective& c, int nranks, int rank, const Pattern& p, void* send, void* recv) {
  const BufferCounts counts = buffer_counts(c, nranks);
  // A value no pattern holds (pattern.hpp): an output the collective never wrote shows up as
  // wrong. 0xFF would be -1 in a signed integer, which the patterns do hold.
  std::memset(recv, poison_byte(c.dtype), counts.recv * element_bytes(c.dtype));
  for (const Block& b : input_blocks(c, nranks, rank)) {
    fill_inputs(p, b.source_rank, b.first_index, offset(b.in_recv ? recv : send, b.offset, c.dtype),
                b.count);
  }
}

std::uint64_t count_wrong_for(const Collective& c, int nranks, int rank, const Pattern& p,
                              const void* recv) {
  std::uint64_t wrong = 0;
  for (const Block& b : expected_blocks(c, nranks, rank)) {
    const void* at = offset(recv, b.offset, c.dtype);
    wrong += b.source_rank == kReduced
                 ? count_wrong_reduced(p, b.first_index, at, b.count)
                 : count_wrong_inputs(p, b.source_rank, b.first_index, at, b.count);
  }
  return wrong;
}

}  // namespace colltune
