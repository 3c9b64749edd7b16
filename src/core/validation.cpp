#include "core/validation.hpp"

#include <algorithm>
#include <cstring>

namespace colltune {
namespace {

const void* offset(const void* base, std::size_t elements, DType dtype) {
  return static_cast<const char*>(base) + elements * element_bytes(dtype);
}
void* offset(void* base, std::size_t elements, DType dtype) {
  return static_cast<char*>(base) + elements * element_bytes(dtype);
}

}  // namespace

BufferCounts buffer_counts(const Collective& c, int nranks) {
  const std::size_t n = static_cast<std::size_t>(nranks);
  BufferCounts counts{c.count, c.count};
  if (c.kind == CollKind::kReduceScatter || c.kind == CollKind::kAlltoall) counts.send *= n;
  if (c.kind == CollKind::kAllgather || c.kind == CollKind::kAlltoall) counts.recv *= n;
  if (c.in_place) counts = {0, std::max(counts.send, counts.recv)};
  return counts;
}

int p2p_peer(int rank, int nranks) {
  if (nranks % 2 != 0) return -1;
  const int half = nranks / 2;
  return rank < half ? rank + half : rank - half;
}

void fill_for(const Collective& c, int nranks, int rank, const Pattern& p, void* send, void* recv) {
  const BufferCounts counts = buffer_counts(c, nranks);
  const std::size_t recv_elems = std::max(counts.send, counts.recv);
  // 0xFF bytes are NaN for floats and unlikely values otherwise: an output the collective never
  // wrote shows up as wrong.
  std::memset(recv, 0xFF, (c.in_place ? recv_elems : counts.recv) * element_bytes(c.dtype));
  if (!c.in_place) {
    fill_inputs(p, rank, 0, send, counts.send);
    return;
  }
  if (c.kind == CollKind::kAllgather) {
    fill_inputs(p, rank, 0, offset(recv, rank * c.count, c.dtype), c.count);
  } else if (c.kind != CollKind::kBroadcast || rank == c.root) {
    fill_inputs(p, rank, 0, recv, recv_elems);
  }
}

std::uint64_t count_wrong_for(const Collective& c, int nranks, int rank, const Pattern& p,
                              const void* recv) {
  const std::size_t count = c.count;
  switch (c.kind) {
    case CollKind::kAllreduce:
      return count_wrong_reduced(p, 0, recv, count);
    case CollKind::kReduce:
      return rank == c.root ? count_wrong_reduced(p, 0, recv, count) : 0;
    case CollKind::kReduceScatter:
      return count_wrong_reduced(p, rank * count, recv, count);
    case CollKind::kBroadcast:
      return count_wrong_inputs(p, c.root, 0, recv, count);
    case CollKind::kSendrecv:
      return count_wrong_inputs(p, (rank + nranks - 1) % nranks, 0, recv, count);
    case CollKind::kAllgather:
    case CollKind::kAlltoall: {
      std::uint64_t wrong = 0;
      for (int src = 0; src < nranks; ++src) {
        // allgather: block src is src's whole input; alltoall: src's block addressed to us.
        const std::uint64_t first = c.kind == CollKind::kAlltoall ? rank * count : 0;
        wrong += count_wrong_inputs(p, src, first, offset(recv, src * count, c.dtype), count);
      }
      return wrong;
    }
    case CollKind::kPingpong:
    case CollKind::kBiBw:
      return count_wrong_inputs(p, p2p_peer(rank, nranks), 0, recv, count);
    case CollKind::kUniBw:
      return rank >= nranks / 2 ? count_wrong_inputs(p, p2p_peer(rank, nranks), 0, recv, count) : 0;
  }
  return 0;
}

}  // namespace colltune
